#pragma once
// The one table of configuration keys (ConfigKeys.cpp), section by section: each key with its
// unit, description, the commands that read it, how a value is stored into the Config and how
// the current one is printed. Loading, the command-line overrides, the suggestions for unknown
// keys, every command's --help and the effective settings are all read from it.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/config/Command.h"
#include "engine/config/Config.h"
#include "engine/config/ConfigValues.h"

namespace faraday::config {

/// One key of a fixed section. The default is the printed value of a default Config.
struct KeySpec {
  const char* key;     ///< "section.name"
  const char* unit;    ///< "" for none
  const char* help;    ///< one line for --help
  CommandSet readBy;   ///< the commands whose result the key changes
  std::function<void(Config&, const Value&)> set;  ///< stores a value; throws BadValue
  std::function<std::string(const Config&)> get;   ///< the current value as text
  /// The default --help shows instead of get(Config{}) when that would mislead ("(required)").
  const char* defaultText = nullptr;
};

/// A section of fixed keys ([nonbonded]: nonbonded.cutoff, ...).
struct SectionSpec {
  const char* name;     ///< "nonbonded"
  const char* runNote;  ///< a line under the section's header in `faraday run --help` ("" = none)
  std::vector<KeySpec> keys;
};

/// One key of a section whose name the user chooses: a required number.
struct NamedFieldSpec {
  const char* field;  ///< "mass": the key atom.NAME.mass
  const char* unit;
  const char* help;
  std::function<double(double)> check;  ///< the value, or BadValue
};

/// One section named by the user, as loaded: its name ("NA", "NA-CL") and its fields' values.
struct NamedValues {
  std::string name;
  std::vector<double> values;  ///< in the order of NamedSectionSpec::fields
};

/// A kind of section named by the user ([atom.NA], [typed.NA-CL]); each field is required.
struct NamedSectionSpec {
  const char* prefix;       ///< "atom.": keys are PREFIX NAME.FIELD
  const char* placeholder;  ///< the name in --help: "NAME"
  const char* intro;        ///< --help's text after the section header
  CommandSet readBy;
  std::vector<NamedFieldSpec> fields;
  std::function<std::vector<NamedValues>(const Config&)> get;  ///< the sections of this kind in a Config
  /// The field called `field`, or null.
  const NamedFieldSpec* find(const std::string& field) const;
};

/// The fixed sections in order: system, nonbonded, gravity, electrostatics, integrator,
/// barostat, run, output, rerun, map.
const std::vector<SectionSpec>& fixedSections();
/// Every fixed key, in section order.
const std::vector<const KeySpec*>& allKeys();
/// The key called `key`, or null (the named sections' keys are not in it).
const KeySpec* findKey(const std::string& key);

/// [atom.NAME]: mass, charge, sigma, epsilon of the atoms of that name.
const NamedSectionSpec& atomSection();
/// [typed.A-B]: the typed pair force's c1, c2, c3 for atom types A and B.
const NamedSectionSpec& typedSection();
/// Both, in --help order.
const std::vector<const NamedSectionSpec*>& namedSectionSpecs();

/// "PREFIX NAME.FIELD" = value of every section of `spec`'s kind in `config`
/// ("atom.NA.mass" = "22.99"), section by section.
std::vector<std::pair<std::string, std::string>> namedSettings(const Config& config, const NamedSectionSpec& spec);

}  // namespace faraday::config
