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
void launchScaleMolecules(cudaStream_t stream, double4_32a* pos, const int* slotOfAtom, const int* starts,
                          const double* mass, int molecules, const BoxScalingParams& params);

}  // namespace faraday
#endif
