#pragma once
#include <algorithm>
#include <cmath>
#include <optional>

#include "core/Vec3.h"

namespace faraday {

/// The reciprocal lattice of a reduced box: a*, b*, c* with a*.a = b*.b = c*.c = 1 and every
/// other product 0. Fractional coordinates are (a*.r, b*.r, c*.r); a reciprocal vector of
/// indices (m1, m2, m3) is 2 pi (m1 a* + m2 b* + m3 c*). In reduced form a* has three
/// components, b* two (b*.x = 0) and c* one (c* = (0, 0, 1/c_z)).
struct ReciprocalBox {
  Vec3 a, b, c;
  Vec3 fractional(Vec3 r) const { return {dot(a, r), b.y * r.y + b.z * r.z, c.z * r.z}; }
};

/// Periodic box as three vectors in the reduced triclinic form of GROMACS and OpenMM:
/// a along x, b in the xy plane, c anywhere with c_z > 0, and |b_x| <= a_x/2,
/// |c_x| <= a_x/2, |c_y| <= b_y/2. Lengths in nm. A rectangular box is the case
/// b_x = c_x = c_y = 0 of the same code.
///
/// Minimum image and wrapping shift by c, then b, then a (GROMACS's order for the reduced
/// form). The result of minimumImage lies in the brick |x| <= a_x/2, |y| <= b_y/2,
/// |z| <= c_z/2, whose volume is the cell's: it is the nearest image whenever that image is
/// closer than half the smallest diagonal element, which maxCutoff() requires.
struct Box {
  Vec3 a, b, c;

  /// Tolerance of the reduced-form test, relative to the diagonal element: files store the
  /// vectors rounded (a .gro to 1e-5 nm), so |b_x| may exceed a_x/2 by a rounding.
  static constexpr double kReducedMargin = 1e-3;

  static Box rectangular(double lx, double ly, double lz) {
    return Box{{lx, 0, 0}, {0, ly, 0}, {0, 0, lz}};
  }
  static Box fromVectors(Vec3 a, Vec3 b, Vec3 c) { return Box{a, b, c}; }

  /// The box of edge lengths la, lb, lc (nm) and angles alpha (b, c), beta (a, c) and
  /// gamma (a, b) in degrees, as PDB CRYST1 and DCD store it, in the orientation of the
  /// reduced form (a along x, b in the xy plane). Components below 1e-9 of the edge are
  /// rounded to zero, so that 90 degrees gives a rectangular box exactly. The result may
  /// still need reduce().
  static Box fromLengthsAngles(double la, double lb, double lc, double alpha, double beta, double gamma) {
    const double deg = 3.14159265358979323846 / 180;
    auto cosine = [&](double angle) {
      const double v = std::cos(angle * deg);
      return std::fabs(v) < 1e-9 ? 0.0 : v;
    };
    const double ca = cosine(alpha), cb = cosine(beta), cg = cosine(gamma);
    const double sg = std::sin(gamma * deg);
    Box box;
    box.a = {la, 0, 0};
    box.b = {lb * cg, lb * sg, 0};
    const double cx = lc * cb;
    const double cy = lc * (ca - cb * cg) / sg;
    box.c = {cx, cy, std::sqrt(std::fmax(0.0, lc * lc - cx * cx - cy * cy))};
    return box;
  }

