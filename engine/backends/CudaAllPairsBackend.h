#pragma once
#include <memory>

#include "engine/backends/Backend.h"

namespace faraday {

/// nonbonded.mode = all-pairs on the GPU: positions and velocities in double on the
/// device, every pair once by the triangular warp-tile kernel (CudaAllPairs.h), forces in
/// 64-bit fixed point, velocity Verlet on the device. Throws Error when built without CUDA.
std::unique_ptr<Backend> makeCudaAllPairsBackend(const AllPairsRunParams& params, const System& system, Timers* timers);

}  // namespace faraday
