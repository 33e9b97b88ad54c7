#include "engine/formats/LineFile.h"

#include <cstring>
#include <fstream>

#include "core/Error.h"
#include "engine/formats/AtomicFile.h"

namespace faraday {

LineFile LineFile::read(const std::filesystem::path& file, const char* what) {
  std::ifstream in(file, std::ios::binary);
  if (!in) readWholeFile(file, what);  // throws, naming the file and why
  LineFile f;
  f.name = file.string();
  const auto keep = [&f](std::string& line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    f.lines.push_back(std::move(line));
    line.clear();
  };
  // In blocks, so that a file of one enormous line costs kMaxLineBytes, not its size.
  std::vector<char> block(1 << 16);
  std::string line;
  while (in.read(block.data(), std::streamsize(block.size())) || in.gcount() > 0) {
    const char* at = block.data();
    const char* const end = at + in.gcount();
    while (at < end) {
      const char* newline = static_cast<const char*>(std::memchr(at, '\n', std::size_t(end - at)));
      line.append(at, newline ? newline : end);
      if (line.size() > kMaxLineBytes)
        throw fileError(f.name, long(f.lines.size()) + 1,
                        "line longer than " + std::to_string(kMaxLineBytes) + " bytes, which no " + what + " has");
      if (!newline) break;
      keep(line);
      at = newline + 1;
    }
  }
  if (!line.empty()) keep(line);
  return f;
}

std::string LineFile::columns(const std::string& line, std::size_t begin, std::size_t width) {
  if (begin >= line.size()) return "";
  return line.substr(begin, width);
}

}  // namespace faraday
