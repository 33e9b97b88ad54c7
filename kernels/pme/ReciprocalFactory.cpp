#include <cmath>
#include <cstdio>

#include "kernels/pme/CpuPme.h"
#include "kernels/pme/CudaPme.h"
#include "kernels/pme/Electrostatics.h"
#include "kernels/pme/Ewald.h"

namespace faraday {

std::unique_ptr<ReciprocalSolver> makeReciprocalSolver(const EwaldSetup& setup, const System& system, bool useCuda,
                                                       int threads) {
  if (setup.method == ElectrostaticsMethod::None) return nullptr;
  warnIfCharged(system);
  if (setup.method == ElectrostaticsMethod::Ewald) {
    if (useCuda) std::fprintf(stderr, "faraday: note: plain Ewald runs on the CPU (no GPU version)\n");
    return std::make_unique<EwaldSum>(setup.beta, setup.kspaceRtol, threads);
  }
  if (useCuda) return makeCudaPme(setup.pme, system.size());
  return std::make_unique<CpuPme>(setup.pme, threads);
}

}  // namespace faraday
