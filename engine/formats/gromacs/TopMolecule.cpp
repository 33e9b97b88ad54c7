#include "engine/formats/gromacs/TopMolecule.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>

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


/// Atom index `k` of a virtual-site line, 0-based, within the molecule type.
int siteAtom(const TopMoleculeType& m, TopSection section, const TopFields& f, std::size_t k) {
  const long count = long(m.atoms.size());
  const long a = f.integer(k, "atom index");
  if (a < 1 || a > count)
    throw f.error("atom index " + f[k] + " in " + sectionName(section) + " is beyond the " + std::to_string(count) +
                  " atoms of molecule type " + m.name + ": a virtual site is built from atoms of its own molecule");
  return int(a - 1);
}

VirtualSiteType siteType(TopFunction function) {
  switch (function) {
    case TopFunction::VirtualSite1: return VirtualSiteType::One;
    case TopFunction::VirtualSite2: return VirtualSiteType::Two;
    case TopFunction::VirtualSite2FD: return VirtualSiteType::TwoFD;
    case TopFunction::VirtualSite3: return VirtualSiteType::Three;
    case TopFunction::VirtualSite3FD: return VirtualSiteType::ThreeFD;
    case TopFunction::VirtualSite3FAD: return VirtualSiteType::ThreeFAD;
    case TopFunction::VirtualSite3OUT: return VirtualSiteType::ThreeOut;
    default: return VirtualSiteType::FourFDN;
  }
}

/// [ virtual_sitesn ]: site, function type (1 COG, 2 COM, 3 COW), then the atoms (COW: each
/// with its weight); the weights normalised as grompp's push_vsitesn does.
void readWeightedSite(const TopMoleculeType& m, const TopFields& f, TopVirtualSite& v) {
  const long type = f.size() > 1 ? f.integer(1, "function type") : 0;
  if (type < 1 || type > 3)
    throw f.error("[ virtual_sitesn ] function type " + (f.size() > 1 ? f[1] : std::string("(none)")) +
                  " is not supported (1: centre of geometry, 2: centre of mass, 3: centre of weights)");
  double total = 0;
  for (std::size_t k = 2; k < f.size(); ++k) {
    const int a = siteAtom(m, TopSection::VirtualSitesN, f, k);
    double w = 1;
    if (type == 2) w = m.atoms[std::size_t(a)].mass;
    if (type == 3) {
      if (k + 1 >= f.size()) throw f.error("no weight after constructing atom " + f[k] + " of a centre-of-weights site");
      w = f.number(++k, "weight");
      if (!(w >= 0)) throw f.error("negative weight " + f[k] + " of constructing atom " + f[k - 1]);
    }
    v.atoms.push_back(a);
    v.weights.push_back(w);
    total += w;
  }
  if (v.atoms.empty()) throw f.error("[ virtual_sitesn ] expects the site, the function type and its atoms");
  if (!(total > 0))
    throw f.error(std::string("the constructing atoms' total ") + (type == 2 ? "mass" : "weight") + " is zero");
  for (double& w : v.weights) w /= total;
  v.site.type = VirtualSiteType::Weighted;
}

