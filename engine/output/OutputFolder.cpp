#include "engine/output/OutputFolder.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "core/Error.h"
#include "engine/config/ConfigChecks.h"

namespace faraday {
namespace fs = std::filesystem;

namespace {

/// GROMACS' default limit (GMX_MAXBACKUP): a folder does not fill up with backups unnoticed.
constexpr int kMaxBackups = 99;

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "an unknown host";
  return name;
}

std::string localTime() {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  char text[64] = {};
  if (!::localtime_r(&now, &parts) || std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &parts) == 0) return "?";
  return text;
}

/// The folders that create_directories(folder) creates, innermost first.
std::vector<fs::path> missingFolders(const fs::path& folder) {
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = fs::absolute(folder).lexically_normal(); p.has_relative_path() && !fs::exists(fs::symlink_status(p, ec));
       p = p.parent_path())
    missing.push_back(p);
  return missing;
}

/// The first line of the lock file: who holds (or held) it; "" when empty.
std::string holderOf(int fd) {
  char text[512] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string holder(text, n > 0 ? std::size_t(n) : 0);
  return holder.substr(0, holder.find('\n'));
}

/// Whether `fd` is still the file named `file` (its holder may have removed it between our
/// open and our flock: that lock protects nothing).
bool sameFile(int fd, const fs::path& file) {
  struct stat opened {}, named {};
  return ::fstat(fd, &opened) == 0 && ::stat(file.c_str(), &named) == 0 && opened.st_dev == named.st_dev &&
         opened.st_ino == named.st_ino;
}

}  // namespace

OutputLock::OutputLock(const fs::path& folder, const std::string& command, const std::string& key) {
  const std::vector<fs::path> missing = missingFolders(folder);
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw keyError(key, "cannot create " + folder.string() + ": " + ec.message());
  created_ = missing;
  file_ = folder / kOutputLockName;
  for (int attempt = 0;; ++attempt) {
    fd_ = ::open(file_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw keyError(key, "cannot create the lock file " + file_.string() + ": " + systemReason());
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int why = errno;
      if (why == EWOULDBLOCK) {
        std::string holder = holderOf(fd_);
        ::close(fd_);
        fd_ = -1;
        if (holder.empty()) holder = "a process that is just starting";
        throw keyError(key, folder.string() + " is in use by another faraday process (" + holder + "; lock " +
                                file_.string() + "): wait for it to end or choose another output.directory");
      }
      // Some network file systems have no locks: go on, and say what is not checked.
      note_ = "cannot lock " + file_.string() + " (" + std::strerror(why) + "): another faraday process writing into " +
              folder.string() + " would go unnoticed";
      break;
    }
    if (sameFile(fd_, file_)) break;
    ::close(fd_);
    fd_ = -1;
    if (attempt == 100) throw keyError(key, "cannot lock " + file_.string() + ": it keeps being replaced");
  }
  const std::string previous = holderOf(fd_);
  if (!previous.empty() && note_.empty())
    note_ = "took over the lock " + file_.string() + " left by " + previous + ", which ended without removing it";
  const std::string holder = "pid " + std::to_string(::getpid()) + " on " + hostName() + ", since " + localTime() +
                             ", " + command + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, holder.data(), holder.size(), 0) != ssize_t(holder.size()))
    throw keyError(key, "cannot write the lock file " + file_.string() + ": " + systemReason());
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) {
    ::unlink(file_.c_str());  // while still locked: a process that opens it now makes a new one
    ::close(fd_);
  }
  std::error_code ignored;
  for (const fs::path& folder : created_) fs::remove(folder, ignored);  // removes only an empty folder
}

fs::path backUpFile(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return {};
  const fs::path folder = file.parent_path();
  for (int n = 1; n <= kMaxBackups; ++n) {
    std::string name = "#";
    name += file.filename().string();
    name += '.';
    name += std::to_string(n);
    name += '#';
    const fs::path backup = folder / name;
    if (fs::exists(fs::symlink_status(backup, ec))) continue;
    fs::rename(file, backup, ec);
    if (ec) throw fileError(file.string(), 0, "cannot back it up as " + backup.string() + ": " + ec.message());
    return backup;
  }
  throw fileError(file.string(), 0, "cannot back it up: " + std::to_string(kMaxBackups) + " backups (#" +
                                        file.filename().string() + ".1# ...) exist already; remove some of them");
}

std::vector<fs::path> commandOutputs(const Config& config, Command command) {
  std::vector<fs::path> files;
  for (const NamedFile& f : outputFiles(config)) {
    if (f.role == "the temporary file") continue;
    const bool run = f.key.rfind("output.", 0) == 0 || f.key == "map.file";
    const bool rerun = f.key == "rerun.energy_file" || f.key == "output.forces_file";
    if (command == Command::Run ? run : command == Command::Rerun ? rerun : f.key == "map.file") files.push_back(f.path);
  }
  return files;
}

std::vector<std::string> backUpFiles(const std::vector<fs::path>& files) {
  std::vector<std::string> lines;
  for (const fs::path& file : files)
    if (const fs::path backup = backUpFile(file); !backup.empty())
      lines.push_back("backed up " + file.string() + " to " + backup.string());
  return lines;
}

}  // namespace faraday
