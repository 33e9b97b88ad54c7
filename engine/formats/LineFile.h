#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace faraday {

/// A text file split into lines (without line ends) for the fixed-column readers;
/// `number(i)` is the 1-based line number used in error messages.
struct LineFile {
  std::string name;
  std::vector<std::string> lines;

  static LineFile read(const std::filesystem::path& file, const char* what);
  long number(std::size_t index) const { return long(index) + 1; }
  /// Columns [begin, begin + width) of a line (shorter when the line is short).
  static std::string columns(const std::string& line, std::size_t begin, std::size_t width);
};

}  // namespace faraday
