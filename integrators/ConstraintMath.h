#pragma once
// The arithmetic of the constraint solvers, written once for the CPU reference and the GPU
// kernels (double precision on both): SETTLE for rigid three-site water (Miyamoto & Kollman
// 1992), its velocity constraint and constraint forces as one 3 x 3 linear solve, and the
// SHAKE / RATTLE sweeps (Ryckaert et al. 1977; Andersen 1983) over the distance constraints
// of one cluster. Units: nm, ps, amu (inverse masses 1/amu).
//
// Sign convention: constraint k joins atoms a and b with r_k = x_a - x_b; a multiplier tau_k
// moves u_a by +tau_k w_a r_k and u_b by -tau_k w_b r_k (w = 1/m), i.e. a force tau_k r_k on a
// and -tau_k r_k on b; its virial is tau_k r_k (x) r_k.
#include <math.h>

#include "core/HostDevice.h"
#include "core/Vec3.h"
#include "kernels/neighbor/MinimumImage.h"

namespace faraday {

/// Sweeps after which an iterative solve is declared not to converge (GROMACS' SHAKE gives
/// up after 1000 as well); clusters of hydrogen bonds need a handful (integrators/NOTES.md).
inline constexpr int kMaxConstraintSweeps = 1000;
/// A SHAKE correction along the reference vector r0 needs r . r0 > 0: below this fraction of
/// d^2 (the bond turned by more than ~84 degrees in one step) the step is declared failed.
inline constexpr double kMinShakeProjection = 0.1;

/// The rigid water of one [settles] line with its atoms' masses: the canonical triangle about
/// the centre of mass, O at (0, ra, 0), H1 at (-rc, -rb, 0), H2 at (rc, -rb, 0).
struct SettleGeometry {
  double wO = 0, wH = 0;  ///< inverse masses, 1/amu
  double ra = 0;          ///< nm: centre of mass to O
  double rb = 0;          ///< nm: centre of mass to the H-H midpoint
  double rc = 0;          ///< nm: half the H-H distance
  double dOH = 0, dHH = 0;  ///< nm
};

/// The canonical triangle of a water with masses mO, mH (amu) and distances dOH, dHH (nm):
/// height h = sqrt(dOH^2 - rc^2), ra = 2 mH h / (mO + 2 mH), rb = h - ra.
inline SettleGeometry settleGeometry(double mO, double mH, double dOH, double dHH) {
  SettleGeometry g;
  g.wO = 1 / mO;
  g.wH = 1 / mH;
  g.dOH = dOH;
  g.dHH = dHH;
  g.rc = 0.5 * dHH;
  const double h = sqrt(dOH * dOH - g.rc * g.rc);
  g.ra = 2 * mH * h / (mO + 2 * mH);
  g.rb = h - g.ra;
  return g;
}

/// SETTLE: the displacements delta[0..2] of O, H1, H2 that make the unconstrained positions
/// exactly the rigid triangle, with the constraint forces along the old bond vectors.
/// `b0`, `c0`: H1 - O and H2 - O at the start of the step (satisfying the constraints);
/// `b1`, `c1`: the same after the unconstrained update. In a frame with z normal to the old
/// plane (constraint forces lie in it, so every z is kept) and O's new position relative to the
/// centre of mass in the y-z plane, the triangle is tilted by phi about x and psi about y to
/// match the z values, then turned by theta about z so that the constraint forces exert no
/// torque about the old positions: alpha sin(theta) + beta cos(theta) = gamma. Returns false
/// when no rigid triangle matches (|sin| > 1: the step distorted the molecule too much).
FARADAY_HD bool settlePositions(const SettleGeometry& g, Vec3 b0, Vec3 c0, Vec3 b1, Vec3 c1, Vec3 delta[3]) {
  // New positions relative to their centre of mass (O at the origin before the shift).
  const double mHOverM = 1 / (g.wH / g.wO + 2);  // mH / (mO + 2 mH)
  const Vec3 com = (b1 + c1) * mHOverM;
  const Vec3 a1 = -com, bb1 = b1 - com, cc1 = c1 - com;
  Vec3 ez = cross(b0, c0);
  ez = ez * (1 / sqrt(norm2(ez)));
  Vec3 ex = cross(a1, ez);
  ex = ex * (1 / sqrt(norm2(ex)));
  const Vec3 ey = cross(ez, ex);
  const double xb0 = dot(b0, ex), yb0 = dot(b0, ey), xc0 = dot(c0, ex), yc0 = dot(c0, ey);
  const double ya1 = dot(a1, ey), za1 = dot(a1, ez);
  const double xb1 = dot(bb1, ex), yb1 = dot(bb1, ey), zb1 = dot(bb1, ez);
  const double xc1 = dot(cc1, ex), yc1 = dot(cc1, ey), zc1 = dot(cc1, ez);

  const double sinPhi = za1 / g.ra;
  const double cosPhi2 = 1 - sinPhi * sinPhi;
  if (!(cosPhi2 > 0)) return false;
  const double cosPhi = sqrt(cosPhi2);
  const double sinPsi = (zb1 - zc1) / (2 * g.rc * cosPhi);
  const double cosPsi2 = 1 - sinPsi * sinPsi;
  if (!(cosPsi2 > 0)) return false;
  const double cosPsi = sqrt(cosPsi2);

  // The triangle tilted by psi about y, then phi about x.
  const double ya2 = g.ra * cosPhi;
  const double xb2 = -g.rc * cosPsi;
  const double yb2 = -g.rb * cosPhi - g.rc * sinPsi * sinPhi;
  const double zb2 = -g.rb * sinPhi + g.rc * sinPsi * cosPhi;
  const double xc2 = g.rc * cosPsi;
  const double yc2 = -g.rb * cosPhi + g.rc * sinPsi * sinPhi;
  const double zc2 = -g.rb * sinPhi - g.rc * sinPsi * cosPhi;

  // No torque about z: sum_H x0 (y3 - y1) - y0 (x3 - x1) = 0 (O sits at the old origin).
  const double alpha = xb2 * (xb0 - xc0) + yb0 * yb2 + yc0 * yc2;
  const double beta = xb2 * (yc0 - yb0) + xb0 * yb2 + xc0 * yc2;
  const double gamma = xb0 * yb1 - xb1 * yb0 + xc0 * yc1 - xc1 * yc0;
  const double norm = alpha * alpha + beta * beta;
  const double root2 = norm - gamma * gamma;
  if (!(root2 >= 0) || !(norm > 0)) return false;
  const double sinTheta = (alpha * gamma - beta * sqrt(root2)) / norm;
  const double cosTheta = sqrt(1 - sinTheta * sinTheta);

  // Displacements in the frame (O's new x is 0 by construction), then back to the box axes.
  const double d[3][3] = {
      {-ya2 * sinTheta, ya2 * cosTheta - ya1, g.ra * sinPhi - za1},
      {xb2 * cosTheta - yb2 * sinTheta - xb1, xb2 * sinTheta + yb2 * cosTheta - yb1, zb2 - zb1},
      {xc2 * cosTheta - yc2 * sinTheta - xc1, xc2 * sinTheta + yc2 * cosTheta - yc1, zc2 - zc1}};
  for (int i = 0; i < 3; ++i) delta[i] = ex * d[i][0] + ey * d[i][1] + ez * d[i][2];
  return isfinite(sinTheta) && isfinite(cosPsi) && isfinite(cosPhi);
}

/// The three multipliers of rigid water (constraints O-H1, O-H2, H1-H2, atoms 0 = O, 1, 2) that
/// make r_k . (u_a - u_b) = target_k, and the update of u (nm/ps for velocities, nm/ps^2 for
/// accelerations). `r`: x_O - x_H1, x_O - x_H2, x_H1 - x_H2. Solved exactly (Cramer's rule):
/// the matrix A_kl = r_k . r_l (s_{a_k,l} w_{a_k} - s_{b_k,l} w_{b_k}), s = +1 / -1 for the
/// first / second atom of constraint l, is symmetric and diagonally dominant.
FARADAY_HD void settleMultipliers(const SettleGeometry& g, const Vec3 r[3], Vec3 u[3], const double target[3],
                                  double tau[3]) {
  const int first[3] = {0, 0, 1}, second[3] = {1, 2, 2};
  const double w[3] = {g.wO, g.wH, g.wH};
  double m[3][3], rhs[3];
  for (int k = 0; k < 3; ++k) {
    const int a = first[k], b = second[k];
    rhs[k] = target[k] - dot(r[k], u[a] - u[b]);
    for (int l = 0; l < 3; ++l) {
      const double sa = a == first[l] ? 1.0 : (a == second[l] ? -1.0 : 0.0);
      const double sb = b == first[l] ? 1.0 : (b == second[l] ? -1.0 : 0.0);
      m[k][l] = dot(r[k], r[l]) * (sa * w[a] - sb * w[b]);
    }
  }
  // Cofactors of the first row; the inverse's rows by Cramer's rule.
  const double c00 = m[1][1] * m[2][2] - m[1][2] * m[2][1], c01 = m[1][2] * m[2][0] - m[1][0] * m[2][2],
               c02 = m[1][0] * m[2][1] - m[1][1] * m[2][0];
  const double inv = 1 / (m[0][0] * c00 + m[0][1] * c01 + m[0][2] * c02);
  tau[0] = inv * (rhs[0] * c00 + rhs[1] * (m[0][2] * m[2][1] - m[0][1] * m[2][2]) +
                  rhs[2] * (m[0][1] * m[1][2] - m[0][2] * m[1][1]));
  tau[1] = inv * (rhs[0] * c01 + rhs[1] * (m[0][0] * m[2][2] - m[0][2] * m[2][0]) +
                  rhs[2] * (m[0][2] * m[1][0] - m[0][0] * m[1][2]));
  tau[2] = inv * (rhs[0] * c02 + rhs[1] * (m[0][1] * m[2][0] - m[0][0] * m[2][1]) +
                  rhs[2] * (m[0][0] * m[1][1] - m[0][1] * m[1][0]));
  for (int k = 0; k < 3; ++k) {
    u[first[k]] += r[k] * (tau[k] * w[first[k]]);
    u[second[k]] -= r[k] * (tau[k] * w[second[k]]);
  }
}

/// Calls f(k) for k = 0 .. count - 1; unrolled up to kMax (> 0) so that a cluster held in
/// registers is indexed by constants, or a plain loop (kMax = 0).
template <int kMax, typename F>
FARADAY_HD void forEachConstraint(int count, F&& f) {
  if constexpr (kMax > 0) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int k = 0; k < kMax; ++k)
      if (k < count) f(k);
  } else {
    for (int k = 0; k < count; ++k) f(k);
  }
}

