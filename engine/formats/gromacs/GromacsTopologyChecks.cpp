// Checks of a read topology that the setup makes: the net charge, the atom names against
// the coordinates; and the position restraints' references from the coordinates.
#include <cmath>
#include <cstdio>
#include <map>

#include "engine/formats/TextParse.h"
#include "engine/formats/gromacs/GromacsTopology.h"

namespace faraday {

double GromacsTopology::netCharge() const {
  double q = 0;
  for (double c : charge) q += c;
  return q;
}

void checkNetCharge(const GromacsTopology& top, double tolerance) {
  const double q = top.netCharge();
  if (std::fabs(q - std::round(q)) <= tolerance) return;
  // Which molecule types carry the fraction: each type's charge once.
  std::map<std::string, double> perType;
  std::size_t first = 0;
  for (const GromacsMoleculeBlock& block : top.molecules) {
    double qm = 0;
    for (int a = 0; a < block.atomsPerMolecule; ++a) qm += top.charge[first + std::size_t(a)];
    if (std::fabs(qm - std::round(qm)) > tolerance) perType[block.name] = qm;
    first += std::size_t(block.atomsPerMolecule) * std::size_t(block.count);
  }
  // Charges to 6 decimals, as a topology writes them (sums carry rounding noise beyond that).
  const auto charge = [](double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6f", value);
    return std::string(text);
  };
  std::string list;
  for (const auto& [name, qm] : perType) list += (list.empty() ? "" : ", ") + name + " " + charge(qm) + " e";
  throw fileError(top.moleculesFile.empty() ? top.file.string() : top.moleculesFile, top.moleculesLine,
                  "net charge of the system is " + charge(q) + " e, more than " + formatNumber(tolerance) +
                      " e from an integer" + (list.empty() ? std::string() : " (non-integer molecule types: " + list + ")"));
}

std::string atomNameWarning(const GromacsTopology& top, const Coordinates& coordinates,
                            const std::string& coordinateFile, std::size_t listed) {
  std::size_t differing = 0;
  std::string examples;
  for (std::size_t i = 0; i < top.size() && i < coordinates.size(); ++i) {
    if (top.atomName[i] == coordinates.atomName[i]) continue;
    if (++differing <= listed)
      examples += (examples.empty() ? "" : "; ") + std::string("atom ") + std::to_string(i + 1) + " is " +
                  coordinates.atomName[i] + ", " + top.atomName[i] + " in the topology";
  }
  if (differing == 0) return "";
  return coordinateFile + ": " + std::to_string(differing) + " atom name(s) differ from " + top.file.string() + " (" +
         examples + (differing > listed ? "; ..." : "") + ")";
}

void fillPositionRestraintReferences(Topology& topology, const std::vector<Vec3>& positions) {
  for (PositionRestraint& r : topology.positionRestraints) r.ref = positions[std::size_t(r.i)];
}

}  // namespace faraday
