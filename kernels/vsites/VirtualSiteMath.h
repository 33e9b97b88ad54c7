#pragma once
// Where a virtual site sits and how its force goes back onto its constructing atoms, written
// once for the CPU reference and the GPU kernels: GROMACS 2022's constructions (reference
// manual, "Virtual interaction sites"; mdlib/vsite.cpp) on the minimum-image vectors from the
// first constructing atom i, x_ij = x_j - x_i, x_ik, x_il, so that a molecule split by the box
// edge builds its sites in one piece. The loops differ only in where positions come from
// (Box::minimumImage or the device's MinimumImage) and where forces go.
//
// A site at x_s = x_i + r(x_ij, x_ik, x_il) carries the force F; the constructing atoms get
// f_q = (dx_s/dx_q)^T F, which sum to F (r depends on differences only) and keep the torque
// (r turns with its atoms). The virial sum x (x) f over the atoms then differs from the site's
// x_s (x) F by sum_q x_iq (x) f_q - r (x) F: zero for the linear constructions (2, 3 and the
// weighted ones), siteVirial's correction for the others.
#include <math.h>

#include "core/HostDevice.h"
#include "core/Topology.h"
#include "core/Vec3.h"

namespace faraday::vsite {

/// The forces on the constructing atoms i, j, k, l of one site.
struct SpreadForces {
  Vec3 f[4];
};

/// The site's offset r from atom i, for every type but Weighted. d[0..2] = x_ij, x_ik, x_il (nm;
/// those the type has), p its parameters (VirtualSite::p).
FARADAY_HD Vec3 siteOffset(VirtualSiteType type, const double* p, const Vec3* d) {
  switch (type) {
    case VirtualSiteType::One: return Vec3{};
    case VirtualSiteType::Two: return d[0] * p[0];  // a x_ij (10 flops)
    case VirtualSiteType::TwoFD: return d[0] * (p[0] / sqrt(norm2(d[0])));  // a x_ij / |x_ij|
    case VirtualSiteType::Three: return d[0] * p[0] + d[1] * p[1];  // a x_ij + b x_ik
    case VirtualSiteType::ThreeFD: {
      // r = x_ij + a x_jk, the point at fraction a along jk seen from i; the site at b along it.
      const Vec3 r = d[0] + (d[1] - d[0]) * p[0];
      return r * (p[1] / sqrt(norm2(r)));
    }
    case VirtualSiteType::ThreeFAD: {
      // x_perp: x_jk without its part along x_ij; the site at d cos(theta) along x_ij and
      // d sin(theta) along x_perp (p = {d cos theta, d sin theta}).
      const Vec3 xjk = d[1] - d[0];
      const double invDij2 = 1 / norm2(d[0]);
      const Vec3 perp = xjk - d[0] * (dot(d[0], xjk) * invDij2);
      return d[0] * (p[0] * sqrt(invDij2)) + perp * (p[1] / sqrt(norm2(perp)));
    }
    case VirtualSiteType::ThreeOut:  // a x_ij + b x_ik + c x_ij x x_ik
      return d[0] * p[0] + d[1] * p[1] + cross(d[0], d[1]) * p[2];
    case VirtualSiteType::FourFDN: {
      // The normal of the plane through j, i + a x_ik, i + b x_il, at c nm from i.
      const Vec3 rja = d[1] * p[0] - d[0], rjb = d[2] * p[1] - d[0];
      const Vec3 m = cross(rja, rjb);
      return m * (p[2] / sqrt(norm2(m)));
    }
    default: return Vec3{};
  }
}

/// The force F on a site spread onto its constructing atoms i, j, k, l (GROMACS's spread_vsite*
/// in vector form), for every type but Weighted; d and p as for siteOffset.
FARADAY_HD SpreadForces spreadForce(VirtualSiteType type, const double* p, const Vec3* d, Vec3 F) {
  SpreadForces s;
  switch (type) {
    case VirtualSiteType::One: s.f[0] = F; break;
    case VirtualSiteType::Two:
      s.f[1] = F * p[0];
      s.f[0] = F - s.f[1];
      break;
    case VirtualSiteType::TwoFD: {
      // j takes b (F - F_par), b = a / |x_ij|, F_par the part of F along x_ij.
      const double inv2 = 1 / norm2(d[0]);
      s.f[1] = (F - d[0] * (dot(d[0], F) * inv2)) * (p[0] * sqrt(inv2));
      s.f[0] = F - s.f[1];
      break;
    }
    case VirtualSiteType::Three:
      s.f[1] = F * p[0];
      s.f[2] = F * p[1];
      s.f[0] = F - s.f[1] - s.f[2];
      break;
    case VirtualSiteType::ThreeFD: {
      const Vec3 r = d[0] + (d[1] - d[0]) * p[0];
      const double inv2 = 1 / norm2(r);
      const Vec3 t = (F - r * (dot(r, F) * inv2)) * (p[1] * sqrt(inv2));  // c (F - F_par(r))
      s.f[0] = F - t;
      s.f[1] = t * (1 - p[0]);
      s.f[2] = t * p[0];
      break;
    }
    case VirtualSiteType::ThreeFAD: {
      const Vec3 xjk = d[1] - d[0];
      const double invDij2 = 1 / norm2(d[0]);
      const double c1 = dot(d[0], xjk) * invDij2;
      const Vec3 perp = xjk - d[0] * c1;
      const double invDp2 = 1 / norm2(perp);
      const double a1 = p[0] * sqrt(invDij2), b1 = p[1] * sqrt(invDp2);
      const double fproj = dot(d[0], F) * invDij2;
      const Vec3 fpij = d[0] * fproj;                         // F along x_ij
      const Vec3 fppp = perp * (dot(perp, F) * invDp2);       // F along x_perp
      const Vec3 f1 = (F - fpij) * a1;
      const Vec3 f2 = (F - fpij - fppp) * b1;
      const Vec3 f3 = perp * (b1 * fproj);
      s.f[0] = F - f1 + f2 * c1 + f3;
      s.f[1] = f1 - f2 * (1 + c1) - f3;
      s.f[2] = f2;
      break;
    }
    case VirtualSiteType::ThreeOut: {
      const Vec3 cF = F * p[2];
      s.f[1] = F * p[0] + cross(d[1], cF);  // a F + x_ik x cF
      s.f[2] = F * p[1] + cross(cF, d[0]);  // b F + cF x x_ij
      s.f[0] = F - s.f[1] - s.f[2];
      break;
    }
    case VirtualSiteType::FourFDN: {
      // r = c m / |m|, m = rja x rjb: dr = c/|m| (1 - n n^T) dm with n = m / |m|, so with
      // u = c/|m| (F - n (n.F)): dm.u = drja.(rjb x u) + drjb.(u x rja), and rja = a x_ik - x_ij,
      // rjb = b x_il - x_ij give k a (rjb x u), l b (u x rja) and j minus their sum over a, b.
      const Vec3 rja = d[1] * p[0] - d[0], rjb = d[2] * p[1] - d[0];
      const Vec3 m = cross(rja, rjb);
      const double inv2 = 1 / norm2(m);
      const Vec3 u = (F - m * (dot(m, F) * inv2)) * (p[2] * sqrt(inv2));
      const Vec3 ga = cross(rjb, u), gb = cross(u, rja);
      s.f[2] = ga * p[0];
      s.f[3] = gb * p[1];
      s.f[1] = -(ga + gb);
      s.f[0] = F - s.f[1] - s.f[2] - s.f[3];
      break;
    }
    default: break;
  }
  return s;
}

/// w += x_iq (x) f_q over the constructing atoms q (x_ii = 0) minus r (x) F, as a full tensor
/// w[3 a + b] (a the position's component, b the force's): the virial the spread forces carry
/// beyond the site's own. `r`: the site's offset from atom i (its minimum image).
FARADAY_HD void addSiteVirial(double* w, int atoms, const Vec3* d, const SpreadForces& s, Vec3 r, Vec3 F) {
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      double v = -r[a] * F[b];
      for (int q = 1; q < atoms; ++q) v += d[q - 1][a] * s.f[q][b];
      w[3 * a + b] += v;
    }
}

