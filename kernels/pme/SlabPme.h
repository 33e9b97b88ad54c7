#pragma once
// Smooth PME split over slabs of x planes, as several GPUs of one host are to run it
// (kernels/multigpu/NOTES.md): the reference, in double precision on one thread, that the
// split on the GPUs is tested against.
#include <utility>
#include <vector>

#include "core/Box.h"
#include "core/Vec3.h"
#include "kernels/pme/ReciprocalSolver.h"

namespace faraday {

/// The part [first, last) of `count` planes (or rows) that rank `rank` of `ranks` owns:
/// consecutive runs, the first count % ranks of them one longer.
std::pair<int, int> slabRange(int count, int ranks, int rank);

/// How the x planes are cut: into runs of whole planes (slabRange), or of whole bricks of
/// pme::kBrickEdge planes (the GPUs' cut: each GPU spreads whole bricks), the last brick
/// possibly shorter.
enum class SlabCut { planes, bricks };

/// The x planes [first, last) of rank `rank` of `ranks` under `cut`.
std::pair<int, int> slabPlanes(int kx, int ranks, int rank, SlabCut cut);

/// Whether the GPUs can split PME over `ranks` slabs: a brick of x planes and a y row per
/// rank, and x transforms by lines (K_x without a prime factor above 7).
bool slabSplitPossible(const PmeParams& params, int ranks);

/// Whether the split pays on several GPUs (run.pme_split = auto), from the grid alone: the
/// transposes cost a few launches and waits (~0.03-0.05 ms a step) whatever the grid, the
/// split saves (G - 1) / G of PME's grid work (~1 ms per 2e7 points on one H100). Measured
/// on 2 H200s: 19.7M points (1M ions) 1.50x with the split against 1.48x with PME on the
/// first GPU, 6.0M (1M waters) 1.58x; 2.5M (110,592 ions) 1.08x against 1.21x.
inline constexpr double kSlabSplitMinGridPoints = 4.0e6;
bool slabSplitPays(const PmeParams& params);

/// One GPU's buffers of a PME split over several GPUs, which its peers write into directly
/// (device pointers; peer access): its rows of the spectrum, its full spectrum, its signal
/// flags.
struct PmeSlabPeer {
  void* rows = nullptr;
  void* spectrum = nullptr;
  unsigned long long* flags = nullptr;
};

/// The reciprocal-space energy, virial and forces (added to `forces`) of smooth PME with
/// the grid split over `ranks` slabs of x planes. Every rank holds every position (the
/// replicated state), so it spreads every atom's charge into its own planes only and needs
/// no halos. Each rank transforms its (y, z) planes; an all-to-all gives each rank every x
/// of its m_y rows (its share of K_y); the x lines, the convolution (its energy and virial)
/// and the inverse x lines; the all-to-all back; the inverse planes. Each rank then gathers,
/// for every atom whose stencil reaches its planes, the force from those planes; the ranks'
/// forces and sums are added in rank order. Equal to CpuPme to rounding for any rank count
/// from 1 to K_x (slabs thinner than the spline order included). Throws Error on a bad
/// rank count or invalid parameters.
ReciprocalResult slabPme(const PmeParams& params, int ranks, const std::vector<Vec3>& positions,
                         const std::vector<double>& charges, const Box& box, std::vector<Vec3>& forces,
                         SlabCut cut = SlabCut::planes);

}  // namespace faraday
