#pragma once
// The sum of the GPUs' partial fixed-point forces and energy sums of a step, in place on every
// GPU, by the GPUs' own kernels storing into each other's memory over NVLink (peer access):
// a reduce-scatter (each GPU pushes every other GPU's chunk of its partial forces into that
// GPU's inbox; each adds its own chunk) and an all-gather (each pushes its chunk's totals into
// every other GPU's forces). The energy sums (a few dozen values) go to every GPU, which adds
// them all. Integer sums: the same bits in any order. Each phase ends as the PME transposes'
// do (CudaPmeExchange.cu): the last block bumps a counter in each peer's memory, and a
// one-warp kernel waits until every peer's counter reaches this GPU's.
// Every rank enqueues the same sums in the same order (as NCCL's collectives need), so the
// counts agree. A rank pushes into a peer's inbox only after the peer's previous sum has read
// it (the peer's all-gather signal, which this rank waited for), and pushes totals into a
// peer's forces only after the peer has pushed its partials of that chunk (its first signal).
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "kernels/common/DeviceBuffer.h"
#include "kernels/multigpu/PeerSum.h"

namespace faraday {

class CudaPeerSum {
 public:
  /// Rank `rank` of `ranks` (the current device is its GPU): sums `force` (forceCount values)
  /// and `sums` (sumCount values) of this GPU with the others'.
  CudaPeerSum(int rank, int ranks, unsigned long long* force, std::size_t forceCount, unsigned long long* sums,
              std::size_t sumCount);

  PeerSumAddresses addresses();
  /// Every rank's addresses, by rank (peer access enabled between every pair of GPUs).
  void connect(const std::vector<PeerSumAddresses>& all);
  /// The sum, enqueued on `stream` (graph capture allowed); after it every GPU holds the totals.
  void enqueue(cudaStream_t stream);
  /// The first value of rank p's chunk (p = ranks: the end); even, for 16-byte stores.
  static std::size_t chunkStart(std::size_t count, int ranks, int p);

 private:
  int rank_, ranks_;
  unsigned long long* force_;
  std::size_t forceCount_;
  unsigned long long* sums_;
  std::size_t sumCount_;
  DeviceBuffer<unsigned long long> inbox_, sumsInbox_, flags_, sent_;
  DeviceBuffer<unsigned int> blocksDone_;
  std::vector<PeerSumAddresses> peers_;
};

}  // namespace faraday
#endif
