// The FARADAY_HD pair evaluators: F/r = -(dU/dr)/r by central differences, float against
// double, and the real-space Coulomb term inside the CPU pair loop.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/Units.h"
#include "kernels/nonbonded/CpuNonbonded.h"
#include "kernels/nonbonded/PairEvaluators.h"
#include "tests/BackendTestSystems.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

using Evaluator = std::function<PairResult<double>(double r2)>;

/// -(dU/dr)/r from central differences in r, for r in [r0, r1].
void expectForceIsMinusGradient(const Evaluator& eval, double r0, double r1, const char* what) {
  for (int k = 0; k <= 20; ++k) {
    const double r = r0 + (r1 - r0) * k / 20.0, h = 1e-6 * r;
    const double dudr = (eval((r + h) * (r + h)).energy - eval((r - h) * (r - h)).energy) / (2 * h);
    const double fOverR = eval(r * r).fOverR;
    EXPECT_NEAR(fOverR, -dudr / r, tol::kPairDerivative * (std::fabs(fOverR) + std::fabs(eval(r * r).energy) / (r * r)))
        << what << " at r = " << r;
  }
}

TEST(PairEvaluators, LennardJonesForceIsMinusGradient) {
  const LjParams<double> p = mixLorentzBerthelot(0.34, 1.0, 0.28, 0.3, 1.0, true);
  expectForceIsMinusGradient([&](double r2) { return ljPair(r2, p); }, 0.25, 1.0, "LJ");
}

TEST(PairEvaluators, EwaldRealForceIsMinusGradient) {
  const double qq = units::kCoulomb * 0.8 * -0.4, shift = ewaldRealShift(3.12, 1.0);
  expectForceIsMinusGradient([&](double r2) { return ewaldRealPair(r2, qq, 3.12, 0.0); }, 0.1, 1.2, "Ewald real");
  expectForceIsMinusGradient([&](double r2) { return ewaldRealPair(r2, qq, 3.12, shift); }, 0.1, 1.0, "shifted");
}

/// The potential shift: U(rc) = 0, U lowered by qq erfc(beta rc)/rc everywhere, F unchanged.
TEST(PairEvaluators, EwaldRealPotentialShiftVanishesAtTheCutoff) {
  const double qq = units::kCoulomb * -1.0, beta = 3.47, rc = 0.9, shift = ewaldRealShift(beta, rc);
  EXPECT_DOUBLE_EQ(shift, std::erfc(beta * rc) / rc);
  EXPECT_NEAR(ewaldRealPair(rc * rc, qq, beta, shift).energy, 0.0, tol::kDoubleSum * std::fabs(qq) * shift);
  for (double r = 0.2; r < rc; r += 0.1) {
    const auto plain = ewaldRealPair(r * r, qq, beta, 0.0);
    const auto shifted = ewaldRealPair(r * r, qq, beta, shift);
    EXPECT_DOUBLE_EQ(shifted.fOverR, plain.fOverR);
    EXPECT_NEAR(shifted.energy, plain.energy - qq * std::erfc(beta * rc) / rc, tol::kDoubleSum * std::fabs(plain.energy));
  }
}

TEST(PairEvaluators, EwaldRealTendsToCoulombForSmallBeta) {
  const PairResult<double> p = ewaldRealPair(0.25, units::kCoulomb, 1e-9, 0.0);
  EXPECT_NEAR(p.energy, units::kCoulomb / 0.5, 1e-8 * units::kCoulomb);
  EXPECT_NEAR(p.fOverR, units::kCoulomb / (0.5 * 0.5 * 0.5), 1e-8 * units::kCoulomb);
}

/// Two bodies: U = -G m1 m2 / sqrt(r^2 + eps^2); at r = 0 the softened force vanishes.
TEST(PairEvaluators, SoftenedGravityTwoBodies) {
  const double gmm = 2.5, eps2 = 0.01;
  expectForceIsMinusGradient([&](double r2) { return softenedGravityPair(r2, gmm, eps2); }, 0.02, 3.0, "gravity");
  const PairResult<double> p = softenedGravityPair(0.09, gmm, eps2);  // r = 0.3, r^2 + eps^2 = 0.1
  EXPECT_NEAR(p.energy, -gmm / std::sqrt(0.1), tol::kDoubleSum * gmm);
  EXPECT_NEAR(p.fOverR, -gmm / std::pow(0.1, 1.5), tol::kDoubleSum * gmm * 40);
  EXPECT_EQ(softenedGravityPair(0.0, gmm, eps2).energy, -gmm / 0.1);
}

/// The float instantiation (the GPU's pair math) agrees with double to float rounding.
TEST(PairEvaluators, FloatAgreesWithDouble) {
  const LjParams<double> d = mixLorentzBerthelot(0.34, 1.0, 0.28, 0.3, 1.0, true);
  const LjParams<float> f{float(d.c6), float(d.c12), float(d.shift)};
  for (double r = 0.27; r < 1.0; r += 0.05) {
    const auto ld = ljPair(r * r, d);
    const auto lf = ljPair(float(r * r), f);
    const double scale = std::fabs(ld.energy) + 4 * std::fabs(d.c6 / std::pow(r, 6));
    EXPECT_NEAR(lf.energy, ld.energy, tol::kFloatPair * scale) << r;
    EXPECT_NEAR(lf.fOverR, ld.fOverR, tol::kFloatPair * 12 * scale / (r * r)) << r;
    const auto cd = ewaldRealPair(r * r, -55.0, 3.1, ewaldRealShift(3.1, 1.0));
    const auto cf = ewaldRealPair(float(r * r), -55.0f, 3.1f, ewaldRealShift(3.1f, 1.0f));
    EXPECT_NEAR(cf.energy, cd.energy, tol::kFloatPair * std::fabs(cd.energy)) << r;
    EXPECT_NEAR(cf.fOverR, cd.fOverR, tol::kFloatPair * std::fabs(cd.fOverR)) << r;
  }
}

