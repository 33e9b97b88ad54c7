// Checks of a loaded configuration as a whole: output names that collide, and keys that
// have no effect in the chosen mode.
#include "engine/config/ConfigChecks.h"

#include <functional>

#include "core/Error.h"
#include "engine/formats/AtomicFile.h"
#include "engine/formats/MapWriters.h"
#include "engine/formats/Trajectory.h"

namespace faraday {
namespace fs = std::filesystem;

namespace {

fs::path absoluteNormal(const fs::path& p) { return fs::absolute(p).lexically_normal(); }

fs::path withSuffix(const fs::path& p, const char* suffix) {
  fs::path q = p;
  q += suffix;
  return q;
}

/// `name` in the output folder (an absolute name stays as it is), with its companions.
void addOutput(std::vector<NamedFile>& out, const Config& config, const char* key, const std::string& name,
               bool atomic, bool keepsPrevious) {
  if (name.empty()) return;
  const fs::path path = absoluteNormal(config.output.directory / name);
  out.push_back({key, path, ""});
  if (isSpecialFile(path)) return;  // a device or a FIFO is written through: no companions
  if (atomic) out.push_back({key, withSuffix(path, ".tmp"), "the temporary file"});
  if (keepsPrevious) out.push_back({key, withSuffix(path, ".prev"), "the previous version"});
}

std::string describe(const NamedFile& f) {
  if (f.role == "the input") return f.key.empty() ? "the config file" : "the input file of key '" + f.key + "'";
  if (f.role.empty()) return "the file of key '" + f.key + "'";
  return f.role + " of key '" + f.key + "'";
}

std::string whereSet(const KeyOrigins& origins, const std::string& key) {
  const auto it = origins.find(key);
  return it != origins.end() ? it->second : "key '" + key + "'";
}

}  // namespace

std::vector<NamedFile> outputFiles(const Config& config) {
  const auto& o = config.output;
  std::vector<NamedFile> out;
  addOutput(out, config, "output.energy_file", o.energyFile, false, false);
  addOutput(out, config, "output.trajectory_file", o.trajectoryFile, false, false);
  addOutput(out, config, "output.final_coordinates", o.finalCoordinates, true, false);
  addOutput(out, config, "output.checkpoint_file", o.checkpointFile, true, true);
  addOutput(out, config, "output.log_file", o.logFile, false, false);
  addOutput(out, config, "output.forces_file", o.forcesFile, true, false);
  addOutput(out, config, "rerun.energy_file", config.rerun.energyFile, true, false);
  if (config.map.enabled) addOutput(out, config, "map.file", config.map.file, true, false);
  return out;
}

fs::path mapOutputPath(const Config& config) {
  const fs::path f = config.map.file;
  return f.is_absolute() ? f : config.output.directory / f;
}

void checkOutputNames(const Config& config, const KeyOrigins& origins) {
  std::vector<NamedFile> files = outputFiles(config);
  files.push_back({"output.directory", absoluteNormal(config.output.directory / kOutputLockName), "the lock file"});
  const std::size_t outputs = files.size();
  if (!config.system.coordinates.empty())
    files.push_back({"system.coordinates", absoluteNormal(config.system.coordinates), "the input"});
  if (!config.configFile.empty()) files.push_back({"", absoluteNormal(config.configFile), "the input"});
  for (std::size_t j = 0; j < outputs; ++j)
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (i == j || files[i].path != files[j].path || files[i].key == files[j].key) continue;
      if (i < outputs && isSpecialFile(files[j].path)) continue;  // outputs may share /dev/null
      if (i < outputs && i > j) continue;  // each pair of outputs once
      // Name the output that was set explicitly first: that is the one to change.
      const bool swap = i < outputs && !origins.count(files[j].key) && origins.count(files[i].key);
      const NamedFile& named = swap ? files[i] : files[j];
      const NamedFile& other = swap ? files[j] : files[i];
      std::string what = named.role.empty() ? "names " : "makes " + named.role + " ";
      throw Error(whereSet(origins, named.key) + ": " + what + named.path.string() + ", which is also " +
                  describe(other) + "; every output needs a file of its own");
    }
}

