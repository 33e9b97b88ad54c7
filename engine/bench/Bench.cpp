#include "engine/bench/Bench.h"

namespace faraday {

std::string benchUsage() {
  return "usage: faraday bench md|pme|dcs|nbody [options]\n"
         "  md   time per phase of MD steps, CPU and GPU\n"
         "  pme  PME spread/FFT/solve/gather, CPU (FFTW) vs GPU (cuFFT)\n"
         "  dcs  potential-map kernels\n"
         "  nbody all-pairs gravity: triangular tiles, one-sided kernel, CPU loop\n"
         "faraday bench NAME --help lists the options of NAME with their units\n";
}

}  // namespace faraday
