// Reading the command-line overrides of a configuration: --section.key=value or
// --section.key value, each key at most once.
#include <boost/program_options.hpp>

#include <set>

#include "core/Error.h"
#include "engine/config/ConfigEntries.h"

namespace faraday::config {

namespace po = boost::program_options;

namespace {

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

}  // namespace

std::vector<RawEntry> readCommandLine(const std::vector<std::string>& overrides) {
  const std::vector<std::string> tokens = normalizeOverrides(overrides);
  po::parsed_options parsed(nullptr);
  try {
    const int style = po::command_line_style::unix_style & ~po::command_line_style::allow_guessing;
    parsed = po::command_line_parser(tokens).options(programOptions()).style(style).allow_unregistered().run();
  } catch (const po::error& e) {
    throw Error(std::string("command line: ") + e.what());
  }
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::vector<RawEntry> entries;
  std::set<std::string> seen;
  for (const po::option& o : parsed.options) {
    if (o.string_key.empty()) throw Error("command line: unexpected argument '" + o.original_tokens.front() + "'");
    if (!seen.insert(o.string_key).second) throw Error("command line: key '" + o.string_key + "' is given twice");
    entries.push_back({o.string_key, {o.value.empty() ? "" : unquoted(o.value.front()), Origin{"", 0, cwd}}});
  }
  return entries;
}

}  // namespace faraday::config
