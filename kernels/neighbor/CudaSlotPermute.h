#pragma once
// The per-slot arrays put in the order of a new sort of the slots (the tile list's sort keys):
// the state follows its atoms into their new slots.
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

namespace faraday {

/// new[s] = old[newToOld[s]] for every per-slot array (the `...2` arrays are the targets);
/// slotOfAtom follows.
struct SlotPermutation {
  int n;
  const int* newToOld;
  const double4_32a *pos, *vel, *ref;
  const float4* posq;
  const int *atom, *type;
  const double* charge;
  double4_32a *pos2, *vel2, *ref2;
  float4* posq2;
  int *atom2, *type2;
  double* charge2;
  int* slotOfAtom;
};

/// Writes the targets of `p` and slotOfAtom, one thread per slot.
void launchPermuteSlots(cudaStream_t stream, const SlotPermutation& p);

}  // namespace faraday
#endif
