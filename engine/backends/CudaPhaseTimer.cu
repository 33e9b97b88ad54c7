// The CUDA backends' phase times from events of sampled steps (see CudaPhaseTimer.cuh).
#include "engine/backends/CudaPhaseTimer.cuh"

#include <algorithm>

#include "engine/backends/CudaStepPolicy.h"
#include "kernels/common/CudaCheck.h"

namespace faraday {

CudaPhaseTimer::CudaPhaseTimer(Timers* timers, std::vector<CudaTimedPhase> phases) : timers_(timers) {
  setPhases(std::move(phases));
}

void CudaPhaseTimer::setPhases(std::vector<CudaTimedPhase> phases) {
  phases_ = std::move(phases);
  int last = 0;
  for (const CudaTimedPhase& p : phases_)
    for (int k : p.intervals) last = std::max(last, k + 1);
  events_.reserve(std::size_t(last) + 1);
  while (events_.size() <= std::size_t(last)) events_.emplace_back(cudaEventDefault);
}

bool CudaPhaseTimer::samples(long long step) const { return timers_ && step % cuda_step::kTimedEvery == 0; }

void CudaPhaseTimer::record(int k, cudaStream_t stream) {
  FARADAY_CUDA_CHECK(cudaEventRecord(events_[std::size_t(k)].get(), stream));
}

void CudaPhaseTimer::recordInCapture(int k, cudaStream_t stream) {
  FARADAY_CUDA_CHECK(cudaEventRecordWithFlags(events_[std::size_t(k)].get(), stream, cudaEventRecordExternal));
}

void CudaPhaseTimer::collect() {
  if (!pending_) return;
  for (const CudaEvent& e : events_) FARADAY_CUDA_CHECK(cudaEventSynchronize(e.get()));
  for (const CudaTimedPhase& p : phases_) {
    float ms = 0;
    for (int k : p.intervals) ms += CudaEvent::elapsedMs(events_[std::size_t(k)], events_[std::size_t(k) + 1]);
    timers_->add(p.name, 1e-3 * cuda_step::kTimedEvery * ms);
  }
  pending_ = false;
}

}  // namespace faraday
