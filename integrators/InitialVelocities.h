#pragma once
#include <cstdint>
#include <vector>

#include "engine/System.h"

namespace faraday {

/// Maxwell-Boltzmann velocities (nm/ps) at `temperature` K from Philox normals keyed by
/// (seed, particle), with the centre-of-mass motion removed and then rescaled so that the
/// instantaneous temperature over 3N-3 degrees of freedom is exactly `temperature`.
std::vector<Vec3> maxwellBoltzmannVelocities(const System& system, double temperature, std::uint64_t seed);

/// Removes the centre-of-mass velocity in place.
void removeCentreOfMassMotion(const System& system, std::vector<Vec3>& velocities);

/// Kinetic energy (kJ/mol) and instantaneous temperature (K, over system.degreesOfFreedom()).
double kineticEnergy(const System& system, const std::vector<Vec3>& velocities);
double temperatureOf(const System& system, double kineticEnergy);

}  // namespace faraday
