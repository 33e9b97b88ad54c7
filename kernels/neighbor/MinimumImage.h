#pragma once
#include <math.h>

#include "core/Box.h"
#include "core/HostDevice.h"
#include "core/Vec3.h"

namespace faraday {

/// Minimum-image convention for a rectangular box with the inverse edge lengths
/// precomputed (one multiply and one rint per component instead of a division).
/// Same result as Box::minimumImage up to the rounding of d/L versus d*(1/L).
template <typename T>
struct MinimumImageT {
  Vec3T<T> length;     ///< box edges, nm
  Vec3T<T> invLength;  ///< 1/edges, 1/nm

  static MinimumImageT fromBox(const Box& box) {
    const Vec3 L = box.diagonal();
    return {{T(L.x), T(L.y), T(L.z)}, {T(1 / L.x), T(1 / L.y), T(1 / L.z)}};
  }
  /// The image of displacement d (nm) closest to the origin.
  FARADAY_HD Vec3T<T> apply(Vec3T<T> d) const {
    d.x -= length.x * rint(d.x * invLength.x);
    d.y -= length.y * rint(d.y * invLength.y);
    d.z -= length.z * rint(d.z * invLength.z);
    return d;
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
