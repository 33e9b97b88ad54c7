#pragma once
// Shared helpers for the test bodies: backends to instantiate over, GPU skipping,
// paths to the source tree and the built executable.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "kernels/common/Device.h"

namespace faraday::test {

/// Skips the current test with a clear message when no CUDA device can be used.
#define FARADAY_REQUIRE_GPU()                                                           \
  do {                                                                                  \
    if (::faraday::cudaDeviceCount() == 0)                                              \
      GTEST_SKIP() << "GPU test skipped: " << ::faraday::cudaDeviceDescription();       \
  } while (0)

/// The source tree and the faraday executable: fixed at build time, overridable by the
/// environment variables FARADAY_SOURCE_DIR and FARADAY_EXECUTABLE when the built tests run
/// elsewhere (e.g. copied to a GPU machine).
inline std::string sourceDir() {
  const char* env = std::getenv("FARADAY_SOURCE_DIR");
  return env && *env ? env : FARADAY_SOURCE_DIR;
}
inline std::string faradayExecutable() {
  const char* env = std::getenv("FARADAY_EXECUTABLE");
  return env && *env ? env : FARADAY_EXECUTABLE;
}

}  // namespace faraday::test
