// Virtual sites from GROMACS topologies: every [ virtual_sitesN ] construction read with grompp's
// parameters, particle types V and D, the exclusions grompp makes (against the .tpr arrays of
// tests/data/gromacs), the shipped four- and five-site waters and OPC; the bad input of a site
// (built from another molecule's atoms or from itself, sites in a cycle, a site with mass, a
// construction that is not supported), one line naming the file and line, through the reader
// and through `faraday run` (non-zero exit, nothing written).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/Units.h"
#include "engine/formats/gromacs/GromacsTopology.h"
#include "integrators/Integrator.h"
#include "tests/EngineTestSupport.h"
#include "tests/GromacsReference.h"
#include "tests/Tolerances.h"
#include "tests/TopologyTestSupport.h"

namespace faraday::test {
namespace {

fs::path referenceFolder(const std::string& system) { return fs::path(sourceDir()) / "tests/data/gromacs" / system; }

GromacsTopology readReference(const std::string& system) {
  return readGromacsTopology(referenceFolder(system) / "topol.top", {});
}

/// The excluded pairs (i < j) of a topology.
std::set<std::pair<int, int>> excludedPairs(const Topology& t) {
  std::set<std::pair<int, int>> pairs;
  for (std::size_t p = 0; p + 1 < t.exclusionOffsets.size(); ++p)
    for (int k = t.exclusionOffsets[p]; k < t.exclusionOffsets[p + 1]; ++k)
      if (int(p) < t.exclusions[std::size_t(k)]) pairs.emplace(int(p), t.exclusions[std::size_t(k)]);
  return pairs;
}

/// The particles, charges, masses and excluded pairs against grompp's (the reference's tpr/).
void expectAsGrompp(const std::string& system) {
  const GromacsTopology top = readReference(system);
  const fs::path tpr = referenceFolder(system) / "tpr";
  const std::vector<double> charge = gromacs_reference_detail::npyDoubles(tpr / "charge.npy");
  const std::vector<double> mass = gromacs_reference_detail::npyDoubles(tpr / "mass.npy");
  ASSERT_EQ(charge.size(), top.size()) << system;
  ASSERT_EQ(mass.size(), top.size()) << system;
  for (std::size_t i = 0; i < top.size(); ++i) {
    EXPECT_NEAR(top.charge[i], charge[i], tol::kTprDumpRelative * std::fabs(charge[i])) << system << " particle " << i;
    EXPECT_NEAR(top.mass[i], mass[i], tol::kTprDumpRelative * mass[i]) << system << " particle " << i;
  }
  const std::vector<int> flat = gromacs_reference_detail::npyValues<int>(tpr / "excluded_pairs.npy");
  std::set<std::pair<int, int>> grompp;
  for (std::size_t k = 0; k + 1 < flat.size(); k += 2) grompp.emplace(flat[k], flat[k + 1]);
  EXPECT_EQ(excludedPairs(top.topology), grompp) << system << ": exclusions differ from grompp's";
}

TEST(GromacsTopologyVirtualSites, EveryConstructionReadsAsGromppReadsIt) {
  const GromacsTopology top = readReference("vsite_types");
  const VirtualSites& v = top.topology.virtualSites;
  ASSERT_EQ(top.size(), 720u);
  ASSERT_EQ(v.size(), 480u);  // 12 sites in each of 40 molecules
  // Level 1: the type-3 site built from the type-2 site; everything else from atoms.
  ASSERT_EQ(v.levels, (std::vector<int>{0, 440, 480}));
  for (int k = 440; k < 480; ++k) EXPECT_EQ(v.sites[std::size_t(k)].site % 18, 17);
  const auto site = [&](int particle) {
    for (const VirtualSite& s : v.sites)
      if (s.site == particle) return s;
    ADD_FAILURE() << "no site " << particle;
    return VirtualSite{};
  };
  const auto atoms = [&](const VirtualSite& s) {
    return std::vector<int>(v.atoms.begin() + s.first, v.atoms.begin() + s.first + s.count);
  };
  // The first molecule, 0-based: atoms 0..5, sites 6..17 (tools/gromacs_reference.py VST_TOP).
  EXPECT_EQ(site(6).type, VirtualSiteType::One);
  EXPECT_EQ(atoms(site(6)), (std::vector<int>{4}));
  EXPECT_EQ(site(7).type, VirtualSiteType::Two);
  EXPECT_EQ(site(7).p[0], 0.3);
  EXPECT_EQ(site(8).type, VirtualSiteType::TwoFD);
  EXPECT_EQ(site(8).p[0], 0.05);
  EXPECT_EQ(site(9).type, VirtualSiteType::Three);
  EXPECT_EQ(site(10).type, VirtualSiteType::ThreeFD);
  EXPECT_EQ(site(11).type, VirtualSiteType::ThreeFAD);  // theta 110 deg, d 0.05 nm
  EXPECT_NEAR(site(11).p[0], 0.05 * std::cos(110 * units::kPi / 180), 1e-15);
  EXPECT_NEAR(site(11).p[1], 0.05 * std::sin(110 * units::kPi / 180), 1e-15);
  EXPECT_EQ(site(12).type, VirtualSiteType::ThreeOut);
  EXPECT_EQ(site(12).p[2], 2.0);
  EXPECT_EQ(site(13).type, VirtualSiteType::FourFDN);
  EXPECT_EQ(atoms(site(13)), (std::vector<int>{1, 0, 2, 4}));
  EXPECT_EQ(site(17).type, VirtualSiteType::Three);
  EXPECT_EQ(atoms(site(17)), (std::vector<int>{7, 3, 5}));
  // COG, COM (the atoms' masses) and COW (the line's weights), normalised.
  const VirtualSite cog = site(14), com = site(15), cow = site(16);
  for (int q = 0; q < 4; ++q) EXPECT_DOUBLE_EQ(v.weights[std::size_t(cog.first + q)], 0.25);
  const double m[4] = {12.011, 14.007, 12.011, 12.011}, total = m[0] + m[1] + m[2] + m[3];
  for (int q = 0; q < 4; ++q) EXPECT_DOUBLE_EQ(v.weights[std::size_t(com.first + q)], m[q] / total);
  const double w[3] = {0.5, 1.0, 2.0};
  for (int q = 0; q < 3; ++q) EXPECT_DOUBLE_EQ(v.weights[std::size_t(cow.first + q)], w[q] / 3.5);
  // Every site is massless; atom types of particle types V, D and A (mass 0) all make sites.
  for (const VirtualSite& s : v.sites) EXPECT_EQ(top.mass[std::size_t(s.site)], 0.0);
  expectAsGrompp("vsite_types");
}

TEST(GromacsTopologyVirtualSites, TheShippedSiteWatersAndOpc) {
  struct Water {
    const char* system;
    int perMolecule;
    VirtualSiteType type;
    double a;  ///< the first parameter of the first site
  };
  for (const Water w : {Water{"tip4pew_water", 4, VirtualSiteType::Three, 0.106676721},
                        Water{"tip4p_oplsaa", 4, VirtualSiteType::Three, 0.128012065},
                        Water{"tip5p_oplsaa", 5, VirtualSiteType::ThreeOut, -0.344908},
                        Water{"opc_water", 4, VirtualSiteType::Three, 0.147729520}}) {
    const GromacsTopology top = readReference(w.system);
    const Topology& t = top.topology;
    const std::size_t waters = top.size() / std::size_t(w.perMolecule);
    ASSERT_EQ(t.settles.size(), waters) << w.system;
    ASSERT_EQ(t.virtualSites.size(), waters * std::size_t(w.perMolecule - 3)) << w.system;
    const VirtualSite& first = t.virtualSites.sites[0];
    EXPECT_EQ(first.type, w.type) << w.system;
    EXPECT_EQ(first.site, 3) << w.system;
    EXPECT_EQ(first.p[0], w.a) << w.system;
    // The sites carry the negative charge; the water is neutral; the site is no hydrogen.
    double q = 0;
    for (int k = 0; k < w.perMolecule; ++k) q += top.charge[std::size_t(k)];
    EXPECT_NEAR(q, 0.0, 1e-12) << w.system;
    EXPECT_LT(top.charge[3], 0.0) << w.system;
    // Rigid: 6 degrees of freedom a water, the sites none.
    System s;
    s.type = top.type, s.mass = top.mass, s.charge = top.charge, s.topology = t;
    EXPECT_EQ(degreesOfFreedom(s, IntegratorType::Langevin), 6.0 * double(waters)) << w.system;
    EXPECT_FALSE(isHydrogen(s, 3)) << w.system;
    expectAsGrompp(w.system);
  }
}

TEST(GromacsTopologyVirtualSites, OpcIsWhatIzadiEtAlPublished) {
  // systems/water/opc.itp against the paper's geometry (Izadi, Anandakrishnan & Onufriev 2014).
  const GromacsTopology top = readReference("opc_water");
  const Settle& s = top.topology.settles[0];
  EXPECT_EQ(s.dOH, 0.08724);
  const double theta = 103.6 * units::kPi / 180;
  EXPECT_NEAR(s.dHH, 2 * 0.08724 * std::sin(theta / 2), 1e-9);
  // O-M: 2 a d_OH cos(theta / 2) = 0.1594 A.
  EXPECT_NEAR(2 * top.topology.virtualSites.sites[0].p[0] * 0.08724 * std::cos(theta / 2), 0.01594, 1e-9);
  EXPECT_EQ(top.charge[1], 0.6791);
  EXPECT_EQ(top.charge[3], -1.3582);
  const AtomType& o = top.types[std::size_t(top.type[0])];
  EXPECT_EQ(o.sigma, 0.316655);
  EXPECT_EQ(o.epsilon, 0.89036);
}

/// kSmallForceField with a site type of each particle type, a molecule MOL of atoms A A B B and
/// site S (particle 5), `body` inside it.
std::string withSite(const std::string& body, const std::string& siteMass = "0.0", const std::string& type = "V") {
  return std::string(kSmallForceField) +
         "[ atomtypes ]\nV 0 0.0 0.0 V 0.0 0.0\nD 0 0.0 0.0 D 0.0 0.0\nZ 0 0.0 0.0 A 0.0 0.0\n"
         "[ moleculetype ]\nMOL 3\n[ atoms ]\n"
         "1 A 1 R A1 1 0.0\n2 A 1 R A2 1 0.0\n3 B 1 R B3 1 0.0\n4 B 1 R B4 1 0.0\n5 " + type +
         " 1 R S5 1 0.0 " + siteMass + "\n" + body + "[ system ]\nS\n[ molecules ]\nMOL 2\n";
}

TEST(GromacsTopologyVirtualSites, ParticleTypesVDAndMasslessAMakeSites) {
  TempDir dir;
  for (const char* type : {"V", "D", "Z"}) {
    writeText(dir / "t.top", withSite("[ virtual_sites2 ]\n5 1 2 1 0.5\n", "0.0", type));
    const GromacsTopology top = readGromacsTopology(dir / "t.top", {});
    ASSERT_EQ(top.topology.virtualSites.size(), 2u) << type;
    EXPECT_EQ(top.topology.virtualSites.sites[1].site, 9) << type;  // the second copy's
    EXPECT_EQ(top.topology.virtualSites.atoms[2], 5) << type;
  }
  // The old directive names read alike; a site gets no exclusions but those listed.
  writeText(dir / "u.top", withSite("[ dummies3 ]\n5 1 2 3 1 0.2 0.3\n[ exclusions ]\n5 1\n"));
  const GromacsTopology top = readGromacsTopology(dir / "u.top", {});
  ASSERT_EQ(top.topology.virtualSites.size(), 2u);
  EXPECT_EQ(excludedPairs(top.topology), (std::set<std::pair<int, int>>{{0, 4}, {5, 9}}));
}

TEST(GromacsTopologyVirtualSites, BadSitesNameTheirLine) {
  // Built from atoms of another molecule (beyond its own), or from itself.
  expectErrorAt(withSite("[ virtual_sites3 ]\n5 1 2 7 1 0.2 0.3 ; HERE\n"),
                "atom index 7 in [ virtual_sites3 ] is beyond the 5 atoms of molecule type MOL: a virtual site is "
                "built from atoms of its own molecule");
  expectErrorAt(withSite("[ virtual_sites2 ]\n5 5 2 1 0.5 ; HERE\n"), "virtual site 5 is built from itself");
  expectErrorAt(withSite("[ virtual_sitesn ]\n5 1 1 2 5 ; HERE\n"), "virtual site 5 is built from itself");
  // Sites built from each other in a cycle.
  const std::string cycle = std::string(kSmallForceField) +
                            "[ atomtypes ]\nV 0 0.0 0.0 V 0.0 0.0\n[ moleculetype ]\nMOL 3\n[ atoms ]\n"
                            "1 A 1 R A1 1 0.0\n2 A 1 R A2 1 0.0\n3 V 1 R S3 1 0.0 0\n4 V 1 R S4 1 0.0 0\n"
                            "[ virtual_sites2 ]\n3 4 1 1 0.5\n4 3 2 1 0.5 ; HERE\n[ system ]\nS\n[ molecules ]\nMOL 1\n";
  expectErrorAt(cycle, "virtual sites built from each other in a cycle (3 -> 4 -> 3)");
  // A site with mass, a V particle that nothing builds, a site built twice.
  expectErrorAt(withSite("[ virtual_sites2 ]\n5 1 2 1 0.5 ; HERE\n", "1.0"), "has mass 1 amu");
  expectErrorAt(withSite("[ virtual_sites2 ]\n5 1 2 1 0.5 ; HERE\n", "2.0", "A"), "a virtual site has no mass");
  const std::string unbuilt = std::string(kSmallForceField) +
                              "[ atomtypes ]\nV 0 0.0 0.0 V 0.0 0.0\n[ moleculetype ]\nMOL 3\n[ atoms ]\n"
                              "1 A 1 R A1 1 0.0\n2 V 1 R S2 1 0.0 ; HERE\n[ system ]\nS\n[ molecules ]\nMOL 1\n";
  expectErrorAt(unbuilt, "is a virtual site (particle type V or D), but no [ virtual_sites ] line");
  expectErrorAt(withSite("[ virtual_sites2 ]\n5 1 2 1 0.5\n5 3 4 1 0.5 ; HERE\n"), "is a virtual site twice");
  // Constructions that are not supported, parameters missing or too many.
  expectErrorAt(withSite("[ virtual_sites4 ]\n5 1 2 3 4 1 0.5 0.5 0.1 ; HERE\n"),
                "[ virtual_sites4 ] function type 1 is not supported (4fd is unstable");
  expectErrorAt(withSite("[ virtual_sites3 ]\n5 1 2 3 5 0.5 0.5 ; HERE\n"), "function type 5 is not supported");
  expectErrorAt(withSite("[ virtual_sitesn ]\n5 4 1 2 ; HERE\n"), "[ virtual_sitesn ] function type 4 is not supported");
  expectErrorAt(withSite("[ virtual_sites3 ]\n5 1 2 3 1 ; HERE\n"), "grompp's parameters from the constraints");
  expectErrorAt(withSite("[ virtual_sites3 ]\n5 1 2 3 4 0.1 0.2 ; HERE\n"), "expected 3 parameters");
  expectErrorAt(withSite("[ virtual_sitesn ]\n5 3 1 0.5 2 -1 ; HERE\n"), "negative weight -1");
  // A bonded term on a site.
  expectErrorAt(withSite("[ bonds ]\n1 5 1 0.1 1000\n[ virtual_sites2 ]\n5 1 2 1 0.5 ; HERE\n"),
                "is an atom of a harmonic bond");
  // Shells remain unsupported.
  expectErrorAt(std::string(kSmallForceField) + "[ atomtypes ]\nS 0 1.0 0.0 S 0.0 0.0\n[ moleculetype ]\nX 1\n"
                "[ atoms ]\n1 S 1 R S1 1 ; HERE\n", "particle type S");
}

/// Two TIP4P-like waters through `faraday run`: each case changes the site's line or mass.
class VirtualSiteBadInput : public ::testing::Test {
 protected:
  CommandResult run(const std::string& sites, const std::string& siteMass = "0.0") {
    writeText(dir / "topol.top",
              "[ defaults ]\n1 2 no 1.0 1.0\n[ atomtypes ]\nOW 8 15.9994 0 A 0.316557 0.650629\n"
              "HW 1 1.008 0 A 0 0\nMW 0 0 0 D 0 0\n[ moleculetype ]\nSOL 2\n[ atoms ]\n"
              "1 OW 1 SOL OW 1 0\n2 HW 1 SOL HW1 1 0.52\n3 HW 1 SOL HW2 1 0.52\n4 MW 1 SOL MW 1 -1.04 " +
                  siteMass + "\n[ settles ]\n1 1 0.09572 0.15139\n" + sites +
                  "[ exclusions ]\n1 2 3 4\n2 1 3 4\n3 1 2 4\n4 1 2 3\n[ system ]\nwater\n[ molecules ]\nSOL 2\n");
    std::string g = "two waters\n8\n";
    const double xyz[4][3] = {{1.0, 1.0, 1.0}, {1.0757, 1.0586, 1.0}, {0.9243, 1.0586, 1.0}, {1.0, 1.0, 1.0}};
    char line[128];
    for (int w = 0; w < 2; ++w)
      for (int k = 0; k < 4; ++k) {
        static const char* names[4] = {"OW", "HW1", "HW2", "MW"};
        std::snprintf(line, sizeof line, "%5d%-5s%5s%5d%8.3f%8.3f%8.3f\n", w + 1, "SOL", names[k], 4 * w + k + 1,
                      xyz[k][0] + 0.5 * w, xyz[k][1], xyz[k][2]);
        g += line;
      }
    writeText(dir / "conf.gro", g + "   3.00000   3.00000   3.00000\n");
    return runTopologySteps(dir.path());
  }
  void expectRefused(const CommandResult& r, const std::string& where, const std::string& what) {
    expectRefusedRun(r, dir.path(), where, what);
  }
  TempDir dir;
};

const char* kTip4pSite = "[ virtual_sites3 ]\n4 1 2 3 1 0.128012065 0.128012065\n";

TEST_F(VirtualSiteBadInput, TheWatersRun) {
  const CommandResult r = run(kTip4pSite);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "out" / "energy.csv"));
}

TEST_F(VirtualSiteBadInput, EachBadSiteStopsTheRunAtItsLine) {
  // The site's line is line 17 of the topology.
  expectRefused(run("[ virtual_sites3 ]\n4 1 2 5 1 0.1 0.1\n"), "topol.top:17:", "beyond the 4 atoms");
  expectRefused(run("[ virtual_sites3 ]\n4 1 2 4 1 0.1 0.1\n"), "topol.top:17:", "built from itself");
  expectRefused(run(kTip4pSite, "1.0"), "topol.top:17:", "has mass 1 amu");
  expectRefused(run("[ virtual_sites4 ]\n4 1 2 3 1 1 0.5 0.5 0.1\n"), "topol.top:17:", "not supported");
}

}  // namespace
}  // namespace faraday::test
