// Exclusions of a GROMACS topology (tests/data/top/exclusions.top): nrexcl 0 to 3 over a
// chain whose links are bonds of each kind that counts, over a ring, and what does not
// count (a type-2 constraint) beside [ exclusions ] lines; stored as CSR in both directions.
#include <gtest/gtest.h>

#include <set>

#include "tests/TopologyTestSupport.h"

namespace faraday::test {
namespace {

using PairSet = std::set<std::pair<int, int>>;

/// Every excluded pair (i < j) from the CSR, after checking its form: rows sorted, without
/// the atom itself, and each pair in both rows.
PairSet pairsOf(const Topology& t, std::size_t atoms) {
  PairSet pairs;
  EXPECT_EQ(t.exclusionOffsets.size(), atoms + 1);
  for (std::size_t p = 0; p + 1 < t.exclusionOffsets.size(); ++p) {
    for (int k = t.exclusionOffsets[p]; k < t.exclusionOffsets[p + 1]; ++k) {
      const int q = t.exclusions[std::size_t(k)];
      EXPECT_NE(q, int(p));
      if (k > t.exclusionOffsets[p]) EXPECT_LT(t.exclusions[std::size_t(k) - 1], q) << "row " << p;
      pairs.insert({std::min(int(p), q), std::max(int(p), q)});
    }
  }
  EXPECT_EQ(t.exclusions.size(), 2 * pairs.size()) << "each pair once in each of its two rows";
  return pairs;
}

/// The pairs at most n apart on the chain 0..5, on the ring 6..11, and OTHER's 12..15.
PairSet expected(int n) {
  PairSet pairs;
  for (int i = 0; i < 6; ++i)
    for (int j = i + 1; j < 6; ++j) {
      if (j - i <= n) pairs.insert({i, j});
      if (std::min(j - i, 6 - (j - i)) <= n) pairs.insert({6 + i, 6 + j});
    }
  pairs.insert({12, 15});  // [ exclusions ] 1 4
  pairs.insert({14, 15});  // [ exclusions ] 4 1 3
  if (n >= 1) pairs.insert({13, 14});  // the bond; the type-2 constraint 12-13 is none
  return pairs;
}

class Nrexcl : public ::testing::TestWithParam<int> {};

TEST_P(Nrexcl, ChainRingAndExclusionLines) {
  const int n = GetParam();
  const GromacsTopology top = readTopData("exclusions.top", {"-DNREXCL=" + std::to_string(n)});
  ASSERT_EQ(top.size(), 16u);
  EXPECT_EQ(pairsOf(top.topology, 16), expected(n));
}

INSTANTIATE_TEST_SUITE_P(Depths, Nrexcl, ::testing::Values(0, 1, 2, 3));

TEST(GromacsTopologyExclusions, DefaultFromTheFileIsThree) {
  const GromacsTopology top = readTopData("exclusions.top");
  EXPECT_EQ(pairsOf(top.topology, 16), expected(3));
}

}  // namespace
}  // namespace faraday::test
