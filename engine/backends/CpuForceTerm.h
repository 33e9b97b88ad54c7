#pragma once
// One force term of the CPU backend's evaluation, the twin of CudaForceTerm.cuh: the pair
// forces over the Verlet list, the reciprocal space, the bonded terms with the exclusion
// correction. A term adds its forces to the evaluation's and its energies and virial to its
// Energies, and times its own phases; the backend owns the state, the neighbor list and the
// term list (CpuBackend.cpp: one registration line per term).
#include <memory>
#include <vector>

#include "core/Box.h"
#include "core/Timers.h"
#include "core/Vec3.h"
#include "engine/backends/Backend.h"
#include "kernels/neighbor/NeighborList.h"

namespace faraday {

/// What a term reads in one evaluation.
struct CpuTermInput {
  const std::vector<Vec3>& positions;
  const Box& box;
  const NeighborList& list;
  Timers* timers;
};

class CpuForceTerm {
 public:
  virtual ~CpuForceTerm() = default;
  /// Adds the term's forces into `forces` (the first term of an evaluation writes them) and its
  /// energies and virial into `e`.
  virtual void compute(const CpuTermInput& in, std::vector<Vec3>& forces, Energies& e) = 0;
};

}  // namespace faraday
