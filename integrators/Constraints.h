#pragma once
// The constraints of a System as the solvers take them, and the CPU solver (double, the
// reference of the GPU's): rigid waters by SETTLE, the other distance constraints grouped in
// clusters (connected components) solved one by one by SHAKE and RATTLE sweeps
// (ConstraintMath.h). What was chosen and measured: integrators/NOTES.md.
#include <string>
#include <vector>

#include "core/Box.h"
#include "core/System.h"
#include "core/Vec3.h"
#include "integrators/ConstraintMath.h"

namespace faraday {

/// A rigid water: atoms oxygen, oxygen + 1, oxygen + 2, geometry index into
/// ConstraintSet::geometries.
struct SettleWater {
  int oxygen = 0;
  int geometry = 0;
};

/// One distance constraint of a cluster, |x_a - x_b| = sqrt(d2).
struct ClusterConstraint {
  int a = 0, b = 0;
  double d2 = 0;  ///< nm^2
};

/// A connected group of constraints: constraints [firstConstraint, + constraintCount) and
/// atoms [firstAtom, + atomCount) of ConstraintSet::clusterAtoms. A star is a centre atom with
/// 1..kMaxStarArms arms (a heavy atom and its hydrogens): its constraints are (centre, arm),
/// the centre first, and its atoms the centre then the arms in constraint order.
struct ConstraintCluster {
  int firstConstraint = 0, constraintCount = 0;
  int firstAtom = 0, atomCount = 0;
  bool star = false;
};

inline constexpr int kMaxStarArms = 4;

/// Every constraint of a System: the waters of Topology::settles and Topology::constraints
/// grouped into clusters (each in the order of the topology). Failure codes name one of them:
/// constraint k of `constraints` as k, water w as constraints.size() + w.
struct ConstraintSet {
  std::vector<SettleGeometry> geometries;
  std::vector<SettleWater> waters;
  std::vector<ClusterConstraint> constraints;
  std::vector<ConstraintCluster> clusters;
  std::vector<int> clusterAtoms;

  bool empty() const { return waters.empty() && constraints.empty(); }
  long long waterCode(std::size_t w) const { return (long long)(constraints.size() + w); }
};

/// The constraints of `system` (its topology's settles and constraints, masses from the
/// system). Throws Error for an atom in two waters or in a water and a constraint, a
/// constraint of an atom with itself or of length <= 0, two constraints of one pair, a water
/// whose geometry is not a triangle or whose atoms have mass <= 0.
ConstraintSet makeConstraintSet(const System& system);

/// "12 (HB1, ALA 3)": a particle's 0-based index, atom name and residue, for messages.
std::string atomLabel(const System& system, int i);

/// Per particle: 1 when a constraint or a rigid water holds it.
std::vector<char> constrainedParticles(const ConstraintSet& set, std::size_t particles);

/// "atoms 12 (HB1, ALA 3) and 10 (CB, ALA 3), length 0.109 nm" for constraint code `code`, or
/// "the water of atoms 30 (OW, SOL 11), 31 (HW1, SOL 11), 32 (HW2, SOL 11)".
std::string describeConstraint(const System& system, const ConstraintSet& set, long long code);
/// The one-line error of a step whose constraints failed: `what` (e.g. "positions"), the
/// step and the constraint.
std::string constraintFailureMessage(const System& system, const ConstraintSet& set, long long code,
                                     long long step, const char* what);

/// The CPU solver. Tolerance: relative length error of the iterative solves (the velocity
/// solve holds r . v_ab dt below tol r^2: the length changes by less than tol of itself in a
/// step). Waters are exact to rounding. Threads over waters and clusters, each independent,
/// so the result is the same bits for any thread count. Failures throw StepFailure naming the
/// atoms and the step.
class CpuConstraints {
 public:
  CpuConstraints(const System& system, double tolerance, int threads);

  const ConstraintSet& set() const { return set_; }
  bool empty() const { return set_.empty(); }
  /// Degrees of freedom the constraints remove: one per constraint, three per water.
  long long removedDegreesOfFreedom() const;

  /// After an unconstrained update from `reference` (the constrained positions at the start of
  /// the step, nm): `positions` onto the constraints; with `velocities`, v += (x_c - x) / h
  /// (h ps: the time over which the last drift moved the positions). `step`: for errors.
  void constrainPositions(const std::vector<Vec3>& reference, std::vector<Vec3>& positions,
                          std::vector<Vec3>* velocities, double h, const Box& box, long long step);
  /// RATTLE's second half: removes the velocity components along the constraints (dt ps).
  void constrainVelocities(const std::vector<Vec3>& positions, std::vector<Vec3>& velocities, const Box& box,
                           double dt, long long step);
  /// The virial of the constraint forces (kJ/mol) of a constrained state with forces F: the
  /// forces that keep d^2/dt^2 |r_ab|^2 = 0, i.e. r . (a_a - a_b) = -|v_a - v_b|^2.
  Tensor3 virial(const std::vector<Vec3>& positions, const std::vector<Vec3>& velocities,
                 const std::vector<Vec3>& forces, const Box& box, double dt) const;

  /// The most sweeps one cluster took in the last position and velocity solves.
  int lastPositionSweeps() const { return positionSweeps_; }
  int lastVelocitySweeps() const { return velocitySweeps_; }

 private:
  void fail(long long code, long long step, const char* what) const;

  const System& system_;
  ConstraintSet set_;
  std::vector<double> inverseMass_;
  double tolerance_;
  int threads_;
  int positionSweeps_ = 0, velocitySweeps_ = 0;
};

/// Puts a starting state on its constraints: positions (SHAKE and SETTLE from themselves) and
/// velocities (RATTLE, tolerance scaled by dt ps), so that the first step starts from a
/// constrained state.
void constrainState(CpuConstraints& constraints, State& state, double dt);

}  // namespace faraday
