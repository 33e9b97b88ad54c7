#include "engine/KernelParams.h"

namespace faraday {

EwaldSetup chooseEwaldSetup(const Config& config, const Box& box) {
  return chooseEwaldSetup(config.electrostatics, config.nonbonded.cutoff, box);
}

NonbondedOptions nonbondedOptions(const Config& config, const EwaldSetup& ewald, int threads) {
  NonbondedOptions o;
  o.cutoff = config.nonbonded.cutoff;
  o.ljShift = config.nonbonded.ljShift;
  o.ewaldBeta = ewald.method == "none" ? 0.0 : ewald.beta;
  o.coulombShift = config.nonbonded.coulombModifier == "potential-shift";
  o.threads = threads;
  return o;
}

}  // namespace faraday