/// How an iterative solve of one cluster ended: the sweeps it took and, when it failed, the
/// cluster's constraint that could not be satisfied (-1: converged).
struct ClusterSolve {
  int sweeps = 0;
  int failed = -1;
};

/// SHAKE by Gauss-Seidel sweeps over the constraints of one cluster, until every
/// |d^2 - r^2| <= 2 tol d^2 (relative length error tol) at the start of a sweep. A correction
/// moves a and b along the reference vector r0 = x_a - x_b at the start of the step:
/// g = (d^2 - r^2) / (2 (w_a + w_b) r . r0), x_a += g w_a r0, x_b -= g w_b r0.
/// The cluster `c` gives count(), a(k), b(k) (its atoms), d2(k) (nm^2), r0(k), w(atom) and
/// x(atom) (a reference to the position, nm). Minimum images per constraint.
template <int kMax, typename Cluster>
FARADAY_HD ClusterSolve shakeCluster(Cluster& c, const MinimumImage& box, double tol, int maxSweeps) {
  ClusterSolve out;
  for (; out.sweeps < maxSweeps; ++out.sweeps) {
    bool converged = true;
    forEachConstraint<kMax>(c.count(), [&](int k) {
      const Vec3 r = box.apply(c.x(c.a(k)) - c.x(c.b(k)));
      const double d2 = c.d2(k), diff = d2 - norm2(r);
      if (fabs(diff) <= 2 * tol * d2) return;
      converged = false;
      const Vec3 r0 = c.r0(k);
      const double wa = c.w(c.a(k)), wb = c.w(c.b(k)), projection = dot(r, r0);
      if (!(projection > kMinShakeProjection * d2)) {  // also a non-finite position
        if (out.failed < 0) out.failed = k;
        return;
      }
      const double g = diff / (2 * (wa + wb) * projection);
      c.x(c.a(k)) += r0 * (g * wa);
      c.x(c.b(k)) -= r0 * (g * wb);
    });
    if (out.failed >= 0 || converged) return out;
  }
  // Not converged: name the constraint furthest from its length.
  double worst = -1;
  forEachConstraint<kMax>(c.count(), [&](int k) {
    const double e = fabs(c.d2(k) - norm2(box.apply(c.x(c.a(k)) - c.x(c.b(k))))) / c.d2(k);
    if (!(e <= worst)) worst = e, out.failed = k;
  });
  return out;
}

