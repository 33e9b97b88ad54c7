#pragma once
#include <cmath>

#include "core/Vec3.h"

namespace faraday {

/// Periodic box as three vectors in reduced triclinic form (a along x, b in the xy
/// plane). Only rectangular boxes are supported for now: b.x = c.x = c.y = 0 and
/// a.y = a.z = b.z = 0. Lengths in nm.
struct Box {
  Vec3 a, b, c;

  static Box rectangular(double lx, double ly, double lz) {
    return Box{{lx, 0, 0}, {0, ly, 0}, {0, 0, lz}};
  }
  Vec3 lengths() const { return {a.x, b.y, c.z}; }
  double volume() const { return a.x * b.y * c.z; }
  double shortestEdge() const { return std::fmin(a.x, std::fmin(b.y, c.z)); }
  bool isRectangular() const {
    return a.y == 0 && a.z == 0 && b.x == 0 && b.z == 0 && c.x == 0 && c.y == 0;
  }
  bool isValid() const {
    return isRectangular() && a.x > 0 && b.y > 0 && c.z > 0 && std::isfinite(volume());
  }

  /// Minimum-image displacement for a rectangular box.
  Vec3 minimumImage(Vec3 d) const {
    d.x -= a.x * std::nearbyint(d.x / a.x);
    d.y -= b.y * std::nearbyint(d.y / b.y);
    d.z -= c.z * std::nearbyint(d.z / c.z);
    return d;
  }
  /// The periodic image of r inside [0, L) in each dimension.
  Vec3 wrap(Vec3 r) const {
    r.x -= a.x * std::floor(r.x / a.x);
    r.y -= b.y * std::floor(r.y / b.y);
    r.z -= c.z * std::floor(r.z / c.z);
    return r;
  }
};

}  // namespace faraday
