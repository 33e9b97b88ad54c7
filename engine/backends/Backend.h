#pragma once
#include <array>
#include <string>
#include <vector>

#include "engine/config/RunParams.h"
#include "core/System.h"
#include "core/Timers.h"
#include "core/Vec3.h"
#include "kernels/bonded/Bonded.h"
#include "kernels/common/DeviceFrame.h"

namespace faraday {

/// Potential-energy terms in kJ/mol, and the virial.
struct Energies {
  double lj = 0;                   ///< LJ within the cutoff (shifted if lj_shift)
  /// nonbonded.potential = gravity or typed: every pair's softened gravity or typed pair energy
  /// (all-pairs), or the typed pair energy within the cutoff, shifted to 0 there (cutoff).
  double pair = 0;
  double dispersionCorrection = 0; ///< long-range LJ tail correction
  double coulombReal = 0;          ///< sum over pairs q_i q_j erfc(beta r)/r within the cutoff
  double coulombRecip = 0;         ///< reciprocal-space (PME or Ewald k-space) energy
  double coulombSelf = 0;          ///< -beta/sqrt(pi) sum q_i^2 (times the Coulomb constant)
  double coulombNetCharge = 0;     ///< neutralising-background term -pi Q^2 / (2 V beta^2)
  /// Ewald exclusion correction: -k_C sum over excluded pairs q_i q_j erf(beta r)/r, which
  /// removes their reciprocal-space interaction (reported with the reciprocal energy).
  double coulombExclusion = 0;
  /// The topology's bonded terms, 1-4 pairs and position restraints by kernels/bonded slot
  /// (bondedSlotName: "Bond", "Angle", ...); the exclusion correction's slot stays 0 here.
  std::array<double, kBondedSlots> bonded{};
  /// Virial W = sum over pairs r_ij (x) F_ij (plus the k-space tensor) in kJ/mol, so that
  /// the pressure is P = (2 K + trace(W)) / (3 V) with the kinetic energy K.
  Tensor3 virial;
  /// Virial contribution that does not come from forces (dispersion correction): trace only.
  double potential() const { return lj + pair + dispersionCorrection + coulomb() + bondedTotal(); }
  double coulomb() const { return coulombReal + coulombRecip + coulombSelf + coulombNetCharge + coulombExclusion; }
  double bondedTotal() const {
    double sum = 0;
    for (double e : bonded) sum += e;
    return sum;
  }
  /// Adds the bonded forces' energies and virial: the terms into `bonded`, the exclusion
  /// correction into coulombExclusion.
  void addBonded(const BondedEnergies& b) {
    for (int k = 0; k < kBondedSlots; ++k)
      if (k != kExclusionCorrectionSlot) bonded[std::size_t(k)] += b.energy[std::size_t(k)];
    coulombExclusion += b.exclusionCorrection();
    virial += b.virial;
  }
};

/// The seam between the simulation loop and where the work runs. One Backend owns the
/// neighbor list, the force computation and the integrator update for one System.
/// The CPU backend is the double-precision oracle; the CUDA backend keeps state on the
/// device and copies positions back only when asked.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;

  /// Loads a state (start or restart). `listReference` holds the positions at which the
  /// neighbor list was last built (from a checkpoint), or is empty to build at once.
  virtual void setState(const State& state, const std::vector<Vec3>& listReference) = 0;
  /// Copies the current state (positions, velocities, step, time, box) to the host.
  virtual void getState(State& state) = 0;
  /// Positions at which the neighbor list was last built (saved in checkpoints so that a
  /// restart rebuilds its list at exactly the same steps).
  virtual std::vector<Vec3> listReference() = 0;

  /// Copies the state and the list reference back in one go (a checkpoint's needs).
  virtual void snapshot(State& state, std::vector<Vec3>& listReference) {
    getState(state);
    listReference = this->listReference();
  }

  /// Forces (kJ/mol/nm) and energies at the current positions. Call after setState and
  /// before the first step.
  virtual Energies computeForces() = 0;
  /// Forces of the current positions (a copy to the host on the GPU: for tests and errors).
  virtual const std::vector<Vec3>& forces() = 0;
  /// Advances one time step. With `withEnergies` the energies and virial of the new
  /// positions are computed too (reporting steps); otherwise forces alone, and on the GPU
  /// nothing comes back to the host.
  virtual void advance(bool withEnergies) = 0;
  /// Energies of the last computeForces() or advance(true).
  virtual Energies energies() = 0;
  /// One step with its energies.
  Energies step() {
    advance(true);
    return energies();
  }
  /// Kinetic energy in kJ/mol as the run reports it: right after a Langevin step, the step's
  /// midpoint velocities' (langevinMidpointKinetic, integrators/Langevin.h); else
  /// that of the current (full-step) velocities.
  virtual double kineticEnergy() = 0;
  /// The first particle (input index) whose position, velocity or force has turned
  /// non-finite (or, on the GPU, a runaway force) since the start; -1 if none. Cheap: on
  /// the GPU one small read of flags set by the device.
  virtual long nonFiniteParticle() = 0;
  /// How many times the neighbor list has been built.
  virtual long long neighborListBuilds() const = 0;

  /// The current positions and charges where they live on the device (GPU backends), for
  /// consumers that read them in place; an invalid frame (positions null) when the state
  /// lives on the host. Valid until the next step.
  virtual DeviceFrame deviceFrame() { return {}; }
  /// Makes the current state final: a backend that checks for overflows only every few
  /// steps and may roll back and redo them (CudaBackend) checks now, so that whatever reads
  /// the state at this step reads the state the run keeps. Cheap when already checked.
  virtual void settle() {}

  /// A Monte Carlo volume move (engine/run/Barostat.h), in two calls. scaleVolume keeps the
  /// current state, scales the box to `box` (rectangular) and every molecule's centre of mass
  /// by the ratio of the edges (integrators/BoxScaling.h), builds the neighbor list again and
  /// returns the energies of the scaled state (a full evaluation, forces too). Then
  /// finishVolumeMove keeps the scaled state (accepted) or puts back the kept one exactly:
  /// positions, box, list, forces and energies, bit for bit. Backends without a periodic box
  /// refuse.
  virtual Energies scaleVolume(const Box& box);
  virtual void finishVolumeMove(bool accept);
};

}  // namespace faraday