/// The tile kernel's force-only evaluator: in double its rearranged formulas equal ljPair +
/// ewaldRealPairFast to rounding; in float (the kernel's) it stays within the fast erfc's
/// bound of the exact double force, over the real-space range and for like and unlike charges.
TEST(PairEvaluators, ForceOnlyLjEwaldMatchesTheEnergyEvaluators) {
  const double beta = 3.123;
  const LjParams<double> lj = mixLorentzBerthelot(0.2159538, 1.4754532, 0.4830453, 0.0534924, 1.0, true);
  const LjForceParams<double> pd{6 * lj.c6, 12 * lj.c12};
  const LjForceParams<float> pf{float(6 * lj.c6), float(12 * lj.c12)};
  const auto cd = EwaldForceConstants<double>::of(beta);
  const auto cf = EwaldForceConstants<float>::of(beta);
  for (double qq : {138.935458, -57.3}) {
    for (int k = 0; k <= 400; ++k) {
      const double r = 0.2 + 0.8 * k / 400.0, r2 = r * r;
      const PairResult<double> l = ljPair(r2, lj), fast = ewaldRealPairFast(r2, qq, beta);
      const double lScale = (12 * lj.c12 / std::pow(r, 12) + 6 * lj.c6 / std::pow(r, 6)) / r2;
      const double cScale = std::fabs(qq) / (r2 * r);
      EXPECT_NEAR((ljEwaldForceFast<double, true>(r2, pd, qq, cd)), l.fOverR + fast.fOverR,
                  tol::kDoubleSum * (lScale + cScale)) << r;
      EXPECT_NEAR((ljEwaldForceFast<double, false>(r2, pd, qq, cd)), l.fOverR, tol::kDoubleSum * lScale) << r;
      const double exact = l.fOverR + ewaldRealPair(r2, qq, beta, 0.0).fOverR;
      EXPECT_NEAR((ljEwaldForceFast<float, true>(float(r2), pf, float(qq), cf)), exact,
                  tol::kFastErfcAbsolute * cScale + tol::kFloatPair * (lScale + cScale)) << r;
    }
  }
}

/// LJ + real-space Coulomb in the CPU pair loop (potential-shifted, the default) against a
/// direct minimum-image pair sum.
TEST(CpuNonbonded, RealSpaceCoulombMatchesDirectPairSum) {
  BuiltSystem b = randomLjSystem(300, {2.6, 2.7, 2.8}, 21);
  b.system.types[0].charge = 0.5;
  b.system.types[1].charge = -1.0;
  for (std::size_t i = 0; i < b.system.size(); ++i) b.system.charge[i] = b.system.types[std::size_t(b.system.type[i])].charge;
  NonbondedOptions o;
  o.cutoff = 1.0;
  o.ewaldBeta = 3.12;
  o.threads = 2;
  CpuNonbonded nb(b.system, o);
  NeighborList list(1.0, 0.1, 2);
  list.build(b.positions, b.system.box);
  std::vector<Vec3> f;
  const NonbondedResult r = nb.compute(b.positions, b.system.box, list, f);
  double coulomb = 0, lj = 0;
  std::vector<Vec3> direct(b.system.size());
  for (std::size_t i = 0; i < b.system.size(); ++i)
    for (std::size_t j = i + 1; j < b.system.size(); ++j) {
      const Vec3 d = b.system.box.minimumImage(b.positions[i] - b.positions[j]);
      if (norm2(d) >= 1.0) continue;
      const auto c = ewaldRealPair(norm2(d), units::kCoulomb * b.system.charge[i] * b.system.charge[j], 3.12,
                                   std::erfc(3.12 * 1.0) / 1.0);
      const auto l = ljPair(norm2(d), nb.ljTable().at(b.system.type[i], b.system.type[j]));
      coulomb += c.energy;
      lj += l.energy;
      direct[i] += d * (c.fOverR + l.fOverR);
      direct[j] -= d * (c.fOverR + l.fOverR);
    }
  EXPECT_NEAR(r.coulombReal, coulomb, tol::kDoubleSum * 10 * std::fabs(coulomb));
  EXPECT_NEAR(r.lj, lj, tol::kDoubleSum * 10 * std::fabs(lj));
  EXPECT_NE(coulomb, 0.0);
  for (std::size_t i = 0; i < f.size(); ++i)
    for (int d = 0; d < 3; ++d) ASSERT_NEAR(f[i][d], direct[i][d], tol::kDoubleSum * 10 * (1 + std::fabs(direct[i][d])));
}

}  // namespace
}  // namespace faraday::test
