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
constexpr int kAllGatherPhase = 2;

struct SumArgs {
  int me = 0, ranks = 0;
  unsigned long long* force = nullptr;
  std::size_t forceCount = 0;  ///< values of the forces (and of each inbox slot)
  std::size_t stride = 0;      ///< values per plane of the forces
  unsigned long long* sums = nullptr;
  int sumCount = 0;
  const double* positions = nullptr;                 ///< this GPU's per-slot positions (double4)
  const int* bounds = nullptr;                       ///< the ranks' slots: rank p's are [bounds[p], bounds[p + 1])
  PeerSumAddresses peer[kMaxPeerSumRanks] = {};      ///< every rank's buffers (this one's too)
  std::size_t words = 0;                             ///< chunk words per sender (by slots)
  unsigned long long* sent = nullptr;                ///< this GPU's counts of finished phases
  unsigned int* blocksDone = nullptr;                ///< its finished blocks per phase
};

/// The rank k after this one (wrapping): each rank stores into the next ranks first, so that
/// at any time every rank stores into another one (all into rank 0 first left links idle).
__device__ __forceinline__ int rankAfter(const SumArgs& a, int k) {
  return a.me + k < a.ranks ? a.me + k : a.me + k - a.ranks;
}

/// The slot of rank `from`'s partials in rank `to`'s inbox.
__device__ __forceinline__ int inboxSlot(int from, int to) { return from < to ? from : from - 1; }

/// Calls pair(i) for the 16-byte pairs [i, i + 2) (i even) of [begin, end) and one(i) for an
/// odd first and last value, spread over the grid.
template <class Pair, class One>
__device__ __forceinline__ void forRange(std::size_t begin, std::size_t end, Pair&& pair, One&& one) {
  if (begin >= end) return;
  const std::size_t a = (begin + 1) & ~std::size_t(1), z = std::max(a, end & ~std::size_t(1));
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  const std::size_t t0 = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::size_t j = t0; j < (z - a) / 2; j += stride) pair(a + 2 * j);
  if (t0 == 0) {
    if (begin & 1) one(begin);
    if ((end & 1) && end - 1 >= a) one(end - 1);
  }
}

/// Copies values [begin, end) of `src` into `dst` (the same indices).
__device__ __forceinline__ void copyRange(const unsigned long long* src, unsigned long long* dst, std::size_t begin,
                                          std::size_t end) {
  forRange(
      begin, end,
      [&](std::size_t i) { *reinterpret_cast<ulonglong2*>(dst + i) = *reinterpret_cast<const ulonglong2*>(src + i); },
      [&](std::size_t i) { dst[i] = src[i]; });
}

/// Rank p's values of the forces in plane `plane`: [begin, end).
__device__ __forceinline__ void rankRange(const SumArgs& a, int p, int plane, std::size_t& begin, std::size_t& end) {
  begin = std::size_t(plane) * a.stride + std::size_t(a.bounds[p]);
  end = std::size_t(plane) * a.stride + std::size_t(a.bounds[p + 1]);
}

/// After every block's stores: the last block counts the phase and tells each peer.
__device__ __forceinline__ void signalPeers(const SumArgs& a, int phase) {
  peer_signal::signalPeers(a.me, a.ranks, a.blocksDone + phase, a.sent + phase,
                           [&](int p) { return a.peer[p].flags + phase * kMaxPeerSumRanks + a.me; });
}

/// Whether value i (of the 3 planes) lies in rank p's slots.
__device__ __forceinline__ bool inRankSlots(const SumArgs& a, int p, std::size_t i) {
  if (i >= 3 * a.stride) return false;
  const std::size_t slot = i % a.stride;
  return slot >= std::size_t(a.bounds[p]) && slot < std::size_t(a.bounds[p + 1]);
}