void checkOutputPlaces(const Config& config, const KeyOrigins& origins) {
  std::error_code ec;
  fs::path existing = absoluteNormal(config.output.directory);
  while (existing.has_relative_path() && !fs::exists(existing, ec)) existing = existing.parent_path();
  if (fs::exists(existing, ec) && !fs::is_directory(existing, ec))
    throw Error(whereSet(origins, "output.directory") + ": " + config.output.directory.string() +
                " cannot be a folder: " + existing.string() + " is a file");
}

void checkTrajectoryFormats(const Config& config, const KeyOrigins& origins) {
  const std::pair<const char*, const std::string*> keys[] = {{"output.trajectory_file", &config.output.trajectoryFile},
                                                             {"rerun.trajectory", &config.rerun.trajectory},
                                                             {"map.trajectory", &config.map.trajectory}};
  for (const auto& [key, name] : keys)
    if (!name->empty() && !trajectoryFormat(*name))
      throw Error(whereSet(origins, key) + ": unknown trajectory format '" + fs::path(*name).extension().string() +
                  "' in " + *name + " (expected .dcd or .xtc)");
}

void checkMapFileFormat(const Config& config, const KeyOrigins& origins) {
  if (isMapFormat(config.map.file)) return;
  const std::string ext = fs::path(config.map.file).extension().string();
  throw Error(whereSet(origins, "map.file") + ": " + (ext.empty() ? "no map format" : "unknown map format '" + ext + "'") +
              " in " + config.map.file + " (expected " + kMapFormats + ")");
}

namespace {

/// A topology gives every particle's parameters: no [atom.NAME] sections beside it, and the
/// pair potential is LJ and Coulomb in the cutoff mode.
void checkTopologyCombination(const Config& c, const KeyOrigins& origins) {
  if (c.system.topology.empty()) {
    if (!c.system.defines.empty())
      throw Error(whereSet(origins, "system.defines") + ": defines need a topology (system.topology)");
    if (c.system.constraints != BondConstraints::None)
      throw Error(whereSet(origins, "system.constraints") + ": " + choiceText(c.system.constraints) +
                  " makes a topology's bonds rigid and needs one (system.topology)");
    if (c.system.hydrogenMass > 0)
      throw Error(whereSet(origins, "system.hydrogen_mass") +
                  ": hydrogen mass repartitioning moves mass along a topology's bonds and needs one (system.topology)");
    return;
  }
  if (!c.atomTypes.empty()) {
    const std::string section = "atom." + c.atomTypes.front().name;
    std::string where = "[" + section + "]";
    for (const auto& [key, origin] : origins)
      if (key.rfind(section + ".", 0) == 0) {
        where = origin;
        break;
      }
    throw Error(whereSet(origins, "system.topology") + ": the topology gives every particle's parameters; remove the [" +
                section + "] section" + (c.atomTypes.size() > 1 ? "s and the other [atom.NAME] sections" : "") + " (" +
                where + ")");
  }
  if (c.nonbonded.allPairs() || c.nonbonded.potential != PairPotential::LjCoulomb)
    throw Error(whereSet(origins, "system.topology") +
                ": a topology runs with nonbonded.mode = cutoff and nonbonded.potential = lj-coulomb");
}

/// The barostat scales a periodic box at a temperature: the cutoff mode, and
/// integrator.temperature > 0 (set explicitly with velocity Verlet, which has no bath of its own).
void checkBarostat(const Config& c, const KeyOrigins& origins) {
  if (!c.barostat.enabled) return;
  std::string where = "[barostat]";
  for (const auto& [key, origin] : origins)
    if (key.rfind("barostat.", 0) == 0) {
      where = origin;
      break;
    }
  if (c.nonbonded.allPairs())
    throw Error(where + ": the barostat needs a periodic box (nonbonded.mode = cutoff); nonbonded.mode = all-pairs has "
                        "open boundaries");
  if (!(c.integrator.temperature > 0))
    throw Error(whereSet(origins, "integrator.temperature") + ": the barostat needs a temperature > 0 K");
  if (c.integrator.type != IntegratorType::Langevin && !origins.count("integrator.temperature")) {
    const std::string file = c.configFile.empty() ? "command line" : c.configFile.string();
    throw Error(file + ": key 'integrator.temperature': required key is missing: the barostat's temperature (K) with "
                       "integrator.type = " + choiceText(c.integrator.type) + ", which has no bath of its own");
  }
}

/// "KEY = VALUE" when `value` is not `wanted` (the reason a key for `wanted` has no effect), else "".
template <typename E>
std::string unlessChoice(const char* key, E value, E wanted) {
  return value != wanted ? std::string(key) + " = " + choiceText(value) : std::string();
}

}  // namespace

