// The bonded forces on every backend ("cpu": CpuBonded, "cuda": the GPU kernels through their
// host-vector adapter): forces against finite differences of the energy for every term,
// invariances, the net force, the virial against the strain derivative, and on the GPU
// agreement with the CPU and bitwise repeatability.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/bonded/Bonded.h"
#include "tests/BondedTestSupport.h"
#include "tests/Tolerances.h"

namespace faraday {
namespace {

using test::BondedSystem;

constexpr double kBeta = 3.12;  // 1/nm, GROMACS' beta for rc = 1 nm and ewald_rtol = 1e-5

class BondedBackends : public ::testing::TestWithParam<std::string> {};

/// Terms per slot, for the fixed-point energy bound.
int termsOf(const Topology& t, int slot, std::size_t exclusionPairs) {
  switch (slot) {
    case kBondSlot: return int(t.bonds.size());
    case kG96BondSlot: return int(t.g96Bonds.size());
    case kMorseSlot: return int(t.morseBonds.size());
    case kCubicBondSlot: return int(t.cubicBonds.size());
    case kAngleSlot: return int(t.angles.size());
    case kG96AngleSlot: return int(t.g96Angles.size());
    case kUreyBradleySlot: return int(t.ureyBradleys.size());
    case kProperDihSlot: return int(t.properDihedrals.size());
    case kRbDihSlot: return int(t.rbDihedrals.size());
    case kImproperDihSlot: return int(t.impropers.size());
    case kPeriodicImproperDihSlot: return int(t.periodicImpropers.size());
    case kCmapSlot: return int(t.cmaps.size());
    case kLj14Slot:
    case kCoulomb14Slot: return int(t.pairs14.size());
    case kPositionRestraintSlot: return int(t.positionRestraints.size());
    default: return int(exclusionPairs);
  }
}

/// What the GPU's fixed-point energy sums may add to a difference of two energies of one slot:
/// one step of 2^-24 kJ/mol per warp of terms and evaluation (0 on the CPU).
double fixedPointAllowance(const std::string& platform, const BondedSystem& s, int slot) {
  if (!test::onGpu(platform)) return 0.0;
  const std::size_t pairs = exclusionCorrectionPairs(s.topology, s.charges, BondedParams{kBeta}).size();
  return 2 * tol::kFixedEnergyStep * (termsOf(s.topology, slot, pairs) / 32 + 1);
}


/// Every slot that has terms in the random system.
const int kEverySlot[] = {kBondSlot,      kG96BondSlot,     kMorseSlot,           kCubicBondSlot,
                          kAngleSlot,     kG96AngleSlot,    kUreyBradleySlot,     kProperDihSlot,
                          kRbDihSlot,     kImproperDihSlot, kPeriodicImproperDihSlot, kCmapSlot,
                          kLj14Slot,      kPositionRestraintSlot, kExclusionCorrectionSlot};

double energyOf(BondedForces& f, const BondedSystem& s) {
  std::vector<Vec3> forces;
  return test::bondedRun(f, s, forces).total();
}

/// F = -dE/dx for every coordinate of every atom of `s`.
void expectFiniteDifferences(const std::string& platform, const BondedSystem& s, const std::string& what) {
  const bool gpu = test::onGpu(platform);
  const double h = gpu ? tol::kGpuBondedFiniteDifferenceStep : tol::kBondedFiniteDifferenceStep;
  const double allowed = gpu ? tol::kGpuBondedFiniteDifferenceForce : tol::kBondedFiniteDifferenceForce;
  auto f = test::makeBonded(platform, s, kBeta);
  std::vector<Vec3> forces;
  test::bondedRun(*f, s, forces);
  BondedSystem moved = s;
  double worst = 0;
  for (std::size_t a = 0; a < s.positions.size(); ++a)
    for (int d = 0; d < 3; ++d) {
      moved.positions[a][d] = s.positions[a][d] + h;
      const double up = energyOf(*f, moved);
      moved.positions[a][d] = s.positions[a][d] - h;
      const double down = energyOf(*f, moved);
      moved.positions[a][d] = s.positions[a][d];
      const double err = std::fabs(forces[a][d] + (up - down) / (2 * h)) / std::max(1.0, std::fabs(forces[a][d]));
      worst = std::max(worst, err);
      EXPECT_LE(err, allowed) << what << ": atom " << a << " dim " << d << " F " << forces[a][d] << " -dE/dx "
                              << -(up - down) / (2 * h);
    }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", worst);
  ::testing::Test::RecordProperty(what + " worst", text);
}

TEST_P(BondedBackends, ForcesAreMinusTheEnergyGradientForEveryTerm) {
  FARADAY_REQUIRE_BACKEND(GetParam());
  const BondedSystem s = test::randomBondedSystem(3, 8, 11);
  for (int slot : kEverySlot) {
    const BondedSystem one = test::onlyTerm(s, slot);
    std::vector<Vec3> forces;
    const BondedEnergies e = test::bondedRun(*test::makeBonded(GetParam(), one, kBeta), one, forces);
    EXPECT_NE(e.energy[slot], 0.0) << bondedSlotName(slot) << " has no energy in the test system";
    expectFiniteDifferences(GetParam(), one, bondedSlotName(slot));
  }
}

/// A CMAP term and the four dihedral kinds on chains whose dihedrals sit at the awkward
/// places: within 1e-7 rad of 0 and 180 deg, on CMAP cell boundaries (multiples of 15 deg on
/// the 24-point grid, 30 deg on the 12-point one) and at the periodic wrap +-180 deg.
TEST_P(BondedBackends, ForcesAtAwkwardDihedrals) {
  FARADAY_REQUIRE_BACKEND(GetParam());
  const double pairs[][2] = {{1e-7, -1e-7},  {180 - 1e-7, -180 + 1e-7}, {-180, 180},   {180, 0},
                             {15, -30},      {45 + 1e-9, 90 - 1e-9},    {-179.9, 179.9}, {-120, 150}};
  for (const auto& p : pairs) {
    BondedSystem s;
    s.positions = test::chainWithDihedrals(test::degrees(p[0]), test::degrees(p[1]), {2.9, 1.5, 0.05});
    s.positions[2] = s.box.wrap(s.positions[2]);  // straddle two faces of the box
    s.charges.assign(5, 0.0);
    Topology& t = s.topology;
    t.cmapGrids = {test::smoothCmapGrid(24, 5), test::smoothCmapGrid(12, 6)};
    t.cmaps = {{0, 1, 2, 3, 4, 0}, {0, 1, 2, 3, 4, 1}};
    t.properDihedrals = {{0, 1, 2, 3, 0.3, 5.0, 3}, {1, 2, 3, 4, -0.2, 3.0, 1}};
    t.rbDihedrals = {{0, 1, 2, 3, {9.28, 12.16, -13.12, -3.06, 26.24, -31.5}}};
    t.impropers = {{0, 1, 2, 3, test::degrees(175), 40}, {1, 2, 3, 4, test::degrees(5), 40}};
    t.periodicImpropers = {{1, 2, 3, 4, test::degrees(180), 4.0, 2}};
    expectFiniteDifferences(GetParam(), s, "dihedrals at " + std::to_string(p[0]) + ", " + std::to_string(p[1]));
  }
}

/// The angle kinds at nearly straight angles (1e-4 and 1 deg from 180 deg and from 0 deg),
/// where the gradients of theta and of cos(theta) are at their most delicate, the middle atom
/// across a face of the box. The G96 angle, smooth in cos(theta), everywhere; the harmonic
/// and Urey-Bradley angles near 180 deg with theta0 = 180 deg, where U is smooth too (with
/// another theta0, or near 0 deg, theta's kink at the straight angle is within the step).
TEST_P(BondedBackends, ForcesAtNearlyStraightAngles) {
  FARADAY_REQUIRE_BACKEND(GetParam());
  for (const double angle : {180.0 - 1e-4, 179.0, 1.0, 1e-4}) {
    BondedSystem s;
    const Vec3 j{2.95, 1.5, 0.02};
    const double a = test::degrees(angle);
    s.positions = {j + Vec3{0.15, 0.0, 0.0}, s.box.wrap(j), j + Vec3{0.12 * std::cos(a), 0.12 * std::sin(a), 0.0}};
    s.charges.assign(3, 0.0);
    Topology& t = s.topology;
    t.g96Angles = {{0, 1, 2, test::degrees(109.5), 520.0}, {2, 1, 0, test::degrees(180.0), 400.0}};
    if (angle > 90) {
      t.angles = {{0, 1, 2, test::degrees(180.0), 300.0}};
      t.ureyBradleys = {{0, 1, 2, test::degrees(180.0), 300.0, 0.2, 2e4}};
    }
    expectFiniteDifferences(GetParam(), s, "angles at " + std::to_string(angle) + " deg");
  }
}

TEST_P(BondedBackends, EnergyInvariantUnderRotationTranslationAndWrapping) {
  FARADAY_REQUIRE_BACKEND(GetParam());
  // Unwrapped chains in a box much larger than they are: rotations never change an image.
  BondedSystem s = test::randomBondedSystem(3, 8, 21, false);
  s.box = Box::rectangular(40, 40, 40);
  s.topology.positionRestraints.clear();  // tied to the lab frame
  auto f = test::makeBonded(GetParam(), s, kBeta);
  std::vector<Vec3> f0;
  const BondedEnergies e0 = test::bondedRun(*f, s, f0);
  const double scale = std::max(1.0, std::fabs(e0.total()));

  BondedSystem moved = s;
  const double c = std::cos(0.7), sn = std::sin(0.7);  // rotation by 0.7 rad about (1, 1, 1)/sqrt 3
  const double k = 1.0 / 3.0, cc = (1 - c) * k, ss = sn / std::sqrt(3.0);
  const double R[3][3] = {{c + cc, cc - ss, cc + ss}, {cc + ss, c + cc, cc - ss}, {cc - ss, cc + ss, c + cc}};
  for (Vec3& x : moved.positions) {
    const Vec3 y = x;
    for (int i = 0; i < 3; ++i) x[i] = R[i][0] * y.x + R[i][1] * y.y + R[i][2] * y.z + 1.7 - 0.3 * i;
  }
  const auto expectSameEnergies = [&](const BondedEnergies& e, const char* what) {
    for (int slot = 0; slot < kBondedSlots; ++slot)
      EXPECT_NEAR(e.energy[slot], e0.energy[slot], tol::kBondedInvariance * scale + fixedPointAllowance(GetParam(), s, slot))
          << what << ": " << bondedSlotName(slot);
  };
  std::vector<Vec3> f1;
  expectSameEnergies(test::bondedRun(*f, moved, f1), "rotated and translated");

  // One atom moved by box vectors: the same energies, the same forces.
  BondedSystem wrapped = s;
  wrapped.positions[5] += Vec3{40, -80, 120};
  std::vector<Vec3> f2;
  expectSameEnergies(test::bondedRun(*f, wrapped, f2), "one atom moved by box vectors");
  for (std::size_t a = 0; a < f0.size(); ++a)
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(f2[a][d], f0[a][d], tol::kBondedWrappedForce);
}

TEST_P(BondedBackends, ForcesSumToZeroExceptPositionRestraints) {
  FARADAY_REQUIRE_BACKEND(GetParam());
  BondedSystem s = test::randomBondedSystem(4, 10, 31);
  s.topology.positionRestraints.clear();
  std::vector<Vec3> forces;
  test::bondedRun(*test::makeBonded(GetParam(), s, kBeta), s, forces);
  Vec3 sum{};
  double magnitude = 0;
  for (const Vec3& f : forces) sum += f, magnitude += std::sqrt(norm2(f));
  const double allowed = test::onGpu(GetParam()) ? tol::kGpuBondedNetForce : tol::kBondedNetForce;
  EXPECT_LE(std::sqrt(norm2(sum)), allowed * magnitude) << "sum " << sum.x << " " << sum.y << " " << sum.z;
}

/// Positions and restraint references under the symmetric strain of size e in components
/// (a, b) and (b, a): x_a += e x_b, and x_b += e x_a when a != b.
BondedSystem strained(const BondedSystem& s, int a, int b, double e) {
  BondedSystem o = s;
  auto deform = [&](Vec3& x) {
    const Vec3 y = x;
    x[a] += e * y[b];
    if (a != b) x[b] += e * y[a];
  };
  for (Vec3& x : o.positions) deform(x);
  for (PositionRestraint& p : o.topology.positionRestraints) deform(p.ref);
  return o;
}

/// W_ab = -dE/d(strain_ab) (for a != b the symmetric strain moves both components, so
/// -dE/de = W_ab + W_ba = 2 W_ab): positions scale with the box, and so do the position
/// restraints' references (the virial of a reference that scales with the box).
TEST_P(BondedBackends, VirialIsTheStrainDerivative) {
  FARADAY_REQUIRE_BACKEND(GetParam());
  // Unwrapped chains in a box so large that the affine map needs no new box.
  BondedSystem s = test::randomBondedSystem(3, 8, 41, false);
  s.box = Box::rectangular(40, 40, 40);
  auto f = test::makeBonded(GetParam(), s, kBeta);
  std::vector<Vec3> forces;
  const Tensor3 W = test::bondedRun(*f, s, forces).virial;
  const bool gpu = test::onGpu(GetParam());
  const double h = gpu ? tol::kGpuBondedStrainStep : tol::kBondedStrainStep;
  double wMax = 1;
  for (auto& row : W.m)
    for (double w : row) wMax = std::max(wMax, std::fabs(w));
  const double allowed = gpu ? tol::kGpuBondedVirialStrain : tol::kBondedVirialStrain;
  for (int a = 0; a < 3; ++a)
    for (int b = a; b < 3; ++b) {
      // New instances: they copy the (strained) restraint references when made.
      const BondedSystem up = strained(s, a, b, h), down = strained(s, a, b, -h);
      const double dE = (energyOf(*test::makeBonded(GetParam(), up, kBeta), up) -
                         energyOf(*test::makeBonded(GetParam(), down, kBeta), down)) / (2 * h);
      const double expected = a == b ? -dE : -dE / 2;
      EXPECT_NEAR(W.m[a][b], expected, allowed * wMax) << "W" << a << b;
      EXPECT_EQ(W.m[a][b], W.m[b][a]);
    }
  // Without position restraints, W = sum_a x_a (x) F_a over the unwrapped positions.
  BondedSystem free = s;
  free.topology.positionRestraints.clear();
  std::vector<Vec3> ff;
  const Tensor3 Wf = test::bondedRun(*test::makeBonded(GetParam(), free, kBeta), free, ff).virial;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      double sum = 0;
      for (std::size_t i = 0; i < ff.size(); ++i) sum += 0.5 * (free.positions[i][a] * ff[i][b] + free.positions[i][b] * ff[i][a]);
      EXPECT_NEAR(Wf.m[a][b], sum, gpu ? tol::kGpuBondedVirialSum : tol::kBondedVirialSum * wMax) << "W" << a << b;
    }
}

INSTANTIATE_TEST_SUITE_P(Backends, BondedBackends, ::testing::ValuesIn(test::kBackendNames), test::backendTestName);

// ---- The GPU against the CPU ----

std::vector<double> flat(const std::vector<Vec3>& v) {
  std::vector<double> out;
  for (const Vec3& x : v) out.insert(out.end(), {x.x, x.y, x.z});
  return out;
}

TEST(BondedGpu, MatchesTheCpuReference) {
  FARADAY_REQUIRE_GPU();
  const BondedSystem s = test::randomBondedSystem(40, 12, 51);
  std::vector<Vec3> fc, fg;
  const BondedEnergies ec = test::bondedRun(*test::makeBonded("cpu", s, kBeta), s, fc);
  const BondedEnergies eg = test::bondedRun(*test::makeBonded("cuda", s, kBeta), s, fg);
  EXPECT_LE(test::relRms(flat(fg), flat(fc)), tol::kGpuBondedForceRelRms);
  const std::size_t pairs = exclusionCorrectionPairs(s.topology, s.charges, BondedParams{kBeta}).size();
  int allTerms = 0;
  for (int slot = 0; slot < kBondedSlots; ++slot) {
    const int n = termsOf(s.topology, slot, pairs);
    allTerms += n;
    const double allowed = tol::kFixedEnergyStep * (n / 32 + 1) + tol::kGpuBondedArithmetic * std::fabs(ec.energy[slot]);
    EXPECT_NEAR(eg.energy[slot], ec.energy[slot], allowed) << bondedSlotName(slot);
  }
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      EXPECT_NEAR(eg.virial.m[a][b], ec.virial.m[a][b],
                  tol::kFixedEnergyStep * (allTerms / 32 + kBondedSlots) + tol::kGpuBondedArithmetic * std::fabs(ec.virial.m[a][b]))
          << "W" << a << b;
}

TEST(BondedGpu, RepeatsBitForBit) {
  FARADAY_REQUIRE_GPU();
  const BondedSystem s = test::randomBondedSystem(200, 12, 61);
  auto f = test::makeBonded("cuda", s, kBeta);
  std::vector<Vec3> f1, f2;
  const BondedEnergies e1 = test::bondedRun(*f, s, f1), e2 = test::bondedRun(*f, s, f2);
  EXPECT_EQ(std::memcmp(f1.data(), f2.data(), f1.size() * sizeof(Vec3)), 0);
  EXPECT_EQ(std::memcmp(e1.energy.data(), e2.energy.data(), sizeof(e1.energy)), 0);
  EXPECT_EQ(std::memcmp(&e1.virial, &e2.virial, sizeof(Tensor3)), 0);
  // A second instance, too.
  std::vector<Vec3> f3;
  test::bondedRun(*test::makeBonded("cuda", s, kBeta), s, f3);
  EXPECT_EQ(std::memcmp(f1.data(), f3.data(), f1.size() * sizeof(Vec3)), 0);
  // The kernels without energies give the same forces, bit for bit.
  std::vector<Vec3> f4(s.positions.size(), Vec3{});
  f->addForces(s.positions, s.box, f4);
  EXPECT_EQ(std::memcmp(f1.data(), f4.data(), f1.size() * sizeof(Vec3)), 0);
}

TEST(BondedBadInput, MalformedTopologiesAreRejectedWithOneLine) {
  BondedSystem s = test::randomBondedSystem(1, 8, 71);
  s.topology.angles[1].k = 99;
  EXPECT_NE(test::errorOf([&] { test::makeBonded("cpu", s, kBeta); }).find("angle 2: atom index 99"), std::string::npos);
  s = test::randomBondedSystem(1, 8, 71);
  s.topology.cmaps[0].grid = 5;
  EXPECT_NE(test::errorOf([&] { test::makeBonded("cpu", s, kBeta); }).find("CMAP term 1: grid 5 does not exist"), std::string::npos);
  s = test::randomBondedSystem(1, 8, 71);
  s.topology.cmapGrids[1].energy.pop_back();
  EXPECT_NE(test::errorOf([&] { test::makeBonded("cpu", s, kBeta); }).find("CMAP grid 2"), std::string::npos);
}

}  // namespace
}  // namespace faraday
