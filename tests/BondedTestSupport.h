#pragma once
// Bonded topologies built in code for the bonded tests: atoms placed from internal
// coordinates, smooth CMAP grids, and random chains that carry every bonded term.
#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/Box.h"
#include "core/Topology.h"
#include "core/Units.h"
#include "kernels/bonded/Bonded.h"
#include "tests/BackendTestSystems.h"

namespace faraday::test {

inline double degrees(double d) { return d * units::kPi / 180.0; }

/// The position of atom l from atoms i, j, k such that |l - k| = bond (nm), the angle j-k-l
/// is `angle` and the dihedral i-j-k-l is `dihedral` (rad, IUPAC).
inline Vec3 placeAtom(const Vec3& i, const Vec3& j, const Vec3& k, double bond, double angle, double dihedral) {
  const Vec3 bc = (k - j) * (1.0 / std::sqrt(norm2(k - j)));
  Vec3 n = cross(j - i, bc);
  n = n * (1.0 / std::sqrt(norm2(n)));
  const Vec3 m = cross(n, bc);
  // In the frame (bc, m, n): l - k = bond (-cos angle, sin angle cos dihedral, sin angle sin dihedral),
  // which gives the IUPAC sign (checked against dihedralGeometry's hand-made cases).
  const double x = -bond * std::cos(angle), y = bond * std::sin(angle) * std::cos(dihedral),
               z = bond * std::sin(angle) * std::sin(dihedral);
  return k + bc * x + m * y + n * z;
}

/// Five atoms starting at `origin` with bonds of 0.15 nm, angles of 110 deg and the
/// dihedrals phi (atoms 0-1-2-3) and psi (1-2-3-4), rad.
inline std::vector<Vec3> chainWithDihedrals(double phi, double psi, Vec3 origin = {1.0, 1.0, 1.0}) {
  const double b = 0.15, a = degrees(110.0);
  std::vector<Vec3> x = {origin, origin + Vec3{b, 0, 0}};
  x.push_back(x[1] + Vec3{-b * std::cos(a), b * std::sin(a), 0.0});
  x.push_back(placeAtom(x[0], x[1], x[2], b, a, phi));
  x.push_back(placeAtom(x[1], x[2], x[3], b, a, psi));
  return x;
}

/// A smooth periodic function of (phi, psi) (kJ/mol): a few Fourier modes with random
/// amplitudes (seeded), of the CHARMM maps' scale of +-20 kJ/mol.
struct CmapFunction {
  double a[3][3][2];
  explicit CmapFunction(unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (auto& p : a)
      for (auto& q : p)
        for (double& c : q) c = 4.0 * u(rng);
  }
  /// f, df/dphi, df/dpsi.
  std::array<double, 3> operator()(double phi, double psi) const {
    std::array<double, 3> r{0, 0, 0};
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q) {
        const double c = std::cos(p * phi + q * psi), s = std::sin(p * phi - q * psi);
        const double dc = -std::sin(p * phi + q * psi), ds = std::cos(p * phi - q * psi);
        r[0] += a[p][q][0] * c + a[p][q][1] * s;
        r[1] += p * (a[p][q][0] * dc + a[p][q][1] * ds);
        r[2] += q * (a[p][q][0] * dc - a[p][q][1] * ds);
      }
    return r;
  }
};

/// The n x n CMAP grid of CmapFunction(seed), phi major from -pi.
inline CmapGrid smoothCmapGrid(int n, unsigned seed) {
  const CmapFunction f(seed);
  CmapGrid g;
  g.size = n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      g.energy.push_back(f(-units::kPi + 2 * units::kPi * i / n, -units::kPi + 2 * units::kPi * j / n)[0]);
  return g;
}

/// Positions, charges, box and topology for the bonded kernels.
struct BondedSystem {
  Topology topology;
  std::vector<Vec3> positions;
  std::vector<double> charges;
  Box box = Box::rectangular(3.0, 3.2, 3.4);
};

