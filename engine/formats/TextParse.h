#pragma once
#include <string>
#include <vector>

namespace faraday {

/// Whole-string number parsing (surrounding blanks allowed, nothing else): false when
/// `text` is not entirely a decimal number (hexadecimal such as 0x10 is refused). NaN and
/// inf parse (callers check finiteness).
bool parseDouble(const std::string& text, double& value);
bool parseInteger(const std::string& text, long long& value);

/// Shortest text that reads back as exactly `value` ("0.002", "1e-05").
std::string formatNumber(double value);

/// Fields separated by blanks.
std::vector<std::string> splitWhitespace(const std::string& text);

/// `text` without leading and trailing blanks.
std::string trimmed(const std::string& text);

}  // namespace faraday
