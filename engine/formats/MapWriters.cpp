#include "engine/formats/MapWriters.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "core/Error.h"
#include "engine/formats/AtomicFile.h"
#include "core/Units.h"

namespace faraday {

double mapUnitFactor(MapUnits u, double temperature) {
  if (u == MapUnits::KjPerMolE) return 1.0;
  if (u == MapUnits::Volt) return units::kVoltPerKjMolE;
  if (!(temperature > 0) || !std::isfinite(temperature))
    throw keyError("map.temperature", "must be a positive number of K for units kT/e");
  return 1.0 / (units::kBoltzmann * temperature);
}

namespace {

/// Writes via `fill` into file.tmp, then renames over `file`: a reader never sees half a map,
/// and a failed write (a full disk) leaves no temporary file behind.
template <typename Fill>
void writeAtomically(const std::filesystem::path& file, Fill fill) {
  AtomicFileWriter writer(file);
  fill(writer.out());
  writer.commit();
}

void checkValues(const Lattice& l, const std::vector<double>& v) {
  if (v.size() != l.size()) throw Error("map writer: value count does not match the lattice");
}

}  // namespace

std::string dxDataText(const Lattice& l, const std::vector<double>& v, std::size_t first, std::size_t last) {
  std::string text((last - first) * 17, '\0');  // "-d.dddddddde+ddd" and a separator
  char* at = text.data();
  const std::size_t nyz = std::size_t(l.ny) * std::size_t(l.nz);
  for (std::size_t q = first; q < last; ++q) {
    const int i = int(q / nyz), j = int(q % nyz / std::size_t(l.nz)), k = int(q % std::size_t(l.nz));
    // As printf's "%.8e" in the C locale (std::to_chars guarantees it).
    const std::to_chars_result r =
        std::to_chars(at, text.data() + text.size() - 1, v[l.index(i, j, k)], std::chars_format::scientific, 8);
    if (r.ec != std::errc()) throw Error("map writer: a value does not fit its field");
    at = r.ptr;
    *at++ = (q + 1) % 3 == 0 || q + 1 == l.size() ? '\n' : ' ';
  }
  text.resize(std::size_t(at - text.data()));
  return text;
}

void writeOpenDx(const std::filesystem::path& file, const Lattice& l, const std::vector<double>& v,
                 const std::string& comment) {
  checkValues(l, v);
  const double A = units::kAngstromPerNm;
  writeAtomically(file, [&](std::ostream& out) {
    char line[256];
    out << "# " << comment << "\n";
    std::snprintf(line, sizeof line, "object 1 class gridpositions counts %d %d %d\n", l.nx, l.ny, l.nz);
    out << line;
    std::snprintf(line, sizeof line, "origin %.9e %.9e %.9e\n", A * l.origin.x, A * l.origin.y, A * l.origin.z);
    out << line;
    // The step vectors: non-orthogonal delta lines for a lattice along a triclinic cell.
    for (const Vec3& d : {l.stepX(), l.stepY(), l.stepZ()}) {
      std::snprintf(line, sizeof line, "delta %.9e %.9e %.9e\n", A * d.x, A * d.y, A * d.z);
      out << line;
    }
    std::snprintf(line, sizeof line, "object 2 class gridconnections counts %d %d %d\n", l.nx, l.ny, l.nz);
    out << line;
    std::snprintf(line, sizeof line, "object 3 class array type double rank 0 items %zu data follows\n", l.size());
    out << line;
    // z fastest (DX order), 3 values per line; 9 significant digits (float maps lose nothing).
    // Blocks of lines formatted by the threads, written in order.
    const std::size_t n = l.size();
    constexpr std::size_t kBlockValues = 3 * 16384, kBatchBlocks = 64;
    const std::size_t blocks = (n + kBlockValues - 1) / kBlockValues;
    std::vector<std::string> text(std::min(blocks, kBatchBlocks));
    for (std::size_t b0 = 0; b0 < blocks; b0 += kBatchBlocks) {
      const std::size_t batch = std::min(kBatchBlocks, blocks - b0);
#pragma omp parallel for schedule(dynamic)
      for (std::size_t b = 0; b < batch; ++b)
        text[b] = dxDataText(l, v, (b0 + b) * kBlockValues, std::min(n, (b0 + b + 1) * kBlockValues));
      for (std::size_t b = 0; b < batch; ++b) out.write(text[b].data(), std::streamsize(text[b].size()));
    }
    out << "attribute \"dep\" string \"positions\"\n";
    out << "object \"regular positions regular connections\" class field\n";
    out << "component \"positions\" value 1\n";
    out << "component \"connections\" value 2\n";
    out << "component \"data\" value 3\n";
  });
}

void writeMrc(const std::filesystem::path& file, const Lattice& l, const std::vector<double>& v) {
  checkValues(l, v);
  const float A = float(units::kAngstromPerNm);
  std::int32_t iw[256] = {};
  float* fw = reinterpret_cast<float*>(iw);
  iw[0] = l.nx;  // NC, NR, NS: columns x, rows y, sections z
  iw[1] = l.ny;
  iw[2] = l.nz;
  iw[3] = 2;  // mode 2: float32
  iw[4] = iw[5] = iw[6] = 0;  // NCSTART..: start at 0, origin given in words 50-52
  iw[7] = l.nx;  // MX, MY, MZ: sampling = the grid itself
  iw[8] = l.ny;
  iw[9] = l.nz;
  // The cell the lattice tiles (MX u, MY v, MZ w): lengths in Angstrom and the angles alpha,
  // beta, gamma, with u along x and v in the xy plane (the CCP4 convention).
  const Box cell = l.cell();
  const Vec3 lengths = cell.edgeLengths(), angles = cell.angles();
  for (int d = 0; d < 3; ++d) {
    fw[10 + d] = A * float(lengths[d]);
    fw[13 + d] = float(angles[d]);
  }
  iw[16] = 1;  // MAPC, MAPR, MAPS: x, y, z
  iw[17] = 2;
  iw[18] = 3;
  double lo = v.empty() ? 0 : v[0], hi = lo, mean = 0, sq = 0;
  for (double x : v) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    mean += x;
  }
  mean /= double(std::max<std::size_t>(v.size(), 1));
  for (double x : v) sq += (x - mean) * (x - mean);
  fw[19] = float(lo);
  fw[20] = float(hi);
  fw[21] = float(mean);
  iw[22] = 1;      // ISPG: 1, a single volume (MRC2014)
  iw[27] = 20140;  // NVERSION: MRC2014, format version 0
  fw[49] = A * float(l.origin.x);  // ORIGIN (MRC2014), Angstrom
  fw[50] = A * float(l.origin.y);
  fw[51] = A * float(l.origin.z);
  std::memcpy(&iw[52], "MAP ", 4);
  const unsigned char stamp[4] = {0x44, 0x44, 0x00, 0x00};  // little-endian IEEE
  static_assert(std::endian::native == std::endian::little, "MRC writer assumes a little-endian host");
  std::memcpy(&iw[53], stamp, 4);
  fw[54] = float(std::sqrt(sq / double(std::max<std::size_t>(v.size(), 1))));  // RMS deviation
  iw[55] = 1;  // one label
  const char label[] = "faraday potential map";
  std::memcpy(&iw[56], label, sizeof label - 1);
  writeAtomically(file, [&](std::ostream& out) {
    out.write(reinterpret_cast<const char*>(iw), 1024);
    std::vector<float> f(v.begin(), v.end());
    out.write(reinterpret_cast<const char*>(f.data()), std::streamsize(f.size() * sizeof(float)));
  });
}

namespace {

/// The extension of `file` in lower case.
std::string lowerExtension(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext;
}

}  // namespace

bool isMapFormat(const std::filesystem::path& file) {
  const std::string ext = lowerExtension(file);
  return ext == ".dx" || ext == ".mrc" || ext == ".ccp4" || ext == ".map";
}

void checkMapFormat(const std::filesystem::path& file) {
  if (!isMapFormat(file))
    throw keyError("map.file", "'" + file.string() + "': unknown map format (use " + kMapFormats + ")");
}

void writeMap(const std::filesystem::path& file, const Lattice& l, const std::vector<double>& v,
              const std::string& comment) {
  checkMapFormat(file);
  if (lowerExtension(file) == ".dx")
    writeOpenDx(file, l, v, comment);
  else
    writeMrc(file, l, v);
}

}  // namespace faraday
