#pragma once
#include <memory>

#include "core/System.h"
#include "integrators/Integrator.h"
#include "integrators/IntegratorParams.h"

namespace faraday {

/// The integrator of params.type (velocity Verlet or Langevin BAOAB); throws Error for
/// invalid values.
std::unique_ptr<CpuIntegrator> makeCpuIntegrator(const IntegratorParams& params, const System& system, int threads);

}  // namespace faraday
