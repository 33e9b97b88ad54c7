#pragma once
// A configuration value as read (its text and where it was set) and its conversion to a
// typed field: numbers, integers, seeds, booleans, choices, paths. A conversion that fails
// throws BadValue; the caller adds the key and where it was set.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace faraday::config {

/// Where a value came from: a config file line or the command line.
struct Origin {
  std::string file;  ///< empty: command line
  long line = 0;
  std::filesystem::path base;  ///< folder that relative paths are resolved against
  /// "FILE:LINE: key 'K'" or "command line: key 'K'": how every error about a key starts.
  std::string where(const std::string& key) const;
};

struct Value {
  std::string text;
  Origin origin;
};

/// A value that cannot be used; the caller adds where it came from.
struct BadValue {
  std::string what;
};

double toDouble(const std::string& text);  ///< a finite number
long long toInteger(const std::string& text);
unsigned long long toSeed(const std::string& text);  ///< an integer >= 0
bool toBool(const std::string& text);  ///< true/yes/on/1 or false/no/off/0, any case
long long positiveInterval(const std::string& text);  ///< steps > 0
double positive(double v, const char* unit);  ///< v > 0; `unit` names the unit in the error
double nonNegative(double v, const char* unit);  ///< v >= 0
/// The index of `text` among the `count` words at `words`, else BadValue listing them.
std::size_t oneOf(const std::string& text, const char* const* words, std::size_t count);
/// `"text"` -> `text` (so that `energy_file = ""` reads as empty).
std::string unquoted(const std::string& text);
/// The path of `v`, relative ones against the folder of its origin; empty text: empty path.
std::filesystem::path toPath(const Value& v);
std::string boolText(bool b);

}  // namespace faraday::config
