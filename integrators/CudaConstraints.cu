// The constraint kernels, in layers: the arithmetic of ConstraintMath.h (shared with the CPU)
// -> one water (SETTLE) or one cluster (SHAKE / RATTLE over a store of its atoms: registers for
// a star, global working arrays for any other cluster) on one thread -> per half step a water
// kernel and a cluster kernel (whose blocks take stars or general clusters) -> the host class.
// See CudaConstraints.h.
#include "integrators/CudaConstraints.h"

#include <cub/cub.cuh>

#include <algorithm>
#include <climits>
#include <numeric>

#include "core/Error.h"
#include "core/Virial.h"
#include "integrators/CudaAtomUpdate.cuh"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/Launch.h"

namespace faraday {
namespace {

using namespace cuda_update;

// 64 threads a block: a water's or a star's thread is a long chain of dependent double
// arithmetic, so the kernels are latency-bound and gain from spreading over every SM. The
// water kernels ask for 8 blocks per SM (at most 128 registers: 16 warps instead of 12).
constexpr int kThreads = 64;
constexpr int kWaterBlocksPerSm = 8;
constexpr int kStarAtoms = kMaxStarArms + 1;

/// Everything a constraint kernel reads.
struct ConstraintArgs {
  DeviceAtoms a;
  CudaIntegratorParams q;
  StepStatus* status;
  const int* slotOfAtom;
  double tolerance;
  long long waterCodes;  ///< failure code of water 0
  const SettleGeometry* geometries;
  const SettleWater* waters;
  const int* waterOrder;  ///< thread i takes water waterOrder[i]
  const DeviceStar* stars;
  const int* starOrder;   ///< and star starOrder[i]
  const DeviceCluster* clusters;
  const ClusterConstraint* constraints;
  const int* atoms;
  Vec3 *x, *xu, *u, *r0;
  double *w, *target, *tau;
  int waterCount, starCount, clusterCount;
  int starBlocks;  ///< the cluster kernels' blocks [0, starBlocks) take the stars, the rest clusters
  unsigned long long* virial;
};

constexpr unsigned long long kVelocityHalf = 1ull << 31;

/// Records a failure of `code` in the positions or the velocities (`half`: 0 or
/// kVelocityHalf) at the step being taken; the smallest key wins.
__device__ void flagFailure(const ConstraintArgs& c, long long code, unsigned long long half) {
  const unsigned long long key = ((unsigned long long)(c.status->step + 1) << 32) | half | (unsigned long long)code;
  atomicMin(&c.status->constraintFailure, key);
}

__device__ __forceinline__ Vec3 xyz(double4_32a p) { return Vec3{p.x, p.y, p.z}; }

/// Writes a constrained particle's new position (w = 1: held by constraints) and velocity.
__device__ __forceinline__ double4_32a storeState(const ConstraintArgs& c, int s, Vec3 x, Vec3 v, double w) {
  const double4_32a p = make_double4_32a(x.x, x.y, x.z, 1.0);
  c.a.pos[s] = p;
  c.a.vel[s] = make_double4_32a(v.x, v.y, v.z, w);
  return p;
}

/// Writes a constrained particle's final velocity; whether it is bad (isBad: a runaway force,
/// a non-finite position or velocity).
__device__ __forceinline__ bool storeVelocity(const ConstraintArgs& c, int s, Vec3 x, Vec3 v, double w) {
  const double4_32a u = make_double4_32a(v.x, v.y, v.z, w);
  c.a.vel[s] = u;
  return isBad(forceOf(c.a, s), make_double4_32a(x.x, x.y, x.z, 1.0), u);
}

// ---- Rigid water ------------------------------------------------------------------------

/// A water's first half; with kStepKinetic, the kinetic energy of its atoms' new velocities
/// without their components along the constraints at the midpoint positions (else 0).
template <bool kStepKinetic>
__device__ double waterFirstHalf(const ConstraintArgs& c, int i) {
  const SettleWater water = c.waters[i];
  const std::uint64_t step = std::uint64_t(c.status->step);
  int s[3];
  double4_32a x[3], v[3];
  Vec3 old[3];
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    s[k] = c.slotOfAtom[water.oxygen + k];
    x[k] = c.a.pos[s[k]];
    v[k] = c.a.vel[s[k]];
    old[k] = xyz(x[k]);
    const double3 f = forceOf(c.a, s[k]);
    clearForce(c.a, s[k]);
    if (c.q.langevin)
      cuda_update::kick(c.q, f, v[k]);
    else
      firstHalf(c.q, f, step, water.oxygen + k, x[k], v[k]);
  }
  const MinimumImage box = c.q.box->image;
  if (c.q.langevin) {  // B's velocities onto the constraints at x_n, then A O A
    const Vec3 r[3] = {box.apply(old[0] - old[1]), box.apply(old[0] - old[2]), box.apply(old[1] - old[2])};
    Vec3 u[3] = {xyz(v[0]), xyz(v[1]), xyz(v[2])};
    const double zero[3] = {0, 0, 0};
    double tau[3];
    settleMultipliers(c.geometries[water.geometry], r, u, zero, tau);
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      v[k] = make_double4_32a(u[k].x, u[k].y, u[k].z, v[k].w);
      driftHalf(c.q, step, water.oxygen + k, x[k], v[k]);
    }
  }
  Vec3 delta[3];
  const Vec3 now0 = xyz(x[0]);
  if (!settlePositions(c.geometries[water.geometry], box.apply(old[1] - old[0]), box.apply(old[2] - old[0]),
                       box.apply(xyz(x[1]) - now0), box.apply(xyz(x[2]) - now0), delta)) {
    flagFailure(c, c.waterCodes + i, 0);
    delta[0] = delta[1] = delta[2] = Vec3{};
  }
  const double invDt = 1 / c.q.dt;  // the drift of the whole step, as the CPU's
  Vec3 u[3];
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    u[k] = xyz(v[k]) + delta[k] * invDt;
    const double4_32a p = storeState(c, s[k], xyz(x[k]) + delta[k], u[k], v[k].w);
    afterDrift(c.a, c.q, c.status, s[k], p);
    if constexpr (kStepKinetic) x[k] = p;
  }
  double kinetic = 0;
  if constexpr (kStepKinetic) {
    Vec3 mid[3];
    for (int k = 0; k < 3; ++k) mid[k] = (old[k] + xyz(x[k])) * 0.5;
    const Vec3 r[3] = {box.apply(mid[0] - mid[1]), box.apply(mid[0] - mid[2]), box.apply(mid[1] - mid[2])};
    const double zero[3] = {0, 0, 0};
    double tau[3];
    settleMultipliers(c.geometries[water.geometry], r, u, zero, tau);
    for (int k = 0; k < 3; ++k) kinetic += langevinMidpointKinetic(u[k], v[k].w);
  }
  return kinetic;
}

