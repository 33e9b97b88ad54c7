#pragma once
#include <filesystem>
#include <string>

#include "engine/formats/Coordinates.h"

namespace faraday {

/// Reads a GROMACS .gro file: title, atom count, fixed-column atom lines (resid 5,
/// resname 5, atom name 5, atom number 5, then x y z in nm and optionally vx vy vz in
/// nm/ps, with the field width taken from the decimal points of the first atom line),
/// and the box line "lx ly lz" (nm). Only rectangular boxes are accepted.
Coordinates readGro(const std::filesystem::path& file);

/// .gro text: positions with `decimals` decimals (GROMACS: 3), velocities with one more.
std::string groText(const Coordinates& coordinates, int decimals = 3);

/// Writes `coordinates` as .gro atomically (temp file then rename).
void writeGro(const std::filesystem::path& file, const Coordinates& coordinates, int decimals = 3);

}  // namespace faraday
