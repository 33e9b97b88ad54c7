#include "engine/output/Progress.h"

#include <unistd.h>

#include <cstdio>

#include "core/Units.h"

namespace faraday {

Progress::Progress(double interval, long long firstStep, long long lastStep, double timestep)
    : interval_(interval), firstStep_(firstStep), lastStep_(lastStep), timestep_(timestep),
      terminal_(::isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()), lastPrint_(start_) {}

Progress Progress::ofFrames(double interval, long long frames) { return Progress(interval, 0, frames, 0.0); }

double Progress::perSecond(long long step) const {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double steps = double(step - firstStep_);
  if (elapsed <= 0 || steps <= 0) return 0;
  return steps / elapsed;
}

double Progress::nsPerDay(long long step) const {
  return perSecond(step) * timestep_ / units::kPsPerNs * units::kSecondsPerDay;
}

void Progress::check(long long step) {
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - lastPrint_).count() < interval_) return;
  lastPrint_ = now;
  print(step, std::chrono::duration<double>(now - start_).count());
}

void Progress::print(long long step, double elapsed) {
  const long long total = lastStep_ - firstStep_, done = step - firstStep_;
  const double percent = total > 0 ? 100.0 * double(done) / double(total) : 100.0;
  const double remaining = done > 0 ? elapsed * double(total - done) / double(done) : 0.0;
  const long long r = (long long)(remaining + 0.5);
  char rate[64];
  if (timestep_ > 0)
    std::snprintf(rate, sizeof rate, "step %lld/%lld  %.3g ns/day", step, lastStep_, nsPerDay(step));
  else
    std::snprintf(rate, sizeof rate, "frame %lld/%lld  %.3g frames/s", step, lastStep_, perSecond(step));
  std::fprintf(stderr, "%s%5.1f%%  %s  remaining %lld:%02lld:%02lld%s", terminal_ ? "\r" : "", percent, rate, r / 3600,
               (r / 60) % 60, r % 60, terminal_ ? "   " : "\n");
  std::fflush(stderr);
  printed_ = true;
}

void Progress::finish() {
  if (printed_ && terminal_) std::fputc('\n', stderr);
  printed_ = false;
}

}  // namespace faraday
