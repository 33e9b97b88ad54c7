// The GPU PME split over several GPUs (CudaPmeEnqueue.cu, SlabExchange in CudaPmeDetail.cuh): the
// two transposes of the spectrum between x slabs and y rows as direct stores into the
// peers' memory over NVLink (peer access), one warp per row of K_z / 2 + 1 values, with no
// packing and no staging. The last block of a scatter signals each peer by a counter in the
// peer's memory; a peer waits until every rank's counter reaches its own count of scatters.
// Every rank runs the same evaluations in the same order, so the counts agree; a rank starts
// writing into a peer's buffers only after the previous step's sum across the GPUs, which
// the peer joins after its PME has finished with them.
#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaPeerSignal.cuh"
#include "kernels/pme/CudaPmeDetail.cuh"

namespace faraday::pme::gpu {

namespace {

constexpr int kScatterThreads = 256;
constexpr int kRowsPerBlock = kScatterThreads / 32;
/// Blocks of a scatter: enough stores in flight for NVLink, few enough SMs that the tile
/// kernel beside PME keeps the others while the stores cross.
constexpr unsigned int kScatterBlocks = 64;

/// The rank whose range [start[p], start[p + 1]) holds i.
__device__ __forceinline__ int ownerOf(const int* start, int ranks, int i) {
  int p = 0;
  while (p + 1 < ranks && i >= start[p + 1]) ++p;
  return p;
}

/// One warp copies a row: its loads in flight together, then the stores.
__device__ __forceinline__ void copyRow(float2* __restrict__ dst, const float2* __restrict__ src, int kh) {
  constexpr int kBatch = 8;
  for (int k0 = threadIdx.x & 31; k0 < kh; k0 += 32 * kBatch) {
    float2 v[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u)
      if (k0 + 32 * u < kh) v[u] = src[k0 + 32 * u];
#pragma unroll
    for (int u = 0; u < kBatch; ++u)
      if (k0 + 32 * u < kh) dst[k0 + 32 * u] = v[u];
  }
}

/// After every block's stores: the last block counts the scatter and tells each peer.
__device__ __forceinline__ void signalPeers(const SlabExchange& x, int direction) {
  peer_signal::signalPeers(x.me, x.ranks, x.blocksDone + direction, x.sent + direction,
                           [&](int p) { return x.flags[p] + direction * kMaxSlabRanks + x.me; });
}

/// The first rank a scatter of this rank writes to: the next one, so that at any time every
/// rank writes to another one (all of them writing to rank 0 first left the others' links idle).
__device__ __forceinline__ int nextRank(const SlabExchange& x) { return x.me + 1 == x.ranks ? 0 : x.me + 1; }

/// Row r = (x - x0) K_y + y' of this GPU's planes, y = y' shifted to start at the next rank's
/// rows; to rank p (the owner of y) unless it is this one.
__global__ void __launch_bounds__(kScatterThreads) scatterToRowsKernel(SlabExchange x, const float2* __restrict__ spectrum) {
  const int x0 = x.planeStart[x.me], planes = x.planeStart[x.me + 1] - x0;
  const int shift = x.rowStart[nextRank(x)];
  for (int r = blockIdx.x * kRowsPerBlock + (threadIdx.x >> 5); r < planes * x.ky; r += gridDim.x * kRowsPerBlock) {
    const int xl = r / x.ky;
    int y = r - xl * x.ky + shift;
    if (y >= x.ky) y -= x.ky;
    const int p = ownerOf(x.rowStart, x.ranks, y);
    if (p == x.me) continue;
    const int rows = x.rowStart[p + 1] - x.rowStart[p];
    float2* dst = x.rows[p] + (std::size_t(x0 + xl) * rows + (y - x.rowStart[p])) * x.kh;
    copyRow(dst, spectrum + (std::size_t(x0 + xl) * x.ky + y) * x.kh, x.kh);
  }
  signalPeers(x, 0);
}

/// Row r = X R + j of this GPU's rows buffer (R rows, X every plane), taken from the next
/// rank's planes on (wrapping); back to the owner q of X unless it is this one.
__global__ void __launch_bounds__(kScatterThreads) scatterToPlanesKernel(SlabExchange x, const float2* __restrict__ rows) {
  const int y0 = x.rowStart[x.me], R = x.rowStart[x.me + 1] - y0;
  const int count = x.kx * R, shift = x.planeStart[nextRank(x)] * R;
  for (int i = blockIdx.x * kRowsPerBlock + (threadIdx.x >> 5); i < count; i += gridDim.x * kRowsPerBlock) {
    const int r = i + shift < count ? i + shift : i + shift - count;
    const int X = r / R, j = r - X * R;
    const int q = ownerOf(x.planeStart, x.ranks, X);
    if (q != x.me)
      copyRow(x.spectrum[q] + (std::size_t(X) * x.ky + y0 + j) * x.kh, rows + std::size_t(r) * x.kh, x.kh);
  }
  signalPeers(x, 1);
}

/// One warp: until every peer has run as many scatters of `direction` as this rank.
__global__ void waitForPeersKernel(SlabExchange x, int direction) {
  peer_signal::waitForPeers(x.me, x.ranks, x.sent[direction],
                            [&](int p) { return x.flags[x.me] + direction * kMaxSlabRanks + p; });
}

unsigned int blocksForRows(long long rows) {
  return unsigned(std::clamp<long long>((rows + kRowsPerBlock - 1) / kRowsPerBlock, 1, kScatterBlocks));
}

}  // namespace

void launchScatterToRows(const SlabExchange& x, const float2* spectrum, cudaStream_t stream) {
  const long long rows = (long long)(x.planeStart[x.me + 1] - x.planeStart[x.me]) * x.ky;
  scatterToRowsKernel<<<blocksForRows(rows), kScatterThreads, 0, stream>>>(x, spectrum);
  FARADAY_CUDA_CHECK_LAUNCH("scatterToRowsKernel");
}

void launchScatterToPlanes(const SlabExchange& x, const float2* rows, cudaStream_t stream) {
  const long long count = (long long)x.kx * (x.rowStart[x.me + 1] - x.rowStart[x.me]);
  scatterToPlanesKernel<<<blocksForRows(count), kScatterThreads, 0, stream>>>(x, rows);
  FARADAY_CUDA_CHECK_LAUNCH("scatterToPlanesKernel");
}

void launchWaitForPeers(const SlabExchange& x, int direction, cudaStream_t stream) {
  waitForPeersKernel<<<1, 32, 0, stream>>>(x, direction);
  FARADAY_CUDA_CHECK_LAUNCH("waitForPeersKernel");
}

}  // namespace faraday::pme::gpu
