#pragma once
#include <filesystem>
#include <string>

#include "engine/formats/Coordinates.h"

namespace faraday {

/// Reads the first model of a PDB file: ATOM/HETATM fixed columns (Angstrom, converted
/// to nm) and the box from CRYST1 (required; angles must be 90 degrees).
Coordinates readPdb(const std::filesystem::path& file);

/// PDB text (CRYST1, ATOM records, END) in Angstrom with 3 decimals.
std::string pdbText(const Coordinates& coordinates);

/// Writes `coordinates` as PDB atomically.
void writePdb(const std::filesystem::path& file, const Coordinates& coordinates);

}  // namespace faraday
