#pragma once
// The option parser every `faraday bench X` shares, built on Boost.Program_options like the
// configuration: each option is declared once with its default and its unit, `--help` lists
// them, and an unknown option or a malformed value is an Error naming the bench and the
// option. Options are written --name=VALUE or --name VALUE.
#include <boost/program_options.hpp>

#include <filesystem>
#include <fstream>
#include <iosfwd>
#include <sstream>
#include <string>
#include <vector>

namespace faraday {

class BenchOptions {
 public:
  /// `bench`: the name after `faraday bench`; `summary`: what it measures, one or two lines.
  BenchOptions(std::string bench, std::string summary);

  /// An option with a value, read into `target`, whose current value is the default;
  /// `unit` is shown in the help ("" for none).
  template <typename T>
  void add(const char* name, T& target, const char* unit, const std::string& help) {
    std::ostringstream defaultText;
    defaultText << target;
    options_.add_options()(name, boost::program_options::value<T>(&target)->default_value(target, defaultText.str()),
                           withUnit(unit, help).c_str());
  }
  /// A switch without a value: `target` becomes true when it is given.
  void flag(const char* name, bool& target, const std::string& help);

  /// Reads `args` (the arguments after the bench's name) into the targets. False when
  /// --help was given: the help went to `out` and the bench should not run.
  bool parse(const std::vector<std::string>& args, std::ostream& out);

  /// Usage line, summary and every option with its default and unit.
  std::string help() const;

  /// "a,b,c" -> {a, b, c} as numbers; throws Error naming --`name` for anything else.
  std::vector<double> numberList(const char* name, const std::string& text) const;

  /// Throws Error naming --platforms unless `platforms` is cpu, cuda or both.
  void checkPlatforms(const std::string& platforms) const;

  /// The CSV file at `path`, opened for writing (closed when `path` is empty: no CSV);
  /// throws Error naming the file when it cannot be opened.
  static std::ofstream openCsv(const std::filesystem::path& path);

 private:
  static std::string withUnit(const char* unit, const std::string& help);
  std::string bench_;
  std::string summary_;
  boost::program_options::options_description options_;
};

}  // namespace faraday
