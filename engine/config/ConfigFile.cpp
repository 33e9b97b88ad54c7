// Reading a config file: an INI text whose sections become dotted prefixes ([pme] then
// order = 4 is the key pme.order), comments removed, every line checked and numbered.
#include <boost/program_options.hpp>

#include <fstream>
#include <sstream>

#include "core/Error.h"
#include "engine/formats/LineFile.h"
#include "engine/config/ConfigEntries.h"
#include "engine/config/ConfigKeys.h"
#include "engine/formats/TextParse.h"

namespace faraday::config {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

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

/// The sections and key lines of `text`; rejects lines that are neither a section, a
/// key = value pair nor empty, and a key set twice.
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

std::string readText(const fs::path& file) {
  // Line by line, in bounded memory: a line beyond LineFile::kMaxLineBytes is an error.
  std::string text;
  for (const std::string& line : LineFile::read(file, "config file").lines) text += line + '\n';
  // A UTF-8 byte-order mark (some Windows editors write one) is no part of the first line.
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  return text;
}

}  // namespace

po::options_description programOptions() {
  po::options_description desc("Faraday configuration");
  for (const KeySpec* k : allKeys()) desc.add_options()(k->key, po::value<std::string>(), k->help);
  return desc;
}

std::vector<RawEntry> readFileEntries(const fs::path& file, IniIndex& index) {
  const std::string text = withoutComments(readText(file));
  index = scanIni(file.string(), text);
  std::istringstream in(text);
  po::parsed_options parsed(nullptr);
  try {
    parsed = po::parse_config_file(in, programOptions(), /*allow_unregistered=*/true);
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

}  // namespace faraday::config
