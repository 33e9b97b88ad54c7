#pragma once
// One slot's share of a device step, shared by the integrator's kernels (CudaIntegrator.cu,
// one thread per slot) and the constraint kernels (CudaConstraints.cu, one thread per water or
// cluster, which update their own atoms): the forces read from the fixed-point buffer, the
// halves of velocity Verlet and Langevin BAOAB in the CPU integrators' order of operations, the
// wrapped float positions and PME fractions, the displacement test and the runaway test.
#include <cuda_runtime.h>

#include "integrators/CudaIntegrator.h"
#include "integrators/Langevin.h"
#include "kernels/common/FixedPoint.h"
#include "kernels/pme/PmeGridGeometry.h"

namespace faraday::cuda_update {

/// A force beyond this (kJ/mol/nm) is a runaway: a non-finite pair force becomes the most
/// negative fixed-point value (-2^31), and no physical force comes near 1e9.
constexpr double kRunawayForce = 1e9;

__device__ __forceinline__ double3 forceOf(const DeviceAtoms& a, int s) {
  return make_double3(fixed::fromFixed(static_cast<long long>(a.force[s])),
                      fixed::fromFixed(static_cast<long long>(a.force[a.stride + s])),
                      fixed::fromFixed(static_cast<long long>(a.force[2 * a.stride + s])));
}

__device__ __forceinline__ void clearForce(const DeviceAtoms& a, int s) {
  a.force[s] = a.force[a.stride + s] = a.force[2 * a.stride + s] = 0ull;
}

__device__ __forceinline__ bool finite3(double x, double y, double z) {
  return isfinite(x) && isfinite(y) && isfinite(z);
}

/// The box as writeWrapped and movedTooFar use it, read into registers once per thread (before
/// any of its stores, which the compiler must otherwise assume may change it).
struct WrapBox {
  MinimumImage image;
  pme::FractionScales fractions;
};
__device__ __forceinline__ WrapBox wrapBox(const CudaIntegratorParams& q) {
  const IntegratorBox* b = q.box;
  return {b->image, b->fractions};
}

/// posq (wrapped into the brick [0, a_x) x [0, b_y) x [0, c_z), float; w = `charge`, the
/// slot's posq.w) and PME fractions of slot s at position p. The shifts by c and b are exact
/// no-ops for a rectangular box (tilts zero).
__device__ __forceinline__ void writeWrapped(const DeviceAtoms& a, const WrapBox& box, int s, double4_32a p,
                                             float charge) {
  const Vec3 L = box.image.length, t = box.image.tilt;
  const double sz = floor(p.z / L.z);
  double x = p.x - t.y * sz, y = p.y - t.z * sz;
  const double z = p.z - L.z * sz;
  const double sy = floor(y / L.y);
  x -= t.x * sy;
  y -= L.y * sy;
  x -= L.x * floor(x / L.x);
  a.posq[s] = make_float4(float(x), float(y), float(z), charge);
  if (a.fractions) pme::fractionalFixedPoints(p.x, p.y, p.z, box.fractions, a.fractions + 3 * std::size_t(s));
}
__device__ __forceinline__ void writeWrapped(const DeviceAtoms& a, const CudaIntegratorParams& q, int s,
                                             double4_32a p) {
  writeWrapped(a, wrapBox(q), s, p, a.posq[s].w);
}

/// Whether a slot at x has moved more than half the buffer (halfBuffer2 = its square) from its
/// list reference r (also when x is not finite).
__device__ __forceinline__ bool movedTooFar(const WrapBox& box, double halfBuffer2, double4_32a r, double4_32a x) {
  const Vec3 L = box.image.length, t = box.image.tilt;
  double dx = x.x - r.x, dy = x.y - r.y, dz = x.z - r.z;
  const double sz = rint(dz / L.z);
  dx -= t.y * sz;
  dy -= t.z * sz;
  dz -= L.z * sz;
  const double sy = rint(dy / L.y);
  dx -= t.x * sy;
  dy -= L.y * sy;
  dx -= L.x * rint(dx / L.x);
  return !(dx * dx + dy * dy + dz * dz <= halfBuffer2);
}

/// The new position's bookkeeping: wrapped copy, PME fractions, displacement flag (from the
/// slot's list reference `ref` and posq.w `charge`, read before any of the slot's stores).
__device__ __forceinline__ void afterDrift(const DeviceAtoms& a, const WrapBox& box, double halfBuffer2,
                                          StepStatus* status, int s, double4_32a x, double4_32a ref, float charge) {
  writeWrapped(a, box, s, x, charge);
  if (movedTooFar(box, halfBuffer2, ref, x)) status->rebuild = 1;
}
__device__ __forceinline__ void afterDrift(const DeviceAtoms& a, const CudaIntegratorParams& q, StepStatus* status,
                                          int s, double4_32a x) {
  afterDrift(a, wrapBox(q), q.halfBuffer2, status, s, x, a.ref[s], a.posq[s].w);
}

/// The first half after its kick B: A, or A O A (the Langevin half of a constrained particle,
/// whose velocities are put on the constraints between B and A).
__device__ __forceinline__ void driftHalf(const CudaIntegratorParams& q, std::uint64_t step, int particle,
                                          double4_32a& x, double4_32a& v) {
  const double h = 0.5 * q.dt;
  if (q.langevin) {
    x.x += v.x * h, x.y += v.y * h, x.z += v.z * h;  // A
    const Vec3 o = langevinOrnsteinUhlenbeck(Vec3{v.x, v.y, v.z}, q.a, sqrt(q.noiseVariance * v.w), q.seed, step,
                                             std::uint32_t(particle));
    v.x = o.x, v.y = o.y, v.z = o.z;                  // O
    x.x += v.x * h, x.y += v.y * h, x.z += v.z * h;  // A
  } else {
    x.x += v.x * q.dt, x.y += v.y * q.dt, x.z += v.z * q.dt;  // A
  }
}

/// The first half of a step for one particle (x, v in place; v.w = 1/m): B A, or B A O A
/// with the noise of (step, particle).
__device__ __forceinline__ void firstHalf(const CudaIntegratorParams& q, double3 f, std::uint64_t step, int particle,
                                         double4_32a& x, double4_32a& v) {
  const double hm = 0.5 * q.dt * v.w;
  v.x += f.x * hm, v.y += f.y * hm, v.z += f.z * hm;  // B
  driftHalf(q, step, particle, x, v);
}


/// Adds each lane's `value` (kJ/mol), rounded to fixed point (fixed::kEnergyScale) first, as
/// one integer sum per warp to *sum: the same bits whichever lanes hold which values (the
/// update split leaves other GPUs' atoms out of a warp). Every lane of the warp calls.
__device__ __forceinline__ void addWarpEnergy(unsigned long long* sum, double value) {
  unsigned long long v = static_cast<unsigned long long>(fixed::energyToFixed(value));
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0 && v != 0ull) atomicAdd(sum, v);
}

/// The second half's kick B: v += dt/2 F / m.
__device__ __forceinline__ void kick(const CudaIntegratorParams& q, double3 f, double4_32a& v) {
  const double hm = 0.5 * q.dt * v.w;
  v.x += f.x * hm, v.y += f.y * hm, v.z += f.z * hm;
}

/// Whether a particle after the second half is bad: a runaway force, or a non-finite position
/// or velocity.
__device__ __forceinline__ bool isBad(double3 f, double4_32a x, double4_32a v) {
  const bool runaway = !(fabs(f.x) < kRunawayForce && fabs(f.y) < kRunawayForce && fabs(f.z) < kRunawayForce);
  return runaway || !finite3(v.x, v.y, v.z) || !finite3(x.x, x.y, x.z);
}

}  // namespace faraday::cuda_update
