#include "engine/run/Barostat.h"

#include <cmath>
#include <cstdio>
#include <iostream>

#include "core/Error.h"
#include "core/Units.h"
#include "core/System.h"
#include "engine/backends/Backend.h"
#include "engine/config/Config.h"
#include "integrators/BoxScaling.h"
#include "kernels/common/Philox.h"

namespace faraday {

MonteCarloBarostat::MonteCarloBarostat(const BarostatParams& params, long molecules, BarostatState state)
    : params_(params), molecules_(molecules), state_(state) {
  if (!(params_.temperature > 0)) throw keyError("integrator.temperature", "the barostat needs a temperature > 0");
  if (params_.interval < 1) throw keyError("barostat.interval", "must be >= 1");
  if (!(params_.pressure >= 0) || !std::isfinite(params_.pressure))
    throw keyError("barostat.pressure", "must be finite and >= 0");
}

void MonteCarloBarostat::draws(std::uint64_t seed, long long attempt, double& step, double& accept) {
  const philox::U4 ctr{{std::uint32_t(attempt), std::uint32_t(std::uint64_t(attempt) >> 32), 0, philox::kStreamBarostat}};
  const philox::U4 r = philox::philox4x32_10(ctr, std::uint32_t(seed), std::uint32_t(seed >> 32));
  // 53-bit uniforms in [0, 1) from two words each.
  const auto uniform = [](std::uint32_t hi, std::uint32_t lo) {
    return double((std::uint64_t(hi) << 21) ^ (lo >> 11)) * (1.0 / 9007199254740992.0);
  };
  step = uniform(r.v[0], r.v[1]);
  accept = uniform(r.v[2], r.v[3]);
}

bool MonteCarloBarostat::attempt(Backend& backend, Box& box) {
  const double volume = box.volume();
  if (state_.maxVolumeChange == 0) state_.maxVolumeChange = 0.01 * volume;
  double u = 0, r = 0;
  draws(params_.seed, state_.attempts, u, r);
  ++state_.attempts;
  ++state_.windowAttempts;
  const double newVolume = volume + state_.maxVolumeChange * (2 * u - 1);
  const double factor = std::cbrt(newVolume / volume);
  const Box trial = box.scaled(factor);  // isotropic: the shape is kept
  bool accepted = false;
  if (!(params_.cutoff < trial.maxCutoff()) || !(newVolume > 0)) {
    if (!warnedCutoff_)
      std::cerr << "faraday: note: barostat: a trial box (half " << trial.maxCutoffMeaning() << ": "
                << trial.maxCutoff() << " nm) would be within nonbonded.cutoff; such moves are rejected\n";
    warnedCutoff_ = true;
  } else {
    const double kT = units::kBoltzmann * params_.temperature;
    const double before = backend.energies().potential();
    const double after = backend.scaleVolume(trial).potential();
    const double w = (after - before) + params_.pressure * units::kKjMolNm3PerBar * (newVolume - volume) -
                     double(molecules_) * kT * std::log(newVolume / volume);
    accepted = w <= 0 || r < std::exp(-w / kT);
    backend.finishVolumeMove(accepted);
  }
  if (accepted) ++state_.accepted, ++state_.windowAccepted, box = trial;
  adapt(accepted ? newVolume : volume);
  return accepted;
}

/// Every 10 attempts: dVmax * 0.9 below 25% acceptance, * 1.1 (at most 0.3 V) above 75%.
void MonteCarloBarostat::adapt(double volume) {
  if (state_.windowAttempts < 10) return;
  const double rate = double(state_.windowAccepted) / double(state_.windowAttempts);
  if (rate < 0.25) state_.maxVolumeChange *= 0.9;
  else if (rate > 0.75) state_.maxVolumeChange = std::fmin(state_.maxVolumeChange * 1.1, 0.3 * volume);
  state_.windowAttempts = state_.windowAccepted = 0;
}

std::string MonteCarloBarostat::summary() const {
  char line[200];
  std::snprintf(line, sizeof line, "Barostat: %lld volume moves, %lld accepted (%.1f%%), dVmax %.4g nm^3\n",
                state_.attempts, state_.accepted,
                state_.attempts ? 100.0 * double(state_.accepted) / double(state_.attempts) : 0.0,
                state_.maxVolumeChange);
  return line;
}

std::unique_ptr<MonteCarloBarostat> makeBarostat(const Config& config, const System& system,
                                                 const BarostatState& state) {
  if (!config.barostat.enabled) return nullptr;
  BarostatParams p;
  p.pressure = config.barostat.pressure;
  p.interval = config.barostat.interval;
  p.temperature = config.integrator.temperature;
  p.seed = config.integrator.seed;
  p.cutoff = config.nonbonded.cutoff;
  const long molecules = long(moleculeStarts(system.topology, int(system.size())).size()) - 1;
  return std::make_unique<MonteCarloBarostat>(p, molecules, state);
}

}  // namespace faraday
