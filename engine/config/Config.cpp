#include "engine/config/Config.h"

#include <boost/program_options.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "engine/config/ConfigChecks.h"
#include "core/Error.h"
#include "engine/formats/TextParse.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace faraday {
namespace {

/// Where a value came from: a config file line or the command line.
struct Origin {
  std::string file;  ///< empty: command line
  long line = 0;
  fs::path base;     ///< folder that relative paths are resolved against
  std::string where(const std::string& key) const {
    if (file.empty()) return "command line: key '" + key + "'";
    return file + ":" + std::to_string(line) + ": key '" + key + "'";
  }
};

struct Value {
  std::string text;
  Origin origin;
};

/// A value that cannot be used; the caller adds where it came from.
struct BadValue {
  std::string what;
};

// ---- value conversion -------------------------------------------------------------

double toDouble(const std::string& text) {
  double v = 0;
  if (!parseDouble(text, v)) throw BadValue{"not a number: '" + text + "'"};
  if (!std::isfinite(v)) throw BadValue{"not a finite number: '" + text + "'"};
  return v;
}

long long toInteger(const std::string& text) {
  long long v = 0;
  if (!parseInteger(text, v)) throw BadValue{"not an integer: '" + text + "'"};
  return v;
}

unsigned long long toSeed(const std::string& text) {
  const long long v = toInteger(text);
  if (v < 0) throw BadValue{"must be >= 0 (got " + text + ")"};
  return static_cast<unsigned long long>(v);
}

bool toBool(const std::string& text) {
  std::string t = text;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  if (t == "true" || t == "yes" || t == "on" || t == "1") return true;
  if (t == "false" || t == "no" || t == "off" || t == "0") return false;
  throw BadValue{"not a boolean (true/false): '" + text + "'"};
}

double positive(double v, const char* unit) {
  if (!(v > 0)) throw BadValue{"must be > 0 " + std::string(unit) + " (got " + formatNumber(v) + ")"};
  return v;
}

double nonNegative(double v, const char* unit) {
  if (v < 0) throw BadValue{"must be >= 0 " + std::string(unit) + " (got " + formatNumber(v) + ")"};
  return v;
}

std::string oneOf(const std::string& text, std::initializer_list<const char*> allowed) {
  std::string list;
  for (const char* a : allowed) {
    if (text == a) return text;
    list += (list.empty() ? "" : " | ") + std::string(a);
  }
  throw BadValue{"unknown value '" + text + "' (expected " + list + ")"};
}

/// `"text"` -> `text` (so that `energy_file = ""` reads as empty).
std::string unquoted(const std::string& text) {
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') return text.substr(1, text.size() - 2);
  return text;
}

fs::path toPath(const Value& v) {
  if (v.text.empty()) return {};
  fs::path p(v.text);
  if (p.is_relative()) p = v.origin.base / p;
  return p.lexically_normal();
}

std::string boolText(bool b) { return b ? "true" : "false"; }

long long positiveInterval(const std::string& text) {
  const long long n = toInteger(text);
  if (n <= 0) throw BadValue{"must be > 0 steps (got " + text + ")"};
  return n;
}

// ---- the key table ------------------------------------------------------------------

/// One configuration key: its name, unit, description, how to store a value and how to
/// print the current one (the default comes from printing a default Config).
struct KeySpec {
  const char* key;
  const char* unit;
  const char* help;
  std::function<void(Config&, const Value&)> set;
  std::function<std::string(const Config&)> get;
};

using C = Config;
using V = Value;

const std::vector<KeySpec>& keySpecs() {
  static const std::vector<KeySpec> specs = {
      {"system.coordinates", "path", ".gro or .pdb coordinates (required)",
       [](C& c, const V& v) {
         if (v.text.empty()) throw BadValue{"must name a .gro or .pdb file"};
         c.system.coordinates = toPath(v);
       },
       [](const C& c) { return c.system.coordinates.string(); }},
      {"system.temperature", "K", "Maxwell-Boltzmann velocities when the file has none",
       [](C& c, const V& v) { c.system.temperature = nonNegative(toDouble(v.text), "K"); },
       [](const C& c) { return formatNumber(c.system.temperature); }},
      {"system.velocity_seed", "", "seed of the initial velocities",
       [](C& c, const V& v) { c.system.velocitySeed = toSeed(v.text); },
       [](const C& c) { return std::to_string(c.system.velocitySeed); }},

      {"nonbonded.mode", "", "cutoff (periodic box, pair list) | all-pairs (open boundaries, every pair, no cutoff)",
       [](C& c, const V& v) { c.nonbonded.mode = oneOf(v.text, {"cutoff", "all-pairs"}); },
       [](const C& c) { return c.nonbonded.mode; }},
      {"nonbonded.potential", "", "lj-coulomb | gravity (all-pairs only) | typed ([typed.A-B] sections)",
       [](C& c, const V& v) { c.nonbonded.potential = oneOf(v.text, {"lj-coulomb", "gravity", "typed"}); },
       [](const C& c) { return c.nonbonded.potential; }},
      {"nonbonded.typed_rmin", "nm", "the typed force's distance is clamped below it",
       [](C& c, const V& v) { c.nonbonded.typedRmin = positive(toDouble(v.text), "nm"); },
       [](const C& c) { return formatNumber(c.nonbonded.typedRmin); }},
      {"nonbonded.cutoff", "nm", "LJ and real-space Coulomb cutoff",
       [](C& c, const V& v) { c.nonbonded.cutoff = positive(toDouble(v.text), "nm"); },
       [](const C& c) { return formatNumber(c.nonbonded.cutoff); }},
      {"nonbonded.buffer", "nm", "pair-list skin beyond the cutoff | auto (0.1 on the CPU; on the GPU from the run's speeds)",
       [](C& c, const V& v) { c.nonbonded.buffer = v.text == "auto" ? -1.0 : positive(toDouble(v.text), "nm"); },
       [](const C& c) { return c.nonbonded.buffer < 0 ? std::string("auto") : formatNumber(c.nonbonded.buffer); }},
      {"nonbonded.lj_shift", "bool", "shift LJ to zero at the cutoff",
       [](C& c, const V& v) { c.nonbonded.ljShift = toBool(v.text); },
       [](const C& c) { return boolText(c.nonbonded.ljShift); }},
      {"nonbonded.coulomb_modifier", "", "potential-shift (real-space Coulomb zero at the cutoff) | none",
       [](C& c, const V& v) { c.nonbonded.coulombModifier = oneOf(v.text, {"potential-shift", "none"}); },
       [](const C& c) { return c.nonbonded.coulombModifier; }},
      {"nonbonded.dispersion_correction", "bool", "long-range LJ energy/pressure correction",
       [](C& c, const V& v) { c.nonbonded.dispersionCorrection = toBool(v.text); },
       [](const C& c) { return boolText(c.nonbonded.dispersionCorrection); }},

      {"gravity.g", "kJ/mol nm/amu^2", "gravitational constant: F = G m_i m_j / r^2",
       [](C& c, const V& v) { c.gravity.g = positive(toDouble(v.text), "kJ/mol nm/amu^2"); },
       [](const C& c) { return formatNumber(c.gravity.g); }},
      {"gravity.softening", "nm", "Plummer softening eps: r^2 -> r^2 + eps^2 (> 0, required with gravity)",
       [](C& c, const V& v) { c.gravity.softening = positive(toDouble(v.text), "nm"); },
       [](const C& c) { return formatNumber(c.gravity.softening); }},

      {"electrostatics.method", "", "pme | ewald | none",
       [](C& c, const V& v) { c.electrostatics.method = oneOf(v.text, {"pme", "ewald", "none"}); },
       [](const C& c) { return c.electrostatics.method; }},
      {"electrostatics.ewald_rtol", "", "erfc(beta * cutoff) = ewald_rtol",
       [](C& c, const V& v) {
         const double r = toDouble(v.text);
         if (!(r > 0 && r < 1)) throw BadValue{"must be in (0, 1) (got " + v.text + ")"};
         c.electrostatics.ewaldRtol = r;
       },
       [](const C& c) { return formatNumber(c.electrostatics.ewaldRtol); }},
      {"electrostatics.fourier_spacing", "nm", "largest PME grid spacing, or auto (from ewald_rtol and pme_order)",
       [](C& c, const V& v) {
         c.electrostatics.fourierSpacing = v.text == "auto" ? 0.0 : positive(toDouble(v.text), "nm");
       },
       [](const C& c) {
         return c.electrostatics.fourierSpacing == 0 ? std::string("auto") : formatNumber(c.electrostatics.fourierSpacing);
       }},
      {"electrostatics.pme_order", "", "B-spline order, 4..8",
       [](C& c, const V& v) {
         const long long n = toInteger(v.text);
         if (n < 4 || n > 8) throw BadValue{"must be in 4..8 (got " + v.text + ")"};
         c.electrostatics.pmeOrder = int(n);
       },
       [](const C& c) { return std::to_string(c.electrostatics.pmeOrder); }},
      {"electrostatics.grid", "points", "\"NX NY NZ\" PME grid; 0 0 0 = from fourier_spacing",
       [](C& c, const V& v) {
         std::vector<std::string> parts = splitWhitespace(v.text);
         if (parts.size() != 3) throw BadValue{"expected three integers \"NX NY NZ\" (got '" + v.text + "')"};
         std::array<int, 3> g{};
         for (int i = 0; i < 3; ++i) {
           const long long n = toInteger(parts[i]);
           if (n < 0 || n > 4096) throw BadValue{"grid sizes must be in 0..4096 (got '" + v.text + "')"};
           g[i] = int(n);
         }
         const bool allZero = g[0] == 0 && g[1] == 0 && g[2] == 0;
         const bool allSet = g[0] > 0 && g[1] > 0 && g[2] > 0;
         if (!allZero && !allSet) throw BadValue{"give all three sizes or 0 0 0 (got '" + v.text + "')"};
         c.electrostatics.grid = g;
       },
       [](const C& c) {
         const auto& g = c.electrostatics.grid;
         return std::to_string(g[0]) + " " + std::to_string(g[1]) + " " + std::to_string(g[2]);
       }},
      {"electrostatics.ewald_kspace_rtol", "", "plain Ewald k cut exp(-pi^2 m^2/beta^2); 0 = auto (converged)",
       [](C& c, const V& v) {
         const double r = toDouble(v.text);
         if (!(r >= 0 && r < 1)) throw BadValue{"must be in [0, 1) (got " + v.text + ")"};
         c.electrostatics.ewaldKspaceRtol = r;
       },
       [](const C& c) { return formatNumber(c.electrostatics.ewaldKspaceRtol); }},

      {"integrator.type", "", "verlet | langevin",
       [](C& c, const V& v) { c.integrator.type = oneOf(v.text, {"verlet", "langevin"}); },
       [](const C& c) { return c.integrator.type; }},
      {"integrator.dt", "ps", "time step",
       [](C& c, const V& v) { c.integrator.dt = positive(toDouble(v.text), "ps"); },
       [](const C& c) { return formatNumber(c.integrator.dt); }},
      {"integrator.temperature", "K", "bath temperature (langevin)",
       [](C& c, const V& v) { c.integrator.temperature = nonNegative(toDouble(v.text), "K"); },
       [](const C& c) { return formatNumber(c.integrator.temperature); }},
      {"integrator.friction", "1/ps", "friction coefficient (langevin)",
       [](C& c, const V& v) { c.integrator.friction = nonNegative(toDouble(v.text), "1/ps"); },
       [](const C& c) { return formatNumber(c.integrator.friction); }},
      {"integrator.seed", "", "seed of the Langevin noise",
       [](C& c, const V& v) { c.integrator.seed = toSeed(v.text); },
       [](const C& c) { return std::to_string(c.integrator.seed); }},

      {"run.steps", "steps", "total number of steps (a restart continues up to it)",
       [](C& c, const V& v) {
         const long long n = toInteger(v.text);
         if (n < 0) throw BadValue{"must be >= 0 (got " + v.text + ")"};
         c.run.steps = n;
       },
       [](const C& c) { return std::to_string(c.run.steps); }},
      {"run.platform", "", "auto | cpu | cuda",
       [](C& c, const V& v) { c.run.platform = oneOf(v.text, {"auto", "cpu", "cuda"}); },
       [](const C& c) { return c.run.platform; }},
      {"run.threads", "", "OpenMP threads for the CPU path (0 = all cores)",
       [](C& c, const V& v) {
         const long long n = toInteger(v.text);
         if (n < 0 || n > 4096) throw BadValue{"must be in 0..4096 (got " + v.text + ")"};
         c.run.threads = int(n);
       },
       [](const C& c) { return std::to_string(c.run.threads); }},
      {"run.devices", "", "GPUs: empty = the first; an index; or a list (0,1,...) or all: faraday map splits the frames across them",
       [](C& c, const V& v) { c.run.devices = v.text; },
       [](const C& c) { return c.run.devices; }},
      {"run.progress_interval", "s", "seconds between progress lines (0 = off)",
       [](C& c, const V& v) { c.run.progressInterval = nonNegative(toDouble(v.text), "s"); },
       [](const C& c) { return formatNumber(c.run.progressInterval); }},

      {"output.directory", "path", "folder of all outputs (created if missing)",
       [](C& c, const V& v) { c.output.directory = v.text.empty() ? fs::path(".") : toPath(v); },
       [](const C& c) { return c.output.directory.string(); }},
      {"output.energy_file", "", "CSV energy log (empty = none)",
       [](C& c, const V& v) { c.output.energyFile = v.text; },
       [](const C& c) { return c.output.energyFile; }},
      {"output.energy_interval", "steps", "steps between energy rows",
       [](C& c, const V& v) { c.output.energyInterval = positiveInterval(v.text); },
       [](const C& c) { return std::to_string(c.output.energyInterval); }},
      {"output.trajectory_file", "", "trajectory, format by extension: .dcd (DCD, Angstrom) or .xtc (GROMACS XTC, "
                                     "nm) (empty = none)",
       [](C& c, const V& v) { c.output.trajectoryFile = v.text; },
       [](const C& c) { return c.output.trajectoryFile; }},
      {"output.trajectory_interval", "steps", "steps between trajectory frames",
       [](C& c, const V& v) { c.output.trajectoryInterval = positiveInterval(v.text); },
       [](const C& c) { return std::to_string(c.output.trajectoryInterval); }},
      {"output.xtc_precision", "1/nm", "XTC precision: coordinates kept as round(x * precision), 1000 = 0.001 nm as "
                                       "GROMACS",
       [](C& c, const V& v) { c.output.xtcPrecision = positive(toDouble(v.text), "1/nm"); },
       [](const C& c) { return formatNumber(c.output.xtcPrecision); }},
      {"output.final_coordinates", "", "final .gro (empty = none)",
       [](C& c, const V& v) { c.output.finalCoordinates = v.text; },
       [](const C& c) { return c.output.finalCoordinates; }},
      {"output.checkpoint_file", "", "checkpoint (empty = none)",
       [](C& c, const V& v) { c.output.checkpointFile = v.text; },
       [](const C& c) { return c.output.checkpointFile; }},
      {"output.checkpoint_interval", "steps", "steps between checkpoints",
       [](C& c, const V& v) { c.output.checkpointInterval = positiveInterval(v.text); },
       [](const C& c) { return std::to_string(c.output.checkpointInterval); }},
      {"output.log_file", "", "run log: configuration, system, setup, warnings, timing (empty = none)",
       [](C& c, const V& v) { c.output.logFile = v.text; },
       [](const C& c) { return c.output.logFile; }},

      {"output.forces_file", "", "forces as a NumPy .npy file, kJ/mol/nm: run: (N, 3) of the final step; rerun: "
                                 "(frames, N, 3) (empty = none)",
       [](C& c, const V& v) { c.output.forcesFile = v.text; },
       [](const C& c) { return c.output.forcesFile; }},

      {"rerun.trajectory", "path", "trajectory that faraday rerun evaluates, .dcd or .xtc (empty = system.coordinates)",
       [](C& c, const V& v) { c.rerun.trajectory = toPath(v).string(); },
       [](const C& c) { return c.rerun.trajectory; }},
      {"rerun.energy_file", "", "energies of every frame (faraday rerun), CSV",
       [](C& c, const V& v) {
         if (v.text.empty()) throw BadValue{"must name the rerun's energy file"};
         c.rerun.energyFile = v.text;
       },
       [](const C& c) { return c.rerun.energyFile; }},

      {"map.enabled", "bool", "average a potential map (default: true with a [map] section or any map.* key)",
       [](C& c, const V& v) { c.map.enabled = toBool(v.text); },
       [](const C& c) { return boolText(c.map.enabled); }},
      {"map.method", "", "direct | cutoff | pme (Ewald potential) | pmepot (its reciprocal part, as VMD's PMEpot)",
       [](C& c, const V& v) { c.map.method = oneOf(v.text, {"direct", "cutoff", "pme", "pmepot"}); },
       [](const C& c) { return c.map.method; }},
      {"map.ewald_factor", "1/nm", "Gaussian width parameter beta of map.method = pmepot (VMD PMEpot's default 0.25 /A)",
       [](C& c, const V& v) { c.map.ewaldFactor = positive(toDouble(v.text), "1/nm"); },
       [](const C& c) { return formatNumber(c.map.ewaldFactor); }},
      {"map.spacing", "nm", "map grid spacing",
       [](C& c, const V& v) { c.map.spacing = positive(toDouble(v.text), "nm"); },
       [](const C& c) { return formatNumber(c.map.spacing); }},
      {"map.extent", "", "box | atoms (padded bounding box)",
       [](C& c, const V& v) { c.map.extent = oneOf(v.text, {"box", "atoms"}); },
       [](const C& c) { return c.map.extent; }},
      {"map.padding", "nm", "padding around the atoms (extent = atoms)",
       [](C& c, const V& v) { c.map.padding = nonNegative(toDouble(v.text), "nm"); },
       [](const C& c) { return formatNumber(c.map.padding); }},
      {"map.cutoff", "nm", "cutoff (method = cutoff)",
       [](C& c, const V& v) { c.map.cutoff = positive(toDouble(v.text), "nm"); },
       [](const C& c) { return formatNumber(c.map.cutoff); }},
      {"map.periodic", "bool", "minimum image (method = direct)",
       [](C& c, const V& v) { c.map.periodic = toBool(v.text); },
       [](const C& c) { return boolText(c.map.periodic); }},
      {"map.interval", "steps", "steps between sampled frames",
       [](C& c, const V& v) { c.map.interval = positiveInterval(v.text); },
       [](const C& c) { return std::to_string(c.map.interval); }},
      {"map.file", "", "output map: .dx (OpenDX) or .mrc/.ccp4",
       [](C& c, const V& v) {
         if (v.text.empty()) throw BadValue{"must name the output map file"};
         c.map.file = v.text;
       },
       [](const C& c) { return c.map.file; }},
      {"map.units", "", "kT/e | V | kJ/mol/e",
       [](C& c, const V& v) { c.map.units = oneOf(v.text, {"kT/e", "V", "kJ/mol/e"}); },
       [](const C& c) { return c.map.units; }},
      {"map.temperature", "K", "temperature of kT/e (default: the run's, integrator or system temperature)",
       [](C& c, const V& v) { c.map.temperature = positive(toDouble(v.text), "K"); },
       [](const C& c) { return formatNumber(c.map.temperature); }},
      {"map.trajectory", "path", "trajectory to average (faraday map), .dcd or .xtc",
       [](C& c, const V& v) { c.map.trajectory = toPath(v).string(); },
       [](const C& c) { return c.map.trajectory; }},
  };
  return specs;
}

const KeySpec* findSpec(const std::string& key) {
  for (const KeySpec& s : keySpecs())
    if (key == s.key) return &s;
  return nullptr;
}

// ---- [atom.NAME] and [typed.A-B] keys ----------------------------------------------------

/// A section whose name is chosen by the user ([atom.NA], [typed.NA-CL]) and the keys it takes.
struct NamedSection {
  const char* prefix;  ///< "atom." or "typed."
  std::vector<const char*> fields;
};
const NamedSection kAtomSection{"atom.", {"mass", "charge", "sigma", "epsilon"}};
const NamedSection kTypedSection{"typed.", {"c1", "c2", "c3"}};
const NamedSection* const kNamedSections[] = {&kAtomSection, &kTypedSection};

/// Splits "PREFIX.NAME.field" of `section`; false when `key` is not of that form.
bool splitNamedKey(const std::string& key, const NamedSection& section, std::string& name, std::string& field) {
  const std::string prefix = section.prefix;
  if (key.rfind(prefix, 0) != 0) return false;
  const std::size_t dot = key.rfind('.');
  if (dot <= prefix.size()) return false;
  name = key.substr(prefix.size(), dot - prefix.size());
  field = key.substr(dot + 1);
  for (const char* f : section.fields)
    if (field == f) return !name.empty();
  return false;
}

/// Whether `key` belongs to a named section; `sectionName` is then "PREFIX.NAME" (e.g. "atom.NA").
bool isNamedKey(const std::string& key, std::string& sectionName) {
  std::string name, field;
  for (const NamedSection* s : kNamedSections)
    if (splitNamedKey(key, *s, name, field)) return sectionName = s->prefix + name, true;
  return false;
}

// ---- suggestions -------------------------------------------------------------------------

std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

/// Every fixed key, and every key of the named sections seen ("atom.NA", "typed.NA-CL").
std::vector<std::string> validKeys(const std::set<std::string>& sectionNames) {
  std::vector<std::string> keys;
  for (const KeySpec& s : keySpecs()) keys.push_back(s.key);
  for (const std::string& name : sectionNames)
    for (const NamedSection* s : kNamedSections)
      if (name.rfind(s->prefix, 0) == 0)
        for (const char* f : s->fields) keys.push_back(name + "." + f);
  return keys;
}

std::string unknownKeyMessage(const std::string& key, const std::set<std::string>& sectionNames) {
  std::string best;
  std::size_t bestDistance = std::string::npos;
  for (const std::string& k : validKeys(sectionNames)) {
    const std::size_t d = editDistance(key, k);
    if (d < bestDistance) bestDistance = d, best = k;
  }
  std::string msg = "unknown key '" + key + "'";
  if (!best.empty() && bestDistance <= std::max<std::size_t>(3, key.size() / 3))
    msg += "; did you mean '" + best + "'?";
  else
    msg += " (see 'faraday run --help' for the list of keys)";
  return msg;
}

// ---- reading the file ------------------------------------------------------------------------

/// The raw key/value pairs of one source with their origins, in order.
struct RawEntry {
  std::string key;
  Value value;
};

/// Line numbers of every key and the sections seen, from a plain scan of the INI text;
/// also rejects lines that are neither a section, a key = value pair nor a comment.
struct IniIndex {
  std::map<std::string, long> lineOfKey;  ///< the line that sets the key (each key at most once)
  std::set<std::string> sections;
};

/// `line` without its comment: `;` or `#` starts a comment anywhere on a line, at its
/// start or after a value (`cutoff = 1.0 ; nm`), as in GROMACS .mdp files.
std::string withoutComment(const std::string& line) { return line.substr(0, line.find_first_of(";#")); }

/// The INI text with every comment removed, line for line (so line numbers still match).
std::string withoutComments(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) out += withoutComment(line) + '\n';
  return out;
}

