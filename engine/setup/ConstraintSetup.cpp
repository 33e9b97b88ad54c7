#include "engine/setup/ConstraintSetup.h"

#include <cstdio>
#include <map>
#include <set>

#include "core/Error.h"
#include "engine/formats/TextParse.h"
#include "integrators/Constraints.h"
#include "integrators/InitialVelocities.h"

namespace faraday {
namespace {

/// Every bonded pair of the topology (bonds of every kind, constraints) as (i, j, b0).
template <typename F>
void forEachBondedPair(const Topology& t, F&& f) {
  for (const HarmonicBond& b : t.bonds) f(b.i, b.j, b.b0);
  for (const G96Bond& b : t.g96Bonds) f(b.i, b.j, b.b0);
  for (const MorseBond& b : t.morseBonds) f(b.i, b.j, b.b0);
  for (const CubicBond& b : t.cubicBonds) f(b.i, b.j, b.b0);
  for (const Constraint& c : t.constraints) f(c.i, c.j, c.length);
}

/// A mass for messages: 6 significant digits (2.034, not 2.0340000000000007).
std::string amu(double m) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", m);
  return text;
}

}  // namespace

void repartitionHydrogenMasses(System& system, const std::vector<char>& hydrogen, double hydrogenMass) {
  if (!(hydrogenMass > 0)) return;
  std::vector<char> rigidWater(system.size(), 0);
  for (const Settle& s : system.topology.settles)
    for (int k = 0; k < 3; ++k) rigidWater[std::size_t(s.oxygen + k)] = 1;
  // (hydrogen, heavy atom) pairs, each once, in the order the topology lists them.
  std::set<std::pair<int, int>> seen;
  std::vector<std::pair<int, int>> pairs;
  forEachBondedPair(system.topology, [&](int i, int j, double) {
    if (hydrogen[std::size_t(i)] == hydrogen[std::size_t(j)]) return;  // two heavy atoms, or H-H
    const int h = hydrogen[std::size_t(i)] ? i : j, heavy = h == i ? j : i;
    if (rigidWater[std::size_t(h)] || !seen.insert({h, heavy}).second) return;
    pairs.emplace_back(h, heavy);
  });
  std::map<int, int> lightestPartner;  // heavy atom -> one of its hydrogens, for the error
  for (const auto& [h, heavy] : pairs) {
    const double transfer = hydrogenMass - system.mass[std::size_t(h)];
    system.mass[std::size_t(h)] = hydrogenMass;
    system.mass[std::size_t(heavy)] -= transfer;
    lightestPartner[heavy] = h;
  }
  for (const auto& [heavy, h] : lightestPartner)
    if (!(system.mass[std::size_t(heavy)] >= hydrogenMass))
      throw keyError("system.hydrogen_mass",
                     amu(hydrogenMass) + " amu leaves atom " + atomLabel(system, heavy) + " with " +
                         amu(system.mass[std::size_t(heavy)]) + " amu, lighter than its hydrogen " +
                         atomLabel(system, h) + " (0-based indices); use a smaller hydrogen mass");
}

void makeBondsRigid(System& system, const std::vector<char>& hydrogen, BondConstraints which) {
  if (which == BondConstraints::None) return;
  Topology& t = system.topology;
  const bool all = which == BondConstraints::AllBonds;
  std::map<std::pair<int, int>, double> existing;
  for (const Constraint& c : t.constraints) existing[{std::min(c.i, c.j), std::max(c.i, c.j)}] = c.length;
  const auto rigid = [&](int i, int j) { return all || hydrogen[std::size_t(i)] || hydrogen[std::size_t(j)]; };
  const auto constrain = [&](int i, int j, double b0) {
    const auto [it, added] = existing.emplace(std::make_pair(std::min(i, j), std::max(i, j)), b0);
    if (added) {
      t.constraints.push_back({i, j, b0});
    } else if (it->second != b0) {
      throw keyError("system.constraints", choiceText(which) + ": the bond of atoms " + atomLabel(system, i) + " and " +
                                               atomLabel(system, j) + " (b0 " + formatNumber(b0) +
                                               " nm) is also a [constraints] entry of length " +
                                               formatNumber(it->second) + " nm");
    }
  };
  // Every kind of bond becomes a constraint of length b0, as grompp's constraints = h-bonds or
  // all-bonds makes of bonds 1 to 4.
  const auto keepFlexible = [&](auto& bonds) {
    std::erase_if(bonds, [&](const auto& b) {
      if (!rigid(b.i, b.j)) return false;
      constrain(b.i, b.j, b.b0);
      return true;
    });
  };
  keepFlexible(t.bonds);
  keepFlexible(t.g96Bonds);
  keepFlexible(t.morseBonds);
  keepFlexible(t.cubicBonds);
}

void applyConstraintKeys(const Config& config, System& system) {
  if (config.system.constraints == BondConstraints::None && !(config.system.hydrogenMass > 0)) return;
  std::vector<char> hydrogen(system.size());
  for (std::size_t i = 0; i < system.size(); ++i) hydrogen[i] = isHydrogen(system, i) ? 1 : 0;
  repartitionHydrogenMasses(system, hydrogen, config.system.hydrogenMass);
  makeBondsRigid(system, hydrogen, config.system.constraints);
}

void constrainInitialState(const Config& config, const System& system, State& state, double temperature) {
  if (system.topology.settles.empty() && system.topology.constraints.empty()) return;
  CpuConstraints constraints(system, config.integrator.constraintTolerance, config.run.threads);
  constrainState(constraints, state, config.integrator.dt);
  if (temperature >= 0) scaleToTemperature(system, state.velocities, temperature, config.integrator.type);
}

}  // namespace faraday