  /// The same lattice in reduced form: c shifted by b then a, b by a, so that
  /// |b_x| <= a_x/2, |c_x| <= a_x/2 and |c_y| <= b_y/2. Empty when the vectors are not in
  /// the orientation of the reduced form (a_y, a_z or b_z non-zero, or a diagonal element
  /// not positive) or the volume is not finite.
  static std::optional<Box> reduce(Vec3 a, Vec3 b, Vec3 c) {
    if (a.y != 0 || a.z != 0 || b.z != 0) return std::nullopt;
    if (!(a.x > 0 && b.y > 0 && c.z > 0) || !std::isfinite(a.x * b.y * c.z)) return std::nullopt;
    Box box{a, b, c};
    const double marginY = 0.5 * b.y * (1 + kReducedMargin), marginX = 0.5 * a.x * (1 + kReducedMargin);
    if (std::fabs(box.c.y) > marginY) box.c = box.c - box.b * std::nearbyint(box.c.y / box.b.y);
    if (std::fabs(box.c.x) > marginX) box.c = box.c - box.a * std::nearbyint(box.c.x / box.a.x);
    if (std::fabs(box.b.x) > marginX) box.b = box.b - box.a * std::nearbyint(box.b.x / box.a.x);
    if (!box.isReducedForm()) return std::nullopt;
    return box;
  }

  /// The diagonal elements a_x, b_y, c_z: the heights of the cell, and the edges of the
  /// brick that minimum image and wrapping map into.
  Vec3 diagonal() const { return {a.x, b.y, c.z}; }
  /// |a|, |b|, |c|.
  Vec3 edgeLengths() const { return {std::sqrt(norm2(a)), std::sqrt(norm2(b)), std::sqrt(norm2(c))}; }
  /// alpha (between b and c), beta (a, c), gamma (a, b), degrees.
  Vec3 angles() const {
    const double deg = 180 / 3.14159265358979323846;
    auto angle = [&](Vec3 u, Vec3 v) {
      const double uv = dot(u, v);
      if (uv == 0) return 90.0;
      return std::acos(std::clamp(uv / std::sqrt(norm2(u) * norm2(v)), -1.0, 1.0)) * deg;
    };
    return {angle(b, c), angle(a, c), angle(a, b)};
  }
  double volume() const { return a.x * b.y * c.z; }
  bool operator==(const Box& o) const { return a == o.a && b == o.b && c == o.c; }
  bool isRectangular() const {
    return a.y == 0 && a.z == 0 && b.x == 0 && b.z == 0 && c.x == 0 && c.y == 0;
  }
  /// a along x, b in the xy plane, positive diagonal, and the reduced-form bounds (within
  /// kReducedMargin).
  bool isReducedForm() const {
    if (a.y != 0 || a.z != 0 || b.z != 0) return false;
    if (!(a.x > 0 && b.y > 0 && c.z > 0)) return false;
    const double marginY = 0.5 * b.y * (1 + kReducedMargin), marginX = 0.5 * a.x * (1 + kReducedMargin);
    return std::fabs(b.x) <= marginX && std::fabs(c.x) <= marginX && std::fabs(c.y) <= marginY;
  }
  bool isValid() const { return isReducedForm() && std::isfinite(volume()); }

  ReciprocalBox reciprocal() const {
    ReciprocalBox r;
    r.a = {1 / a.x, -b.x / (a.x * b.y), (b.x * c.y - b.y * c.x) / (a.x * b.y * c.z)};
    r.b = {0, 1 / b.y, -c.y / (b.y * c.z)};
    r.c = {0, 0, 1 / c.z};
    return r;
  }
  /// The distances between neighbouring lattice planes of the three families: the planes
  /// spanned by (b, c), by (a, c) and by (a, b), i.e. 1/|a*|, 1/|b*|, 1/|c*|. A displacement
  /// of length r changes fractional coordinate d by at most r / planeSpacings()[d]. Written
  /// as a_x / sqrt(1 + t^2 ...) so that a rectangular box gives its edges exactly.
  Vec3 planeSpacings() const {
    const double t1 = b.x / b.y, t2 = (b.y * c.x - b.x * c.y) / (b.y * c.z), t3 = c.y / c.z;
    return {a.x / std::sqrt(1 + t1 * t1 + t2 * t2), b.y / std::sqrt(1 + t3 * t3), c.z};
  }
  /// Fractional coordinates (a*.r, b*.r, c*.r).
  Vec3 fractional(Vec3 r) const { return reciprocal().fractional(r); }
  Vec3 fromFractional(Vec3 f) const { return a * f.x + b * f.y + c * f.z; }

