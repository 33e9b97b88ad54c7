// GROMACS topology types: [ defaults ], the combination rules, [ nonbond_params ], 1-4 pairs
// generated with fudgeLJ/fudgeQQ or from [ pairtypes ], and the [ atomtypes ] column layouts,
// each against values computed by hand from the fixtures' numbers.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/Tolerances.h"
#include "tests/TopologyTestSupport.h"

namespace faraday::test {
namespace {

void expectClose(double actual, double expected, const std::string& what) {
  EXPECT_NEAR(actual, expected, tol::kDoubleSum * std::fabs(expected)) << what;
}

/// c6, c12 of sigma, epsilon; a negative sigma means c6 = 0 (GROMACS' convention).
std::pair<double, double> fromSigmaEpsilon(double sigma, double epsilon) {
  const double s6 = std::pow(std::fabs(sigma), 6);
  return {sigma >= 0 ? 4 * epsilon * s6 : 0.0, 4 * epsilon * s6 * s6};
}

/// The fixture lj.top by hand: types A, B, C; rule 1 gives c6, c12, rules 2 and 3 sigma, epsilon.
struct LjCase {
  int rule;
  bool override;

  std::pair<double, double> raw(int t) const {
    if (rule == 1) return std::vector<std::pair<double, double>>{{1e-3, 1e-6}, {4e-3, 9e-6}, {0, 0}}[std::size_t(t)];
    return std::vector<std::pair<double, double>>{{0.3, 0.5}, {0.4, 2.0}, {-0.2, 0.5}}[std::size_t(t)];
  }
  std::pair<double, double> convert(double v, double w) const { return rule == 1 ? std::pair{v, w} : fromSigmaEpsilon(v, w); }
  /// The pair after the combination rule or [ nonbond_params ] (A-B only).
  std::pair<double, double> lj(int a, int b) const {
    if (override && std::min(a, b) == 0 && std::max(a, b) == 1) return rule == 1 ? std::pair{5e-3, 7e-6} : convert(0.5, 0.25);
    const auto [va, wa] = raw(a);
    const auto [vb, wb] = raw(b);
    if (rule == 1) return {std::sqrt(va * vb), std::sqrt(wa * wb)};
    double sigma = rule == 2 ? 0.5 * (std::fabs(va) + std::fabs(vb)) : std::sqrt(std::fabs(va * vb));
    if (va < 0 || vb < 0) sigma = -sigma;
    return convert(sigma, std::sqrt(wa * wb));
  }
};

class LjMixing : public ::testing::TestWithParam<std::tuple<int, bool>> {};

TEST_P(LjMixing, TableAndPairsMatchTheRuleByHand) {
  const LjCase c{std::get<0>(GetParam()), std::get<1>(GetParam())};
  std::vector<std::string> defines{"-DRULE" + std::to_string(c.rule)};
  if (c.override) defines.push_back("-DOVERRIDE");
  const GromacsTopology top = readTopData("lj.top", defines);
  EXPECT_EQ(top.defaults.combRule, c.rule);
  EXPECT_TRUE(top.defaults.genPairs);
  EXPECT_EQ(top.defaults.fudgeLJ, 0.5);
  EXPECT_EQ(top.defaults.fudgeQQ, 0.8);
  EXPECT_EQ(top.systemName, "LJ mixing test");
  ASSERT_EQ(top.types.size(), 3u);
  const Topology& t = top.topology;
  ASSERT_EQ(t.ljC6.size(), 9u);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      const auto [c6, c12] = c.lj(a, b);
      const std::string what = "types " + std::to_string(a) + " " + std::to_string(b);
      expectClose(t.ljC6[std::size_t(3 * a + b)], c6, "c6 " + what);
      expectClose(t.ljC12[std::size_t(3 * a + b)], c12, "c12 " + what);
    }

