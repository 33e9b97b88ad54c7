#pragma once
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "core/System.h"
#include "engine/config/Choices.h"

namespace faraday {

/// The validated, typed configuration of a run. Read from an INI file (sections become
/// dotted prefixes: [pme] order = 4 is the key pme.order) with command-line overrides
/// (--section.key=value) by loadConfig (LoadConfig.h); the keys, their conversion and help
/// are in ConfigKeys.cpp. Every field's unit is given in its comment; `faraday run --help`
/// prints each key with its default and unit. Paths are absolute after loading
/// (relative paths in a config file are resolved against the file's folder). Choices are
/// enums (Choices.h); KernelParams.h builds the typed parameters of the kernels,
/// integrators and backends from these sections.
struct Config {
  std::filesystem::path configFile;  ///< the file this was read from (empty: none)

  struct SystemSection {
    std::filesystem::path coordinates;  ///< system.coordinates: .gro or .pdb
    std::filesystem::path topology;     ///< system.topology: GROMACS .top ("" = [atom.NAME] sections)
    std::string defines;                ///< system.defines: the topology's defines, "-DFLEXIBLE -DPOSRES"
    /// system.constraints: none | h-bonds | all-bonds: which of the topology's bonds become
    /// distance constraints (its [constraints] and rigid [settles] waters always are)
    BondConstraints constraints = BondConstraints::None;
    double hydrogenMass = 0;            ///< system.hydrogen_mass, amu: hydrogen mass repartitioning (0 = none)
    double temperature = 300;           ///< system.temperature, K: Maxwell-Boltzmann velocities when the file has none
    unsigned long long velocitySeed = 1;  ///< system.velocity_seed
  } system;

  /// [atom.NAME] sections: mass (amu), charge (e), sigma (nm), epsilon (kJ/mol). Empty with
  /// system.topology, which gives every particle's parameters.
  std::vector<AtomType> atomTypes;

  struct NonbondedSection {
    NonbondedMode mode = NonbondedMode::Cutoff;  ///< nonbonded.mode: cutoff (periodic, pair list) | all-pairs (open, no cutoff)
    PairPotential potential = PairPotential::LjCoulomb;  ///< nonbonded.potential: lj-coulomb | gravity (all-pairs) | typed
    double typedRmin = 0.01;             ///< nonbonded.typed_rmin, nm: the typed force's r is clamped below it
    double cutoff = 1.0;                 ///< nonbonded.cutoff, nm (LJ and real-space Coulomb)
    double buffer = -1;                  ///< nonbonded.buffer, nm (pair-list skin); < 0: auto (pairListBuffer)
    bool ljShift = true;                 ///< nonbonded.lj_shift: potential-shift LJ at the cutoff
    CoulombModifier coulombModifier = CoulombModifier::PotentialShift;  ///< nonbonded.coulomb_modifier: potential-shift | none
    bool dispersionCorrection = false;   ///< nonbonded.dispersion_correction: long-range LJ energy/pressure
    bool allPairs() const { return mode == NonbondedMode::AllPairs; }
    bool typed() const { return potential == PairPotential::Typed; }
  } nonbonded;

  /// [gravity]: Plummer-softened gravity between all pairs (nonbonded.potential = gravity).
  struct GravitySection {
    double g = 1;          ///< gravity.g, kJ/mol nm / amu^2 (F = G m_i m_j / r^2)
    double softening = 0;  ///< gravity.softening, nm (> 0, required with gravity; 0: not set)
  } gravity;

  /// One [typed.A-B] section: the typed pair force's parameters for atom types A and B
  /// (TypedPairParams in kernels/nonbonded/PairEvaluators.h). The table is symmetric: A-B
  /// and B-A are the same entry.
  struct TypedPairSection {
    std::string a, b;  ///< atom type names ([atom.NAME])
    double c1 = 0;     ///< typed.A-B.c1, kJ/mol nm (U = c1 / r)
    double c2 = 0;     ///< typed.A-B.c2, nm (kJ/mol/nm^2)^(1/c3) (>= 0)
    double c3 = 0;     ///< typed.A-B.c3, exponent (> 2)
  };
  std::vector<TypedPairSection> typedPairs;

  /// [electrostatics]: the Ewald split and PME grid (chooseEwaldSetup, KernelParams.h, makes the
  /// run's EwaldSetup of them).
  struct ElectrostaticsSection {
    ElectrostaticsMethod method = ElectrostaticsMethod::Pme;  ///< electrostatics.method: pme | ewald | none
    double ewaldRtol = 1e-5;           ///< electrostatics.ewald_rtol: erfc(beta rc) = rtol
    double fourierSpacing = 0.12;      ///< electrostatics.fourier_spacing, nm (0 = auto: from ewald_rtol and pme_order)
    int pmeOrder = 4;                  ///< electrostatics.pme_order: 4..8
    std::array<int, 3> grid{0, 0, 0};  ///< electrostatics.grid: "NX NY NZ", 0 0 0 = from spacing
    double ewaldKspaceRtol = 0;        ///< electrostatics.ewald_kspace_rtol: plain Ewald k cut (0 = auto: converged)
    /// electrostatics.accept_force_error: run with an estimated PME force error beyond the bound
    /// (a warning instead of the error; checkPmeAccuracy, KernelParams.h)
    bool acceptForceError = false;
  } electrostatics;

