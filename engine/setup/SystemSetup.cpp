#include "engine/setup/SystemSetup.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "engine/formats/Coordinates.h"
#include "core/Error.h"
#include "engine/config/KernelParams.h"
#include "engine/setup/ConstraintSetup.h"
#include "engine/formats/gromacs/GromacsTopology.h"
#include "engine/setup/TopologySystem.h"
#include "engine/formats/TextParse.h"
#include "core/Units.h"
#include "integrators/InitialVelocities.h"
#include "engine/formats/CoordinateFile.h"
#include "kernels/vsites/VirtualSites.h"

namespace faraday {
namespace {

std::string knownNames(const std::vector<AtomType>& types) {
  std::string list;
  for (const AtomType& t : types) list += (list.empty() ? "" : ", ") + t.name;
  return list;
}

void assignTypes(const Config& config, const Coordinates& c, System& system) {
  std::map<std::string, int> index;
  for (std::size_t t = 0; t < config.atomTypes.size(); ++t) index[config.atomTypes[t].name] = int(t);
  const std::string file = config.system.coordinates.string();
  for (std::size_t i = 0; i < c.size(); ++i) {
    const auto it = index.find(c.atomName[i]);
    if (it == index.end())
      throw fileError(file, c.line[i], "unknown atom name '" + c.atomName[i] + "': no [atom." + c.atomName[i] +
                      "] section in the config (known: " + knownNames(config.atomTypes) + ")");
    const AtomType& type = config.atomTypes[std::size_t(it->second)];
    system.type.push_back(it->second);
    system.charge.push_back(type.charge);
    system.mass.push_back(type.mass);
  }
}

/// grompp's define option split at blanks: "-DFLEXIBLE -DPOSRES" -> {"-DFLEXIBLE", "-DPOSRES"}.
std::vector<std::string> splitDefines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string word; in >> word;) {
    if (word.rfind("-D", 0) != 0 || word.size() < 3)
      throw keyError("system.defines", "'" + word + "' is not of the form -DNAME or -DNAME=value");
    out.push_back(word);
  }
  return out;
}

System makeSystem(const Config& config, const Coordinates& c, std::vector<std::string>& warnings) {
  if (!config.system.topology.empty()) {
    const GromacsTopology top = readGromacsTopology(config.system.topology, splitDefines(config.system.defines), {},
                                                    (long long)c.size(), config.system.coordinates.string());
    checkNetCharge(top);
    TopologySystem ts = systemFromTopology(top, c, config.system.coordinates.string());
    warnings.insert(warnings.end(), ts.warnings.begin(), ts.warnings.end());
    applyConstraintKeys(config, ts.system);
    return std::move(ts.system);
  }
  System system;
  system.types = config.atomTypes;
  system.atomName = c.atomName;
  system.residueName = c.residueName;
  system.residueId = c.residueId;
  system.box = c.box;
  assignTypes(config, c, system);
  return system;
}

/// Molecules (consecutive molecules of one name counted together), atom types and the
/// number of each kind of term.
std::string describeTopology(const System& system) {
  const Topology& t = system.topology;
  std::string out = "  molecules:";
  for (std::size_t m = 0; m < t.molecules.size();) {
    std::size_t k = m;
    while (k < t.molecules.size() && t.molecules[k].name == t.molecules[m].name) ++k;
    out += " " + t.molecules[m].name + " x " + std::to_string(k - m);
    m = k;
  }
  out += "\n  " + std::to_string(system.types.size()) + " atom types\n  terms:";
  const std::pair<const char*, std::size_t> counts[] = {
      {"bonds", t.bonds.size() + t.g96Bonds.size() + t.morseBonds.size() + t.cubicBonds.size()},
      {"angles", t.angles.size() + t.g96Angles.size()}, {"U-B angles", t.ureyBradleys.size()},
      {"proper dihedrals", t.properDihedrals.size()}, {"RB dihedrals", t.rbDihedrals.size()},
      {"impropers", t.impropers.size() + t.periodicImpropers.size()}, {"CMAP", t.cmaps.size()},
      {"1-4 pairs", t.pairs14.size()}, {"position restraints", t.positionRestraints.size()},
      {"excluded pairs", t.exclusions.size() / 2}, {"constraints", t.constraints.size()}, {"settles", t.settles.size()},
      {"virtual sites", t.virtualSites.size()}};
  bool first = true;
  for (const auto& [name, n] : counts)
    if (n > 0) out += std::string(first ? " " : ", ") + std::to_string(n) + " " + name, first = false;
  return out + "\n";
}

