#pragma once
// The sum of the GPUs' partial fixed-point forces and energy sums of a step, in place on every
// GPU, by the GPUs' own kernels storing into each other's memory over NVLink (peer access).
// GPU g sums slots [bounds[g], bounds[g + 1]) of each plane of the forces: a reduce-scatter
// (each GPU pushes into every other GPU's inbox the runs of kPeerChunk values of that GPU's
// slots holding a non-zero partial, with a bit each; each adds its own slots) and, for the
// all-reduce, an all-gather (each pushes its slots' totals into every other GPU's forces). The
// energy sums (a few dozen values) go to every GPU, which adds them all. Integer sums: the
// same bits in any order. Each phase ends as the PME transposes' do (CudaPmeExchange.cu): the
// last block bumps a counter in each peer's memory, and a one-warp kernel waits until every
// peer's counter reaches this GPU's.
// Where each GPU updates its own slots (the update split, CudaBackendShare), the step's sum is
// the reduce-scatter alone; after its first half each GPU pushes its slots' positions into
// every other GPU's arrays (and, when asked, velocities and forces: enqueueShareOwn).
// Every rank enqueues the same sums in the same order (as NCCL's collectives need), so the
// counts agree. A rank pushes into a peer's inbox only after the peer's previous sum has read
// it (the peer's all-gather signal, which this rank waited for), and pushes totals into a
// peer's forces only after the peer has pushed its partials of those slots (its first signal).
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "kernels/common/DeviceBuffer.h"
#include "kernels/multigpu/PeerSum.h"

namespace faraday {

/// One GPU's arrays that the sum and the all-gathers read and write.
struct PeerSumArrays {
  unsigned long long* force = nullptr;  ///< 3 planes of `stride` fixed-point values
  std::size_t stride = 0;
  unsigned long long* sums = nullptr;   ///< the energy sums
  std::size_t sumCount = 0;
  void* positions = nullptr;            ///< per slot, double4 (32 bytes)
  void* velocities = nullptr;           ///< per slot, double4
};

class CudaPeerSum {
 public:
  /// What enqueueShareOwn pushes: bits of these.
  static constexpr unsigned kPositions = 1, kVelocities = 2, kForces = 4;

  /// Rank `rank` of `ranks` (the current device is its GPU).
  CudaPeerSum(int rank, int ranks, const PeerSumArrays& arrays);

  PeerSumAddresses addresses();
  /// Every rank's addresses, by rank (peer access enabled between every pair of GPUs).
  void connect(const std::vector<PeerSumAddresses>& all);
  /// The all-reduce, enqueued on `stream` (graph capture allowed): each GPU sums slots
  /// [bounds[rank], bounds[rank + 1]) of each plane (`bounds`: ranks + 1 slots in device
  /// memory, the same on every GPU); afterwards every GPU holds the totals.
  void enqueue(cudaStream_t stream, const int* bounds);
  /// The reduce-scatter: afterwards this GPU holds the totals of its slots in each plane (as
  /// enqueue's) and of the energy sums; the other slots hold this GPU's partials, already sent.
  void enqueueScatter(cudaStream_t stream, const int* bounds);
  /// This GPU's slots of the arrays named by `what` (kPositions, kVelocities, kForces) pushed
  /// into every other GPU's; `extra` (null, or extraCount <= kPeerExtraValues fixed-point
  /// sums) summed over the GPUs in place. Afterwards every GPU holds every GPU's slots.
  void enqueueShareOwn(cudaStream_t stream, const int* bounds, unsigned what, unsigned long long* extra,
                       int extraCount);
  /// x, y, z of each slot (3 per slot) where enqueueShareOwn's kPositions stores the other
  /// GPUs' slots (the caller unpacks them into its positions).
  const double* packedPositions() const { return packed_.data(); }
  /// Words of chunk bits for `count` values (kPeerChunk values a bit, kPeerChunksPerWord a word).
  static std::size_t chunkWords(std::size_t count);

 private:
  int rank_, ranks_;
  PeerSumArrays arrays_;
  DeviceBuffer<unsigned long long> inbox_, sumsInbox_, extraInbox_, flags_, sent_;
  DeviceBuffer<double> packed_;  ///< the others' slots' x, y, z (enqueueShareOwn's kPositions)
  DeviceBuffer<unsigned int> blocksDone_, chunkBits_;
  std::vector<PeerSumAddresses> peers_;
};

}  // namespace faraday
#endif
