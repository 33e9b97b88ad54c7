// CMAP (CmapTable.h): the grid is reproduced at its points, the slopes at the points are
// those of GROMACS' scheme (checked against an independent solve of the same spline),
// the patches join with continuous values and slopes, and a smooth function is interpolated
// to the accuracy a bicubic on that grid allows.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/Units.h"
#include "kernels/bonded/CmapTable.h"
#include "kernels/bonded/CpuBonded.h"
#include "tests/BondedTestSupport.h"
#include "tests/Tolerances.h"

namespace faraday {
namespace {

constexpr double kPi = units::kPi;

double gridAngle(int index, int n) { return -kPi + 2 * kPi * index / n; }

TEST(Cmap, ReproducesTheGridAtItsPoints) {
  for (int n : {24, 12, 9}) {
    const CmapGrid g = test::smoothCmapGrid(n, 3);
    const CmapTable table({g});
    double scale = 1;
    for (double e : g.energy) scale = std::max(scale, std::fabs(e));
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        EXPECT_NEAR(cmapTerm(table.view(), 0, gridAngle(a, n), gridAngle(b, n)).energy, g.energy[a * n + b],
                    1e-13 * scale) << "n " << n << " a " << a << " b " << b;
    // +pi is the same point as -pi.
    const CmapResult m = cmapTerm(table.view(), 0, -kPi, kPi), p = cmapTerm(table.view(), 0, kPi, -kPi);
    EXPECT_EQ(m.energy, p.energy);
    EXPECT_EQ(m.dUdPhi, p.dUdPhi);
  }
}

TEST(Cmap, ReproducesTheGridThroughTheDihedralsOfAChain) {
  // Five atoms whose phi (0-1-2-3) and psi (1-2-3-4) sit on grid points: the term's energy is
  // the grid's value at (phi index, psi index), which also fixes which index is phi.
  test::BondedSystem s;
  s.topology.cmapGrids = {test::smoothCmapGrid(24, 4)};
  s.topology.cmaps = {{0, 1, 2, 3, 4, 0}};
  s.charges.assign(5, 0.0);
  const CmapGrid& g = s.topology.cmapGrids[0];
  for (const auto& ab : {std::pair{3, 17}, std::pair{17, 3}, std::pair{0, 12}, std::pair{23, 1}}) {
    s.positions = test::chainWithDihedrals(gridAngle(ab.first, 24), gridAngle(ab.second, 24));
    std::vector<Vec3> forces;
    const BondedEnergies e = test::bondedRun(*test::makeBonded("cpu", s, 0.0), s, forces);
    EXPECT_NEAR(e[kCmapSlot], g.energy[ab.first * 24 + ab.second], 1e-10) << ab.first << " " << ab.second;
  }
}

/// Slopes of the natural cubic spline through ys (unit spacing) by a different route from
/// CmapTable's: the slopes s_e themselves satisfy s_{e-1} + 4 s_e + s_{e+1} = 3 (y_{e+1} - y_{e-1})
/// inside and 2 s_0 + s_1 = 3 (y_1 - y_0), s_{m-2} + 2 s_{m-1} = 3 (y_{m-1} - y_{m-2}) at the
/// natural ends; solved densely by Gaussian elimination with partial pivoting.
std::vector<double> naturalSplineSlopesDense(const std::vector<double>& y) {
  const int m = int(y.size());
  std::vector<std::vector<double>> A(m, std::vector<double>(m + 1, 0.0));
  for (int e = 0; e < m; ++e) {
    if (e == 0) A[0][0] = 2, A[0][1] = 1, A[0][m] = 3 * (y[1] - y[0]);
    else if (e == m - 1) A[e][e - 1] = 1, A[e][e] = 2, A[e][m] = 3 * (y[e] - y[e - 1]);
    else A[e][e - 1] = 1, A[e][e] = 4, A[e][e + 1] = 1, A[e][m] = 3 * (y[e + 1] - y[e - 1]);
  }
  for (int c = 0; c < m; ++c) {
    int pivot = c;
    for (int r = c + 1; r < m; ++r)
      if (std::fabs(A[r][c]) > std::fabs(A[pivot][c])) pivot = r;
    std::swap(A[c], A[pivot]);
    for (int r = 0; r < m; ++r)
      if (r != c) {
        const double f = A[r][c] / A[c][c];
        for (int k = c; k <= m; ++k) A[r][k] -= f * A[c][k];
      }
  }
  std::vector<double> s(m);
  for (int e = 0; e < m; ++e) s[e] = A[e][m] / A[e][e];
  return s;
}

/// GROMACS' slopes of a periodic line of n values: the line repeated over 2n points starting
/// n/2 points before -pi, the natural spline through them, its slopes at the middle n points.
std::vector<double> gromacsSlopes(const std::vector<double>& v) {
  const int n = int(v.size());
  std::vector<double> ext(2 * n);
  for (int e = 0; e < 2 * n; ++e) ext[e] = v[((e - n / 2) % n + n) % n];
  const std::vector<double> s = naturalSplineSlopesDense(ext);
  return std::vector<double>(s.begin() + n / 2, s.begin() + n / 2 + n);
}

TEST(Cmap, SlopesAreThoseOfTheExtendedNaturalSpline) {
  for (int n : {24, 12, 9}) {
    const CmapGrid g = test::smoothCmapGrid(n, 7);
    std::mt19937_64 rng(8);
    std::uniform_real_distribution<double> noise(-1.0, 1.0);
    std::vector<double> v = g.energy;
    for (double& e : v) e += 5 * noise(rng);  // not smooth: the schemes differ more
    CmapGrid rough{n, v};
    const CmapTable table({rough});
    const double* c = table.coefficients().data();
    // Independent slopes: along psi per row, along phi per column, cross = phi slopes of the
    // psi slopes.
    std::vector<double> dPsi(n * n), dPhi(n * n), dPhiPsi(n * n), line(n);
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) line[b] = v[a * n + b];
      const auto s = gromacsSlopes(line);
      for (int b = 0; b < n; ++b) dPsi[a * n + b] = s[b];
    }
    for (int b = 0; b < n; ++b) {
      for (int a = 0; a < n; ++a) line[a] = v[a * n + b];
      const auto s = gromacsSlopes(line);
      for (int a = 0; a < n; ++a) line[a] = dPsi[a * n + b];
      const auto s2 = gromacsSlopes(line);
      for (int a = 0; a < n; ++a) dPhi[a * n + b] = s[a], dPhiPsi[a * n + b] = s2[a];
    }
    double scale = 1;
    for (double e : v) scale = std::max(scale, std::fabs(e));
    // At the corner (t, u) = (0, 0) of cell (a, b): c_00 = value, c_10 = dU/dt, c_01 = dU/du,
    // c_11 = d2U/dt du (per grid spacing).
    for (int cell = 0; cell < n * n; ++cell) {
      const double* p = c + 16 * cell;
      EXPECT_NEAR(p[0], v[cell], 1e-13 * scale);
      EXPECT_NEAR(p[4], dPhi[cell], tol::kCmapSlopes * scale) << "n " << n << " cell " << cell;
      EXPECT_NEAR(p[1], dPsi[cell], tol::kCmapSlopes * scale) << "n " << n << " cell " << cell;
      EXPECT_NEAR(p[5], dPhiPsi[cell], tol::kCmapSlopes * scale) << "n " << n << " cell " << cell;
    }
    // The truly periodic spline would give other slopes (by ~(2 - sqrt 3)^(n/2) of them):
    // the check above can tell the two apart on this rough grid for the smaller sizes.
    if (n == 12) {
      std::vector<double> row(v.begin(), v.begin() + n);
      const auto natural = gromacsSlopes(row);
      std::vector<double> periodic3(3 * n);
      for (int e = 0; e < 3 * n; ++e) periodic3[e] = row[e % n];
      const auto wide = naturalSplineSlopesDense(periodic3);  // middle third: nearly periodic
      double differs = 0;
      for (int b = 0; b < n; ++b) differs = std::max(differs, std::fabs(natural[b] - wide[n + b]));
      EXPECT_GT(differs, 100 * tol::kCmapSlopes * scale);
    }
  }
}

