#pragma once
// The launch shape the CUDA kernels share: one thread per item, in blocks.

namespace faraday {

/// Blocks of `perBlock` threads that cover `threads` threads.
constexpr int blocksFor(long long threads, int perBlock) { return int((threads + perBlock - 1) / perBlock); }

}  // namespace faraday
