#pragma once
#include <memory>

#include "core/System.h"
#include "integrators/Integrator.h"
#include "integrators/IntegratorParams.h"

namespace faraday {

/// The integrator named by params.type ("verlet" or "langevin"); throws Error naming the
/// key for an unknown type or invalid values.
std::unique_ptr<CpuIntegrator> makeCpuIntegrator(const IntegratorParams& params, const System& system, int threads);

}  // namespace faraday
