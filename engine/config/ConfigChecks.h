#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engine/config/Config.h"

namespace faraday {

/// For each key set explicitly (in the file or on the command line), where it was set, in
/// the form every configuration error starts with: "FILE:LINE: key 'K'" or
/// "command line: key 'K'".
using KeyOrigins = std::map<std::string, std::string>;

/// A file that a run reads or writes, and the key that names it. `role` is empty for the
/// file itself, else what the companion is ("the temporary file", "the previous version",
/// "the input").
struct NamedFile {
  std::string key;
  std::filesystem::path path;  ///< absolute, lexically normal
  std::string role;
};

/// The lock file of an output folder, held while a command writes into it (OutputLock).
inline constexpr const char* kOutputLockName = "faraday.lock";

/// Every file a run writes, with its companions: FILE.tmp for the files written atomically
/// (final coordinates, checkpoint, map) and FILE.prev for the checkpoint's previous version.
std::vector<NamedFile> outputFiles(const Config& config);

/// map.file resolved against output.directory.
std::filesystem::path mapOutputPath(const Config& config);

/// Throws Error naming both keys when two outputs (or their companions) are the same file,
/// or when an output would overwrite the coordinate or the config file.
void checkOutputNames(const Config& config, const KeyOrigins& origins);

/// Throws Error naming where output.directory was set when it (or the folder it would be made
/// in) is an existing file that is no folder: caught at load time, also by a dry run.
void checkOutputPlaces(const Config& config, const KeyOrigins& origins);

/// Throws Error naming where the key was set when output.trajectory_file, rerun.trajectory or
/// map.trajectory has an extension other than .dcd or .xtc.
void checkTrajectoryFormats(const Config& config, const KeyOrigins& origins);

/// Throws Error naming where map.file was set when its extension is none of the map formats
/// (kMapFormats): caught at load time, before a run or a map reads a frame or makes a folder.
void checkMapFileFormat(const Config& config, const KeyOrigins& origins);

/// Throws Error naming the key (where it was set) for combinations the engine does not run:
/// gravity outside nonbonded.mode = all-pairs, all-pairs with LJ/Coulomb or without velocity
/// Verlet, gravity without gravity.softening, a potential map with all-pairs.
void checkModeCombination(const Config& config, const KeyOrigins& origins);

/// One line for each explicitly set key that has no effect in the chosen mode
/// (integrator.friction with the verlet integrator, fourier_spacing with an explicit grid, ...).
std::vector<std::string> ineffectiveKeyWarnings(const Config& config, const KeyOrigins& origins);

}  // namespace faraday