IniIndex scanIni(const std::string& file, const std::string& text) {
  IniIndex index;
  std::istringstream in(text);
  std::string line, section;
  long number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string t = trimmed(withoutComment(line));
    if (t.empty()) continue;
    if (t.front() == '[') {
      if (t.back() != ']' || t.size() < 3) throw fileError(file, number, "malformed section header '" + t + "'");
      section = trimmed(t.substr(1, t.size() - 2));
      index.sections.insert(section);
      continue;
    }
    const auto eq = t.find('=');
    if (eq == std::string::npos || trimmed(t.substr(0, eq)).empty())
      throw fileError(file, number, "expected 'key = value' or '[section]', got '" + t + "'");
    const std::string name = trimmed(t.substr(0, eq));
    const std::string key = section.empty() ? name : section + "." + name;
    const auto seen = index.lineOfKey.find(key);
    if (seen != index.lineOfKey.end())
      throw fileError(file, number, "key '" + key + "' is set twice (first on line " + std::to_string(seen->second) + ")");
    index.lineOfKey[key] = number;
  }
  return index;
}

po::options_description optionsDescription() {
  po::options_description desc("Faraday configuration");
  for (const KeySpec& s : keySpecs()) desc.add_options()(s.key, po::value<std::string>(), s.help);
  return desc;
}

