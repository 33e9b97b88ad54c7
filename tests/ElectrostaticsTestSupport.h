#pragma once
// Shared code of the Ewald and PME tests: ionic crystals and random ion systems, the
// real-space Ewald sum (direct double loop over pairs, minimum image, the shared
// ewaldRealPair evaluator) and the total electrostatic
// energy real + reciprocal + self + net charge, computed here independently of any backend.
#include <cmath>
#include <random>
#include <vector>

#include "core/Box.h"
#include "core/Units.h"
#include "core/Vec3.h"
#include "kernels/nonbonded/PairEvaluators.h"
#include "kernels/pme/Electrostatics.h"
#include "kernels/pme/ReciprocalSolver.h"

namespace faraday::test {

struct Ions {
  std::vector<Vec3> positions;  ///< nm
  std::vector<double> charges;  ///< e
  Box box;
};

/// Rock-salt crystal: `cells`^3 conventional cubic cells of edge a (nm), 8 ions each,
/// +1 on the fcc sites, -1 shifted by a/2 along x. Nearest-neighbour distance a/2.
inline Ions rockSalt(int cells, double a) {
  Ions s;
  s.box = Box::rectangular(cells * a, cells * a, cells * a);
  const double fcc[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  for (int i = 0; i < cells; ++i)
    for (int j = 0; j < cells; ++j)
      for (int k = 0; k < cells; ++k)
        for (const auto& f : fcc) {
          const Vec3 r{(i + f[0]) * a, (j + f[1]) * a, (k + f[2]) * a};
          s.positions.push_back(r);
          s.charges.push_back(1.0);
          s.positions.push_back(s.box.wrap(r + Vec3{0.5 * a, 0, 0}));
          s.charges.push_back(-1.0);
        }
  return s;
}

/// CsCl crystal: `cells`^3 simple cubic cells of edge a (nm), +1 at the corner, -1 at the
/// body centre. Nearest-neighbour distance a sqrt(3)/2.
inline Ions cesiumChloride(int cells, double a) {
  Ions s;
  s.box = Box::rectangular(cells * a, cells * a, cells * a);
  for (int i = 0; i < cells; ++i)
    for (int j = 0; j < cells; ++j)
      for (int k = 0; k < cells; ++k) {
        s.positions.push_back({i * a, j * a, k * a});
        s.charges.push_back(1.0);
        s.positions.push_back({(i + 0.5) * a, (j + 0.5) * a, (k + 0.5) * a});
        s.charges.push_back(-1.0);
      }
  return s;
}

/// `n` ions (alternating +1/-1, each shifted by netCharge / n) at random positions in a
/// cube of edge `edge` nm, no two closer than `minDistance` nm.
inline Ions randomIons(int n, double edge, unsigned seed, double minDistance = 0.18, double netCharge = 0) {
  Ions s;
  s.box = Box::rectangular(edge, edge, edge);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, edge);
  while (int(s.positions.size()) < n) {
    const Vec3 r{u(rng), u(rng), u(rng)};
    bool ok = true;
    for (const Vec3& p : s.positions)
      if (norm2(s.box.minimumImage(r - p)) < minDistance * minDistance) { ok = false; break; }
    if (!ok) continue;
    s.positions.push_back(r);
    s.charges.push_back(s.positions.size() % 2 ? 1.0 : -1.0);
  }
  for (double& q : s.charges) q += netCharge / n;
  return s;
}

/// Edge (nm) of a cube holding n ions at the NaCl melt density 1.55 g/cm^3
/// (31.9 ions per nm^3: 1.55e-21 g/nm^3 / (58.443 g/mol / N_A) pairs, times 2).
inline double meltEdge(int n) {
  const double ionsPerNm3 = 2.0 * 1.55e-21 * units::kAvogadro / 58.443;
  return std::cbrt(n / ionsPerNm3);
}

/// Real-space Ewald energy (kJ/mol) k_C sum_{i<j, r<rc} q_i q_j erfc(beta r)/r by a direct
/// double loop with the minimum image (rc <= half the shortest edge); adds forces and
/// the pair virial r_ij (x) F_ij. Unshifted: with the reciprocal and self terms this is the
/// Ewald sum itself, whose energy is the Madelung energy and independent of beta.
inline double realSpaceCoulomb(const Ions& s, double beta, double cutoff, std::vector<Vec3>& forces,
                               Tensor3* virial = nullptr) {
  const double rc2 = cutoff * cutoff;
  double energy = 0;
  const std::size_t n = s.positions.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (s.charges[i] == 0) continue;
    for (std::size_t j = i + 1; j < n; ++j) {
      const Vec3 d = s.box.minimumImage(s.positions[i] - s.positions[j]);
      const double r2 = norm2(d);
      if (r2 >= rc2) continue;
      const PairResult<double> p = ewaldRealPair(r2, units::kCoulomb * s.charges[i] * s.charges[j], beta, 0.0);
      energy += p.energy;
      forces[i] += d * p.fOverR;
      forces[j] -= d * p.fOverR;
      if (virial)
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) virial->m[a][b] += d[a] * d[b] * p.fOverR;
    }
  }
  return energy;
}

