#pragma once
#include <string>
#include <vector>

#include "engine/backends/CpuBackendBase.h"
#include "kernels/nbody/AllPairs.h"

namespace faraday {

/// nonbonded.mode = all-pairs on the CPU: open boundaries, every pair once by the double-
/// precision triangular loop (allPairsForces), softened gravity or the typed pair force,
/// velocity Verlet. No neighbor list (listReference() is empty, neighborListBuilds() 0) and
/// no box: positions are never wrapped, and the state's box is carried along only for the
/// outputs. Phase times: "all-pairs", "integrate".
class AllPairsCpuBackend : public CpuBackendBase {
 public:
  AllPairsCpuBackend(const AllPairsRunParams& params, const System& system, Timers* timers);

  std::string name() const override { return "cpu (all pairs)"; }
  void setState(const State& state, const std::vector<Vec3>& listReference) override;
  std::vector<Vec3> listReference() override { return {}; }
  long long neighborListBuilds() const override { return 0; }

 protected:
  Energies evaluateForces() override;

 private:
  AllPairsParams params_;
};

}  // namespace faraday
