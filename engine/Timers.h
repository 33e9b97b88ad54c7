#pragma once
#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace faraday {

/// Wall-clock time per named phase, accumulated over a run (like GROMACS' cycle
/// accounting). Phase names are dotted: "pme.spread", "nonbonded", "neighbor".
class Timers {
 public:
  using Clock = std::chrono::steady_clock;

  void add(const std::string& phase, double seconds) {
    auto& e = entries_[phase];
    e.seconds += seconds;
    e.calls += 1;
    if (e.order < 0) e.order = next_++;
  }
  struct Entry {
    double seconds = 0;
    long long calls = 0;
    int order = -1;
  };
  /// Phases in first-seen order.
  std::vector<std::pair<std::string, Entry>> ordered() const;
  double total() const;
  void clear() { entries_.clear(); next_ = 0; }
  /// Human-readable table: phase, seconds, percent, calls, ms/call.
  std::string table(const std::string& title, double wallSeconds) const;

 private:
  std::map<std::string, Entry> entries_;
  int next_ = 0;
};

/// RAII timer: adds the elapsed wall time to a phase of `timers` (if not null).
class ScopedTimer {
 public:
  ScopedTimer(Timers* timers, std::string phase)
      : timers_(timers), phase_(std::move(phase)), start_(Timers::Clock::now()) {}
  ~ScopedTimer() {
    if (timers_)
      timers_->add(phase_, std::chrono::duration<double>(Timers::Clock::now() - start_).count());
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  Timers* timers_;
  std::string phase_;
  Timers::Clock::time_point start_;
};

}  // namespace faraday
