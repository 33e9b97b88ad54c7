#include "engine/formats/DcdFile.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

#include "core/Error.h"
#include "core/Units.h"

namespace faraday {
namespace {

constexpr std::int32_t kHeaderRecord = 84;
constexpr std::int32_t kTitleRecord = 164;   // 4 + 2 * 80
constexpr long long kNsetOffset = 8;        // icntrl[0]
constexpr long long kNstepOffset = 20;      // icntrl[3]: last step written
constexpr long long kWriterHeaderBytes = 4 + 84 + 4 + 4 + 164 + 4 + 4 + 4 + 4;

template <typename T>
void put(std::FILE* f, const T& value, const std::filesystem::path& path) {
  if (std::fwrite(&value, sizeof(T), 1, f) != 1) throw fileError(path.string(), 0, "write failed: " + systemReason());
}

void putRecord(std::FILE* f, const void* data, std::int32_t bytes, const std::filesystem::path& path) {
  put(f, bytes, path);
  if (bytes > 0 && std::fwrite(data, 1, std::size_t(bytes), f) != std::size_t(bytes))
    throw fileError(path.string(), 0, "write failed: " + systemReason());
  put(f, bytes, path);
}

template <typename T>
T get(std::FILE* f, const std::filesystem::path& path, const char* what) {
  T value{};
  if (std::fread(&value, sizeof(T), 1, f) != 1) throw fileError(path.string(), 0, std::string("truncated DCD: ") + what);
  return value;
}

void expectMarker(std::FILE* f, std::int32_t expected, const std::filesystem::path& path, const char* what) {
  const auto m = get<std::int32_t>(f, path, what);
  if (m != expected)
    throw fileError(path.string(), 0, std::string("not a valid DCD: bad record marker in ") + what + " (" +
                    std::to_string(m) + ", expected " + std::to_string(expected) + ")");
}

/// The unit cell record [A, cos gamma, B, cos beta, cos alpha, C] (Angstrom) of `box`.
void dcdUnitCellOf(const Box& box, double cell[6]) {
  const Vec3 L = box.edgeLengths();
  const auto cosine = [](Vec3 u, Vec3 v, double lu, double lv) { return dot(u, v) / (lu * lv); };
  cell[0] = L.x * units::kAngstromPerNm;
  cell[1] = cosine(box.a, box.b, L.x, L.y);
  cell[2] = L.y * units::kAngstromPerNm;
  cell[3] = cosine(box.a, box.c, L.x, L.z);
  cell[4] = cosine(box.b, box.c, L.y, L.z);
  cell[5] = L.z * units::kAngstromPerNm;
}

/// The box of a unit cell record [A, gamma, B, beta, alpha, C] (Angstrom) as VMD's dcdplugin
/// and MDAnalysis read it: the angle entries are cosines when all three lie in [-1, 1]
/// (CHARMM, NAMD > 2.5, OpenMM, VMD), else degrees (NAMD 2.5). Not yet reduced.
Box boxOfDcdUnitCell(const double cell[6]) {
  const bool cosines = std::fabs(cell[1]) <= 1 && std::fabs(cell[3]) <= 1 && std::fabs(cell[4]) <= 1;
  const auto degrees = [&](double v) { return cosines ? 90.0 - std::asin(v) * (180.0 / units::kPi) : v; };
  const double s = 1.0 / units::kAngstromPerNm;
  return Box::fromLengthsAngles(cell[0] * s, cell[2] * s, cell[5] * s, degrees(cell[4]), degrees(cell[3]),
                                degrees(cell[1]));
}

std::uint32_t byteSwapped(std::uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

}  // namespace

// ---- writer ------------------------------------------------------------------------------

DcdWriter::DcdWriter(const std::filesystem::path& file, std::size_t atoms, long long firstStep, long long interval,
                     double timestep)
    : path_(file), atoms_(atoms), firstStep_(firstStep), interval_(interval) {
  file_ = std::fopen(file.c_str(), "wb");
  if (!file_) throw fileError(file.string(), 0, "cannot create the trajectory file: " + systemReason());
  writeHeader(firstStep, timestep);
}

namespace {

/// The frames of `reader` a restart at `lastStep` keeps: all a run writing the file would
/// have written by then (an Error when some are missing).
long long keptFrames(const DcdReader& reader, const std::filesystem::path& file, long long interval, long long lastStep) {
  if (reader.interval() != interval) throw appendIntervalError(file, reader.interval(), interval);
  const long long written = lastStep >= reader.firstStep() ? (lastStep - reader.firstStep()) / interval + 1 : 0;
  if (reader.frames() < written)
    throw appendGapError(file, reader.frames(), reader.firstStep() + (reader.frames() - 1) * interval, lastStep);
  return written;
}

}  // namespace

long long DcdWriter::framesToKeep(const std::filesystem::path& file, std::size_t atoms, long long interval,
                                  long long lastStep) {
  return keptFrames(DcdReader(file, (long long)atoms, /*allowCutLastFrame=*/true), file, interval, lastStep);
}

DcdWriter DcdWriter::append(const std::filesystem::path& file, std::size_t atoms, long long interval,
                            long long lastStep) {
  long long keep = 0, firstStep = 0;
  {
    DcdReader reader(file, (long long)atoms, /*allowCutLastFrame=*/true);
    keep = keptFrames(reader, file, interval, lastStep);
    firstStep = reader.firstStep();
  }
  DcdWriter w;
  w.path_ = file;
  w.atoms_ = atoms;
  w.firstStep_ = firstStep;
  w.interval_ = interval;
  w.frames_ = keep;
  const long long frameBytes = 56 + 3 * (8 + 4 * (long long)atoms);
  std::filesystem::resize_file(file, std::uintmax_t(kWriterHeaderBytes + keep * frameBytes));
  w.file_ = std::fopen(file.c_str(), "r+b");
  if (!w.file_) throw fileError(file.string(), 0, "cannot reopen the trajectory file to append: " + systemReason());
  w.updateHeaderCounts();
  std::fseek(w.file_, 0, SEEK_END);
  return w;
}

DcdWriter::DcdWriter(DcdWriter&& o) noexcept
    : path_(std::move(o.path_)), file_(std::exchange(o.file_, nullptr)), atoms_(o.atoms_), firstStep_(o.firstStep_),
      interval_(o.interval_), frames_(o.frames_), buffer_(std::move(o.buffer_)) {}

DcdWriter::~DcdWriter() {
  if (file_) std::fclose(file_);
}

void DcdWriter::writeHeader(long long firstStep, double timestep) {
  std::int32_t icntrl[20] = {};
  icntrl[1] = std::int32_t(firstStep);  // ISTART
  icntrl[2] = std::int32_t(interval_);  // NSAVC
  icntrl[3] = std::int32_t(firstStep);  // NSTEP, updated with each frame
  const float delta = float(timestep / units::kPsPerAkmaTime);
  std::memcpy(&icntrl[9], &delta, sizeof delta);
  icntrl[10] = 1;   // unit cell in every frame
  icntrl[19] = 24;  // CHARMM version
  put(file_, kHeaderRecord, path_);
  std::fwrite("CORD", 1, 4, file_);
  std::fwrite(icntrl, sizeof icntrl, 1, file_);
  put(file_, kHeaderRecord, path_);

  char titles[2][80];
  std::memset(titles, ' ', sizeof titles);
  const char* t1 = "Created by Faraday";
  std::memcpy(titles[0], t1, std::strlen(t1));
  const std::int32_t ntitle = 2;
  put(file_, kTitleRecord, path_);
  put(file_, ntitle, path_);
  std::fwrite(titles, sizeof titles, 1, file_);
  put(file_, kTitleRecord, path_);

  const std::int32_t natoms = std::int32_t(atoms_);
  putRecord(file_, &natoms, 4, path_);
  if (std::fflush(file_) != 0) throw fileError(path_.string(), 0, "write failed: " + systemReason());
}

void DcdWriter::updateHeaderCounts() {
  const std::int32_t nset = std::int32_t(frames_);
  const std::int32_t nstep = std::int32_t(firstStep_ + (frames_ > 0 ? frames_ - 1 : 0) * interval_);
  std::fseek(file_, kNsetOffset, SEEK_SET);
  put(file_, nset, path_);
  std::fseek(file_, kNstepOffset, SEEK_SET);
  put(file_, nstep, path_);
}

void DcdWriter::writeFrame(const std::vector<Vec3>& positions, const Box& box) {
  if (positions.size() != atoms_) throw fileError(path_.string(), 0, "frame with the wrong number of atoms");
  std::fseek(file_, 0, SEEK_END);
  double cell[6];
  dcdUnitCellOf(box, cell);
  putRecord(file_, cell, sizeof cell, path_);
  buffer_.resize(atoms_);
  for (int k = 0; k < 3; ++k) {
    for (std::size_t i = 0; i < atoms_; ++i) buffer_[i] = float(positions[i][k] * units::kAngstromPerNm);
    putRecord(file_, buffer_.data(), std::int32_t(4 * atoms_), path_);
  }
  ++frames_;
  updateHeaderCounts();
  if (std::fflush(file_) != 0) throw fileError(path_.string(), 0, "write failed: " + systemReason());
}

// ---- reader ------------------------------------------------------------------------------

DcdReader::DcdReader(const std::filesystem::path& file, long long expectedAtoms, bool allowCutLastFrame) : path_(file) {
  file_ = std::fopen(file.c_str(), "rb");
  if (!file_) {
    if (!std::filesystem::exists(file)) throw fileError(file.string(), 0, "trajectory file not found");
    throw fileError(file.string(), 0, "cannot read the trajectory file");
  }
  try {
    readHeader(expectedAtoms, allowCutLastFrame);
  } catch (...) {
    std::fclose(file_);
    file_ = nullptr;
    throw;
  }
}

DcdReader::~DcdReader() {
  if (file_) std::fclose(file_);
}

void DcdReader::readHeader(long long expectedAtoms, bool allowCutLastFrame) {
  const auto first = get<std::int32_t>(file_, path_, "header");
  if (first != kHeaderRecord) {
    if (byteSwapped(std::uint32_t(first)) == std::uint32_t(kHeaderRecord))
      throw fileError(path_.string(), 0, "big-endian DCD files are not supported");
    throw fileError(path_.string(), 0, "not a DCD file (first record marker " + std::to_string(first) + ")");
  }
  char cord[4];
  if (std::fread(cord, 1, 4, file_) != 4 || std::memcmp(cord, "CORD", 4) != 0)
    throw fileError(path_.string(), 0, "not a DCD coordinate file (no CORD)");
  std::int32_t icntrl[20];
  if (std::fread(icntrl, sizeof icntrl, 1, file_) != 1) throw fileError(path_.string(), 0, "truncated DCD header");
  expectMarker(file_, kHeaderRecord, path_, "the header record");
  firstStep_ = icntrl[1];
  interval_ = icntrl[2] > 0 ? icntrl[2] : 1;
  float delta = 0;
  std::memcpy(&delta, &icntrl[9], sizeof delta);
  timestep_ = double(delta) * units::kPsPerAkmaTime;
  hasCell_ = icntrl[10] != 0;

  const auto titleBytes = get<std::int32_t>(file_, path_, "title record");
  if (titleBytes < 4) throw fileError(path_.string(), 0, "not a valid DCD: bad title record");
  std::fseek(file_, titleBytes, SEEK_CUR);
  expectMarker(file_, titleBytes, path_, "the title record");
  expectMarker(file_, 4, path_, "the atom count record");
  const auto natoms = get<std::int32_t>(file_, path_, "atom count");
  expectMarker(file_, 4, path_, "the atom count record");
  if (natoms <= 0) throw fileError(path_.string(), 0, "DCD atom count must be > 0 (got " + std::to_string(natoms) + ")");
  atoms_ = std::size_t(natoms);
  if (expectedAtoms >= 0 && (long long)atoms_ != expectedAtoms) throw atomCountError(path_, atoms_, expectedAtoms);
  headerBytes_ = std::ftell(file_);
  const long long size = (long long)std::filesystem::file_size(path_);
  frames_ = (size - headerBytes_) / frameBytes();
  const long long rest = (size - headerBytes_) % frameBytes();
  if (rest != 0 && !allowCutLastFrame)
    throw fileError(path_.string(), 0, "frame " + std::to_string(frames_ + 1) + " is cut short: the file ends after " +
                                           std::to_string(rest) + " of its " + std::to_string(frameBytes()) +
                                           " bytes (frames count from 1)");
}

long long DcdReader::frameBytes() const { return (hasCell_ ? 56 : 0) + 3 * (8 + 4 * (long long)atoms_); }

void DcdReader::readFrame(long long index, TrajectoryFrame& frame) {
  if (index < 0 || index >= frames_)
    throw fileError(path_.string(), 0, "frame " + std::to_string(index) + " out of range (" + std::to_string(frames_) + " frames)");
  std::fseek(file_, headerBytes_ + index * frameBytes(), SEEK_SET);
  frame.hasBox = hasCell_;
  frame.step = firstStep_ + index * interval_;
  frame.time = double(frame.step) * timestep_;
  if (hasCell_) {
    expectMarker(file_, 48, path_, "a unit cell record");
    double cell[6];
    if (std::fread(cell, sizeof cell, 1, file_) != 1) throw fileError(path_.string(), 0, "truncated unit cell record");
    expectMarker(file_, 48, path_, "a unit cell record");
    frame.box = boxOfDcdUnitCell(cell);
  }
  frame.positions.resize(atoms_);
  buffer_.resize(atoms_);
  const std::int32_t bytes = std::int32_t(4 * atoms_);
  for (int k = 0; k < 3; ++k) {
    expectMarker(file_, bytes, path_, "a coordinate record");
    if (std::fread(buffer_.data(), 4, atoms_, file_) != atoms_) throw fileError(path_.string(), 0, "truncated coordinate record");
    expectMarker(file_, bytes, path_, "a coordinate record");
    for (std::size_t i = 0; i < atoms_; ++i) frame.positions[i][k] = double(buffer_[i]) / units::kAngstromPerNm;
  }
  checkFrameValues(path_, index, frames_, frame);
}

}  // namespace faraday