  /// The box scaled by s in every direction: the shape is kept.
  Box scaled(double s) const { return Box{a * s, b * s, c * s}; }

  /// Minimum-image displacement: shifts by c, b, a in turn (see the struct's comment).
  Vec3 minimumImage(Vec3 d) const {
    double s = std::nearbyint(d.z / c.z);
    d.x -= c.x * s;
    d.y -= c.y * s;
    d.z -= c.z * s;
    s = std::nearbyint(d.y / b.y);
    d.x -= b.x * s;
    d.y -= b.y * s;
    s = std::nearbyint(d.x / a.x);
    d.x -= a.x * s;
    return d;
  }
  /// The nearest periodic image of d, at any distance: the brick image of minimumImage()
  /// and the eight images one step of c and/or b from it (each brought into |x| <= a_x/2 by
  /// a), the shortest. In reduced form the nearest image is among them (its c and b
  /// coefficients differ from the brick image's by at most one; for given ones the a shift
  /// by rounding is best). Unlike the brick image, it is continuous in d up to ties: what a
  /// map of minimum-image sums over every atom needs in a triclinic box. For a rectangular
  /// box it is minimumImage().
  Vec3 nearestImage(Vec3 d) const {
    d = minimumImage(d);
    if (isRectangular()) return d;
    Vec3 best = d;
    double best2 = norm2(d);
    for (int kc = -1; kc <= 1; ++kc)
      for (int kb = -1; kb <= 1; ++kb) {
        if (kc == 0 && kb == 0) continue;
        Vec3 e = d + c * double(kc) + b * double(kb);
        e.x -= a.x * std::nearbyint(e.x / a.x);
        const double e2 = norm2(e);
        if (e2 < best2) best = e, best2 = e2;
      }
    return best;
  }
  /// The periodic image of r in the brick [0, a_x) x [0, b_y) x [0, c_z) (GROMACS's
  /// triclinic unit cell; the box itself when rectangular).
  Vec3 wrap(Vec3 r) const {
    double s = std::floor(r.z / c.z);
    r.x -= c.x * s;
    r.y -= c.y * s;
    r.z -= c.z * s;
    s = std::floor(r.y / b.y);
    r.x -= b.x * s;
    r.y -= b.y * s;
    r.x -= a.x * std::floor(r.x / a.x);
    return r;
  }

  /// The length of the shortest non-zero lattice vector: the distance between an atom and
  /// its nearest periodic image. In reduced form it is one of n1 a + n2 b + n3 c with
  /// |n| <= 1 per index (searched to 2 for safety).
  double shortestImageDistance() const {
    double best = INFINITY;
    for (int i = -2; i <= 2; ++i)
      for (int j = -2; j <= 2; ++j)
        for (int k = -2; k <= 2; ++k) {
          if (i == 0 && j == 0 && k == 0) continue;
          best = std::fmin(best, norm2(a * double(i) + b * double(j) + c * double(k)));
        }
    return std::sqrt(best);
  }
  /// The smallest diagonal element, a_x, b_y or c_z.
  double smallestHeight() const { return std::fmin(a.x, std::fmin(b.y, c.z)); }
  /// The longest cutoff the box allows: half the smallest diagonal element (minimum image
  /// by one shift per vector is exact up to it) and half the shortest image distance (no
  /// atom meets two images of another). In reduced form the first is never the larger.
  double maxCutoff() const { return 0.5 * std::fmin(smallestHeight(), shortestImageDistance()); }
  /// What maxCutoff() is half of, for messages.
  const char* maxCutoffMeaning() const {
    return isRectangular() ? "the shortest box edge"
                           : "the shortest distance between periodic images and the smallest diagonal element "
                             "(a_x, b_y, c_z)";
  }
};

}  // namespace faraday
