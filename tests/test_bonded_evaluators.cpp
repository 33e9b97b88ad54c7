// The bonded evaluators (BondedEvaluators.h, BondedTerms.h) on hand-built cases whose
// energies and forces are worked out by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "core/Units.h"
#include "kernels/bonded/BondedTerms.h"
#include "tests/BondedTestSupport.h"
#include "tests/Tolerances.h"

namespace faraday {
namespace {

using test::degrees;

void expectNear(double value, double expected, const char* what) {
  EXPECT_NEAR(value, expected, tol::kBondedByHand * std::max(1.0, std::fabs(expected))) << what;
}
void expectNear(const Vec3& value, const Vec3& expected, const char* what) {
  for (int d = 0; d < 3; ++d) expectNear(value[d], expected[d], what);
}

const BondedView kNoTables{};

TEST(BondedByHand, HarmonicBond) {
  // r = 0.15 nm against b0 = 0.1 nm, kb = 1000: U = 500 x 0.05^2 = 1.25 kJ/mol, |F| = 50
  // kJ/mol/nm pulling the atoms together (along x here).
  const Vec3 x[2] = {{0, 0, 0}, {0.15, 0, 0}};
  const TermForces<2> r = evaluateTerm(HarmonicBond{0, 1, 0.1, 1000.0}, x, kNoTables);
  expectNear(r.energy, 1.25, "energy");
  expectNear(r.f[0], {50, 0, 0}, "F_i");
  expectNear(r.f[1], {-50, 0, 0}, "F_j");
}

TEST(BondedByHand, MorseBond) {
  // r - b0 = 0.1 nm, beta = 10/nm: e = exp(-1), U = D (1 - e)^2, dU/dr = 2 D beta e (1 - e).
  const Vec3 x[2] = {{0, 0, 0}, {0, 0.25, 0}};
  const double D = 400, e = std::exp(-1.0);
  const TermForces<2> r = evaluateTerm(MorseBond{0, 1, 0.15, D, 10.0}, x, kNoTables);
  expectNear(r.energy, D * (1 - e) * (1 - e), "energy");
  expectNear(r.f[1], {0, -2 * D * 10 * e * (1 - e), 0}, "F_j");
}

TEST(BondedByHand, G96Bond) {
  // r = 0.15 nm, b0 = 0.1 nm, kb = 1e6: r^2 - b0^2 = 0.0125 nm^2, U = kb/4 0.0125^2 =
  // 39.0625 kJ/mol, dU/dr = kb 0.0125 r = 1875 kJ/mol/nm, pulling the atoms together.
  const Vec3 x[2] = {{0, 0, 0}, {0, 0, 0.15}};
  const TermForces<2> r = evaluateTerm(G96Bond{0, 1, 0.1, 1e6}, x, kNoTables);
  expectNear(r.energy, 39.0625, "energy");
  expectNear(r.f[0], {0, 0, 1875}, "F_i");
  expectNear(r.f[1], {0, 0, -1875}, "F_j");
}

TEST(BondedByHand, CubicBond) {
  // d = r - b0 = 0.02 nm (Ferguson's flexible water: kb = 229074 kJ/mol/nm^2, kcub = -16.5/nm):
  // U = kb d^2 (1 + kcub d) = 91.6296 x 0.67, dU/dr = kb d (2 + 3 kcub d) = 4581.48 x 1.01.
  const Vec3 x[2] = {{0.3, 0, 0}, {0.3, 0.12, 0}};
  const TermForces<2> r = evaluateTerm(CubicBond{0, 1, 0.1, 229074.0, -16.5}, x, kNoTables);
  expectNear(r.energy, 91.6296 * 0.67, "energy");
  expectNear(r.f[1], {0, -4581.48 * 1.01, 0}, "F_j");
  // Stretched by d = -2 / (3 kcub) the cubic term's force cancels the harmonic one's (beyond,
  // the bond pushes its atoms apart: the form holds only near b0).
  const Vec3 y[2] = {{0, 0, 0}, {0.1 + 2.0 / (3 * 16.5), 0, 0}};
  EXPECT_NEAR(evaluateTerm(CubicBond{0, 1, 0.1, 229074.0, -16.5}, y, kNoTables).f[1].x, 0.0, 1e-9);
}

TEST(BondedByHand, G96Angle) {
  // A right angle at j (arms 0.1 and 0.2 nm), theta0 = 100 deg: cos theta = 0, U = k/2 cos^2(theta0),
  // dU/dcos = -k cos(theta0) > 0. dcos/dx_i = (b^ - cos a^) / |a| = (0, 10, 0) /nm, so F_i =
  // (0, 10 k cos(theta0), 0): i is pushed to -y, opening the angle; F_k = (5 k cos(theta0), 0, 0).
  const Vec3 x[3] = {{0.1, 0, 0}, {0, 0, 0}, {0, 0.2, 0}};
  const double k = 520, c0 = std::cos(degrees(100));
  const TermForces<3> a = evaluateTerm(G96Angle{0, 1, 2, degrees(100), k}, x, kNoTables);
  expectNear(a.energy, 0.5 * k * c0 * c0, "energy");
  expectNear(a.f[0], {0, 10 * k * c0, 0}, "F_i");
  expectNear(a.f[2], {5 * k * c0, 0, 0}, "F_k");
  expectNear(a.f[1], {-5 * k * c0, -10 * k * c0, 0}, "F_j");
  // Straight (180 deg) with theta0 = 109.5 deg: U = k/2 (1 + cos theta0)^2 and no force (the
  // gradient of cos vanishes there); a zero-length arm gives cos = 1 and no force, no NaN.
  const Vec3 s[3] = {{-0.1, 0, 0}, {0, 0, 0}, {0.12, 0, 0}};
  const TermForces<3> l = evaluateTerm(G96Angle{0, 1, 2, degrees(109.5), k}, s, kNoTables);
  expectNear(l.energy, 0.5 * k * std::pow(-1 - std::cos(degrees(109.5)), 2), "straight energy");
  for (const Vec3& f : l.f) EXPECT_TRUE(isFinite(f) && norm2(f) == 0.0);
  const Vec3 z[3] = {{0, 0, 0}, {0, 0, 0}, {0.12, 0, 0}};
  for (const Vec3& f : evaluateTerm(G96Angle{0, 1, 2, degrees(109.5), k}, z, kNoTables).f)
    EXPECT_TRUE(isFinite(f) && norm2(f) == 0.0);
}

TEST(BondedByHand, HarmonicAngleAndUreyBradley) {
  // A right angle at j with arms of 0.1 and 0.2 nm; theta0 = 100 deg: dtheta = -10 deg.
  // F_i = -k dtheta / |r_ij| along the perpendicular that opens the angle: i at +x moves to -y.
  const Vec3 x[3] = {{0.1, 0, 0}, {0, 0, 0}, {0, 0.2, 0}};
  const double k = 300, d = degrees(-10);
  const TermForces<3> a = evaluateTerm(HarmonicAngle{0, 1, 2, degrees(100), k}, x, kNoTables);
  expectNear(a.energy, 0.5 * k * d * d, "angle energy");
  expectNear(a.f[0], {0, k * d / 0.1, 0}, "angle F_i");
  expectNear(a.f[2], {k * d / 0.2, 0, 0}, "angle F_k");
  expectNear(a.f[1], {-k * d / 0.2, -k * d / 0.1, 0}, "angle F_j");
  // Urey-Bradley adds kUB/2 (r_ik - r13)^2 with r_ik = sqrt(0.05) nm.
  const double rik = std::sqrt(0.05), kub = 2e4, r13 = 0.2;
  const TermForces<3> u = evaluateTerm(UreyBradleyAngle{0, 1, 2, degrees(100), k, r13, kub}, x, kNoTables);
  expectNear(u.energy, 0.5 * k * d * d + 0.5 * kub * (rik - r13) * (rik - r13), "U-B energy");
  const double g = -kub * (rik - r13) / rik;  // F_k = g (x_k - x_i)
  expectNear(u.f[2], Vec3{k * d / 0.2, 0, 0} + Vec3{-0.1, 0.2, 0} * g, "U-B F_k");
}

TEST(BondedByHand, LinearAngleIsFiniteAndAtRest) {
  // 180 deg exactly with theta0 = 180 deg: zero energy and zero force, no NaN.
  const Vec3 x[3] = {{-0.1, 0, 0}, {0, 0, 0}, {0.12, 0, 0}};
  const TermForces<3> a = evaluateTerm(HarmonicAngle{0, 1, 2, units::kPi, 300.0}, x, kNoTables);
  EXPECT_EQ(a.energy, 0.0);
  for (const Vec3& f : a.f) EXPECT_TRUE(isFinite(f) && norm2(f) == 0.0);
}

/// i at +x of j, j at the origin, k on +y, l placed at dihedral phi (deg) by hand: the bond
/// k-l leaves k perpendicular to the j-k axis, at angle phi from the x axis about +y... with
/// l - k = (cos phi, 0, -sin phi) x 0.1: seen along j -> k (looking down +y, with +x to the
/// right and +z up), a clockwise turn of i (3 o'clock) by phi brings it to
/// (cos phi, -sin phi) in (right, up), i.e. x = cos phi, z = -sin phi.
std::array<Vec3, 4> dihedralByHand(double phiDeg) {
  const double p = degrees(phiDeg);
  return {Vec3{0.1, 0, 0}, Vec3{0, 0, 0}, Vec3{0, 0.15, 0}, Vec3{0.1 * std::cos(p), 0.15, -0.1 * std::sin(p)}};
}

TEST(BondedByHand, DihedralAngleConvention) {
  for (double phi : {60.0, -60.0, 0.0, 180.0, 120.0, -150.0, 1e-7, 180.0 - 1e-7}) {
    const auto x = dihedralByHand(phi);
    const DihedralGeometry g = dihedralGeometry(x[0] - x[1], x[2] - x[1], x[2] - x[3]);
    // atan2 returns +pi or -pi at exactly 180 deg; both are the trans dihedral.
    const double got = phi == 180.0 ? std::fabs(g.phi) : g.phi;
    EXPECT_NEAR(got, degrees(phi), 1e-14) << "phi = " << phi;
  }
  // The test helper's chains follow the same convention.
  const std::vector<Vec3> c = test::chainWithDihedrals(degrees(60), degrees(-75));
  EXPECT_NEAR(dihedralGeometry(c[0] - c[1], c[2] - c[1], c[2] - c[3]).phi, degrees(60), 1e-14);
  EXPECT_NEAR(dihedralGeometry(c[1] - c[2], c[3] - c[2], c[3] - c[4]).phi, degrees(-75), 1e-14);
}

TEST(BondedByHand, PeriodicTorsionAt60Degrees) {
  // phi = 60 deg, n = 3, phi0 = 0: U = k (1 + cos 180 deg) = 0, dU/dphi = -3k sin(180) = 0;
  // n = 2, phi0 = 30 deg: U = k (1 + cos 90 deg) = k, dU/dphi = -2k.
  const auto p = dihedralByHand(60.0);
  const Vec3 x[4] = {p[0], p[1], p[2], p[3]};
  const double k = 5.0;
  const TermForces<4> a = evaluateTerm(PeriodicTorsion{0, 1, 2, 3, 0.0, k, 3}, x, kNoTables);
  EXPECT_NEAR(a.energy, 0.0, 1e-14);
  const TermForces<4> b = evaluateTerm(PeriodicTorsion{0, 1, 2, 3, degrees(30), k, 2}, x, kNoTables);
  expectNear(b.energy, k, "n = 2 energy");
  // The torque about the j-k axis on l: F_l = -dU/dphi dphi/dx_l with |dphi/dx_l| = 1/0.1 nm
  // (l's distance from the axis), perpendicular to the axis and to k-l: F_l . (k-l) = 0,
  // F_l . axis = 0, |F_l| = 2k / 0.1.
  expectNear(std::sqrt(norm2(b.f[3])), 2 * k / 0.1, "|F_l|");
  EXPECT_NEAR(dot(b.f[3], x[3] - x[2]), 0.0, 1e-12);
  EXPECT_NEAR(b.f[3].y, 0.0, 1e-12);
}

TEST(BondedByHand, RyckaertBellemansAt60Degrees) {
  // psi = phi - 180 = -120 deg: cos psi = -0.5, so U = sum_m C_m (-0.5)^m.
  const auto p = dihedralByHand(60.0);
  const Vec3 x[4] = {p[0], p[1], p[2], p[3]};
  RbTorsion rb{0, 1, 2, 3, {9.28, 12.16, -13.12, -3.06, 26.24, -31.5}};
  double expected = 0, c = 1;
  for (double cm : rb.c) expected += cm * c, c *= -0.5;
  expectNear(evaluateTerm(rb, x, kNoTables).energy, expected, "RB energy");
  // trans (phi = 180, psi = 0): U = sum C_m.
  const auto q = dihedralByHand(180.0);
  const Vec3 y[4] = {q[0], q[1], q[2], q[3]};
  expectNear(evaluateTerm(rb, y, kNoTables).energy, 9.28 + 12.16 - 13.12 - 3.06 + 26.24 - 31.5, "RB trans");
}

TEST(BondedByHand, HarmonicImproperWrapsTheDifference) {
  // xi = 170 deg, xi0 = -170 deg: the difference is -20 deg, not 340 deg.
  const auto p = dihedralByHand(170.0);
  const Vec3 x[4] = {p[0], p[1], p[2], p[3]};
  const double k = 40;
  const TermForces<4> r = evaluateTerm(HarmonicImproper{0, 1, 2, 3, degrees(-170), k}, x, kNoTables);
  expectNear(r.energy, 0.5 * k * degrees(20) * degrees(20), "energy");
  EXPECT_DOUBLE_EQ(wrapAngleDifference(units::kPi), units::kPi);  // (-pi, pi]
  EXPECT_DOUBLE_EQ(wrapAngleDifference(-units::kPi), units::kPi);
}

TEST(BondedByHand, Pair14) {
  // r = 0.3 nm: U_LJ = c12/r^12 - c6/r^6, U_C = k_C qq / r, F/r from both.
  const double c6 = 2e-3, c12 = 3e-6, qq = 0.25 * 0.8, r = 0.3;
  const Vec3 x[2] = {{0, 0, 0}, {0, 0, r}};
  const TermForces<2> t = evaluateTerm(Pair14{0, 1, c6, c12, qq}, x, kNoTables);
  const double lj = c12 / std::pow(r, 12) - c6 / std::pow(r, 6), coul = units::kCoulomb * qq / r;
  const double fr = 12 * c12 / std::pow(r, 13) - 6 * c6 / std::pow(r, 7) + coul / r;  // -dU/dr
  expectNear(t.energy, lj, "LJ-14");
  expectNear(t.energy2, coul, "Coulomb-14");
  expectNear(t.f[1], {0, 0, fr}, "F_j");
}

TEST(BondedByHand, EwaldExclusionCorrection) {
  const double beta = 3.12, qq = units::kCoulomb * 0.4 * -0.8;
  constexpr double kTwoOverSqrtPi = 1.12837916709551257390;
  for (double r : {1e-9, 0.01, 0.1, 0.5 / beta * 0.999, 0.5 / beta * 1.001, 0.1603, 0.3, 1.2}) {
    const PairResult<double> p = ewaldExclusionPair<double>(r * r, qq, beta);
    // U = -qq erf(beta r)/r; -dU/dr = qq (2 beta/sqrt(pi) exp(-beta^2 r^2) / r - erf(beta r)/r^2).
    const double u = -qq * std::erf(beta * r) / r;
    const double mdUdr = qq * (kTwoOverSqrtPi * beta * std::exp(-beta * beta * r * r) / r - std::erf(beta * r) / (r * r));
    // The closed forms lose digits to cancellation at small r: compare there with 1e-7.
    const double scale = r < 0.2 ? 1e-7 : tol::kBondedByHand;
    EXPECT_NEAR(p.energy, u, 1e-13 * std::fabs(u)) << "r = " << r;
    if (r > 1e-3) {
      EXPECT_NEAR(p.fOverR * r, mdUdr, scale * std::max(1.0, std::fabs(mdUdr))) << "r = " << r;
    }
  }
  // The limits at r = 0: U = -qq 2 beta/sqrt(pi), F/r = -qq 4 beta^3 / (3 sqrt(pi)).
  const PairResult<double> zero = ewaldExclusionPair<double>(0.0, qq, beta);
  expectNear(zero.energy, -qq * kTwoOverSqrtPi * beta, "U(0)");
  expectNear(zero.fOverR, -qq * kTwoOverSqrtPi * 2 * beta * beta * beta / 3, "F/r(0)");
  // Both branches meet at beta r = 0.5 (series below, erf above).
  const double r0 = 0.5 / beta;
  const PairResult<double> below = ewaldExclusionPair<double>(r0 * r0 * (1 - 1e-15), qq, beta);
  const PairResult<double> above = ewaldExclusionPair<double>(r0 * r0 * (1 + 1e-15), qq, beta);
  EXPECT_NEAR(below.energy, above.energy, 1e-13 * std::fabs(above.energy));
  EXPECT_NEAR(below.fOverR, above.fOverR, 1e-12 * std::fabs(above.fOverR));
}

TEST(BondedByHand, PositionRestraintUsesTheMinimumImage) {
  // Atom at x = 0.05, reference at x = 2.95 in a 3 nm box: displacement +0.1 nm, not -2.9.
  const Box box = Box::rectangular(3, 3, 3);
  const PositionRestraint pr{0, Vec3{2.95, 1.0, 1.0}, Vec3{1000, 2000, 3000}};
  const int atoms[1] = {0};
  Vec3 x[1];
  relativePositions(pr, atoms, [](int) { return Vec3{0.05, 1.02, 0.97}; }, MinimumImage::fromBox(box), x);
  const TermForces<1> r = evaluateTerm(pr, x, kNoTables);
  expectNear(x[0], {0.1, 0.02, -0.03}, "displacement");
  expectNear(r.energy, 0.5 * (1000 * 0.01 + 2000 * 0.0004 + 3000 * 0.0009), "energy");
  expectNear(r.f[0], {-100, -40, 90}, "force");
}

}  // namespace
}  // namespace faraday
