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

  /// The lines of `file` (`what`: "topology", "coordinate", ... for messages), read in
  /// blocks: a line longer than kMaxLineBytes is an error naming the file and the line, so
  /// that memory stays bounded by the lines kept. Throws Error naming the file.
  static LineFile read(const std::filesystem::path& file, const char* what);
  /// The longest line a text input may have: 1 MiB, thousands of times any real line.
  static constexpr std::size_t kMaxLineBytes = std::size_t(1) << 20;
  long number(std::size_t index) const { return long(index) + 1; }
  /// Columns [begin, begin + width) of a line (shorter when the line is short).
  static std::string columns(const std::string& line, std::size_t begin, std::size_t width);
};

}  // namespace faraday