/// Phase 0: for every other rank, the chunks (kPeerChunk values of one plane) of its slots
/// where this GPU's partials are not all zero go into its inbox, and a bit per chunk says which
/// (zero chunks add nothing: the sum is the same); this GPU's energy sums go into every other
/// rank's. With tiles dealt by contiguous blocks, most of a GPU's partials lie in its own slots
/// and its neighbours' edges. One warp per word of kPeerChunksPerWord chunks.
__global__ void __launch_bounds__(kThreads) pushChunksKernel(SumArgs a) {
  constexpr std::size_t kWordValues = std::size_t(kPeerChunk) * kPeerChunksPerWord;
  const int lane = threadIdx.x & 31;
  const std::size_t warp = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const std::size_t warps = std::size_t(gridDim.x) * blockDim.x / 32;
  const std::size_t count = 3 * a.stride;
  for (int k = 1; k < a.ranks; ++k) {
    const int p = rankAfter(a, k);
    const std::size_t b = std::size_t(a.bounds[p]), e = std::size_t(a.bounds[p + 1]);
    unsigned long long* dst = a.peer[p].inbox + std::size_t(inboxSlot(a.me, p)) * a.forceCount;
    unsigned int* bits = a.peer[p].chunkBits + std::size_t(inboxSlot(a.me, p)) * a.words;
    for (std::size_t w = warp; w < a.words; w += warps) {
      const std::size_t w0 = w * kWordValues, w1 = std::min(count, w0 + kWordValues);
      bool overlaps = false;  // the word meets rank p's slots in some plane
      for (int plane = 0; plane < 3; ++plane) {
        const std::size_t lo = plane * a.stride + b, hi = plane * a.stride + e;
        overlaps = overlaps || (lo < hi && lo < w1 && hi > w0);
      }
      if (!overlaps) continue;  // rank p never reads this word
      unsigned int mask = 0;
      // kUnroll chunks' loads in flight at once, then their tests and stores.
      constexpr int kUnroll = 8;
      static_assert(kPeerChunksPerWord % kUnroll == 0, "whole rounds of chunks");
      for (int c0 = 0; c0 < kPeerChunksPerWord; c0 += kUnroll) {
        ulonglong2 v[kUnroll];
        bool in0[kUnroll], in1[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const std::size_t first = w0 + std::size_t(c0 + u) * kPeerChunk, i = first + 2 * lane;  // i even
          // The chunk within one plane (every chunk but a plane's last, where the plane's
          // values are not a multiple of kPeerChunk): all of rank p's, or none of them.
          const std::size_t s0 = first % a.stride;
          const bool onePlane = s0 + kPeerChunk <= a.stride;
          const bool none = first >= count || (onePlane && (s0 + kPeerChunk <= b || s0 >= e));
          const bool whole = !none && onePlane && s0 >= b && s0 + kPeerChunk <= e;
          in0[u] = !none && (whole || inRankSlots(a, p, i));
          in1[u] = !none && (whole || inRankSlots(a, p, i + 1));
          v[u] = ulonglong2{0ull, 0ull};
          if (in0[u] && in1[u]) v[u] = *reinterpret_cast<const ulonglong2*>(a.force + i);
          else if (in0[u]) v[u].x = a.force[i];
          else if (in1[u]) v[u].y = a.force[i + 1];
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          if (!__any_sync(0xffffffffu, (v[u].x | v[u].y) != 0ull)) continue;
          mask |= 1u << (c0 + u);
          const std::size_t i = w0 + std::size_t(c0 + u) * kPeerChunk + 2 * lane;
          if (in0[u] && in1[u]) *reinterpret_cast<ulonglong2*>(dst + i) = v[u];
          else if (in0[u]) dst[i] = v[u].x;
          else if (in1[u]) dst[i + 1] = v[u].y;
        }
      }
      if (lane == 0) bits[w] = mask;
    }
  }
  if (blockIdx.x == 0)
    for (int k = threadIdx.x; k < a.sumCount; k += blockDim.x)
      for (int p = 0; p < a.ranks; ++p)
        if (p != a.me) a.peer[p].sumsInbox[std::size_t(a.me) * a.sumCount + k] = a.sums[k];
  signalPeers(a, 0);
}

