#include "engine/formats/gromacs/TopPreprocessor.h"

#include <cctype>
#include <cstdlib>
#include <set>
#include <utility>

#include "engine/formats/LineFile.h"
#include "engine/formats/TextParse.h"

namespace faraday {
namespace fs = std::filesystem;
namespace {

/// Deeper nesting than this is taken for a file that includes itself.
constexpr int kMaxIncludeDepth = 64;

bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

/// `text` with every whole-word occurrence of `name` replaced by `value`.
std::string replaceWord(const std::string& text, const std::string& name, const std::string& value, bool& replaced) {
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    const bool wordStart = at == 0 || !isWordChar(text[at - 1]);
    const bool wordEnd = end == text.size() || !isWordChar(text[end]);
    if (!wordStart || !wordEnd || at < from) continue;
    out.append(text, from, at - from);
    out += value;
    from = end;
    replaced = true;
  }
  out.append(text, from, std::string::npos);
  return out;
}

/// The state of one #ifdef: its region is read, skipped, or skipped because an enclosing
/// region is (then #else does not switch it).
enum class Region { Active, Inactive, Ignored };

struct OpenConditional {
  Region region;
  long line;
  std::string text;  ///< "#ifdef NAME", for the error when it is never closed
};

class Preprocessor {
 public:
  Preprocessor(const std::vector<std::string>& defines, std::vector<fs::path> searchPath,
               std::vector<std::string>& warnings)
      : searchPath_(std::move(searchPath)), warnings_(warnings) {
    for (const std::string& option : defines) addCommandLineDefine(option);
  }

  std::vector<TopLine> run(const fs::path& top) {
    readFile(top, 0);
    if (!pending_.file.empty()) flushPending();
    std::string unused;
    for (const std::string& name : unusedCommandLine_) unused += (unused.empty() ? "" : ", ") + name;
    if (!unused.empty()) warnings_.push_back(top.string() + ": define(s) given with -D not used in the topology: " + unused);
    return std::move(lines_);
  }

 private:
  void addCommandLineDefine(const std::string& option) {
    if (option.rfind("-D", 0) != 0 || option.size() < 3)
      throw Error("topology define '" + option + "': expected -DNAME or -DNAME=value");
    const std::string body = option.substr(2);
    const auto eq = body.find('=');
    const std::string name = body.substr(0, eq);
    setDefine(name, eq == std::string::npos ? "" : body.substr(eq + 1));
    unusedCommandLine_.insert(name);
  }

  void setDefine(const std::string& name, const std::string& value) {
    for (auto& [n, v] : defines_)
      if (n == name) {
        v = value;
        return;
      }
    defines_.emplace_back(name, value);
  }

  bool isDefined(const std::string& name) {
    for (const auto& d : defines_)
      if (d.first == name) {
        unusedCommandLine_.erase(name);
        return true;
      }
    return false;
  }

  void readFile(const fs::path& file, int depth) {
    const LineFile f = LineFile::read(file, "topology");
    std::vector<OpenConditional> open;
    for (std::size_t i = 0; i < f.lines.size(); ++i) {
      const TopLine here{f.name, f.number(i), f.lines[i]};
      const bool skipping = !open.empty() && open.back().region != Region::Active;
      std::string name, value;
      if (splitDirective(here.text, name, value)) {
        directive(here, name, value, open, skipping, depth);
      } else if (!skipping) {
        content(here);
      }
    }
    if (!open.empty()) throw fileError(f.name, open.back().line, open.back().text + " has no #endif in this file");
  }

  /// "#name value" with blanks allowed before and after '#'; false for any other line.
  static bool splitDirective(const std::string& text, std::string& name, std::string& value) {
    const std::string t = trimmed(text);
    if (t.empty() || t[0] != '#') return false;
    const std::string rest = trimmed(t.substr(1));
    std::size_t end = 0;
    while (end < rest.size() && !std::isspace(static_cast<unsigned char>(rest[end]))) ++end;
    name = rest.substr(0, end);
    value = trimmed(rest.substr(end));
    value = trimmed(value.substr(0, value.find(';')));
    return true;
  }

