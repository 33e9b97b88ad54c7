#pragma once
// The GROMACS-prepared peptides of tests/data/gromacs as configuration files of Langevin runs,
// and a run of a backend that samples the kinetic temperature and the potential energy (the
// ensemble tests).
#include <sstream>
#include <string>
#include <vector>

#include "engine/backends/BackendFactory.h"
#include "engine/config/LoadConfig.h"
#include "engine/setup/ConstraintSetup.h"
#include "engine/setup/SystemSetup.h"
#include "integrators/InitialVelocities.h"
#include "integrators/Integrator.h"
#include "tests/EngineTestSupport.h"
#include "tests/TestSupport.h"

namespace faraday::test {

/// The folder of one of tests/data/gromacs's systems.
inline std::string gromacsSystemFolder(const std::string& name) {
  return (fs::path(sourceDir()) / "tests" / "data" / "gromacs" / name).string();
}

/// The peptide of tests/data/gromacs (151 atoms, AMBER99SB-ILDN, vacuum, no restraints) as a
/// config file of a run into out/: h-bonds, hydrogens of `hydrogenMass` amu (0: as they are),
/// Langevin at 300 K with friction 1/ps, PME at 1 nm.
inline std::string peptideConfig(double dt, double hydrogenMass, long long steps) {
  const std::string folder = gromacsSystemFolder("peptide_amber_vacuum");
  std::ostringstream s;
  s << "[system]\ncoordinates = " << folder << "/conf.gro\ntopology = " << folder << "/topol.top\n"
    << "constraints = h-bonds\nhydrogen_mass = " << hydrogenMass << "\ntemperature = 300\n"
    << "[nonbonded]\ncutoff = 1.0\nbuffer = 0.1\n"
    << "[electrostatics]\nmethod = pme\nfourier_spacing = 0.15\n"
    << "[integrator]\ntype = langevin\ndt = " << dt << "\ntemperature = 300\nfriction = 1\n"
    << "[run]\nsteps = " << steps << "\nthreads = 1\nprogress_interval = 0\n"
    << "[output]\ndirectory = out\nenergy_interval = 10\ntrajectory_interval = 50\ncheckpoint_interval = 50\n";
  return s.str();
}

/// What an ensemble run sampled: the kinetic temperature as the run reports it and the
/// potential energy, each with its block-average error.
struct EnsembleSample {
  BlockAverage temperature, potential;
  double degreesOfFreedom = 0;
};

/// `config`'s system from its start (velocities at the bath's temperature), `discard` steps,
/// then `steps` more sampled every `every` steps into `blocks` blocks.
inline EnsembleSample sampleEnsemble(const Config& config, long long discard, long long steps, int every,
                                     int blocks = 20) {
  faraday::Setup setup = buildSetup(config);
  constrainInitialState(config, setup.system, setup.state, config.integrator.temperature);
  auto backend = makeBackend(config, setup.system, nullptr);
  backend->setState(setup.state, {});
  backend->computeForces();
  for (long long s = 0; s < discard; ++s) backend->advance(false);
  EnsembleSample e;
  e.degreesOfFreedom = degreesOfFreedom(setup.system, config.integrator.type);
  std::vector<double> t, u;
  for (long long s = 1; s <= steps; ++s) {
    const bool sample = s % every == 0;
    backend->advance(sample);
    if (!sample) continue;
    t.push_back(temperatureOf(e.degreesOfFreedom, backend->kineticEnergy()));
    u.push_back(backend->energies().potential());
  }
  EXPECT_LT(backend->nonFiniteParticle(), 0);
  e.temperature = blockAverage(t, blocks);
  e.potential = blockAverage(u, blocks);
  return e;
}

}  // namespace faraday::test
