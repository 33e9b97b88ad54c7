#pragma once
#include <stdexcept>
#include <string>

namespace faraday {

/// Every user-facing failure: bad input, bad configuration, a failed device call.
/// The message is one line that names the file and line, or the key, at fault.
/// `faraday` prints it as "faraday: error: <message>" and exits non-zero.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

/// Error in an input file: "<file>:<line>: <what>" (line 0 = the file as a whole).
inline Error fileError(const std::string& file, long line, const std::string& what) {
  return Error(line > 0 ? file + ":" + std::to_string(line) + ": " + what : file + ": " + what);
}

/// Error in a configuration key: "<key>: <what>" (prefixed with the config file when known).
inline Error keyError(const std::string& key, const std::string& what) {
  return Error("key '" + key + "': " + what);
}

}  // namespace faraday
