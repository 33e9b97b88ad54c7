#include "integrators/Constraints.h"

#include <omp.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "core/Error.h"

namespace faraday {
namespace {

std::string formatLength(double nm) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6g nm", nm);
  return text;
}

int findRoot(std::vector<int>& parent, int i) {
  while (parent[std::size_t(i)] != i) i = parent[std::size_t(i)] = parent[std::size_t(parent[std::size_t(i)])];
  return i;
}

/// The rigid waters: one geometry per distinct (masses, distances).
void addWaters(const System& system, ConstraintSet& set, std::vector<int>& owner) {
  const int n = int(system.size());
  std::map<std::tuple<double, double, double, double>, int> geometryIndex;
  for (std::size_t w = 0; w < system.topology.settles.size(); ++w) {
    const Settle& s = system.topology.settles[w];
    const std::string which = "[settles] water " + std::to_string(w) + " (oxygen " + std::to_string(s.oxygen) + ")";
    if (s.oxygen < 0 || s.oxygen + 2 >= n) throw Error(which + ": its atoms lie beyond the " + std::to_string(n) + " particles");
    for (int k = 0; k < 3; ++k) {
      int& o = owner[std::size_t(s.oxygen + k)];
      if (o != -1) throw Error(which + ": atom " + atomLabel(system, s.oxygen + k) + " is in another water already");
      o = -2 - int(w);
    }
    const double mO = system.mass[std::size_t(s.oxygen)], mH = system.mass[std::size_t(s.oxygen + 1)];
    if (!(mO > 0) || !(mH > 0) || mH != system.mass[std::size_t(s.oxygen + 2)])
      throw Error(which + ": SETTLE needs masses > 0 and two hydrogens of equal mass");
    if (!(s.dOH > 0) || !(s.dHH > 0) || !(s.dHH < 2 * s.dOH))
      throw Error(which + ": d(O-H) = " + formatLength(s.dOH) + " and d(H-H) = " + formatLength(s.dHH) +
                  " make no triangle");
    const auto key = std::make_tuple(mO, mH, s.dOH, s.dHH);
    auto it = geometryIndex.find(key);
    if (it == geometryIndex.end()) {
      it = geometryIndex.emplace(key, int(set.geometries.size())).first;
      set.geometries.push_back(settleGeometry(mO, mH, s.dOH, s.dHH));
    }
    set.waters.push_back({s.oxygen, it->second});
  }
}

/// The constraints of one connected component, in topology order; a star when one atom is in
/// all of them (at most kMaxStarArms).
void addCluster(const System& system, const std::vector<int>& members, ConstraintSet& set) {
  const std::vector<Constraint>& all = system.topology.constraints;
  ConstraintCluster c;
  c.firstConstraint = int(set.constraints.size());
  c.constraintCount = int(members.size());
  c.firstAtom = int(set.clusterAtoms.size());
  int centre = -1;
  if (members.size() <= std::size_t(kMaxStarArms)) {
    const Constraint& first = all[std::size_t(members[0])];
    for (const int candidate : {first.i, first.j}) {
      bool inAll = true;
      for (const int m : members) inAll = inAll && (all[std::size_t(m)].i == candidate || all[std::size_t(m)].j == candidate);
      if (inAll) {
        centre = candidate;
        break;
      }
    }
  }
  c.star = centre >= 0;
  std::vector<int> atoms;
  if (c.star) atoms.push_back(centre);
  for (const int m : members) {
    const Constraint& k = all[std::size_t(m)];
    const bool swap = c.star && k.j == centre;
    set.constraints.push_back({swap ? k.j : k.i, swap ? k.i : k.j, k.length * k.length});
    if (c.star) atoms.push_back(swap ? k.i : k.j);
  }
  if (!c.star) {
    for (const int m : members) atoms.push_back(all[std::size_t(m)].i), atoms.push_back(all[std::size_t(m)].j);
    std::sort(atoms.begin(), atoms.end());
    atoms.erase(std::unique(atoms.begin(), atoms.end()), atoms.end());
  }
  c.atomCount = int(atoms.size());
  set.clusterAtoms.insert(set.clusterAtoms.end(), atoms.begin(), atoms.end());
  set.clusters.push_back(c);
}

void addClusters(const System& system, ConstraintSet& set, const std::vector<int>& owner) {
  const std::vector<Constraint>& all = system.topology.constraints;
  const int n = int(system.size());
  std::vector<int> parent(system.size());
  std::iota(parent.begin(), parent.end(), 0);
  std::set<std::pair<int, int>> pairs;
  for (std::size_t k = 0; k < all.size(); ++k) {
    const Constraint& c = all[k];
    const std::string which = "constraint " + std::to_string(k) + " (atoms " + std::to_string(c.i) + " and " +
                              std::to_string(c.j) + ")";
    if (c.i < 0 || c.j < 0 || c.i >= n || c.j >= n || c.i == c.j)
      throw Error(which + ": needs two different atoms among the " + std::to_string(n) + " particles");
    if (!(c.length > 0)) throw Error(which + ": length " + formatLength(c.length) + " must be > 0");
    for (const int a : {c.i, c.j})
      if (owner[std::size_t(a)] != -1)
        throw Error(which + ": atom " + atomLabel(system, a) + " is in a rigid [settles] water too");
    for (const int a : {c.i, c.j})
      if (!(system.mass[std::size_t(a)] > 0)) throw Error(which + ": atom " + atomLabel(system, a) + " has mass <= 0");
    if (!pairs.insert({std::min(c.i, c.j), std::max(c.i, c.j)}).second)
      throw Error(which + ": atoms " + atomLabel(system, c.i) + " and " + atomLabel(system, c.j) +
                  " are constrained twice");
    parent[std::size_t(findRoot(parent, c.i))] = findRoot(parent, c.j);
  }
  // Components in the order of their first constraint.
  std::map<int, std::size_t> componentOf;
  std::vector<std::vector<int>> members;
  for (std::size_t k = 0; k < all.size(); ++k) {
    const int root = findRoot(parent, all[k].i);
    const auto it = componentOf.emplace(root, members.size()).first;
    if (it->second == members.size()) members.emplace_back();
    members[it->second].push_back(int(k));
  }
  for (const std::vector<int>& m : members) addCluster(system, m, set);
}

}  // namespace