void checkModeCombination(const Config& c, const KeyOrigins& origins) {
  const auto fail = [&origins](const std::string& key, const std::string& what) {
    throw Error(whereSet(origins, key) + ": " + what);
  };
  const auto& nb = c.nonbonded;
  checkTopologyCombination(c, origins);
  checkBarostat(c, origins);
  if (nb.potential == PairPotential::Gravity && !nb.allPairs())
    fail("nonbonded.potential", "gravity needs nonbonded.mode = all-pairs (open boundaries, every pair; gravity has no "
                                "cutoff)");
  if (!nb.allPairs()) return;
  if (nb.potential == PairPotential::LjCoulomb)
    fail("nonbonded.mode", "all-pairs needs nonbonded.potential = gravity or typed (LJ and Coulomb run in "
                           "nonbonded.mode = cutoff, with PME)");
  if (c.integrator.type != IntegratorType::Verlet)
    fail(origins.count("integrator.type") ? "integrator.type" : "nonbonded.mode",
         "nonbonded.mode = all-pairs runs with integrator.type = verlet only (got " + choiceText(c.integrator.type) +
             ")");
  if (nb.potential == PairPotential::Gravity && !(c.gravity.softening > 0)) {
    const std::string where = c.configFile.empty() ? "command line" : c.configFile.string();
    throw Error(where + ": key 'gravity.softening': required key is missing: nonbonded.potential = gravity needs the "
                        "Plummer softening length eps > 0 (nm)");
  }
  if (c.map.enabled)
    fail(origins.count("map.enabled") ? "map.enabled" : "nonbonded.mode",
         "potential maps need nonbonded.mode = cutoff (all-pairs has open boundaries and no electrostatics)");
}

