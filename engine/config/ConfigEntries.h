#pragma once
// The key = value entries of a configuration as read, before conversion: from an INI file
// (ConfigFile.cpp) and from the command-line overrides (ConfigCommandLine.cpp), each with
// where it was set.
#include <boost/program_options/options_description.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/config/ConfigValues.h"

namespace faraday::config {

/// One key and its value text as given, with where it was set.
struct RawEntry {
  std::string key;
  Value value;
};

/// Line numbers of every key and the sections seen, from a plain scan of the INI text.
struct IniIndex {
  std::map<std::string, long> lineOfKey;  ///< the line that sets the key (each key at most once)
  std::set<std::string> sections;
};

/// The entries of config file `file`, in order; `index` gets its sections and key lines.
/// Throws Error naming the file and line for a line that is neither a section, a
/// key = value pair nor a comment, a key set twice, or a file that cannot be read.
std::vector<RawEntry> readFileEntries(const std::filesystem::path& file, IniIndex& index);

/// The entries of `overrides` ("--key=value" or "--key value" tokens); relative paths are
/// resolved against the current folder. Throws Error ("command line: ...") for a token
/// that is not an override, a key without a value or a key given twice.
std::vector<RawEntry> readCommandLine(const std::vector<std::string>& overrides);

/// Every fixed key as a Boost.Program_options option taking a string, which both readers
/// parse with.
boost::program_options::options_description programOptions();

}  // namespace faraday::config