/// Whether inbox slot k holds value i (its chunk's bit).
__device__ __forceinline__ bool chunkSent(const SumArgs& a, int k, std::size_t i) {
  const std::size_t chunk = i / kPeerChunk;
  const unsigned int word = a.peer[a.me].chunkBits[std::size_t(k) * a.words + chunk / kPeerChunksPerWord];
  return (word >> (chunk % kPeerChunksPerWord)) & 1u;
}

/// Phase 1: this GPU's slots summed with the others' partials, written here and (`share`: the
/// all-reduce) into every other rank's forces; the energy sums of every rank added here.
__global__ void __launch_bounds__(kThreads) sumAndShareKernel(SumArgs a, bool share) {
  const unsigned long long* inbox = a.peer[a.me].inbox;
  const auto sumAt = [&](std::size_t i) {
    unsigned long long t = a.force[i];
    for (int k = 0; k + 1 < a.ranks; ++k)
      if (chunkSent(a, k, i)) t += inbox[std::size_t(k) * a.forceCount + i];
    a.force[i] = t;
    if (share)
      for (int k = 1; k < a.ranks; ++k) a.peer[rankAfter(a, k)].force[i] = t;
  };
  for (int plane = 0; plane < 3; ++plane) {
    std::size_t begin, end;
    rankRange(a, a.me, plane, begin, end);
    forRange(
        begin, end,
        [&](std::size_t i) {
          ulonglong2 t = *reinterpret_cast<const ulonglong2*>(a.force + i);
          for (int k = 0; k + 1 < a.ranks; ++k) {
            if (!chunkSent(a, k, i)) continue;  // i even: i and i + 1 share their chunk
            const ulonglong2 v = *reinterpret_cast<const ulonglong2*>(inbox + std::size_t(k) * a.forceCount + i);
            t.x += v.x, t.y += v.y;
          }
          *reinterpret_cast<ulonglong2*>(a.force + i) = t;
          if (share)
            for (int k = 1; k < a.ranks; ++k) *reinterpret_cast<ulonglong2*>(a.peer[rankAfter(a, k)].force + i) = t;
        },
        sumAt);
  }
  if (blockIdx.x == 0)
    for (int k = threadIdx.x; k < a.sumCount; k += blockDim.x) {
      unsigned long long t = a.sums[k];
      for (int q = 0; q < a.ranks; ++q)
        if (q != a.me) t += a.peer[a.me].sumsInbox[std::size_t(q) * a.sumCount + k];
      a.sums[k] = t;
    }
  if (share) signalPeers(a, 1);
}

/// This GPU's slots of the arrays in `what` into every other rank's, and its extra sums into
/// every other rank's extra inbox.
__global__ void __launch_bounds__(kThreads) shareOwnKernel(SumArgs a, unsigned what, const unsigned long long* extra,
                                                          int extraCount) {
  const std::size_t b = std::size_t(a.bounds[a.me]), e = std::size_t(a.bounds[a.me + 1]);
  for (int k = 1; k < a.ranks; ++k) {
    const int p = rankAfter(a, k);
    const PeerSumAddresses& to = a.peer[p];
    const PeerSumAddresses& from = a.peer[a.me];
    // The positions' x, y, z packed (24 of a slot's 32 bytes; w, the constrained flag, is the
    // same on every GPU) in 16-byte stores: value i of the packed run is component i mod 3 of
    // slot i / 3. (Stored into the double4s as 16 + 8 bytes a slot they took longer: 0.206
    // against 0.134 ms for the integration phase at 1M ions on 2 H200.)
    if (what & CudaPeerSum::kPositions) {
      const double* src = a.positions;
      const auto at = [src](std::size_t i) { return src[4 * (i / 3) + i % 3]; };
      forRange(
          3 * b, 3 * e, [&](std::size_t i) { *reinterpret_cast<double2*>(to.packedPositions + i) = double2{at(i), at(i + 1)}; },
          [&](std::size_t i) { to.packedPositions[i] = at(i); });
    }
    if (what & CudaPeerSum::kVelocities)
      copyRange(static_cast<const unsigned long long*>(from.velocities),
                static_cast<unsigned long long*>(to.velocities), 4 * b, 4 * e);
    if (what & CudaPeerSum::kForces)
      for (int plane = 0; plane < 3; ++plane)
        copyRange(a.force, to.force, plane * a.stride + b, plane * a.stride + e);
    if (blockIdx.x == 0 && int(threadIdx.x) < extraCount)
      to.extraInbox[a.me * kPeerExtraValues + threadIdx.x] = extra[threadIdx.x];
  }
  signalPeers(a, kAllGatherPhase);
}

