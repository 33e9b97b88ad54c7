#pragma once
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace faraday {

/// `text` with its control bytes written out, so that text copied from a bad file cannot
/// break the line or drive the terminal: \t \n \r as such, the other bytes below 0x20
/// and DEL as \xNN (bytes from 0x80 up, UTF-8, are kept).
inline std::string escapeControlBytes(const std::string& text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7f) {
      out += ch;
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

/// Every user-facing failure: bad input, bad configuration, a failed device call.
/// The message is one line that names the file and line, or the key, at fault, with any
/// control bytes escaped. `faraday` prints it as "faraday: error: <message>" and exits
/// non-zero.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(escapeControlBytes(message)) {}
};

/// A time step that could not be taken (constraints that cannot be satisfied): the run stops
/// with its last good state, as after a runaway.
class StepFailure : public Error {
 public:
  using Error::Error;
};

/// The system's reason for the last failed call (strerror(errno)), for messages such as
/// "write failed: No space left on device".
inline std::string systemReason() { return errno != 0 ? std::strerror(errno) : "no reason given by the system"; }

/// Error in an input file: "<file>:<line>: <what>" (line 0 = the file as a whole).
inline Error fileError(const std::string& file, long line, const std::string& what) {
  return Error(line > 0 ? file + ":" + std::to_string(line) + ": " + what : file + ": " + what);
}

/// Error in a configuration key: "<key>: <what>" (prefixed with the config file when known).
inline Error keyError(const std::string& key, const std::string& what) {
  return Error("key '" + key + "': " + what);
}

}  // namespace faraday
