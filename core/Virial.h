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

/// w += the symmetric part of x (x) F for one atom of a many-body term: x its position
/// relative to the term's origin (nm), F its force (kJ/mol/nm). Summed over a term's atoms
/// this is the term's virial; translation- and rotation-invariant terms give a symmetric
/// tensor, so the symmetric part is all of it.
FARADAY_HD void addAtomVirial(double* w, const Vec3& x, const Vec3& f) {
  w[0] += x.x * f.x, w[1] += x.y * f.y, w[2] += x.z * f.z;
  w[3] += 0.5 * (x.x * f.y + x.y * f.x);
  w[4] += 0.5 * (x.x * f.z + x.z * f.x);
  w[5] += 0.5 * (x.y * f.z + x.z * f.y);
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
