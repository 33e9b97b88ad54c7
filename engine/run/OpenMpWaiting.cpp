#include "engine/run/OpenMpWaiting.h"

#include <unistd.h>

#include <cstdlib>

namespace faraday {

void limitOpenMpSpinning(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return;
  if (::setenv("GOMP_SPINCOUNT", kSpinCount, 1) != 0) return;
  ::execv("/proc/self/exe", argv);
}

std::string openMpWaiting() {
  std::string out;
  for (const char* name : {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"})
    if (const char* value = std::getenv(name)) out += (out.empty() ? "" : ", ") + std::string(name) + "=" + value;
  return out.empty() ? "the OpenMP runtime's default" : out;
}

}  // namespace faraday