/// CSR exclusions of every pair of atoms of a chain within `bonds` bonds of each other.
inline void excludeWithinChains(BondedSystem& s, int chains, int perChain, int bonds) {
  Topology& t = s.topology;
  t.exclusionOffsets = {0};
  for (int a = 0; a < chains * perChain; ++a) {
    const int c = a / perChain, k = a % perChain;
    for (int m = std::max(0, k - bonds); m <= std::min(perChain - 1, k + bonds); ++m)
      if (m != k) t.exclusions.push_back(c * perChain + m);
    t.exclusionOffsets.push_back(int(t.exclusions.size()));
  }
}

/// `chains` chains of `perChain` atoms (at least 6) with every bonded term: harmonic, G96,
/// Morse and cubic bonds, harmonic, G96 and Urey-Bradley angles, proper (several
/// multiplicities), RB, harmonic and periodic improper dihedrals, CMAP on two grids, 1-4 pairs,
/// position restraints and exclusions up to three bonds with charges for the exclusion correction.
/// Chains are random walks (bonds 0.14-0.16 nm, angles 100-125 deg, any dihedral) from random
/// points of the box; with `wrap`, every fifth atom and every restraint reference is wrapped
/// into the box, so that terms straddle its faces.
inline BondedSystem randomBondedSystem(int chains, int perChain, unsigned seed, bool wrap = true) {
  BondedSystem s;
  Topology& t = s.topology;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const Vec3 L = s.box.diagonal();
  t.cmapGrids = {smoothCmapGrid(24, seed + 1), smoothCmapGrid(12, seed + 2)};
  for (int c = 0; c < chains; ++c) {
    const int first = int(s.positions.size());
    const Vec3 o{u(rng) * L.x, u(rng) * L.y, u(rng) * L.z};
    std::vector<Vec3> x = {o, o + Vec3{0.15, 0, 0}, o + Vec3{0.2, 0.14, 0}};
    while (int(x.size()) < perChain) {
      const std::size_t n = x.size();
      x.push_back(placeAtom(x[n - 3], x[n - 2], x[n - 1], 0.14 + 0.02 * u(rng), degrees(100 + 25 * u(rng)),
                            degrees(360 * u(rng) - 180)));
    }
    for (int k = 0; k < perChain; ++k) {
      s.positions.push_back(wrap && k % 5 == 4 ? s.box.wrap(x[std::size_t(k)]) : x[std::size_t(k)]);
      s.charges.push_back(0.8 * u(rng) - 0.4);
    }
    for (int k = 0; k + 1 < perChain; ++k) {
      const int i = first + k;
      switch (k % 4) {
        case 0: t.bonds.push_back({i, i + 1, 0.14 + 0.02 * u(rng), 2e5 + 1e5 * u(rng)}); break;
        case 1: t.g96Bonds.push_back({i, i + 1, 0.14 + 0.02 * u(rng), 1e7 + 5e6 * u(rng)}); break;
        case 2: t.morseBonds.push_back({i, i + 1, 0.15, 400.0 + 50 * u(rng), 20.0 + 5 * u(rng)}); break;
        default: t.cubicBonds.push_back({i, i + 1, 0.14 + 0.02 * u(rng), 2e5 + 1e5 * u(rng), -16.5 - 5 * u(rng)}); break;
      }
    }
    for (int k = 0; k + 2 < perChain; ++k) {
      const int i = first + k;
      if (k % 3 == 1) t.ureyBradleys.push_back({i, i + 1, i + 2, degrees(105 + 10 * u(rng)), 300 + 100 * u(rng), 0.24, 2e4});
      else if (k % 3 == 2) t.g96Angles.push_back({i, i + 1, i + 2, degrees(105 + 10 * u(rng)), 400 + 200 * u(rng)});
      else t.angles.push_back({i, i + 1, i + 2, degrees(105 + 10 * u(rng)), 300 + 100 * u(rng)});
    }
    for (int k = 0; k + 3 < perChain; ++k) {
      const int i = first + k;
      for (int n = 1; n <= 3; ++n) t.properDihedrals.push_back({i, i + 1, i + 2, i + 3, degrees(60.0 * n * u(rng)), 2 + 3 * u(rng), n});
      t.rbDihedrals.push_back({i, i + 1, i + 2, i + 3, {9.3, 12.2, -13.1, -3.1, 26.2, -31.5}});
      t.impropers.push_back({i + 1, i, i + 2, i + 3, degrees(360 * u(rng) - 180), 40 + 20 * u(rng)});
      t.periodicImpropers.push_back({i, i + 2, i + 1, i + 3, degrees(180.0), 4 + u(rng), 2});
      t.pairs14.push_back({i, i + 3, 1e-3 * (1 + u(rng)), 1e-6 * (1 + u(rng)), 0.5 * s.charges[std::size_t(i)] * s.charges[std::size_t(i + 3)]});
    }
    for (int k = 0; k + 4 < perChain; k += 2) {
      const int i = first + k;
      t.cmaps.push_back({i, i + 1, i + 2, i + 3, i + 4, (k / 2) % 2});
    }
    for (int k = 0; k < perChain; k += 3) {
      const int i = first + k;
      const Vec3 ref = s.positions[std::size_t(i)] + Vec3{0.1 * u(rng) - 0.05, 0.1 * u(rng) - 0.05, 0.1 * u(rng) - 0.05};
      t.positionRestraints.push_back({i, wrap ? s.box.wrap(ref) : ref, Vec3{1000, 1500 + 500 * u(rng), 2000}});
    }
  }
  excludeWithinChains(s, chains, perChain, 3);
  return s;
}

