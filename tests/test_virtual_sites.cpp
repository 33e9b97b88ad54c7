// Virtual sites: where each construction of GROMACS 2022 puts its site (against the geometry it
// promises), the spread forces against finite differences of an energy that depends on the site
// (the chain rule: -dE/dx_q of the atoms, E a function of the site's position), the total force
// and torque they keep, the virial they add, sites built from sites, molecules split by the edge
// of a (triclinic) box; and the GPU's kernels against the CPU's double reference.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/Units.h"
#include "kernels/vsites/VirtualSiteMath.h"
#include "kernels/vsites/VirtualSites.h"
#include "tests/TestSupport.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

/// One site of `type` on atoms `atoms` with parameters `p` (weights for Weighted).
struct SiteCase {
  std::string name;
  VirtualSiteType type;
  std::vector<int> atoms;
  std::vector<double> p;
};

constexpr double kDeg = units::kPi / 180.0;

/// The constructions on the six atoms of molecule(): the parameters of tools/gromacs_reference.py's VST.
std::vector<SiteCase> siteCases() {
  const double theta = 110 * kDeg, d = 0.05;
  return {{"1", VirtualSiteType::One, {4}, {}},
          {"2", VirtualSiteType::Two, {0, 1}, {0.3}},
          {"2fd", VirtualSiteType::TwoFD, {1, 2}, {0.05}},
          {"3", VirtualSiteType::Three, {0, 1, 2}, {0.2, 0.3}},
          {"3fd", VirtualSiteType::ThreeFD, {2, 3, 4}, {0.4, 0.06}},
          {"3fad", VirtualSiteType::ThreeFAD, {3, 4, 5}, {d * std::cos(theta), d * std::sin(theta)}},
          {"3out", VirtualSiteType::ThreeOut, {0, 3, 5}, {0.2, 0.3, 2.0}},
          {"4fdn", VirtualSiteType::FourFDN, {1, 0, 2, 4}, {0.8, 0.7, 0.04}},
          {"cog", VirtualSiteType::Weighted, {0, 1, 2, 3}, {0.25, 0.25, 0.25, 0.25}},
          {"cow", VirtualSiteType::Weighted, {0, 4, 5}, {0.5 / 3.5, 1.0 / 3.5, 2.0 / 3.5}}};
}

/// Six atoms near (4, 4, 4) nm, in no special position (no three on a line, no four in a plane).
std::vector<Vec3> molecule() {
  return {{4.000, 4.000, 4.000}, {4.150, 4.010, 3.990}, {4.200, 4.140, 4.020},
          {4.060, 4.200, 4.050}, {4.100, 4.050, 4.150}, {3.950, 4.080, 3.900}};
}

/// The sites of `cases`, particles 6, 7, ... after the atoms of molecule(), in level order.
VirtualSites sitesOf(const std::vector<SiteCase>& cases) {
  VirtualSites v;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    VirtualSite s;
    s.site = 6 + int(k);
    s.type = cases[k].type;
    s.first = int(v.atoms.size());
    s.count = int(cases[k].atoms.size());
    for (std::size_t q = 0; q < cases[k].atoms.size(); ++q) {
      v.atoms.push_back(cases[k].atoms[q]);
      v.weights.push_back(s.type == VirtualSiteType::Weighted ? cases[k].p[q] : 0.0);
    }
    for (std::size_t q = 0; q < 3 && s.type != VirtualSiteType::Weighted && q < cases[k].p.size(); ++q)
      s.p[q] = cases[k].p[q];
    v.sites.push_back(s);
  }
  orderVirtualSites(v, 6 + cases.size());
  return v;
}

