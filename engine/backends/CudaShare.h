#pragma once
// How one CudaBackend takes part in a step shared by several GPUs of one host
// (CudaMultiBackend): its share of the force work (WorkShare), the sum of the GPUs' partial
// fixed-point forces between the forces and the integrator's second half, and the GPUs'
// common decisions (roll back and run steps again after an overflow on any GPU).
#include <cstddef>
#include <functional>
#include <vector>

#include "kernels/multigpu/GpuGroup.h"
#include "kernels/common/WorkShare.h"

namespace faraday {

struct CudaBackendShare {
  WorkShare work;
  /// Sums the GPUs' partial forces (forceCount fixed-point values) and energy sums
  /// (sumCount) in place, enqueued on `stream` (a cudaStream_t) without waiting.
  std::function<void(void* stream, unsigned long long* force, std::size_t forceCount, unsigned long long* sums,
                     std::size_t sumCount)>
      reduce;
  /// The sum by the GPUs' own stores into each other's memory (CudaPeerSum) instead of
  /// `reduce`: every pair of GPUs has peer access, and the backends are connected
  /// (CudaBackend::connectPeerSum) before the first evaluation.
  bool directSum = false;
  /// Whether `flag` is true on any GPU: every GPU's host thread calls it at the same point.
  std::function<bool(bool)> any;
  /// The smallest of `value` over the GPUs: every GPU's host thread calls it at the same point.
  std::function<unsigned long long(unsigned long long)> minimum;
  /// PME split over the GPUs in slabs (work.pme on every rank): the exchange of blocks
  /// among them, enqueued on `stream` (GpuGroup::exchange).
  std::function<void(void* stream, const std::vector<PeerFloats>& sends, const std::vector<PeerFloats>& recvs)>
      exchange;
};

}  // namespace faraday
