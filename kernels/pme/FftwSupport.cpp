#include "kernels/pme/FftwSupport.h"

namespace faraday {

std::mutex& fftwPlannerMutex() {
  static std::mutex m;
  return m;
}

}  // namespace faraday
