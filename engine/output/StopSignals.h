#pragma once
// Stopping a long command cleanly: SIGINT (Ctrl-C), SIGTERM (kill, batch systems) and SIGHUP
// (the terminal or the ssh session went away) only set a flag; `faraday run` checks it after
// each step and writes a checkpoint, `faraday map` and `faraday rerun` after each frame and
// write what they have as complete files. The command then exits with 128 + the signal.
#include <csignal>

namespace faraday {

/// Installs handlers for SIGINT, SIGTERM and SIGHUP that only record the signal; the
/// destructor restores the previous handlers. One instance at a time.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  /// The signal received since construction (0: none).
  static int received();

 private:
  struct sigaction oldInt_ {}, oldTerm_ {}, oldHup_ {};
};

}  // namespace faraday
