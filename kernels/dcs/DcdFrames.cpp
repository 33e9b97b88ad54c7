#include "kernels/dcs/DcdFrames.h"

#include <cstring>

#include "engine/Error.h"
#include "engine/Units.h"

namespace faraday {

namespace {
std::uint32_t byteSwap(std::uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}
}  // namespace

std::int32_t DcdFrames::readInt() {
  std::uint32_t v = 0;
  in_.read(reinterpret_cast<char*>(&v), 4);
  if (!in_) throw fileError(file_.string(), 0, "truncated DCD file");
  return std::int32_t(swap_ ? byteSwap(v) : v);
}

void DcdFrames::readRecord(std::vector<char>& buffer) {
  const std::int32_t n = readInt();
  if (n < 0 || n > (1 << 30)) throw fileError(file_.string(), 0, "corrupt DCD record marker");
  buffer.resize(std::size_t(n));
  in_.read(buffer.data(), n);
  if (!in_ || readInt() != n) throw fileError(file_.string(), 0, "truncated or corrupt DCD record");
}

DcdFrames::DcdFrames(const std::filesystem::path& file) : file_(file), in_(file, std::ios::binary) {
  if (!in_) throw fileError(file.string(), 0, "cannot open trajectory");
  std::uint32_t first = 0;
  in_.read(reinterpret_cast<char*>(&first), 4);
  if (!in_ || (first != 84 && byteSwap(first) != 84))
    throw fileError(file.string(), 0, "not a DCD file (first record is not 84 bytes)");
  swap_ = first != 84;
  in_.seekg(0);
  std::vector<char> h;
  readRecord(h);
  if (h.size() != 84 || std::memcmp(h.data(), "CORD", 4) != 0) throw fileError(file.string(), 0, "not a DCD file");
  auto icntrl = [&](int i) {
    std::uint32_t v;
    std::memcpy(&v, h.data() + 4 + 4 * i, 4);
    return std::int32_t(swap_ ? byteSwap(v) : v);
  };
  if (icntrl(8) != 0) throw fileError(file.string(), 0, "DCD files with fixed atoms are not supported");
  const bool charmm = icntrl(19) != 0;
  hasCell_ = charmm && icntrl(10) != 0;
  readRecord(h);  // title
  readRecord(h);  // atom count
  if (h.size() != 4) throw fileError(file.string(), 0, "corrupt DCD atom-count record");
  std::uint32_t n;
  std::memcpy(&n, h.data(), 4);
  atoms_ = int(swap_ ? byteSwap(n) : n);
  if (atoms_ <= 0) throw fileError(file.string(), 0, "DCD has no atoms");
  const std::streamoff headerEnd = in_.tellg();
  in_.seekg(0, std::ios::end);
  const std::streamoff size = in_.tellg() - headerEnd;
  const std::streamoff frameBytes = (hasCell_ ? 56 : 0) + 3 * (8 + 4 * std::streamoff(atoms_));
  frames_ = size / frameBytes;
  in_.seekg(headerEnd);
}

bool DcdFrames::next(std::vector<Vec3>& positions, Box* box) {
  if (read_ >= frames_) return false;
  if (hasCell_) {
    readRecord(buf_);
    if (buf_.size() != 48) throw fileError(file_.string(), 0, "corrupt DCD unit-cell record");
    double cell[6];
    for (int i = 0; i < 6; ++i) {
      std::uint64_t v;
      std::memcpy(&v, buf_.data() + 8 * i, 8);
      if (swap_) v = (std::uint64_t(byteSwap(std::uint32_t(v))) << 32) | byteSwap(std::uint32_t(v >> 32));
      std::memcpy(&cell[i], &v, 8);
    }
    // CHARMM order: A, gamma, B, beta, alpha, C (Angstrom, angles); rectangular boxes only.
    if (box) *box = Box::rectangular(cell[0] / units::kAngstromPerNm, cell[2] / units::kAngstromPerNm,
                                     cell[5] / units::kAngstromPerNm);
  }
  for (int d = 0; d < 3; ++d) {
    readRecord(buf_);
    if (buf_.size() != 4 * std::size_t(atoms_)) throw fileError(file_.string(), 0, "corrupt DCD coordinate record");
    coord_[d].resize(atoms_);
    std::memcpy(coord_[d].data(), buf_.data(), buf_.size());
    if (swap_)
      for (float& f : coord_[d]) {
        std::uint32_t v;
        std::memcpy(&v, &f, 4);
        v = byteSwap(v);
        std::memcpy(&f, &v, 4);
      }
  }
  positions.resize(atoms_);
  for (int a = 0; a < atoms_; ++a)
    positions[a] = Vec3{coord_[0][a], coord_[1][a], coord_[2][a]} / units::kAngstromPerNm;
  ++read_;
  return true;
}

}  // namespace faraday
