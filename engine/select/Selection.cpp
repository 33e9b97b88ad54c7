#include "engine/select/Selection.h"

#include <algorithm>
#include <climits>
#include <unordered_set>

#include "core/Error.h"
#include "engine/config/KeySuggestions.h"
#include "engine/formats/LineFile.h"
#include "engine/formats/TextParse.h"

namespace faraday {
namespace {

using Names = std::unordered_set<std::string>;
using Mask = std::vector<char>;

/// The amino acids and their protonation, disulfide and modified variants of the GROMACS,
/// AMBER, CHARMM and OPLS force fields; each also with AMBER's N- and C-terminal prefixes.
const char* const kAminoAcids[] = {
    "ALA",  "ARG",  "ASN",  "ASP",  "CYS",  "GLN",  "GLU",  "GLY",  "HIS",   "ILE",   "LEU",  "LYS",
    "MET",  "PHE",  "PRO",  "SER",  "THR",  "TRP",  "TYR",  "VAL",  "HID",   "HIE",   "HIP",  "HSD",
    "HSE",  "HSP",  "HISA", "HISB", "HISD", "HISE", "HISH", "HISP", "HIS1",  "HIS2",  "CYX",  "CYM",
    "CYN",  "CYS1", "CYS2", "CYSH", "LYN",  "LYP",  "LYSN", "LYSH", "LSN",   "ASH",   "ASPH", "ASPP",
    "ASP1", "ASN1", "GLH",  "GLUH", "GLUP", "ARGN", "PHEH", "PHEU", "TRPH",  "TRPU",  "TYRH", "TYRU",
    "HYP",  "ORN",  "DAB",  "ABU",  "AIB",  "DALA", "MSE",  "PGLU", "MELEU", "MEVAL", "PHL"};

/// Caps and terminal groups that count as protein (GROMACS's residuetypes.dat).
const char* const kProteinCaps[] = {"ACE", "NME", "NHE", "NH2", "NAC", "CT3"};

const char* const kNucleic[] = {"DA",  "DC",  "DG",  "DT",  "DU",  "DA5", "DC5", "DG5", "DT5", "DU5",
                                "DA3", "DC3", "DG3", "DT3", "DU3", "DAN", "DCN", "DGN", "DTN", "DUN",
                                "A",   "C",   "G",   "U",   "RA",  "RC",  "RG",  "RU",  "RT",  "RA5",
                                "RC5", "RG5", "RU5", "RT5", "RA3", "RC3", "RG3", "RU3", "RT3", "RAN",
                                "RCN", "RGN", "RUN", "RTN", "ADE", "CYT", "GUA", "THY", "URA"};

const char* const kWater[] = {"SOL", "WAT", "HOH", "OHH", "TIP",  "TIP3", "TIP4", "TIP5", "T3P",
                              "T4P", "T5P", "T3H", "SPC", "SPCE", "OPC",  "OPC3", "TP3",  "TP4"};

const char* const kIons[] = {"NA",  "CL",  "K",   "MG",  "CA",  "ZN",  "LI",  "RB",   "CS",   "F",
                             "BR",  "I",   "CU",  "CU1", "CU2", "OH",  "Cal", "IB+",  "NA+",  "CL-",
                             "K+",  "LI+", "RB+", "CS+", "F-",  "BR-", "I-",  "MG2+", "CA2+", "ZN2+",
                             "SOD", "CLA", "POT", "CAL", "CES", "LIT", "RUB", "MG2",  "CA2",  "ZN2"};

template <std::size_t N>
Names namesOf(const char* const (&list)[N]) {
  return Names(std::begin(list), std::end(list));
}

const Names& proteinNames() {
  static const Names names = [] {
    Names n = namesOf(kProteinCaps);
    for (const char* aa : kAminoAcids) {
      n.insert(aa);
      n.insert(std::string("N") + aa);
      n.insert(std::string("C") + aa);
    }
    return n;
  }();
  return names;
}

/// `text` matches the glob `pattern`: * any run of characters, ? any one character.
bool globMatch(const std::string& pattern, const std::string& text) {
  std::size_t p = 0, t = 0, star = std::string::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++, resume = t;
    } else if (star != std::string::npos) {
      p = star + 1, t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

const std::vector<std::string> kKeywords = {"all",   "none",  "protein",  "nucleic", "water", "ions", "name", "resname",
                                            "resid", "index", "molecule", "group",   "and",   "or",   "not"};

bool isKeyword(const std::string& word) {
  return word == "(" || word == ")" || std::find(kKeywords.begin(), kKeywords.end(), word) != kKeywords.end();
}

struct Token {
  std::string text;
  std::size_t position;  ///< 1-based, of its first character
};

std::vector<Token> tokenize(const std::string& text) {
  std::vector<Token> tokens;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
    } else if (c == '(' || c == ')') {
      tokens.push_back({std::string(1, c), i + 1});
      ++i;
    } else {
      const std::size_t begin = i;
      while (i < text.size() && std::string(" \t\n\r()").find(text[i]) == std::string::npos) ++i;
      tokens.push_back({text.substr(begin, i - begin), begin + 1});
    }
  }
  return tokens;
}

/// An inclusive range of integers.
struct Range {
  long long first, last;
};

/// Recursive descent over the tokens, evaluating as it goes: each rule returns the mask of
/// the particles it selects.
class Parser {
 public:
  Parser(const std::string& text, const SelectionContext& context, const std::string& key)
      : context_(context), key_(key), tokens_(tokenize(text)), end_(text.size() + 1) {}

