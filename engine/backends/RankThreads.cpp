#include "engine/backends/RankThreads.h"

#include <algorithm>

#include "core/Error.h"
#include "kernels/common/Device.h"

namespace faraday {

namespace {
/// What any() throws on the ranks it releases when another rank has failed: a consequence of
/// that failure, which run() reports only when no rank's own error is there to report.
class BarrierReleased : public Error {
 public:
  BarrierReleased() : Error("another GPU of the run failed") {}
};
}  // namespace

RankThreads::RankThreads(const std::vector<int>& devices, bool useCuda)
    : errors_(devices.size()), released_(devices.size(), false) {
  for (std::size_t r = 0; r < devices.size(); ++r)
    threads_.emplace_back([this, r, d = devices[r], useCuda] { loop(int(r), d, useCuda); });
}

RankThreads::~RankThreads() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void RankThreads::loop(int rank, int device, bool useCuda) {
  long long seen = 0;
  bool deviceSet = false;
  for (;;) {
    const std::function<void(int)>* job = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
    }
    std::exception_ptr error;
    bool released = false;
    try {
      if (useCuda && !deviceSet) useCudaDevice(device);
      deviceSet = true;
      (*job)(rank);
    } catch (const BarrierReleased&) {
      error = std::current_exception();
      released = true;
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (error) {
      errors_[std::size_t(rank)] = error;
      released_[std::size_t(rank)] = released;
      failed_ = true;
      barrier_.notify_all();
    }
    if (++finished_ == size()) done_.notify_all();
  }
}

void RankThreads::run(const std::function<void(int)>& job) {
  std::unique_lock<std::mutex> lock(mutex_);
  job_ = &job;
  finished_ = 0;
  failed_ = false;
  arrived_ = 0;
  minValue_ = ~0ull;
  for (std::exception_ptr& e : errors_) e = nullptr;
  released_.assign(released_.size(), false);
  ++generation_;
  wake_.notify_all();
  done_.wait(lock, [&] { return finished_ == size(); });
  job_ = nullptr;
  // The lowest rank's own error first: released ranks only report that some rank failed.
  for (std::size_t r = 0; r < errors_.size(); ++r)
    if (errors_[r] && !released_[r]) std::rethrow_exception(errors_[r]);
  for (const std::exception_ptr& e : errors_)
    if (e) std::rethrow_exception(e);
}

bool RankThreads::any(bool flag) { return minimum(flag ? 0ull : 1ull) == 0ull; }

unsigned long long RankThreads::minimum(unsigned long long value) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (failed_) throw BarrierReleased();
  minValue_ = std::min(minValue_, value);
  if (++arrived_ == size()) {
    minResult_ = minValue_;
    minValue_ = ~0ull;
    arrived_ = 0;
    ++barrierGeneration_;
    barrier_.notify_all();
    return minResult_;
  }
  const long long generation = barrierGeneration_;
  barrier_.wait(lock, [&] { return barrierGeneration_ != generation || failed_; });
  if (barrierGeneration_ == generation) throw BarrierReleased();
  return minResult_;
}

}  // namespace faraday
