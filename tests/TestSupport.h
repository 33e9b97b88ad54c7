#pragma once
// Shared helpers for the test bodies: backends to instantiate over, GPU skipping,
// paths to the source tree and the built executable.
#include <gtest/gtest.h>

#include <string>

#include "kernels/common/Device.h"

namespace faraday::test {

/// Skips the current test with a clear message when no CUDA device can be used.
#define FARADAY_REQUIRE_GPU()                                                           \
  do {                                                                                  \
    if (::faraday::cudaDeviceCount() == 0)                                              \
      GTEST_SKIP() << "GPU test skipped: " << ::faraday::cudaDeviceDescription();       \
  } while (0)

inline std::string sourceDir() { return FARADAY_SOURCE_DIR; }
inline std::string faradayExecutable() { return FARADAY_EXECUTABLE; }

}  // namespace faraday::test
