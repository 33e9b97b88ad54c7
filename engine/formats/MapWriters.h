#pragma once
// Potential-map files: OpenDX (APBS/VMD dialect) and MRC/CCP4 mode 2, written atomically.
#include <filesystem>
#include <string>
#include <vector>

#include "kernels/dcs/Lattice.h"

namespace faraday {

/// The unit of a map's values: kT/e, volt, kJ/(mol e).
enum class MapUnits { KtPerE, Volt, KjPerMolE };

/// Factor that converts a potential in kJ/(mol e) to `units`: kJ/(mol e) (1), kT/e
/// (1 / (k_B T), T = temperature in K), V (units::kVoltPerKjMolE). Throws Error naming
/// map.temperature for kT/e without a positive temperature.
double mapUnitFactor(MapUnits units, double temperature);

/// The map formats writeMap knows, by extension (any case), as error messages list them.
inline constexpr const char* kMapFormats = ".dx (OpenDX), .mrc, .ccp4 or .map (MRC/CCP4)";
/// Whether `file`'s extension (any case) is one of kMapFormats.
bool isMapFormat(const std::filesystem::path& file);
/// Throws Error naming map.file when `file`'s extension is none of .dx, .mrc, .ccp4, .map
/// (any case): checked before a map is computed, not after.
void checkMapFormat(const std::filesystem::path& file);

/// The OpenDX data lines of values [first, last) in DX order (z fastest): each as printf's
/// "%.8e", three to a line, the last value of the lattice ending its line.
std::string dxDataText(const Lattice& lattice, const std::vector<double>& values, std::size_t first,
                       std::size_t last);
/// OpenDX as APBS writes it: gridpositions counts, origin and deltas (the lattice's step
/// vectors, not orthogonal for a lattice along a triclinic cell) in Angstrom, values
/// `type double`, 3 per line with z fastest, then the field components. `values` are in
/// the lattice's x-fastest order, already in the output unit.
void writeOpenDx(const std::filesystem::path& file, const Lattice& lattice, const std::vector<double>& values,
                 const std::string& comment);
/// MRC/CCP4 mode 2 (float32): 1024-byte header (the lattice's cell: lengths in Angstrom and
/// angles in degrees, the first step along x and the second in the xy plane; axes x,y,z, origin in
/// Angstrom, "MAP " word, little-endian machine stamp), then the values x fastest.
void writeMrc(const std::filesystem::path& file, const Lattice& lattice, const std::vector<double>& values);
/// Chooses the format by extension: .dx -> OpenDX; .mrc, .ccp4, .map -> MRC. Else Error naming map.file.
void writeMap(const std::filesystem::path& file, const Lattice& lattice, const std::vector<double>& values,
              const std::string& comment);

}  // namespace faraday
