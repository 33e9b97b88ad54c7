// A step's energies gathered on the device (see CudaEnergySums.h).
#include "kernels/common/CudaEnergySums.h"

#include <cub/cub.cuh>

#include "kernels/common/CudaCheck.h"
#include "kernels/common/FixedPoint.h"

namespace faraday {
namespace {

constexpr int kThreads = kEnergySumsThreads;

__global__ void energySumsKernel(const double* keParts, int keCount, unsigned long long* fixedSums, int count,
                                 int pmeAt, const double* pme, EnergySumsOut out) {
  using Reduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename Reduce::TempStorage scratch;
  double ke = 0;
  for (int k = threadIdx.x; k < keCount; k += blockDim.x) ke += keParts[k];
  ke = Reduce(scratch).Sum(ke);
  if (threadIdx.x == 0) *out.kinetic = ke;
  double sum = 0;
  if (threadIdx.x < unsigned(count)) {
    sum = fixed::energyFromFixed(static_cast<long long>(fixedSums[threadIdx.x]));
    out.sums[threadIdx.x] = sum;
    fixedSums[threadIdx.x] = 0;
  }
  // PME split over GPUs: its sums are the fixed-point ones (zero otherwise).
  const unsigned pmeSlot = threadIdx.x - unsigned(pmeAt);
  if (pmeSlot < 7) out.recip[pmeSlot] = pme ? pme[pmeSlot] : sum;
}

}  // namespace

void launchEnergySums(cudaStream_t stream, const double* keParts, int keCount, unsigned long long* fixedSums,
                      int count, int pmeAt, const double* pme, const EnergySumsOut& out) {
  energySumsKernel<<<1, kThreads, 0, stream>>>(keParts, keCount, fixedSums, count, pmeAt, pme, out);
  FARADAY_CUDA_CHECK_LAUNCH("energySumsKernel");
}

}  // namespace faraday
