#pragma once
#include <math.h>

#include "core/Box.h"
#include "core/HostDevice.h"
#include "core/Vec3.h"

namespace faraday {

/// Minimum image and wrapping for a box in reduced triclinic form, with the inverse diagonal
/// precomputed (one multiply and one rint per shift instead of a division): shifts by c,
/// then b, then a, as Box::minimumImage, up to the rounding of d/L versus d*(1/L). For a
/// rectangular box the tilts are zero and add nothing to the result (x - 0 s = x).
template <typename T>
struct MinimumImageT {
  Vec3T<T> length;     ///< the diagonal a_x, b_y, c_z, nm
  Vec3T<T> invLength;  ///< its inverse, 1/nm
  Vec3T<T> tilt;       ///< b_x, c_x, c_y, nm

  static MinimumImageT fromBox(const Box& box) {
    const Vec3 L = box.diagonal();
    return {{T(L.x), T(L.y), T(L.z)}, {T(1 / L.x), T(1 / L.y), T(1 / L.z)}, {T(box.b.x), T(box.c.x), T(box.c.y)}};
  }
  /// The image of displacement d (nm) in the brick |d_x| <= a_x/2, |d_y| <= b_y/2,
  /// |d_z| <= c_z/2: the nearest one when it is closer than half the smallest diagonal element.
  FARADAY_HD Vec3T<T> apply(Vec3T<T> d) const {
    T s = rint(d.z * invLength.z);
    d.x -= tilt.y * s;
    d.y -= tilt.z * s;
    d.z -= length.z * s;
    s = rint(d.y * invLength.y);
    d.x -= tilt.x * s;
    d.y -= length.y * s;
    d.x -= length.x * rint(d.x * invLength.x);
    return d;
  }
  /// The image of x in the brick [0, a_x) x [0, b_y) x [0, c_z) (up to the rounding of the
  /// last subtraction, which may land on the upper edge).
  FARADAY_HD Vec3T<T> wrap(Vec3T<T> x) const {
    T s = floor(x.z * invLength.z);
    x.x -= tilt.y * s;
    x.y -= tilt.z * s;
    x.z -= length.z * s;
    s = floor(x.y * invLength.y);
    x.x -= tilt.x * s;
    x.y -= length.y * s;
    x.x -= length.x * floor(x.x * invLength.x);
    return x;
  }
};

using MinimumImage = MinimumImageT<double>;

/// x - L if x > L/2, x + L if x < -L/2: the minimum image of one component of the
/// difference of two positions wrapped into [0, L) (so |x| < L), without rounding; compiles
/// to selects rather than branches.
template <typename T>
FARADAY_HD T nearestImage(T x, T length, T half) {
  const T up = x < -half ? length : T(0);    // both tests on the same x: at most one holds
  const T down = x > half ? length : T(0);
  return (x + up) - down;
}

}  // namespace faraday
