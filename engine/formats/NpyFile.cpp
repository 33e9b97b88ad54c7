#include "engine/formats/NpyFile.h"

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>

#include "engine/formats/AtomicFile.h"
#include "core/Error.h"

namespace faraday {
namespace {

/// The .npy preamble for `shape` ("(3, 108, 3)"): magic (6), version 1.0 (2), header length
/// (2) and the header dict, padded with blanks to a multiple of 64 bytes (and to at least
/// `length` bytes in all) and ended by a newline.
std::string npyHeader(const std::string& shape, std::size_t length = 0) {
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }";
  const std::size_t unpadded = 10 + header.size() + 1;
  std::size_t total = unpadded + (64 - unpadded % 64) % 64;
  if (length > total) total = length;
  header.append(total - unpadded, ' ');
  header += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += '\x01';
  bytes += '\x00';
  const auto size = std::uint16_t(header.size());
  bytes += char(size & 0xff);
  bytes += char(size >> 8);
  return bytes + header;
}

/// "(d0, d1, ..., 3)": the shape of an array of vectors.
std::string shapeOfVectors(std::initializer_list<long long> dims) {
  std::string shape = "(";
  for (const long long d : dims) {
    shape += std::to_string(d);
    shape += ", ";
  }
  shape += "3)";
  return shape;
}

/// `frame` as float64 bytes, x y z per atom.
void appendFloat64(std::string& bytes, const std::vector<Vec3>& frame) {
  static_assert(sizeof(double) == 8, "float64");
  for (const Vec3& v : frame)
    for (const double x : {v.x, v.y, v.z}) {
      char b[8];
      std::memcpy(b, &x, 8);  // little-endian hosts only (x86-64, aarch64)
      bytes.append(b, 8);
    }
}

}  // namespace

void writeNpy(const std::filesystem::path& file, const std::vector<std::vector<Vec3>>& frames, bool squeeze) {
  const std::size_t atoms = frames.empty() ? 0 : frames.front().size();
  for (const auto& f : frames)
    if (f.size() != atoms) throw fileError(file.string(), 0, "forces of frames with different atom counts");
  const auto n = (long long)atoms;
  const std::string shape = squeeze && frames.size() == 1 ? shapeOfVectors({n}) : shapeOfVectors({(long long)frames.size(), n});
  std::string bytes = npyHeader(shape);
  for (const auto& f : frames) appendFloat64(bytes, f);
  writeFileAtomically(file, bytes);
}

NpyFramesWriter::NpyFramesWriter(const std::filesystem::path& file, std::size_t atoms, long long maxFrames)
    : file_(std::make_unique<AtomicFileWriter>(file)), atoms_(atoms), maxFrames_(maxFrames),
      headerBytes_(npyHeader(shapeOfVectors({maxFrames, (long long)atoms})).size()) {
  // A device or a FIFO cannot seek back to the header: it announces every frame at once.
  const long long announced = file_->writesThrough() ? maxFrames : 0;
  file_->out() << npyHeader(shapeOfVectors({announced, (long long)atoms}), headerBytes_);
  file_->flush();
}

NpyFramesWriter::~NpyFramesWriter() = default;

void NpyFramesWriter::write(const std::vector<Vec3>& frame) {
  const std::string name = file_->path().string();
  if (frame.size() != atoms_) throw fileError(name, 0, "forces of frames with different atom counts");
  if (frames_ >= maxFrames_) throw fileError(name, 0, "more frames than the " + std::to_string(maxFrames_) + " announced");
  std::string bytes;
  bytes.reserve(24 * atoms_);
  appendFloat64(bytes, frame);
  std::ostream& out = file_->out();
  if (!file_->writesThrough()) out.seekp(0, std::ios::end);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  ++frames_;
  // The data first, then the count that covers it: the file is valid at every moment.
  file_->flush();
  if (file_->writesThrough()) return;
  out.seekp(0);
  out << npyHeader(shapeOfVectors({frames_, (long long)atoms_}), headerBytes_);
  file_->flush();
}

void NpyFramesWriter::commit() { file_->commit(); }

}  // namespace faraday
