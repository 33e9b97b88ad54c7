#include "engine/Error.h"
#include "kernels/pme/Electrostatics.h"

namespace faraday {

std::unique_ptr<ReciprocalSolver> makeReciprocalSolver(const EwaldSetup& setup, const System& system, bool useCuda,
                                                       int threads) {
  if (setup.method == "none") return nullptr;
  throw Error("electrostatics.method = " + setup.method + " is not available in this build");
}

}  // namespace faraday
