#include "engine/config/KernelParams.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/Error.h"
#include "kernels/dcs/PmeMap.h"
#include "engine/formats/TextParse.h"
#include "core/Units.h"

namespace faraday {

IntegratorParams integratorParams(const Config& config) {
  const Config::IntegratorSection& c = config.integrator;
  return {c.type, c.dt, c.temperature, c.friction, c.seed, c.constraintTolerance};
}

NonbondedOptions nonbondedOptions(const Config& config, const System& system, const EwaldSetup& ewald, int threads) {
  if (config.nonbonded.potential == PairPotential::Gravity)
    throw keyError("nonbonded.potential", "gravity needs nonbonded.mode = all-pairs");
  NonbondedOptions o;
  o.cutoff = config.nonbonded.cutoff;
  o.ljShift = config.nonbonded.ljShift;
  o.ewaldBeta = ewald.method == ElectrostaticsMethod::None ? 0.0 : ewald.beta;
  o.coulombShift = config.nonbonded.coulombModifier == CoulombModifier::PotentialShift;
  if (config.nonbonded.typed()) o.typed = typedPairTable(config, system);
  o.threads = threads;
  return o;
}

namespace {

/// The section of types a and b, either way round; null when there is none.
const Config::TypedPairSection* findTypedPair(const Config& config, const std::string& a, const std::string& b) {
  for (const Config::TypedPairSection& p : config.typedPairs)
    if ((p.a == a && p.b == b) || (p.a == b && p.b == a)) return &p;
  return nullptr;
}

}  // namespace

double pairListBuffer(const Config& config, const System& system, bool gpu) {
  if (config.nonbonded.buffer >= 0) return config.nonbonded.buffer;
  if (!gpu) return kCpuPairListBuffer;
  double temperature = config.system.temperature;
  if (config.integrator.type == IntegratorType::Langevin) temperature = std::max(temperature, config.integrator.temperature);
  double lightest = std::numeric_limits<double>::infinity();
  // Virtual sites (mass 0) move with their atoms: the lightest atom with a mass sets the speed.
  for (double m : system.mass)
    if (m > 0) lightest = std::min(lightest, m);
  const double room = std::max(0.0, system.box.maxCutoff() - config.nonbonded.cutoff);
  if (!(temperature > 0) || !(lightest > 0) || !std::isfinite(lightest) || !(config.integrator.dt > 0))
    return std::min(kCpuPairListBuffer, room);
  const double fastest = 4 * std::sqrt(units::kBoltzmann * temperature / lightest);  // nm/ps
  const double wanted = 2 * kStepsPerGpuBuild * fastest * config.integrator.dt;
  const double step = 0.05;
  const double buffer = std::clamp(std::ceil(wanted / step - 1e-9) * step, kCpuPairListBuffer, 0.25);
  return std::min(buffer, room);
}

TypedPairTable typedPairTable(const Config& config, const System& system) {
  const int types = int(system.types.size());
  std::vector<bool> present(std::size_t(types), false);
  for (int t : system.type) present[std::size_t(t)] = true;
  TypedPairTable table;
  table.types = types;
  table.rmin = config.nonbonded.typedRmin;
  // Never evaluated: a pair of types of which one is absent from the system.
  table.params.assign(std::size_t(types) * types, TypedPairParams<double>{0.0, 0.0, 3.0});
  for (int a = 0; a < types; ++a)
    for (int b = a; b < types; ++b) {
      const std::string& na = system.types[std::size_t(a)].name;
      const std::string& nb = system.types[std::size_t(b)].name;
      const Config::TypedPairSection* p = findTypedPair(config, na, nb);
      if (!p) {
        if (!present[std::size_t(a)] || !present[std::size_t(b)]) continue;
        const std::string where = config.configFile.empty() ? "command line" : config.configFile.string();
        throw Error(where + ": no [typed." + na + "-" + nb + "] section: nonbonded.potential = typed needs c1, c2, c3 for "
                    "every pair of atom types in the system (" + na + " and " + nb + " are in " +
                    (config.system.coordinates.empty() ? std::string("it") : config.system.coordinates.string()) + ")");
      }
      if (!(p->c3 > 2)) throw keyError("typed." + p->a + "-" + p->b + ".c3", "must be > 2 (got " + formatNumber(p->c3) + ")");
      table.params[std::size_t(a) * types + b] = table.params[std::size_t(b) * types + a] = {p->c1, p->c2, p->c3};
    }
  return table;
}

AllPairsParams allPairsParams(const Config& config, const System& system) {
  if (config.integrator.type != IntegratorType::Verlet)
    throw keyError("integrator.type", "nonbonded.mode = all-pairs runs with verlet only (got " +
                                          choiceText(config.integrator.type) + ")");
  AllPairsParams p;
  const PairPotential potential = config.nonbonded.potential;
  if (potential == PairPotential::Gravity) {
    p.potential = AllPairsPotential::Gravity;
    p.G = config.gravity.g;
    p.softening = config.gravity.softening;
    if (!(p.softening > 0))
      throw keyError("gravity.softening", "must be > 0 nm with nonbonded.potential = gravity (got " +
                                              formatNumber(p.softening) + ")");
    if (!(p.G > 0)) throw keyError("gravity.g", "must be > 0");
  } else if (potential == PairPotential::Typed) {
    p.potential = AllPairsPotential::Typed;
    p.typed = typedPairTable(config, system);
  } else {
    throw keyError("nonbonded.potential", "'" + choiceText(potential) + "' does not run in nonbonded.mode = all-pairs (gravity or typed)");
  }
  return p;
}

CutoffRunParams cutoffRunParams(const Config& config, const System& system, bool gpu) {
  if (config.nonbonded.allPairs())
    throw keyError("nonbonded.mode", "all-pairs runs on the all-pairs backends (makeBackend chooses them)");
  if (!system.box.isValid()) throw Error("the box must be in reduced triclinic form (a along x, b in the xy plane) with a finite volume");
  CutoffRunParams p;
  p.threads = config.run.threads;
  p.integrator = integratorParams(config);
  p.ewald = chooseEwaldSetup(config, system.box);
  p.nonbonded = nonbondedOptions(config, system, p.ewald, config.run.threads);
  p.buffer = pairListBuffer(config, system, gpu);
  p.bufferChosen = config.nonbonded.buffer < 0;
  p.dispersionCorrection = config.nonbonded.dispersionCorrection && !config.nonbonded.typed();
  checkCutoffRun(p, system.box, gpu);
  return p;
}

void checkCutoffRun(const CutoffRunParams& params, const Box& box, bool gpu) {
  if (!box.isValid()) throw Error("the box must be in reduced triclinic form (a along x, b in the xy plane) with a finite volume");
  if (!(params.nonbonded.cutoff < box.maxCutoff()))
    throw keyError("nonbonded.cutoff", std::string("must be below half ") + box.maxCutoffMeaning() + " (" +
                                           std::to_string(box.maxCutoff()) + " nm)");
  if (gpu && params.ewald.method == ElectrostaticsMethod::Ewald)
    throw keyError("electrostatics.method", "'ewald' (the plain Ewald reference) runs on run.platform = cpu only");
}

MultiGpuRunParams multiGpuRunParams(const Config& config, const System& system) {
  return {cutoffRunParams(config, system, true), config.run.pmeSplit, config.run.gpuSum, config.run.updateSplit};
}

AllPairsRunParams allPairsRunParams(const Config& config, const System& system) {
  return {config.run.threads, integratorParams(config), allPairsParams(config, system)};
}

MapOptions mapOptions(const Config::MapSection& map, const Box& box, const EwaldSetup* ewald) {
  MapOptions o;
  o.method = map.method;
  o.periodic = map.periodic;
  o.box = box;
  o.cutoff = map.cutoff;
  const std::string halfBox = box.isValid() ? std::to_string(box.maxCutoff()) : "";
  if (isPmeMethod(o.method)) {
    if (!map.periodic)
      throw keyError("map.periodic", "must be true for map.method = " + choiceText(map.method) +
                                         " (the Ewald potential is periodic)");
    const EwaldSetup setup = ewald ? *ewald : EwaldSetup{};
    if (setup.method == ElectrostaticsMethod::None || !(setup.beta > 0))
      throw keyError("electrostatics.method", "map.method = pme needs Ewald electrostatics (pme or ewald), not '" +
                                                  choiceText(setup.method) + "': the map uses the run's beta, grid and order");
    applyEwaldSetup(setup, o);
    if (o.method == MapMethod::PmePot) {
      o.pme.beta = map.ewaldFactor;
      o.ewaldCutoff = 0;  // no real-space part
    }
  }
  const std::string half = std::string("half ") + (box.isValid() ? box.maxCutoffMeaning() : "the box");
  if (o.method == MapMethod::Pme && box.isValid() && !(o.ewaldCutoff < box.maxCutoff()))
    throw keyError("nonbonded.cutoff", "must be below " + half + " (" + halfBox + " nm) for map.method = pme");
  if (o.periodic && !box.isValid()) throw keyError("map.periodic", "needs a box in reduced triclinic form");
  if (o.method == MapMethod::Cutoff && o.periodic && !(o.cutoff < box.maxCutoff()))
    throw keyError("map.cutoff", "must be below " + half + " (" + halfBox + " nm) for a periodic map");
  checkMapOptions(o);
  return o;
}

namespace {

/// `make`'s lattice, its size error naming map.spacing.
template <typename Make>
Lattice latticeNamingSpacing(Make make) {
  try {
    return make();
  } catch (const LatticeTooLarge& e) {
    throw keyError("map.spacing", e.what());
  }
}

}  // namespace

Lattice mapLattice(const Config::MapSection& map, const Box& box) {
  return latticeNamingSpacing([&] { return Lattice::fromBox(box, map.spacing); });
}

Lattice mapLattice(const Config::MapSection& map, const std::vector<Vec3>& positions) {
  return latticeNamingSpacing([&] { return Lattice::fromAtoms(positions, map.spacing, map.padding); });
}

}  // namespace faraday
