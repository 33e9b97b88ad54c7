#pragma once
// The integrator's parameters (built from the configuration by engine/config/KernelParams.h,
// which checks each value where it is read; the integrators check only what they divide by).

namespace faraday {

/// Velocity Verlet (NVE) or Langevin BAOAB (NVT).
enum class IntegratorType { Verlet, Langevin };

struct IntegratorParams {
  IntegratorType type = IntegratorType::Verlet;
  double dt = 0.002;            ///< time step, ps (> 0)
  double temperature = 300;     ///< bath temperature, K (langevin; >= 0)
  double friction = 1.0;        ///< friction coefficient, 1/ps (langevin; >= 0)
  unsigned long long seed = 1;  ///< seed of the Langevin noise
  /// Relative length error of the iterative constraint solves, in (0, 1)
  /// (integrators/NOTES.md: why 1e-6).
  double constraintTolerance = 1e-6;
};

/// The integrators' precondition on `params` (CPU and GPU): Error naming the parameter for a
/// time step that is not a positive finite number and, with Langevin, a negative friction or
/// temperature. The configuration checks each value where it reads it.
void checkIntegratorParams(const IntegratorParams& params);

}  // namespace faraday
