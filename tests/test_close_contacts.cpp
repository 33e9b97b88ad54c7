// The close contacts of --dry-run count only pairs that interact through the nonbonded terms:
// the atoms of a water, bonded neighbours and excluded pairs are as close as their bonds
// make them, and a real overlap of two molecules is still listed.
#include <gtest/gtest.h>

#include "engine/run/Runaway.h"
#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

/// Two rigid waters (SETTLE, no [ exclusions ] listed) and a two-atom molecule with one bond,
/// its hydrogen-like atom large enough (sigma 0.2 nm) that every bonded distance lies below
/// 0.6 sigma_ij.
struct SmallMolecules {
  System system;
  std::vector<Vec3> positions;
  SmallMolecules() {
    system.types = {{"OW", 16, 0, 0.315, 0.6}, {"HW", 1, 0, 0.2, 0.1}};
    system.box = Box::rectangular(3, 3, 3);
    const Vec3 origins[] = {{1, 1, 1}, {2, 2, 2}};
    for (const Vec3& o : origins) {
      system.topology.settles.push_back({int(positions.size()), 0.09572, 0.15139});
      system.type.insert(system.type.end(), {0, 1, 1});
      positions.insert(positions.end(), {o, o + Vec3{0.09572, 0, 0}, o + Vec3{-0.024, 0.0927, 0}});
    }
    system.type.insert(system.type.end(), {0, 1});
    positions.push_back({0.5, 2.5, 0.5});
    positions.push_back({0.59, 2.5, 0.5});
    system.topology.bonds.push_back({6, 7, 0.09, 1000});
    const std::size_t n = positions.size();
    system.charge.assign(n, 0.0);
    system.mass.assign(n, 1.0);
    system.atomName.assign(n, "X");
  }
};

TEST(CloseContacts, BondedAndRigidPairsAreNeverCloseContacts) {
  SmallMolecules m;
  EXPECT_TRUE(closeContacts(m.system, m.positions, m.system.box).empty());
  EXPECT_HAS(describeCloseContacts(m.system, m.positions, m.system.box), "Close contacts: none");
  // The pairs of [ exclusions ] (here the bonded pair alone, without its bond) are skipped too.
  m.system.topology.bonds.clear();
  m.system.topology.exclusionOffsets = {0, 0, 0, 0, 0, 0, 0, 1, 2};
  m.system.topology.exclusions = {7, 6};
  EXPECT_TRUE(closeContacts(m.system, m.positions, m.system.box).empty());
}

TEST(CloseContacts, AnOverlapOfTwoMoleculesIsStillListed) {
  SmallMolecules m;
  m.positions[3] = m.positions[6] + Vec3{0.05, 0, 0};  // the second water's oxygen onto the third molecule
  m.positions[4] = m.positions[3] + Vec3{0.09572, 0, 0};
  m.positions[5] = m.positions[3] + Vec3{-0.024, 0.0927, 0};
  const std::vector<CloseContact> contacts = closeContacts(m.system, m.positions, m.system.box);
  ASSERT_FALSE(contacts.empty());
  bool oxygenOnMolecule = false;
  for (const CloseContact& c : contacts) oxygenOnMolecule = oxygenOnMolecule || (c.i == 3 && c.j == 6);
  EXPECT_TRUE(oxygenOnMolecule) << "the oxygen 0.05 nm from atom 6 is not listed";
  for (const CloseContact& c : contacts) EXPECT_TRUE(c.i >= 3 && c.i <= 5 && c.j >= 6) << c.i << "-" << c.j;
  EXPECT_HAS(describeCloseContacts(m.system, m.positions, m.system.box), "the run would blow up");
}

/// The protein example's dry run finds no close contact (its waters and bonded atoms are not
/// contacts) and calls the input valid.
TEST(CloseContacts, TheProteinExampleHasNone) {
  TempDir dir;
  const CommandResult r = runFaraday(dir.path(), {"run", sourceDir() + "/systems/protein/sim.cfg", "--dry-run",
                                                  "--output.directory=" + (dir / "out").string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_HAS(r.out, "Close contacts: none");
  EXPECT_HAS(r.out, "Dry run: configuration and input are valid");
}

}  // namespace
}  // namespace faraday::test
