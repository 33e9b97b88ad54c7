#pragma once
// The virial W = sum r (x) F (kJ/mol) as the loops sum it: 6 components of a symmetric
// tensor in the order xx yy zz xy xz yz, and its 3x3 tensor at the end.
#include "core/HostDevice.h"
#include "core/Vec3.h"

namespace faraday {

/// w += r (x) F for one pair: r = x_i - x_j (nm), F the force on i (kJ/mol/nm), parallel to r
/// for a central force, so the tensor is symmetric and only xx yy zz xy xz yz are summed.
FARADAY_HD void addPairVirial(double* w, const Vec3& r, const Vec3& f) {
  w[0] += f.x * r.x, w[1] += f.y * r.y, w[2] += f.z * r.z;
  w[3] += f.x * r.y, w[4] += f.x * r.z, w[5] += f.y * r.z;
}

/// The symmetric 3x3 tensor of the components xx yy zz xy xz yz in `w`.
FARADAY_HD Tensor3 symmetricTensor(const double* w) {
  Tensor3 t;
  t.m[0][0] = w[0], t.m[1][1] = w[1], t.m[2][2] = w[2];
  t.m[0][1] = t.m[1][0] = w[3];
  t.m[0][2] = t.m[2][0] = w[4];
  t.m[1][2] = t.m[2][1] = w[5];
  return t;
}

}  // namespace faraday
