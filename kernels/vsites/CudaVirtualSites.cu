// The virtual sites' kernels, in layers: one site (VirtualSiteMath.h, shared with the CPU) ->
// one thread per site of a level (buildKernel, spreadKernel) -> one launch per level
// (CudaVirtualSites) -> the host-vector adapters for tests. Positions are read per slot
// through slotOfAtom; forces leave as 64-bit fixed point through integer atomics; the virial
// correction is summed over the warp in a fixed shuffle order and added as fixed point.
#include <cuda_runtime.h>

#include <cmath>
#include <numeric>

#include "core/Error.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/common/FixedPoint.h"
#include "kernels/common/Launch.h"
#include "kernels/vsites/CudaSiteBuild.cuh"
#include "kernels/vsites/CudaVirtualSites.h"
#include "kernels/vsites/VirtualSites.h"

namespace faraday {
namespace {

constexpr int kThreads = 128;
constexpr unsigned kFull = 0xffffffffu;

/// Adds v (kJ/mol/nm) to a fixed-point force, rounded to the nearest step (2^-32).
__device__ __forceinline__ void addFixed(unsigned long long* at, double v) {
  if (v != 0.0) atomicAdd(at, static_cast<unsigned long long>(__double2ll_rn(v * fixed::kScale)));
}

/// Sites [first, end) of `v` into their slots of `pos` (w kept).
__global__ void __launch_bounds__(kThreads) buildKernel(DeviceVirtualSites v, int first, int end, double4_32a* pos,
                                                        const int* slotOfAtom, const MinimumImage* box) {
  const int k = first + int(blockIdx.x * blockDim.x + threadIdx.x);
  if (k >= end) return;
  const VirtualSite s = v.sites[k];
  const Vec3 x = cuda_sites::buildSite(v, s, pos, slotOfAtom, *box);
  const int slot = slotOfAtom[s.site];
  double4_32a p = pos[slot];
  p.x = x.x, p.y = x.y, p.z = x.z;
  pos[slot] = p;
}

/// Sites [first, end): each one's force onto its constructing particles, its own zeroed (no
/// other site of the level adds to it: those built from it are of higher levels, spread
/// before). kVirial: the warp's correction into virial[0..8]. Every thread of a warp reaches
/// the shuffles.
template <bool kVirial>
__global__ void __launch_bounds__(kThreads)
    spreadKernel(DeviceVirtualSites v, int first, int end, const double4_32a* pos, const int* slotOfAtom,
                 unsigned long long* force, std::size_t stride, const MinimumImage* box, unsigned long long* virial) {
  const int k = first + int(blockIdx.x * blockDim.x + threadIdx.x);
  double w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  if (k < end) {
    const VirtualSite s = v.sites[k];
    const int slot = slotOfAtom[s.site];
    const Vec3 F{fixed::fromFixed(static_cast<long long>(force[slot])),
                 fixed::fromFixed(static_cast<long long>(force[stride + slot])),
                 fixed::fromFixed(static_cast<long long>(force[2 * stride + slot]))};
    force[slot] = force[stride + slot] = force[2 * stride + slot] = 0ull;
    const MinimumImage image = *box;
    const auto position = [&](int atom) {
      const double4_32a p = pos[slotOfAtom[atom]];
      return Vec3{p.x, p.y, p.z};
    };
    const auto minimum = [&](Vec3 d) { return image.apply(d); };
    const auto add = [&](int atom, Vec3 f) {
      const int q = slotOfAtom[atom];
      addFixed(force + q, f.x);
      addFixed(force + stride + q, f.y);
      addFixed(force + 2 * stride + q, f.z);
    };
    vsite::spreadSite(s, v.atoms, v.weights, position, minimum, F, add, kVirial ? w : nullptr);
  }
  if constexpr (kVirial) {
    for (int c = 0; c < 9; ++c)
      for (int o = 16; o > 0; o >>= 1) w[c] += __shfl_xor_sync(kFull, w[c], o);
    if ((threadIdx.x & 31) == 0)
      for (int c = 0; c < 9; ++c)
        if (w[c] != 0.0) atomicAdd(virial + c, static_cast<unsigned long long>(fixed::energyToFixed(w[c])));
  }
}

}  // namespace

CudaVirtualSites::CudaVirtualSites(const VirtualSites& sites)
    : sites_(deviceCopy("virtual sites", sites.sites)),
      atoms_(deviceCopy("virtual sites' atoms", sites.atoms)),
      weights_(deviceCopy("virtual sites' weights", sites.weights)),
      levels_(sites.levels) {
  if (levels_.empty()) levels_ = {0, 0};
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

void CudaVirtualSites::enqueueBuild(cudaStream_t stream, double4_32a* pos, const int* slotOfAtom) const {
  for (int level = 0; level < levels(); ++level) {
    const int first = levelStart(level), end = levelStart(level + 1);
    if (end == first) continue;
    buildKernel<<<blocksFor(end - first, kThreads), kThreads, 0, stream>>>(view(), first, end, pos, slotOfAtom,
                                                                           box_.data());
    FARADAY_CUDA_CHECK_LAUNCH("virtual sites buildKernel");
  }
}

void CudaVirtualSites::enqueueSpread(cudaStream_t stream, const double4_32a* pos, const int* slotOfAtom,
                                     unsigned long long* force, std::size_t stride,
                                     unsigned long long* virial) const {
  for (int level = levels() - 1; level >= 0; --level) {
    const int first = levelStart(level), end = levelStart(level + 1);
    if (end == first) continue;
    const int blocks = blocksFor(end - first, kThreads);
    if (virial)
      spreadKernel<true><<<blocks, kThreads, 0, stream>>>(view(), first, end, pos, slotOfAtom, force, stride,
                                                          box_.data(), virial);
    else
      spreadKernel<false><<<blocks, kThreads, 0, stream>>>(view(), first, end, pos, slotOfAtom, force, stride,
                                                           box_.data(), nullptr);
    FARADAY_CUDA_CHECK_LAUNCH("virtual sites spreadKernel");
  }
}

namespace {

/// The host-vector adapters' device state: positions by particle (slot = particle).
struct HostFrame {
  explicit HostFrame(const std::vector<Vec3>& positions) : n(positions.size()) {
    std::vector<double4_32a> p(n);
    for (std::size_t i = 0; i < n; ++i) p[i] = make_double4_32a(positions[i].x, positions[i].y, positions[i].z, 0.0);
    pos.upload(p, stream.get());
    std::vector<int> identity(n);
    std::iota(identity.begin(), identity.end(), 0);
    slots.upload(identity, stream.get());
  }
  std::size_t n;
  CudaStream stream;
  DeviceBuffer<double4_32a> pos{"test positions", 0};
  DeviceBuffer<int> slots{"test slots", 0};
};

}  // namespace

void cudaConstructVirtualSites(const VirtualSites& sites, std::vector<Vec3>& positions, const Box& box) {
  HostFrame frame(positions);
  CudaVirtualSites device(sites);
  device.setBox(box, frame.stream.get());
  device.enqueueBuild(frame.stream.get(), frame.pos.data(), frame.slots.data());
  const std::vector<double4_32a> p = frame.pos.toHost(frame.stream.get());
  for (std::size_t i = 0; i < frame.n; ++i) positions[i] = Vec3{p[i].x, p[i].y, p[i].z};
}

Tensor3 cudaSpreadVirtualSiteForces(const VirtualSites& sites, const std::vector<Vec3>& positions,
                                    std::vector<Vec3>& forces, const Box& box) {
  HostFrame frame(positions);
  const std::size_t n = frame.n, stride = (n + 31) / 32 * 32;
  std::vector<unsigned long long> f(3 * stride, 0ull);
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c)
      f[std::size_t(c) * stride + i] = static_cast<unsigned long long>(std::llround(forces[i][c] * fixed::kScale));
  DeviceBuffer<unsigned long long> force("test forces", 0), virial("test virial", 9);
  force.upload(f, frame.stream.get());
  virial.zero(frame.stream.get());
  CudaVirtualSites device(sites);
  device.setBox(box, frame.stream.get());
  device.enqueueSpread(frame.stream.get(), frame.pos.data(), frame.slots.data(), force.data(), stride, virial.data());
  f = force.toHost(frame.stream.get());
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) forces[i][c] = fixed::fromFixed(static_cast<long long>(f[std::size_t(c) * stride + i]));
  const std::vector<unsigned long long> w = virial.toHost(frame.stream.get());
  Tensor3 t;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) t.m[a][b] = fixed::energyFromFixed(static_cast<long long>(w[std::size_t(3 * a + b)]));
  return t;
}

}  // namespace faraday
