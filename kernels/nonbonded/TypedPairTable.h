#pragma once
// The typed pair force's parameters for every pair of atom types, as the cutoff pair loops
// (CpuNonbonded, CudaNonbonded) and the all-pairs loops (AllPairs, CudaAllPairs) read them.
#include <cstddef>
#include <vector>

#include "kernels/nonbonded/PairEvaluators.h"

namespace faraday {

/// Parameters of the typed pair force for every pair of atom types: a symmetric
/// types x types table (params[a * types + b] == params[b * types + a]).
struct TypedPairTable {
  int types = 0;
  std::vector<TypedPairParams<double>> params;
  double rmin = 0.01;  ///< nm: distances below it are clamped (the force stays finite)
  const TypedPairParams<double>& at(int a, int b) const { return params[std::size_t(a) * types + b]; }
};

}  // namespace faraday
