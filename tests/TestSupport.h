#pragma once
// Shared helpers for the test bodies: backends to instantiate over, GPU skipping,
// paths to the source tree and the built executable.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/Error.h"
#include "engine/config/Choices.h"
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

/// The value of the choice E that the configuration spells `word` ("cuda": Platform::Cuda),
/// for test bodies parameterised by the words.
template <typename E>
E choiceNamed(const std::string& word) {
  const auto& words = ChoiceWords<E>::words;
  for (std::size_t k = 0; k < words.size(); ++k)
    if (word == words[k]) return E(k);
  throw Error("no such choice: '" + word + "'");
}

/// Relative RMS difference sqrt(sum (a - ref)^2 / sum ref^2).
inline double relRms(const std::vector<double>& a, const std::vector<double>& ref) {
  EXPECT_EQ(a.size(), ref.size());
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size() && i < ref.size(); ++i) {
    num += (a[i] - ref[i]) * (a[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / den);
}

/// Least-squares slope of y against its index (a drift per sample).
inline double slope(const std::vector<double>& y) {
  const double n = double(y.size()), mx = (n - 1) / 2;
  double my = 0, sxy = 0, sxx = 0;
  for (double v : y) my += v / n;
  for (std::size_t i = 0; i < y.size(); ++i) {
    sxy += (double(i) - mx) * (y[i] - my);
    sxx += (double(i) - mx) * (double(i) - mx);
  }
  return sxy / sxx;
}

/// A mean and the standard error of the mean from block averages.
struct BlockAverage {
  double mean = 0, error = 0;
};

/// The mean of `v` and its standard error from `blocks` block means (blocks much longer than
/// the correlation time of v, so that the block means are independent).
inline BlockAverage blockAverage(const std::vector<double>& v, int blocks) {
  const std::size_t per = v.size() / std::size_t(blocks);
  std::vector<double> means;
  for (int k = 0; k < blocks; ++k) {
    double s = 0;
    for (std::size_t i = 0; i < per; ++i) s += v[std::size_t(k) * per + i];
    means.push_back(s / double(per));
  }
  BlockAverage b;
  for (double m : means) b.mean += m / blocks;
  double var = 0;
  for (double m : means) var += (m - b.mean) * (m - b.mean) / (blocks - 1);
  b.error = std::sqrt(var / blocks);
  return b;
}

/// The message of the faraday::Error that `f` throws ("" when it throws none).
template <typename F>
std::string errorOf(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace faraday::test