/// An energy of a site position s, smooth and with no special point near the sites: a
/// harmonic well, a field and a wave (kJ/mol, s in nm); its force -dE/ds.
double siteEnergy(Vec3 s) {
  const Vec3 c{4.05, 4.12, 4.03}, g{30, -45, 20}, q{7, 3, -5};
  return 0.5 * 400 * norm2(s - c) + dot(g, s) + 25 * std::cos(dot(q, s));
}
Vec3 siteForce(Vec3 s) {
  const Vec3 c{4.05, 4.12, 4.03}, g{30, -45, 20}, q{7, 3, -5};
  return -((s - c) * 400.0 + g - q * (25 * std::sin(dot(q, s))));
}

const Box kBigBox = Box::rectangular(10, 10, 10);

TEST(VirtualSites, EachConstructionPlacesItsSiteAsGromacsDefinesIt) {
  const std::vector<Vec3> x = molecule();
  const std::vector<SiteCase> cases = siteCases();
  std::vector<Vec3> p = x;
  p.resize(x.size() + cases.size());
  constructVirtualSites(sitesOf(cases), p, kBigBox);
  const auto site = [&](const std::string& name) {
    for (std::size_t k = 0; k < cases.size(); ++k)
      if (cases[k].name == name) return p[6 + k];
    return Vec3{};
  };
  const double tol = tol::kDoubleSum;
  // 1 on its atom; 2 and 3 the affine combinations; the weighted sites the weighted means.
  EXPECT_EQ(site("1"), x[4]);
  EXPECT_NEAR(norm2(site("2") - (x[0] * 0.7 + x[1] * 0.3)), 0.0, tol);
  EXPECT_NEAR(norm2(site("3") - (x[0] * 0.5 + x[1] * 0.2 + x[2] * 0.3)), 0.0, tol);
  EXPECT_NEAR(norm2(site("cog") - (x[0] + x[1] + x[2] + x[3]) * 0.25), 0.0, tol);
  EXPECT_NEAR(norm2(site("cow") - (x[0] * 0.5 + x[4] * 1.0 + x[5] * 2.0) / 3.5), 0.0, tol);
  // 2fd: 0.05 nm from atom i towards j.
  const Vec3 d2 = site("2fd") - x[1], u12 = x[2] - x[1];
  EXPECT_NEAR(std::sqrt(norm2(d2)), 0.05, tol);
  EXPECT_NEAR(norm2(cross(d2, u12)), 0.0, tol);
  EXPECT_GT(dot(d2, u12), 0.0);
  // 3fd: 0.06 nm from i towards the point at 0.4 along j -> k.
  const Vec3 d3 = site("3fd") - x[2], r3 = (x[3] - x[2]) + (x[4] - x[3]) * 0.4;
  EXPECT_NEAR(std::sqrt(norm2(d3)), 0.06, tol);
  EXPECT_NEAR(norm2(cross(d3, r3)), 0.0, tol);
  // 3fad: 0.05 nm from i, at 110 degrees to i -> j, in the plane i j k, on k's side.
  const Vec3 da = site("3fad") - x[3], ij = x[4] - x[3], jk = x[5] - x[4];
  EXPECT_NEAR(std::sqrt(norm2(da)), 0.05, tol);
  EXPECT_NEAR(std::acos(dot(da, ij) / std::sqrt(norm2(da) * norm2(ij))), 110 * kDeg, 1e-10);
  EXPECT_NEAR(dot(da, cross(ij, jk)), 0.0, tol);
  EXPECT_GT(dot(da, jk - ij * (dot(ij, jk) / norm2(ij))), 0.0);
  // 3out: the formula on x_ij, x_ik and their cross product.
  const Vec3 oij = x[3] - x[0], oik = x[5] - x[0];
  EXPECT_NEAR(norm2(site("3out") - (x[0] + oij * 0.2 + oik * 0.3 + cross(oij, oik) * 2.0)), 0.0, tol);
  // 4fdn: 0.04 nm from i along the normal of the plane through j, i + a x_ik, i + b x_il.
  const Vec3 d4 = site("4fdn") - x[1];
  const Vec3 rja = (x[2] - x[1]) * 0.8 - (x[0] - x[1]), rjb = (x[4] - x[1]) * 0.7 - (x[0] - x[1]);
  EXPECT_NEAR(std::sqrt(norm2(d4)), 0.04, tol);
  EXPECT_NEAR(dot(d4, rja), 0.0, tol);
  EXPECT_NEAR(dot(d4, rjb), 0.0, tol);
  EXPECT_GT(dot(d4, cross(rja, rjb)), 0.0);
}

