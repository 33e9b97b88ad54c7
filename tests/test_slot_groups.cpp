// The hydrogen groups of the GPU's slot order (kernels/neighbor/SlotGroups.h): who anchors
// whom, the ranks, and the cases that stay alone.
#include <gtest/gtest.h>

#include "kernels/neighbor/SlotGroups.h"

namespace faraday {
namespace {

/// n particles named by `names` (H...: hydrogen by name, mass 1.008; others 12 amu), no
/// atomic numbers.
System namedSystem(const std::vector<std::string>& names) {
  System s;
  for (const std::string& name : names) {
    s.type.push_back(0);
    s.charge.push_back(0);
    s.mass.push_back(name[0] == 'H' ? 1.008 : 12.0);
    s.atomName.push_back(name);
  }
  return s;
}

TEST(SlotGroups, AtomsWithoutBondsMakeNoGroups) {
  const System s = namedSystem({"NA", "CL", "NA", "CL"});
  EXPECT_TRUE(hydrogenSlotGroups(s).empty());
}

TEST(SlotGroups, RigidWaterHydrogensFollowTheirOxygen) {
  System s = namedSystem({"OW", "HW1", "HW2", "OW", "HW1", "HW2"});
  s.topology.settles = {{0, 0.1, 0.1633}, {3, 0.1, 0.1633}};
  const SlotGroups g = hydrogenSlotGroups(s);
  ASSERT_FALSE(g.empty());
  EXPECT_EQ(g.anchor, (std::vector<int>{0, 0, 0, 3, 3, 3}));
  EXPECT_EQ(g.rank, (std::vector<int>{0, 1, 2, 0, 1, 2}));
}

TEST(SlotGroups, BondsAndConstraintsJoinHydrogensToTheFirstHeavyPartner) {
  // 0 C with hydrogens 1, 2, 3 (bond, Morse bond, constraint); 4 N bonded to 0 and to
  // hydrogen 5, which also has a later bond to 0; 6-7 an H-H pair; 8 a lone hydrogen.
  System s = namedSystem({"C", "H1", "H2", "H3", "N", "HN", "HA", "HB", "HX"});
  Topology& t = s.topology;
  t.bonds = {{0, 1, 0.109, 1e5}, {0, 4, 0.15, 1e5}, {5, 4, 0.101, 1e5}, {5, 0, 0.2, 1e5}, {6, 7, 0.074, 1e5}};
  t.morseBonds = {{2, 0, 0.109, 400, 20}};
  t.constraints = {{0, 3, 0.109}};
  const SlotGroups g = hydrogenSlotGroups(s);
  ASSERT_FALSE(g.empty());
  EXPECT_EQ(g.anchor, (std::vector<int>{0, 0, 0, 0, 4, 4, 6, 7, 8}));
  EXPECT_EQ(g.rank, (std::vector<int>{0, 1, 2, 3, 0, 1, 0, 0, 0}));
}

TEST(SlotGroups, TheAtomicNumberDecidesOverNameAndMass) {
  // Repartitioned hydrogens (3 amu, Z = 1) still join; a heavy "HG" (Z = 80) is an anchor.
  System s = namedSystem({"C", "H1", "HG", "H2"});
  s.mass = {9.0, 3.0, 200.6, 3.0};
  s.topology.atomicNumber = {6, 1, 80, 1};
  s.topology.bonds = {{0, 1, 0.109, 1e5}, {2, 3, 0.17, 1e5}};
  const SlotGroups g = hydrogenSlotGroups(s);
  EXPECT_EQ(g.anchor, (std::vector<int>{0, 0, 2, 2}));
  EXPECT_EQ(g.rank, (std::vector<int>{0, 1, 0, 1}));
}

TEST(SlotGroups, HydrogensBeyondTheRankBitsStayAlone) {
  std::vector<std::string> names{"C"};
  for (int k = 0; k < SlotGroups::kMaxRank + 2; ++k) names.push_back("H" + std::to_string(k));
  System s = namedSystem(names);
  for (int k = 1; k < int(names.size()); ++k) s.topology.bonds.push_back({0, k, 0.109, 1e5});
  const SlotGroups g = hydrogenSlotGroups(s);
  for (int k = 1; k <= SlotGroups::kMaxRank; ++k) {
    EXPECT_EQ(g.anchor[std::size_t(k)], 0) << "hydrogen " << k;
    EXPECT_EQ(g.rank[std::size_t(k)], k) << "hydrogen " << k;
  }
  for (int k = SlotGroups::kMaxRank + 1; k < int(names.size()); ++k) {
    EXPECT_EQ(g.anchor[std::size_t(k)], k) << "hydrogen " << k << " beyond the rank bits";
    EXPECT_EQ(g.rank[std::size_t(k)], 0) << "hydrogen " << k;
  }
}

}  // namespace
}  // namespace faraday