__device__ void waterSecondHalf(const ConstraintArgs& c, int i, bool kick, bool virial, double w6[6]) {
  const SettleWater water = c.waters[i];
  const SettleGeometry g = c.geometries[water.geometry];
  int s[3];
  Vec3 x[3], u[3];
  double inverseMass[3];
  for (int k = 0; k < 3; ++k) {
    s[k] = c.slotOfAtom[water.oxygen + k];
    x[k] = xyz(c.a.pos[s[k]]);
    double4_32a v = c.a.vel[s[k]];
    if (kick) cuda_update::kick(c.q, forceOf(c.a, s[k]), v);
    u[k] = xyz(v);
    inverseMass[k] = v.w;
  }
  const MinimumImage box = c.q.box->image;
  const Vec3 r[3] = {box.apply(x[0] - x[1]), box.apply(x[0] - x[2]), box.apply(x[1] - x[2])};
  double tau[3];
  if (kick) {
    const double zero[3] = {0, 0, 0};
    settleMultipliers(g, r, u, zero, tau);
    for (int k = 0; k < 3; ++k)
      if (storeVelocity(c, s[k], x[k], u[k], inverseMass[k])) atomicMin(&c.status->firstBad, water.oxygen + k);
  }
  if (virial) {
    // The forces that keep r . (a_a - a_b) = -|v_a - v_b|^2.
    const double target[3] = {-norm2(u[0] - u[1]), -norm2(u[0] - u[2]), -norm2(u[1] - u[2])};
    for (int k = 0; k < 3; ++k) {
      const double3 f = forceOf(c.a, s[k]);
      u[k] = Vec3{f.x, f.y, f.z} * inverseMass[k];
    }
    settleMultipliers(g, r, u, target, tau);
    for (int k = 0; k < 3; ++k) addPairVirial(w6, r[k], r[k] * tau[k]);
  }
}