/// A line of [ virtual_sites1 ] .. [ virtual_sitesn ]: the site, its constructing atoms, the
/// function type and (but for [ virtual_sitesn ]) its parameters.
void addVirtualSite(TopMoleculeType& m, TopSection section, const TopFields& f) {
  TopVirtualSite v;
  v.where = f.line().where();
  if (f.size() < 1) throw f.error(sectionName(section) + " expects the site and its constructing atoms");
  v.site.site = siteAtom(m, section, f, 0);
  if (section == TopSection::VirtualSitesN) {
    readWeightedSite(m, f, v);
  } else {
    const std::size_t n = std::size_t(section) - std::size_t(TopSection::VirtualSites1) + 2;  // site and atoms
    if (f.size() < n) throw f.error(sectionName(section) + " expects the site and " + std::to_string(n - 1) + " atom(s)");
    for (std::size_t k = 1; k < n; ++k) v.atoms.push_back(siteAtom(m, section, f, k));
    const long type = f.size() > n ? f.integer(n, "function type") : 1;
    const auto function = topFunction(section, type);
    if (!function)
      throw f.error(sectionName(section) + " function type " + std::to_string(type) + " is not supported" +
                    (section == TopSection::VirtualSites4 && type == 1
                         ? std::string(" (4fd is unstable for some geometries; type 2, 4fdn, replaces it)")
                         : std::string()));
    const TopFunctionInfo& info = functionInfo(*function);
    const std::vector<double> p = f.numbersFrom(n + 1, std::string(info.name) + " parameter");
    if (p.size() != std::size_t(info.parameters))
      throw f.error("expected " + std::to_string(info.parameters) + " parameters for a " + info.name + ", found " +
                    std::to_string(p.size()) +
                    (p.empty() ? " (grompp's parameters from the constraints and angles, as pdb2gmx -vsite writes "
                                 "them, are not supported: give them on the line)"
                               : ""));
    v.site.type = siteType(*function);
    for (std::size_t k = 0; k < p.size(); ++k) v.site.p[k] = p[k];
    if (v.site.type == VirtualSiteType::ThreeFAD) {  // theta (deg), d (nm) -> d cos theta, d sin theta
      v.site.p[0] = p[1] * std::cos(p[0] * kDegToRad);
      v.site.p[1] = p[1] * std::sin(p[0] * kDegToRad);
    }
    v.weights.assign(v.atoms.size(), 0.0);
  }
  for (std::size_t a = 0; a < v.atoms.size(); ++a) {
    if (v.atoms[a] == v.site.site)
      throw f.error("virtual site " + std::to_string(v.site.site + 1) + " is built from itself");
    for (std::size_t b = a + 1; b < v.atoms.size(); ++b)
      if (v.atoms[a] == v.atoms[b]) throw f.error("atom " + std::to_string(v.atoms[a] + 1) + " twice in one interaction");
  }
  for (const TopVirtualSite& other : m.virtualSites)
    if (other.site.site == v.site.site)
      throw f.error("atom " + std::to_string(v.site.site + 1) + " is a virtual site twice (first at " + other.where +
                    ")");
  v.site.count = int(v.atoms.size());
  m.virtualSites.push_back(std::move(v));
}

/// An Error at a site of a cycle of sites built from sites, if the molecule type has one.
void checkSiteCycles(const TopMoleculeType& m) {
  std::vector<int> siteOf(m.atoms.size(), -1);
  for (std::size_t k = 0; k < m.virtualSites.size(); ++k) siteOf[std::size_t(m.virtualSites[k].site.site)] = int(k);
  std::vector<int> state(m.virtualSites.size(), 0);  // 0 new, 1 on the path, 2 done
  // Depth first from each site through the sites it is built from (iterative: chains may be long).
  for (std::size_t start = 0; start < m.virtualSites.size(); ++start) {
    if (state[start] == 2) continue;
    std::vector<std::pair<int, std::size_t>> stack{{int(start), 0}};
    state[start] = 1;
    while (!stack.empty()) {
      auto& [k, next] = stack.back();
      const TopVirtualSite& v = m.virtualSites[std::size_t(k)];
      if (next < v.atoms.size()) {
        const int from = siteOf[std::size_t(v.atoms[next++])];
        if (from < 0) continue;
        if (state[std::size_t(from)] == 1) {
          std::string cycle;
          bool on = false;
          for (const auto& entry : stack) {
            on = on || entry.first == from;
            if (on) cycle += std::to_string(m.virtualSites[std::size_t(entry.first)].site.site + 1) + " -> ";
          }
          throw Error(v.where + ": virtual sites built from each other in a cycle (" + cycle +
                      std::to_string(m.virtualSites[std::size_t(from)].site.site + 1) + ") of molecule type " + m.name);
        }
        if (state[std::size_t(from)] == 0) {
          state[std::size_t(from)] = 1;
          stack.emplace_back(from, 0);
        }
        continue;
      }
      state[std::size_t(k)] = 2;
      stack.pop_back();
    }
  }
}