std::string readText(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    if (!fs::exists(file)) throw fileError(file.string(), 0, "config file not found");
    throw fileError(file.string(), 0, "cannot read the config file");
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<RawEntry> readFileEntries(const fs::path& file, IniIndex& index) {
  const std::string text = withoutComments(readText(file));
  index = scanIni(file.string(), text);
  std::istringstream in(text);
  po::parsed_options parsed(nullptr);
  try {
    parsed = po::parse_config_file(in, optionsDescription(), /*allow_unregistered=*/true);
  } catch (const po::error& e) {
    throw fileError(file.string(), 0, e.what());
  }
  const fs::path base = fs::absolute(file).parent_path();
  std::vector<RawEntry> entries;
  for (const po::option& o : parsed.options) {
    const auto it = index.lineOfKey.find(o.string_key);
    Origin origin{file.string(), it == index.lineOfKey.end() ? 0 : it->second, base};
    entries.push_back({o.string_key, {o.value.empty() ? "" : unquoted(o.value.front()), origin}});
  }
  return entries;
}

// ---- reading the command line -------------------------------------------------------------

/// "--key=value" and "--key value" tokens as "--key=value".
std::vector<std::string> normalizeOverrides(const std::vector<std::string>& overrides) {
  std::vector<std::string> tokens;
  for (std::size_t i = 0; i < overrides.size(); ++i) {
    const std::string& t = overrides[i];
    if (t.rfind("--", 0) != 0 || t.size() < 3) throw Error("command line: expected --section.key=value, got '" + t + "'");
    if (t.find('=') != std::string::npos) {
      // Boost refuses "--key=" with nothing after it: pass an explicit empty string.
      tokens.push_back(t.back() == '=' ? t + "\"\"" : t);
      continue;
    }
    if (i + 1 >= overrides.size() || overrides[i + 1].rfind("--", 0) == 0)
      throw Error("command line: key '" + t.substr(2) + "': missing value");
    const std::string& value = overrides[++i];
    tokens.push_back(t + "=" + (value.empty() ? std::string("\"\"") : value));
  }
  return tokens;
}

std::vector<RawEntry> readCommandLine(const std::vector<std::string>& overrides) {
  const std::vector<std::string> tokens = normalizeOverrides(overrides);
  po::parsed_options parsed(nullptr);
  try {
    const int style = po::command_line_style::unix_style & ~po::command_line_style::allow_guessing;
    parsed = po::command_line_parser(tokens).options(optionsDescription()).style(style).allow_unregistered().run();
  } catch (const po::error& e) {
    throw Error(std::string("command line: ") + e.what());
  }
  const fs::path cwd = fs::current_path();
  std::vector<RawEntry> entries;
  std::set<std::string> seen;
  for (const po::option& o : parsed.options) {
    if (o.string_key.empty()) throw Error("command line: unexpected argument '" + o.original_tokens.front() + "'");
    if (!seen.insert(o.string_key).second) throw Error("command line: key '" + o.string_key + "' is given twice");
    entries.push_back({o.string_key, {o.value.empty() ? "" : unquoted(o.value.front()), Origin{"", 0, cwd}}});
  }
  return entries;
}

// ---- assembling the Config -----------------------------------------------------------------

/// The keys of one named section ([atom.NA], [typed.NA-CL]), by field.
struct NamedFields {
  std::string name;
  std::map<std::string, Value> values;  ///< field -> value
  Origin firstSeen;

  /// Field `f` converted by `convert` (which throws BadValue); errors name the key.
  template <typename Convert>
  double required(const NamedSection& section, const char* f, Convert convert) const {
    const std::string key = section.prefix + name + "." + f;
    const auto it = values.find(f);
    if (it == values.end()) throw Error(firstSeen.where(key) + ": required key is missing");
    try {
      return convert(toDouble(it->second.text));
    } catch (const BadValue& b) {
      throw Error(it->second.origin.where(key) + ": " + b.what);
    }
  }
};

/// The named sections of `section`'s kind, in the order they first appear.
std::vector<NamedFields> namedSections(const std::vector<RawEntry>& entries, const NamedSection& section) {
  std::vector<NamedFields> out;
  for (const RawEntry& e : entries) {
    std::string name, field;
    if (!splitNamedKey(e.key, section, name, field)) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const NamedFields& f) { return f.name == name; });
    if (it == out.end()) it = out.insert(out.end(), NamedFields{name, {}, e.value.origin});
    it->values[field] = e.value;
  }
  return out;
}

