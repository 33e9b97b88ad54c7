#include "engine/config/ConfigHelp.h"

#include "engine/config/ConfigKeys.h"

namespace faraday {
namespace {

using namespace config;

const char* const kHowToSet =
    "In a config file, [section] then 'key = value'; on the command line\n"
    "--section.key=value or --section.key value. Relative paths in a file are resolved against\n"
    "the file's folder, on the command line against the current folder.\n";

/// `text` padded with spaces to `width` characters (longer text is kept whole).
std::string padded(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

/// Whether `command`'s help lists a key read by `readers` (run's lists every key).
bool listed(CommandSet readers, Command command) { return command == Command::Run || readers.contains(command); }

std::string defaultOf(const KeySpec& k, const Config& defaults) {
  if (k.defaultText) return k.defaultText;
  const std::string text = k.get(defaults);
  return text.empty() ? "\"\"" : text;
}

}  // namespace

std::string helpLine(const std::string& name, const std::string& defaultText, const std::string& unit,
                     const std::string& description) {
  return "  " + padded(name, 34) + " default " + padded(defaultText, 14) + " " + padded(unit, 7) + " " + description +
         "\n";
}

std::string configHelp(Command command) {
  const Config defaults;
  std::string out = command == Command::Run ? std::string("Configuration keys. ")
                                            : "Configuration keys that faraday " + std::string(commandName(command)) +
                                                  " reads ('faraday run --help' lists every key).\n";
  out += kHowToSet;
  for (const SectionSpec& section : fixedSections()) {
    std::string lines;
    for (const KeySpec& k : section.keys)
      if (listed(k.readBy, command)) lines += helpLine(k.key, defaultOf(k, defaults), k.unit, k.help);
    if (lines.empty()) continue;
    out += "\n[" + std::string(section.name) + "]\n";
    if (command == Command::Run && *section.runNote) out += "  " + std::string(section.runNote) + "\n";
    out += lines;
  }
  for (const NamedSectionSpec* spec : namedSectionSpecs()) {
    if (!listed(spec->readBy, command)) continue;
    const std::string name = spec->prefix + std::string(spec->placeholder);
    out += "\n[" + name + "]  " + spec->intro + "\n";
    for (const NamedFieldSpec& f : spec->fields) out += helpLine(name + "." + f.field, "(required)", f.unit, f.help);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> settingsReadBy(const Config& config, Command command) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const KeySpec* k : allKeys())
    if (listed(k->readBy, command)) out.emplace_back(k->key, k->get(config));
  for (const NamedSectionSpec* spec : namedSectionSpecs())
    if (listed(spec->readBy, command)) {
      const auto named = namedSettings(config, *spec);
      out.insert(out.end(), named.begin(), named.end());
    }
  return out;
}

}  // namespace faraday
