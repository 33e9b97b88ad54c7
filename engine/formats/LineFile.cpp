#include "engine/formats/LineFile.h"

#include <sstream>

#include "engine/formats/AtomicFile.h"

namespace faraday {

LineFile LineFile::read(const std::filesystem::path& file, const char* what) {
  LineFile f;
  f.name = file.string();
  std::istringstream in(readWholeFile(file, what));
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    f.lines.push_back(line);
  }
  return f;
}

std::string LineFile::columns(const std::string& line, std::size_t begin, std::size_t width) {
  if (begin >= line.size()) return "";
  return line.substr(begin, width);
}

}  // namespace faraday