void checkKnown(const std::vector<RawEntry>& entries, const std::set<std::string>& sectionNames) {
  for (const RawEntry& e : entries) {
    std::string sectionName;
    if (findSpec(e.key) || isNamedKey(e.key, sectionName)) continue;
    const std::string msg = unknownKeyMessage(e.key, sectionNames);
    if (e.value.origin.file.empty()) throw Error("command line: " + msg);
    throw fileError(e.value.origin.file, e.value.origin.line, msg);
  }
}

std::vector<AtomType> buildAtomTypes(const std::vector<RawEntry>& entries) {
  std::vector<AtomType> types;
  const auto any = [](double v) { return v; };
  for (const NamedFields& f : namedSections(entries, kAtomSection)) {
    AtomType t;
    t.name = f.name;
    t.mass = f.required(kAtomSection, "mass", [](double v) { return positive(v, "amu"); });
    t.charge = f.required(kAtomSection, "charge", any);
    t.sigma = f.required(kAtomSection, "sigma", [](double v) { return nonNegative(v, "nm"); });
    t.epsilon = f.required(kAtomSection, "epsilon", [](double v) { return nonNegative(v, "kJ/mol"); });
    types.push_back(t);
  }
  return types;
}

std::string knownAtomNames(const std::vector<AtomType>& types) {
  std::string list;
  for (const AtomType& t : types) list += (list.empty() ? "" : ", ") + t.name;
  return list;
}

