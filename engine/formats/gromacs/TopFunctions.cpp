#include "engine/formats/gromacs/TopFunctions.h"

#include <map>

namespace faraday {
namespace {

const std::map<std::string, TopSection>& sectionsByName() {
  static const std::map<std::string, TopSection> sections{
      {"defaults", TopSection::Defaults},
      {"atomtypes", TopSection::AtomTypes},
      {"bondtypes", TopSection::BondTypes},
      {"constrainttypes", TopSection::ConstraintTypes},
      {"pairtypes", TopSection::PairTypes},
      {"angletypes", TopSection::AngleTypes},
      {"dihedraltypes", TopSection::DihedralTypes},
      {"nonbond_params", TopSection::NonbondParams},
      {"implicit_genborn_params", TopSection::ImplicitGenbornParams},
      {"implicit_surface_params", TopSection::ImplicitSurfaceParams},
      {"cmaptypes", TopSection::CmapTypes},
      {"moleculetype", TopSection::MoleculeType},
      {"atoms", TopSection::Atoms},
      {"bonds", TopSection::Bonds},
      {"pairs", TopSection::Pairs},
      {"angles", TopSection::Angles},
      {"dihedrals", TopSection::Dihedrals},
      {"exclusions", TopSection::Exclusions},
      {"constraints", TopSection::Constraints},
      {"settles", TopSection::Settles},
      {"position_restraints", TopSection::PositionRestraints},
      {"cmap", TopSection::Cmap},
      {"virtual_sites1", TopSection::VirtualSites1},
      {"virtual_sites2", TopSection::VirtualSites2},
      {"virtual_sites3", TopSection::VirtualSites3},
      {"virtual_sites4", TopSection::VirtualSites4},
      {"virtual_sitesn", TopSection::VirtualSitesN},
      {"dummies1", TopSection::VirtualSites1},  // grompp's old names of the same directives
      {"dummies2", TopSection::VirtualSites2},
      {"dummies3", TopSection::VirtualSites3},
      {"dummies4", TopSection::VirtualSites4},
      {"dummiesn", TopSection::VirtualSitesN},
      {"system", TopSection::System},
      {"molecules", TopSection::Molecules},
      // GROMACS directives Faraday does not read: an error where they appear.
      {"pairs_nb", TopSection::Unsupported},
      {"polarization", TopSection::Unsupported},
      {"water_polarization", TopSection::Unsupported},
      {"thole_polarization", TopSection::Unsupported},
      {"angle_restraints", TopSection::Unsupported},
      {"angle_restraints_z", TopSection::Unsupported},
      {"distance_restraints", TopSection::Unsupported},
      {"orientation_restraints", TopSection::Unsupported},
      {"dihedral_restraints", TopSection::Unsupported},
      {"intermolecular_interactions", TopSection::Unsupported},
  };
  return sections;
}

}  // namespace

TopSection topSection(const std::string& name) {
  const auto& sections = sectionsByName();
  const auto it = sections.find(name);
  return it == sections.end() ? TopSection::Unknown : it->second;
}

std::string sectionName(TopSection section) {
  for (const auto& [name, s] : sectionsByName())
    if (s == section && name.rfind("dummies", 0) != 0) return "[ " + name + " ]";
  return "[ ? ]";
}

bool isParameterSection(TopSection section) {
  return section >= TopSection::Defaults && section <= TopSection::CmapTypes;
}

bool isMoleculeSection(TopSection section) {
  return section >= TopSection::Bonds && section <= TopSection::VirtualSitesN;
}

const TopFunctionInfo& functionInfo(TopFunction function) {
  static const std::map<TopFunction, TopFunctionInfo> infos{
      {TopFunction::Bond, {2, 2, 2, "harmonic bond"}},
      {TopFunction::G96Bond, {2, 2, 2, "GROMOS-96 bond"}},
      {TopFunction::Morse, {2, 3, 3, "Morse bond"}},
      {TopFunction::CubicBond, {2, 3, 0, "cubic bond"}},
      {TopFunction::Connection, {2, 0, 0, "connection"}},
      {TopFunction::Angle, {3, 2, 2, "harmonic angle"}},
      {TopFunction::G96Angle, {3, 2, 2, "GROMOS-96 angle"}},
      {TopFunction::UreyBradley, {3, 4, 4, "Urey-Bradley angle"}},
      {TopFunction::ProperDihedral, {4, 3, 3, "proper dihedral"}},
      {TopFunction::ImproperDihedral, {4, 2, 2, "harmonic improper dihedral"}},
      {TopFunction::RbDihedral, {4, 6, 6, "Ryckaert-Bellemans dihedral"}},
      {TopFunction::PeriodicImproper, {4, 3, 3, "periodic improper dihedral"}},
      {TopFunction::FourierDihedral, {4, 4, 4, "Fourier dihedral"}},
      {TopFunction::Constraint, {2, 1, 1, "constraint"}},
      {TopFunction::ConstraintNoExclusion, {2, 1, 1, "constraint without exclusion"}},
      {TopFunction::Pair, {2, 2, 2, "LJ-14 pair"}},
      {TopFunction::PairQ, {2, 5, 0, "LJ-14 pair with charges"}},
      {TopFunction::PositionRestraint, {1, 3, 3, "position restraint"}},
      {TopFunction::Settle, {1, 2, 0, "settle"}},
      {TopFunction::Cmap, {5, 0, 0, "CMAP"}},
      {TopFunction::VirtualSite1, {2, 0, 0, "virtual site 1"}},
      {TopFunction::VirtualSite2, {3, 1, 0, "virtual site 2"}},
      {TopFunction::VirtualSite2FD, {3, 1, 0, "virtual site 2fd"}},
      {TopFunction::VirtualSite3, {4, 2, 0, "virtual site 3"}},
      {TopFunction::VirtualSite3FD, {4, 2, 0, "virtual site 3fd"}},
      {TopFunction::VirtualSite3FAD, {4, 2, 0, "virtual site 3fad"}},
      {TopFunction::VirtualSite3OUT, {4, 3, 0, "virtual site 3out"}},
      {TopFunction::VirtualSite4FDN, {5, 3, 0, "virtual site 4fdn"}},
  };
  return infos.at(function);
}

std::optional<TopFunction> topFunction(TopSection section, long type) {
  switch (section) {
    case TopSection::Bonds:
    case TopSection::BondTypes:
      if (type == 1) return TopFunction::Bond;
      if (type == 2) return TopFunction::G96Bond;
      if (type == 3) return TopFunction::Morse;
      if (type == 4) return TopFunction::CubicBond;
      if (type == 5) return TopFunction::Connection;
      return std::nullopt;
    case TopSection::Angles:
    case TopSection::AngleTypes:
      if (type == 1) return TopFunction::Angle;
      if (type == 2) return TopFunction::G96Angle;
      if (type == 5) return TopFunction::UreyBradley;
      return std::nullopt;
    case TopSection::Dihedrals:
    case TopSection::DihedralTypes:
      if (type == 1 || type == 9) return TopFunction::ProperDihedral;
      if (type == 2) return TopFunction::ImproperDihedral;
      if (type == 3) return TopFunction::RbDihedral;
      if (type == 4) return TopFunction::PeriodicImproper;
      if (type == 5) return TopFunction::FourierDihedral;
      return std::nullopt;
    case TopSection::Constraints:
    case TopSection::ConstraintTypes:
      if (type == 1) return TopFunction::Constraint;
      if (type == 2) return TopFunction::ConstraintNoExclusion;
      return std::nullopt;
    case TopSection::Pairs:
      if (type == 1) return TopFunction::Pair;
      if (type == 2) return TopFunction::PairQ;
      return std::nullopt;
    case TopSection::PairTypes:  // grompp reads [ pairtypes ] 1 and 2 alike as LJ-14 types
      if (type == 1 || type == 2) return TopFunction::Pair;
      return std::nullopt;
    case TopSection::PositionRestraints:
      if (type == 1) return TopFunction::PositionRestraint;
      return std::nullopt;
    case TopSection::Settles:
      if (type == 1) return TopFunction::Settle;
      return std::nullopt;
    case TopSection::Cmap:
    case TopSection::CmapTypes:
      if (type == 1) return TopFunction::Cmap;
      return std::nullopt;
    case TopSection::VirtualSites1:
      if (type == 1) return TopFunction::VirtualSite1;
      return std::nullopt;
    case TopSection::VirtualSites2:
      if (type == 1) return TopFunction::VirtualSite2;
      if (type == 2) return TopFunction::VirtualSite2FD;
      return std::nullopt;
    case TopSection::VirtualSites3:
      if (type == 1) return TopFunction::VirtualSite3;
      if (type == 2) return TopFunction::VirtualSite3FD;
      if (type == 3) return TopFunction::VirtualSite3FAD;
      if (type == 4) return TopFunction::VirtualSite3OUT;
      return std::nullopt;
    case TopSection::VirtualSites4:  // type 1 (4fd) is unstable for some geometries: GROMACS recommends 4fdn
      if (type == 2) return TopFunction::VirtualSite4FDN;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::vector<double> stateAParameters(const TopFields& f, std::size_t first, TopFunction function) {
  const TopFunctionInfo& info = functionInfo(function);
  std::vector<double> values = f.numbersFrom(first, std::string(info.name) + " parameter");
  const std::size_t a = std::size_t(info.parameters), b = std::size_t(info.parametersB);
  if (values.empty() || values.size() == a) return values;
  if (b > 0 && values.size() == a + b) {
    for (std::size_t k = 0; k < b; ++k)
      if (values[a + k] != values[k])
        throw f.error(std::string("free-energy B-state parameters that differ from state A are not supported (") +
                      info.name + ")");
    values.resize(a);
    return values;
  }
  throw f.error("expected " + std::to_string(a) + (b > 0 ? " (or " + std::to_string(a + b) + ")" : std::string()) +
                " parameters for a " + info.name + ", found " + std::to_string(values.size()));
}

}  // namespace faraday