// ---- Clusters -----------------------------------------------------------------------------

/// A star in registers: entry 0 the centre, entry k + 1 arm k; constraint k = (0, k + 1).
/// With every loop unrolled up to kMaxStarArms, the arrays are indexed by constants.
struct StarStore {
  DeviceStar star;
  Vec3 xs[kStarAtoms], xus[kStarAtoms], us[kStarAtoms], r0s[kMaxStarArms];
  double ws[kStarAtoms], targets[kMaxStarArms], taus[kMaxStarArms];

  __device__ int atomCount() const { return star.count + 1; }
  __device__ int count() const { return star.count; }
  __device__ int atom(int e) const { return e == 0 ? star.centre : star.arms[e - 1]; }
  __device__ int a(int) const { return 0; }
  __device__ int b(int k) const { return k + 1; }
  __device__ double d2(int k) const { return star.d2[k]; }
  __device__ long long code(int k) const { return star.code + k; }
  __device__ Vec3& x(int e) { return xs[e]; }
  __device__ Vec3& xu(int e) { return xus[e]; }
  __device__ Vec3& u(int e) { return us[e]; }
  __device__ Vec3 r0(int k) const { return r0s[k]; }
  __device__ Vec3& setR0(int k) { return r0s[k]; }
  __device__ double& w(int e) { return ws[e]; }
  __device__ double& target(int k) { return targets[k]; }
  __device__ double& tau(int k) { return taus[k]; }
  __device__ void addTau(int k, double g) { taus[k] += g; }
};

/// Any other cluster, in the kernel's global working arrays.
struct GeneralStore {
  const ConstraintArgs& c;
  DeviceCluster cluster;

  __device__ int atomCount() const { return cluster.atomCount; }
  __device__ int count() const { return cluster.constraintCount; }
  __device__ int atom(int e) const { return c.atoms[cluster.firstAtom + e]; }
  __device__ int a(int k) const { return c.constraints[cluster.firstConstraint + k].a; }
  __device__ int b(int k) const { return c.constraints[cluster.firstConstraint + k].b; }
  __device__ double d2(int k) const { return c.constraints[cluster.firstConstraint + k].d2; }
  __device__ long long code(int k) const { return cluster.code + k; }
  __device__ Vec3& x(int e) { return c.x[cluster.firstAtom + e]; }
  __device__ Vec3& xu(int e) { return c.xu[cluster.firstAtom + e]; }
  __device__ Vec3& u(int e) { return c.u[cluster.firstAtom + e]; }
  __device__ Vec3 r0(int k) const { return c.r0[cluster.firstConstraint + k]; }
  __device__ Vec3& setR0(int k) { return c.r0[cluster.firstConstraint + k]; }
  __device__ double& w(int e) { return c.w[cluster.firstAtom + e]; }
  __device__ double& target(int k) { return c.target[cluster.firstConstraint + k]; }
  __device__ double& tau(int k) { return c.tau[cluster.firstConstraint + k]; }
  __device__ void addTau(int k, double g) { c.tau[cluster.firstConstraint + k] += g; }
};

