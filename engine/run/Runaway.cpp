// Early detection of a run that is blowing up, and close contacts in the input.
#include "engine/run/Runaway.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <unordered_set>

#include "kernels/neighbor/NeighborList.h"

namespace faraday {

std::optional<Runaway> findRunaway(const System& system, const State& state, const std::vector<Vec3>& forces,
                                   double dt) {
  long worst = -1;
  double largest = kMaxStepDisplacement, worstV = 0, worstF = 0;
  for (std::size_t i = 0; i < state.velocities.size(); ++i) {
    const double v = std::sqrt(norm2(state.velocities[i])) * dt;
    // (a massless virtual site moves with its atoms, its force spread onto them)
    const double f =
        i < forces.size() && system.mass[i] > 0 ? std::sqrt(norm2(forces[i])) * dt * dt / (2 * system.mass[i]) : 0.0;
    if (v + f > largest || !std::isfinite(v + f)) {
      largest = std::isfinite(v + f) ? v + f : HUGE_VAL;
      worst = long(i), worstV = v, worstF = f;
      if (!std::isfinite(v + f)) break;
    }
  }
  if (worst < 0) return std::nullopt;
  char text[512];
  std::snprintf(text, sizeof text,
                "runaway: one step would move a particle %.3g nm (%.3g nm from its velocity, %.3g nm from its force), "
                "above the bound of %g nm per step that thermal motion stays far below",
                worstV + worstF, worstV, worstF, kMaxStepDisplacement);
  return Runaway{worst, text};
}

double longestStepWithinBound(const System& system, const State& state, const std::vector<Vec3>& forces) {
  double best = HUGE_VAL;
  for (std::size_t i = 0; i < state.velocities.size(); ++i) {
    const double v = std::sqrt(norm2(state.velocities[i]));
    const double a = i < forces.size() && system.mass[i] > 0 ? std::sqrt(norm2(forces[i])) / system.mass[i] : 0.0;
    // The positive root of v t + a t^2 / 2 = b, as 2b / (v + sqrt(v^2 + 2ab)): no cancellation
    // when a is small, b / v when a = 0, infinite when nothing moves.
    const double b = kMaxStepDisplacement;
    const double t = 2 * b / (v + std::sqrt(v * v + 2 * a * b));
    best = std::min(best, t);
  }
  return best;
}

std::optional<std::string> potentialRunaway(const System& system, double potential) {
  const double perParticle = potential / double(std::max<std::size_t>(1, system.size()));
  if (!(perParticle > kMaxPotentialPerParticle)) return std::nullopt;
  char text[256];
  std::snprintf(text, sizeof text,
                "runaway: potential energy %.3g kJ/mol per particle, above the bound of %g that only overlapping "
                "atoms reach",
                perParticle, kMaxPotentialPerParticle);
  return std::string(text);
}

std::string describeParticle(const System& system, const State& state, long particle, bool periodic) {
  const std::size_t p = std::size_t(particle);
  std::string out = "particle " + std::to_string(particle) + " (atom name " + system.atomName[p] + ", 0-based index)";
  long closest = -1;
  double best = HUGE_VAL;
  for (std::size_t j = 0; j < state.positions.size(); ++j) {
    if (j == p) continue;
    const Vec3 d = state.positions[j] - state.positions[p];
    const double r2 = norm2(periodic ? state.box.minimumImage(d) : d);
    if (r2 < best) best = r2, closest = long(j);
  }
  if (closest >= 0 && std::isfinite(best)) {
    char text[160];
    std::snprintf(text, sizeof text, "; its closest neighbour is particle %ld (%s) at %.4g nm", closest,
                  system.atomName[std::size_t(closest)].c_str(), std::sqrt(best));
    out += text;
  }
  return out;
}

double contactThreshold(const System& system, int i, int j) {
  const double sigma = 0.5 * (system.types[std::size_t(system.type[i])].sigma + system.types[std::size_t(system.type[j])].sigma);
  return sigma > 0 ? 0.6 * sigma : 0.1;
}

namespace {

/// The pairs whose atoms interact through the topology instead of the nonbonded pair terms:
/// bonded neighbours (bonds, 1-3 pairs of angles and Urey-Bradley terms), constraints, the
/// atoms of a rigid water and the topology's exclusions. Their distance is the bonded
/// geometry's, never a close contact. Keys i * n + j with i < j.
std::unordered_set<std::uint64_t> bondedPairs(const System& system) {
  const Topology& t = system.topology;
  const std::uint64_t n = system.size();
  std::unordered_set<std::uint64_t> pairs;
  const auto add = [&](int a, int b) {
    if (a > b) std::swap(a, b);
    pairs.insert(std::uint64_t(a) * n + std::uint64_t(b));
  };
  for (const HarmonicBond& b : t.bonds) add(b.i, b.j);
  for (const G96Bond& b : t.g96Bonds) add(b.i, b.j);
  for (const MorseBond& b : t.morseBonds) add(b.i, b.j);
  for (const CubicBond& b : t.cubicBonds) add(b.i, b.j);
  for (const HarmonicAngle& a : t.angles) add(a.i, a.j), add(a.j, a.k), add(a.i, a.k);
  for (const G96Angle& a : t.g96Angles) add(a.i, a.j), add(a.j, a.k), add(a.i, a.k);
  for (const UreyBradleyAngle& a : t.ureyBradleys) add(a.i, a.j), add(a.j, a.k), add(a.i, a.k);
  for (const Constraint& c : t.constraints) add(c.i, c.j);
  for (const Settle& w : t.settles) add(w.oxygen, w.oxygen + 1), add(w.oxygen, w.oxygen + 2), add(w.oxygen + 1, w.oxygen + 2);
  for (std::size_t p = 0; p + 1 < t.exclusionOffsets.size(); ++p)
    for (int k = t.exclusionOffsets[p]; k < t.exclusionOffsets[p + 1]; ++k) add(int(p), t.exclusions[std::size_t(k)]);
  return pairs;
}

}  // namespace

std::vector<CloseContact> closeContacts(const System& system, const std::vector<Vec3>& positions, const Box& box) {
  double reach = 0.1;
  for (const AtomType& t : system.types) reach = std::max(reach, 0.6 * t.sigma);
  std::vector<CloseContact> out;
  if (positions.size() < 2 || !(reach < box.maxCutoff())) return out;
  const std::unordered_set<std::uint64_t> bonded = bondedPairs(system);
  NeighborList list(reach, 0.0, 1);
  list.build(positions, box);
  const auto& order = list.order();
  for (std::size_t s = 0; s + 1 < list.offsets().size(); ++s)
    for (int k = list.offsets()[s]; k < list.offsets()[s + 1]; ++k) {
      const int i = order[s], j = order[std::size_t(list.neighbors()[std::size_t(k)])];
      if (i >= j || bonded.count(std::uint64_t(i) * positions.size() + std::uint64_t(j))) continue;
      const double r = std::sqrt(norm2(box.minimumImage(positions[std::size_t(j)] - positions[std::size_t(i)])));
      const double threshold = contactThreshold(system, i, j);
      if (r < threshold) out.push_back({i, j, r, threshold});
    }
  std::sort(out.begin(), out.end(), [](const CloseContact& a, const CloseContact& b) {
    return a.distance < b.distance || (a.distance == b.distance && std::make_pair(a.i, a.j) < std::make_pair(b.i, b.j));
  });
  return out;
}

std::string describeCloseContacts(const System& system, const std::vector<Vec3>& positions, const Box& box) {
  const std::vector<CloseContact> contacts = closeContacts(system, positions, box);
  if (contacts.empty()) return "Close contacts: none (no pair closer than 0.6 sigma_ij, or 0.1 nm without LJ)\n";
  std::string out = "Close contacts: " + std::to_string(contacts.size()) +
                    " pair(s) closer than 0.6 sigma_ij (0.1 nm without LJ); the run would blow up:\n";
  char line[256];
  for (std::size_t k = 0; k < std::min<std::size_t>(contacts.size(), 10); ++k) {
    const CloseContact& c = contacts[k];
    std::snprintf(line, sizeof line, "  particles %d (%s) and %d (%s), 0-based: %.4g nm (threshold %.4g nm)\n", c.i,
                  system.atomName[std::size_t(c.i)].c_str(), c.j, system.atomName[std::size_t(c.j)].c_str(), c.distance,
                  c.threshold);
    out += line;
  }
  return out;
}

}  // namespace faraday