/// The bonded forces of `platform` ("cpu" or "cuda") for a system.
inline std::unique_ptr<BondedForces> makeBonded(const std::string& platform, const BondedSystem& s, double beta) {
  BondedParams p;
  p.ewaldBeta = beta;
  return platform == "cuda" ? makeCudaBondedOnHost(s.topology, s.charges, p) : makeCpuBonded(s.topology, s.charges, p);
}

/// Energies of `s`, its forces in `forces` (resized and cleared).
inline BondedEnergies bondedRun(BondedForces& f, const BondedSystem& s, std::vector<Vec3>& forces) {
  forces.assign(s.positions.size(), Vec3{});
  return f.compute(s.positions, s.box, forces);
}

/// s with only the terms of one kind kept (the rest cleared); `slot` names the kind.
inline BondedSystem onlyTerm(const BondedSystem& s, int slot) {
  BondedSystem o = s;
  Topology& t = o.topology;
  if (slot != kBondSlot) t.bonds.clear();
  if (slot != kG96BondSlot) t.g96Bonds.clear();
  if (slot != kMorseSlot) t.morseBonds.clear();
  if (slot != kCubicBondSlot) t.cubicBonds.clear();
  if (slot != kAngleSlot) t.angles.clear();
  if (slot != kG96AngleSlot) t.g96Angles.clear();
  if (slot != kUreyBradleySlot) t.ureyBradleys.clear();
  if (slot != kProperDihSlot) t.properDihedrals.clear();
  if (slot != kRbDihSlot) t.rbDihedrals.clear();
  if (slot != kImproperDihSlot) t.impropers.clear();
  if (slot != kPeriodicImproperDihSlot) t.periodicImpropers.clear();
  if (slot != kCmapSlot) t.cmaps.clear();
  if (slot != kLj14Slot && slot != kCoulomb14Slot) t.pairs14.clear();
  if (slot != kPositionRestraintSlot) t.positionRestraints.clear();
  if (slot != kExclusionCorrectionSlot) t.exclusionOffsets.clear(), t.exclusions.clear();
  return o;
}

}  // namespace faraday::test
