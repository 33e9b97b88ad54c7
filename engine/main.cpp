#include <cstdio>

#include "kernels/common/Device.h"

int main(int argc, char** argv) {
  std::printf("faraday 0.1: %s\n", faraday::cudaDeviceDescription().c_str());
  return 0;
}