/// Total energy of the sites of `v` at positions x (atoms), every site feeling siteEnergy.
double totalSiteEnergy(const VirtualSites& v, std::vector<Vec3> x) {
  constructVirtualSites(v, x, kBigBox);
  double e = 0;
  for (const VirtualSite& s : v.sites) e += siteEnergy(x[std::size_t(s.site)]);
  return e;
}

/// The spread forces of `v` (each site feeling siteForce) against central differences of the
/// energy over the atoms' coordinates; the sums of force and torque against the sites'.
void expectChainRule(const VirtualSites& v, std::size_t atoms, const std::string& what) {
  std::vector<Vec3> x = molecule();
  x.resize(atoms);
  std::vector<Vec3> p = x;
  constructVirtualSites(v, p, kBigBox);
  std::vector<Vec3> f(p.size());
  Vec3 siteTotal{}, siteTorque{};
  for (const VirtualSite& s : v.sites) {
    f[std::size_t(s.site)] = siteForce(p[std::size_t(s.site)]);
    siteTotal += f[std::size_t(s.site)];
    siteTorque += cross(p[std::size_t(s.site)], f[std::size_t(s.site)]);
  }
  const Tensor3 w = spreadVirtualSiteForces(v, p, f, kBigBox);
  Vec3 total{}, torque{};
  double scale = 1;
  for (std::size_t a = 0; a < p.size(); ++a) {
    total += f[a], torque += cross(p[a], f[a]);
    scale = std::fmax(scale, std::sqrt(norm2(f[a])));
  }
  for (const VirtualSite& s : v.sites) EXPECT_EQ(f[std::size_t(s.site)], Vec3{}) << what << ": site force left";
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(total[c], siteTotal[c], tol::kDoubleSum * scale) << what << ": total force";
    EXPECT_NEAR(torque[c], siteTorque[c], tol::kDoubleSum * scale * 10) << what << ": torque about the origin";
  }
  // The virial the spread forces add: sum_atoms x (x) f - sum_sites x_s (x) F_s (full tensor).
  double expected[3][3] = {};
  for (std::size_t a = 0; a < p.size(); ++a)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) expected[r][c] += p[a][r] * f[a][c];
  for (const VirtualSite& s : v.sites) {
    const Vec3 F = siteForce(p[std::size_t(s.site)]);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) expected[r][c] -= p[std::size_t(s.site)][r] * F[c];
  }
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(w.m[r][c], expected[r][c], tol::kDoubleSum * scale * 10) << what << ": virial " << r << c;
  // -dE/dx of every atom coordinate.
  const double h = tol::kVirtualSiteFiniteDifferenceStep;
  for (std::size_t a = 0; a < atoms; ++a) {
    bool isSite = false;
    for (const VirtualSite& s : v.sites) isSite = isSite || std::size_t(s.site) == a;
    if (isSite) continue;
    for (int c = 0; c < 3; ++c) {
      std::vector<Vec3> up = x, down = x;
      up[a][c] += h, down[a][c] -= h;
      const double numeric = -(totalSiteEnergy(v, up) - totalSiteEnergy(v, down)) / (2 * h);
      EXPECT_NEAR(f[a][c], numeric, tol::kVirtualSiteFiniteDifferenceForce * std::fmax(1.0, std::fabs(numeric)))
          << what << ": atom " << a << " component " << c;
    }
  }
}

