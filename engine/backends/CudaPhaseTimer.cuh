#pragma once
// Phase times of the CUDA backends' steps: every kTimedEvery-th step (CudaStepPolicy.h)
// records CUDA events between its phases; collect() adds each phase's interval times
// kTimedEvery to the Timers, so that the phase table covers all steps.
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include <vector>

#include "core/Timers.h"
#include "kernels/common/CudaOwners.h"

namespace faraday {

/// One row of the phase table: `name` and the intervals it sums (interval k runs from
/// event k to event k + 1).
struct CudaTimedPhase {
  const char* name;
  std::vector<int> intervals;
};

class CudaPhaseTimer {
 public:
  /// `timers` null: no step is sampled. The events are as many as the intervals need.
  CudaPhaseTimer(Timers* timers, std::vector<CudaTimedPhase> phases);

  /// Another phase table (before any step is sampled).
  void setPhases(std::vector<CudaTimedPhase> phases);
  /// Whether step `step` (counted from the start of the run) is a sampled step.
  bool samples(long long step) const;
  /// Records event `k` on `stream` (outside a graph).
  void record(int k, cudaStream_t stream);
  /// Records event `k` as an external event node of the graph being captured on `stream`.
  void recordInCapture(int k, cudaStream_t stream);
  /// The events of a sampled step are enqueued: the next collect() reads them.
  void markPending() { pending_ = true; }
  /// Waits for the pending sample's last event and adds its phases to the timers; nothing
  /// without a pending sample.
  void collect();

 private:
  Timers* timers_;
  std::vector<CudaTimedPhase> phases_;
  std::vector<CudaEvent> events_;
  bool pending_ = false;
};

}  // namespace faraday
#endif
