#include "engine/config/LoadConfig.h"

#include <algorithm>
#include <set>

#include "core/Error.h"
#include "engine/config/ConfigChecks.h"
#include "engine/config/ConfigEntries.h"
#include "engine/config/ConfigKeys.h"
#include "engine/config/KeySuggestions.h"
#include "engine/config/NamedSections.h"

namespace faraday {
namespace {

namespace fs = std::filesystem;
using namespace config;

/// Throws Error naming the file and line (or the command line) for the first entry whose
/// key is neither in the table nor a field of a named section, with a suggestion.
void checkKnown(const std::vector<RawEntry>& entries, const std::set<std::string>& sectionNames) {
  for (const RawEntry& e : entries) {
    std::string sectionName;
    if (findKey(e.key) || isNamedKey(e.key, sectionName)) continue;
    const std::string msg = unknownKeyMessage(e.key, sectionNames);
    if (e.value.origin.file.empty()) throw Error("command line: " + msg);
    throw fileError(e.value.origin.file, e.value.origin.line, msg);
  }
}

void applyValues(Config& config, const std::vector<RawEntry>& entries) {
  for (const RawEntry& e : entries) {
    const KeySpec* spec = findKey(e.key);
    if (!spec) continue;
    try {
      spec->set(config, e.value);
    } catch (const BadValue& b) {
      throw Error(e.value.origin.where(e.key) + ": " + b.what);
    }
  }
}

/// Every key in use, section by section: the fixed sections, the atom types and typed pairs,
/// then the map keys (only when a map is requested).
void fillEffective(Config& config) {
  auto& out = config.effective;
  out.clear();
  const std::vector<SectionSpec>& sections = fixedSections();
  const auto isMap = [](const SectionSpec& s) { return std::string(s.name) == "map"; };
  const auto isBarostat = [](const SectionSpec& s) { return std::string(s.name) == "barostat"; };
  for (const SectionSpec& s : sections) {
    if (isMap(s)) continue;
    // The barostat's keys only when it is on (they then also enter the checkpoint's physics).
    for (const KeySpec& k : s.keys)
      if (!isBarostat(s) || config.barostat.enabled || std::string(k.key) == "barostat.enabled")
        out.emplace_back(k.key, k.get(config));
  }
  for (const NamedSectionSpec* spec : namedSectionSpecs()) {
    const auto named = namedSettings(config, *spec);
    out.insert(out.end(), named.begin(), named.end());
  }
  out.emplace_back("map.enabled", boolText(config.map.enabled));
  if (!config.map.enabled) return;
  for (const SectionSpec& s : sections)
    if (isMap(s))
      for (const KeySpec& k : s.keys)
        if (std::string(k.key) != "map.enabled") out.emplace_back(k.key, k.get(config));
}

void checkRequired(const Config& config, const fs::path& file) {
  if (config.system.coordinates.empty()) {
    const std::string where = file.empty() ? "command line" : file.string();
    throw Error(where + ": key 'system.coordinates': required key is missing (the .gro or .pdb file)");
  }
  if (config.atomTypes.empty() && config.system.topology.empty()) {
    const std::string where = file.empty() ? "command line" : file.string();
    throw Error(where + ": no [atom.NAME] section and no system.topology: every atom name in the coordinates needs mass, "
                        "charge, sigma, epsilon, or a GROMACS topology gives them");
  }
}

/// Whether the file has a [`section`] section or any `section`.* key is set.
bool sectionRequested(const std::vector<RawEntry>& entries, const IniIndex& index, const std::string& section) {
  if (index.sections.count(section)) return true;
  for (const RawEntry& e : entries)
    if (e.key.rfind(section + ".", 0) == 0) return true;
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
  if (!isSet("map.enabled")) config.map.enabled = sectionRequested(entries, index, "map");
  if (!isSet("barostat.enabled")) config.barostat.enabled = sectionRequested(entries, index, "barostat");
  // The map's kT is the run's temperature unless map.temperature says otherwise.
  if (!isSet("map.temperature"))
    config.map.temperature = config.integrator.type == IntegratorType::Langevin ? config.integrator.temperature : config.system.temperature;
  checkRequired(config, file);
  KeyOrigins origins;
  for (const RawEntry& e : entries) origins[e.key] = e.value.origin.where(e.key);
  checkOutputNames(config, origins);
  checkOutputPlaces(config, origins);
  checkTrajectoryFormats(config, origins);
  checkMapFileFormat(config, origins);
  checkModeCombination(config, origins);
  config.warnings = ineffectiveKeyWarnings(config, origins);
  fillEffective(config);
  return config;
}

}  // namespace faraday
