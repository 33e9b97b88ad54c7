#pragma once
// Coordinate files by extension: .gro (GroFile.h) or .pdb (PdbFile.h).
#include <filesystem>

#include "engine/formats/Coordinates.h"

namespace faraday {

/// Reads a .gro or .pdb file (by extension). Throws Error "file:line: what".
Coordinates readCoordinates(const std::filesystem::path& file);

}  // namespace faraday