namespace {

/// Why a key has no effect in a configuration ("" = it has one).
using Reason = std::function<std::string(const Config&)>;
/// Each key with the reason it may have no effect.
using Rules = std::vector<std::pair<const char*, Reason>>;

/// A key of the cutoff mode has no effect in all-pairs mode, whatever `reason` says.
Reason orAllPairs(Reason reason) {
  return [reason](const Config& x) {
    return x.nonbonded.allPairs() ? "nonbonded.mode = all-pairs (open boundaries, no cutoff, no electrostatics)"
                                  : reason(x);
  };
}

Reason unlessPotential(PairPotential potential) {
  return [potential](const Config& x) {
    return x.nonbonded.potential != potential ? "nonbonded.potential = " + choiceText(x.nonbonded.potential)
                                              : std::string();
  };
}

/// The integrator's, the pair potentials' and the electrostatics' keys.
Rules forceFieldRules() {
  const Reason never = [](const Config&) { return std::string(); };
  const Reason ljOnly = orAllPairs(unlessPotential(PairPotential::LjCoulomb));
  const Reason verlet = [](const Config& x) {
    return x.integrator.type == IntegratorType::Verlet ? std::string("integrator.type = verlet (no thermostat)") : "";
  };
  // The PME keys also set up the map's reciprocal part when map.method = pme or pmepot.
  const auto mapUsesPme = [](const Config& x) { return x.map.enabled && isPmeMethod(x.map.method); };
  const Reason notPme = [mapUsesPme](const Config& x) {
    return x.electrostatics.method != ElectrostaticsMethod::Pme && !mapUsesPme(x)
               ? "electrostatics.method = " + choiceText(x.electrostatics.method)
               : std::string();
  };
  const Reason noEwald = [mapUsesPme](const Config& x) {
    return x.electrostatics.method == ElectrostaticsMethod::None && !mapUsesPme(x)
               ? std::string("electrostatics.method = none")
               : "";
  };
  const Reason explicitGrid = [notPme](const Config& x) {
    const std::string r = notPme(x);
    if (!r.empty()) return r;
    const auto& g = x.electrostatics.grid;
    return g[0] > 0 ? "electrostatics.grid = " + std::to_string(g[0]) + " " + std::to_string(g[1]) + " " +
                          std::to_string(g[2]) + " (an explicit grid)"
                    : std::string();
  };
  return {
      {"integrator.temperature",
       [verlet](const Config& x) { return x.barostat.enabled ? std::string() : verlet(x); }},
      {"integrator.friction", verlet},
      {"integrator.seed", verlet},
      {"nonbonded.cutoff", orAllPairs(never)},
      {"nonbonded.buffer", orAllPairs(never)},
      {"nonbonded.lj_shift", ljOnly},
      {"nonbonded.dispersion_correction", ljOnly},
      {"nonbonded.typed_rmin", unlessPotential(PairPotential::Typed)},
      {"gravity.g", unlessPotential(PairPotential::Gravity)},
      {"gravity.softening", unlessPotential(PairPotential::Gravity)},
      {"electrostatics.method", orAllPairs(never)},
      {"electrostatics.ewald_rtol", orAllPairs(noEwald)},
      {"nonbonded.coulomb_modifier", orAllPairs([](const Config& x) {
         return x.electrostatics.method == ElectrostaticsMethod::None ? std::string("electrostatics.method = none")
                                                                      : "";
       })},
      {"electrostatics.pme_order", orAllPairs(notPme)},
      {"electrostatics.grid", orAllPairs(notPme)},
      {"electrostatics.fourier_spacing", orAllPairs(explicitGrid)},
      {"electrostatics.ewald_kspace_rtol", orAllPairs([](const Config& x) {
         return unlessChoice("electrostatics.method", x.electrostatics.method, ElectrostaticsMethod::Ewald);
       })},
  };
}

/// The barostat's, the outputs' and the map's keys.
Rules outputRules() {
  const Reason noBarostat = [](const Config& x) {
    return x.barostat.enabled ? std::string() : std::string("barostat.enabled = false");
  };
  return {
      {"barostat.pressure", noBarostat},
      {"barostat.interval", noBarostat},
      {"output.energy_interval",
       [](const Config& x) { return x.output.energyFile.empty() ? std::string("no output.energy_file") : ""; }},
      {"output.trajectory_interval",
       [](const Config& x) { return x.output.trajectoryFile.empty() ? std::string("no output.trajectory_file") : ""; }},
      {"output.xtc_precision",
       [](const Config& x) {
         return trajectoryFormat(x.output.trajectoryFile) != TrajectoryFormat::Xtc
                    ? "output.trajectory_file = \"" + x.output.trajectoryFile + "\" (not .xtc)"
                    : std::string();
       }},
      {"output.checkpoint_interval",
       [](const Config& x) { return x.output.checkpointFile.empty() ? std::string("no output.checkpoint_file") : ""; }},
      {"map.cutoff", [](const Config& x) { return unlessChoice("map.method", x.map.method, MapMethod::Cutoff); }},
      {"map.ewald_factor",
       [](const Config& x) { return unlessChoice("map.method", x.map.method, MapMethod::PmePot); }},
      {"map.padding", [](const Config& x) { return unlessChoice("map.extent", x.map.extent, MapExtent::Atoms); }},
      {"map.extent_atoms",
       [](const Config& x) { return unlessChoice("map.extent", x.map.extent, MapExtent::Atoms); }},
      {"map.temperature", [](const Config& x) { return unlessChoice("map.units", x.map.units, MapUnits::KtPerE); }},
  };
}

}  // namespace

std::vector<std::string> ineffectiveKeyWarnings(const Config& c, const KeyOrigins& origins) {
  Rules rules = forceFieldRules();
  for (auto& rule : outputRules()) rules.push_back(std::move(rule));
  std::vector<std::string> warnings;
  for (const auto& [key, reason] : rules) {
    const auto it = origins.find(key);
    if (it == origins.end()) continue;
    const std::string why = reason(c);
    if (!why.empty()) warnings.push_back(it->second + ": has no effect with " + why);
  }
  // The [typed.A-B] sections, in the order of their keys.
  const std::string notTyped = unlessPotential(PairPotential::Typed)(c);
  if (!notTyped.empty())
    for (const auto& [key, where] : origins)
      if (key.rfind("typed.", 0) == 0) warnings.push_back(where + ": has no effect with " + notTyped);
  return warnings;
}

}  // namespace faraday