/// "A-B" split at the '-' that leaves two atom type names (names may hold '-' themselves).
bool splitTypePair(const std::string& name, const std::vector<AtomType>& types, std::string& a, std::string& b) {
  const auto known = [&types](const std::string& n) {
    return std::any_of(types.begin(), types.end(), [&n](const AtomType& t) { return t.name == n; });
  };
  for (std::size_t dash = name.find('-'); dash != std::string::npos; dash = name.find('-', dash + 1))
    if (known(name.substr(0, dash)) && known(name.substr(dash + 1))) {
      a = name.substr(0, dash), b = name.substr(dash + 1);
      return true;
    }
  return false;
}

/// The [typed.A-B] sections: c1, c2 >= 0 and c3 > 2 each required, A and B atom types of the
/// config; A-B and B-A are one entry (given both, they must agree).
std::vector<Config::TypedPairSection> buildTypedPairs(const std::vector<RawEntry>& entries,
                                                      const std::vector<AtomType>& types) {
  std::vector<Config::TypedPairSection> out;
  std::vector<std::string> sectionOf;
  for (const NamedFields& f : namedSections(entries, kTypedSection)) {
    Config::TypedPairSection p;
    if (!splitTypePair(f.name, types, p.a, p.b))
      throw Error(f.firstSeen.where("typed." + f.name + "." + f.values.begin()->first) + ": [typed." + f.name +
                  "] does not name two atom types as A-B (known: " + knownAtomNames(types) + ")");
    p.c1 = f.required(kTypedSection, "c1", [](double v) { return v; });
    p.c2 = f.required(kTypedSection, "c2", [](double v) { return nonNegative(v, "nm (kJ/mol/nm^2)^(1/c3)"); });
    p.c3 = f.required(kTypedSection, "c3", [](double v) {
      if (!(v > 2)) throw BadValue{"must be > 2 (the repulsion (c2/r)^c3 r^2/(c3 - 2) must vanish at large r; got " +
                                   formatNumber(v) + ")"};
      return v;
    });
    bool duplicate = false;
    for (std::size_t k = 0; k < out.size(); ++k) {
      const auto& q = out[k];
      if (!(q.a == p.b && q.b == p.a)) continue;
      if (q.c1 != p.c1 || q.c2 != p.c2 || q.c3 != p.c3)
        throw Error(f.firstSeen.where("typed." + f.name + "." + f.values.begin()->first) + ": [typed." + f.name +
                    "] differs from [typed." + sectionOf[k] + "]: the table is symmetric, give one of them");
      duplicate = true;
    }
    if (duplicate) continue;
    out.push_back(p);
    sectionOf.push_back(f.name);
  }
  return out;
}

