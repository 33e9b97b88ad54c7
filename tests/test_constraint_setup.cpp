// What system.constraints and system.hydrogen_mass do to a System read from a GROMACS
// topology: the bonds that become constraints, hydrogen mass repartitioning as OpenMM's
// hydrogenMass (rigid waters left alone), the degrees of freedom, and their errors.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <set>

#include "engine/config/LoadConfig.h"
#include "engine/setup/ConstraintSetup.h"
#include "engine/setup/SystemSetup.h"
#include "integrators/Integrator.h"
#include "tests/EngineTestSupport.h"
#include "tests/GromacsReference.h"

namespace faraday::test {
namespace {

/// A reference system (tests/data/gromacs) as the engine sets it up, with `defines`.
faraday::Setup referenceSetup(const std::string& name, const std::string& defines, const std::string& constraints,
                     double hydrogenMass = 0) {
  Config c = gromacsReferenceConfig(loadGromacsReference(name), "cpu");
  c.system.defines = defines;
  c.system.constraints = choiceNamed<BondConstraints>(constraints);
  c.system.hydrogenMass = hydrogenMass;
  return buildSetup(c);
}

double totalMass(const System& s) {
  double m = 0;
  for (double x : s.mass) m += x;
  return m;
}

/// The atomic numbers of [atomtypes] decide; the mass and the name only where it is missing.
TEST(ConstraintSetup, HydrogensAreJudgedByAtomicNumberThenMassOrName) {
  System s;
  s.mass = {1.008, 4.0, 12.01, 1.008, 3.0};
  s.atomName = {"H1", "HB2", "C", "X", "HA"};
  s.topology.atomicNumber = {1, 1, 6, 0, 0};
  EXPECT_TRUE(isHydrogen(s, 0));
  EXPECT_TRUE(isHydrogen(s, 1));   // repartitioned: heavy, but Z = 1
  EXPECT_FALSE(isHydrogen(s, 2));
  EXPECT_TRUE(isHydrogen(s, 3));   // unknown Z: mass below 1.5 amu
  EXPECT_TRUE(isHydrogen(s, 4));   // unknown Z: name starts with H
}

/// The bonds of `bonds` (one kind of bond) in the reference system `name` with constraints =
/// none, h-bonds and all-bonds: with h-bonds every bond with a hydrogen becomes a constraint
/// of length b0 and leaves the bonded terms, with all-bonds every bond. Returns the three
/// setups and how many bonds have a hydrogen.
template <typename Bond>
std::size_t expectBondsBecomeConstraints(const std::string& name, std::vector<Bond> Topology::*bonds,
                                         std::array<faraday::Setup, 3>& setups) {
  setups = {referenceSetup(name, "", "none"), referenceSetup(name, "", "h-bonds"), referenceSetup(name, "", "all-bonds")};
  const Topology &t0 = setups[0].system.topology, &th = setups[1].system.topology, &ta = setups[2].system.topology;
  EXPECT_TRUE(t0.constraints.empty());
  std::set<std::pair<int, int>> withHydrogen;
  for (const Bond& b : t0.*bonds)
    if (t0.atomicNumber[std::size_t(b.i)] == 1 || t0.atomicNumber[std::size_t(b.j)] == 1) withHydrogen.insert({b.i, b.j});
  EXPECT_EQ(th.constraints.size(), withHydrogen.size());
  EXPECT_EQ((th.*bonds).size(), (t0.*bonds).size() - withHydrogen.size());
  for (const Constraint& c : th.constraints) {
    EXPECT_TRUE(withHydrogen.count({c.i, c.j})) << c.i << " " << c.j;
    for (const Bond& b : t0.*bonds)
      if (b.i == c.i && b.j == c.j) EXPECT_EQ(c.length, b.b0);
  }
  EXPECT_EQ(ta.constraints.size(), (t0.*bonds).size());
  EXPECT_TRUE((ta.*bonds).empty());
  return withHydrogen.size();
}

/// The AMBER peptide's harmonic bonds; the other terms stay.
TEST(ConstraintSetup, HBondsAndAllBondsTurnTheTopologysBondsIntoConstraints) {
  std::array<faraday::Setup, 3> s;
  const std::size_t withHydrogen = expectBondsBecomeConstraints("peptide_amber_vacuum", &Topology::bonds, s);
  EXPECT_GT(withHydrogen, 50u);
  const Topology &t0 = s[0].system.topology, &th = s[1].system.topology;
  EXPECT_EQ(th.angles.size(), t0.angles.size());
  EXPECT_EQ(th.properDihedrals.size(), t0.properDihedrals.size());
  // The degrees of freedom: one per constraint, three for the centre of mass (verlet).
  const double n = double(s[1].system.size());
  EXPECT_EQ(degreesOfFreedom(s[1].system, IntegratorType::Verlet), 3 * n - double(withHydrogen) - 3);
}

/// The GROMOS peptide's G96 bonds become constraints as the harmonic ones do (grompp's rule for
/// bonds 1 to 4); its G96 angles stay.
TEST(ConstraintSetup, G96BondsBecomeConstraintsToo) {
  std::array<faraday::Setup, 3> s;
  EXPECT_GT(expectBondsBecomeConstraints("peptide_gromos54a7_vacuum", &Topology::g96Bonds, s), 10u);
  EXPECT_TRUE(s[0].system.topology.bonds.empty());
  EXPECT_EQ(s[2].system.topology.g96Angles.size(), s[0].system.topology.g96Angles.size());
}

/// Flexible water (-DFLEXIBLE) with h-bonds: its O-H bonds become constraints and the angle
/// stays (as GROMACS and OpenMM with rigidWater off); rigid water is SETTLE whatever the key.
TEST(ConstraintSetup, WaterIsRigidUnlessTheDefinesMakeItFlexible) {
  const faraday::Setup rigid = referenceSetup("spce_water", "", "none");
  EXPECT_EQ(rigid.system.topology.settles.size(), 884u);
  EXPECT_TRUE(rigid.system.topology.bonds.empty());
  EXPECT_EQ(degreesOfFreedom(rigid.system, IntegratorType::Langevin), 6.0 * 884);
  const faraday::Setup flexible = referenceSetup("spce_water", "-DFLEXIBLE", "h-bonds");
  EXPECT_TRUE(flexible.system.topology.settles.empty());
  EXPECT_EQ(flexible.system.topology.constraints.size(), 2u * 884);
  EXPECT_EQ(flexible.system.topology.angles.size(), 884u);
  EXPECT_EQ(degreesOfFreedom(flexible.system, IntegratorType::Langevin), 7.0 * 884);
}

/// Every hydrogen bonded to a heavy atom gets the mass; its heavy atom loses what it gained;
/// the total is kept. Rigid water keeps its masses (OpenMM's hydrogenMass leaves rigid water
/// alone); flexible water's hydrogens are repartitioned too, as OpenMM does without rigidWater.
TEST(ConstraintSetup, HydrogenMassRepartitioningKeepsTheTotalAndLeavesRigidWaterAlone) {
  const faraday::Setup before = referenceSetup("protein_charmm_tip3p", "", "h-bonds");
  const faraday::Setup after = referenceSetup("protein_charmm_tip3p", "", "h-bonds", 3.0);
  const System &s0 = before.system, &s1 = after.system;
  EXPECT_NEAR(totalMass(s1), totalMass(s0), 1e-9 * totalMass(s0));
  std::vector<char> water(s0.size(), 0);
  for (const Settle& w : s0.topology.settles) water[std::size_t(w.oxygen)] = water[std::size_t(w.oxygen + 1)] =
                                                  water[std::size_t(w.oxygen + 2)] = 1;
  int moved = 0;
  for (std::size_t i = 0; i < s0.size(); ++i) {
    if (water[i]) {
      EXPECT_EQ(s1.mass[i], s0.mass[i]) << i;
    } else if (s0.topology.atomicNumber[i] == 1) {
      EXPECT_EQ(s1.mass[i], 3.0) << i;
      ++moved;
    } else if (s1.mass[i] != s0.mass[i]) {
      // A heavy atom lost (3 - 1.008) amu per hydrogen: its mass changed by a multiple of that.
      const double hydrogens = (s0.mass[i] - s1.mass[i]) / (3.0 - 1.008);
      EXPECT_NEAR(hydrogens, std::round(hydrogens), 1e-9) << i;
    }
  }
  EXPECT_GT(moved, 200);  // the protein's hydrogens
  const faraday::Setup flexible = referenceSetup("protein_charmm_tip3p", "-DFLEXIBLE", "h-bonds", 3.0);
  const Settle& w = s0.topology.settles.front();
  EXPECT_EQ(flexible.system.mass[std::size_t(w.oxygen + 1)], 3.0);
  EXPECT_NEAR(flexible.system.mass[std::size_t(w.oxygen)], s0.mass[std::size_t(w.oxygen)] - 2 * (3.0 - 1.008), 1e-12);
}

TEST(ConstraintSetup, AHydrogenMassThatLeavesAHeavyAtomLighterNamesBothAtoms) {
  const std::string e = errorOf([] { referenceSetup("peptide_amber_vacuum", "", "h-bonds", 5.0); });
  EXPECT_NE(e.find("key 'system.hydrogen_mass': 5 amu leaves atom 0 (N, ASN 138) with 2.034 amu, lighter than its "
                   "hydrogen 3 (H3, ASN 138) (0-based indices)"),
            std::string::npos)
      << e;
}

TEST(ConstraintSetup, ConstraintsAndHydrogenMassNeedATopology) {
  TempDir dir;
  writeText(dir / "argon.gro", argonGro(2));
  writeText(dir / "sim.cfg", argonConfig(10, 0.4));
  const std::string a = errorOf([&] { loadConfig(dir / "sim.cfg", {"--system.constraints=h-bonds"}); });
  EXPECT_NE(a.find("command line: key 'system.constraints': h-bonds makes a topology's bonds rigid and needs one "
                   "(system.topology)"),
            std::string::npos)
      << a;
  const std::string m = errorOf([&] { loadConfig(dir / "sim.cfg", {"--system.hydrogen_mass=4"}); });
  EXPECT_NE(m.find("needs one (system.topology)"), std::string::npos) << m;
}

}  // namespace
}  // namespace faraday::test
