#pragma once
// What system.constraints and system.hydrogen_mass do to a System read from a topology, and
// the constrained start of a run.
#include <vector>

#include "core/System.h"
#include "engine/config/Config.h"

namespace faraday {

/// Hydrogen mass repartitioning as OpenMM's hydrogenMass: every hydrogen bonded (by a bond,
/// Morse bond or constraint) to a heavy atom gets `hydrogenMass` amu and that atom loses what
/// the hydrogen gained, so the total mass is kept; the hydrogens of rigid ([settles]) waters
/// keep their masses (OpenMM leaves rigid water alone too). `hydrogen`: isHydrogen of every
/// particle, judged before the masses change. Throws Error (key system.hydrogen_mass) naming
/// the atoms when a heavy atom would end lighter than its hydrogens.
void repartitionHydrogenMasses(System& system, const std::vector<char>& hydrogen, double hydrogenMass);

/// system.constraints: h-bonds turns every bond (harmonic or Morse) with a hydrogen into a
/// constraint of length b0, all-bonds every bond; those bonds leave the bonded terms. A bond
/// already constrained by the topology's [constraints] at the same length is dropped; at
/// another length it is an error (key system.constraints).
void makeBondsRigid(System& system, const std::vector<char>& hydrogen, BondConstraints which);

/// Both, as the config asks (hydrogens judged once, before the masses change).
void applyConstraintKeys(const Config& config, System& system);

/// A fresh start on the constraints: positions and velocities constrained (CpuConstraints,
/// integrator.constraint_tolerance), then, for drawn velocities, brought back to
/// `temperature` K over the constrained degrees of freedom (< 0: velocities as they are).
/// Nothing without constraints.
void constrainInitialState(const Config& config, const System& system, State& state, double temperature);

}  // namespace faraday
