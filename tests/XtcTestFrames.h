#pragma once
// Frames of the XTC tests: the grid frames that tests/data/xtc_ref_mda_*.xtc hold, water-like
// and multi-scale coordinates, and the check that coordinates read back lie on the
// precision grid.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/Box.h"
#include "core/Vec3.h"
#include "engine/formats/XtcFile.h"
#include "tests/EngineTestSupport.h"
#include "tests/Tolerances.h"

namespace faraday::test {

/// Coordinate k of atom i in frame f, in units of 0.001 nm: molecules of three atoms, the
/// second and third within 0.08 nm of the first (as water's hydrogens), over -1..3 nm.
/// tests/data/xtc_ref_mda_*.xtc hold these frames as MDAnalysis writes them.
inline int gridCoordinate(int f, std::size_t i, int k) {
  const int m = int(i / 3), j = int(i % 3);
  const int base = (m * 7919 + k * 104729 + f * 31) % 4001 - 1000;
  const int offset = j == 0 ? 0 : (j * 37 + k * 13 + f) % 160 - 80;
  return base + offset;
}
inline std::vector<Vec3> gridFrame(int f, std::size_t atoms) {
  std::vector<Vec3> p(atoms);
  for (std::size_t i = 0; i < atoms; ++i)
    for (int k = 0; k < 3; ++k) p[i][k] = gridCoordinate(f, i, k) / 1000.0;
  return p;
}
inline Box gridBox(int f) { return Box::rectangular(4.0 + 0.25 * f, 4.5, 5.0); }
inline long long gridStep(int f) { return 1000 + 500 * f; }
inline double gridTime(int f) { return 2.0 + f; }

inline void writeGridFrames(const fs::path& file, std::size_t atoms) {
  XtcWriter w(file, atoms, 1000);
  for (int f = 0; f < 3; ++f) w.writeFrame(gridFrame(f, atoms), gridBox(f), gridStep(f), gridTime(f));
}

/// `n` atoms in molecules of three: oxygens uniform in [lo, lo + extent)^3, hydrogens 0.1 nm
/// from their oxygen in random directions.
inline std::vector<Vec3> waterLike(std::size_t n, double lo, double extent, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<Vec3> p(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 3 == 0) {
      p[i] = {lo + extent * u(rng), lo + extent * u(rng), lo + extent * u(rng)};
    } else {
      const Vec3 d{g(rng), g(rng), g(rng)};
      p[i] = p[i - i % 3] + d * (0.1 / std::sqrt(norm2(d)));
    }
  }
  return p;
}

/// A random walk of `n` atoms whose step lengths span 1e-4 .. 1 nm: the small-difference
/// sizes must follow them up and down the table.
inline std::vector<Vec3> multiScaleChain(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> exponent(-4.0, 0.0);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<Vec3> p(n);
  for (std::size_t i = 1; i < n; ++i) {
    const double scale = std::pow(10.0, exponent(rng));
    p[i] = p[i - 1] + Vec3{g(rng), g(rng), g(rng)} * scale;
  }
  return p;
}

/// Every coordinate read back is round(x p) / p exactly, so within 0.5 / p of what was written.
inline void expectOnTheGrid(const std::vector<Vec3>& written, const std::vector<Vec3>& read, float precision) {
  ASSERT_EQ(read.size(), written.size());
  const double p = precision;
  long long offGrid = 0;
  double worst = 0;
  std::string first;
  for (std::size_t i = 0; i < written.size(); ++i)
    for (int k = 0; k < 3; ++k) {
      const double x = written[i][k], r = read[i][k];
      if (r != double(std::llround(x * p)) / p && offGrid++ == 0)
        first = "atom " + std::to_string(i + 1) + " " + "xyz"[k] + ": wrote " + std::to_string(x) + ", read " +
                std::to_string(r);
      worst = std::max(worst, std::fabs(r - x) - tol::kXtcDoubleRounding * (std::fabs(x) + 1));
    }
  EXPECT_EQ(offGrid, 0) << first;
  EXPECT_LE(worst, 0.5 / p);
}

}  // namespace faraday::test
