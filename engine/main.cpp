#include <cstdio>
#include <string>
#include <vector>

#include "engine/Error.h"
#include "kernels/common/Device.h"
#include "kernels/dcs/BenchDcs.h"

int main(int argc, char** argv) {
  try {
    // faraday bench dcs [--quick]: the potential-map kernel benchmark.
    if (argc >= 3 && std::string(argv[1]) == "bench" && std::string(argv[2]) == "dcs")
      return faraday::benchDcs(std::vector<std::string>(argv + 3, argv + argc));
  } catch (const faraday::Error& e) {
    std::fprintf(stderr, "faraday: error: %s\n", e.what());
    return 1;
  }
  std::printf("faraday 0.1: %s\n", faraday::cudaDeviceDescription().c_str());
  return 0;
}