/// Whether the spread forces change the virial (not for 1, 2, 3 and the weighted sites: their
/// atoms' x (x) f sum to the site's exactly).
FARADAY_HD bool isNonLinear(VirtualSiteType type) {
  return type != VirtualSiteType::One && type != VirtualSiteType::Two && type != VirtualSiteType::Three &&
         type != VirtualSiteType::Weighted;
}

/// Where site `s` sits: its first constructing atom's position(atom) plus the offset built from
/// image(position(q) - x_i) of the others (Weighted: sum_k w_k of them). `atoms`, `weights`:
/// VirtualSites::atoms and weights.
template <class Position, class Image>
FARADAY_HD Vec3 buildSite(const VirtualSite& s, const int* atoms, const double* weights, const Position& position,
                          const Image& image) {
  const Vec3 xi = position(atoms[s.first]);
  if (s.type == VirtualSiteType::Weighted) {
    Vec3 r{};
    for (int k = 1; k < s.count; ++k) r += image(position(atoms[s.first + k]) - xi) * weights[s.first + k];
    return xi + r;
  }
  Vec3 d[3];
  for (int q = 1; q < s.count; ++q) d[q - 1] = image(position(atoms[s.first + q]) - xi);
  return xi + siteOffset(s.type, s.p, d);
}

/// Spreads the force F on site `s` onto its constructing atoms through add(atom, force); with
/// `virial` (9 components, addSiteVirial's layout) adds the correction of the non-linear types.
template <class Position, class Image, class Add>
FARADAY_HD void spreadSite(const VirtualSite& s, const int* atoms, const double* weights, const Position& position,
                           const Image& image, Vec3 F, const Add& add, double* virial) {
  if (s.type == VirtualSiteType::Weighted) {
    for (int k = 0; k < s.count; ++k) add(atoms[s.first + k], F * weights[s.first + k]);
    return;
  }
  const Vec3 xi = position(atoms[s.first]);
  Vec3 d[3];
  for (int q = 1; q < s.count; ++q) d[q - 1] = image(position(atoms[s.first + q]) - xi);
  const SpreadForces f = spreadForce(s.type, s.p, d, F);
  for (int q = 0; q < s.count; ++q) add(atoms[s.first + q], f.f[q]);
  if (virial && isNonLinear(s.type)) addSiteVirial(virial, s.count, d, f, image(position(s.site) - xi), F);
}

}  // namespace faraday::vsite