TEST(VirtualSites, SpreadForcesAreMinusTheGradientAndKeepForceTorqueAndVirial) {
  for (const SiteCase& c : siteCases()) expectChainRule(sitesOf({c}), 7, c.name);
  expectChainRule(sitesOf(siteCases()), 6 + siteCases().size(), "all at once");
}

TEST(VirtualSites, ASiteBuiltFromSitesIsBuiltAfterThemAndPassesItsForceOn) {
  // Site 8 (3out on site 7, atom 2 and site 6) on site 7 (3fd), on site 6 (2): listed backwards.
  VirtualSites v;
  v.sites = {{8, VirtualSiteType::ThreeOut, 0, 3, {0.3, 0.2, 1.5}},
             {7, VirtualSiteType::ThreeFD, 3, 3, {0.4, 0.05, 0}},
             {6, VirtualSiteType::Two, 6, 2, {0.35, 0, 0}}};
  v.atoms = {7, 2, 6, 6, 3, 5, 0, 1};
  v.weights.assign(v.atoms.size(), 0.0);
  orderVirtualSites(v, 9);
  ASSERT_EQ(v.levels, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(v.sites[0].site, 6);
  EXPECT_EQ(v.sites[2].site, 8);
  expectChainRule(v, 9, "chain of three levels");
}

TEST(VirtualSites, OrderingRefusesCyclesAndSitesBuiltFromThemselves) {
  VirtualSites cycle;
  cycle.sites = {{6, VirtualSiteType::Two, 0, 2, {0.5, 0, 0}}, {7, VirtualSiteType::Two, 2, 2, {0.5, 0, 0}}};
  cycle.atoms = {7, 0, 6, 1};
  cycle.weights.assign(4, 0.0);
  EXPECT_NE(errorOf([&] { orderVirtualSites(cycle, 8); }).find("cycle"), std::string::npos);
  VirtualSites self;
  self.sites = {{6, VirtualSiteType::Two, 0, 2, {0.5, 0, 0}}};
  self.atoms = {6, 0};
  self.weights.assign(2, 0.0);
  EXPECT_NE(errorOf([&] { orderVirtualSites(self, 7); }).find("itself"), std::string::npos);
}

TEST(VirtualSites, AMoleculeSplitByTheEdgeOfATriclinicBoxBuildsItsSitesWhole) {
  // The molecule near a corner of a skewed cell, every atom wrapped into the cell on its own: the
  // sites are those of the whole molecule, next to their first atom.
  const Box box = *Box::reduce({4.1, 0, 0}, {1.3, 3.9, 0}, {-1.2, 1.5, 3.8});
  std::vector<Vec3> whole = molecule();
  for (Vec3& a : whole) a -= Vec3{4.05, 4.1, 4.0};  // around the origin: split over every face
  const std::vector<SiteCase> cases = siteCases();
  const VirtualSites v = sitesOf(cases);
  whole.resize(6 + cases.size());
  std::vector<Vec3> split = whole;
  for (int a = 0; a < 6; ++a) split[std::size_t(a)] = box.wrap(whole[std::size_t(a)]);
  constructVirtualSites(v, whole, kBigBox);
  constructVirtualSites(v, split, box);
  for (const VirtualSite& s : v.sites) {
    const std::size_t k = std::size_t(s.site), i = std::size_t(v.atoms[std::size_t(s.first)]);
    EXPECT_NEAR(std::sqrt(norm2((split[k] - split[i]) - (whole[k] - whole[i]))), 0.0, tol::kDoubleSum * 10);
  }
  // The spread forces and the virial are those of the whole molecule too.
  std::vector<Vec3> fWhole(whole.size()), fSplit(split.size());
  for (const VirtualSite& s : v.sites)
    fWhole[std::size_t(s.site)] = fSplit[std::size_t(s.site)] = siteForce(whole[std::size_t(s.site)] + Vec3{4, 4, 4});
  const Tensor3 wWhole = spreadVirtualSiteForces(v, whole, fWhole, kBigBox);
  const Tensor3 wSplit = spreadVirtualSiteForces(v, split, fSplit, box);
  for (std::size_t a = 0; a < whole.size(); ++a)
    EXPECT_NEAR(std::sqrt(norm2(fWhole[a] - fSplit[a])), 0.0, tol::kDoubleSum * 1e3) << a;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(wWhole.m[r][c], wSplit.m[r][c], tol::kDoubleSum * 1e3);
}

TEST(VirtualSites, OnlyTheNonLinearConstructionsChangeTheVirial) {
  for (const SiteCase& c : siteCases()) {
    const VirtualSites v = sitesOf({c});
    std::vector<Vec3> p = molecule();
    p.resize(7);
    constructVirtualSites(v, p, kBigBox);
    std::vector<Vec3> f(7);
    f[6] = siteForce(p[6]);
    const Tensor3 w = spreadVirtualSiteForces(v, p, f, kBigBox);
    double norm = 0;
    for (int r = 0; r < 3; ++r)
      for (int k = 0; k < 3; ++k) norm += w.m[r][k] * w.m[r][k];
    if (vsite::isNonLinear(c.type)) EXPECT_GT(std::sqrt(norm), 1e-3) << c.name;
    else EXPECT_EQ(norm, 0.0) << c.name;
  }
}

// ---- The GPU's kernels against the CPU's -------------------------------------------------

TEST(VirtualSitesGpu, ConstructionAndSpreadingMatchTheCpu) {
  FARADAY_REQUIRE_GPU();
  const Box box = *Box::reduce({4.1, 0, 0}, {1.3, 3.9, 0}, {-1.2, 1.5, 3.8});
  const std::vector<SiteCase> cases = siteCases();
  // Forty copies of the molecule around the cell, wrapped atom by atom, with a site of every type.
  VirtualSites v;
  std::vector<Vec3> x;
  const std::size_t per = 6 + cases.size();
  for (int m = 0; m < 40; ++m) {
    const VirtualSites one = sitesOf(cases);
    const Vec3 shift{0.37 * m, 0.53 * (m % 7), 0.29 * (m % 11)};
    for (int a = 0; a < 6; ++a) x.push_back(box.wrap(molecule()[std::size_t(a)] + shift));
    x.resize(x.size() + cases.size());
    for (VirtualSite s : one.sites) {
      const int first = s.first;
      s.site += int(per) * m;
      s.first = int(v.atoms.size());
      for (int q = 0; q < s.count; ++q) {
        v.atoms.push_back(one.atoms[std::size_t(first + q)] + int(per) * m);
        v.weights.push_back(one.weights[std::size_t(first + q)]);
      }
      v.sites.push_back(s);
    }
  }
  orderVirtualSites(v, x.size());
  std::vector<Vec3> cpu = x, gpu = x;
  constructVirtualSites(v, cpu, box);
  cudaConstructVirtualSites(v, gpu, box);
  for (std::size_t a = 0; a < x.size(); ++a)
    EXPECT_NEAR(std::sqrt(norm2(gpu[a] - cpu[a])), 0.0, tol::kGpuVirtualSitePositionNm) << a;
  std::vector<Vec3> fCpu(x.size()), fGpu(x.size());
  for (const VirtualSite& s : v.sites) fCpu[std::size_t(s.site)] = fGpu[std::size_t(s.site)] = siteForce(cpu[std::size_t(s.site)]);
  const Tensor3 wCpu = spreadVirtualSiteForces(v, cpu, fCpu, box);
  const Tensor3 wGpu = cudaSpreadVirtualSiteForces(v, cpu, fGpu, box);
  for (std::size_t a = 0; a < x.size(); ++a)
    EXPECT_NEAR(std::sqrt(norm2(fGpu[a] - fCpu[a])), 0.0, tol::kGpuVirtualSiteForce) << a;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(wGpu.m[r][c], wCpu.m[r][c], tol::kGpuVirtualSiteVirial) << r << c;
}

}  // namespace
}  // namespace faraday::test
