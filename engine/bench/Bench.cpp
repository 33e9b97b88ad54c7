#include "engine/bench/Bench.h"

namespace faraday {

std::string benchUsage() {
  return "usage: faraday bench md|pme|dcs [options]\n"
         "  md   time per phase of MD steps, CPU and GPU\n"
         "  pme  PME spread/FFT/solve/gather, CPU (FFTW) vs GPU (cuFFT)\n"
         "  dcs  potential-map kernels\n"
         "faraday bench NAME --help lists the options of NAME with their units\n";
}

}  // namespace faraday
