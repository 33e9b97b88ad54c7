#include "kernels/pme/FftwSupport.h"

#include <fftw3.h>

#include "engine/Error.h"

namespace faraday {

void initFftwThreads() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] { ok = fftw_init_threads() != 0; });
  if (!ok) throw Error(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": fftw_init_threads failed");
}

std::mutex& fftwPlannerMutex() {
  static std::mutex m;
  return m;
}

}  // namespace faraday
