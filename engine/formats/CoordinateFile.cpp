#include "engine/formats/CoordinateFile.h"

#include <algorithm>
#include <cctype>

#include "core/Error.h"
#include "engine/formats/GroFile.h"
#include "engine/formats/PdbFile.h"

namespace faraday {

Coordinates readCoordinates(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (ext == ".gro") return readGro(file);
  if (ext == ".pdb") return readPdb(file);
  throw fileError(file.string(), 0, "unknown coordinate format '" + ext + "' (expected .gro or .pdb)");
}

}  // namespace faraday