/// The first half of a cluster's atoms, then SHAKE from their old positions (kAtoms,
/// kConstraints: the unrolled bounds of a star, 0 for a general cluster); with kStepKinetic,
/// the kinetic energy of their new velocities without their components along the constraints
/// at the midpoint positions (else 0).
template <bool kStepKinetic, int kAtoms, int kConstraints, typename Store>
__device__ double clusterFirstHalf(const ConstraintArgs& c, Store& st) {
  const std::uint64_t step = std::uint64_t(c.status->step);
  const MinimumImage box = c.q.box->image;
  forEachConstraint<kAtoms>(st.atomCount(), [&](int e) { st.x(e) = xyz(c.a.pos[c.slotOfAtom[st.atom(e)]]); });
  forEachConstraint<kConstraints>(st.count(), [&](int k) { st.setR0(k) = box.apply(st.x(st.a(k)) - st.x(st.b(k))); });
  forEachConstraint<kAtoms>(st.atomCount(), [&](int e) {
    const int p = st.atom(e), s = c.slotOfAtom[p];
    double4_32a x = make_double4_32a(st.x(e).x, st.x(e).y, st.x(e).z, 1.0), v = c.a.vel[s];
    const double3 f = forceOf(c.a, s);
    clearForce(c.a, s);
    if (c.q.langevin) {
      cuda_update::kick(c.q, f, v);
    } else {
      firstHalf(c.q, f, step, p, x, v);
      st.x(e) = st.xu(e) = xyz(x);
    }
    st.u(e) = xyz(v);
    st.w(e) = v.w;
  });
  if (c.q.langevin) {  // B's velocities onto the constraints at x_n, then A O A
    forEachConstraint<kConstraints>(st.count(), [&](int k) { st.target(k) = 0, st.tau(k) = 0; });
    const ClusterSolve projection = rattleCluster<kConstraints>(st, box, c.tolerance, c.q.dt, kMaxConstraintSweeps);
    if (projection.failed >= 0) flagFailure(c, st.code(projection.failed), kVelocityHalf);
    forEachConstraint<kAtoms>(st.atomCount(), [&](int e) {
      double4_32a x = make_double4_32a(st.x(e).x, st.x(e).y, st.x(e).z, 1.0);
      double4_32a v = make_double4_32a(st.u(e).x, st.u(e).y, st.u(e).z, st.w(e));
      driftHalf(c.q, step, st.atom(e), x, v);
      st.x(e) = st.xu(e) = xyz(x);
      st.u(e) = xyz(v);
    });
  }
  const ClusterSolve solve = shakeCluster<kConstraints>(st, box, c.tolerance, kMaxConstraintSweeps);
  if (solve.failed >= 0) flagFailure(c, st.code(solve.failed), 0);
  const double invDt = 1 / c.q.dt;  // the drift of the whole step, as the CPU's
  forEachConstraint<kAtoms>(st.atomCount(), [&](int e) {
    const int s = c.slotOfAtom[st.atom(e)];
    const Vec3 u = st.u(e) + (st.x(e) - st.xu(e)) * invDt;
    if constexpr (kStepKinetic) {  // x_n is still in pos[s]: only this thread writes the cluster's slots
      st.u(e) = u;
      st.xu(e) = (xyz(c.a.pos[s]) + st.x(e)) * 0.5;
    }
    const double4_32a p = storeState(c, s, st.x(e), u, st.w(e));
    afterDrift(c.a, c.q, c.status, s, p);
  });
  double kinetic = 0;
  if constexpr (kStepKinetic) {
    forEachConstraint<kAtoms>(st.atomCount(), [&](int e) { st.x(e) = st.xu(e); });
    forEachConstraint<kConstraints>(st.count(), [&](int k) { st.target(k) = 0, st.tau(k) = 0; });
    rattleCluster<kConstraints>(st, box, c.tolerance, c.q.dt, kMaxConstraintSweeps);
    forEachConstraint<kAtoms>(st.atomCount(), [&](int e) { kinetic += langevinMidpointKinetic(st.u(e), st.w(e)); });
  }
  return kinetic;
}

