#include "engine/formats/XtcFile.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "core/Error.h"
#include "engine/formats/XtcCodec.h"

namespace faraday {
namespace {

namespace fs = std::filesystem;

/// magic, atoms, step, time, box (9 floats) and the coordinate block's atom count.
constexpr std::size_t kHeaderBytes = 4 * (4 + 9 + 1);
/// precision, minimum and maximum integers (3 + 3), small-difference index, byte count.
constexpr std::size_t kCompressedHeaderBytes = 4 * (1 + 6 + 1 + 1);

std::string frameName(long long index) { return "frame " + std::to_string(index + 1); }

/// Frame offsets and steps from one pass over the headers.
struct FrameIndex {
  std::size_t atoms = 0;
  std::vector<long long> offsets{0};
  std::vector<long long> steps;
  std::string incomplete;  ///< why the bytes after the last whole frame are no frame ("" when none)
};

void readAt(std::FILE* f, const fs::path& path, long long offset, unsigned char* out, std::size_t bytes) {
  if (std::fseek(f, offset, SEEK_SET) != 0 || std::fread(out, 1, bytes, f) != bytes)
    throw fileError(path.string(), 0, "read failed at byte " + std::to_string(offset) + ": " + systemReason());
}

/// Scans the frame headers of `path`. Throws Error naming the frame for a header that is no
/// XTC; a last frame that the file ends inside is reported in `incomplete`.
FrameIndex scanFrames(std::FILE* f, const fs::path& path, long long expectedAtoms) {
  FrameIndex index;
  const auto size = (long long)fs::file_size(path);
  unsigned char head[kHeaderBytes + kCompressedHeaderBytes];
  while (index.offsets.back() < size) {
    const long long at = index.offsets.back();
    const long long frame = (long long)index.steps.size();
    const auto corrupt = [&](const std::string& what) {
      return fileError(path.string(), 0, frameName(frame) + " (at byte " + std::to_string(at) + "): " + what +
                                             " (frames count from 1)");
    };
    const auto got = std::size_t(std::min<long long>((long long)sizeof head, size - at));
    readAt(f, path, at, head, got);
    xtc::XdrCursor in(head, got);
    try {
      const std::int32_t magic = in.getInt("the header");
      if (magic != xtc::kMagic)
        throw corrupt("not an XTC frame: magic number " + std::to_string(magic) + ", expected " +
                      std::to_string(xtc::kMagic));
      const std::int32_t atoms = in.getInt("the header");
      if (frame == 0) {
        if (atoms <= 0) throw corrupt("the atom count is " + std::to_string(atoms));
        if (expectedAtoms >= 0 && atoms != expectedAtoms) throw atomCountError(path, std::size_t(atoms), expectedAtoms);
        index.atoms = std::size_t(atoms);
      } else if (atoms < 0 || std::size_t(atoms) != index.atoms) {
        throw corrupt(std::to_string(atoms) + " atoms, the first frame has " + std::to_string(index.atoms));
      }
      const long long step = in.getInt("the header");
      for (int k = 0; k < 10; ++k) in.getFloat("the header");  // time and box
      const std::int32_t blockAtoms = in.getInt("the header");
      if (blockAtoms != atoms)
        throw corrupt("the coordinates are of " + std::to_string(blockAtoms) + " atoms, the header says " +
                      std::to_string(atoms));
      long long bytes = kHeaderBytes;
      if (std::size_t(atoms) <= xtc::kMaxUncompressedAtoms) {
        bytes += 12LL * atoms;
      } else {
        for (int k = 0; k < 8; ++k) in.getInt("the compressed-coordinate header");
        const std::int32_t stream = in.getInt("the compressed-coordinate header");
        // Every atom takes at least 2 bits of the stream and at most 13 bytes.
        if (stream < 0 || std::size_t(stream) > xtc::maxStreamBytes(std::size_t(atoms)) || 4LL * stream < atoms)
          throw corrupt("a stream of " + std::to_string(stream) + " bytes cannot hold " + std::to_string(atoms) +
                        " atoms");
        bytes += kCompressedHeaderBytes + (long long)xtc::paddedBytes(std::size_t(stream));
      }
      if (bytes > size - at) {
        index.incomplete = frameName(frame) + " is cut short: the file ends after " + std::to_string(size - at) +
                           " of its " + std::to_string(bytes) + " bytes (frames count from 1)";
        break;
      }
      index.steps.push_back(step);
      index.offsets.push_back(at + bytes);
    } catch (const xtc::CodecError&) {
      index.incomplete = frameName(frame) + " is cut short: the file ends inside its header (frames count from 1)";
      break;
    }
  }
  return index;
}

FileHandle openFile(const fs::path& file, const char* mode, const std::string& failure) {
  FileHandle f(std::fopen(file.c_str(), mode));
  if (!f) {
    if (mode[0] == 'r' && !fs::exists(file)) throw fileError(file.string(), 0, "trajectory file not found");
    throw fileError(file.string(), 0, failure + ": " + systemReason());
  }
  return f;
}

float checkedPrecision(const fs::path& file, double precision) {
  if (!(precision > 0) || !std::isfinite(float(precision)) || float(precision) <= 0)
    throw fileError(file.string(), 0, "XTC precision must be a positive float (got " + std::to_string(precision) + ")");
  return float(precision);
}

}  // namespace

// ---- writer ------------------------------------------------------------------------------

XtcWriter::XtcWriter(const fs::path& file, std::size_t atoms, double precision)
    : path_(file), file_(openFile(file, "wb", "cannot create the trajectory file")), atoms_(atoms),
      precision_(checkedPrecision(file, precision)) {}

namespace {

FrameIndex scanForAppend(const fs::path& file, std::size_t atoms) {
  FileHandle f = openFile(file, "rb", "cannot read the trajectory file to append");
  return scanFrames(f.get(), file, (long long)atoms);
}

/// The frames of `index` a restart at `lastStep` keeps: those up to it, which must reach
/// within `interval` of it (else the frames between are missing).
std::size_t keptFrames(const FrameIndex& index, const fs::path& file, long long interval, long long lastStep) {
  const auto& steps = index.steps;
  if (steps.size() >= 2 && steps[1] - steps[0] != interval) throw appendIntervalError(file, steps[1] - steps[0], interval);
  std::size_t keep = 0;
  while (keep < steps.size() && steps[keep] <= lastStep) ++keep;
  if (keep > 0 && steps[keep - 1] + interval <= lastStep) throw appendGapError(file, (long long)keep, steps[keep - 1], lastStep);
  return keep;
}

}  // namespace

long long XtcWriter::framesToKeep(const fs::path& file, std::size_t atoms, long long interval, long long lastStep) {
  return (long long)keptFrames(scanForAppend(file, atoms), file, interval, lastStep);
}

XtcWriter XtcWriter::append(const fs::path& file, std::size_t atoms, long long interval, long long lastStep,
                            double precision) {
  const FrameIndex index = scanForAppend(file, atoms);
  const std::size_t keep = keptFrames(index, file, interval, lastStep);
  std::filesystem::resize_file(file, std::uintmax_t(index.offsets[keep]));
  XtcWriter w;
  w.path_ = file;
  w.file_ = openFile(file, "ab", "cannot reopen the trajectory file to append");
  w.atoms_ = atoms;
  w.precision_ = checkedPrecision(file, precision);
  w.frames_ = (long long)keep;
  return w;
}

void XtcWriter::writeFrame(const std::vector<Vec3>& positions, const Box& box, long long step, double time) {
  const std::string where = "cannot write the frame of step " + std::to_string(step) + ": ";
  if (positions.size() != atoms_) throw fileError(path_.string(), 0, where + "wrong number of atoms");
  if (step < INT_MIN || step > INT_MAX) throw fileError(path_.string(), 0, where + "XTC stores steps in 32 bits");
  buffer_.clear();
  xtc::putInt(buffer_, xtc::kMagic);
  xtc::putInt(buffer_, std::int32_t(atoms_));
  xtc::putInt(buffer_, std::int32_t(step));
  xtc::putFloat(buffer_, float(time));
  for (const Vec3& v : {box.a, box.b, box.c})
    for (int k = 0; k < 3; ++k) xtc::putFloat(buffer_, float(v[k]));
  try {
    xtc::encodeCoordinates(buffer_, positions, precision_);
  } catch (const xtc::CodecError& e) {
    throw fileError(path_.string(), 0, where + e.what);
  }
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_.get()) != buffer_.size() || std::fflush(file_.get()) != 0)
    throw fileError(path_.string(), 0, "write failed: " + systemReason());
  ++frames_;
}

