#pragma once
// All-pairs forces on the GPU by triangular warp tiles (AllPairs.h has the CPU reference).
// Bodies are taken in blocks of 32; a warp owns kIBlocks = 8 consecutive blocks as its i
// bodies (one per lane and block, in registers) against a run of at most 32 j blocks at or
// after them. In each 32 x (32 kIBlocks) tile the j bodies and their force sums rotate
// through the warp by shuffles, so every pair is met once; the pair force goes to i's
// registers and, negated, to j's (Newton's third law). Tiles that hold the diagonal, or a partial
// last block, mask the pairs with i >= j or beyond the last body.
// Forces leave in 64-bit fixed point through integer atomics: j's once per tile, i's once
// per run. The float sums of F_ij and of -F_ij round differently, so the warp sums what it
// adds (exactly, in integers) and takes the remainder off its first body: every run adds
// exactly zero, and the total force is exactly zero bit for bit.
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/common/DeviceAtoms.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/nbody/AllPairs.h"

namespace faraday {

/// The bodies and where the forces go.
struct AllPairsDeviceInput {
  int n = 0;
  const float4* body = nullptr;         ///< x, y, z (nm); w = mass (gravity, amu) or type index (typed)
  unsigned long long* force = nullptr;  ///< fixed point at `scale`, planes x, y, z of `stride`
  std::size_t stride = 0;
  double scale = 0;                     ///< fixed-point scale of `force` (allPairsForceScale)
  unsigned long long* energy = nullptr; ///< energy slot (fixed::kEnergyScale), or null: forces alone
};

/// The largest power of two that keeps every possible force on a body below 2^62 in fixed
/// point: softened gravity is bounded by G m_i M 2/(3 sqrt 3 eps^2) (the largest pair
/// force, at r = eps/sqrt 2, times the total mass), the typed force by N times its largest
/// pair force over r <= rmin and at the clamp. `mass` and `type` per body.
double allPairsForceScale(const AllPairsParams& params, const std::vector<double>& mass, const std::vector<int>& type);

/// The triangular tile kernel with its work table (built once for n bodies).
class CudaAllPairs {
 public:
  /// uniformMass > 0: every body has this mass (gravity), and the kernel leaves the masses
  /// out of the pair math (the bodies' w must still hold it).
  CudaAllPairs(int n, const AllPairsParams& params, double uniformMass = 0);
  /// Adds the forces (and the energy when input.energy is set) of every pair once.
  void enqueue(cudaStream_t stream, const AllPairsDeviceInput& input);
  int bodies() const { return n_; }
  /// Pairs evaluated per call (masked pairs of the diagonal tiles included).
  double pairsEvaluated() const;

 private:
  int n_;
  AllPairsParams params_;
  double uniformMass_ = 0;
  long long tiles_ = 0;               ///< tiles of the triangle (kIBlocks i blocks x 1 j block)
  int runBlocks_ = 0;                 ///< j blocks per warp run (at most)
  long long runs_ = 0;
  DeviceBuffer<long long> runStart_;  ///< first run of each row of i blocks (prefix sums)
  DeviceBuffer<float4> typedTable_;   ///< c1, c2, c3 per type pair (typed)
};

/// Threads per block of launchAllPairsVirial: it writes 9 partials per block.
inline constexpr int kAllPairsVirialThreads = 256;
/// Per-block sums of x_i (x) F_i (9 components, row-major; x_i relative to atoms.origin) into
/// `parts`: without periodic images the pair virial sum over pairs r_ij (x) F_ij equals the
/// sum over i of x_i (x) F_i. Summed over the blocks in order, the same sum every time.
void launchAllPairsVirial(cudaStream_t stream, const AllPairsAtoms& atoms, double* parts);

/// For `faraday bench nbody`: the one-sided all-pairs kernel in the style of the CUDA
/// samples (a thread per body, j bodies through shared memory, every ordered pair, float
/// accelerations; softened gravity). ms per call averaged over `repeats`.
double timeOneSidedGravity(const float4* body, int n, float softening2, float4* accel, int repeats);
/// ms per call of CudaAllPairs::enqueue (forces only) averaged over `repeats`.
double timeAllPairs(CudaAllPairs& kernel, const AllPairsDeviceInput& input, int repeats);

}  // namespace faraday
#endif
