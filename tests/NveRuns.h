#pragma once
// Energy conservation runs of a system after a Langevin warm-up: what the NVE tests of rigid
// water measure on each backend (the drift over a long run, or how the energy error scales
// with the time step over a short one).
#include <cmath>
#include <vector>

#include "engine/backends/BackendFactory.h"
#include "engine/config/Config.h"
#include "engine/setup/ConstraintSetup.h"
#include "engine/setup/SystemSetup.h"
#include "tests/TestSupport.h"

namespace faraday::test {

/// The state after `warm` Langevin steps (300 K, friction 5/ps, `config`'s time step) from the
/// setup's constrained start.
inline State warmedState(Config config, faraday::Setup setup, int warm) {
  config.integrator.type = IntegratorType::Langevin;
  config.integrator.temperature = 300;
  config.integrator.friction = 5;
  constrainInitialState(config, setup.system, setup.state, 300);
  auto backend = makeBackend(config, setup.system, nullptr);
  backend->setState(setup.state, {});
  backend->computeForces();
  for (int s = 0; s < warm; ++s) backend->advance(false);
  State state;
  backend->getState(state);
  return state;
}

/// The total energy (kJ/mol) every `every` steps of `steps` velocity-Verlet steps of `dt` ps from
/// `state`.
inline std::vector<double> nveTotalEnergies(Config config, const System& system, const State& state, double dt,
                                            int steps, int every) {
  config.integrator.type = IntegratorType::Verlet;
  config.integrator.dt = dt;
  auto backend = makeBackend(config, system, nullptr);
  backend->setState(state, {});
  backend->computeForces();
  std::vector<double> total;
  for (int s = 1; s <= steps; ++s) {
    backend->advance(s % every == 0);
    if (s % every == 0) total.push_back(backend->energies().potential() + backend->kineticEnergy());
  }
  return total;
}

/// The RMS of `y` about its least-squares line (the fluctuation without the drift).
inline double fluctuationRms(const std::vector<double>& y) {
  const double n = double(y.size()), b = slope(y);
  double mean = 0, var = 0;
  for (double v : y) mean += v / n;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double r = y[i] - (mean + b * (double(i) - (n - 1) / 2));
    var += r * r / n;
  }
  return std::sqrt(var);
}

/// kJ/mol/ps per particle that is no virtual site: `warm` Langevin steps, then `steps` of
/// velocity Verlet at `config`'s time step, the total energy sampled every `every` steps; the
/// least-squares slope.
inline double nveDriftPerAtom(const Config& config, const faraday::Setup& setup, int warm, int steps, int every) {
  const State state = warmedState(config, setup, warm);
  const std::vector<double> total = nveTotalEnergies(config, setup.system, state, config.integrator.dt, steps, every);
  const double atoms = double(setup.system.size() - setup.system.topology.virtualSites.size());
  return slope(total) / (every * config.integrator.dt) / atoms;
}

}  // namespace faraday::test