void applyValues(Config& config, const std::vector<RawEntry>& entries) {
  for (const RawEntry& e : entries) {
    const KeySpec* spec = findSpec(e.key);
    if (!spec) continue;
    try {
      spec->set(config, e.value);
    } catch (const BadValue& b) {
      throw Error(e.value.origin.where(e.key) + ": " + b.what);
    }
  }
}

/// Every key in use, section by section: the fixed sections, the atom types, then the map
/// keys (only when a map is requested).
void fillEffective(Config& config) {
  auto& out = config.effective;
  out.clear();
  for (const KeySpec& s : keySpecs())
    if (std::string(s.key).rfind("map.", 0) != 0) out.emplace_back(s.key, s.get(config));
  for (const AtomType& t : config.atomTypes) {
    out.emplace_back("atom." + t.name + ".mass", formatNumber(t.mass));
    out.emplace_back("atom." + t.name + ".charge", formatNumber(t.charge));
    out.emplace_back("atom." + t.name + ".sigma", formatNumber(t.sigma));
    out.emplace_back("atom." + t.name + ".epsilon", formatNumber(t.epsilon));
  }
  for (const Config::TypedPairSection& p : config.typedPairs) {
    const std::string section = "typed." + p.a + "-" + p.b;
    out.emplace_back(section + ".c1", formatNumber(p.c1));
    out.emplace_back(section + ".c2", formatNumber(p.c2));
    out.emplace_back(section + ".c3", formatNumber(p.c3));
  }
  out.emplace_back("map.enabled", boolText(config.map.enabled));
  if (!config.map.enabled) return;
  for (const KeySpec& s : keySpecs())
    if (std::string(s.key).rfind("map.", 0) == 0 && std::string(s.key) != "map.enabled")
      out.emplace_back(s.key, s.get(config));
}

