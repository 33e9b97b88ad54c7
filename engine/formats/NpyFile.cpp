#include "engine/formats/NpyFile.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "engine/formats/AtomicFile.h"
#include "core/Error.h"

namespace faraday {

void writeNpy(const std::filesystem::path& file, const std::vector<std::vector<Vec3>>& frames, bool squeeze) {
  const std::size_t atoms = frames.empty() ? 0 : frames.front().size();
  for (const auto& f : frames)
    if (f.size() != atoms) throw fileError(file.string(), 0, "forces of frames with different atom counts");
  std::string shape = "(";
  if (!(squeeze && frames.size() == 1)) shape += std::to_string(frames.size()) + ", ";
  shape += std::to_string(atoms) + ", 3)";
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }";
  // Magic (6) + version (2) + header length (2) + header, padded with blanks to a multiple of
  // 64 bytes and ended by a newline.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += '\x01';
  bytes += '\x00';
  const auto length = std::uint16_t(header.size());
  bytes += char(length & 0xff);
  bytes += char(length >> 8);
  bytes += header;
  static_assert(sizeof(double) == 8, "float64");
  for (const auto& f : frames)
    for (const Vec3& v : f)
      for (const double x : {v.x, v.y, v.z}) {
        char b[8];
        std::memcpy(b, &x, 8);  // little-endian hosts only (x86-64, aarch64)
        bytes.append(b, 8);
      }
  writeFileAtomically(file, bytes);
}

}  // namespace faraday
