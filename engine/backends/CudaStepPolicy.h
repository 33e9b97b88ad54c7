#pragma once
// How the CUDA backends (CudaBackend, CudaAllPairsBackend) run their steps: the block size
// of their own kernels, how often the host reads the device's flags, and how often a step is
// timed for the phase table (CudaPhaseTimer).

namespace faraday::cuda_step {

/// Threads per block of the backends' own kernels (per-slot updates, block reductions).
inline constexpr int kThreads = 256;
/// Steps between the host's reads of the device flags (list and PME bin overflow, non-finite
/// values) outside reporting steps; in CudaBackend an overflow costs at most this many steps
/// run again.
inline constexpr long long kCheckInterval = 200;
/// Every kTimedEvery-th step records CUDA events between its phases; the phase table scales
/// those samples to all steps.
inline constexpr long long kTimedEvery = 10;

}  // namespace faraday::cuda_step