TEST(Cmap, PatchesJoinWithContinuousValuesAndSlopes) {
  const int n = 24;
  const CmapTable table({test::smoothCmapGrid(n, 9), test::smoothCmapGrid(12, 10)});
  const CmapView v = table.view();
  const double h = 2 * kPi / n;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int a = 0; a < n; ++a) {
    // Across the phi boundary between cells a - 1 and a (a = 0: across the wrap at +-180 deg),
    // at a random psi: the cell below at t -> 1 against the cell above at t = 0.
    const double psi = -kPi + 2 * kPi * u(rng);
    const double edge = gridAngle(a, n);
    const CmapResult below = cmapTerm(v, 0, a == 0 ? kPi - 1e-12 : edge - 1e-12, psi);
    const CmapResult above = cmapTerm(v, 0, edge, psi);
    EXPECT_NEAR(below.energy, above.energy, 1e-9);
    EXPECT_NEAR(below.dUdPhi, above.dUdPhi, 1e-8);
    EXPECT_NEAR(below.dUdPsi, above.dUdPsi, 1e-8);
    // Across a psi boundary likewise.
    const CmapResult left = cmapTerm(v, 0, psi, a == 0 ? kPi - 1e-12 : edge - 1e-12);
    const CmapResult right = cmapTerm(v, 0, psi, edge);
    EXPECT_NEAR(left.energy, right.energy, 1e-9);
    EXPECT_NEAR(left.dUdPhi, right.dUdPhi, 1e-8);
    EXPECT_NEAR(left.dUdPsi, right.dUdPsi, 1e-8);
  }
  // The slopes are the derivatives of the energy (inside cells and across them), per radian.
  for (int k = 0; k < 200; ++k) {
    const double phi = -kPi + 2 * kPi * u(rng), psi = -kPi + 2 * kPi * u(rng), d = 1e-6;
    const CmapResult r = cmapTerm(v, 1, phi, psi);
    const double dPhi = (cmapTerm(v, 1, phi + d, psi).energy - cmapTerm(v, 1, phi - d, psi).energy) / (2 * d);
    const double dPsi = (cmapTerm(v, 1, phi, psi + d).energy - cmapTerm(v, 1, phi, psi - d).energy) / (2 * d);
    EXPECT_NEAR(r.dUdPhi, dPhi, 1e-6 * std::max(1.0, std::fabs(dPhi))) << phi << " " << psi << " h " << h;
    EXPECT_NEAR(r.dUdPsi, dPsi, 1e-6 * std::max(1.0, std::fabs(dPsi)));
  }
}

