#pragma once
// Completion signals between GPUs that store into each other's memory (peer access): the last
// block of a kernel counts the kernel's run and writes the count into a counter in each
// peer's memory; a one-warp kernel on the peer waits until every other rank's counter has
// reached its own count. Used by the PME transposes (CudaPmeExchange.cu) and the GPUs' sum of
// forces (CudaPeerSum.cu). Every rank runs the same kernels in the same order, so the counts agree.
#include <cuda_runtime.h>

namespace faraday::peer_signal {

/// After every block's stores: the last block to finish adds one to `*sent` and writes it to
/// each peer's counter `counterOf(p)` (system-scope fences order the stores to peer memory
/// before the signal). Every thread of every block calls it at the end of the kernel.
template <class CounterOf>
__device__ __forceinline__ void signalPeers(int me, int ranks, unsigned int* blocksDone, unsigned long long* sent,
                                            CounterOf counterOf) {
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x != 0) return;
  const unsigned int done = atomicAdd(blocksDone, 1u);
  if (done != gridDim.x - 1) return;
  *blocksDone = 0;
  const unsigned long long count = *sent + 1;
  *sent = count;
  __threadfence_system();
  for (int p = 0; p < ranks; ++p)
    if (p != me) *reinterpret_cast<volatile unsigned long long*>(counterOf(p)) = count;
}

/// One warp: lane p waits until rank p's counter here (`counterFrom(p)`) reaches `want` (a
/// peer that never comes ends the kernel with a trap after 60 s rather than hanging).
template <class CounterFrom>
__device__ __forceinline__ void waitForPeers(int me, int ranks, unsigned long long want, CounterFrom counterFrom) {
  const int p = threadIdx.x;
  if (p < ranks && p != me) {
    const volatile unsigned long long* flag = counterFrom(p);
    unsigned long long start = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (*flag < want) {
      __nanosleep(200);
      unsigned long long now = 0;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
      if (now - start > 60000000000ull) __trap();
    }
  }
  __threadfence_system();
}

}  // namespace faraday::peer_signal
