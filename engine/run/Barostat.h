#pragma once
// The isotropic Monte Carlo barostat (Chow & Ferguson 1995; Aqvist et al. 2004; as OpenMM's
// MonteCarloBarostat): every `interval` steps a trial volume V' = V + dV, dV uniform in
// [-dVmax, dVmax], with the box scaled isotropically and every molecule's centre of mass scaled
// with it (molecules stay whole and rigid), accepted with probability min(1, exp(-w / kT)),
//   w = U(V') - U(V) + P (V' - V) - N_mol kT ln(V' / V),
// the Metropolis rule of the isothermal-isobaric ensemble for molecular centres scaled
// (N_mol: molecules). The decision lives here; the scaling and the energy of the trial state
// run on the backend (Backend::scaleVolume). The random numbers are Philox keyed by (seed,
// attempt), so the state to continue exactly is dVmax and the counts (BarostatState).
#include <cstdint>
#include <memory>
#include <string>

#include "core/Box.h"

namespace faraday {

class Backend;
struct Config;
struct System;

/// What a restart needs to continue the barostat exactly (saved in the checkpoint).
struct BarostatState {
  double maxVolumeChange = 0;   ///< dVmax, nm^3 (0: not started, 1% of the first volume)
  long long attempts = 0;       ///< trial moves so far (the Philox counter)
  long long accepted = 0;       ///< accepted so far
  long long windowAttempts = 0; ///< since dVmax was last adapted
  long long windowAccepted = 0;
};

struct BarostatParams {
  double pressure = 1;      ///< bar
  double temperature = 0;   ///< K
  long long interval = 25;  ///< steps between trial moves
  std::uint64_t seed = 1;
  double cutoff = 1;        ///< nm: a box whose shortest edge falls to 2 cutoff is not tried
};

class MonteCarloBarostat {
 public:
  /// `molecules`: N_mol of the ln(V'/V) term.
  MonteCarloBarostat(const BarostatParams& params, long molecules, BarostatState state = {});

  long long interval() const { return params_.interval; }
  /// One trial move on `backend`, whose energies() are those of its current state in `box`.
  /// Returns whether the move was accepted: the backend then holds the scaled state and `box`
  /// becomes its box; else the backend holds exactly the state before.
  bool attempt(Backend& backend, Box& box);
  const BarostatState& state() const { return state_; }
  /// Attempts, acceptance and the final dVmax, one line.
  std::string summary() const;

  /// The uniform number in [0, 1) and the acceptance draw of trial `attempt` (tests).
  static void draws(std::uint64_t seed, long long attempt, double& step, double& accept);

 private:
  void adapt(double volume);

  BarostatParams params_;
  long molecules_;
  BarostatState state_;
  bool warnedCutoff_ = false;
};

/// The barostat of `config` ([barostat], at integrator.temperature with integrator.seed) for
/// `system`'s molecules, continuing from `state`; null when the barostat is off.
std::unique_ptr<MonteCarloBarostat> makeBarostat(const Config& config, const System& system,
                                                 const BarostatState& state = {});

}  // namespace faraday
