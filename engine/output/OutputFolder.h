#pragma once
// The output folder of a command: one faraday process at a time writes into it (a lock, as
// GROMACS locks its md.log), and a new run keeps the results it would replace as GROMACS
// does, as numbered backups #NAME.1#, #NAME.2#, ...
#include <filesystem>
#include <string>
#include <vector>

#include "engine/config/Command.h"
#include "engine/config/Config.h"

namespace faraday {

/// The lock of an output folder: FOLDER/faraday.lock (kOutputLockName), holding the pid, host,
/// start time and command of the process that holds it, with an exclusive flock(2) on it
/// for as long as the process runs. The kernel drops the flock when the process ends, however
/// it ends, so a lock file left by a killed process (kill -9, a crash, a lost node) is stale
/// and the next command takes it over.
class OutputLock {
 public:
  /// Creates `folder` (with its missing parents) and locks it for `command` ("faraday run").
  /// Throws Error naming `key` and the folder when it cannot be created, or naming the folder
  /// and the holder (pid, host, start, command) when another process holds the lock.
  OutputLock(const std::filesystem::path& folder, const std::string& command, const std::string& key);
  /// Removes the lock file, and the folders the constructor created when they are still empty.
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  /// One line about the lock worth telling the user ("" when none): a stale lock taken over,
  /// or a file system without locks.
  const std::string& note() const { return note_; }
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
  std::vector<std::filesystem::path> created_;  ///< folders created, innermost first
  int fd_ = -1;
  std::string note_;
};

/// Renames an existing regular file `file` to #NAME.N# in its folder, with N the smallest
/// number from 1 whose name is free, as GROMACS backs up its outputs; returns the new name,
/// or an empty path when `file` is not an existing regular file (a device such as /dev/null
/// is left alone). Throws Error naming the file when 99 backups exist already or the rename
/// fails.
std::filesystem::path backUpFile(const std::filesystem::path& file);

/// The files `command` writes (those of outputFiles(config), without the temporary
/// companions): for run every output.* file, the checkpoint's previous version and map.file
/// (with a map); for rerun rerun.energy_file and output.forces_file; for map map.file.
std::vector<std::filesystem::path> commandOutputs(const Config& config, Command command);

/// Backs up (backUpFile) each of `files` that exists; returns a line for each backup,
/// "backed up OLD to NEW".
std::vector<std::string> backUpFiles(const std::vector<std::filesystem::path>& files);

}  // namespace faraday
