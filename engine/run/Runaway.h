#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/System.h"

namespace faraday {

/// Largest distance (nm) a particle may cover in one step, |v| dt + |F| dt^2 / (2 m), before
/// the run is declared a runaway. Thermal motion covers ~0.003 nm per step (argon at 90 K
/// and dt 4 fs, NaCl at 1300 K and 2 fs, hydrogen at 300 K and 2 fs: 0.002..0.006 nm); a
/// tenth of a nanometre, a third of an atom's diameter, in one step means that the
/// integration has already failed (overlapping atoms, a time step far too long).
inline constexpr double kMaxStepDisplacement = 0.1;

/// Potential energy per particle (kJ/mol) above which the run is declared a runaway:
/// +1e4 kJ/mol per particle is only reached with overlapping atoms (an LJ pair at 0.5 sigma
/// has 1.6e4 epsilon; a liquid or crystal has a few -100..+100 kJ/mol per particle).
inline constexpr double kMaxPotentialPerParticle = 1e4;

/// What went wrong with one particle.
struct Runaway {
  long particle = -1;
  std::string reason;  ///< one clause: what exceeded which bound
};

/// The particle that moves furthest in one step by the measure above, when that exceeds
/// kMaxStepDisplacement; `forces` may be empty (velocities only).
std::optional<Runaway> findRunaway(const System& system, const State& state, const std::vector<Vec3>& forces, double dt);
/// The longest time step (ps) for which no particle of `state` moves more than
/// kMaxStepDisplacement in one step (|v| dt + |F| dt^2 / 2m); infinite when nothing moves.
double longestStepWithinBound(const System& system, const State& state, const std::vector<Vec3>& forces);
/// A reason when the potential energy exceeds kMaxPotentialPerParticle per particle.
std::optional<std::string> potentialRunaway(const System& system, double potential);

/// "particle I (atom name A, 0-based index); its closest neighbour is particle J (B) at R nm",
/// the distance by minimum image in the state's box when `periodic`, else plain.
std::string describeParticle(const System& system, const State& state, long particle, bool periodic = true);

/// A pair of particles closer than its contact threshold.
struct CloseContact {
  int i = 0, j = 0;
  double distance = 0;    ///< nm
  double threshold = 0;   ///< nm
};
/// Contact threshold of a pair: 0.6 sigma_ij (LJ repulsion ~1800 epsilon), or 0.1 nm when
/// the pair has no LJ size.
double contactThreshold(const System& system, int i, int j);
/// Every pair closer than its contact threshold (minimum image), closest first. Pairs the
/// topology binds or excludes (bonds, 1-3 pairs of angles, constraints, a rigid water's
/// atoms, [ exclusions ] and nrexcl) have no nonbonded term and are never close contacts.
std::vector<CloseContact> closeContacts(const System& system, const std::vector<Vec3>& positions, const Box& box);
/// Lines for --dry-run: the number of close contacts and the closest few.
std::string describeCloseContacts(const System& system, const std::vector<Vec3>& positions, const Box& box);

}  // namespace faraday
