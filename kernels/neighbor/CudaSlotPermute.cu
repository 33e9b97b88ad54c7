// The per-slot arrays in a new slot order (see CudaSlotPermute.h).
#include "kernels/neighbor/CudaSlotPermute.h"

#include "kernels/common/CudaCheck.h"
#include "kernels/common/Launch.h"

namespace faraday {
namespace {

constexpr int kThreads = 256;

__global__ void permuteKernel(SlotPermutation p) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= p.n) return;
  const int o = p.newToOld[s];
  p.pos2[s] = p.pos[o];
  p.vel2[s] = p.vel[o];
  p.ref2[s] = p.ref[o];
  p.posq2[s] = p.posq[o];
  p.type2[s] = p.type[o];
  p.charge2[s] = p.charge[o];
  const int a = p.atom[o];
  p.atom2[s] = a;
  p.slotOfAtom[a] = s;
}

}  // namespace

void launchPermuteSlots(cudaStream_t stream, const SlotPermutation& p) {
  permuteKernel<<<blocksFor(p.n, kThreads), kThreads, 0, stream>>>(p);
  FARADAY_CUDA_CHECK_LAUNCH("permuteKernel");
}

}  // namespace faraday