/// The other ranks' extra sums added to this GPU's.
__global__ void addExtraKernel(SumArgs a, unsigned long long* extra, int extraCount) {
  const int k = threadIdx.x;
  if (k >= extraCount) return;
  unsigned long long t = extra[k];
  for (int q = 0; q < a.ranks; ++q)
    if (q != a.me) t += a.peer[a.me].extraInbox[q * kPeerExtraValues + k];
  extra[k] = t;
}

/// One warp: until every peer has run as many `phase` kernels as this rank.
__global__ void waitForPeersKernel(SumArgs a, int phase) {
  peer_signal::waitForPeers(a.me, a.ranks, a.sent[phase],
                            [&](int p) { return a.peer[a.me].flags + phase * kMaxPeerSumRanks + p; });
}

}  // namespace

std::size_t CudaPeerSum::chunkWords(std::size_t count) {
  const std::size_t wordValues = std::size_t(kPeerChunk) * kPeerChunksPerWord;
  return (count + wordValues - 1) / wordValues;
}

CudaPeerSum::CudaPeerSum(int rank, int ranks, const PeerSumArrays& arrays)
    : rank_(rank), ranks_(ranks), arrays_(arrays) {
  if (ranks < 2 || ranks > kMaxPeerSumRanks)
    throw Error("the GPUs' direct sum spans 2 to " + std::to_string(kMaxPeerSumRanks) + " GPUs, not " +
                std::to_string(ranks));
  inbox_ = DeviceBuffer<unsigned long long>("gpu sum inbox", std::size_t(ranks - 1) * 3 * arrays.stride);
  sumsInbox_ = DeviceBuffer<unsigned long long>("gpu sum energy inbox", std::size_t(ranks) * arrays.sumCount);
  extraInbox_ = DeviceBuffer<unsigned long long>("gpu sum extra inbox", std::size_t(ranks) * kPeerExtraValues);
  packed_ = DeviceBuffer<double>("gpu sum packed positions", 3 * arrays.stride);
  chunkBits_ = DeviceBuffer<unsigned int>("gpu sum chunk bits", std::size_t(ranks - 1) * chunkWords(3 * arrays.stride));
  flags_ = DeviceBuffer<unsigned long long>("gpu sum flags", kPeerSumPhases * kMaxPeerSumRanks);
  sent_ = DeviceBuffer<unsigned long long>("gpu sum counts", kPeerSumPhases);
  blocksDone_ = DeviceBuffer<unsigned int>("gpu sum blocks", kPeerSumPhases);
  flags_.zero();
  sent_.zero();
  blocksDone_.zero();
  FARADAY_CUDA_CHECK(cudaDeviceSynchronize());
}

PeerSumAddresses CudaPeerSum::addresses() {
  PeerSumAddresses p;
  p.force = arrays_.force;
  p.inbox = inbox_.data();
  p.sumsInbox = sumsInbox_.data();
  p.extraInbox = extraInbox_.data();
  p.flags = flags_.data();
  p.chunkBits = chunkBits_.data();
  p.packedPositions = packed_.data();
  p.velocities = arrays_.velocities;
  return p;
}

