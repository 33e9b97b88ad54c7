#include "engine/config/KernelParams.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/Error.h"
#include "engine/formats/TextParse.h"
#include "core/Units.h"

namespace faraday {

EwaldSetup chooseEwaldSetup(const Config& config, const Box& box) {
  return chooseEwaldSetup(config.electrostatics, config.nonbonded.cutoff, box);
}

std::string checkPmeAccuracy(const Config& config, const EwaldSetup& setup, const Box& box, const std::string& what,
                             const std::string& betaFrom) {
  if (setup.pme.grid[0] <= 0 || !(setup.beta > 0)) return "";
  const auto& e = config.electrostatics;
  const Vec3 L = box.lengths();
  double h = 0;
  for (int d = 0; d < 3; ++d) h = std::max(h, L[d] / setup.pme.grid[d]);
  const double estimate = pmeForceErrorEstimate(setup.beta, setup.pme.order, h);
  const double bound = std::max(kPmeErrorRtolFactor * e.ewaldRtol, kPmeErrorFloor);
  if (!(estimate > bound)) return "";
  char text[768];
  std::snprintf(text, sizeof text,
                "%s: estimated relative force error %.2g, above max(%g ewald_rtol, %g) = %.2g: the grid %d x %d x %d "
                "(%s; largest spacing %.3g nm in the %.4g x %.4g x %.4g nm box) with electrostatics.pme_order = %d "
                "and beta = %.4g /nm (%s)",
                what.c_str(), estimate, kPmeErrorRtolFactor, kPmeErrorFloor, bound, setup.pme.grid[0], setup.pme.grid[1],
                setup.pme.grid[2],
                e.grid[0] > 0 ? "electrostatics.grid"
                              : ("electrostatics.fourier_spacing = " +
                                 (e.fourierSpacing == 0 ? std::string("auto") : formatNumber(e.fourierSpacing)))
                                    .c_str(),
                h, L.x, L.y, L.z, setup.pme.order, setup.beta, betaFrom.c_str());
  if (e.acceptForceError) return std::string(text) + "; run anyway (electrostatics.accept_force_error = true)";
  throw Error(std::string(text) + "; refine the grid, raise pme_order or lower beta, or set "
                                  "electrostatics.accept_force_error = true to run anyway");
}

NonbondedOptions nonbondedOptions(const Config& config, const System& system, const EwaldSetup& ewald, int threads) {
  if (config.nonbonded.potential == "gravity")
    throw keyError("nonbonded.potential", "gravity needs nonbonded.mode = all-pairs");
  NonbondedOptions o;
  o.cutoff = config.nonbonded.cutoff;
  o.ljShift = config.nonbonded.ljShift;
  o.ewaldBeta = ewald.method == "none" ? 0.0 : ewald.beta;
  o.coulombShift = config.nonbonded.coulombModifier == "potential-shift";
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
  if (config.integrator.type == "langevin") temperature = std::max(temperature, config.integrator.temperature);
  double lightest = std::numeric_limits<double>::infinity();
  for (double m : system.mass) lightest = std::min(lightest, m);
  const double room = std::max(0.0, 0.5 * system.box.shortestEdge() - config.nonbonded.cutoff);
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
  if (config.integrator.type != "verlet")
    throw keyError("integrator.type", "nonbonded.mode = all-pairs runs with verlet only (got " +
                                          config.integrator.type + ")");
  AllPairsParams p;
  const std::string& potential = config.nonbonded.potential;
  if (potential == "gravity") {
    p.potential = AllPairsPotential::Gravity;
    p.G = config.gravity.g;
    p.softening = config.gravity.softening;
    if (!(p.softening > 0))
      throw keyError("gravity.softening", "must be > 0 nm with nonbonded.potential = gravity (got " +
                                              formatNumber(p.softening) + ")");
    if (!(p.G > 0)) throw keyError("gravity.g", "must be > 0");
  } else if (potential == "typed") {
    p.potential = AllPairsPotential::Typed;
    p.typed = typedPairTable(config, system);
  } else {
    throw keyError("nonbonded.potential", "'" + potential + "' does not run in nonbonded.mode = all-pairs (gravity or typed)");
  }
  return p;
}

}  // namespace faraday
