#include "integrators/IntegratorFactory.h"

#include "integrators/Langevin.h"
#include "integrators/VelocityVerlet.h"

namespace faraday {

std::unique_ptr<CpuIntegrator> makeCpuIntegrator(const IntegratorParams& params, const System& system, int threads) {
  if (params.type == IntegratorType::Langevin) return std::make_unique<LangevinBaoab>(system, params, threads);
  return std::make_unique<VelocityVerlet>(system, params, threads);
}

}  // namespace faraday
