#include "engine/config/ConfigValues.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "engine/formats/TextParse.h"

namespace faraday::config {

std::string Origin::where(const std::string& key) const {
  if (file.empty()) return "command line: key '" + key + "'";
  return file + ":" + std::to_string(line) + ": key '" + key + "'";
}

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

long long positiveInterval(const std::string& text) {
  const long long n = toInteger(text);
  if (n <= 0) throw BadValue{"must be > 0 steps (got " + text + ")"};
  return n;
}

double positive(double v, const char* unit) {
  if (!(v > 0)) throw BadValue{"must be > 0 " + std::string(unit) + " (got " + formatNumber(v) + ")"};
  return v;
}

double nonNegative(double v, const char* unit) {
  if (v < 0) throw BadValue{"must be >= 0 " + std::string(unit) + " (got " + formatNumber(v) + ")"};
  return v;
}

std::size_t oneOf(const std::string& text, const char* const* words, std::size_t count) {
  std::string list;
  for (std::size_t k = 0; k < count; ++k) {
    if (text == words[k]) return k;
    list += (list.empty() ? "" : " | ") + std::string(words[k]);
  }
  throw BadValue{"unknown value '" + text + "' (expected " + list + ")"};
}

std::string unquoted(const std::string& text) {
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') return text.substr(1, text.size() - 2);
  return text;
}

std::filesystem::path toPath(const Value& v) {
  if (v.text.empty()) return {};
  std::filesystem::path p(v.text);
  if (p.is_relative()) p = v.origin.base / p;
  return p.lexically_normal();
}

std::string boolText(bool b) { return b ? "true" : "false"; }

}  // namespace faraday::config
