#pragma once
#include <chrono>

namespace faraday {

/// Progress line on stderr every `interval` seconds: percent, how far, the rate and the time
/// remaining; rewritten in place with \r on a terminal, one line each otherwise. A run counts
/// steps (rate in ns/day); `faraday map` counts frames (rate in frames per second).
class Progress {
 public:
  /// Steps `firstStep` .. `lastStep` of `timestep` ps; `interval` s (0 = silent).
  Progress(double interval, long long firstStep, long long lastStep, double timestep);
  /// Frames 0 .. `frames`; `interval` s (0 = silent).
  static Progress ofFrames(double interval, long long frames);
  /// Called after each step (or frame); prints when `interval` has passed.
  void update(long long step) {
    if (interval_ > 0) check(step);
  }
  /// Ends the line on a terminal.
  void finish();
  /// ns/day over the whole run so far.
  double nsPerDay(long long step) const;
  /// Steps (frames) per second over the whole run so far.
  double perSecond(long long step) const;

 private:
  void check(long long step);
  void print(long long step, double elapsed);

  double interval_;
  long long firstStep_, lastStep_;
  double timestep_;  ///< ps; 0 when counting frames
  bool terminal_;
  bool printed_ = false;
  std::chrono::steady_clock::time_point start_, lastPrint_;
};

}  // namespace faraday