void checkRequired(const Config& config, const fs::path& file) {
  if (config.system.coordinates.empty()) {
    const std::string where = file.empty() ? "command line" : file.string();
    throw Error(where + ": key 'system.coordinates': required key is missing (the .gro or .pdb file)");
  }
  if (config.atomTypes.empty()) {
    const std::string where = file.empty() ? "command line" : file.string();
    throw Error(where + ": no [atom.NAME] section: every atom name in the coordinates needs mass, charge, sigma, epsilon");
  }
}

bool mapRequested(const std::vector<RawEntry>& entries, const IniIndex& index) {
  if (index.sections.count("map")) return true;
  for (const RawEntry& e : entries)
    if (e.key.rfind("map.", 0) == 0) return true;
  return false;
}

}  // namespace

Config loadConfig(const fs::path& file, const std::vector<std::string>& overrides) {
  Config config;
  IniIndex index;
  std::vector<RawEntry> entries;
  if (!file.empty()) {
    config.configFile = fs::absolute(file).lexically_normal();
    entries = readFileEntries(file, index);
  }
  // Outputs go to the current folder unless output.directory says otherwise.
  config.output.directory = fs::current_path();
  const std::vector<RawEntry> cli = readCommandLine(overrides);
  entries.insert(entries.end(), cli.begin(), cli.end());

  std::set<std::string> sectionNames;
  for (const RawEntry& e : entries) {
    std::string name;
    if (isNamedKey(e.key, name)) sectionNames.insert(name);
  }
  checkKnown(entries, sectionNames);
  applyValues(config, entries);
  config.atomTypes = buildAtomTypes(entries);
  config.typedPairs = buildTypedPairs(entries, config.atomTypes);
  const auto isSet = [&entries](const char* key) {
    return std::any_of(entries.begin(), entries.end(), [key](const RawEntry& e) { return e.key == key; });
  };
  // map.enabled as given, else on with a [map] section or any map.* key.
  if (!isSet("map.enabled")) config.map.enabled = mapRequested(entries, index);
  // The map's kT is the run's temperature unless map.temperature says otherwise.
  if (!isSet("map.temperature"))
    config.map.temperature = config.integrator.type == "langevin" ? config.integrator.temperature : config.system.temperature;
  checkRequired(config, file);
  KeyOrigins origins;
  for (const RawEntry& e : entries) origins[e.key] = e.value.origin.where(e.key);
  checkOutputNames(config, origins);
  checkTrajectoryFormats(config, origins);
  checkModeCombination(config, origins);
  config.warnings = ineffectiveKeyWarnings(config, origins);
  fillEffective(config);
  return config;
}

