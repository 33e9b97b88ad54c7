#pragma once
// One logical line of a GROMACS topology after the preprocessor (TopPreprocessor.h), and its
// blank-separated fields with number parsing that names the file and line on failure.
#include <cstddef>
#include <string>
#include <vector>

#include "core/Error.h"

namespace faraday {

/// A line as grompp sees it: defines substituted, continuation lines joined, the comment
/// after ';' and surrounding blanks removed. `file` and `line` are where it starts.
struct TopLine {
  std::string file;
  long line = 0;
  std::string text;

  /// "file:line: what" as an Error.
  Error error(const std::string& what) const { return fileError(file, line, what); }
  /// "file:line", for messages that point at a second place.
  std::string where() const { return file + ":" + std::to_string(line); }
};

/// The fields of a TopLine.
class TopFields {
 public:
  explicit TopFields(const TopLine& line);

  std::size_t size() const { return fields_.size(); }
  const std::string& operator[](std::size_t i) const { return fields_[i]; }
  const TopLine& line() const { return line_; }
  Error error(const std::string& what) const { return line_.error(what); }

  /// Field `i` as a finite number; throws "expected a number for WHAT, got 'text'" (or
  /// "missing WHAT" past the last field).
  double number(std::size_t i, const std::string& what) const;
  /// Field `i` as an integer; throws like number().
  long integer(std::size_t i, const std::string& what) const;
  /// Fields first .. size() - 1 as numbers, named WHAT in errors.
  std::vector<double> numbersFrom(std::size_t first, const std::string& what) const;
  /// Whether field `i` exists and is an integer.
  bool isInteger(std::size_t i) const;

 private:
  TopLine line_;
  std::vector<std::string> fields_;
};

}  // namespace faraday
