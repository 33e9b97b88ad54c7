#pragma once
#include <string>
#include <vector>

#include "engine/config/Config.h"
#include "core/System.h"

namespace faraday {

/// The System and the initial State of a run, built from the config and its coordinates.
struct Setup {
  System system;
  State state;
  std::string title;  ///< title of the coordinate file
  bool velocitiesFromFile = false;
  /// What the setup noticed but runs anyway (an [atom.NAME] section no atom uses), one line each.
  std::vector<std::string> warnings;
};

/// Reads config.system.coordinates and either maps each atom name to its [atom.NAME] type or
/// reads config.system.topology (GROMACS .top with config.system.defines: particles, charges,
/// masses, LJ table, bonded terms, exclusions; its net charge must be an integer), fills the
/// System and the initial State (velocities from the .gro when present, else
/// Maxwell-Boltzmann at system.temperature; virtual sites built from their atoms, at rest),
/// and checks the cutoff against the box (not in
/// nonbonded.mode = all-pairs, which has open boundaries) and, with the typed pair force, that
/// every pair of atom types in the system has its [typed.A-B] section. Throws Error naming
/// the file and line, the key or the section. An [atom.NAME] section that no atom uses gets
/// a line in Setup::warnings.
Setup buildSetup(const Config& config);

/// Checks that the cutoff (and cutoff + buffer) is shorter than half the shortest box edge.
void checkCutoffFitsBox(const Config& config, const Box& box);

/// Multi-line human-readable summary: atoms, types, box, density, charge.
std::string describeSystem(const System& system);

}  // namespace faraday
