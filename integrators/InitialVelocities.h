#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/System.h"
#include "integrators/IntegratorParams.h"

namespace faraday {

/// Maxwell-Boltzmann velocities (nm/ps) at `temperature` K from Philox normals keyed by
/// (seed, particle), for the integrator `integratorType`: when it conserves momentum
/// (verlet) the centre-of-mass motion is removed; then the velocities are rescaled so that
/// the temperature over the integrator's degrees of freedom (3N-3 for verlet, 3N for
/// langevin, which thermostats the centre of mass too; less the constraints') is exactly
/// `temperature`. With constraints the velocities still have components along them:
/// constrainState (Constraints.h) removes those, then scaleToTemperature.
std::vector<Vec3> maxwellBoltzmannVelocities(const System& system, double temperature, std::uint64_t seed,
                                             IntegratorType integratorType);

/// Scales the velocities so that their temperature over the degrees of freedom of
/// `integratorType` (degreesOfFreedom()) is exactly `temperature` K.
void scaleToTemperature(const System& system, std::vector<Vec3>& velocities, double temperature,
                        IntegratorType integratorType);

/// Removes the centre-of-mass velocity in place.
void removeCentreOfMassMotion(const System& system, std::vector<Vec3>& velocities);

/// Kinetic energy (kJ/mol).
double kineticEnergy(const System& system, const std::vector<Vec3>& velocities);
/// Instantaneous temperature (K) of `kineticEnergy` (kJ/mol) over `degreesOfFreedom`
/// (see degreesOfFreedom() in integrators/Integrator.h); 0 without degrees of freedom.
double temperatureOf(double degreesOfFreedom, double kineticEnergy);

}  // namespace faraday
