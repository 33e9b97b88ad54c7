#include "engine/formats/TextParse.h"

#include <charconv>
#include <cstdlib>
#include <sstream>

namespace faraday {

std::string trimmed(const std::string& text) {
  const auto b = text.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = text.find_last_not_of(" \t\r\n");
  return text.substr(b, e - b + 1);
}

bool parseDouble(const std::string& text, double& value) {
  const std::string t = trimmed(text);
  // strtod also reads hexadecimal ("0x10" = 16): no number Faraday reads is written so.
  if (t.empty() || t.find_first_of("xX") != std::string::npos) return false;
  char* end = nullptr;
  value = std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size();
}

bool parseInteger(const std::string& text, long long& value) {
  const std::string t = trimmed(text);
  if (t.empty()) return false;
  const char* first = t.c_str();
  if (*first == '+') ++first;
  const auto [ptr, ec] = std::from_chars(first, t.c_str() + t.size(), value);
  return ec == std::errc() && ptr == t.c_str() + t.size();
}

std::string formatNumber(double value) {
  char buffer[64];
  const auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, ec == std::errc() ? ptr : buffer);
}

std::vector<std::string> splitWhitespace(const std::string& text) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  std::string p;
  while (in >> p) parts.push_back(p);
  return parts;
}

}  // namespace faraday
