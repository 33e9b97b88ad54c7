#pragma once
// Bonded interactions written once for the host (the double-precision oracle) and the device
// (double as well: bonded terms are few, and angles near 0 or 180 degrees need the digits).
// Two kinds of evaluator:
//   - a potential U(q) of one internal coordinate q (a distance r in nm, an angle or a
//     dihedral in rad), returning U (kJ/mol) and dU/dq (kJ/mol/nm or kJ/mol/rad);
//   - the geometry of a few positions: the coordinate q and its gradients dq/dx_a, so that
//     the force on atom a is F_a = -dU/dq dq/dx_a.
// Pair terms (1-4 pairs, the Ewald exclusion correction) follow PairEvaluators.h instead:
// energy and F/r from r^2, F_i = fOverR (x_i - x_j).
#include <math.h>

#include "core/HostDevice.h"
#include "core/Units.h"
#include "core/Vec3.h"
#include "kernels/nonbonded/EwaldExclusionPair.h"
#include "kernels/nonbonded/PairEvaluators.h"

namespace faraday {

/// U (kJ/mol) and dU/dq of a potential in one internal coordinate q.
struct ScalarResult {
  double energy;
  double dUdq;
};

/// Harmonic in any coordinate (bond length, angle, 1-3 distance):
///   U = k/2 (q - q0)^2,  dU/dq = k (q - q0).   4 flops.
FARADAY_HD ScalarResult harmonicTerm(double q, double q0, double k) {
  const double d = q - q0;
  return {0.5 * k * d * d, k * d};
}

/// GROMOS-96 bond (bonds type 2), kb (kJ/mol/nm^4), b0 (nm): harmonic in r^2,
///   U = kb/4 (r^2 - b0^2)^2,  dU/dr = kb (r^2 - b0^2) r.   6 flops.
FARADAY_HD ScalarResult g96BondTerm(double r, double b0, double kb) {
  const double d = r * r - b0 * b0;
  return {0.25 * kb * d * d, kb * d * r};
}

/// Cubic bond (bonds type 4), kb (kJ/mol/nm^2), kcub (1/nm), b0 (nm), with d = r - b0:
///   U = kb d^2 + kb kcub d^3,  dU/dr = kb d (2 + 3 kcub d).   9 flops.
FARADAY_HD ScalarResult cubicBondTerm(double r, double b0, double kb, double kcub) {
  const double d = r - b0;
  return {kb * d * d * (1.0 + kcub * d), kb * d * (2.0 + 3.0 * kcub * d)};
}

/// GROMOS-96 angle (angles type 2), k (kJ/mol), theta0 (rad): harmonic in cos(theta),
///   U = k/2 (cos theta - cos theta0)^2,  dU/dcos(theta) = k (cos theta - cos theta0).   4 flops, cos.
FARADAY_HD ScalarResult g96AngleTerm(double cosTheta, double theta0, double k) {
  return harmonicTerm(cosTheta, cos(theta0), k);
}

/// Morse bond, D (kJ/mol), beta (1/nm), b0 (nm), with e = exp(-beta (r - b0)):
///   U = D (1 - e)^2,  dU/dr = 2 D beta e (1 - e).   7 flops and one exp.
FARADAY_HD ScalarResult morseTerm(double r, double b0, double D, double beta) {
  const double e = exp(-beta * (r - b0));
  const double s = 1.0 - e;
  return {D * s * s, 2.0 * D * beta * e * s};
}

/// Periodic torsion (proper type 1/9, periodic improper type 4), k (kJ/mol), phi0 (rad):
///   U = k (1 + cos(n phi - phi0)),  dU/dphi = -k n sin(n phi - phi0).   6 flops, sin and cos.
FARADAY_HD ScalarResult periodicTorsionTerm(double phi, double phi0, double k, int n) {
  const double a = n * phi - phi0;
  return {k * (1.0 + cos(a)), -k * n * sin(a)};
}

/// Ryckaert-Bellemans with the GROMACS (polymer) convention psi = phi - 180 deg, so that
/// cos(psi) = -cos(phi) and sin(psi) = -sin(phi), C_m in kJ/mol:
///   U = sum_{m=0..5} C_m cos^m(psi),
///   dU/dphi = dU/dpsi = -sin(psi) sum_m m C_m cos^(m-1)(psi) = sin(phi) sum_m m C_m cos^(m-1)(psi).
/// Both sums by Horner's rule: 20 flops, sin and cos.
FARADAY_HD ScalarResult ryckaertBellemansTerm(double phi, const double* c) {
  const double cp = -cos(phi);  // cos(psi)
  double u = c[5], du = 5.0 * c[5];
  for (int m = 4; m >= 1; --m) {
    u = u * cp + c[m];
    du = du * cp + m * c[m];
  }
  u = u * cp + c[0];
  return {u, sin(phi) * du};
}

/// An angle difference taken into (-pi, pi] (for differences within (-3 pi, 3 pi]).
FARADAY_HD double wrapAngleDifference(double d) {
  constexpr double kPi = units::kPi;
  if (d > kPi) return d - 2.0 * kPi;
  if (d <= -kPi) return d + 2.0 * kPi;
  return d;
}

/// Harmonic improper (type 2), k (kJ/mol/rad^2), with the difference taken periodically:
///   U = k/2 dxi^2,  dU/dxi = k dxi,  dxi = xi - xi0 in (-pi, pi].   5 flops.
FARADAY_HD ScalarResult harmonicImproperTerm(double xi, double xi0, double k) {
  const double d = wrapAngleDifference(xi - xi0);
  return {0.5 * k * d * d, k * d};
}

/// A 1-4 pair in full (no cutoff, no shift, no Ewald splitting), c6 (kJ/mol nm^6), c12
/// (kJ/mol nm^12), qqK = k_C q_i q_j fudgeQQ (kJ/mol nm):
///   U_LJ = c12/r^12 - c6/r^6,  U_C = qqK/r,
///   F/r = (12 c12/r^12 - 6 c6/r^6)/r^2 + qqK/r^3.   Energies apart: lj and coulomb.  ~16 flops, sqrt.
FARADAY_HD PairResult2<double> pair14Term(double r2, double c6, double c12, double qqK) {
  const double ir2 = 1.0 / r2;
  const double ir = sqrt(ir2);
  const double ir6 = ir2 * ir2 * ir2;
  const double rep = c12 * ir6 * ir6, dis = c6 * ir6;
  const double coul = qqK * ir;
  return {rep - dis, coul, (12.0 * rep - 6.0 * dis + coul) * ir2};
}

// ---- Geometry -------------------------------------------------------------------------

/// The angle theta (rad) between a = x_i - x_j and b = x_k - x_j, and its gradients with
/// respect to x_i and x_k (1/nm; that of x_j is -(gi + gk)).
struct AngleGeometry {
  double theta;
  Vec3 gi, gk;
};

/// theta = atan2(|a x b|, a.b), accurate at every angle (acos loses half the digits near 0
/// and pi). With n = a x b, the gradients are the in-plane unit vectors perpendicular to
/// each arm, divided by the arm's length:
///   dtheta/dx_i = -(n x a) / (|a|^2 |n|),   dtheta/dx_k = (n x b) / (|b|^2 |n|).
/// At exactly 0 or 180 degrees the direction is undefined and the gradients are set to 0
/// (the harmonic force k (theta - theta0) dtheta/dx is then either 0 or without direction).
/// About 45 flops, sqrt and atan2.
FARADAY_HD AngleGeometry angleGeometry(const Vec3& a, const Vec3& b) {
  const Vec3 n = cross(a, b);
  const double nn = sqrt(norm2(n));
  AngleGeometry g{atan2(nn, dot(a, b)), Vec3{}, Vec3{}};
  if (nn > 0.0) {
    g.gi = cross(n, a) * (-1.0 / (norm2(a) * nn));
    g.gk = cross(n, b) * (1.0 / (norm2(b) * nn));
  }
  return g;
}

/// The cosine of the angle theta between a = x_i - x_j and b = x_k - x_j, and its gradients
/// with respect to x_i and x_k (1/nm; that of x_j is -(gi + gk)).
struct AngleCosineGeometry {
  double cosTheta;
  Vec3 gi, gk;
};

/// cos(theta) = a.b / (|a| |b|), and with the unit vectors a^ = a/|a|, b^ = b/|b|
///   dcos/dx_i = (b^ - cos(theta) a^) / |a|,   dcos/dx_k = (a^ - cos(theta) b^) / |b|:
/// no division by sin(theta), so the gradients are finite (and vanish) at 0 and 180 degrees.
/// An arm of zero length leaves cos(theta) = 1 and the gradients 0 (as angleGeometry's theta =
/// 0). About 35 flops and two sqrt.
FARADAY_HD AngleCosineGeometry angleCosineGeometry(const Vec3& a, const Vec3& b) {
  const double aa = norm2(a), bb = norm2(b);
  if (!(aa > 0.0 && bb > 0.0)) return {1.0, Vec3{}, Vec3{}};
  const double ia = 1.0 / sqrt(aa), ib = 1.0 / sqrt(bb);
  const Vec3 ua = a * ia, ub = b * ib;
  const double c = dot(ua, ub);
  return {c, (ub - ua * c) * ia, (ua - ub * c) * ib};
}

/// The dihedral angle phi (rad, in [-pi, pi]) of atoms i-j-k-l and its gradients (1/nm).
struct DihedralGeometry {
  double phi;
  Vec3 gi, gj, gk, gl;
};

/// IUPAC/GROMACS convention: phi = 0 when i and l are cis, 180 deg when trans, positive when
/// the bond i-j, seen along j -> k, turns clockwise to eclipse k-l. With r_ij = x_i - x_j,
/// r_kj = x_k - x_j, r_kl = x_k - x_l, m = r_ij x r_kj, n = r_kj x r_kl:
///   phi = atan2(|r_kj| r_ij.n, m.n)                      (no acos: exact near 0 and 180 deg)
/// and the gradients (Bekker; Blondel & Karplus 1996), with p = r_ij.r_kj/|r_kj|^2 and
/// q = r_kl.r_kj/|r_kj|^2,
///   dphi/dx_i = |r_kj| m/|m|^2,   dphi/dx_l = -|r_kj| n/|n|^2,
///   dphi/dx_j = (p - 1) dphi/dx_i - q dphi/dx_l,   dphi/dx_k = (q - 1) dphi/dx_l - p dphi/dx_i.
/// Nothing divides by sin(phi): only |m| and |n| (the bond angles i-j-k and j-k-l), which vanish
/// only when three atoms are collinear, where phi is undefined (gradients 0 then).
/// About 90 flops, sqrt and atan2.
FARADAY_HD DihedralGeometry dihedralGeometry(const Vec3& rij, const Vec3& rkj, const Vec3& rkl) {
  const Vec3 m = cross(rij, rkj), n = cross(rkj, rkl);
  const double m2 = norm2(m), n2 = norm2(n), rkj2 = norm2(rkj);
  const double rkjLen = sqrt(rkj2);
  DihedralGeometry g{atan2(rkjLen * dot(rij, n), dot(m, n)), Vec3{}, Vec3{}, Vec3{}, Vec3{}};
  if (m2 > 0.0 && n2 > 0.0) {
    g.gi = m * (rkjLen / m2);
    g.gl = n * (-rkjLen / n2);
    const double p = dot(rij, rkj) / rkj2, q = dot(rkl, rkj) / rkj2;
    g.gj = g.gi * (p - 1.0) - g.gl * q;
    g.gk = g.gl * (q - 1.0) - g.gi * p;
  }
  return g;
}

}  // namespace faraday
