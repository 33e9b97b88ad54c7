#include "core/Timers.h"

#include <algorithm>
#include <cstdio>

namespace faraday {

std::vector<std::pair<std::string, Timers::Entry>> Timers::ordered() const {
  std::vector<std::pair<std::string, Entry>> v(entries_.begin(), entries_.end());
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.order < b.second.order; });
  return v;
}

double Timers::total() const {
  double t = 0;
  for (const auto& [name, e] : entries_)
    if (e.depth == 0) t += e.seconds;
  return t;
}

std::string Timers::table(const std::string& title, double wallSeconds) const {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%s\n%-24s %12s %8s %10s %12s\n", title.c_str(), "phase", "seconds", "%",
                "calls", "ms/call");
  out += line;
  const double denom = wallSeconds > 0 ? wallSeconds : std::max(total(), 1e-300);
  for (const auto& [name, e] : ordered()) {
    const std::string shown = std::string(2 * std::size_t(e.depth), ' ') + name;
    std::snprintf(line, sizeof line, "%-24s %12.4f %8.2f %10lld %12.4f\n", shown.c_str(), e.seconds,
                  100.0 * e.seconds / denom, e.calls, e.calls ? 1e3 * e.seconds / double(e.calls) : 0.0);
    out += line;
  }
  if (wallSeconds > 0) {
    std::snprintf(line, sizeof line, "%-24s %12.4f %8.2f\n", "rest", std::max(0.0, wallSeconds - total()),
                  100.0 * std::max(0.0, wallSeconds - total()) / denom);
    out += line;
    std::snprintf(line, sizeof line, "%-24s %12.4f %8.2f\n", "total (wall)", wallSeconds, 100.0);
    out += line;
  }
  return out;
}

}  // namespace faraday