/// RATTLE's velocity step generalised: Gauss-Seidel sweeps until every
/// |target_k - r_k . (u_a - u_b)| scale <= tol r_k^2, with g = (target - r . u_ab) / ((w_a + w_b) r^2),
/// u_a += g w_a r, u_b -= g w_b r, and c.addTau(k, g). With u the velocities, target 0 and
/// scale = dt, the bond lengths change by at most tol of themselves in a step; with u the
/// unconstrained accelerations F/m, target -|v_a - v_b|^2 and scale dt^2, tau are the
/// constraint forces. The cluster gives, beyond shakeCluster's, u(atom) and target(k).
template <int kMax, typename Cluster>
FARADAY_HD ClusterSolve rattleCluster(Cluster& c, const MinimumImage& box, double tol, double scale, int maxSweeps) {
  ClusterSolve out;
  for (; out.sweeps < maxSweeps; ++out.sweeps) {
    bool converged = true;
    forEachConstraint<kMax>(c.count(), [&](int k) {
      const Vec3 r = box.apply(c.x(c.a(k)) - c.x(c.b(k)));
      const double r2 = norm2(r), residual = c.target(k) - dot(r, c.u(c.a(k)) - c.u(c.b(k)));
      if (fabs(residual) * scale <= tol * r2) return;
      if (!isfinite(residual)) {
        if (out.failed < 0) out.failed = k;
        return;
      }
      converged = false;
      const double wa = c.w(c.a(k)), wb = c.w(c.b(k)), g = residual / ((wa + wb) * r2);
      c.u(c.a(k)) += r * (g * wa);
      c.u(c.b(k)) -= r * (g * wb);
      c.addTau(k, g);
    });
    if (out.failed >= 0 || converged) return out;
  }
  // Not converged: name the constraint with the largest residual.
  double worst = -1;
  forEachConstraint<kMax>(c.count(), [&](int k) {
    const Vec3 r = box.apply(c.x(c.a(k)) - c.x(c.b(k)));
    const double e = fabs(c.target(k) - dot(r, c.u(c.a(k)) - c.u(c.b(k)))) / norm2(r);
    if (!(e <= worst)) worst = e, out.failed = k;
  });
  return out;
}

}  // namespace faraday
