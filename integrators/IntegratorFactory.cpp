#include "integrators/IntegratorFactory.h"

#include "core/Error.h"
#include "integrators/Langevin.h"
#include "integrators/VelocityVerlet.h"

namespace faraday {

std::unique_ptr<CpuIntegrator> makeCpuIntegrator(const IntegratorParams& params, const System& system, int threads) {
  if (params.type == "verlet") return std::make_unique<VelocityVerlet>(system, params, threads);
  if (params.type == "langevin") return std::make_unique<LangevinBaoab>(system, params, threads);
  throw keyError("integrator.type", "'" + params.type + "' is not one of verlet, langevin");
}

}  // namespace faraday