// ---- reader ------------------------------------------------------------------------------

XtcReader::XtcReader(const fs::path& file, long long expectedAtoms)
    : path_(file), file_(openFile(file, "rb", "cannot read the trajectory file")) {
  FrameIndex index = scanFrames(file_.get(), path_, expectedAtoms);
  if (!index.incomplete.empty()) throw fileError(path_.string(), 0, index.incomplete);
  atoms_ = index.steps.empty() && expectedAtoms >= 0 ? std::size_t(expectedAtoms) : index.atoms;
  offsets_ = std::move(index.offsets);
  steps_ = std::move(index.steps);
}

void XtcReader::readFrame(long long index, TrajectoryFrame& frame) {
  if (index < 0 || index >= frames())
    throw fileError(path_.string(), 0, "frame " + std::to_string(index) + " out of range (" + std::to_string(frames()) + " frames)");
  const auto at = offsets_[std::size_t(index)];
  buffer_.resize(std::size_t(offsets_[std::size_t(index) + 1] - at));
  readAt(file_.get(), path_, at, buffer_.data(), buffer_.size());
  xtc::XdrCursor in(buffer_.data(), buffer_.size());
  try {
    in.getInt("the header");  // magic and atom count, checked by the scan
    in.getInt("the header");
    frame.step = in.getInt("the header");
    frame.time = double(in.getFloat("the header"));
    float box[9];
    for (float& b : box) b = in.getFloat("the box");
    frame.hasBox = std::any_of(box, box + 9, [](float b) { return b != 0; });
    frame.box = Box{{box[0], box[1], box[2]}, {box[3], box[4], box[5]}, {box[6], box[7], box[8]}};
    xtc::decodeCoordinates(in, atoms_, frame.positions);
  } catch (const xtc::CodecError& e) {
    throw fileError(path_.string(), 0, frameName(index) + " of " + std::to_string(frames()) + ": " + e.what +
                                           " (frames count from 1)");
  }
  checkFrameValues(path_, index, frames(), frame);
}

}  // namespace faraday
