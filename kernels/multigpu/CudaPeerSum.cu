// The GPUs' sum of partial forces and energy sums by direct stores (see CudaPeerSum.h).
#include "kernels/multigpu/CudaPeerSum.h"

#include <algorithm>
#include <string>

#include "core/Error.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaPeerSignal.cuh"

namespace faraday {

namespace {

constexpr int kThreads = 256;
/// Blocks per phase: two per SM of an H100 keep enough 16-byte stores in flight for NVLink
/// (528, 1056 and 2112 blocks took the same time or longer: 0.084 - 0.088 ms at 1M atoms on
/// 2 H200); nothing else runs during the sum.
constexpr unsigned int kBlocks = 264;

struct SumArgs {
  int me = 0, ranks = 0;
  unsigned long long* force = nullptr;
  unsigned long long* sums = nullptr;
  int sumCount = 0;
  std::size_t chunkMax = 0;                          ///< values per inbox chunk (even)
  std::size_t start[kMaxPeerSumRanks + 1] = {};      ///< the ranks' chunks of the forces
  PeerSumAddresses peer[kMaxPeerSumRanks] = {};      ///< every rank's buffers (this one's too)
  unsigned long long* sent = nullptr;                ///< this GPU's counts of finished phases (2)
  unsigned int* blocksDone = nullptr;                ///< its finished blocks per phase (2)
};

/// The rank k after this one (wrapping): each rank stores into the next ranks first, so that
/// at any time every rank stores into another one (all into rank 0 first left links idle).
__device__ __forceinline__ int rankAfter(const SumArgs& a, int k) {
  return a.me + k < a.ranks ? a.me + k : a.me + k - a.ranks;
}

/// The slot of rank `from`'s partials in rank `to`'s inbox.
__device__ __forceinline__ int inboxSlot(int from, int to) { return from < to ? from : from - 1; }

/// Copies or adds the values [0, count) as 16-byte pairs (both pointers 16-byte aligned) and
/// the odd last value, spread over the grid.
template <class F>
__device__ __forceinline__ void forPairs(std::size_t count, F&& f) {
  const std::size_t pairs = count / 2, stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t j = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; j < (count + 1) / 2; j += stride)
    f(j, j < pairs);
}

/// After every block's stores: the last block counts the phase and tells each peer.
__device__ __forceinline__ void signalPeers(const SumArgs& a, int phase) {
  peer_signal::signalPeers(a.me, a.ranks, a.blocksDone + phase, a.sent + phase,
                           [&](int p) { return a.peer[p].flags + phase * kMaxPeerSumRanks + a.me; });
}

/// Phase 0: every other rank's chunk of this GPU's partial forces into that rank's inbox, and
/// this GPU's energy sums into every other rank's.
__global__ void __launch_bounds__(kThreads) pushPartialsKernel(SumArgs a) {
  for (int k = 1; k < a.ranks; ++k) {
    const int p = rankAfter(a, k);
    const unsigned long long* src = a.force + a.start[p];
    unsigned long long* dst = a.peer[p].inbox + std::size_t(inboxSlot(a.me, p)) * a.chunkMax;
    forPairs(a.start[p + 1] - a.start[p], [&](std::size_t j, bool pair) {
      if (pair) reinterpret_cast<ulonglong2*>(dst)[j] = reinterpret_cast<const ulonglong2*>(src)[j];
      else dst[2 * j] = src[2 * j];
    });
  }
  if (blockIdx.x == 0)
    for (int k = threadIdx.x; k < a.sumCount; k += blockDim.x)
      for (int p = 0; p < a.ranks; ++p)
        if (p != a.me) a.peer[p].sumsInbox[std::size_t(a.me) * a.sumCount + k] = a.sums[k];
  signalPeers(a, 0);
}

/// Phase 1: this GPU's chunk summed with the others' partials, written here and into every
/// other rank's forces; the energy sums of every rank added here.
__global__ void __launch_bounds__(kThreads) sumAndShareKernel(SumArgs a) {
  const std::size_t s0 = a.start[a.me];
  unsigned long long* own = a.force + s0;
  const unsigned long long* inbox = a.peer[a.me].inbox;
  forPairs(a.start[a.me + 1] - s0, [&](std::size_t j, bool pair) {
    if (pair) {
      ulonglong2 t = reinterpret_cast<const ulonglong2*>(own)[j];
      for (int k = 0; k + 1 < a.ranks; ++k) {
        const ulonglong2 v = reinterpret_cast<const ulonglong2*>(inbox + std::size_t(k) * a.chunkMax)[j];
        t.x += v.x, t.y += v.y;
      }
      reinterpret_cast<ulonglong2*>(own)[j] = t;
      for (int k = 1; k < a.ranks; ++k) reinterpret_cast<ulonglong2*>(a.peer[rankAfter(a, k)].force + s0)[j] = t;
    } else {
      unsigned long long t = own[2 * j];
      for (int k = 0; k + 1 < a.ranks; ++k) t += inbox[std::size_t(k) * a.chunkMax + 2 * j];
      own[2 * j] = t;
      for (int k = 1; k < a.ranks; ++k) a.peer[rankAfter(a, k)].force[s0 + 2 * j] = t;
    }
  });
  if (blockIdx.x == 0)
    for (int k = threadIdx.x; k < a.sumCount; k += blockDim.x) {
      unsigned long long t = a.sums[k];
      for (int q = 0; q < a.ranks; ++q)
        if (q != a.me) t += a.peer[a.me].sumsInbox[std::size_t(q) * a.sumCount + k];
      a.sums[k] = t;
    }
  signalPeers(a, 1);
}

/// One warp: until every peer has run as many `phase` kernels as this rank.
__global__ void waitForPeersKernel(SumArgs a, int phase) {
  peer_signal::waitForPeers(a.me, a.ranks, a.sent[phase],
                            [&](int p) { return a.peer[a.me].flags + phase * kMaxPeerSumRanks + p; });
}

}  // namespace

