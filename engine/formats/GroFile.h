#pragma once
#include <filesystem>
#include <string>

#include "engine/formats/Coordinates.h"

namespace faraday {

/// Reads a GROMACS .gro file: title, atom count, fixed-column atom lines (resid 5,
/// resname 5, atom name 5, atom number 5, then x y z in nm and optionally vx vy vz in
/// nm/ps, with the field width taken from the decimal points of the first atom line),
/// and the box line: "v1(x) v2(y) v3(z)" for a rectangular box, or the nine numbers
/// "v1(x) v2(y) v3(z) v1(y) v1(z) v2(x) v2(z) v3(x) v3(y)" of a triclinic one (nm), brought to
/// the reduced form of core/Box.h (an Error naming the line when v1(y), v1(z) or v2(z) is not
/// 0, or a diagonal element is not positive).
Coordinates readGro(const std::filesystem::path& file);

/// .gro text: positions with `decimals` decimals (GROMACS: 3), velocities with one more; the
/// box as three numbers, or nine when it is triclinic (GROMACS's order).
std::string groText(const Coordinates& coordinates, int decimals = 3);

/// Writes `coordinates` as .gro atomically (temp file then rename).
void writeGro(const std::filesystem::path& file, const Coordinates& coordinates, int decimals = 3);

}  // namespace faraday
