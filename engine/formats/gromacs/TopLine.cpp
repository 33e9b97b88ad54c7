#include "engine/formats/gromacs/TopLine.h"

#include <cmath>

#include "engine/formats/TextParse.h"

namespace faraday {

TopFields::TopFields(const TopLine& line) : line_(line), fields_(splitWhitespace(line.text)) {}

double TopFields::number(std::size_t i, const std::string& what) const {
  if (i >= fields_.size()) throw error("missing " + what);
  double value = 0;
  if (!parseDouble(fields_[i], value) || !std::isfinite(value))
    throw error("expected a number for " + what + ", got '" + fields_[i] + "'");
  return value;
}

long TopFields::integer(std::size_t i, const std::string& what) const {
  if (i >= fields_.size()) throw error("missing " + what);
  long long value = 0;
  if (!parseInteger(fields_[i], value)) throw error("expected an integer for " + what + ", got '" + fields_[i] + "'");
  return long(value);
}

std::vector<double> TopFields::numbersFrom(std::size_t first, const std::string& what) const {
  std::vector<double> values;
  for (std::size_t i = first; i < fields_.size(); ++i) values.push_back(number(i, what));
  return values;
}

bool TopFields::isInteger(std::size_t i) const {
  long long value = 0;
  return i < fields_.size() && parseInteger(fields_[i], value);
}

}  // namespace faraday
