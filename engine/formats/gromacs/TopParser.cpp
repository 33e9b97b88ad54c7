#include "engine/formats/gromacs/TopParser.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "engine/formats/TextParse.h"

namespace faraday {
namespace {

bool equalIgnoringCase(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

class Parser {
 public:
  explicit Parser(std::vector<std::string>& warnings) : warnings_(warnings) {}

  ParsedTopology run(const std::vector<TopLine>& lines) {
    for (const TopLine& line : lines) {
      if (line.text[0] == '[') {
        directive(line);
      } else if (section_ != TopSection::None) {
        content(TopFields(line));
      }
    }
    if (molecule_) finishTopMoleculeType(*molecule_);  // a file that ends in a molecule type
    if (!seen_.count(TopSection::Molecules)) {
      const std::string file = lines.empty() ? std::string("topology") : lines.front().file;
      throw fileError(file, 0, "no [ molecules ] directive: the topology defines no system");
    }
    long molecules = 0;
    for (const TopMoleculeCount& m : top_.molecules) molecules += m.count;
    if (molecules == 0) throw top_.moleculesLine.error("[ molecules ] lists no molecules");
    return std::move(top_);
  }

 private:
  void directive(const TopLine& line) {
    const auto close = line.text.find(']');
    if (close == std::string::npos) throw line.error("directive without closing ']'");
    const std::string name = trimmed(line.text.substr(1, close - 1));
    const TopSection next = topSection(name);
    if (next == TopSection::Unknown) throw line.error("unknown directive [ " + name + " ]");
    if (next == TopSection::Unsupported)
      throw line.error("[ " + name + " ] is not supported (polarization, restraints other than position restraints "
                       "and intermolecular interactions are not)");
    checkOrder(line, next, name);
    if (molecule_ && (next == TopSection::MoleculeType || next == TopSection::System || next == TopSection::Molecules))
      finishTopMoleculeType(*molecule_);
    if (next == TopSection::MoleculeType) {
      if (!seen_.count(TopSection::MoleculeType)) top_.forceField.finish(warnings_);
      molecule_ = nullptr;
      haveAtoms_ = false;
    } else if (next == TopSection::Atoms) {
      haveAtoms_ = molecule_ != nullptr;
    } else if (next == TopSection::System || next == TopSection::Molecules) {
      molecule_ = nullptr;
      haveAtoms_ = false;
      if (next == TopSection::Molecules) top_.moleculesLine = line;
    }
    seen_.insert(next);
    section_ = next;
  }

  void checkOrder(const TopLine& line, TopSection next, const std::string& name) const {
    const std::string d = "[ " + name + " ]";
    if (next == TopSection::Defaults && seen_.count(TopSection::Defaults)) throw line.error("a second [ defaults ] directive");
    if (isParameterSection(next) && seen_.count(TopSection::MoleculeType))
      throw line.error(d + " after a [ moleculetype ]: force-field parameters must come before the molecule types");
    if (next == TopSection::AtomTypes && !seen_.count(TopSection::Defaults))
      throw line.error(d + " before [ defaults ]");
    if ((isParameterSection(next) && next != TopSection::Defaults && next != TopSection::AtomTypes) ||
        next == TopSection::MoleculeType)
      if (!seen_.count(TopSection::AtomTypes)) throw line.error(d + " before [ atomtypes ]");
    if (next == TopSection::Atoms && molecule_ == nullptr)
      throw line.error(d + " outside a [ moleculetype ] (or before its name and nrexcl)");
    if (isMoleculeSection(next) && !haveAtoms_)
      throw line.error(d + " outside a [ moleculetype ] with [ atoms ]: it must follow the atoms of its molecule type");
    if (next == TopSection::System && !seen_.count(TopSection::MoleculeType))
      throw line.error(d + " before any [ moleculetype ]");
    if (next == TopSection::Molecules && !seen_.count(TopSection::System)) throw line.error(d + " before [ system ]");
  }

  void content(const TopFields& f) {
    TopForceField& ff = top_.forceField;
    switch (section_) {
      case TopSection::Defaults:
        if (defaultsRead_) throw f.error("a second line in [ defaults ]");
        ff.setDefaults(f);
        defaultsRead_ = true;
        break;
      case TopSection::AtomTypes: ff.addAtomType(f, warnings_); break;
      case TopSection::BondTypes:
      case TopSection::ConstraintTypes:
      case TopSection::AngleTypes: ff.addBondedType(section_, f, warnings_); break;
      case TopSection::DihedralTypes: ff.addDihedralType(f, warnings_); break;
      case TopSection::PairTypes: ff.addPairType(f, warnings_); break;
      case TopSection::NonbondParams: ff.addNonbondParam(f, warnings_); break;
      case TopSection::CmapTypes: ff.addCmapType(f); break;
      case TopSection::ImplicitGenbornParams:
      case TopSection::ImplicitSurfaceParams: break;  // implicit solvent: grompp skips these too
      case TopSection::MoleculeType: moleculeType(f); break;
      case TopSection::Atoms: addTopAtom(*molecule_, f, ff); break;
      case TopSection::System: top_.systemName = f.line().text; break;
      case TopSection::Molecules: molecules(f); break;
      default: addTopInteraction(*molecule_, section_, f, ff); break;
    }
  }

  /// grompp reads the first `used` fields of some lines and ignores the rest: so do we, saying so.
  void ignoreExtraFields(const TopFields& f, std::size_t used) {
    if (f.size() > used)
      warnings_.push_back(f.line().where() + ": fields after the first " + std::to_string(used) + " ignored ('" +
                          f.line().text + "')");
  }

  void moleculeType(const TopFields& f) {
    if (molecule_ != nullptr) throw f.error("a second line in [ moleculetype ]: one name and nrexcl per directive");
    if (f.size() < 2) throw f.error("[ moleculetype ] expects a name and nrexcl");
    ignoreExtraFields(f, 2);
    for (const TopMoleculeType& m : top_.moleculeTypes)
      if (m.name == f[0]) throw f.error("molecule type " + f[0] + " redefined (first defined at " + m.where + ")");
    TopMoleculeType m;
    m.name = f[0];
    m.nrexcl = int(f.integer(1, "nrexcl"));
    if (m.nrexcl < 0) throw f.error("nrexcl must not be negative");
    m.where = f.line().where();
    top_.moleculeTypes.push_back(std::move(m));
    molecule_ = &top_.moleculeTypes.back();
  }

  /// A name matches its molecule type exactly, else ignoring case when only one does so
  /// (grompp's rule: chain-derived names may differ only in case).
  int findMoleculeType(const TopFields& f) const {
    const auto& types = top_.moleculeTypes;
    for (std::size_t k = 0; k < types.size(); ++k)
      if (types[k].name == f[0]) return int(k);
    int found = -1, matches = 0;
    for (std::size_t k = 0; k < types.size(); ++k)
      if (equalIgnoringCase(types[k].name, f[0])) {
        found = int(k);
        ++matches;
      }
    if (matches > 1) throw f.error("molecule type " + f[0] + " matches several molecule types when case is ignored");
    if (found < 0) {
      std::string known;
      for (const TopMoleculeType& m : types) known += (known.empty() ? "" : ", ") + m.name;
      throw f.error("molecule type " + f[0] + " is not defined (defined: " + known + ")");
    }
    return found;
  }

  void molecules(const TopFields& f) {
    if (f.size() < 2) throw f.error("[ molecules ] expects a molecule type name and a count");
    ignoreExtraFields(f, 2);
    TopMoleculeCount entry;
    entry.type = findMoleculeType(f);
    entry.count = f.integer(1, "molecule count");
    if (entry.count < 0) throw f.error("molecule count must not be negative");
    if (top_.moleculeTypes[std::size_t(entry.type)].atoms.empty())
      throw f.error("molecule type " + f[0] + " has no atoms");
    top_.molecules.push_back(entry);
  }

  std::vector<std::string>& warnings_;
  ParsedTopology top_;
  TopSection section_ = TopSection::None;
  std::set<TopSection> seen_;
  TopMoleculeType* molecule_ = nullptr;  ///< the molecule type being read
  bool haveAtoms_ = false;               ///< whether it has had its [ atoms ] directive
  bool defaultsRead_ = false;
};

}  // namespace

ParsedTopology parseTopology(const std::vector<TopLine>& lines, std::vector<std::string>& warnings) {
  return Parser(warnings).run(lines);
}

}  // namespace faraday
