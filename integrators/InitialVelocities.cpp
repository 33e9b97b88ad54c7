#include "integrators/InitialVelocities.h"

#include <cmath>

#include "core/Units.h"
#include "integrators/Integrator.h"
#include "kernels/common/Philox.h"

namespace faraday {

std::vector<Vec3> maxwellBoltzmannVelocities(const System& system, double temperature, std::uint64_t seed,
                                             IntegratorType integratorType) {
  const std::size_t n = system.size();
  std::vector<Vec3> v(n);
  const double kT = units::kBoltzmann * temperature;
  // Each Cartesian component ~ N(0, kT/m); draws keyed by (seed, particle) at step 0.
  for (std::size_t i = 0; i < n; ++i) {
    const philox::Normal4 g = philox::normals(seed, philox::kStreamInitialVelocities, 0, std::uint32_t(i));
    const double s = system.mass[i] > 0 ? std::sqrt(kT / system.mass[i]) : 0.0;
    v[i] = Vec3{g.n[0], g.n[1], g.n[2]} * s;
  }
  if (conservesMomentum(integratorType)) removeCentreOfMassMotion(system, v);
  scaleToTemperature(system, v, temperature, integratorType);
  return v;
}

void scaleToTemperature(const System& system, std::vector<Vec3>& velocities, double temperature,
                        IntegratorType integratorType) {
  const double t = temperatureOf(degreesOfFreedom(system, integratorType), kineticEnergy(system, velocities));
  const double scale = t > 0 ? std::sqrt(temperature / t) : 0.0;
  for (Vec3& vi : velocities) vi *= scale;
}

void removeCentreOfMassMotion(const System& system, std::vector<Vec3>& velocities) {
  Vec3 momentum{};
  double mass = 0;
  for (std::size_t i = 0; i < velocities.size(); ++i) {
    momentum += velocities[i] * system.mass[i];
    mass += system.mass[i];
  }
  if (!(mass > 0)) return;
  const Vec3 vcm = momentum / mass;
  for (Vec3& v : velocities) v -= vcm;
}

double kineticEnergy(const System& system, const std::vector<Vec3>& velocities) {
  double k = 0;
  for (std::size_t i = 0; i < velocities.size(); ++i) k += system.mass[i] * norm2(velocities[i]);
  return 0.5 * k;
}

double temperatureOf(double degreesOfFreedom, double kineticEnergy) {
  return degreesOfFreedom > 0 ? 2.0 * kineticEnergy / (degreesOfFreedom * units::kBoltzmann) : 0.0;
}

}  // namespace faraday
