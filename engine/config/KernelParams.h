#pragma once
// From the validated Config to the typed parameters the kernels, integrators and backends
// take, one struct per concept: the one place that turns the configuration's sections into
// them (the Ewald setup in EwaldParams.cpp). Errors here name the key; below, the kernels
// name their parameters.
#include "core/Box.h"
#include "engine/config/Config.h"
#include "engine/config/RunParams.h"
#include "integrators/IntegratorParams.h"
#include "kernels/dcs/Dcs.h"
#include "kernels/nbody/AllPairs.h"
#include "kernels/nonbonded/CpuNonbonded.h"
#include "kernels/pme/Electrostatics.h"

namespace faraday {

/// The Ewald setup of `section` with the real-space cutoff `cutoff` (nm) for `box`: beta from
/// ewald_rtol, the PME grid from fourier_spacing (or the explicit grid). Throws Error naming
/// electrostatics.grid for an explicit grid below pme_order, and with method pme naming
/// fourier_spacing (or grid) and the memory it would take for a PME grid beyond
/// kMaxPmeGridEdge or kMaxPmeGridPoints (plain Ewald then gets no grid).
EwaldSetup chooseEwaldSetup(const Config::ElectrostaticsSection& section, double cutoff, const Box& box);
/// The run's Ewald setup: [electrostatics] with nonbonded.cutoff as the real-space cutoff.
EwaldSetup chooseEwaldSetup(const Config& config, const Box& box);

/// The integrators' parameters: [integrator].
IntegratorParams integratorParams(const Config& config);

/// The largest estimated relative PME force error a run takes without being told to:
/// max(kPmeErrorRtolFactor ewald_rtol, kPmeErrorFloor). The floor lets the usual settings run
/// (order 4 at 0.12 nm with rtol 1e-5 estimates ~4e-3, as GROMACS' defaults do).
inline constexpr double kPmeErrorRtolFactor = 10;
inline constexpr double kPmeErrorFloor = 1e-2;

/// Checks the estimated relative PME force error (pmeForceErrorEstimate at the grid's largest
/// spacing in `box`) of `setup`, a PME setup for `what` ("the run's PME", "map.method = pme")
/// whose splitting parameter comes from `betaFrom` (the keys that set beta). Above the bound
/// it throws an Error naming the keys and the estimate, or with
/// electrostatics.accept_force_error returns that text as a warning; otherwise "". A setup
/// without a PME grid passes.
std::string checkPmeAccuracy(const Config& config, const EwaldSetup& setup, const Box& box, const std::string& what,
                             const std::string& betaFrom);

/// The short-range options: nonbonded.cutoff and lj_shift, the Ewald splitting parameter of
/// `ewald` (0 for method none), the typed pair table with nonbonded.potential = typed, and
/// `threads` OpenMP threads. Throws Error naming the key for a potential the cutoff mode
/// does not run (gravity).
NonbondedOptions nonbondedOptions(const Config& config, const System& system, const EwaldSetup& ewald, int threads);

/// nonbonded.buffer = auto on the CPU (nm): list builds are cheap next to the pair work there.
inline constexpr double kCpuPairListBuffer = 0.1;
/// nonbonded.buffer = auto on the GPU: the steps the fastest atoms take to cross half the buffer.
inline constexpr double kStepsPerGpuBuild = 10;

/// The pair-list buffer (nm) the run uses: nonbonded.buffer when set; for auto, 0.1 on the
/// CPU, and on the GPU (`gpu`), where a list build costs several passes of the tile kernel,
/// the smallest multiple of 0.05 nm (0.1 to 0.25, and no more than half the shortest box
/// edge less the cutoff) that the fastest atoms (4 sigma of the Maxwell speeds of the
/// lightest mass at the run's temperature) need kStepsPerGpuBuild steps to cross half of.
/// Without a temperature (velocities from a file and no system.temperature) auto is 0.1.
double pairListBuffer(const Config& config, const System& system, bool gpu);

/// The typed pair force's table over `system`'s atom types, from the [typed.A-B] sections and
/// nonbonded.typed_rmin. Throws Error naming the missing section when a pair of atom types
/// present in the system has none (pairs of types absent from the system get a placeholder).
TypedPairTable typedPairTable(const Config& config, const System& system);

/// What nonbonded.mode = all-pairs computes: gravity (gravity.g, gravity.softening) or the
/// typed pair force. Throws Error naming the key for another potential, a missing softening
/// or an integrator other than verlet (the one both all-pairs backends run).
AllPairsParams allPairsParams(const Config& config, const System& system);

/// The parameters of a cutoff-mode run of `system` on the CPU or, with `gpu`, on the GPU
/// (which picks its own pair-list buffer for auto and has no plain Ewald), checked once for
/// both backends by checkCutoffRun. Throws Error naming the key: nonbonded.mode = all-pairs
/// (the all-pairs backends run it), and the errors of the builders above.
CutoffRunParams cutoffRunParams(const Config& config, const System& system, bool gpu);
/// The checks of `params` against `box` that both cutoff backends rely on: a valid
/// rectangular box, the cutoff below half its shortest edge (nonbonded.cutoff) and, on the
/// GPU, a method it runs (electrostatics.method = ewald runs on the CPU only).
void checkCutoffRun(const CutoffRunParams& params, const Box& box, bool gpu);
/// The parameters of a cutoff-mode run on several GPUs: cutoffRunParams on the GPU and the
/// run.pme_split, run.gpu_sum and run.update_split choices.
MultiGpuRunParams multiGpuRunParams(const Config& config, const System& system);
/// The parameters of an all-pairs run (allPairsParams).
AllPairsRunParams allPairsRunParams(const Config& config, const System& system);

/// The potential map's options: [map] for `box`, with the map's Ewald setup `ewald`
/// (mapEwaldSetup, engine/maps/MapReporter.h; may be null unless map.method = pme or pmepot).
/// Throws Error naming the key: map.periodic (false with pme or pmepot, or without a valid
/// box), electrostatics.method (a pme map without Ewald electrostatics), nonbonded.cutoff and
/// map.cutoff (not below half the shortest box edge).
MapOptions mapOptions(const Config::MapSection& map, const Box& box, const EwaldSetup* ewald);
/// The map's lattice over `box` (map.extent = box) or over `positions` (atoms, padded by
/// map.padding); throws Error naming map.spacing for a lattice beyond the host's memory.
Lattice mapLattice(const Config::MapSection& map, const Box& box);
Lattice mapLattice(const Config::MapSection& map, const std::vector<Vec3>& positions);

}  // namespace faraday
