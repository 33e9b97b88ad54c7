#pragma once
// One persistent host thread per GPU: run() executes a function on every rank's thread (each
// with its GPU current) and waits; any() and minimum() are the ranks' barrier with a logical
// or and a minimum.
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace faraday {

class RankThreads {
 public:
  /// A thread per entry of `devices` (device indices; with `useCuda` false, no device is set:
  /// for the CPU tests of the scheduling).
  explicit RankThreads(const std::vector<int>& devices, bool useCuda = true);
  ~RankThreads();
  RankThreads(const RankThreads&) = delete;
  RankThreads& operator=(const RankThreads&) = delete;

  int size() const { return int(threads_.size()); }
  /// Runs job(rank) on every rank's thread and waits for all; rethrows the lowest rank's own
  /// error (the cause), and only when no rank failed on its own, a released barrier's error.
  void run(const std::function<void(int rank)>& job);
  /// Called by every rank inside run() at the same point: whether `flag` is true on any rank.
  /// Throws Error when another rank has failed meanwhile (instead of waiting for it forever).
  bool any(bool flag);
  /// Called by every rank inside run() at the same point: the smallest `value` of the ranks
  /// (throws as any()).
  unsigned long long minimum(unsigned long long value);

 private:
  void loop(int rank, int device, bool useCuda);

  std::mutex mutex_;
  std::condition_variable wake_, done_, barrier_;
  const std::function<void(int)>* job_ = nullptr;
  long long generation_ = 0;  ///< counts the jobs started
  int finished_ = 0;
  bool stop_ = false, failed_ = false;
  std::vector<std::exception_ptr> errors_;
  std::vector<bool> released_;  ///< errors_[r] is any()'s "another GPU failed", not r's own
  // The barrier of any() and minimum().
  int arrived_ = 0;
  long long barrierGeneration_ = 0;
  unsigned long long minValue_ = ~0ull, minResult_ = ~0ull;
  std::vector<std::thread> threads_;
};

}  // namespace faraday
