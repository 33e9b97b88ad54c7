#pragma once
#include <cstddef>
#include <memory>

#include "kernels/pme/ReciprocalSolver.h"

namespace faraday {

/// Smooth PME on the GPU (cuFFT), for up to `numAtoms` atoms with the given parameters.
/// Defined in CudaPme.cu in CUDA builds; in builds without CUDA it throws Error.
std::unique_ptr<ReciprocalSolver> makeCudaPme(const PmeParams& params, std::size_t numAtoms);

}  // namespace faraday