/// The kick and RATTLE's velocity constraint of a cluster's atoms; with `virial`, the
/// constraint forces' virial of the final state into w6.
template <int kAtoms, int kConstraints, typename Store>
__device__ void clusterSecondHalf(const ConstraintArgs& c, Store& st, bool kick, bool virial, double w6[6]) {
  const MinimumImage box = c.q.box->image;
  forEachConstraint<kAtoms>(st.atomCount(), [&](int e) {
    const int s = c.slotOfAtom[st.atom(e)];
    double4_32a v = c.a.vel[s];
    if (kick) cuda_update::kick(c.q, forceOf(c.a, s), v);
    st.x(e) = xyz(c.a.pos[s]);
    st.u(e) = xyz(v);
    st.w(e) = v.w;
  });
  if (kick) {
    forEachConstraint<kConstraints>(st.count(), [&](int k) { st.target(k) = 0; });
    const ClusterSolve solve = rattleCluster<kConstraints>(st, box, c.tolerance, c.q.dt, kMaxConstraintSweeps);
    if (solve.failed >= 0) flagFailure(c, st.code(solve.failed), kVelocityHalf);
    forEachConstraint<kAtoms>(st.atomCount(), [&](int e) {
      const int p = st.atom(e);
      if (storeVelocity(c, c.slotOfAtom[p], st.x(e), st.u(e), st.w(e))) atomicMin(&c.status->firstBad, p);
    });
  }
  if (virial) {
    forEachConstraint<kConstraints>(st.count(), [&](int k) {
      st.target(k) = -norm2(st.u(st.a(k)) - st.u(st.b(k)));
      st.tau(k) = 0;
    });
    forEachConstraint<kAtoms>(st.atomCount(), [&](int e) {
      const double3 f = forceOf(c.a, c.slotOfAtom[st.atom(e)]);
      st.u(e) = Vec3{f.x, f.y, f.z} * st.w(e);
    });
    rattleCluster<kConstraints>(st, box, c.tolerance, c.q.dt * c.q.dt, kMaxConstraintSweeps);
    forEachConstraint<kConstraints>(st.count(), [&](int k) {
      const Vec3 r = box.apply(st.x(st.a(k)) - st.x(st.b(k)));
      addPairVirial(w6, r, r * st.tau(k));
    });
  }
}

// ---- Kernels: waters apart from clusters (a water needs fewer registers than a star) -------

/// Whether this GPU updates the water or cluster whose oxygen or centre is `particle`: every
/// one, or with the update split those in its own slots (a water's or a star's atoms share
/// one slot group, so they are all there).
__device__ __forceinline__ bool ownsAt(const ConstraintArgs& c, int particle) {
  if (!c.a.own) return true;
  const int s = c.slotOfAtom[particle];
  return s >= c.a.own[0] && s < c.a.own[1];
}

/// The cluster of this thread: 1 and a star's index, 2 and a general cluster's, or 0 past
/// the end or where another GPU updates it; blocks [0, starBlocks) take the stars, in starOrder.
__device__ int2 clusterOfThread(const ConstraintArgs& c) {
  int block = int(blockIdx.x), i;
  if (block < c.starBlocks) {
    if ((i = block * kThreads + int(threadIdx.x)) >= c.starCount) return make_int2(0, 0);
    const int star = c.starOrder[i];
    return ownsAt(c, c.stars[star].centre) ? make_int2(1, star) : make_int2(0, 0);
  }
  block -= c.starBlocks;
  if ((i = block * kThreads + int(threadIdx.x)) >= c.clusterCount) return make_int2(0, 0);
  return ownsAt(c, c.atoms[c.clusters[i].firstAtom]) ? make_int2(2, i) : make_int2(0, 0);
}

/// Adds the warp's virial as fixed point: each thread's rounded first, then summed as integers,
/// so that the sum does not depend on which threads of the warp hold a water or cluster (the
/// update split leaves other GPUs' waters out of a warp). Every lane calls.
__device__ void addWarpVirial(const ConstraintArgs& c, const double w6[6]) {
  for (int k = 0; k < 6; ++k) addWarpEnergy(c.virial + k, w6[k]);
}

/// kStepKinetic: the waters' midpoint kinetic energy added to q.stepKinetic.
template <bool kStepKinetic>
__global__ void __launch_bounds__(kThreads, kWaterBlocksPerSm) waterFirstHalfKernel(ConstraintArgs c) {
  const int i = int(blockIdx.x) * kThreads + int(threadIdx.x);
  double kinetic = 0;
  if (i < c.waterCount) {
    const int w = c.waterOrder[i];
    if (ownsAt(c, c.waters[w].oxygen)) kinetic = waterFirstHalf<kStepKinetic>(c, w);
  }
  if constexpr (kStepKinetic) addWarpEnergy(c.q.stepKinetic, kinetic);
}

