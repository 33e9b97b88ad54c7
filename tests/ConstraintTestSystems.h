#pragma once
// Molecular liquids built in code for the constraint tests: rigid three-site waters (SETTLE),
// diatomics (one constraint), methyl-like stars (a centre and three arms), chains and rigid
// triangles of heavy atoms (general clusters), every molecule's pairs excluded, LJ only.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "engine/config/Config.h"
#include "engine/setup/ConstraintSetup.h"
#include "engine/setup/FccLattice.h"
#include "integrators/InitialVelocities.h"
#include "tests/BackendTestSystems.h"

namespace faraday::test {

/// How many molecules of each kind, one per cell of a cubic lattice.
struct MoleculeMix {
  int waters = 0, dimers = 0, methyls = 0, chains = 0, triangles = 0;
  int total() const { return waters + dimers + methyls + chains + triangles; }
};

/// SPC/E-like rigid water: d(O-H) 0.1 nm, H-O-H 109.47 deg.
inline constexpr double kWaterOH = 0.1, kWaterHH = 0.16330;

namespace detail {

/// A random rotation matrix (rows) from a random unit quaternion.
inline void randomRotation(std::mt19937_64& rng, double m[3][3]) {
  std::normal_distribution<double> g;
  double q[4], n = 0;
  for (double& c : q) c = g(rng), n += c * c;
  n = std::sqrt(n);
  const double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
  const double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                          {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                          {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m[i][j] = r[i][j];
}

inline int typeIndex(System& s, const AtomType& t) {
  for (std::size_t k = 0; k < s.types.size(); ++k)
    if (s.types[k].name == t.name) return int(k);
  s.types.push_back(t);
  return int(s.types.size()) - 1;
}

/// Places molecules one per cell of a cubic lattice of `edge`^3 cells `cell` nm wide, each in a
/// random orientation, every fifth (from the fourth) a box length away in x (unwrapped).
class MoleculePlacer {
 public:
  MoleculePlacer(BuiltSystem& b, int edge, double cell, unsigned seed)
      : b_(b), edge_(edge), cell_(cell), L_(edge * cell), rng_(seed) {}

  /// One molecule: its atoms in the molecule's frame (nm) and its constraints (`bonds`, or
  /// one SETTLE for `water`).
  void place(const char* residue, const std::vector<std::pair<AtomType, Vec3>>& atoms,
             const std::vector<std::pair<int, int>>& bonds, bool water) {
    Topology& t = b_.system.topology;
    const int cx = placed_ % edge_, cy = (placed_ / edge_) % edge_, cz = placed_ / (edge_ * edge_);
    Vec3 centre{(cx + 0.5) * cell_, (cy + 0.5) * cell_, (cz + 0.5) * cell_};
    if (placed_ % 5 == 3) centre.x -= L_;  // an unwrapped molecule
    double r[3][3];
    randomRotation(rng_, r);
    molecules_.emplace_back();
    std::vector<int> index;
    for (const auto& [type, local] : atoms) {
      const Vec3 x{r[0][0] * local.x + r[0][1] * local.y + r[0][2] * local.z,
                   r[1][0] * local.x + r[1][1] * local.y + r[1][2] * local.z,
                   r[2][0] * local.x + r[2][1] * local.y + r[2][2] * local.z};
      index.push_back(addAtom(type, centre + x, residue));
    }
    if (water) {
      t.settles.push_back({index[0], kWaterOH, kWaterHH});
    } else {
      for (const auto& [i, j] : bonds)
        t.constraints.push_back({index[std::size_t(i)], index[std::size_t(j)],
                                 std::sqrt(norm2(b_.positions[std::size_t(index[std::size_t(i)])] -
                                                 b_.positions[std::size_t(index[std::size_t(j)])]))});
    }
    t.molecules.push_back({index[0], int(index.size()), residue});
    ++placed_;
  }

  /// Every pair within a molecule excluded (CSR, both directions, sorted).
  void excludeWithinMolecules() {
    System& s = b_.system;
    Topology& t = s.topology;
    std::vector<std::vector<int>> partners(s.size());
    for (const std::vector<int>& m : molecules_)
      for (int i : m)
        for (int j : m)
          if (i != j) partners[std::size_t(i)].push_back(j);
    t.exclusionOffsets.push_back(0);
    for (auto& p : partners) {
      std::sort(p.begin(), p.end());
      t.exclusions.insert(t.exclusions.end(), p.begin(), p.end());
      t.exclusionOffsets.push_back(int(t.exclusions.size()));
    }
  }

 private:
  int addAtom(const AtomType& type, Vec3 x, const char* residue) {
    System& s = b_.system;
    const int k = typeIndex(s, type);
    s.type.push_back(k);
    s.charge.push_back(0);
    s.mass.push_back(type.mass);
    s.atomName.push_back(type.name);
    s.residueName.push_back(residue);
    s.residueId.push_back(placed_ + 1);
    b_.positions.push_back(x);
    molecules_.back().push_back(int(s.size()) - 1);
    return int(s.size()) - 1;
  }

  BuiltSystem& b_;
  int edge_;
  double cell_, L_;
  std::mt19937_64 rng_;
  std::vector<std::vector<int>> molecules_;
  int placed_ = 0;
};

}  // namespace detail

/// The molecules of `mix` on a cubic lattice of cells `cell` nm wide (random orientations),
/// in a periodic box of (cells per edge) * cell; `lj`: false gives every type epsilon 0 (no
/// forces at all, the molecules rotate freely). Some molecules sit a box length away
/// (unwrapped coordinates).
inline BuiltSystem moleculeLiquid(const MoleculeMix& mix, double cell, unsigned seed, bool lj = true) {
  const double eps = lj ? 1.0 : 0.0;
  const AtomType ow{"OW", 15.9994, 0, 0.316557, 0.650629 * eps}, hw{"HW", 1.008, 0, 0, 0};
  const AtomType n{"N", 14.007, 0, 0.325, 0.71 * eps}, c{"C", 12.011, 0, 0.34, 0.36 * eps};
  const AtomType h{"H", 1.008, 0, 0, 0};  // no LJ (as the water hydrogens): held by its constraint alone
  BuiltSystem b;
  const int edge = int(std::ceil(std::cbrt(double(mix.total())) - 1e-9));
  const double L = edge * cell;
  b.system.box = Box::rectangular(L, L, L);
  detail::MoleculePlacer placer(b, edge, cell, seed);
  const double tet = std::acos(-1.0 / 3.0), half = 0.5 * tet;
  const double hh = std::sqrt(kWaterOH * kWaterOH - 0.25 * kWaterHH * kWaterHH);
  for (int k = 0; k < mix.waters; ++k)
    placer.place("SOL", {{ow, {0, 0, 0}}, {hw, {-0.5 * kWaterHH, -hh, 0}}, {hw, {0.5 * kWaterHH, -hh, 0}}}, {}, true);
  for (int k = 0; k < mix.dimers; ++k)
    placer.place("N2", {{n, {0, 0, -0.055}}, {n, {0, 0, 0.055}}}, {{0, 1}}, false);
  const double ch = 0.109;
  for (int k = 0; k < mix.methyls; ++k)
    placer.place(
        "MET",
        {{c, {0, 0, 0}},
         {h, {ch * std::sin(tet), 0, ch * std::cos(tet)}},
         {h, {ch * std::sin(tet) * std::cos(2.0944), ch * std::sin(tet) * std::sin(2.0944), ch * std::cos(tet)}},
         {h, {ch * std::sin(tet) * std::cos(4.1888), ch * std::sin(tet) * std::sin(4.1888), ch * std::cos(tet)}}},
        {{1, 0}, {0, 2}, {0, 3}}, false);  // one pair written (arm, centre)
  const double cc = 0.153, sx = cc * std::sin(half), sy = cc * std::cos(half);
  for (int k = 0; k < mix.chains; ++k)
    placer.place("BUT",
                 {{c, {-1.5 * sx, 0, 0}}, {c, {-0.5 * sx, sy, 0}}, {c, {0.5 * sx, 0, 0}}, {c, {1.5 * sx, sy, 0}}},
                 {{0, 1}, {1, 2}, {2, 3}}, false);
  const double tr = 0.15 / std::sqrt(3.0);
  for (int k = 0; k < mix.triangles; ++k)
    placer.place("TRI",
                 {{c, {tr, 0, 0}}, {c, {-0.5 * tr, 0.866025403784 * tr, 0}}, {c, {-0.5 * tr, -0.866025403784 * tr, 0}}},
                 {{0, 1}, {1, 2}, {2, 0}}, false);
  placer.excludeWithinMolecules();
  return b;
}

/// LJ (shifted, cutoff `cutoff`), no electrostatics, one thread; `integrator` with dt ps.
inline Config moleculeConfig(const std::string& platform, const std::string& integrator, double dt,
                             double cutoff = 0.9) {
  Config c = ljConfig(platform, cutoff, 0.1, true);
  c.integrator.type = choiceNamed<IntegratorType>(integrator);
  c.integrator.dt = dt;
  return c;
}

/// A constrained start: Maxwell-Boltzmann velocities at `temperature`, positions and velocities
/// on the constraints, the temperature exact over the constrained degrees of freedom.
inline State constrainedStart(const Config& config, const BuiltSystem& b, double temperature, unsigned seed) {
  State s = stateOf(b);
  s.velocities = maxwellBoltzmannVelocities(b.system, temperature, seed, config.integrator.type);
  constrainInitialState(config, b.system, s, temperature);
  return s;
}

/// Largest relative error |r - d| / d over every constraint and every water's three
/// distances of `x`.
inline double worstConstraintError(const System& s, const std::vector<Vec3>& x) {
  double worst = 0;
  const auto check = [&](int i, int j, double d) {
    const double r = std::sqrt(norm2(s.box.minimumImage(x[std::size_t(i)] - x[std::size_t(j)])));
    worst = std::max(worst, std::fabs(r - d) / d);
  };
  for (const Constraint& c : s.topology.constraints) check(c.i, c.j, c.length);
  for (const Settle& w : s.topology.settles) {
    check(w.oxygen, w.oxygen + 1, w.dOH);
    check(w.oxygen, w.oxygen + 2, w.dOH);
    check(w.oxygen + 1, w.oxygen + 2, w.dHH);
  }
  return worst;
}

}  // namespace faraday::test
