#pragma once
// What one GPU's direct sum of forces (CudaPeerSum.h) shows the others: plain device addresses,
// passed between the GPUs' host threads.

namespace faraday {

/// The most GPUs a direct sum spans.
inline constexpr int kMaxPeerSumRanks = 8;
/// The phases of CudaPeerSum, each with its own counters: the all-reduce's two (0, 1; the
/// reduce-scatter uses 0) and the all-gathers of each GPU's own slots (2).
inline constexpr int kPeerSumPhases = 3;
/// The reduce-scatter sends only the chunks of kPeerChunk values (one plane) that hold a
/// non-zero partial, with a bit per chunk (a word per kPeerChunksPerWord chunks).
inline constexpr int kPeerChunk = 64, kPeerChunksPerWord = 32;
/// Values of each rank in the small inbox (CudaPeerSum::enqueueShareOwn's `extra` sums).
inline constexpr int kPeerExtraValues = 8;

/// One GPU's buffers as the other GPUs store into them (device addresses on that GPU).
struct PeerSumAddresses {
  unsigned long long* force = nullptr;      ///< its forces (the summed array)
  unsigned long long* inbox = nullptr;      ///< (ranks - 1) x the forces: the others' partials
  unsigned long long* sumsInbox = nullptr;  ///< ranks x sumCount: every rank's energy sums
  unsigned long long* extraInbox = nullptr; ///< ranks x kPeerExtraValues: every rank's extra sums
  unsigned long long* flags = nullptr;      ///< kPeerSumPhases x kMaxPeerSumRanks counters, written by the others
  unsigned int* chunkBits = nullptr;        ///< (ranks - 1) x words: which chunks of the inbox the reduce-scatter filled
  double* packedPositions = nullptr;        ///< x, y, z per slot: the others' slots, as the all-gather stores them
  void* velocities = nullptr;               ///< its per-slot velocities (double4)
};

}  // namespace faraday