  /// [integrator] (integratorParams, KernelParams.h, makes the integrators' parameters of it).
  struct IntegratorSection {
    IntegratorType type = IntegratorType::Verlet;  ///< integrator.type: verlet | langevin
    double dt = 0.002;            ///< integrator.dt, ps
    double temperature = 300;     ///< integrator.temperature, K (langevin; the barostat's)
    double friction = 1.0;        ///< integrator.friction, 1/ps (langevin)
    unsigned long long seed = 1;  ///< integrator.seed (langevin noise)
    /// integrator.constraint_tolerance: relative length error of the iterative constraint
    /// solves (integrators/NOTES.md: why 1e-6)
    double constraintTolerance = 1e-6;
  } integrator;

  /// [barostat]: isotropic Monte Carlo barostat (engine/run/Barostat.h) at integrator.temperature.
  struct BarostatSection {
    bool enabled = false;      ///< barostat.enabled; default: true with a [barostat] section or any barostat.* key
    double pressure = 1.0;     ///< barostat.pressure, bar
    long long interval = 25;   ///< barostat.interval, steps between trial volume moves
  } barostat;

  struct RunSection {
    long long steps = 1000;              ///< run.steps
    Platform platform = Platform::Auto;  ///< run.platform: auto | cpu | cuda
    int threads = 0;                     ///< run.threads: OpenMP threads for the CPU path (0 = all cores)
    std::string devices;                 ///< run.devices: "" (the first GPU), "2", "0,1,3" or "all"
    GpuSum gpuSum = GpuSum::Auto;        ///< run.gpu_sum: auto | nccl (the forces' sum of an MD run on several GPUs)
    PmeSplit pmeSplit = PmeSplit::Auto;  ///< run.pme_split: auto | slabs | slabs-nccl | first (PME of an MD run on several GPUs)
    UpdateSplit updateSplit = UpdateSplit::Auto;  ///< run.update_split: auto | on | off (each GPU of an MD run updates its own atoms)
    double progressInterval = 2.0;       ///< run.progress_interval, s between progress lines (0 = off)
  } run;

  struct OutputSection {
    std::filesystem::path directory = ".";   ///< output.directory (created if missing)
    std::string energyFile = "energy.csv";   ///< output.energy_file ("" = none)
    long long energyInterval = 100;          ///< output.energy_interval, steps
    std::string trajectoryFile = "traj.dcd"; ///< output.trajectory_file: .dcd or .xtc ("" = none)
    long long trajectoryInterval = 1000;     ///< output.trajectory_interval, steps
    double xtcPrecision = 1000;              ///< output.xtc_precision, 1/nm: XTC keeps round(x * precision)
    std::string finalCoordinates = "final.gro";  ///< output.final_coordinates ("" = none)
    std::string checkpointFile = "state.chk";    ///< output.checkpoint_file ("" = none)
    long long checkpointInterval = 10000;        ///< output.checkpoint_interval, steps
    std::string logFile = "run.log";             ///< output.log_file: the run log ("" = none)
    std::string forcesFile;                      ///< output.forces_file: .npy forces, kJ/mol/nm ("" = none)
  } output;

  struct RerunSection {
    std::string trajectory;                  ///< rerun.trajectory: DCD or XTC to evaluate ("" = system.coordinates)
    std::string energyFile = "rerun.csv";    ///< rerun.energy_file: energies per frame
  } rerun;

  struct MapSection {
    bool enabled = false;                ///< map.enabled; default: true when the file has a [map] section or map.* is set
    MapMethod method = MapMethod::Direct;  ///< map.method: direct | cutoff | pme | pmepot
    double ewaldFactor = 2.5;            ///< map.ewald_factor, 1/nm: beta of map.method = pmepot (VMD PMEpot's 0.25 /A)
    double spacing = 0.1;                ///< map.spacing, nm
    MapExtent extent = MapExtent::Box;   ///< map.extent: box | atoms (padded bounding box)
    double padding = 0.5;                ///< map.padding, nm (extent = atoms)
    double cutoff = 1.2;                 ///< map.cutoff, nm (method = cutoff)
    bool periodic = true;                ///< map.periodic: minimum image (direct)
    long long interval = 100;            ///< map.interval, steps between sampled frames
    std::string file = "potential.dx";   ///< map.file: .dx (OpenDX) or .mrc/.ccp4
    MapUnits units = MapUnits::KtPerE;   ///< map.units: kT/e | V | kJ/mol/e
    double temperature = 300;            ///< map.temperature, K (for kT/e); default: integrator.temperature with
                                         ///< langevin, else system.temperature
    std::string trajectory;              ///< map.trajectory: DCD or XTC to average (faraday map)
    std::string extentAtoms;             ///< map.extent_atoms: the atoms extent = atoms surrounds (a
                                         ///< selection; "": all but water and ions, all if that is none)
    std::filesystem::path index;         ///< map.index: .ndx file of the groups map selections name
  } map;

  /// Every key=value as finally used, in section order (for --dry-run and the run log).
  std::vector<std::pair<std::string, std::string>> effective;
  /// One line per key that was set but has no effect in the chosen mode (printed as warnings).
  std::vector<std::string> warnings;
};

}  // namespace faraday