template <bool kStepKinetic>
__global__ void __launch_bounds__(kThreads) clusterFirstHalfKernel(ConstraintArgs c) {
  const int2 item = clusterOfThread(c);
  double kinetic = 0;
  if (item.x == 1) {
    StarStore st;
    st.star = c.stars[item.y];
    kinetic = clusterFirstHalf<kStepKinetic, kStarAtoms, kMaxStarArms>(c, st);
  } else if (item.x == 2) {
    GeneralStore st{c, c.clusters[item.y]};
    kinetic = clusterFirstHalf<kStepKinetic, 0, 0>(c, st);
  }
  if constexpr (kStepKinetic) addWarpEnergy(c.q.stepKinetic, kinetic);
}

template <bool kVirial>
__global__ void __launch_bounds__(kThreads, kWaterBlocksPerSm) waterSecondHalfKernel(ConstraintArgs c, bool kick) {
  const int i = int(blockIdx.x) * kThreads + int(threadIdx.x);
  double w6[6] = {0, 0, 0, 0, 0, 0};
  if (i < c.waterCount) {
    const int w = c.waterOrder[i];
    if (ownsAt(c, c.waters[w].oxygen)) waterSecondHalf(c, w, kick, kVirial, w6);
  }
  if constexpr (kVirial) addWarpVirial(c, w6);
}

template <bool kVirial>
__global__ void __launch_bounds__(kThreads) clusterSecondHalfKernel(ConstraintArgs c, bool kick) {
  const int2 item = clusterOfThread(c);
  double w6[6] = {0, 0, 0, 0, 0, 0};
  if (item.x == 1) {
    StarStore st;
    st.star = c.stars[item.y];
    clusterSecondHalf<kStarAtoms, kMaxStarArms>(c, st, kick, kVirial, w6);
  } else if (item.x == 2) {
    GeneralStore st{c, c.clusters[item.y]};
    clusterSecondHalf<0, 0>(c, st, kick, kVirial, w6);
  }
  if constexpr (kVirial) addWarpVirial(c, w6);
}

/// Per slot: the water (or star) whose oxygen (or centre) sits there, -1 where none does.
__global__ void orderIdsKernel(int n, const int* __restrict__ atomOfSlot, const int* __restrict__ ofAtom,
                               int* __restrict__ ids) {
  const int s = int(blockIdx.x) * kThreads + int(threadIdx.x);
  if (s < n) ids[s] = ofAtom[atomOfSlot[s]];
}

struct IsIndex {
  __device__ bool operator()(int v) const { return v >= 0; }
};

std::vector<int> identity(int count) {
  std::vector<int> v(static_cast<std::size_t>(count));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

}  // namespace

struct CudaConstraints::Launch {
  ConstraintArgs args;
  int waterBlocks, clusterBlocks;
};

