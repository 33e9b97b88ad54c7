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

void writeAndSync(const fs::path& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw fileError(path.string(), 0, "cannot create: " + systemReason());
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = systemReason();
      ::close(fd);
      throw fileError(path.string(), 0, "write failed: " + why);
    }
    done += std::size_t(n);
  }
  if (::fsync(fd) != 0) {
    const std::string why = systemReason();
    ::close(fd);
    throw fileError(path.string(), 0, "fsync failed: " + why);
  }
  if (::close(fd) != 0) throw fileError(path.string(), 0, "close failed: " + systemReason());
}

/// Makes the renames durable: fsync the folder that holds them (best effort).
void syncFolder(const fs::path& file) {
  const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void writeFileAtomically(const fs::path& path, const std::string& content, bool keepPrevious) {
  fs::path tmp = path;
  tmp += ".tmp";
  // Whatever fails, the temporary file does not stay behind; PATH keeps its old content.
  const auto removeTmp = [&tmp] {
    std::error_code ignored;
    fs::remove(tmp, ignored);
  };
  try {
    writeAndSync(tmp, content);
  } catch (const Error&) {
    removeTmp();
    throw;
  }
  std::error_code ec;
  if (keepPrevious && fs::exists(path)) {
    fs::path prev = path;
    prev += ".prev";
    fs::rename(path, prev, ec);
    if (ec) {
      removeTmp();
      throw fileError(path.string(), 0, "cannot keep the previous file as " + prev.string() + ": " + ec.message());
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    removeTmp();
    throw fileError(path.string(), 0, "cannot rename " + tmp.string() + " into place: " + ec.message());
  }
  syncFolder(path);
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