  Mask parse() {
    if (tokens_.empty()) throw keyError(key_, "the selection is empty");
    Mask m = orExpression();
    if (next_ < tokens_.size()) {
      const Token& t = tokens_[next_];
      if (t.text == ")") fail(t.position, "')' without a matching '('");
      fail(t.position, "unexpected '" + t.text + "' after a complete selection (join selections with 'and' or 'or')");
    }
    return m;
  }

 private:
  const SelectionContext& context_;
  const std::string& key_;
  std::vector<Token> tokens_;
  std::size_t end_;  ///< the position just past the text
  std::size_t next_ = 0;

  [[noreturn]] void fail(std::size_t position, const std::string& what) const {
    throw keyError(key_, "position " + std::to_string(position) + ": " + what);
  }
  bool peek(const char* word) const { return next_ < tokens_.size() && tokens_[next_].text == word; }
  std::size_t here() const { return next_ < tokens_.size() ? tokens_[next_].position : end_; }
  Mask filled(char value) const { return Mask(context_.size(), value); }

  Mask orExpression() {
    Mask m = andExpression();
    while (peek("or")) {
      ++next_;
      const Mask r = andExpression();
      for (std::size_t i = 0; i < m.size(); ++i) m[i] = m[i] || r[i];
    }
    return m;
  }

  Mask andExpression() {
    Mask m = notExpression();
    while (peek("and")) {
      ++next_;
      const Mask r = notExpression();
      for (std::size_t i = 0; i < m.size(); ++i) m[i] = m[i] && r[i];
    }
    return m;
  }

  Mask notExpression() {
    if (!peek("not")) return primary();
    ++next_;
    Mask m = notExpression();
    for (char& v : m) v = !v;
    return m;
  }

