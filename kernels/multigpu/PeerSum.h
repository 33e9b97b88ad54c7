#pragma once
// What one GPU's direct sum of forces (CudaPeerSum.h) shows the others: plain device addresses,
// passed between the GPUs' host threads.

namespace faraday {

/// The most GPUs a direct sum spans.
inline constexpr int kMaxPeerSumRanks = 8;

/// One GPU's buffers as the other GPUs store into them (device addresses on that GPU).
struct PeerSumAddresses {
  unsigned long long* force = nullptr;      ///< its forces (the summed array)
  unsigned long long* inbox = nullptr;      ///< (ranks - 1) chunks: the others' partials of its chunk
  unsigned long long* sumsInbox = nullptr;  ///< ranks x sumCount: every rank's energy sums
  unsigned long long* flags = nullptr;      ///< 2 x kMaxPeerSumRanks counters, written by the others
};

}  // namespace faraday
