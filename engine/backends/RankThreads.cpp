#include "engine/backends/RankThreads.h"

#include "core/Error.h"
#include "kernels/common/Device.h"

namespace faraday {

RankThreads::RankThreads(const std::vector<int>& devices, bool useCuda) : errors_(devices.size()) {
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
    try {
      if (useCuda && !deviceSet) useCudaDevice(device);
      deviceSet = true;
      (*job)(rank);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (error) {
      errors_[std::size_t(rank)] = error;
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
  anyFlag_ = false;
  for (std::exception_ptr& e : errors_) e = nullptr;
  ++generation_;
  wake_.notify_all();
  done_.wait(lock, [&] { return finished_ == size(); });
  job_ = nullptr;
  for (const std::exception_ptr& e : errors_)
    if (e) std::rethrow_exception(e);
}

bool RankThreads::any(bool flag) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (failed_) throw Error("another GPU of the run failed");
  anyFlag_ = anyFlag_ || flag;
  if (++arrived_ == size()) {
    anyResult_ = anyFlag_;
    anyFlag_ = false;
    arrived_ = 0;
    ++barrierGeneration_;
    barrier_.notify_all();
    return anyResult_;
  }
  const long long generation = barrierGeneration_;
  barrier_.wait(lock, [&] { return barrierGeneration_ != generation || failed_; });
  if (barrierGeneration_ == generation) throw Error("another GPU of the run failed");
  return anyResult_;
}

}  // namespace faraday