std::string atomLabel(const System& s, int i) {
  std::string out = std::to_string(i);
  const std::size_t k = std::size_t(i);
  if (k < s.atomName.size()) {
    out += " (" + s.atomName[k];
    if (k < s.residueName.size() && k < s.residueId.size())
      out += ", " + s.residueName[k] + " " + std::to_string(s.residueId[k]);
    out += ")";
  }
  return out;
}

ConstraintSet makeConstraintSet(const System& system) {
  ConstraintSet set;
  std::vector<int> owner(system.size(), -1);  // -2 - w: in water w
  addWaters(system, set, owner);
  addClusters(system, set, owner);
  return set;
}

std::vector<char> constrainedParticles(const ConstraintSet& set, std::size_t particles) {
  std::vector<char> out(particles, 0);
  for (const SettleWater& w : set.waters)
    for (int k = 0; k < 3; ++k) out[std::size_t(w.oxygen + k)] = 1;
  for (const ClusterConstraint& c : set.constraints) out[std::size_t(c.a)] = out[std::size_t(c.b)] = 1;
  return out;
}

std::string describeConstraint(const System& system, const ConstraintSet& set, long long code) {
  if (code >= 0 && code < (long long)set.constraints.size()) {
    const ClusterConstraint& c = set.constraints[std::size_t(code)];
    return "atoms " + atomLabel(system, c.a) + " and " + atomLabel(system, c.b) + " (length " +
           formatLength(std::sqrt(c.d2)) + ")";
  }
  const long long w = code - (long long)set.constraints.size();
  if (w < 0 || w >= (long long)set.waters.size()) return "constraint " + std::to_string(code) + " (unknown)";
  const int o = set.waters[std::size_t(w)].oxygen;
  return "the rigid water of atoms " + atomLabel(system, o) + ", " + atomLabel(system, o + 1) + " and " +
         atomLabel(system, o + 2);
}

std::string constraintFailureMessage(const System& system, const ConstraintSet& set, long long code, long long step,
                                     const char* what) {
  return std::string("constraints failed at step ") + std::to_string(step) + ": the " + what + " of " +
         describeConstraint(system, set, code) +
         " (0-based indices) could not be constrained; the step moved them too far (time step too long for the "
         "masses, or forces too large)";
}

}  // namespace faraday
