#include "engine/formats/gromacs/TopMolecule.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/Units.h"
#include "engine/formats/TextParse.h"

namespace faraday {
namespace {

constexpr double kDegToRad = units::kPi / 180.0;

/// Atom indices written on a line of `section` ([ settles ] names only the oxygen).
std::size_t atomsOnLine(TopSection section) {
  switch (section) {
    case TopSection::Angles: return 3;
    case TopSection::Dihedrals: return 4;
    case TopSection::Cmap: return 5;
    case TopSection::Settles:
    case TopSection::PositionRestraints: return 1;
    default: return 2;
  }
}

/// The directive whose types serve the interactions of `section`.
const char* typesSection(TopSection section) {
  switch (section) {
    case TopSection::Bonds: return "[ bondtypes ]";
    case TopSection::Angles: return "[ angletypes ]";
    case TopSection::Dihedrals: return "[ dihedraltypes ]";
    case TopSection::Constraints: return "[ constrainttypes ]";
    case TopSection::Pairs: return "[ pairtypes ]";
    case TopSection::Cmap: return "[ cmaptypes ]";
    default: return "any types directive";
  }
}

/// One interaction line: its atoms (0-based, in the molecule), function type and function.
struct Interaction {
  std::vector<int> atoms;
  long type = 1;
  TopFunction function = TopFunction::Bond;
};

Interaction parseInteraction(const TopMoleculeType& m, TopSection section, const TopFields& f) {
  const std::size_t n = atomsOnLine(section);
  if (f.size() < n) throw f.error(sectionName(section) + " expects " + std::to_string(n) + " atom index(es)");
  Interaction in;
  const long count = long(m.atoms.size());
  for (std::size_t k = 0; k < n; ++k) {
    const long a = f.integer(k, "atom index");
    if (a < 1 || a > count)
      throw f.error("atom index " + f[k] + " in " + sectionName(section) + " is beyond the " + std::to_string(count) +
                    " atoms of molecule type " + m.name);
    in.atoms.push_back(int(a - 1));
  }
  in.type = f.size() > n ? f.integer(n, "function type") : 1;
  const auto function = topFunction(section, in.type);
  if (!function)
    throw f.error(sectionName(section) + " function type " + std::to_string(in.type) + " is not supported");
  in.function = *function;
  if (in.function == TopFunction::Settle) {
    if (in.atoms[0] + 2 >= count)
      throw f.error("settle on atom " + f[0] + " needs atoms " + f[0] + " to " + std::to_string(in.atoms[0] + 3) +
                    ", beyond the " + std::to_string(count) + " atoms of molecule type " + m.name);
    in.atoms = {in.atoms[0], in.atoms[0] + 1, in.atoms[0] + 2};
  }
  for (std::size_t a = 0; a < in.atoms.size(); ++a)
    for (std::size_t b = a + 1; b < in.atoms.size(); ++b)
      if (in.atoms[a] == in.atoms[b]) throw f.error("atom " + std::to_string(in.atoms[a] + 1) + " twice in one interaction");
  return in;
}

/// "CT HC" (atom types) and "CT HC" (their bond types), for messages.
std::string typeNames(const TopMoleculeType& m, const TopForceField& ff, const Interaction& in, bool bondTypes) {
  std::string names;
  for (int a : in.atoms) {
    const TopAtomType& t = ff.atomType(m.atoms[std::size_t(a)].type);
    names += (names.empty() ? "" : " ") + (bondTypes ? ff.bondTypeName(t.bondType) : t.name);
  }
  return names;
}

bool usesDihedralLookup(TopFunction function) {
  return function == TopFunction::ProperDihedral || function == TopFunction::ImproperDihedral ||
         function == TopFunction::RbDihedral || function == TopFunction::PeriodicImproper;
}

/// The parameter sets of a bonded interaction: the line's, else its type's (every line of a
/// type-9 block for a proper dihedral).
std::vector<std::vector<double>> bondedParameters(const TopMoleculeType& m, const TopForceField& ff, TopSection section,
                                                  const TopFields& f, const Interaction& in) {
  const std::vector<double> given = stateAParameters(f, atomsOnLine(section) + 1, in.function);
  if (!given.empty() || functionInfo(in.function).parameters == 0) return {given};
  std::vector<int> types;
  for (int a : in.atoms) types.push_back(ff.atomType(m.atoms[std::size_t(a)].type).bondType);
  const BondedTypeTable* table = ff.table(in.function);
  const BondedTypeEntry* entry = nullptr;
  if (table) entry = usesDihedralLookup(in.function) ? table->findDihedral(types) : table->findExact(types);
  if (!entry)
    throw f.error(std::string("no parameters for this ") + functionInfo(in.function).name + " (" + sectionName(section) +
                  " type " + std::to_string(in.type) + ") between atom types " + typeNames(m, ff, in, false) +
                  " (bond types " + typeNames(m, ff, in, true) + "): none on the line and none in " +
                  typesSection(section));
  if (in.function == TopFunction::ProperDihedral) return entry->terms;
  return {entry->terms.front()};
}

bool allZero(const std::vector<double>& p) {
  return std::all_of(p.begin(), p.end(), [](double x) { return x == 0.0; });
}

/// A dihedral multiplicity: as grompp, within 0.01 of an integer, and at least -99 (AMBER
/// files have negative ones).
int multiplicity(double n, const TopFields& f) {
  const double rounded = std::round(n);
  if (std::fabs(n - rounded) > 0.01 || rounded < -99 || rounded > 99)
    throw f.error("dihedral multiplicity must be an integer from -99 to 99, got " + formatNumber(n));
  return int(rounded);
}

/// A new distance constraint a-b of `length` against those the molecule has: three constraints
/// on a triangle of atoms must obey the triangle inequality, or no positions satisfy them (the
/// solver would fail at the first step and blame the time step).
void checkConstraintTriangle(const Topology& t, int a, int b, double length, const TopFields& f) {
  if (!(length > 0)) throw f.error("constraint length must be > 0 nm, got " + formatNumber(length));
  const auto lengthOf = [&t](int x, int y) {
    for (const Constraint& c : t.constraints)
      if ((c.i == x && c.j == y) || (c.i == y && c.j == x)) return c.length;
    return -1.0;
  };
  for (const Constraint& c : t.constraints) {
    if (c.i != a && c.j != a) continue;
    const int k = c.i == a ? c.j : c.i;
    const double third = lengthOf(b, k);
    if (k == b || third < 0) continue;
    const double d[3] = {length, c.length, third};
    const double longest = std::max({d[0], d[1], d[2]});
    if (longest <= d[0] + d[1] + d[2] - longest) continue;
    throw f.error("the constraints of atoms " + std::to_string(a + 1) + ", " + std::to_string(b + 1) + " and " +
                  std::to_string(k + 1) + " (" + formatNumber(length) + ", " + formatNumber(c.length) + " and " +
                  formatNumber(third) + " nm) cannot all hold: the longest side of a triangle must not exceed the sum "
                  "of the other two");
  }
}

/// A rigid water's O-H and H-H distances must make a triangle: 0 < dHH <= 2 dOH.
void checkSettle(double dOH, double dHH, const TopFields& f) {
  if (!(dOH > 0) || !(dHH > 0) || dHH > 2 * dOH)
    throw f.error("[ settles ] distances d(O-H) = " + formatNumber(dOH) + " nm and d(H-H) = " + formatNumber(dHH) +
                  " nm make no water: both must be > 0 and d(H-H) at most 2 d(O-H)");
}

/// Adds the terms of a bonded interaction (everything but pairs and CMAP) to the molecule.
void addBonded(TopMoleculeType& m, const Interaction& in, const std::vector<double>& p, const TopFields& f) {
  Topology& t = m.topology;
  const auto& a = in.atoms;
  switch (in.function) {
    case TopFunction::Bond: t.bonds.push_back({a[0], a[1], p[0], p[1]}); break;
    case TopFunction::G96Bond: t.g96Bonds.push_back({a[0], a[1], p[0], p[1]}); break;
    case TopFunction::Morse: t.morseBonds.push_back({a[0], a[1], p[0], p[1], p[2]}); break;
    case TopFunction::CubicBond: t.cubicBonds.push_back({a[0], a[1], p[0], p[1], p[2]}); break;
    case TopFunction::Connection: break;
    case TopFunction::Angle:
      if (!allZero(p)) t.angles.push_back({a[0], a[1], a[2], p[0] * kDegToRad, p[1]});
      break;
    case TopFunction::G96Angle:
      if (!allZero(p)) t.g96Angles.push_back({a[0], a[1], a[2], p[0] * kDegToRad, p[1]});
      break;
    case TopFunction::UreyBradley:
      if (!allZero(p)) t.ureyBradleys.push_back({a[0], a[1], a[2], p[0] * kDegToRad, p[1], p[2], p[3]});
      break;
    case TopFunction::ProperDihedral:  // grompp drops periodic terms with k = 0
      if (p[1] != 0.0) t.properDihedrals.push_back({a[0], a[1], a[2], a[3], p[0] * kDegToRad, p[1], multiplicity(p[2], f)});
      break;
    case TopFunction::PeriodicImproper:
      if (p[1] != 0.0)
        t.periodicImpropers.push_back({a[0], a[1], a[2], a[3], p[0] * kDegToRad, p[1], multiplicity(p[2], f)});
      break;
    case TopFunction::ImproperDihedral:
      if (!allZero(p)) t.impropers.push_back({a[0], a[1], a[2], a[3], p[0] * kDegToRad, p[1]});
      break;
    case TopFunction::RbDihedral:
      if (!allZero(p)) t.rbDihedrals.push_back({a[0], a[1], a[2], a[3], {p[0], p[1], p[2], p[3], p[4], p[5]}});
      break;
    case TopFunction::FourierDihedral:
      if (!allZero(p))
        t.rbDihedrals.push_back({a[0], a[1], a[2], a[3],
                                 {p[1] + 0.5 * (p[0] + p[2]), 0.5 * (3 * p[2] - p[0]), 4 * p[3] - p[1], -2 * p[2],
                                  -4 * p[3], 0.0}});
      break;
    case TopFunction::Constraint:
    case TopFunction::ConstraintNoExclusion:
      checkConstraintTriangle(t, a[0], a[1], p[0], f);
      t.constraints.push_back({a[0], a[1], p[0]});
      break;
    case TopFunction::PositionRestraint: t.positionRestraints.push_back({a[0], Vec3{}, Vec3{p[0], p[1], p[2]}}); break;
    case TopFunction::Settle:
      checkSettle(p[0], p[1], f);
      t.settles.push_back({a[0], p[0], p[1]});
      break;
    default: throw f.error("internal: not a bonded function");
  }
  if (in.function == TopFunction::Bond || in.function == TopFunction::G96Bond || in.function == TopFunction::Morse ||
      in.function == TopFunction::CubicBond || in.function == TopFunction::Connection ||
      in.function == TopFunction::Constraint) {
    m.bondGraph.emplace_back(a[0], a[1]);
  } else if (in.function == TopFunction::Settle) {
    m.bondGraph.emplace_back(a[0], a[1]);
    m.bondGraph.emplace_back(a[0], a[2]);
    m.bondGraph.emplace_back(a[1], a[2]);
  }
}

/// [ pairs ] type 1: c6, c12 from the line (by the combination rule), else [ pairtypes ] or
/// generated; qq = fudgeQQ q_i q_j. Type 2: fudgeQQ, qi, qj, V, W, of which the line gives
/// none, fudgeQQ alone, or all.
void addPair(TopMoleculeType& m, const TopForceField& ff, const TopFields& f, const Interaction& in) {
  const TopAtom &ai = m.atoms[std::size_t(in.atoms[0])], &aj = m.atoms[std::size_t(in.atoms[1])];
  std::vector<double> p = f.numbersFrom(3, "pair parameter");
  double fudgeQQ = ff.defaults.fudgeQQ, qi = ai.charge, qj = aj.charge;
  if (in.function == TopFunction::PairQ && p.size() == 1) {
    fudgeQQ = p[0];
    p.clear();
  } else {
    p = stateAParameters(f, 3, in.function);
  }
  std::pair<double, double> c{0, 0};
  if (in.function == TopFunction::PairQ && p.size() == 5) {
    fudgeQQ = p[0];
    qi = p[1];
    qj = p[2];
    c = ff.c6c12(p[3], p[4]);
  } else if (in.function == TopFunction::Pair && p.size() == 2) {
    c = ff.c6c12(p[0], p[1]);
  } else {
    const auto found = ff.pair14(ai.type, aj.type);
    if (!found)
      throw f.error("no 1-4 parameters for atom types " + typeNames(m, ff, in, false) +
                    ": none on the line, none in [ pairtypes ], and gen-pairs is no");
    c = *found;
  }
  m.topology.pairs14.push_back({in.atoms[0], in.atoms[1], c.first, c.second, fudgeQQ * qi * qj});
}

void addCmap(TopMoleculeType& m, const TopForceField& ff, const TopFields& f, const Interaction& in) {
  if (f.size() > 6) throw f.error("[ cmap ] takes no parameters on the line (the grid comes from [ cmaptypes ])");
  std::array<int, 5> types;
  for (std::size_t k = 0; k < 5; ++k) types[k] = ff.atomType(m.atoms[std::size_t(in.atoms[k])].type).bondType;
  const int type = ff.findCmapType(types);
  if (type < 0)
    throw f.error("no [ cmaptypes ] entry for the bond types " + typeNames(m, ff, in, true) + " of this CMAP");
  const auto& a = in.atoms;
  m.topology.cmaps.push_back({a[0], a[1], a[2], a[3], a[4], type});
}

void addExclusionLine(TopMoleculeType& m, const TopFields& f) {
  const long count = long(m.atoms.size());
  std::vector<int> atoms;
  for (std::size_t k = 0; k < f.size(); ++k) {
    const long a = f.integer(k, "atom index");
    if (a < 1 || a > count)
      throw f.error("atom index " + f[k] + " in [ exclusions ] is beyond the " + std::to_string(count) +
                    " atoms of molecule type " + m.name);
    atoms.push_back(int(a - 1));
  }
  for (std::size_t k = 1; k < atoms.size(); ++k)
    if (atoms[k] != atoms[0]) m.exclusionLines.emplace_back(atoms[0], atoms[k]);
}

}  // namespace

void addTopAtom(TopMoleculeType& m, const TopFields& f, const TopForceField& ff) {
  if (f.size() < 6) throw f.error("[ atoms ] expects nr, type, resnr, residue, atom, cgnr [, charge, mass]");
  if (f.size() > 11) throw f.error("[ atoms ] line has more than 11 fields");
  const long nr = f.integer(0, "atom number");
  if (nr != long(m.atoms.size()) + 1)
    throw f.error("atoms must be numbered 1, 2, 3, ... in their molecule type: expected " +
                  std::to_string(m.atoms.size() + 1) + ", found " + f[0]);
  TopAtom atom;
  atom.type = ff.atomTypeIndex(f[1]);
  if (atom.type < 0) throw f.error("unknown atom type '" + f[1] + "'");
  const TopAtomType& type = ff.atomType(atom.type);
  if (type.particleType != 'A')
    throw f.error(std::string("particle type ") + type.particleType + " of atom type " + type.name +
                  " is not supported (only A: virtual sites, shells and the like are not)");
  char* end = nullptr;
  atom.residueNumber = int(std::strtol(f[2].c_str(), &end, 10));
  if (end == f[2].c_str()) throw f.error("expected a residue number, got '" + f[2] + "'");
  atom.residueName = f[3];
  atom.name = f[4];
  f.integer(5, "charge group");
  atom.charge = f.size() > 6 ? f.number(6, "charge") : type.charge;
  atom.mass = f.size() > 7 ? f.number(7, "mass") : type.mass;
  if (f.size() > 8) {
    // State B: the type, then its charge and mass unless given. It must equal state A.
    const int typeB = ff.atomTypeIndex(f[8]);
    if (typeB < 0) throw f.error("unknown atom type '" + f[8] + "'");
    const double chargeB = f.size() > 9 ? f.number(9, "charge B") : ff.atomType(typeB).charge;
    const double massB = f.size() > 10 ? f.number(10, "mass B") : ff.atomType(typeB).mass;
    if (typeB != atom.type || chargeB != atom.charge || massB != atom.mass)
      throw f.error("free-energy B states (type, charge or mass differing from state A) are not supported");
  }
  if (!(atom.mass > 0)) throw f.error("atom " + atom.name + " has mass " + formatNumber(atom.mass) + " amu (must be positive)");
  atom.where = f.line().where();
  m.atoms.push_back(std::move(atom));
}

void addTopInteraction(TopMoleculeType& m, TopSection section, const TopFields& f, const TopForceField& ff) {
  if (section == TopSection::Exclusions) {
    addExclusionLine(m, f);
    return;
  }
  const Interaction in = parseInteraction(m, section, f);
  if (in.function == TopFunction::Pair || in.function == TopFunction::PairQ) {
    addPair(m, ff, f, in);
  } else if (in.function == TopFunction::Cmap) {
    addCmap(m, ff, f, in);
  } else {
    for (const std::vector<double>& p : bondedParameters(m, ff, section, f, in)) addBonded(m, in, p, f);
  }
}

std::vector<std::pair<int, int>> excludedPairs(const TopMoleculeType& m) {
  const int n = int(m.atoms.size());
  std::vector<std::vector<int>> neighbors(std::size_t(n), std::vector<int>{});
  for (const auto& [a, b] : m.bondGraph) {
    neighbors[std::size_t(a)].push_back(b);
    neighbors[std::size_t(b)].push_back(a);
  }
  std::vector<std::pair<int, int>> pairs = m.exclusionLines;
  for (auto& [a, b] : pairs)
    if (a > b) std::swap(a, b);
  // Breadth-first from each atom, nrexcl bonds deep.
  std::vector<int> depth(std::size_t(n), -1);
  for (int start = 0; start < n; ++start) {
    std::vector<int> reached{start}, frontier{start};
    depth[std::size_t(start)] = 0;
    for (int d = 1; d <= m.nrexcl && !frontier.empty(); ++d) {
      std::vector<int> next;
      for (int a : frontier)
        for (int b : neighbors[std::size_t(a)])
          if (depth[std::size_t(b)] < 0) {
            depth[std::size_t(b)] = d;
            next.push_back(b);
            reached.push_back(b);
            if (b > start) pairs.emplace_back(start, b);
          }
      frontier = std::move(next);
    }
    for (int a : reached) depth[std::size_t(a)] = -1;
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

}  // namespace faraday
