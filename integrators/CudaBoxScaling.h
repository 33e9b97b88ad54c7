#pragma once
// The barostat's molecule scaling on the device (BoxScaling.h), over the slot-ordered
// positions of the CUDA backend. CUDA builds only.
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include "integrators/BoxScaling.h"

namespace faraday {

/// One thread per molecule: the atoms first .. first + count - 1 of molecule m (starts[m],
/// starts[m + 1]; input order) are read and written at pos[slotOfAtom[atom]] (x, y, z in nm;
/// w kept), moved by scaleMolecule with masses `mass` (amu, input order).
/// Molecules of at least this many atoms are moved by a block each (a block scan of the
/// unwrapping), smaller ones by a thread each.
constexpr int kLargeMolecule = 64;

/// Moves every molecule of `starts` (moleculeStarts, input order) by scaleMolecule; `pos` per
/// slot (slotOfAtom), `mass` per particle. `large`: the `largeCount` molecules of at least
/// kLargeMolecule atoms.
void launchScaleMolecules(cudaStream_t stream, double4_32a* pos, const int* slotOfAtom, const int* starts,
                          const double* mass, int molecules, const int* large, int largeCount,
                          const BoxScalingParams& params);

}  // namespace faraday
#endif
