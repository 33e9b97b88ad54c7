// The table of configuration keys, one function per section, assembled in section order by
// fixedSections(); the sections named by the user ([atom.NAME], [typed.A-B]) at the end.
//
// To add a key: add the field, with its default and unit, to Config (Config.h), and one entry
// to its section's function below: the key, its unit, a one-line description (--help prints
// it), the commands that read it (their --help lists it), and the field. The builders of
// KeyBuilders.h make the common kinds in one call (number, steps, seed, flag, choice, text,
// ...; a choice reads an enum, its words listed once in Choices.h); any other kind is a
// KeySpec with its own `set` (convert with ConfigValues.h, throw BadValue for a bad value)
// and `get`. A new section is a function of its own and one line in
// fixedSections(). Loading, command-line overrides, suggestions for unknown keys, every
// command's --help and the effective settings follow from this table; checks that involve
// several keys go into ConfigChecks.cpp.
#include "engine/config/ConfigKeys.h"

#include <array>
#include <limits>

#include "engine/config/KeyBuilders.h"
#include "engine/formats/TextParse.h"

namespace faraday::config {
namespace {

namespace fs = std::filesystem;
using C = Config;
using V = Value;
using namespace keys;

// The commands that read a key.
constexpr CommandSet runOnly = only(Command::Run);
constexpr CommandSet rerunOnly = only(Command::Rerun);
constexpr CommandSet mapOnly = only(Command::Map);
constexpr CommandSet runAndRerun = Command::Run | Command::Rerun;
constexpr CommandSet runAndMap = Command::Run | Command::Map;
constexpr CommandSet allCommands = Command::Run | Command::Rerun | Command::Map;

std::vector<KeySpec> systemKeys() {
  return {
      {"system.coordinates", "path", ".gro or .pdb coordinates (required)", allCommands,
       [](C& c, const V& v) {
         if (v.text.empty()) throw BadValue{"must name a .gro or .pdb file"};
         c.system.coordinates = toPath(v);
       },
       [](const C& c) { return c.system.coordinates.string(); }},
      {"system.topology", "path",
       "GROMACS .top: particles, charges, masses, LJ, bonded terms, exclusions (instead of [atom.NAME])", allCommands,
       [](C& c, const V& v) { c.system.topology = v.text.empty() ? fs::path() : toPath(v); },
       [](const C& c) { return c.system.topology.string(); }},
      text("system.defines", "the topology's preprocessor defines, as grompp's define: -DFLEXIBLE -DPOSRES",
           allCommands, &C::system, &C::SystemSection::defines),
      choice("system.constraints",
             "none | h-bonds (bonds with a hydrogen) | all-bonds: the topology's bonds that become rigid "
             "(its [constraints] and [settles] waters always are)",
             runAndRerun, &C::system, &C::SystemSection::constraints),
      number("system.hydrogen_mass", "amu",
             "hydrogen mass repartitioning: every hydrogen bonded to a heavy atom gets this mass, taken from that "
             "atom (not rigid waters'; 0 = none)",
             runOnly, &C::system, &C::SystemSection::hydrogenMass, nonNegative),
      number("system.temperature", "K", "Maxwell-Boltzmann velocities when the file has none", runAndMap, &C::system,
             &C::SystemSection::temperature, nonNegative),
      seed("system.velocity_seed", "seed of the initial velocities", runOnly, &C::system,
           &C::SystemSection::velocitySeed),
  };
}

std::vector<KeySpec> nonbondedKeys() {
  return {
      choice("nonbonded.mode", "cutoff (periodic box, pair list) | all-pairs (open boundaries, every pair, no cutoff)",
             runAndRerun, &C::nonbonded, &C::NonbondedSection::mode),
      choice("nonbonded.potential", "lj-coulomb | gravity (all-pairs only) | typed ([typed.A-B] sections)", runAndRerun,
             &C::nonbonded, &C::NonbondedSection::potential),
      number("nonbonded.typed_rmin", "nm", "the typed force's distance is clamped below it", runAndRerun, &C::nonbonded,
             &C::NonbondedSection::typedRmin, positive),
      number("nonbonded.cutoff", "nm", "LJ and real-space Coulomb cutoff", allCommands, &C::nonbonded,
             &C::NonbondedSection::cutoff, positive),
      {"nonbonded.buffer", "nm",
       "pair-list skin beyond the cutoff | auto (0.1 on the CPU; on the GPU from the run's speeds)", runAndRerun,
       [](C& c, const V& v) { c.nonbonded.buffer = v.text == "auto" ? -1.0 : positive(toDouble(v.text), "nm"); },
       [](const C& c) { return c.nonbonded.buffer < 0 ? std::string("auto") : formatNumber(c.nonbonded.buffer); }},
      flag("nonbonded.lj_shift", "shift LJ to zero at the cutoff", runAndRerun, &C::nonbonded,
           &C::NonbondedSection::ljShift),
      choice("nonbonded.coulomb_modifier", "potential-shift (real-space Coulomb zero at the cutoff) | none",
             runAndRerun, &C::nonbonded, &C::NonbondedSection::coulombModifier),
      flag("nonbonded.dispersion_correction", "long-range LJ energy/pressure correction", runAndRerun, &C::nonbonded,
           &C::NonbondedSection::dispersionCorrection),
  };
}

std::vector<KeySpec> gravityKeys() {
  KeySpec softening =
      number("gravity.softening", "nm", "Plummer softening eps: r^2 -> r^2 + eps^2 (> 0, required with gravity)",
             runAndRerun, &C::gravity, &C::GravitySection::softening, positive);
  softening.defaultText = "(required)";
  return {
      number("gravity.g", "kJ/mol nm/amu^2", "gravitational constant: F = G m_i m_j / r^2", runAndRerun, &C::gravity,
             &C::GravitySection::g, positive),
      softening,
  };
}

std::vector<KeySpec> electrostaticsKeys() {
  return {
      choice("electrostatics.method", "pme | ewald | none", allCommands, &C::electrostatics,
             &C::ElectrostaticsSection::method),
      fraction("electrostatics.ewald_rtol", "erfc(beta * cutoff) = ewald_rtol", allCommands, &C::electrostatics,
               &C::ElectrostaticsSection::ewaldRtol, false),
      {"electrostatics.fourier_spacing", "nm", "largest PME grid spacing, or auto (from ewald_rtol and pme_order)",
       allCommands,
       [](C& c, const V& v) {
         c.electrostatics.fourierSpacing = v.text == "auto" ? 0.0 : positive(toDouble(v.text), "nm");
       },
       [](const C& c) {
         return c.electrostatics.fourierSpacing == 0 ? std::string("auto")
                                                     : formatNumber(c.electrostatics.fourierSpacing);
       }},
      integer("electrostatics.pme_order", "", "B-spline order, 4..8", allCommands, &C::electrostatics,
              &C::ElectrostaticsSection::pmeOrder, 4, 8, "in 4..8"),
      {"electrostatics.grid", "points", "\"NX NY NZ\" PME grid; 0 0 0 = from fourier_spacing", allCommands,
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
      fraction("electrostatics.ewald_kspace_rtol", "plain Ewald k cut exp(-pi^2 m^2/beta^2); 0 = auto (converged)",
               runAndRerun, &C::electrostatics, &C::ElectrostaticsSection::ewaldKspaceRtol, true),
      flag("electrostatics.accept_force_error",
           "run although the estimated PME force error exceeds max(10 ewald_rtol, 0.01) (a warning, not an error)",
           allCommands, &C::electrostatics, &C::ElectrostaticsSection::acceptForceError),
  };
}

std::vector<KeySpec> integratorKeys() {
  return {
      choice("integrator.type", "verlet | langevin", runAndMap, &C::integrator, &C::IntegratorSection::type),
      number("integrator.dt", "ps", "time step", runOnly, &C::integrator, &C::IntegratorSection::dt, positive),
      number("integrator.temperature", "K", "bath temperature (langevin; and the barostat's)", runAndMap, &C::integrator,
             &C::IntegratorSection::temperature, nonNegative),
      number("integrator.friction", "1/ps", "friction coefficient (langevin)", runOnly, &C::integrator,
             &C::IntegratorSection::friction, nonNegative),
      seed("integrator.seed", "seed of the Langevin noise", runOnly, &C::integrator, &C::IntegratorSection::seed),
      fraction("integrator.constraint_tolerance",
               "relative bond-length error of the iterative constraint solves (rigid waters are exact)", runOnly,
               &C::integrator, &C::IntegratorSection::constraintTolerance, false),
  };
}

std::vector<KeySpec> barostatKeys() {
  return {
      flag("barostat.enabled",
           "isotropic Monte Carlo barostat at integrator.temperature (default: true with a [barostat] section or any "
           "barostat.* key)",
           runOnly, &C::barostat, &C::BarostatSection::enabled),
      number("barostat.pressure", "bar", "pressure of the bath", runOnly, &C::barostat,
             &C::BarostatSection::pressure, nonNegative),
      steps("barostat.interval", "steps between trial volume moves", runOnly, &C::barostat,
            &C::BarostatSection::interval),
  };
}

std::vector<KeySpec> runKeys() {
  return {
      integer("run.steps", "steps", "total number of steps (a restart continues up to it)", runOnly, &C::run,
              &C::RunSection::steps, 0, std::numeric_limits<long long>::max(), ">= 0"),
      choice("run.platform", "auto | cpu | cuda", allCommands, &C::run, &C::RunSection::platform),
      integer("run.threads", "", "OpenMP threads for the CPU path (0 = all cores)", runAndRerun, &C::run,
              &C::RunSection::threads, 0, 4096, "in 0..4096"),
      text("run.devices",
           "GPUs: empty = the first; an index; or a list (0,1,...) or all: an MD run shares each step across them, faraday map splits the frames",
           allCommands, &C::run, &C::RunSection::devices),
      choice("run.pme_split",
             "auto | slabs | slabs-nccl | first: PME of an MD run on several GPUs in slabs of x planes on every GPU "
             "(where the grid allows: a brick of 8 planes and a y row per GPU, K_x without a prime factor above 7; "
             "else first), its transposes as direct stores between GPUs with peer access (else as slabs-nccl: NCCL "
             "send and receive); or all on the first GPU (the one-GPU trajectory bit for bit); auto: slabs for grids "
             "of 4e6 points or more, else first",
             runOnly, &C::run, &C::RunSection::pmeSplit),
      choice("run.gpu_sum",
             "auto | nccl: the sum of the GPUs' partial forces in each step of an MD run on several GPUs: auto = "
             "the GPUs' own kernels storing into each other's memory where every pair has peer access (NVLink), "
             "else NCCL's all-reduce; nccl = NCCL's all-reduce (the same bits either way)",
             runOnly, &C::run, &C::RunSection::gpuSum),
      choice("run.update_split",
             "auto | on | off: the integration and constraints of an MD run on several GPUs: on = each GPU "
             "updates its own run of atoms (the forces' sum a reduce-scatter, then the positions an all-gather) "
             "where the forces are summed by direct stores and every water and constraint cluster lies in one "
             "group of a heavy atom and its hydrogens; off = every GPU updates every atom; auto = on for systems "
             "with constraints (their SETTLE and SHAKE work is split) and with PME in slabs on 4 GPUs or more, "
             "else off (the same bits either way)",
             runOnly, &C::run, &C::RunSection::updateSplit),
      number("run.progress_interval", "s", "seconds between progress lines (0 = off)", runAndMap, &C::run,
             &C::RunSection::progressInterval, nonNegative),
  };
}

std::vector<KeySpec> outputKeys() {
  return {
      {"output.directory", "path", "folder of all outputs (created if missing)", allCommands,
       [](C& c, const V& v) { c.output.directory = v.text.empty() ? fs::path(".") : toPath(v); },
       [](const C& c) { return c.output.directory.string(); }, "current folder"},
      text("output.energy_file", "CSV energy log (empty = none)", runOnly, &C::output, &C::OutputSection::energyFile),
      steps("output.energy_interval", "steps between energy rows", runOnly, &C::output,
            &C::OutputSection::energyInterval),
      text("output.trajectory_file",
           "trajectory, format by extension: .dcd (DCD, Angstrom) or .xtc (GROMACS XTC, nm) (empty = none)", runOnly,
           &C::output, &C::OutputSection::trajectoryFile),
      steps("output.trajectory_interval", "steps between trajectory frames", runOnly, &C::output,
            &C::OutputSection::trajectoryInterval),
      number("output.xtc_precision", "1/nm",
             "XTC precision: coordinates kept as round(x * precision), 1000 = 0.001 nm as GROMACS", runOnly, &C::output,
             &C::OutputSection::xtcPrecision, positive),
      text("output.final_coordinates", "final .gro (empty = none)", runOnly, &C::output,
           &C::OutputSection::finalCoordinates),
      text("output.checkpoint_file", "checkpoint (empty = none)", runOnly, &C::output,
           &C::OutputSection::checkpointFile),
      steps("output.checkpoint_interval", "steps between checkpoints", runOnly, &C::output,
            &C::OutputSection::checkpointInterval),
      text("output.log_file", "run log: configuration, system, setup, warnings, timing (empty = none)", runOnly,
           &C::output, &C::OutputSection::logFile),
      text(
          "output.forces_file",
          "forces as a NumPy .npy file, kJ/mol/nm: run: (N, 3) of the final step; rerun: (frames, N, 3) (empty = none)",
          runAndRerun, &C::output, &C::OutputSection::forcesFile),
  };
}

std::vector<KeySpec> rerunKeys() {
  return {
      trajectory("rerun.trajectory",
                 "trajectory that faraday rerun evaluates, .dcd or .xtc (empty = system.coordinates)", rerunOnly,
                 &C::rerun, &C::RerunSection::trajectory),
      requiredName("rerun.energy_file", "energies of every frame (faraday rerun), CSV", rerunOnly, &C::rerun,
                   &C::RerunSection::energyFile, "the rerun's energy file"),
  };
}

std::vector<KeySpec> mapKeys() {
  return {
      flag("map.enabled", "average a potential map (default: true with a [map] section or any map.* key)", runOnly,
           &C::map, &C::MapSection::enabled),
      choice("map.method", "direct | cutoff | pme (Ewald potential) | pmepot (its reciprocal part, as VMD's PMEpot)",
             runAndMap, &C::map, &C::MapSection::method),
      number("map.ewald_factor", "1/nm",
             "Gaussian width parameter beta of map.method = pmepot (VMD PMEpot's default 0.25 /A)", runAndMap, &C::map,
             &C::MapSection::ewaldFactor, positive),
      number("map.spacing", "nm", "map grid spacing", runAndMap, &C::map, &C::MapSection::spacing, positive),
      choice("map.extent", "box | atoms (padded bounding box)", runAndMap, &C::map, &C::MapSection::extent),
      number("map.padding", "nm", "padding around the atoms (extent = atoms)", runAndMap, &C::map,
             &C::MapSection::padding, nonNegative),
      text("map.extent_atoms",
           "the atoms extent = atoms surrounds, a selection (default: all but water and ions; all when that "
           "selects nothing)",
           runAndMap, &C::map, &C::MapSection::extentAtoms),
      {"map.index", "path", "GROMACS .ndx index file whose groups map selections name (group NAME)", runAndMap,
       [](C& c, const V& v) { c.map.index = v.text.empty() ? fs::path() : toPath(v); },
       [](const C& c) { return c.map.index.string(); }},
      number("map.cutoff", "nm", "cutoff (method = cutoff)", runAndMap, &C::map, &C::MapSection::cutoff, positive),
      flag("map.periodic", "minimum image (method = direct)", runAndMap, &C::map, &C::MapSection::periodic),
      steps("map.interval", "steps between sampled frames", runOnly, &C::map, &C::MapSection::interval),
      requiredName("map.file", "output map: .dx (OpenDX) or .mrc/.ccp4", runAndMap, &C::map, &C::MapSection::file,
                   "the output map file"),
      choice("map.units", "kT/e | V | kJ/mol/e", runAndMap, &C::map, &C::MapSection::units),
      number("map.temperature", "K", "temperature of kT/e (default: the run's, integrator or system temperature)",
             runAndMap, &C::map, &C::MapSection::temperature, positive),
      trajectory("map.trajectory", "trajectory to average (faraday map), .dcd or .xtc", mapOnly, &C::map,
                 &C::MapSection::trajectory),
  };
}

}  // namespace

const std::vector<SectionSpec>& fixedSections() {
  static const std::vector<SectionSpec> sections = {
      {"system", "", systemKeys()},
      {"nonbonded", "", nonbondedKeys()},
      {"gravity", "", gravityKeys()},
      {"electrostatics", "", electrostaticsKeys()},
      {"integrator", "", integratorKeys()},
      {"barostat", "(a [barostat] section or any barostat.* key turns on the barostat, barostat.enabled = false off)",
       barostatKeys()},
      {"run", "", runKeys()},
      {"output", "", outputKeys()},
      {"rerun", "", rerunKeys()},
      {"map", "(a [map] section or any map.* key turns on potential-map averaging, map.enabled = false off)",
       mapKeys()},
  };
  return sections;
}

const std::vector<const KeySpec*>& allKeys() {
  static const std::vector<const KeySpec*> flat = [] {
    std::vector<const KeySpec*> all;
    for (const SectionSpec& section : fixedSections())
      for (const KeySpec& k : section.keys) all.push_back(&k);
    return all;
  }();
  return flat;
}

const KeySpec* findKey(const std::string& key) {
  for (const KeySpec* k : allKeys())
    if (key == k->key) return k;
  return nullptr;
}

const NamedFieldSpec* NamedSectionSpec::find(const std::string& field) const {
  for (const NamedFieldSpec& f : fields)
    if (field == f.field) return &f;
  return nullptr;
}

const NamedSectionSpec& atomSection() {
  static const NamedSectionSpec section{
      "atom.",
      "NAME",
      "one section per atom name in the coordinates file (all four keys required)",
      allCommands,
      {{"mass", "amu", "mass (> 0)", [](double v) { return positive(v, "amu"); }},
       {"charge", "e", "charge", [](double v) { return v; }},
       {"sigma", "nm", "LJ sigma (>= 0; Lorentz-Berthelot mixing)", [](double v) { return nonNegative(v, "nm"); }},
       {"epsilon", "kJ/mol", "LJ well depth (>= 0)", [](double v) { return nonNegative(v, "kJ/mol"); }}},
      [](const C& c) {
        std::vector<NamedValues> out;
        for (const AtomType& t : c.atomTypes) out.push_back({t.name, {t.mass, t.charge, t.sigma, t.epsilon}});
        return out;
      }};
  return section;
}

const NamedSectionSpec& typedSection() {
  static const NamedSectionSpec section{
      "typed.",
      "A-B",
      "with nonbonded.potential = typed: one section per pair of atom types in the system\n"
      "  (A-B and B-A are the same entry); F_i = R (c1 / r^3 + (c2 / r)^c3), R = x_i - x_j, r clamped\n"
      "  below nonbonded.typed_rmin; U = c1 / r + (c2 / r)^c3 r^2 / (c3 - 2), shifted to 0 at the cutoff\n"
      "  in nonbonded.mode = cutoff",
      runAndRerun,
      {{"c1", "kJ/mol nm", "Coulomb-like term (U = c1 / r)", [](double v) { return v; }},
       {"c2", "nm (kJ/mol/nm^2)^(1/c3)", "repulsion length (>= 0)",
        [](double v) { return nonNegative(v, "nm (kJ/mol/nm^2)^(1/c3)"); }},
       {"c3", "", "repulsion exponent (> 2)",
        [](double v) {
          if (!(v > 2))
            throw BadValue{"must be > 2 (the repulsion (c2/r)^c3 r^2/(c3 - 2) must vanish at large r; got " +
                           formatNumber(v) + ")"};
          return v;
        }}},
      [](const C& c) {
        std::vector<NamedValues> out;
        for (const C::TypedPairSection& p : c.typedPairs) out.push_back({p.a + "-" + p.b, {p.c1, p.c2, p.c3}});
        return out;
      }};
  return section;
}

const std::vector<const NamedSectionSpec*>& namedSectionSpecs() {
  static const std::vector<const NamedSectionSpec*> specs = {&atomSection(), &typedSection()};
  return specs;
}

std::vector<std::pair<std::string, std::string>> namedSettings(const Config& config, const NamedSectionSpec& spec) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const NamedValues& section : spec.get(config))
    for (std::size_t f = 0; f < spec.fields.size(); ++f)
      out.emplace_back(spec.prefix + section.name + "." + spec.fields[f].field, formatNumber(section.values.at(f)));
  return out;
}

}  // namespace faraday::config