/// An Error at site v's line when a bonded term or constraint of the molecule type has it as
/// an atom: grompp removes some of those that the construction makes constant (the bonds and
/// angles pdb2gmx -vsite writes) and keeps others, which Faraday does not follow.
void checkNoBondedTermOnSites(const TopMoleculeType& m) {
  std::vector<int> siteOf(m.atoms.size(), -1);
  for (std::size_t k = 0; k < m.virtualSites.size(); ++k) siteOf[std::size_t(m.virtualSites[k].site.site)] = int(k);
  const auto check = [&](std::initializer_list<int> atoms, const char* what) {
    for (int a : atoms)
      if (siteOf[std::size_t(a)] >= 0)
        throw Error(m.virtualSites[std::size_t(siteOf[std::size_t(a)])].where + ": virtual site " +
                    std::to_string(a + 1) + " (" + m.atoms[std::size_t(a)].name + ") is an atom of a " + what +
                    " of molecule type " + m.name +
                    ": bonded terms and constraints on virtual sites are not supported (grompp drops those that the "
                    "construction makes constant)");
  };
  const Topology& t = m.topology;
  for (const HarmonicBond& b : t.bonds) check({b.i, b.j}, "harmonic bond");
  for (const G96Bond& b : t.g96Bonds) check({b.i, b.j}, "GROMOS-96 bond");
  for (const MorseBond& b : t.morseBonds) check({b.i, b.j}, "Morse bond");
  for (const CubicBond& b : t.cubicBonds) check({b.i, b.j}, "cubic bond");
  for (const HarmonicAngle& a : t.angles) check({a.i, a.j, a.k}, "harmonic angle");
  for (const G96Angle& a : t.g96Angles) check({a.i, a.j, a.k}, "GROMOS-96 angle");
  for (const UreyBradleyAngle& a : t.ureyBradleys) check({a.i, a.j, a.k}, "Urey-Bradley angle");
  for (const PeriodicTorsion& d : t.properDihedrals) check({d.i, d.j, d.k, d.l}, "proper dihedral");
  for (const PeriodicTorsion& d : t.periodicImpropers) check({d.i, d.j, d.k, d.l}, "periodic improper dihedral");
  for (const RbTorsion& d : t.rbDihedrals) check({d.i, d.j, d.k, d.l}, "Ryckaert-Bellemans dihedral");
  for (const HarmonicImproper& d : t.impropers) check({d.i, d.j, d.k, d.l}, "harmonic improper dihedral");
  for (const CmapTorsion& c : t.cmaps) check({c.i, c.j, c.k, c.l, c.m}, "CMAP");
  for (const Constraint& c : t.constraints) check({c.i, c.j}, "constraint");
  for (const Settle& w : t.settles) check({w.oxygen, w.oxygen + 1, w.oxygen + 2}, "settle");
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
  if (type.particleType != 'A' && type.particleType != 'V')
    throw f.error(std::string("particle type ") + type.particleType + " of atom type " + type.name +
                  " is not supported (only A, atoms, and V or D, virtual sites: shells are not)");
  atom.particleType = type.particleType;
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
  if (!std::isfinite(atom.mass) || atom.mass < 0)
    throw f.error("atom " + atom.name + " has mass " + formatNumber(atom.mass) + " amu (must be positive)");
  atom.where = f.line().where();  // a zero mass is a virtual site's: finishTopMoleculeType checks it
  m.atoms.push_back(std::move(atom));
}

void addTopInteraction(TopMoleculeType& m, TopSection section, const TopFields& f, const TopForceField& ff) {
  if (section == TopSection::Exclusions) {
    addExclusionLine(m, f);
    return;
  }
  if (section >= TopSection::VirtualSites1 && section <= TopSection::VirtualSitesN) {
    addVirtualSite(m, section, f);
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

void finishTopMoleculeType(TopMoleculeType& m) {
  if (m.finished) return;
  m.finished = true;
  std::vector<int> siteOf(m.atoms.size(), -1);
  for (std::size_t k = 0; k < m.virtualSites.size(); ++k) siteOf[std::size_t(m.virtualSites[k].site.site)] = int(k);
  for (std::size_t a = 0; a < m.atoms.size(); ++a) {
    const TopAtom& atom = m.atoms[a];
    const int k = siteOf[a];
    if (k >= 0 && atom.mass != 0)
      throw Error(m.virtualSites[std::size_t(k)].where + ": virtual site " + std::to_string(a + 1) + " (" + atom.name +
                  ") has mass " + formatNumber(atom.mass) + " amu (its [ atoms ] line at " + atom.where +
                  "): a virtual site has no mass");
    if (k < 0 && atom.particleType == 'V')
      throw Error(atom.where + ": atom " + atom.name + " is a virtual site (particle type V or D), but no " +
                  "[ virtual_sites ] line of molecule type " + m.name + " builds it");
    if (k < 0 && !(atom.mass > 0))
      throw Error(atom.where + ": atom " + atom.name + " has mass " + formatNumber(atom.mass) +
                  " amu (must be positive)");
  }
  checkSiteCycles(m);
  checkNoBondedTermOnSites(m);
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
