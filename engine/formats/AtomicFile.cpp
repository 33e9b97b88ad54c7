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

}  // namespace

AtomicFileWriter::AtomicFileWriter(const fs::path& path) : path_(path), tmp_(path) {
  tmp_ += ".tmp";
  errno = 0;
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!out_) throw fileError(path_.string(), 0, "cannot create: " + systemReason());
}

AtomicFileWriter::~AtomicFileWriter() {
  if (committed_) return;
  out_.close();
  std::error_code ignored;
  fs::remove(tmp_, ignored);
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
