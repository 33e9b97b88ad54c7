#include "engine/formats/AtomicFile.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/Error.h"

namespace faraday {
namespace fs = std::filesystem;

namespace {

/// Makes the renames durable: fsync the folder that holds them (best effort).
void syncFolder(const fs::path& file) {
  const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

/// fsync of a closed file (through a read-only descriptor, which Linux allows).
void syncFile(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY);
  if (fd < 0) throw fileError(file.string(), 0, "cannot reopen to sync: " + systemReason());
  if (::fsync(fd) != 0) {
    const std::string why = systemReason();
    ::close(fd);
    throw fileError(file.string(), 0, "fsync failed: " + why);
  }
  ::close(fd);
}

/// For a FIFO: a descriptor open for writing without waiting, so that the stream's own open
/// does not block (a FIFO without a reader is an error, not a hang); -1 for other files.
int holdFifoOpen(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_fifo(fs::status(file, ec))) return -1;
  const int fd = ::open(file.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const std::string why = errno == ENXIO ? "a FIFO that no process reads" : systemReason();
    throw fileError(file.string(), 0, "cannot be written: " + why);
  }
  return fd;
}

}  // namespace

bool isSpecialFile(const fs::path& path) {
  std::error_code ec;
  const fs::file_status s = fs::status(path, ec);
  return !ec && fs::exists(s) && !fs::is_regular_file(s) && !fs::is_directory(s);
}

AtomicFileWriter::AtomicFileWriter(const fs::path& path) : path_(path), tmp_(path), through_(isSpecialFile(path)) {
  if (!through_) tmp_ += ".tmp";
  const int fifo = through_ ? holdFifoOpen(path_) : -1;
  errno = 0;
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  const std::string why = systemReason();
  if (fifo >= 0) ::close(fifo);  // the stream holds the FIFO open now
  if (!out_) throw fileError(path_.string(), 0, "cannot create: " + why);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (committed_) return;
  out_.close();
  std::error_code ignored;
  if (!through_) fs::remove(tmp_, ignored);
}

void AtomicFileWriter::flush() {
  // errno still holds the reason of a write that failed before (the stream does nothing after).
  out_.flush();
  if (!out_) throw fileError(path_.string(), 0, "write failed: " + systemReason());
}

void AtomicFileWriter::commit(bool keepPrevious) {
  flush();
  out_.close();
  if (!out_) throw fileError(path_.string(), 0, "write failed: " + systemReason());
  if (through_) {  // a device or a FIFO: written in place, nothing to sync or rename
    committed_ = true;
    return;
  }
  syncFile(tmp_);
  std::error_code ec;
  if (keepPrevious && fs::exists(path_)) {
    fs::path prev = path_;
    prev += ".prev";
    fs::rename(path_, prev, ec);
    if (ec) throw fileError(path_.string(), 0, "cannot keep the previous file as " + prev.string() + ": " + ec.message());
  }
  fs::rename(tmp_, path_, ec);
  if (ec) throw fileError(path_.string(), 0, "cannot rename " + tmp_.string() + " into place: " + ec.message());
  committed_ = true;
  syncFolder(path_);
}

void writeFileAtomically(const fs::path& path, const std::string& content, bool keepPrevious) {
  AtomicFileWriter writer(path);
  writer.out().write(content.data(), std::streamsize(content.size()));
  writer.commit(keepPrevious);
}

void checkWritable(const fs::path& path) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  if (ec) throw fileError(path.string(), 0, "cannot create its folder: " + ec.message());
  if (isSpecialFile(path)) {  // written through later: only its permission to check
    if (::access(path.c_str(), W_OK) != 0) throw fileError(path.string(), 0, "cannot be written: " + systemReason());
    return;
  }
  fs::path tmp = path;
  tmp += ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw fileError(path.string(), 0, "cannot be written: " + systemReason());
  ::close(fd);
  fs::remove(tmp, ec);
}

std::string readWholeFile(const fs::path& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!fs::exists(path)) throw fileError(path.string(), 0, std::string(what) + " not found");
    throw fileError(path.string(), 0, std::string("cannot read the ") + what);
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace faraday