struct Electrostatics {
  double energy = 0;  ///< real + reciprocal + self + net charge, kJ/mol
  double recip = 0;   ///< reciprocal part alone
  std::vector<Vec3> forces;       ///< total, kJ/mol/nm
  std::vector<Vec3> recipForces;  ///< reciprocal part alone
  Tensor3 virial;                 ///< real + reciprocal
  Tensor3 recipVirial;
};

/// The total Ewald electrostatics of `s` with `solver` for the reciprocal part.
inline Electrostatics totalElectrostatics(const Ions& s, ReciprocalSolver& solver, double beta, double cutoff) {
  Electrostatics out;
  const std::size_t n = s.positions.size();
  out.forces.assign(n, Vec3{});
  out.recipForces.assign(n, Vec3{});
  const ReciprocalResult rec = solver.compute(s.positions, s.charges, s.box, out.recipForces, nullptr);
  out.recip = rec.energy;
  out.recipVirial = rec.virial;
  double q = 0;
  for (double c : s.charges) q += c;
  out.energy = realSpaceCoulomb(s, beta, cutoff, out.forces, &out.virial) + rec.energy +
               ewaldSelfEnergy(beta, s.charges) + ewaldNetChargeEnergy(beta, q, s.box.volume());
  out.virial += rec.virial;
  for (std::size_t i = 0; i < n; ++i) out.forces[i] += out.recipForces[i];
  return out;
}

/// sqrt(sum |a_i - b_i|^2 / sum |ref_i|^2).
inline double relativeRmsDifference(const std::vector<Vec3>& a, const std::vector<Vec3>& b,
                                    const std::vector<Vec3>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += norm2(a[i] - b[i]);
    den += norm2(ref[i]);
  }
  return std::sqrt(num / den);
}

/// Madelung constant per ion pair from the total electrostatic energy of a binary +-1
/// crystal with nearest-neighbour distance r0 (nm): M = -E r0 / (k_C N/2).
inline double madelungConstant(const Ions& s, ReciprocalSolver& solver, double beta, double cutoff, double r0) {
  const Electrostatics e = totalElectrostatics(s, solver, beta, cutoff);
  return -e.energy * r0 / (units::kCoulomb * double(s.positions.size() / 2));
}

/// Translates every ion by `shift` (nm) and wraps it into the box.
inline void translate(Ions& s, const Vec3& shift) {
  for (Vec3& r : s.positions) r = s.box.wrap(r + shift);
}

/// W_aa of the reciprocal energy by central differences of a strain along axis a:
/// W_aa = -dE/d(eps_aa), coordinates and box edge a scaled by (1 +- eps).
inline double strainVirial(const Ions& s, ReciprocalSolver& solver, int axis, double eps) {
  double e[2];
  for (int k = 0; k < 2; ++k) {
    Ions t = s;
    const double f = k == 0 ? 1 + eps : 1 - eps;
    for (Vec3& r : t.positions) r[axis] *= f;
    Vec3 L = s.box.diagonal();
    L[axis] *= f;
    t.box = Box::rectangular(L.x, L.y, L.z);
    std::vector<Vec3> forces(t.positions.size());
    e[k] = solver.compute(t.positions, t.charges, t.box, forces, nullptr).energy;
  }
  return -(e[0] - e[1]) / (2 * eps);
}

/// RMS of |F_i|.
inline double rms(const std::vector<Vec3>& f) {
  double s = 0;
  for (const Vec3& v : f) s += norm2(v);
  return std::sqrt(s / double(f.size()));
}

/// PME parameters for a box: grid from the spacing (nm) along each box vector rounded up to
/// an FFT-friendly size.
inline PmeParams pmeParams(double beta, int order, double spacing, const Box& box) {
  PmeParams p;
  p.beta = beta;
  p.order = order;
  const Vec3 L = box.edgeLengths();
  for (int d = 0; d < 3; ++d) p.grid[d] = nextFftSize(int(std::ceil(L[d] / spacing - 1e-9)));
  return p;
}

}  // namespace faraday::test
