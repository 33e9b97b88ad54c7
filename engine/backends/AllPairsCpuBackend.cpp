#include "engine/backends/AllPairsCpuBackend.h"

#include <cstdio>

#include "core/Error.h"

namespace faraday {

AllPairsCpuBackend::AllPairsCpuBackend(const AllPairsRunParams& params, const System& system, Timers* timers)
    : CpuBackendBase(params.threads, params.integrator, system, timers), params_(params.pairs) {
  if (!system.topology.virtualSites.empty()) throw Error("all-pairs forces: the system's virtual sites need the cutoff mode");
  if (system.hasCharges())
    std::fprintf(stderr, "nonbonded.mode = all-pairs: the particles' charges are ignored\n");
}

void AllPairsCpuBackend::setState(const State& state, const std::vector<Vec3>&) { takeState(state); }

Energies AllPairsCpuBackend::evaluateForces() {
  if (state_.positions.size() != system_.size()) throw Error("AllPairsCpuBackend: computeForces() before setState()");
  ScopedTimer t(timers_, "all-pairs");
  const AllPairsResult r = allPairsForces(state_.positions, system_.mass, system_.type, params_, forces_, threads_);
  Energies e;
  e.pair = r.energy;
  e.virial = r.virial;
  energies_ = e;
  return e;
}

}  // namespace faraday
