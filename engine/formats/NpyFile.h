#pragma once
#include <cstddef>
#include <filesystem>
#include <vector>

#include "core/Vec3.h"

namespace faraday {

/// Writes `frames` (each N vectors) as a NumPy .npy file (format 1.0, little-endian float64,
/// C order) of shape (frames, N, 3), or (N, 3) when `squeeze` and there is one frame:
/// numpy.load reads it as is. Written atomically (FILE.tmp, then rename).
void writeNpy(const std::filesystem::path& file, const std::vector<std::vector<Vec3>>& frames, bool squeeze);

}  // namespace faraday