  Mask primary() {
    if (next_ >= tokens_.size()) fail(end_, "expected a selection after '" + tokens_[next_ - 1].text + "'");
    const Token& t = tokens_[next_++];
    const std::string& w = t.text;
    if (w == "(") {
      Mask m = orExpression();
      if (!peek(")")) fail(t.position, "'(' is not closed");
      ++next_;
      return m;
    }
    if (w == "all") return filled(1);
    if (w == "none") return filled(0);
    if (w == "protein") return byResidueSet(proteinNames());
    static const Names nucleic = namesOf(kNucleic), water = namesOf(kWater), ions = namesOf(kIons);
    if (w == "nucleic") return byResidueSet(nucleic);
    if (w == "water") return byResidueSet(water);
    if (w == "ions") return byResidueSet(ions);
    if (w == "name") return byPattern(t, context_.atomName);
    if (w == "resname") return byPattern(t, context_.residueName);
    if (w == "molecule") {
      if (context_.moleculeName.empty()) fail(t.position, "'molecule' needs a topology, and the system has none");
      return byPattern(t, context_.moleculeName);
    }
    if (w == "resid") return byResid(t);
    if (w == "index") return byIndex(t);
    if (w == "group") return byGroup(t);
    if (w == ")" || w == "and" || w == "or")
      fail(t.position, next_ == 1 ? "expected a selection before '" + w + "'"
                                  : "expected a selection after '" + tokens_[next_ - 2].text + "', not '" + w + "'");
    const std::string near = config::closestWord(w, kKeywords);
    fail(t.position,
         "unknown keyword '" + w + "'" +
             (near.empty() ? std::string(" (see the selection keywords: all, none, protein, nucleic, water, "
                                         "ions, name, resname, resid, index, molecule, group)")
                           : "; did you mean '" + near + "'?"));
  }

  /// The value tokens after keyword `keyword`: up to the next keyword, operator or parenthesis;
  /// at least one.
  std::vector<Token> values(const Token& keyword) {
    std::vector<Token> out;
    while (next_ < tokens_.size() && !isKeyword(tokens_[next_].text)) out.push_back(tokens_[next_++]);
    if (out.empty()) fail(here(), "expected a value after '" + keyword.text + "'");
    return out;
  }

  Mask byResidueSet(const Names& names) const {
    Mask m = filled(0);
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = names.count(context_.residueName[i]) > 0;
    return m;
  }

  Mask byPattern(const Token& keyword, const std::vector<std::string>& field) {
    const std::vector<Token> patterns = values(keyword);
    Mask m = filled(0);
    for (std::size_t i = 0; i < m.size(); ++i)
      for (const Token& p : patterns)
        if (globMatch(p.text, field[i])) {
          m[i] = 1;
          break;
        }
    return m;
  }

  /// N, N-M or N:M (non-negative integers, N <= M).
  Range range(const Token& value, const char* what) const {
    const std::string& s = value.text;
    const std::size_t sep = s.find_first_of("-:", 1);
    const std::string a = s.substr(0, sep), b = sep == std::string::npos ? a : s.substr(sep + 1);
    const auto digits = [](const std::string& x) {
      return !x.empty() && x.find_first_not_of("0123456789") == std::string::npos;
    };
    Range r{0, 0};
    if (!digits(a) || !digits(b) || !parseInteger(a, r.first) || !parseInteger(b, r.last))
      fail(value.position, "'" + s + "' is not " + what + " or range (N, N-M or N:M)");
    if (r.first > r.last) fail(value.position, "the range '" + s + "' is empty (its start is above its end)");
    return r;
  }

  Mask byResid(const Token& keyword) {
    std::vector<Range> ranges;
    for (const Token& v : values(keyword)) ranges.push_back(range(v, "a residue number"));
    Mask m = filled(0);
    for (std::size_t i = 0; i < m.size(); ++i)
      for (const Range& r : ranges)
        if (context_.residueId[i] >= r.first && context_.residueId[i] <= r.last) {
          m[i] = 1;
          break;
        }
    return m;
  }

  Mask byIndex(const Token& keyword) {
    Mask m = filled(0);
    for (const Token& v : values(keyword)) {
      const Range r = range(v, "an atom index");
      if (r.last >= (long long)m.size())
        fail(v.position, "index " + std::to_string(r.last) + " is beyond the last atom (" +
                             std::to_string((long long)m.size() - 1) + "; indices start at 0)");
      std::fill(m.begin() + r.first, m.begin() + r.last + 1, 1);
    }
    return m;
  }

