#include <gtest/gtest.h>

#include "tests/TestSupport.h"

TEST(Device, DescriptionIsGiven) {
  const std::string d = faraday::cudaDeviceDescription();
  EXPECT_FALSE(d.empty());
  if (faraday::cudaDeviceCount() == 0) {
    EXPECT_TRUE(d.find("no") != std::string::npos) << d;
  } else {
    EXPECT_TRUE(d.find("compute capability") != std::string::npos) << d;
  }
}

TEST(Device, GpuPresent) {
  FARADAY_REQUIRE_GPU();
  EXPECT_GT(faraday::cudaDeviceCount(), 0);
}
