#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/Box.h"
#include "core/Topology.h"
#include "core/Vec3.h"

namespace faraday {

/// An atom type: from the config's [atom.NAME] sections, or a topology's [atomtypes] (whose
/// charge and mass are then defaults; every particle's own are in System::charge and mass).
struct AtomType {
  std::string name;
  double mass = 0;     ///< amu
  double charge = 0;   ///< e
  double sigma = 0;    ///< nm (LJ)
  double epsilon = 0;  ///< kJ/mol (LJ)
};

/// What does not change during a run: particles, their types and parameters, the topology,
/// the box. Built once from the config, the coordinate file and the topology file (if any);
/// read-only afterwards.
struct System {
  std::vector<AtomType> types;
  std::vector<int> type;                  ///< per particle, index into types
  std::vector<double> charge;             ///< per particle, e
  std::vector<double> mass;               ///< per particle, amu
  std::vector<std::string> atomName;      ///< per particle, as in the coordinate file
  std::vector<std::string> residueName;   ///< per particle, for .gro/.pdb output
  std::vector<int> residueId;             ///< per particle
  Box box;                                ///< initial box (constant volume for now)
  Topology topology;                      ///< bonded terms, exclusions, molecules (empty for atoms)

  std::size_t size() const { return type.size(); }
  double netCharge() const {
    double q = 0;
    for (double c : charge) q += c;
    return q;
  }
  bool hasCharges() const {
    for (double c : charge)
      if (c != 0.0) return true;
    return false;
  }
};

/// Whether particle i is a hydrogen: by the topology's atomic number where it is known
/// (> 0), else by a mass below 1.5 amu or an atom name starting with H; a massless particle
/// (a virtual site) never is.
inline bool isHydrogen(const System& system, std::size_t i) {
  const std::vector<int>& z = system.topology.atomicNumber;
  if (i < z.size() && z[i] > 0) return z[i] == 1;
  if (system.mass[i] == 0) return false;
  return system.mass[i] < 1.5 || (i < system.atomName.size() && !system.atomName[i].empty() && system.atomName[i][0] == 'H');
}

/// What changes every step. Positions nm, velocities nm/ps, time ps.
struct State {
  std::vector<Vec3> positions;
  std::vector<Vec3> velocities;
  long long step = 0;
  double time = 0;
  Box box;
};

}  // namespace faraday