CudaConstraints::CudaConstraints(const System& system, double tolerance)
    : system_(system), set_(makeConstraintSet(system)), tolerance_(tolerance) {
  if (!(tolerance > 0 && tolerance < 1)) throw Error("constraints: the tolerance must be in (0, 1)");
  const ConstraintSet& set = set_;
  const DeviceClusterLayout layout = deviceClusterLayout(set);
  const std::vector<DeviceStar>& stars = layout.stars;
  const std::vector<DeviceCluster>& clusters = layout.clusters;
  const std::vector<ClusterConstraint>& constraints = layout.constraints;
  const std::vector<int>& atoms = layout.atoms;
  waterCount_ = int(set.waters.size());
  starCount_ = int(stars.size());
  clusterCount_ = int(clusters.size());
  geometries_ = deviceCopy("SETTLE geometries", set.geometries);
  waters_ = deviceCopy("rigid waters", set.waters);
  stars_ = deviceCopy("constraint stars", stars);
  clusters_ = deviceCopy("constraint clusters", clusters);
  clusterConstraints_ = deviceCopy("cluster constraints", constraints);
  clusterAtoms_ = deviceCopy("cluster atoms", atoms);
  clusterX_ = DeviceBuffer<Vec3>("cluster positions", atoms.size());
  clusterXu_ = DeviceBuffer<Vec3>("cluster unconstrained positions", atoms.size());
  clusterU_ = DeviceBuffer<Vec3>("cluster velocities", atoms.size());
  clusterW_ = DeviceBuffer<double>("cluster inverse masses", atoms.size());
  clusterR0_ = DeviceBuffer<Vec3>("cluster reference vectors", constraints.size());
  clusterTarget_ = DeviceBuffer<double>("cluster targets", constraints.size());
  clusterTau_ = DeviceBuffer<double>("cluster multipliers", constraints.size());
  const int n = int(system.size());
  std::vector<int> waterOf(system.size(), -1), starOf(system.size(), -1);
  for (int i = 0; i < waterCount_; ++i) waterOf[std::size_t(set.waters[std::size_t(i)].oxygen)] = i;
  for (int i = 0; i < starCount_; ++i) starOf[std::size_t(stars[std::size_t(i)].centre)] = i;
  waterOfAtom_ = deviceCopy("water of oxygen", waterOf);
  starOfAtom_ = deviceCopy("star of centre", starOf);
  waterOrder_ = deviceCopy("water order", identity(waterCount_));
  starOrder_ = deviceCopy("star order", identity(starCount_));
  orderIds_ = DeviceBuffer<int>("constraint order ids", std::size_t(n));
  selectedCount_ = DeviceBuffer<int>("constraint order count", 1);
  FARADAY_CUDA_CHECK(cub::DeviceSelect::If(nullptr, selectTempBytes_, orderIds_.data(), waterOrder_.data(),
                                           selectedCount_.data(), n, IsIndex{}));
  selectTemp_ = DeviceBuffer<unsigned char>("constraint order scratch", std::max<std::size_t>(selectTempBytes_, 1));
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

void CudaConstraints::throwIfFailed(unsigned long long flag) const {
  if (flag == kNoConstraintFailure) return;
  const long long step = (long long)(flag >> 32), code = (long long)(flag & (kVelocityHalf - 1));
  throw StepFailure(constraintFailureMessage(system_, set_, code, step, flag & kVelocityHalf ? "velocities" : "positions"));
}

CudaConstraints::Launch CudaConstraints::launch(const DeviceAtoms& atoms, const CudaIntegratorParams& params,
                                                StepStatus* status, const int* slotOfAtom) const {
  Launch l{};
  ConstraintArgs& c = l.args;
  c.a = atoms;
  c.q = params;
  c.status = status;
  c.slotOfAtom = slotOfAtom;
  c.tolerance = tolerance_;
  c.waterCodes = set_.waterCode(0);
  c.geometries = geometries_.data();
  c.waters = waters_.data();
  c.waterOrder = waterOrder_.data();
  c.stars = stars_.data();
  c.starOrder = starOrder_.data();
  c.clusters = clusters_.data();
  c.constraints = clusterConstraints_.data();
  c.atoms = clusterAtoms_.data();
  c.x = clusterX_.data(), c.xu = clusterXu_.data(), c.u = clusterU_.data(), c.r0 = clusterR0_.data();
  c.w = clusterW_.data(), c.target = clusterTarget_.data(), c.tau = clusterTau_.data();
  c.waterCount = waterCount_, c.starCount = starCount_, c.clusterCount = clusterCount_;
  c.starBlocks = blocksFor(starCount_, kThreads);
  l.waterBlocks = blocksFor(waterCount_, kThreads);
  l.clusterBlocks = c.starBlocks + blocksFor(clusterCount_, kThreads);
  return l;
}

template <typename W, typename C>
void CudaConstraints::besideEachOther(cudaStream_t stream, bool haveWaters, bool haveClusters, W&& waters,
                                      C&& clusters) const {
  if (!(haveWaters && haveClusters)) {
    if (haveWaters) waters(stream);
    if (haveClusters) clusters(stream);
    return;
  }
  FARADAY_CUDA_CHECK(cudaEventRecord(fork_.get(), stream));
  FARADAY_CUDA_CHECK(cudaStreamWaitEvent(clusterStream_.get(), fork_.get(), 0));
  clusters(clusterStream_.get());
  FARADAY_CUDA_CHECK(cudaEventRecord(join_.get(), clusterStream_.get()));
  waters(stream);
  FARADAY_CUDA_CHECK(cudaStreamWaitEvent(stream, join_.get(), 0));
}

void CudaConstraints::enqueueFirstHalf(cudaStream_t stream, const DeviceAtoms& atoms,
                                       const CudaIntegratorParams& params, StepStatus* status,
                                       const int* slotOfAtom) const {
  const Launch l = launch(atoms, params, status, slotOfAtom);
  besideEachOther(
      stream, l.waterBlocks > 0, l.clusterBlocks > 0,
      [&](cudaStream_t s) {
        if (params.stepKinetic)
          waterFirstHalfKernel<true><<<l.waterBlocks, kThreads, 0, s>>>(l.args);
        else
          waterFirstHalfKernel<false><<<l.waterBlocks, kThreads, 0, s>>>(l.args);
        FARADAY_CUDA_CHECK_LAUNCH("waterFirstHalfKernel");
      },
      [&](cudaStream_t s) {
        if (params.stepKinetic)
          clusterFirstHalfKernel<true><<<l.clusterBlocks, kThreads, 0, s>>>(l.args);
        else
          clusterFirstHalfKernel<false><<<l.clusterBlocks, kThreads, 0, s>>>(l.args);
        FARADAY_CUDA_CHECK_LAUNCH("clusterFirstHalfKernel");
      });
}

void CudaConstraints::enqueueSecondHalf(cudaStream_t stream, const DeviceAtoms& atoms,
                                        const CudaIntegratorParams& params, StepStatus* status,
                                        const int* slotOfAtom, unsigned long long* virial, bool kick) const {
  Launch l = launch(atoms, params, status, slotOfAtom);
  l.args.virial = virial;
  besideEachOther(
      stream, l.waterBlocks > 0, l.clusterBlocks > 0,
      [&](cudaStream_t s) {
        if (virial)
          waterSecondHalfKernel<true><<<l.waterBlocks, kThreads, 0, s>>>(l.args, kick);
        else
          waterSecondHalfKernel<false><<<l.waterBlocks, kThreads, 0, s>>>(l.args, kick);
        FARADAY_CUDA_CHECK_LAUNCH("waterSecondHalfKernel");
      },
      [&](cudaStream_t s) {
        if (virial)
          clusterSecondHalfKernel<true><<<l.clusterBlocks, kThreads, 0, s>>>(l.args, kick);
        else
          clusterSecondHalfKernel<false><<<l.clusterBlocks, kThreads, 0, s>>>(l.args, kick);
        FARADAY_CUDA_CHECK_LAUNCH("clusterSecondHalfKernel");
      });
}

void CudaConstraints::enqueueOrder(cudaStream_t stream, const int* atomOfSlot) const {
  const int n = int(system_.size());
  const auto select = [&](const DeviceBuffer<int>& ofAtom, DeviceBuffer<int>& order) {
    orderIdsKernel<<<blocksFor(n, kThreads), kThreads, 0, stream>>>(n, atomOfSlot, ofAtom.data(), orderIds_.data());
    FARADAY_CUDA_CHECK_LAUNCH("orderIdsKernel");
    std::size_t bytes = selectTempBytes_;
    FARADAY_CUDA_CHECK(cub::DeviceSelect::If(selectTemp_.data(), bytes, orderIds_.data(), order.data(),
                                             selectedCount_.data(), n, IsIndex{}, stream));
  };
  if (waterCount_ > 0) select(waterOfAtom_, waterOrder_);
  if (starCount_ > 0) select(starOfAtom_, starOrder_);
}

std::size_t CudaConstraints::deviceBytes() const {
  return geometries_.bytes() + waters_.bytes() + stars_.bytes() + clusters_.bytes() + clusterConstraints_.bytes() +
         clusterAtoms_.bytes() + clusterX_.bytes() + clusterXu_.bytes() + clusterU_.bytes() + clusterR0_.bytes() +
         clusterW_.bytes() + clusterTarget_.bytes() + clusterTau_.bytes() + waterOfAtom_.bytes() + starOfAtom_.bytes() +
         orderIds_.bytes() + waterOrder_.bytes() + starOrder_.bytes() + selectedCount_.bytes() + selectTemp_.bytes();
}

}  // namespace faraday
