#include <gtest/gtest.h>

#include <cmath>

#include "kernels/common/Philox.h"

using faraday::philox::U4;

// Known-answer vectors of Philox4x32-10 from the Random123 distribution (kat_vectors).
TEST(Philox, KnownAnswerVectors) {
  struct Kat {
    U4 ctr;
    std::uint32_t k0, k1;
    U4 expect;
  } kats[] = {
      {{{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}}},
      {{{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}}, 0xffffffffu, 0xffffffffu,
       {{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}}},
      {{{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, 0xa4093822u, 0x299f31d0u,
       {{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}}},
  };
  for (const auto& k : kats) {
    const U4 r = faraday::philox::philox4x32_10(k.ctr, k.k0, k.k1);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(r.v[i], k.expect.v[i]) << "word " << i;
  }
}

TEST(Philox, NormalsHaveUnitVarianceAndZeroMean) {
  const int n = 200000;
  double s = 0, s2 = 0;
  for (int i = 0; i < n / 4; ++i) {
    const auto g = faraday::philox::normals(42, faraday::philox::kStreamLangevin, 7, std::uint32_t(i));
    for (double x : g.n) {
      s += x;
      s2 += x * x;
    }
  }
  const double mean = s / n, var = s2 / n - mean * mean;
  // Standard errors: mean 1/sqrt(n) = 2.2e-3, variance sqrt(2/n) = 3.2e-3; allow 5 sigma.
  EXPECT_NEAR(mean, 0.0, 5 * 2.24e-3);
  EXPECT_NEAR(var, 1.0, 5 * 3.17e-3);
}

TEST(Philox, StreamsAndStepsDiffer) {
  const auto a = faraday::philox::normals(1, 1, 0, 0);
  const auto b = faraday::philox::normals(1, 2, 0, 0);
  const auto c = faraday::philox::normals(1, 1, 1, 0);
  EXPECT_NE(a.n[0], b.n[0]);
  EXPECT_NE(a.n[0], c.n[0]);
}
