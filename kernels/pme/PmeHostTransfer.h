#pragma once
// Host-side halves of the GPU PME transfers, threaded with OpenMP (the .cu files are not
// compiled with OpenMP): staging positions into pinned memory as fixed-point fractional
// coordinates, keeping the device copy of the charges, and adding the downloaded
// single-precision forces into the double forces.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/Vec3.h"
#include "kernels/pme/PmeGridGeometry.h"

namespace faraday::pme {

/// memcpy of `bytes` bytes split over the OpenMP threads.
void parallelCopy(void* dst, const void* src, std::size_t bytes);

/// Copies `n` values from `src` into `cache` if they differ from it; true when they did.
bool copyIfChanged(double* cache, const double* src, std::size_t n);

/// out[3i .. 3i + 2] = fractionalFixedPoints(positions[i], scales) for i < n (positions in
/// nm; scales from fractionScalesOf(box)).
void fixedPointPositions(const Vec3* positions, std::size_t n, const FractionScales& scales, std::uint32_t* out);

/// forces[i] += (f[3i], f[3i+1], f[3i+2]) for i < n (kJ/mol/nm).
void addFloatForces(const float* f, Vec3* forces, std::size_t n);

}  // namespace faraday::pme
