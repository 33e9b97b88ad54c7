#pragma once
#include <chrono>

namespace faraday {

/// Progress line on stderr every `interval` seconds: percent, step, ns/day and time
/// remaining; rewritten in place with \r on a terminal, one line each otherwise.
class Progress {
 public:
  /// Steps `firstStep` .. `lastStep` of `timestep` ps; `interval` s (0 = silent).
  Progress(double interval, long long firstStep, long long lastStep, double timestep);
  /// Called after each step; prints when `interval` has passed.
  void update(long long step) {
    if (interval_ > 0) check(step);
  }
  /// Ends the line on a terminal.
  void finish();
  /// ns/day over the whole run so far.
  double nsPerDay(long long step) const;

 private:
  void check(long long step);
  void print(long long step, double elapsed);

  double interval_;
  long long firstStep_, lastStep_;
  double timestep_;
  bool terminal_;
  bool printed_ = false;
  std::chrono::steady_clock::time_point start_, lastPrint_;
};

}  // namespace faraday
