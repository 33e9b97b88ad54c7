#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/config/Config.h"
#include "engine/run/Barostat.h"
#include "engine/run/SystemFingerprint.h"
#include "core/System.h"

namespace faraday {

/// Everything needed to continue a run bit for bit: the state, the positions at which
/// the neighbor list was last built, and the physics settings it was made with.
/// (Langevin noise is keyed by (seed, step, particle), so no RNG state is needed.)
struct Checkpoint {
  long long step = 0;
  double time = 0;                    ///< ps
  Box box;
  std::vector<Vec3> positions;        ///< nm
  std::vector<Vec3> velocities;       ///< nm/ps
  std::vector<Vec3> listReference;    ///< nm (may be empty: rebuild at once)
  std::string physics;                ///< physicsDescription() of the run that wrote it
  BarostatState barostat;             ///< the barostat's step size and counts (zeros without one)
  SystemFingerprint fingerprint;      ///< the system's parameters and terms (empty before version 3)
};

/// Canonical "key=value" lines of what decides the trajectory: atom count and names,
/// atom types, nonbonded, electrostatics and integrator keys. A restart must match it.
std::string physicsDescription(const Config& config, const System& system);

/// Binary checkpoint: magic, version, atom count, step, time, box, positions, velocities,
/// list reference, physics description and its hash, the barostat's state (version 2; a
/// version-1 file reads as no barostat state), the system's fingerprint (version 3; older
/// files read without one), and a checksum of the whole.
/// Written atomically: FILE.tmp, fsync, the previous FILE kept as FILE.prev, rename.
void writeCheckpoint(const std::filesystem::path& file, const Checkpoint& checkpoint);

/// Reads and checks a checkpoint; with a non-empty `physics`, refuses one written for a
/// different system or settings (the message names the file and the first differing key).
Checkpoint readCheckpoint(const std::filesystem::path& file, std::size_t atoms, const std::string& physics);

/// Throws Error naming `file` and the first atom or term that differs when the checkpoint's
/// fingerprint is not that of `system` (a checkpoint without one, from before version 3,
/// passes).
void checkSameSystem(const Checkpoint& checkpoint, const System& system, const std::filesystem::path& file);

/// 64-bit FNV-1a hash.
std::uint64_t fnv1a(const void* data, std::size_t bytes, std::uint64_t hash = 14695981039346656037ull);

}  // namespace faraday