TEST(Cmap, InterpolatesASmoothFunction) {
  const test::CmapFunction f(12);
  const CmapTable table({test::smoothCmapGrid(24, 12)});
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> u(-kPi, kPi);
  double worstE = 0, worstSlope = 0;
  for (int k = 0; k < 2000; ++k) {
    const double phi = u(rng), psi = u(rng);
    const CmapResult r = cmapTerm(table.view(), 0, phi, psi);
    const auto exact = f(phi, psi);
    worstE = std::max(worstE, std::fabs(r.energy - exact[0]));
    worstSlope = std::max({worstSlope, std::fabs(r.dUdPhi - exact[1]), std::fabs(r.dUdPsi - exact[2])});
  }
  RecordProperty("worst_energy_error", std::to_string(worstE));
  RecordProperty("worst_slope_error", std::to_string(worstSlope));
  EXPECT_LE(worstE, tol::kCmapInterpolationEnergy);
  EXPECT_LE(worstSlope, tol::kCmapInterpolationSlope);
}

TEST(Cmap, BadGridsAreRejected) {
  EXPECT_NE(test::errorOf([] { CmapTable({CmapGrid{3, std::vector<double>(9, 0.0)}}); }).find("CMAP grid 1"),
            std::string::npos);
  EXPECT_NE(test::errorOf([] { CmapTable({CmapGrid{24, std::vector<double>(24 * 23, 0.0)}}); }).find("CMAP grid 1"),
            std::string::npos);
}

}  // namespace
}  // namespace faraday