/// One warning for each [atom.NAME] section that no atom of the coordinate file uses.
std::vector<std::string> unusedTypeWarnings(const Config& config, const System& system) {
  std::vector<bool> used(system.types.size(), false);
  for (const int t : system.type) used[std::size_t(t)] = true;
  std::vector<std::string> warnings;
  for (std::size_t t = 0; t < used.size(); ++t)
    if (!used[t])
      warnings.push_back("[atom." + system.types[t].name + "]: no atom of " + config.system.coordinates.string() +
                         " is named " + system.types[t].name + "; the section has no effect");
  return warnings;
}

}  // namespace

void checkCutoffFitsBox(const Config& config, const Box& box) {
  const double half = box.maxCutoff();
  const std::string bound = std::string("half ") + box.maxCutoffMeaning();
  // auto is at least kCpuPairListBuffer and, on the GPU, at most what fits (pairListBuffer).
  const double rc = config.nonbonded.cutoff,
               rb = config.nonbonded.buffer < 0 ? kCpuPairListBuffer : config.nonbonded.buffer;
  if (!(rc < half))
    throw keyError("nonbonded.cutoff", "cutoff " + formatNumber(rc) + " nm must be shorter than " + bound + " (" +
                   formatNumber(half) + " nm) of " + config.system.coordinates.string());
  if (!(rc + rb <= half))
    throw keyError("nonbonded.buffer", "cutoff + buffer = " + formatNumber(rc + rb) + " nm must not exceed " + bound + " (" +
                   formatNumber(half) + " nm) of " + config.system.coordinates.string());
}

Setup buildSetup(const Config& config) {
  const Coordinates c = readCoordinates(config.system.coordinates);
  Setup setup;
  setup.title = c.title;
  setup.system = makeSystem(config, c, setup.warnings);
  if (config.system.topology.empty()) {
    const std::vector<std::string> unused = unusedTypeWarnings(config, setup.system);
    setup.warnings.insert(setup.warnings.end(), unused.begin(), unused.end());
  }
  // All pairs: open boundaries, the file's box is carried along for the outputs only.
  if (!config.nonbonded.allPairs()) checkCutoffFitsBox(config, c.box);
  if (config.nonbonded.typed()) typedPairTable(config, setup.system);  // every pair of types present has a section
  setup.state.positions = c.positions;
  setup.state.box = c.box;
  setup.velocitiesFromFile = !c.velocities.empty();
  setup.state.velocities = setup.velocitiesFromFile
                               ? c.velocities
                               : maxwellBoltzmannVelocities(setup.system, config.system.temperature,
                                                                            config.system.velocitySeed, config.integrator.type);
  // The sites where their atoms put them (a file may hold them anywhere), without velocity.
  const VirtualSites& sites = setup.system.topology.virtualSites;
  constructVirtualSites(sites, setup.state.positions, setup.state.box);
  clearVirtualSiteVelocities(sites, setup.state.velocities);
  return setup;
}

std::string describeSystem(const System& system) {
  std::map<int, long long> counts;
  double totalMass = 0;
  for (std::size_t i = 0; i < system.size(); ++i) counts[system.type[i]]++, totalMass += system.mass[i];
  // g/cm^3 = amu / (N_A * nm^3 * 1e-21 cm^3/nm^3)
  const double density = totalMass / (units::kAvogadro * system.box.volume() * 1e-21);
  char line[320];
  std::string out;
  const Box& box = system.box;
  if (box.isRectangular()) {
    const Vec3 L = box.diagonal();
    std::snprintf(line, sizeof line, "atoms: %zu  box: %.4f x %.4f x %.4f nm  volume: %.4f nm^3  density: %.4f g/cm^3\n",
                  system.size(), L.x, L.y, L.z, box.volume(), density);
  } else {
    const Vec3 L = box.edgeLengths(), angle = box.angles();
    std::snprintf(line, sizeof line,
                  "atoms: %zu  box: triclinic, edges %.4f %.4f %.4f nm, angles %.2f %.2f %.2f deg  volume: %.4f nm^3  "
                  "density: %.4f g/cm^3\n",
                  system.size(), L.x, L.y, L.z, angle.x, angle.y, angle.z, box.volume(), density);
  }
  out += line;
  if (!system.topology.empty()) {
    out += describeTopology(system);
  } else {
    for (const auto& [t, n] : counts) {
    const AtomType& type = system.types[std::size_t(t)];
    std::snprintf(line, sizeof line, "  %-8s x %lld  mass %g amu  charge %g e  sigma %g nm  epsilon %g kJ/mol\n",
                  type.name.c_str(), n, type.mass, type.charge, type.sigma, type.epsilon);
    out += line;
    }
  }
  std::snprintf(line, sizeof line, "net charge: %g e\n", system.netCharge());
  out += line;
  return out;
}

}  // namespace faraday
