// Bonded interactions of a GROMACS topology (tests/data/top/bonded.top and its force field
// ff/): each supported function, parameters from the line or looked up (forward and
// reversed, by wildcard priority, type-9 blocks, repeated blocks), units, and the system
// of [ molecules ] with global atom indices.
#include <gtest/gtest.h>

#include <cmath>

#include "core/Units.h"
#include "tests/Tolerances.h"
#include "tests/TopologyTestSupport.h"

namespace faraday::test {
namespace {

constexpr double kDeg = units::kPi / 180.0;

class BondedFixture : public ::testing::Test {
 protected:
  void SetUp() override { top = readTopData("bonded.top", {"-DPOSRES"}); }
  GromacsTopology top;
};

TEST_F(BondedFixture, MoleculesExpandInOrderWithGlobalIndices) {
  ASSERT_EQ(top.size(), 25u);  // M 2 x 6, BLK 4, WAT 3 x 3
  ASSERT_EQ(top.molecules.size(), 3u);
  EXPECT_EQ(top.molecules[0].name, "M");
  EXPECT_EQ(top.molecules[0].count, 2);
  EXPECT_EQ(top.molecules[2].atomsPerMolecule, 3);
  const auto& m = top.topology.molecules;
  ASSERT_EQ(m.size(), 6u);
  EXPECT_EQ(m[1].first, 6);
  EXPECT_EQ(m[2].name, "BLK");
  EXPECT_EQ(m[2].first, 12);
  EXPECT_EQ(m[5].first, 22);
  EXPECT_EQ(m[5].count, 3);
  EXPECT_EQ(top.atomName[16], "OW");
  EXPECT_EQ(top.residueName[13], "BLK");
  EXPECT_NEAR(top.netCharge(), 0.0, tol::kDoubleSum);
  EXPECT_EQ(top.types.size(), 7u);
  EXPECT_EQ(top.types[top.type[16]].name, "OW");
}

TEST_F(BondedFixture, BondsAnglesAndConstraints) {
  const Topology& t = top.topology;
  ASSERT_EQ(t.bonds.size(), 13u);  // 5 per M, 3 in BLK
  EXPECT_EQ(t.bonds[4].i, 5);      // written "6 2": [ bondtypes ] CB CE matched reversed
  EXPECT_EQ(t.bonds[4].b0, 0.151);
  EXPECT_EQ(t.bonds[4].kb, 240000.0);
  EXPECT_EQ(t.bonds[6].i, 7);      // second M: indices moved by 6
  EXPECT_EQ(t.bonds[6].j, 8);
  ASSERT_EQ(t.morseBonds.size(), 2u);
  EXPECT_EQ(t.morseBonds[0].D, 400.0);
  EXPECT_EQ(t.morseBonds[0].beta, 20.0);
  ASSERT_EQ(t.constraints.size(), 4u);
  EXPECT_EQ(t.constraints[0].length, 0.25);  // type 2 from [ constrainttypes ]
  EXPECT_EQ(t.constraints[1].length, 0.3);
  ASSERT_EQ(t.angles.size(), 8u);  // 3 per M (the all-zero one adds none), 2 in BLK
  EXPECT_NEAR(t.angles[0].theta0, 109.5 * kDeg, tol::kDoubleSum);
  EXPECT_EQ(t.angles[0].kTheta, 400.0);  // kJ/mol/rad^2, as written
  EXPECT_EQ(t.angles[1].i, 4);           // written "5 3 2": CB CC CE reversed
  EXPECT_NEAR(t.angles[1].theta0, 100.0 * kDeg, tol::kDoubleSum);
  ASSERT_EQ(t.ureyBradleys.size(), 2u);
  EXPECT_NEAR(t.ureyBradleys[0].theta0, 120.0 * kDeg, tol::kDoubleSum);
  EXPECT_EQ(t.ureyBradleys[0].kTheta, 300.0);
  EXPECT_EQ(t.ureyBradleys[0].r13, 0.25);
  EXPECT_EQ(t.ureyBradleys[0].kUB, 5000.0);
}

TEST_F(BondedFixture, ProperDihedralsByWildcardPriority) {
  const auto& d = top.topology.properDihedrals;
  ASSERT_EQ(d.size(), 16u);  // 5 per M, 3 + 3 in BLK
  // CA CB CC CD: X CB CC X (2 exact), CA CB CC X (3, first), X CB CC CD (3, later).
  EXPECT_NEAR(d[0].phi0, units::kPi, tol::kDoubleSum);
  EXPECT_EQ(d[0].kPhi, 2.0);
  EXPECT_EQ(d[0].n, 2);
  EXPECT_EQ(d[1].i, 3);  // written reversed, matched the same way
  EXPECT_EQ(d[1].kPhi, 2.0);
  EXPECT_EQ(d[2].kPhi, 3.0);  // CE CB CC CD: only X CB CC CD has 3
  EXPECT_EQ(d[2].n, 3);
  EXPECT_EQ(d[3].kPhi, 1.0);  // CE CB CC CE: only X CB CC X
  EXPECT_EQ(d[4].kPhi, 5.0);  // parameters on the line
  EXPECT_NEAR(d[4].phi0, units::kPi, tol::kDoubleSum);
  // The zero-k line adds no term: the next is the second M's first.
  EXPECT_EQ(d[5].i, 6);
}

TEST_F(BondedFixture, TypeNineBlockAddsItsLinesOnceAlthoughRepeated) {
  const auto& d = top.topology.properDihedrals;
  // BLK (atoms 12-15): the three lines of CE CD CD CE, not six (the identical repeat of
  // the block is a redefinition), and not the 2-atom X CD CD X (fewer exact matches).
  std::vector<PeriodicTorsion> blk;
  for (const PeriodicTorsion& p : d)
    if (p.i >= 12) blk.push_back(p);
  ASSERT_EQ(blk.size(), 6u);
  for (int copy = 0; copy < 2; ++copy) {
    EXPECT_EQ(blk[std::size_t(3 * copy)].kPhi, 1.0);
    EXPECT_EQ(blk[std::size_t(3 * copy)].n, 1);
    EXPECT_EQ(blk[std::size_t(3 * copy + 1)].kPhi, 0.5);
    EXPECT_NEAR(blk[std::size_t(3 * copy + 1)].phi0, units::kPi, tol::kDoubleSum);
    EXPECT_EQ(blk[std::size_t(3 * copy + 2)].kPhi, 0.25);
    EXPECT_EQ(blk[std::size_t(3 * copy + 2)].n, 3);
  }
  EXPECT_EQ(blk[3].i, 15);  // the second line is written reversed
}

TEST_F(BondedFixture, ImpropersRbAndFourier) {
  const Topology& t = top.topology;
  ASSERT_EQ(t.periodicImpropers.size(), 2u);
  EXPECT_EQ(t.periodicImpropers[0].kPhi, 4.6);
  EXPECT_EQ(t.periodicImpropers[0].n, 2);
  ASSERT_EQ(t.impropers.size(), 2u);  // the 2-atom form CC CE: CC X X CE
  EXPECT_EQ(t.impropers[0].xi0, 0.0);
  EXPECT_EQ(t.impropers[0].kXi, 100.0);
  ASSERT_EQ(t.rbDihedrals.size(), 6u);
  const double rb[6] = {1, 2, 3, 4, 5, 6};
  // Fourier F = (1, 2, 3, 4): C0 = F2 + (F1 + F3)/2 = 4, C1 = (3 F3 - F1)/2 = 4,
  // C2 = 4 F4 - F2 = 14, C3 = -2 F3 = -6, C4 = -4 F4 = -16, C5 = 0.
  const double fourierLine[6] = {4, 4, 14, -6, -16, 0};
  // From [ dihedraltypes ] F = (0.5, 0, 0, 0): C0 = 0.25, C1 = -0.25.
  const double fourierType[6] = {0.25, -0.25, 0, 0, 0, 0};
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(t.rbDihedrals[0].c[k], rb[k]) << k;
    EXPECT_EQ(t.rbDihedrals[1].c[k], fourierLine[k]) << k;
    EXPECT_EQ(t.rbDihedrals[2].c[k], fourierType[k]) << k;
  }
}

TEST_F(BondedFixture, GeneratedPairsCmapSettlesAndPositionRestraints) {
  const Topology& t = top.topology;
  ASSERT_EQ(t.pairs14.size(), 4u);
  // CA (0.34, 0.36) with CD (0.32, 0.71), rule 2, fudgeLJ 0.5, fudgeQQ 0.8333.
  const double sigma = 0.33, epsilon = std::sqrt(0.36 * 0.71);
  EXPECT_NEAR(t.pairs14[0].c6, 0.5 * 4 * epsilon * std::pow(sigma, 6), tol::kDoubleSum * t.pairs14[0].c6);
  EXPECT_NEAR(t.pairs14[0].c12, 0.5 * 4 * epsilon * std::pow(sigma, 12), tol::kDoubleSum * t.pairs14[0].c12);
  EXPECT_NEAR(t.pairs14[0].qq, 0.8333 * 0.1 * -0.4, tol::kDoubleSum);
  ASSERT_EQ(t.cmaps.size(), 2u);
  EXPECT_EQ(t.cmaps[1].i, 6);
  EXPECT_EQ(t.cmaps[1].m, 10);
  ASSERT_EQ(t.cmapGrids.size(), 1u);  // one grid shared by both
  EXPECT_EQ(t.cmaps[1].grid, 0);
  EXPECT_EQ(t.cmapGrids[0].size, 4);
  // File order is the grid's: energy[a * 4 + b] at phi = -180 + 90 a, psi = -180 + 90 b.
  for (int k = 0; k < 16; ++k) EXPECT_EQ(t.cmapGrids[0].energy[std::size_t(k)], double(k));
  ASSERT_EQ(t.settles.size(), 3u);
  EXPECT_EQ(t.settles[2].oxygen, 22);
  EXPECT_EQ(t.settles[0].dOH, 0.1);
  EXPECT_EQ(t.settles[0].dHH, 0.1633);
  ASSERT_EQ(t.positionRestraints.size(), 2u);  // -DPOSRES
  EXPECT_EQ(t.positionRestraints[1].i, 6);
  EXPECT_EQ(t.positionRestraints[0].k, (Vec3{1000.0, 2000.0, 3000.0}));
  EXPECT_EQ(readTopData("bonded.top").topology.positionRestraints.size(), 0u);  // without POSRES
}

TEST_F(BondedFixture, WaterSettleExcludesItsThreeAtoms) {
  const Topology& t = top.topology;
  ASSERT_EQ(t.exclusionOffsets.size(), 26u);
  const std::vector<int> oxygen(t.exclusions.begin() + t.exclusionOffsets[19], t.exclusions.begin() + t.exclusionOffsets[20]);
  EXPECT_EQ(oxygen, (std::vector<int>{20, 21}));
  const std::vector<int> hydrogen(t.exclusions.begin() + t.exclusionOffsets[21], t.exclusions.begin() + t.exclusionOffsets[22]);
  EXPECT_EQ(hydrogen, (std::vector<int>{19, 20}));
}

}  // namespace
}  // namespace faraday::test
