#include "engine/bench/BenchOptions.h"

#include <ostream>

#include "core/Error.h"

namespace faraday {

namespace po = boost::program_options;

BenchOptions::BenchOptions(std::string bench, std::string summary)
    : bench_(std::move(bench)), summary_(std::move(summary)), options_("options") {
  options_.add_options()("help,h", "print this help");
}

std::string BenchOptions::withUnit(const char* unit, const std::string& help) {
  return *unit ? help + " (" + unit + ")" : help;
}

void BenchOptions::flag(const char* name, bool& target, const std::string& help) {
  options_.add_options()(name, po::bool_switch(&target), help.c_str());
}

bool BenchOptions::parse(const std::vector<std::string>& args, std::ostream& out) {
  // "--key=" gives the key an empty value ("" = none), as "--key ''" does.
  std::vector<std::string> split;
  for (const std::string& a : args) {
    if (a.size() > 3 && a.rfind("--", 0) == 0 && a.back() == '=') {
      split.push_back(a.substr(0, a.size() - 1));
      split.emplace_back();
    } else {
      split.push_back(a);
    }
  }
  po::variables_map values;
  try {
    po::store(po::command_line_parser(split).options(options_).run(), values);
    if (values.count("help")) {
      out << help();
      return false;
    }
    po::notify(values);
  } catch (const po::error& e) {
    throw Error("faraday bench " + bench_ + ": " + e.what() + " (see faraday bench " + bench_ + " --help)");
  }
  return true;
}

std::string BenchOptions::help() const {
  std::ostringstream text;
  text << "usage: faraday bench " << bench_ << " [options]\n" << summary_ << "\n\n" << options_;
  return text.str();
}

void BenchOptions::checkPlatforms(const std::string& platforms) const {
  if (platforms != "cpu" && platforms != "cuda" && platforms != "both")
    throw Error("faraday bench " + bench_ + ": --platforms must be cpu, cuda or both, not '" + platforms + "'");
}

std::vector<double> BenchOptions::numberList(const char* name, const std::string& text) const {
  std::vector<double> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    try {
      std::size_t used = 0;
      out.push_back(std::stod(item, &used));
      if (used == item.size()) continue;
    } catch (const std::exception&) {
    }
    throw Error("faraday bench " + bench_ + ": --" + name + " expects numbers separated by commas, got '" + text +
                "'");
  }
  if (out.empty()) throw Error("faraday bench " + bench_ + ": --" + name + " is empty");
  return out;
}

std::ofstream BenchOptions::openCsv(const std::filesystem::path& path) {
  std::ofstream csv;
  if (path.empty()) return csv;
  std::error_code ignored;  // a folder that cannot be made fails at the open, naming the file
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ignored);
  csv.open(path);
  if (!csv) throw fileError(path.string(), 0, "cannot open for writing");
  return csv;
}

}  // namespace faraday
