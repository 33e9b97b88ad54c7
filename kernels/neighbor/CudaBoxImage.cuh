#pragma once
// Minimum image and wrapping in the device's box terms (TileListBox): shifts by c, then b,
// then a, as Box::minimumImage and Box::wrap. In a rectangular box the tilts are zero and the
// shifts by them change no bit (x - 0 s = x), so each function is there the per-dimension
// rounding it replaces, operation for operation.
#include <cuda_runtime.h>

#include "kernels/neighbor/CudaTileList.h"

namespace faraday {

/// d into the brick |d_a| <= L_a / 2, in double, rounding d / L (a division per shift).
__device__ __forceinline__ void boxImage(const TileListBox& b, double& dx, double& dy, double& dz) {
  const double sz = rint(dz / b.lengthD.z);
  dx -= b.tiltD.y * sz;
  dy -= b.tiltD.z * sz;
  dz -= b.lengthD.z * sz;
  const double sy = rint(dy / b.lengthD.y);
  dx -= b.tiltD.x * sy;
  dy -= b.lengthD.y * sy;
  dx -= b.lengthD.x * rint(dx / b.lengthD.x);
}

/// boxImage() rounding d (1/L) instead (a multiply per shift).
__device__ __forceinline__ void boxImageInv(const TileListBox& b, double& dx, double& dy, double& dz) {
  const double sz = rint(dz * b.invLengthD.z);
  dx -= b.tiltD.y * sz;
  dy -= b.tiltD.z * sz;
  dz -= b.lengthD.z * sz;
  const double sy = rint(dy * b.invLengthD.y);
  dx -= b.tiltD.x * sy;
  dy -= b.lengthD.y * sy;
  dx -= b.lengthD.x * rint(dx * b.invLengthD.x);
}

/// boxImageInv() in float.
__device__ __forceinline__ float3 boxImageF(const TileListBox& b, float3 d) {
  const float sz = rintf(d.z * b.invLength.z);
  d.x -= b.tilt.y * sz;
  d.y -= b.tilt.z * sz;
  d.z -= b.length.z * sz;
  const float sy = rintf(d.y * b.invLength.y);
  d.x -= b.tilt.x * sy;
  d.y -= b.length.y * sy;
  d.x -= b.length.x * rintf(d.x * b.invLength.x);
  return d;
}

/// x into the brick [0, a_x) x [0, b_y) x [0, c_z), in double (floor of x / L).
__device__ __forceinline__ void boxWrap(const TileListBox& b, double& x, double& y, double& z) {
  const double sz = floor(z / b.lengthD.z);
  x -= b.tiltD.y * sz;
  y -= b.tiltD.z * sz;
  z -= b.lengthD.z * sz;
  const double sy = floor(y / b.lengthD.y);
  x -= b.tiltD.x * sy;
  y -= b.lengthD.y * sy;
  x -= b.lengthD.x * floor(x / b.lengthD.x);
}

}  // namespace faraday
