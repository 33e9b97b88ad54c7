#pragma once
// The typed parameters a backend takes, one struct per concept, grouped by the kind of run.
// KernelParams.h builds them from the configuration and checks them once (cutoffRunParams,
// allPairsRunParams); the backends read no configuration key.
#include "engine/config/Choices.h"
#include "integrators/IntegratorParams.h"
#include "kernels/nbody/AllPairs.h"
#include "kernels/nonbonded/CpuNonbonded.h"
#include "kernels/pme/Electrostatics.h"

namespace faraday {

/// An MD run in a periodic box with a cutoff (CpuBackend, CudaBackend).
struct CutoffRunParams {
  int threads = 0;                    ///< OpenMP threads of the CPU work (0 = all cores)
  IntegratorParams integrator;        ///< the integrator and its constraints' tolerance
  EwaldSetup ewald;                   ///< long-range electrostatics (method none: none)
  NonbondedOptions nonbonded;         ///< the short-range pair force: cutoff, shifts, Ewald beta, typed table
  double buffer = 0.1;                ///< pair-list buffer beyond the cutoff, nm
  bool bufferChosen = false;          ///< the buffer was chosen by the engine (auto), not given
  bool dispersionCorrection = false;  ///< long-range LJ energy and pressure correction
};

/// A cutoff-mode run shared by several GPUs of one host (the CUDA multi-GPU backend): each
/// GPU's backend takes `run`; the splits say how the GPUs share PME, the forces' sum and the
/// update.
struct MultiGpuRunParams {
  CutoffRunParams run;
  PmeSplit pmeSplit = PmeSplit::Auto;
  GpuSum gpuSum = GpuSum::Auto;
  UpdateSplit updateSplit = UpdateSplit::Auto;
};

/// A run of every pair in open space (AllPairsCpuBackend, the CUDA all-pairs backend).
struct AllPairsRunParams {
  int threads = 0;  ///< OpenMP threads of the CPU work (0 = all cores)
  IntegratorParams integrator;
  AllPairsParams pairs;
};

}  // namespace faraday
