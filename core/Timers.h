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

  /// Adds `seconds` to `phase`. A phase timed while a ScopedTimer is open is nested in it:
  /// shown indented below it and not counted again in the total.
  void add(const std::string& phase, double seconds) {
    auto& e = touch(phase);
    e.seconds += seconds;
    e.calls += 1;
  }
  struct Entry {
    double seconds = 0;
    long long calls = 0;
    int order = -1;
    int depth = 0;  ///< number of enclosing open ScopedTimers when first seen
  };
  /// Registers `phase` (keeps first-seen order and nesting depth) without adding time.
  Entry& touch(const std::string& phase) {
    auto& e = entries_[phase];
    if (e.order < 0) {
      e.order = next_++;
      e.depth = open_;
    }
    return e;
  }
  void open(const std::string& phase) {
    touch(phase);
    ++open_;
  }
  void close() { --open_; }
  /// Phases in first-seen order.
  std::vector<std::pair<std::string, Entry>> ordered() const;
  double total() const;
  void clear() { entries_.clear(); next_ = 0; open_ = 0; }
  /// Human-readable table: phase, seconds, percent, calls, ms/call.
  std::string table(const std::string& title, double wallSeconds) const;

 private:
  std::map<std::string, Entry> entries_;
  int next_ = 0;
  int open_ = 0;
};

/// RAII timer: adds the elapsed wall time to a phase of `timers` (if not null).
class ScopedTimer {
 public:
  ScopedTimer(Timers* timers, std::string phase)
      : timers_(timers), phase_(std::move(phase)), start_(Timers::Clock::now()) {
    if (timers_) timers_->open(phase_);
  }
  ~ScopedTimer() {
    if (timers_) {
      timers_->close();
      timers_->add(phase_, std::chrono::duration<double>(Timers::Clock::now() - start_).count());
    }
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  Timers* timers_;
  std::string phase_;
  Timers::Clock::time_point start_;
};

}  // namespace faraday
