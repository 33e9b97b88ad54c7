#pragma once
// 64-bit fixed-point accumulation: integer addition is associative, so sums of forces
// and grid values are bitwise identical whatever the order of the contributions.
// Scale 2^32: resolution 2.3e-10 in kJ/mol/nm, range +-2.1e9 (far above any sane force).
#include <cstdint>

#include "core/HostDevice.h"

namespace faraday::fixed {

inline constexpr double kScale = 4294967296.0;  // 2^32
inline constexpr double kInvScale = 1.0 / kScale;

FARADAY_HD long long toFixed(double v) { return static_cast<long long>(v * kScale); }
FARADAY_HD long long toFixed(float v) { return static_cast<long long>(static_cast<double>(v) * kScale); }
FARADAY_HD double fromFixed(long long v) { return static_cast<double>(v) * kInvScale; }

}  // namespace faraday::fixed

namespace faraday::fixed {

/// Energies and virials summed across a GPU kernel's warps: scale 2^24, resolution 6e-8
/// kJ/mol, range +-5.5e11 kJ/mol (the Coulomb energy of 10^8 ions is ~1e11).
inline constexpr double kEnergyScale = 16777216.0;  // 2^24
FARADAY_HD long long energyToFixed(double v) { return static_cast<long long>(v * kEnergyScale); }
FARADAY_HD double energyFromFixed(long long v) { return static_cast<double>(v) / kEnergyScale; }

}  // namespace faraday::fixed