std::size_t CudaPeerSum::chunkStart(std::size_t count, int ranks, int p) {
  const std::size_t chunk = ((count + std::size_t(ranks) - 1) / std::size_t(ranks) + 1) & ~std::size_t(1);  // even
  return std::min(count, std::size_t(p) * chunk);
}

CudaPeerSum::CudaPeerSum(int rank, int ranks, unsigned long long* force, std::size_t forceCount,
                         unsigned long long* sums, std::size_t sumCount)
    : rank_(rank), ranks_(ranks), force_(force), forceCount_(forceCount), sums_(sums), sumCount_(sumCount) {
  if (ranks < 2 || ranks > kMaxPeerSumRanks)
    throw Error("the GPUs' direct sum spans 2 to " + std::to_string(kMaxPeerSumRanks) + " GPUs, not " +
                std::to_string(ranks));
  const std::size_t chunkMax = chunkStart(forceCount, ranks, 1);
  inbox_ = DeviceBuffer<unsigned long long>("gpu sum inbox", std::size_t(ranks - 1) * chunkMax);
  sumsInbox_ = DeviceBuffer<unsigned long long>("gpu sum energy inbox", std::size_t(ranks) * sumCount);
  flags_ = DeviceBuffer<unsigned long long>("gpu sum flags", 2 * kMaxPeerSumRanks);
  sent_ = DeviceBuffer<unsigned long long>("gpu sum counts", 2);
  blocksDone_ = DeviceBuffer<unsigned int>("gpu sum blocks", 2);
  flags_.zero();
  sent_.zero();
  blocksDone_.zero();
  FARADAY_CUDA_CHECK(cudaDeviceSynchronize());
}

PeerSumAddresses CudaPeerSum::addresses() {
  return {force_, inbox_.data(), sumsInbox_.data(), flags_.data()};
}

void CudaPeerSum::connect(const std::vector<PeerSumAddresses>& all) {
  if (int(all.size()) != ranks_) throw Error("the GPUs' direct sum needs every rank's buffers");
  peers_ = all;
}

void CudaPeerSum::enqueue(cudaStream_t stream) {
  if (peers_.empty()) throw Error("the GPUs' direct sum is not connected to its peers");
  SumArgs a;
  a.me = rank_;
  a.ranks = ranks_;
  a.force = force_;
  a.sums = sums_;
  a.sumCount = int(sumCount_);
  a.chunkMax = chunkStart(forceCount_, ranks_, 1);
  for (int p = 0; p <= ranks_; ++p) a.start[p] = chunkStart(forceCount_, ranks_, p);
  for (int p = 0; p < ranks_; ++p) a.peer[p] = peers_[std::size_t(p)];
  a.sent = sent_.data();
  a.blocksDone = blocksDone_.data();
  pushPartialsKernel<<<kBlocks, kThreads, 0, stream>>>(a);
  FARADAY_CUDA_CHECK_LAUNCH("pushPartialsKernel");
  waitForPeersKernel<<<1, 32, 0, stream>>>(a, 0);
  FARADAY_CUDA_CHECK_LAUNCH("waitForPeersKernel");
  sumAndShareKernel<<<kBlocks, kThreads, 0, stream>>>(a);
  FARADAY_CUDA_CHECK_LAUNCH("sumAndShareKernel");
  waitForPeersKernel<<<1, 32, 0, stream>>>(a, 1);
  FARADAY_CUDA_CHECK_LAUNCH("waitForPeersKernel");
}

}  // namespace faraday
