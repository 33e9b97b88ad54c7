#pragma once
// One bonded term of the topology on its atoms, written once for the CPU loop and the GPU
// kernels: the term's atoms, their positions relative to the first (unwrapped by minimum
// images along the chain of atoms), and the energy and forces from the evaluators of
// BondedEvaluators.h. The loops differ only in where positions come from and forces go.
#include <type_traits>

#include "core/HostDevice.h"
#include "core/Topology.h"
#include "core/Units.h"
#include "core/Vec3.h"
#include "core/Virial.h"
#include "kernels/bonded/BondedEvaluators.h"
#include "kernels/bonded/CmapTable.h"
#include "kernels/neighbor/MinimumImage.h"

namespace faraday {

/// An excluded pair for the Ewald exclusion correction: qq = k_C q_i q_j (kJ/mol nm).
struct ExclusionPair {
  int i, j;
  double qq;
};

/// The energy slots of the bonded terms, in the order and with the names of `gmx energy`,
/// and one more: the Ewald exclusion correction, which is no term of its own in GROMACS (its
/// energy belongs to a Coulomb column).
enum BondedSlot : int {
  kBondSlot = 0,
  kG96BondSlot,
  kMorseSlot,
  kCubicBondSlot,
  kAngleSlot,
  kG96AngleSlot,
  kUreyBradleySlot,
  kProperDihSlot,
  kRbDihSlot,
  kImproperDihSlot,
  kPeriodicImproperDihSlot,
  kCmapSlot,
  kLj14Slot,
  kCoulomb14Slot,
  kPositionRestraintSlot,
  kExclusionCorrectionSlot,
  kBondedSlots
};

/// What every term may need beyond its own parameters (host or device pointers).
struct BondedView {
  CmapView cmap;
  double ewaldBeta = 0;  ///< 1/nm, for the exclusion correction
};

/// Energy (kJ/mol) and forces (kJ/mol/nm) of one term on its N atoms; `energy2` is the
/// Coulomb part of a 1-4 pair (its LJ part is `energy`), 0 for other terms.
template <int N>
struct TermForces {
  double energy = 0, energy2 = 0;
  Vec3 f[N];
};

/// Atoms per term.
template <typename Term> inline constexpr int kTermAtoms = 0;
template <> inline constexpr int kTermAtoms<HarmonicBond> = 2;
template <> inline constexpr int kTermAtoms<G96Bond> = 2;
template <> inline constexpr int kTermAtoms<MorseBond> = 2;
template <> inline constexpr int kTermAtoms<CubicBond> = 2;
template <> inline constexpr int kTermAtoms<HarmonicAngle> = 3;
template <> inline constexpr int kTermAtoms<G96Angle> = 3;
template <> inline constexpr int kTermAtoms<UreyBradleyAngle> = 3;
template <> inline constexpr int kTermAtoms<PeriodicTorsion> = 4;
template <> inline constexpr int kTermAtoms<RbTorsion> = 4;
template <> inline constexpr int kTermAtoms<HarmonicImproper> = 4;
template <> inline constexpr int kTermAtoms<CmapTorsion> = 5;
template <> inline constexpr int kTermAtoms<Pair14> = 2;
template <> inline constexpr int kTermAtoms<ExclusionPair> = 2;
template <> inline constexpr int kTermAtoms<PositionRestraint> = 1;

/// The atoms of a term, in its order.
template <typename Term>
FARADAY_HD void termAtoms(const Term& t, int* a) {
  if constexpr (std::is_same_v<Term, PositionRestraint>) {
    a[0] = t.i;
  } else if constexpr (kTermAtoms<Term> == 2) {
    a[0] = t.i, a[1] = t.j;
  } else if constexpr (kTermAtoms<Term> == 3) {
    a[0] = t.i, a[1] = t.j, a[2] = t.k;
  } else if constexpr (kTermAtoms<Term> == 4) {
    a[0] = t.i, a[1] = t.j, a[2] = t.k, a[3] = t.l;
  } else {
    a[0] = t.i, a[1] = t.j, a[2] = t.k, a[3] = t.l, a[4] = t.m;
  }
}

/// Positions x[] of a term's atoms relative to its first, unwrapped along the chain:
/// x[0] = 0, x[k] = x[k-1] + minimumImage(pos(a[k]) - pos(a[k-1])), which is exact while
/// consecutive atoms of a term are closer than half a box edge. For a position restraint,
/// x[0] = minimumImage(pos - ref), the displacement from the reference. `pos(atom)` fetches a
/// position (nm).
template <typename Term, typename Fetch>
FARADAY_HD void relativePositions(const Term& t, const int* a, const Fetch& pos, const MinimumImage& box, Vec3* x) {
  if constexpr (std::is_same_v<Term, PositionRestraint>) {
    x[0] = box.apply(pos(a[0]) - t.ref);
  } else {
    Vec3 previous = pos(a[0]);
    x[0] = Vec3{};
    for (int k = 1; k < kTermAtoms<Term>; ++k) {
      const Vec3 current = pos(a[k]);
      x[k] = x[k - 1] + box.apply(current - previous);
      previous = current;
    }
  }
}

namespace bonded {

/// Forces of a potential U(r) of the distance between x0 and x1: F_1 = -dU/dr (x1 - x0)/r.
FARADAY_HD void distanceForces(const Vec3& x0, const Vec3& x1, double dUdr, double r, Vec3& f0, Vec3& f1) {
  const Vec3 f = r > 0.0 ? (x1 - x0) * (-dUdr / r) : Vec3{};
  f1 += f;
  f0 -= f;
}

/// Forces of U(q) of the angle x0-x1-x2, q the angle or its cosine: g holds dq/dx_0 (gi) and
/// dq/dx_2 (gk).
template <typename Geometry>
FARADAY_HD void angleForces(const Geometry& g, double dUdq, Vec3* f) {
  const Vec3 fi = g.gi * (-dUdq), fk = g.gk * (-dUdq);
  f[0] += fi;
  f[2] += fk;
  f[1] -= fi + fk;
}

/// The energy and forces of a potential U(q) of the angle x0-x1-x2 whose value U and dU/dq
/// at q (the angle or its cosine) are `s`, with `g` the gradients of q.
template <typename Geometry>
FARADAY_HD TermForces<3> angleTerm(const Geometry& g, const ScalarResult& s) {
  TermForces<3> out;
  out.energy = s.energy;
  angleForces(g, s.dUdq, out.f);
  return out;
}

/// A potential U(r) of the distance x0-x1; `potential(r)` gives U and dU/dr.
template <typename Potential>
FARADAY_HD TermForces<2> bondTerm(const Vec3* x, const Potential& potential) {
  TermForces<2> out;
  const double r = sqrt(norm2(x[1] - x[0]));
  const ScalarResult s = potential(r);
  out.energy = s.energy;
  distanceForces(x[0], x[1], s.dUdq, r, out.f[0], out.f[1]);
  return out;
}

/// The dihedral of x[0..3] (IUPAC, rad) and its gradients.
FARADAY_HD DihedralGeometry dihedralOf(const Vec3* x) { return dihedralGeometry(x[0] - x[1], x[2] - x[1], x[2] - x[3]); }

/// Forces of U(phi) of a dihedral with the given gradients on f[0..3].
FARADAY_HD void dihedralForces(const DihedralGeometry& g, double dUdPhi, Vec3* f) {
  f[0] += g.gi * (-dUdPhi);
  f[1] += g.gj * (-dUdPhi);
  f[2] += g.gk * (-dUdPhi);
  f[3] += g.gl * (-dUdPhi);
}

/// A potential U(phi) of the dihedral x[0..3]; `potential(phi)` gives U and dU/dphi.
template <typename Potential>
FARADAY_HD TermForces<4> dihedralTerm(const Vec3* x, const Potential& potential) {
  TermForces<4> out;
  const DihedralGeometry g = dihedralOf(x);
  const ScalarResult s = potential(g.phi);
  out.energy = s.energy;
  dihedralForces(g, s.dUdq, out.f);
  return out;
}

/// Forces of a pair term: F_0 = fOverR (x0 - x1), F_1 = -F_0.
FARADAY_HD void pairForces(const Vec3& x0, const Vec3& x1, double fOverR, Vec3& f0, Vec3& f1) {
  const Vec3 f = (x0 - x1) * fOverR;
  f0 += f;
  f1 -= f;
}

}  // namespace bonded

// ---- Each term from the relative positions x[] of its atoms ----

FARADAY_HD TermForces<2> evaluateTerm(const HarmonicBond& t, const Vec3* x, const BondedView&) {
  return bonded::bondTerm(x, [&](double r) { return harmonicTerm(r, t.b0, t.kb); });
}

FARADAY_HD TermForces<2> evaluateTerm(const G96Bond& t, const Vec3* x, const BondedView&) {
  return bonded::bondTerm(x, [&](double r) { return g96BondTerm(r, t.b0, t.kb); });
}

FARADAY_HD TermForces<2> evaluateTerm(const MorseBond& t, const Vec3* x, const BondedView&) {
  return bonded::bondTerm(x, [&](double r) { return morseTerm(r, t.b0, t.D, t.beta); });
}

FARADAY_HD TermForces<2> evaluateTerm(const CubicBond& t, const Vec3* x, const BondedView&) {
  return bonded::bondTerm(x, [&](double r) { return cubicBondTerm(r, t.b0, t.kb, t.kcub); });
}

FARADAY_HD TermForces<3> evaluateTerm(const HarmonicAngle& t, const Vec3* x, const BondedView&) {
  const AngleGeometry g = angleGeometry(x[0] - x[1], x[2] - x[1]);
  return bonded::angleTerm(g, harmonicTerm(g.theta, t.theta0, t.kTheta));
}

/// GROMOS-96 angle: harmonic in the cosine, with the cosine's own gradients.
FARADAY_HD TermForces<3> evaluateTerm(const G96Angle& t, const Vec3* x, const BondedView&) {
  const AngleCosineGeometry g = angleCosineGeometry(x[0] - x[1], x[2] - x[1]);
  return bonded::angleTerm(g, g96AngleTerm(g.cosTheta, t.theta0, t.kTheta));
}

/// Urey-Bradley: the harmonic angle plus the harmonic 1-3 bond between x0 and x2.
FARADAY_HD TermForces<3> evaluateTerm(const UreyBradleyAngle& t, const Vec3* x, const BondedView&) {
  TermForces<3> out;
  const AngleGeometry g = angleGeometry(x[0] - x[1], x[2] - x[1]);
  const ScalarResult a = harmonicTerm(g.theta, t.theta0, t.kTheta);
  bonded::angleForces(g, a.dUdq, out.f);
  const double r13 = sqrt(norm2(x[2] - x[0]));
  const ScalarResult b = harmonicTerm(r13, t.r13, t.kUB);
  bonded::distanceForces(x[0], x[2], b.dUdq, r13, out.f[0], out.f[2]);
  out.energy = a.energy + b.energy;
  return out;
}

FARADAY_HD TermForces<4> evaluateTerm(const PeriodicTorsion& t, const Vec3* x, const BondedView&) {
  return bonded::dihedralTerm(x, [&](double phi) { return periodicTorsionTerm(phi, t.phi0, t.kPhi, t.n); });
}

FARADAY_HD TermForces<4> evaluateTerm(const RbTorsion& t, const Vec3* x, const BondedView&) {
  return bonded::dihedralTerm(x, [&](double phi) { return ryckaertBellemansTerm(phi, t.c); });
}

FARADAY_HD TermForces<4> evaluateTerm(const HarmonicImproper& t, const Vec3* x, const BondedView&) {
  return bonded::dihedralTerm(x, [&](double phi) { return harmonicImproperTerm(phi, t.xi0, t.kXi); });
}

/// CMAP: phi = dihedral x0-x1-x2-x3, psi = dihedral x1-x2-x3-x4.
FARADAY_HD TermForces<5> evaluateTerm(const CmapTorsion& t, const Vec3* x, const BondedView& view) {
  TermForces<5> out;
  const DihedralGeometry phi = bonded::dihedralOf(x), psi = bonded::dihedralOf(x + 1);
  const CmapResult c = cmapTerm(view.cmap, t.grid, phi.phi, psi.phi);
  out.energy = c.energy;
  bonded::dihedralForces(phi, c.dUdPhi, out.f);
  bonded::dihedralForces(psi, c.dUdPsi, out.f + 1);
  return out;
}

/// 1-4 pair: LJ in `energy`, Coulomb in `energy2`.
FARADAY_HD TermForces<2> evaluateTerm(const Pair14& t, const Vec3* x, const BondedView&) {
  TermForces<2> out;
  const PairResult2<double> p = pair14Term(norm2(x[1] - x[0]), t.c6, t.c12, units::kCoulomb * t.qq);
  out.energy = p.lj;
  out.energy2 = p.coulomb;
  bonded::pairForces(x[0], x[1], p.fOverR, out.f[0], out.f[1]);
  return out;
}

FARADAY_HD TermForces<2> evaluateTerm(const ExclusionPair& t, const Vec3* x, const BondedView& view) {
  TermForces<2> out;
  const PairResult<double> p = ewaldExclusionPair<double>(norm2(x[1] - x[0]), t.qq, view.ewaldBeta);
  out.energy = p.energy;
  bonded::pairForces(x[0], x[1], p.fOverR, out.f[0], out.f[1]);
  return out;
}

/// Position restraint from the displacement x[0] = x - ref: U = sum_d k_d/2 x_d^2, F = -k x.
FARADAY_HD TermForces<1> evaluateTerm(const PositionRestraint& t, const Vec3* x, const BondedView&) {
  TermForces<1> out;
  const Vec3 d = x[0];
  out.energy = 0.5 * (t.k.x * d.x * d.x + t.k.y * d.y * d.y + t.k.z * d.z * d.z);
  out.f[0] = Vec3{-t.k.x * d.x, -t.k.y * d.y, -t.k.z * d.z};
  return out;
}

/// Adds a term's virial W = sum_a x_a (x) F_a, symmetrised, as the 6 components xx, yy, zz,
/// xy, xz, yz, from its relative positions. Translation-invariant terms: the forces sum to
/// zero, so the origin does not matter, and rotation invariance makes W symmetric already.
/// A position restraint: x is the displacement from its reference, the virial of a reference
/// that scales with the box (GROMACS refcoord-scaling = all); with unequal k_d its W is not
/// symmetric, and the symmetric part (W + W^T)/2 is what a symmetric strain sees.
template <int N>
FARADAY_HD void addTermVirial(const Vec3* x, const Vec3* f, double* w) {
  for (int a = 0; a < N; ++a) addAtomVirial(w, x[a], f[a]);
}

}  // namespace faraday
