#include "engine/formats/gromacs/TopTypes.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "engine/formats/TextParse.h"

namespace faraday {
namespace {

/// W of an LJ entry: epsilon (combination rules 2, 3) or c12 (rule 1) must not be negative: a
/// negative epsilon makes the mixed epsilon sqrt(eps_i eps_j) undefined, a negative c12 an
/// attraction without a floor.
void checkLjParameters(int combRule, double w, const TopFields& f, const std::string& what) {
  if (w >= 0) return;
  throw f.error(what + ": negative " + (combRule == 1 ? "c12 " : "epsilon ") + formatNumber(w) +
                (combRule == 1 ? " kJ/mol nm^12" : " kJ/mol") + " (must be >= 0)");
}

bool isSingleLetter(const std::string& s) { return s.size() == 1 && std::isalpha(static_cast<unsigned char>(s[0])); }
bool isSingleDigit(const std::string& s) { return s.size() == 1 && std::isdigit(static_cast<unsigned char>(s[0])); }

std::string lowercase(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<int> reversed(std::vector<int> v) {
  std::reverse(v.begin(), v.end());
  return v;
}

/// Non-wildcard matches of dihedral type `pattern` against `types`, -1 when it does not match.
int dihedralMatches(const std::vector<int>& pattern, const std::vector<int>& types) {
  int exact = 0;
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    if (pattern[k] == types[k]) {
      ++exact;
    } else if (pattern[k] != -1) {
      return -1;
    }
  }
  return exact;
}

/// nbfunc or comb-rule of [ defaults ]: a number, or one of grompp's names for it.
int defaultsSelector(const TopFields& f, std::size_t i, const std::vector<std::string>& names, const char* what) {
  const std::string value = lowercase(f[i]);
  for (std::size_t k = 0; k < names.size(); ++k)
    if (value == names[k]) return int(k) + 1;
  return int(f.integer(i, what));
}

}  // namespace

// ---- BondedTypeTable -------------------------------------------------------------------

void BondedTypeTable::add(const std::vector<int>& types, const std::vector<double>& params, bool block,
                          const TopLine& line, std::vector<std::string>& warnings) {
  if (block && pending_ && pendingBlock_ && pending_->types == types) {
    for (const auto& term : pending_->terms)
      if (term == params) {
        warnings.push_back(line.where() + ": the same dihedral type 9 line twice in one block; both apply as terms");
        break;
      }
    pending_->terms.push_back(params);
    return;
  }
  commit(warnings);
  pending_ = BondedTypeEntry{types, {params}, line.where()};
  pendingBlock_ = block;
  pendingLine_ = line;
  if (!block) commit(warnings);
}

void BondedTypeTable::finish(std::vector<std::string>& warnings) { commit(warnings); }

void BondedTypeTable::commit(std::vector<std::string>& warnings) {
  if (!pending_) return;
  BondedTypeEntry entry = std::move(*pending_);
  pending_.reset();
  for (BondedTypeEntry& old : entries_) {
    if (old.types != entry.types && old.types != reversed(entry.types)) continue;
    if (old.terms == entry.terms) return;  // an identical redefinition (charmm27.ff repeats some)
    if (pendingBlock_)
      throw pendingLine_.error("a second block of dihedral type 9 parameters for the same atom types as at " +
                               old.where + ", with other parameters or lines (not supported, as in grompp)");
    warnings.push_back(entry.where + ": bonded type redefined with other parameters (first defined at " + old.where +
                       "); the new ones are used");
    old.terms = entry.terms;
    return;
  }
  entries_.push_back(std::move(entry));
}

const BondedTypeEntry* BondedTypeTable::findExact(const std::vector<int>& types) const {
  const std::vector<int> back = reversed(types);
  for (const BondedTypeEntry& e : entries_)
    if (e.types == types || e.types == back) return &e;
  return nullptr;
}

const BondedTypeEntry* BondedTypeTable::findDihedral(const std::vector<int>& types) const {
  const std::vector<int> back = reversed(types);
  const BondedTypeEntry* best = nullptr;
  int bestMatches = -1;
  for (const BondedTypeEntry& e : entries_) {
    const int matches = std::max(dihedralMatches(e.types, types), dihedralMatches(e.types, back));
    if (matches > bestMatches) {
      best = &e;
      bestMatches = matches;
      if (matches == 4) break;
    }
  }
  return best;
}

// ---- TopForceField: definitions ---------------------------------------------------------

void TopForceField::setDefaults(const TopFields& f) {
  if (f.size() < 2) throw f.error("[ defaults ] needs at least nbfunc and comb-rule");
  defaults.nbfunc = defaultsSelector(f, 0, {"lennard-jones", "buckingham"}, "nbfunc");
  if (defaults.nbfunc == 2) throw f.error("nbfunc 2 (Buckingham) is not supported; only 1 (Lennard-Jones)");
  if (defaults.nbfunc != 1) throw f.error("nbfunc must be 1 (Lennard-Jones), got '" + f[0] + "'");
  defaults.combRule = defaultsSelector(f, 1, {"geometric", "arithmetic", "geomsigeps"}, "comb-rule");
  if (defaults.combRule < 1 || defaults.combRule > 3) throw f.error("comb-rule must be 1, 2 or 3, got '" + f[1] + "'");
  defaults.genPairs = f.size() > 2 && (f[2][0] == 'y' || f[2][0] == 'Y');
  defaults.fudgeLJ = f.size() > 3 ? f.number(3, "fudgeLJ") : 1.0;
  defaults.fudgeQQ = f.size() > 4 ? f.number(4, "fudgeQQ") : 1.0;
}

int TopForceField::addBondTypeName(const std::string& name) {
  const auto [it, added] = bondTypeIndex_.emplace(name, int(bondTypeNames_.size()));
  if (added) bondTypeNames_.push_back(name);
  return it->second;
}

void TopForceField::addAtomType(const TopFields& f, std::vector<std::string>& warnings) {
  if (f.size() < 6) throw f.error("[ atomtypes ] line too short: expected name, mass, charge, particle type, V, W");
  bool haveBondType = false, haveAtomicNumber = false;
  if (isSingleLetter(f[5])) {
    haveBondType = haveAtomicNumber = true;
  } else if (!isSingleLetter(f[3])) {
    haveAtomicNumber = f.isInteger(1);
    haveBondType = !haveAtomicNumber;
  }
  const std::size_t massField = 1 + (haveBondType ? 1 : 0) + (haveAtomicNumber ? 1 : 0);
  if (f.size() < massField + 5) throw f.error("[ atomtypes ] line too short: V and W missing");
  TopAtomType t;
  t.name = f[0];
  if (isSingleDigit(t.name)) throw f.error("atom type names can't be single digits");
  const std::string bondType = haveBondType ? f[1] : f[0];
  if (isSingleDigit(bondType)) throw f.error("bond type names can't be single digits");
  t.atomicNumber = haveAtomicNumber ? int(f.integer(massField - 1, "atomic number")) : 0;
  if (t.atomicNumber < 0) t.atomicNumber = 0;
  t.mass = f.number(massField, "mass");
  t.charge = f.number(massField + 1, "charge");
  const std::string particle = f[massField + 2];
  const char p = char(std::toupper(static_cast<unsigned char>(particle[0])));
  if (particle.size() != 1 || std::string("ANSBVD").find(p) == std::string::npos)
    throw f.error("invalid particle type '" + particle + "' (A, S, V, D, B or N)");
  t.particleType = p == 'D' ? 'V' : p;
  t.v = f.number(massField + 3, "V (c6 or sigma)");
  t.w = f.number(massField + 4, "W (c12 or epsilon)");
  checkLjParameters(defaults.combRule, t.w, f, "atom type " + t.name);
  t.bondType = addBondTypeName(bondType);
  t.where = f.line().where();
  const auto it = atomTypeIndex_.find(t.name);
  if (it != atomTypeIndex_.end()) {
    warnings.push_back(t.where + ": atom type " + t.name + " redefined (first defined at " +
                       atomTypes_[std::size_t(it->second)].where + "); the new definition is used");
    atomTypes_[std::size_t(it->second)] = t;
    return;
  }
  atomTypeIndex_.emplace(t.name, int(atomTypes_.size()));
  atomTypes_.push_back(t);
}

int TopForceField::bondTypeIndex(const std::string& name, const TopFields& f) const {
  const auto it = bondTypeIndex_.find(name);
  if (it == bondTypeIndex_.end()) throw f.error("unknown bond type '" + name + "' (no [ atomtypes ] line defines it)");
  return it->second;
}

void TopForceField::addBondedType(TopSection section, const TopFields& f, std::vector<std::string>& warnings) {
  const std::size_t atoms = section == TopSection::AngleTypes ? 3 : 2;
  const long type = f.integer(atoms, "function type");
  const auto function = topFunction(section, type);
  // A type of an unsupported function can serve only interactions of that function, and
  // those stop with an error where they appear: the line is not needed.
  if (!function) return;
  std::vector<int> types;
  for (std::size_t k = 0; k < atoms; ++k) types.push_back(bondTypeIndex(f[k], f));
  const std::vector<double> params = stateAParameters(f, atoms + 1, *function);
  if (params.size() != std::size_t(functionInfo(*function).parameters))
    throw f.error(std::string("missing parameters for a ") + functionInfo(*function).name);
  tables_[*function].add(types, params, false, f.line(), warnings);
}

void TopForceField::addDihedralType(const TopFields& f, std::vector<std::string>& warnings) {
  std::vector<std::string> names;
  std::size_t typeField = 0;
  if (f.size() >= 3 && isSingleDigit(f[2])) {
    // Two atom types: the outer ones of an improper (type 2), the middle ones otherwise.
    typeField = 2;
    names = f[2] == "2" ? std::vector<std::string>{f[0], "X", "X", f[1]} : std::vector<std::string>{"X", f[0], f[1], "X"};
  } else if (f.size() >= 5 && f.isInteger(4)) {
    typeField = 4;
    names = {f[0], f[1], f[2], f[3]};
  } else {
    throw f.error("[ dihedraltypes ] expects 2 or 4 atom types and then the function type");
  }
  const long type = f.integer(typeField, "function type");
  const auto function = topFunction(TopSection::DihedralTypes, type);
  if (!function) return;  // as in addBondedType
  std::vector<int> types;
  for (const std::string& name : names) types.push_back(name == "X" ? -1 : bondTypeIndex(name, f));
  const std::vector<double> params = stateAParameters(f, typeField + 1, *function);
  if (params.size() != std::size_t(functionInfo(*function).parameters))
    throw f.error(std::string("missing parameters for a ") + functionInfo(*function).name);
  tables_[*function].add(types, params, type == 9, f.line(), warnings);
}

void TopForceField::setPairValue(std::map<std::pair<int, int>, PairValue>& table, const TopFields& f, const char* what,
                                 std::vector<std::string>& warnings) {
  if (f.size() < 5) throw f.error(std::string(what) + " line too short: expected two atom types, function type, V, W");
  int index[2];
  for (int k = 0; k < 2; ++k) {
    index[k] = atomTypeIndex(f[std::size_t(k)]);
    if (index[k] < 0) throw f.error("unknown atom type '" + f[std::size_t(k)] + "'");
  }
  const std::vector<double> values = stateAParameters(f, 3, TopFunction::Pair);
  if (values.size() != 2) throw f.error(std::string(what) + " expects V and W");
  checkLjParameters(defaults.combRule, values[1], f, std::string(what) + " of " + f[0] + " and " + f[1]);
  const std::pair<int, int> key{std::min(index[0], index[1]), std::max(index[0], index[1])};
  const PairValue value{values[0], values[1], f.line().where()};
  const auto it = table.find(key);
  if (it != table.end() && (it->second.v != value.v || it->second.w != value.w))
    warnings.push_back(value.where + ": " + what + " for " + f[0] + " " + f[1] + " redefined (first defined at " +
                       it->second.where + "); the new values are used");
  table[key] = value;
}

void TopForceField::addPairType(const TopFields& f, std::vector<std::string>& warnings) {
  const long type = f.integer(2, "function type");
  if (!topFunction(TopSection::PairTypes, type))
    throw f.error("[ pairtypes ] function type " + f[2] + " is not supported (only 1)");
  setPairValue(pairTypes_, f, "[ pairtypes ]", warnings);
}

void TopForceField::addNonbondParam(const TopFields& f, std::vector<std::string>& warnings) {
  if (f.integer(2, "function type") != 1)
    throw f.error("[ nonbond_params ] function type " + f[2] + " is not supported (only 1, Lennard-Jones)");
  setPairValue(nonbondParams_, f, "[ nonbond_params ]", warnings);
}

void TopForceField::addCmapType(const TopFields& f) {
  if (f.size() < 8) throw f.error("[ cmaptypes ] expects 5 atom types, function type, grid size twice and the grid");
  if (f.integer(5, "function type") != 1) throw f.error("[ cmaptypes ] function type " + f[5] + " is not supported (only 1)");
  CmapTypeEntry c;
  for (std::size_t k = 0; k < 5; ++k) c.types[k] = bondTypeIndex(f[k], f);
  const long nx = f.integer(6, "grid size"), ny = f.integer(7, "grid size");
  if (nx != ny || nx < 1) throw f.error("CMAP grid must be square, got " + f[6] + " x " + f[7]);
  c.size = int(nx);
  c.energy = f.numbersFrom(8, "CMAP grid value");
  const std::size_t n = std::size_t(nx * nx);
  const bool stateB = c.energy.size() == 2 * n && std::equal(c.energy.begin(), c.energy.begin() + long(n),
                                                             c.energy.begin() + long(n));
  if (c.energy.size() == 2 * n && !stateB)
    throw f.error("free-energy B-state CMAP grids that differ from state A are not supported");
  if (c.energy.size() != n && !stateB)
    throw f.error("CMAP grid of " + f[6] + " x " + f[7] + " needs " + std::to_string(n) + " values, found " +
                  std::to_string(c.energy.size()));
  c.energy.resize(n);
  c.where = f.line().where();
  cmapTypes_.push_back(std::move(c));
}

void TopForceField::finish(std::vector<std::string>& warnings) {
  for (auto& [function, table] : tables_) table.finish(warnings);
}

// ---- TopForceField: lookups -------------------------------------------------------------

int TopForceField::atomTypeIndex(const std::string& name) const {
  const auto it = atomTypeIndex_.find(name);
  return it == atomTypeIndex_.end() ? -1 : it->second;
}

const BondedTypeTable* TopForceField::table(TopFunction function) const {
  const auto it = tables_.find(function);
  return it == tables_.end() ? nullptr : &it->second;
}

int TopForceField::findCmapType(const std::array<int, 5>& bondTypes) const {
  for (std::size_t k = 0; k < cmapTypes_.size(); ++k)
    if (cmapTypes_[k].types == bondTypes) return int(k);
  return -1;
}

std::pair<double, double> TopForceField::c6c12(double v, double w) const {
  if (defaults.combRule == 1) return {v, w};
  const double s6 = std::pow(std::fabs(v), 6);
  return {v >= 0 ? 4 * w * s6 : 0.0, 4 * w * s6 * s6};
}

std::pair<double, double> TopForceField::mixed(int ti, int tj) const {
  const TopAtomType &a = atomType(ti), &b = atomType(tj);
  if (defaults.combRule == 1) return {std::sqrt(a.v * b.v), std::sqrt(a.w * b.w)};
  // A negative sigma (c6 = 0) carries over to the mixed pair.
  double sigma = defaults.combRule == 2 ? 0.5 * (std::fabs(a.v) + std::fabs(b.v)) : std::sqrt(std::fabs(a.v * b.v));
  if (a.v < 0 || b.v < 0) sigma = -sigma;
  return {sigma, std::sqrt(a.w * b.w)};
}

std::pair<double, double> TopForceField::lj(int ti, int tj) const {
  const auto it = nonbondParams_.find({std::min(ti, tj), std::max(ti, tj)});
  if (it != nonbondParams_.end()) return c6c12(it->second.v, it->second.w);
  const auto [v, w] = mixed(ti, tj);
  return c6c12(v, w);
}

std::optional<std::pair<double, double>> TopForceField::pair14(int ti, int tj) const {
  const auto it = pairTypes_.find({std::min(ti, tj), std::max(ti, tj)});
  if (it != pairTypes_.end()) return c6c12(it->second.v, it->second.w);
  if (!defaults.genPairs) return std::nullopt;
  const auto [c6, c12] = lj(ti, tj);
  return std::pair<double, double>{defaults.fudgeLJ * c6, defaults.fudgeLJ * c12};
}

}  // namespace faraday
