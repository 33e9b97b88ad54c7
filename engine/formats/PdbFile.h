#pragma once
#include <filesystem>
#include <string>

#include "engine/formats/Coordinates.h"

namespace faraday {

/// Reads the first model of a PDB file: ATOM/HETATM fixed columns (Angstrom, converted
/// to nm) and the box from CRYST1 (required): edge lengths and angles, with a along x and b
/// in the xy plane as PDB defines the orthogonal frame, brought to the reduced form of
/// core/Box.h (an Error naming the line for angles that describe no cell).
Coordinates readPdb(const std::filesystem::path& file);

/// PDB text (CRYST1 with the box's edge lengths and angles, ATOM records, END) in Angstrom
/// with 3 decimals.
std::string pdbText(const Coordinates& coordinates);

/// Writes `coordinates` as PDB atomically.
void writePdb(const std::filesystem::path& file, const Coordinates& coordinates);

}  // namespace faraday