  void directive(const TopLine& here, const std::string& name, const std::string& value,
                 std::vector<OpenConditional>& open, bool skipping, int depth) {
    if (name == "ifdef" || name == "ifndef") {
      if (skipping) {
        open.push_back({Region::Ignored, here.line, "#" + name + " " + value});
        return;
      }
      if (value.empty()) throw here.error("#" + name + " needs a name");
      const bool condition = isDefined(value) == (name == "ifdef");
      open.push_back({condition ? Region::Active : Region::Inactive, here.line, "#" + name + " " + value});
    } else if (name == "else") {
      if (open.empty()) throw here.error("#else without #ifdef or #ifndef");
      Region& r = open.back().region;
      if (r != Region::Ignored) r = r == Region::Active ? Region::Inactive : Region::Active;
    } else if (name == "endif") {
      if (open.empty()) throw here.error("#endif without #ifdef or #ifndef");
      open.pop_back();
    } else if (skipping) {
      return;  // other directives count only in regions that are read
    } else if (name == "include") {
      include(here, value, depth);
    } else if (name == "define") {
      if (value.empty()) throw here.error("#define needs a name");
      std::size_t end = 0;
      while (end < value.size() && !std::isspace(static_cast<unsigned char>(value[end]))) ++end;
      setDefine(value.substr(0, end), trimmed(value.substr(end)));
    } else if (name == "undef") {
      if (value.empty()) throw here.error("#undef needs a name");
      for (auto it = defines_.begin(); it != defines_.end(); ++it)
        if (it->first == value) {
          defines_.erase(it);
          break;
        }
    } else {
      throw here.error("unknown preprocessor directive '#" + name +
                       "' (known: #include, #define, #undef, #ifdef, #ifndef, #else, #endif)");
    }
  }

  void include(const TopLine& here, const std::string& value, int depth) {
    if (value.size() < 3 || !((value.front() == '"' && value.back() == '"') || (value.front() == '<' && value.back() == '>')))
      throw here.error("#include needs a file name in quotes, got '" + value + "'");
    const std::string name = value.substr(1, value.size() - 2);
    if (depth + 1 > kMaxIncludeDepth)
      throw here.error("#include \"" + name + "\" nested more than " + std::to_string(kMaxIncludeDepth) +
                       " files deep (does a file include itself?)");
    readFile(findInclude(here, name), depth + 1);
  }

  fs::path findInclude(const TopLine& here, const std::string& name) const {
    const fs::path wanted(name);
    std::error_code ec;
    if (wanted.is_absolute()) {
      if (fs::is_regular_file(wanted, ec)) return wanted;
      throw here.error("include file \"" + name + "\" not found");
    }
    std::vector<fs::path> dirs{fs::path(here.file).parent_path()};
    dirs.insert(dirs.end(), searchPath_.begin(), searchPath_.end());
    std::string looked;
    for (const fs::path& dir : dirs) {
      const fs::path candidate = dir / wanted;
      if (fs::is_regular_file(candidate, ec)) return candidate;
      looked += (looked.empty() ? "" : ", ") + (dir.empty() ? std::string(".") : dir.string());
    }
    throw here.error("include file \"" + name + "\" not found (looked in " + looked + ")");
  }

  void content(const TopLine& here) {
    std::string text = here.text;
    for (const auto& [name, value] : defines_) {
      if (value.empty()) continue;
      bool replaced = false;
      text = replaceWord(text, name, value, replaced);
      if (replaced) unusedCommandLine_.erase(name);
    }
    // grompp joins a line ending in '\' with the next line it reads, whatever lies between.
    std::string body = text;
    const std::string t = trimmed(text);
    const bool continues = !t.empty() && t.back() == '\\';
    if (continues) body = t.substr(0, t.size() - 1);
    if (pending_.file.empty()) {
      pending_ = {here.file, here.line, body};
    } else {
      pending_.text += " " + body;
    }
    if (!continues) flushPending();
  }

  void flushPending() {
    TopLine line = std::move(pending_);
    pending_ = TopLine{};
    line.text = trimmed(line.text.substr(0, line.text.find(';')));
    if (!line.text.empty()) lines_.push_back(std::move(line));
  }

  std::vector<fs::path> searchPath_;
  std::vector<std::string>& warnings_;
  std::vector<std::pair<std::string, std::string>> defines_;  ///< in the order they were made
  std::set<std::string> unusedCommandLine_;
  TopLine pending_;  ///< a line continued with '\', file empty when none
  std::vector<TopLine> lines_;
};

}  // namespace

std::vector<fs::path> topologyIncludePath(const std::vector<fs::path>& includeDirs) {
  std::vector<fs::path> path = includeDirs;
  if (const char* lib = std::getenv("GMXLIB"); lib && *lib) {
    std::string list = lib;
    for (std::size_t start = 0; start <= list.size();) {
      const std::size_t end = std::min(list.find(':', start), list.size());
      if (end > start) path.emplace_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
  if (const char* data = std::getenv("GMXDATA"); data && *data) path.push_back(fs::path(data) / "top");
  std::error_code ec;
  for (const char* dir : {"/usr/share/gromacs/top", "/usr/local/gromacs/share/gromacs/top"})
    if (fs::is_directory(dir, ec)) path.emplace_back(dir);
  return path;
}

std::vector<TopLine> preprocessTopology(const fs::path& top, const std::vector<std::string>& defines,
                                        const std::vector<fs::path>& includeDirs, std::vector<std::string>& warnings) {
  return Preprocessor(defines, topologyIncludePath(includeDirs), warnings).run(top);
}

}  // namespace faraday