void CudaPeerSum::connect(const std::vector<PeerSumAddresses>& all) {
  if (int(all.size()) != ranks_) throw Error("the GPUs' direct sum needs every rank's buffers");
  peers_ = all;
}

namespace {

SumArgs sumArgs(int rank, int ranks, const PeerSumArrays& arrays, const std::vector<PeerSumAddresses>& peers,
                const int* bounds, unsigned long long* sent, unsigned int* blocksDone) {
  if (peers.empty()) throw Error("the GPUs' direct sum is not connected to its peers");
  if (!bounds) throw Error("the GPUs' direct sum needs every rank's slots");
  SumArgs a;
  a.me = rank;
  a.ranks = ranks;
  a.force = arrays.force;
  a.forceCount = 3 * arrays.stride;
  a.stride = arrays.stride;
  a.sums = arrays.sums;
  a.sumCount = int(arrays.sumCount);
  a.positions = static_cast<const double*>(arrays.positions);
  for (int p = 0; p < ranks; ++p) a.peer[p] = peers[std::size_t(p)];
  a.bounds = bounds;
  a.words = CudaPeerSum::chunkWords(a.forceCount);
  a.sent = sent;
  a.blocksDone = blocksDone;
  return a;
}

void waitForPeers(cudaStream_t stream, const SumArgs& a, int phase) {
  waitForPeersKernel<<<1, 32, 0, stream>>>(a, phase);
  FARADAY_CUDA_CHECK_LAUNCH("waitForPeersKernel");
}

/// Phase 0 of both sums: the partials' non-zero chunks into the peers' inboxes, then the wait
/// for theirs.
void pushChunks(cudaStream_t stream, const SumArgs& a) {
  pushChunksKernel<<<kBlocks, kThreads, 0, stream>>>(a);
  FARADAY_CUDA_CHECK_LAUNCH("pushChunksKernel");
  waitForPeers(stream, a, 0);
}

}  // namespace

void CudaPeerSum::enqueue(cudaStream_t stream, const int* bounds) {
  const SumArgs a = sumArgs(rank_, ranks_, arrays_, peers_, bounds, sent_.data(), blocksDone_.data());
  pushChunks(stream, a);
  sumAndShareKernel<<<kBlocks, kThreads, 0, stream>>>(a, true);
  FARADAY_CUDA_CHECK_LAUNCH("sumAndShareKernel");
  waitForPeers(stream, a, 1);
}

void CudaPeerSum::enqueueScatter(cudaStream_t stream, const int* bounds) {
  const SumArgs a = sumArgs(rank_, ranks_, arrays_, peers_, bounds, sent_.data(), blocksDone_.data());
  pushChunks(stream, a);
  // No signal after it: a peer pushes into this inbox again only after this GPU's next
  // all-gather of positions, which follows this sum.
  sumAndShareKernel<<<kBlocks, kThreads, 0, stream>>>(a, false);
  FARADAY_CUDA_CHECK_LAUNCH("sumAndShareKernel");
}

void CudaPeerSum::enqueueShareOwn(cudaStream_t stream, const int* bounds, unsigned what, unsigned long long* extra,
                                  int extraCount) {
  if (extraCount < 0 || extraCount > kPeerExtraValues || (extraCount > 0 && !extra))
    throw Error("the GPUs' all-gather takes up to " + std::to_string(kPeerExtraValues) + " extra sums");
  const SumArgs a = sumArgs(rank_, ranks_, arrays_, peers_, bounds, sent_.data(), blocksDone_.data());
  shareOwnKernel<<<kBlocks, kThreads, 0, stream>>>(a, what, extra, extraCount);
  FARADAY_CUDA_CHECK_LAUNCH("shareOwnKernel");
  waitForPeers(stream, a, kAllGatherPhase);
  if (extraCount > 0) {
    addExtraKernel<<<1, kPeerExtraValues, 0, stream>>>(a, extra, extraCount);
    FARADAY_CUDA_CHECK_LAUNCH("addExtraKernel");
  }
}

}  // namespace faraday