std::string configHelp() {
  const Config defaults;
  std::string out =
      "Configuration keys. In a config file, [section] then 'key = value'; on the command line\n"
      "--section.key=value or --section.key value. Relative paths in a file are resolved against\n"
      "the file's folder, on the command line against the current folder.\n";
  std::string section;
  char line[512];
  for (const KeySpec& s : keySpecs()) {
    const std::string key = s.key;
    const std::string sec = key.substr(0, key.find('.'));
    if (sec != section) {
      section = sec;
      out += "\n[" + section + "]\n";
      if (section == "map")
        out += "  (a [map] section or any map.* key turns on potential-map averaging, map.enabled = false off)\n";
    }
    std::string def = s.get(defaults);
    if (key == "output.directory") def = "current folder";
    if (key == "gravity.softening") def = "(required)";
    if (def.empty()) def = "\"\"";
    std::snprintf(line, sizeof line, "  %-34s default %-14s %-7s %s\n", key.c_str(), def.c_str(), s.unit, s.help);
    out += line;
  }
  out += "\n[atom.NAME]  one section per atom name in the coordinates file (all four keys required)\n";
  const char* atomHelp[][3] = {{"mass", "amu", "mass (> 0)"},
                               {"charge", "e", "charge"},
                               {"sigma", "nm", "LJ sigma (>= 0; Lorentz-Berthelot mixing)"},
                               {"epsilon", "kJ/mol", "LJ well depth (>= 0)"}};
  for (const auto& a : atomHelp) {
    std::snprintf(line, sizeof line, "  %-34s default %-14s %-7s %s\n", (std::string("atom.NAME.") + a[0]).c_str(),
                  "(required)", a[1], a[2]);
    out += line;
  }
  out += "\n[typed.A-B]  with nonbonded.potential = typed: one section per pair of atom types in the system\n"
         "  (A-B and B-A are the same entry); F_i = R (c1 / r^3 + (c2 / r)^c3), R = x_i - x_j, r clamped\n"
         "  below nonbonded.typed_rmin; U = c1 / r + (c2 / r)^c3 r^2 / (c3 - 2), shifted to 0 at the cutoff\n"
         "  in nonbonded.mode = cutoff\n";
  const char* typedHelp[][3] = {{"c1", "kJ/mol nm", "Coulomb-like term (U = c1 / r)"},
                                {"c2", "nm (kJ/mol/nm^2)^(1/c3)", "repulsion length (>= 0)"},
                                {"c3", "", "repulsion exponent (> 2)"}};
  for (const auto& a : typedHelp) {
    std::snprintf(line, sizeof line, "  %-34s default %-14s %-7s %s\n", (std::string("typed.A-B.") + a[0]).c_str(),
                  "(required)", a[1], a[2]);
    out += line;
  }
  return out;
}

}  // namespace faraday