  ASSERT_EQ(t.pairs14.size(), 4u);
  // 1-2 generated: fudgeLJ times the pair (after [ nonbond_params ]), qq = fudgeQQ q1 q2.
  expectClose(t.pairs14[0].c6, 0.5 * c.lj(0, 1).first, "generated c6");
  expectClose(t.pairs14[0].c12, 0.5 * c.lj(0, 1).second, "generated c12");
  expectClose(t.pairs14[0].qq, 0.8 * 0.5 * -0.25, "generated qq");
  // 1-3: [ pairtypes ] C A when given (no fudge), else generated.
  const auto pair13 = c.override ? (c.rule == 1 ? std::pair{1e-4, 2e-7} : c.convert(0.25, 0.1))
                                 : std::pair{0.5 * c.lj(0, 2).first, 0.5 * c.lj(0, 2).second};
  expectClose(t.pairs14[1].c6, pair13.first, "pair 1-3 c6");
  expectClose(t.pairs14[1].c12, pair13.second, "pair 1-3 c12");
  // 2-3 type 2: qq = fudgeQQ qi qj as written; V, W by the rule.
  EXPECT_EQ(t.pairs14[2].i, 1);
  EXPECT_EQ(t.pairs14[2].j, 2);
  expectClose(t.pairs14[2].qq, 0.5 * 1.0 * -1.0, "type 2 qq");
  expectClose(t.pairs14[2].c6, c.convert(0.3, 0.4).first, "type 2 c6");
  expectClose(t.pairs14[2].c12, c.convert(0.3, 0.4).second, "type 2 c12");
  // 3-1 type 1 with V, W on the line: no fudgeLJ; qq with fudgeQQ.
  EXPECT_EQ(t.pairs14[3].i, 2);
  EXPECT_EQ(t.pairs14[3].j, 0);
  expectClose(t.pairs14[3].c6, c.convert(0.3, 0.4).first, "line c6");
  expectClose(t.pairs14[3].qq, 0.8 * -0.25 * 0.5, "line qq");
}

INSTANTIATE_TEST_SUITE_P(Rules, LjMixing,
                         ::testing::Combine(::testing::Values(1, 2, 3), ::testing::Values(false, true)));

TEST(GromacsTopologyTypes, AtomTypeSigmaEpsilonWhereMeaningful) {
  const GromacsTopology rule2 = readTopData("lj.top", {"-DRULE2"});
  EXPECT_EQ(rule2.types[0].name, "A");
  EXPECT_EQ(rule2.types[0].sigma, 0.3);
  EXPECT_EQ(rule2.types[0].epsilon, 0.5);
  EXPECT_EQ(rule2.types[2].sigma, 0.0);  // negative sigma: not a Lennard-Jones sigma
  EXPECT_EQ(rule2.types[2].epsilon, 0.0);
  const GromacsTopology rule1 = readTopData("lj.top", {"-DRULE1"});
  // sigma = (c12/c6)^(1/6), epsilon = c6^2 / (4 c12).
  expectClose(rule1.types[0].sigma, std::pow(1e-6 / 1e-3, 1.0 / 6.0), "sigma from c6, c12");
  expectClose(rule1.types[0].epsilon, 1e-6 / (4 * 1e-6), "epsilon from c6, c12");
  EXPECT_EQ(rule1.types[2].sigma, 0.0);
  EXPECT_EQ(rule1.types[0].mass, 12.0);
  EXPECT_EQ(rule1.topology.atomicNumber, (std::vector<int>{6, 8, 1}));
}

TEST(GromacsTopologyTypes, AtomTypeColumnLayoutsAndBondTypeLookup) {
  const GromacsTopology top = readTopData("atomtypes.top");
  ASSERT_EQ(top.size(), 4u);
  EXPECT_EQ(top.topology.atomicNumber, (std::vector<int>{6, 0, 11, 0}));
  // [ atoms ] charge and mass when written, else the type's.
  EXPECT_EQ(top.charge, (std::vector<double>{-0.20, 0.20, 1.0, -1.0}));
  EXPECT_EQ(top.mass, (std::vector<double>{12.5, 1.008, 22.99, 35.45}));
  EXPECT_EQ(top.types[0].charge, -0.18);  // the type keeps its own default
  EXPECT_EQ(top.types[3].name, "Cl");
  EXPECT_EQ(top.types[3].sigma, 0.44);
  EXPECT_EQ(top.types[3].epsilon, 0.4184);
  ASSERT_EQ(top.topology.bonds.size(), 2u);
  EXPECT_EQ(top.topology.bonds[0].b0, 0.109);  // opls_1 opls_2 by bond types CT HC
  EXPECT_EQ(top.topology.bonds[0].kb, 284512.0);
  EXPECT_EQ(top.topology.bonds[1].i, 3);  // written 4 3
  EXPECT_EQ(top.topology.bonds[1].b0, 0.3);  // Cl Na by name, reversed
  EXPECT_EQ(top.atomName, (std::vector<std::string>{"C1", "H1", "NA", "CL"}));
  EXPECT_EQ(top.residueNumber, (std::vector<int>{1, 1, 2, 2}));
  EXPECT_EQ(top.residueName[2], "MIX");
}

}  // namespace
}  // namespace faraday::test