  Mask byGroup(const Token& keyword) {
    if (context_.groupFile.empty() && context_.groups.empty())
      fail(keyword.position, "'group' needs an index file (.ndx), and none is given");
    const std::string file = context_.groupFile.empty() ? std::string("the index groups") : context_.groupFile;
    Mask m = filled(0);
    for (const Token& v : values(keyword)) {
      const auto g = context_.groups.find(v.text);
      if (g == context_.groups.end()) {
        std::vector<std::string> names;
        for (const auto& [name, atoms] : context_.groups) names.push_back(name);
        const std::string near = config::closestWord(v.text, names);
        fail(v.position,
             "no group '" + v.text + "' in " + file + (near.empty() ? "" : "; did you mean '" + near + "'?"));
      }
      for (const int a : g->second) {
        if (a < 0 || std::size_t(a) >= m.size())
          fail(v.position, "group '" + v.text + "' of " + file + " has atom number " + std::to_string(a + 1) +
                               ", beyond the system's " + std::to_string(m.size()) + " atoms");
        m[std::size_t(a)] = 1;
      }
    }
    return m;
  }
};

}  // namespace

SelectionContext selectionContext(const System& system, const std::filesystem::path& indexFile) {
  SelectionContext c;
  const std::size_t n = system.size();
  c.atomName = system.atomName;
  c.residueName = system.residueName;
  c.residueId = system.residueId;
  c.atomName.resize(n);
  c.residueName.resize(n);
  c.residueId.resize(n, 0);
  if (!system.topology.molecules.empty()) {
    c.moleculeName.assign(n, std::string());
    for (const Molecule& m : system.topology.molecules)
      for (int k = 0; k < m.count; ++k) c.moleculeName[std::size_t(m.first + k)] = m.name;
  }
  if (!indexFile.empty()) {
    c.groups = readNdx(indexFile);
    c.groupFile = indexFile.string();
  }
  return c;
}

IndexGroups readNdx(const std::filesystem::path& file) {
  const LineFile f = LineFile::read(file, "index");
  IndexGroups groups;
  std::map<std::string, long> firstLine;
  std::vector<int>* current = nullptr;
  for (std::size_t i = 0; i < f.lines.size(); ++i) {
    const std::string line = trimmed(f.lines[i]);
    const long number = f.number(i);
    if (line.empty() || line[0] == ';' || line[0] == '#') continue;
    if (line[0] == '[') {
      if (line.back() != ']') throw fileError(f.name, number, "a group header must be '[ name ]'");
      const std::string name = trimmed(line.substr(1, line.size() - 2));
      if (name.empty()) throw fileError(f.name, number, "a group without a name");
      const auto [at, fresh] = firstLine.emplace(name, number);
      if (!fresh)
        throw fileError(f.name, number,
                        "group '" + name + "' again (first at line " + std::to_string(at->second) + ")");
      current = &groups[name];
      continue;
    }
    if (!current) throw fileError(f.name, number, "atom numbers before the first '[ group ]'");
    for (const std::string& field : splitWhitespace(line)) {
      long long atom = 0;
      if (!parseInteger(field, atom) || atom < 1 || atom > INT_MAX)
        throw fileError(f.name, number, "'" + field + "' is not an atom number (1, 2, ...)");
      current->push_back(int(atom - 1));
    }
  }
  if (groups.empty()) throw fileError(f.name, 0, "no '[ group ]' in the file");
  return groups;
}

std::vector<int> select(const std::string& text, const SelectionContext& context, const std::string& key) {
  const Mask m = Parser(text, context, key).parse();
  std::vector<int> out;
  for (std::size_t i = 0; i < m.size(); ++i)
    if (m[i]) out.push_back(int(i));
  if (out.empty()) throw keyError(key, "'" + text + "' selects no atoms");
  return out;
}

}  // namespace faraday
