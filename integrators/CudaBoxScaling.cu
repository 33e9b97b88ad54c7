#include "integrators/CudaBoxScaling.h"

#include <cub/cub.cuh>

#include "kernels/common/CudaCheck.h"
#include "kernels/common/Launch.h"

namespace faraday {
namespace {

constexpr int kThreads = 128;
constexpr int kBlock = 128;  ///< threads of a large molecule's block

__device__ double& component(double4_32a& v, int c) { return c == 0 ? v.x : (c == 1 ? v.y : v.z); }

/// Small molecules, one thread each (scaleMolecule, as the CPU); large ones are skipped here.
__global__ void scaleMoleculesKernel(double4_32a* pos, const int* slotOfAtom, const int* starts, const double* mass,
                                     int molecules, BoxScalingParams params) {
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= molecules) return;
  const int first = starts[m], count = starts[m + 1] - first;
  if (count >= kLargeMolecule) return;
  scaleMolecule(
      count, params, [&](int k, int c) { return component(pos[slotOfAtom[first + k]], c); },
      [&](int k, int c, double v) { component(pos[slotOfAtom[first + k]], c) = v; },
      [&](int k) { return mass[first + k]; });
}

/// One large molecule (a protein: thousands of atoms) per block. The unwrapped coordinates of
/// scaleMolecule, u_k = x_k - (N_a a + N_b b + N_c c)_k with N = the sums over j <= k of the
/// lattice counts of x_j - x_{j-1} (imageCounts), come from block scans of the integer counts
/// (one chain of dependent reads per thread would take milliseconds), and the centre of mass
/// from block reductions of per-thread sums, all in a fixed order, so the move is the same bits
/// in every run. Two passes over the atoms in tiles of kBlock: the centre, then the writes (a
/// tile's coordinates are all read before any is written; the last original coordinates of a
/// tile are carried to the next).
__global__ void __launch_bounds__(kBlock) scaleLargeMoleculesKernel(double4_32a* pos, const int* slotOfAtom,
                                                                    const int* starts, const double* mass,
                                                                    const int* large, BoxScalingParams p) {
  using Scan = cub::BlockScan<int, kBlock>;
  using Reduce = cub::BlockReduce<double, kBlock>;
  __shared__ typename Scan::TempStorage scanStorage;
  __shared__ typename Reduce::TempStorage reduceStorage;
  __shared__ double tile[3][kBlock];
  __shared__ double carriedX[3], shift[3];
  __shared__ int carriedImages[3];
  const int m = large[blockIdx.x], first = starts[m], count = starts[m + 1] - first;
  const int t = int(threadIdx.x);
  double weighted[3] = {0, 0, 0}, total = 0;
  for (int pass = 0; pass < 2; ++pass) {
    if (t == 0) carriedImages[0] = carriedImages[1] = carriedImages[2] = 0;
    for (int base = 0; base < count; base += kBlock) {
      const int k = base + t;
      const bool in = k < count;
      double xk[3];
      for (int c = 0; c < 3; ++c) {
        xk[c] = in ? component(pos[slotOfAtom[first + k]], c) : 0.0;
        tile[c][t] = xk[c];
      }
      __syncthreads();
      double previous[3], n[3] = {0, 0, 0};
      for (int c = 0; c < 3; ++c) previous[c] = t > 0 ? tile[c][t - 1] : (base > 0 ? carriedX[c] : xk[c]);
      if (in && k > 0) imageCounts(xk[0] - previous[0], xk[1] - previous[1], xk[2] - previous[2], p, n);
      double images[3];
      int tileImages[3];
      for (int c = 0; c < 3; ++c) {
        int sum = 0;
        Scan(scanStorage).InclusiveSum(int(n[c]), sum, tileImages[c]);
        __syncthreads();  // scanStorage is used again
        images[c] = double(sum + carriedImages[c]);
      }
      double u[3];
      for (int c = 0; c < 3; ++c) u[c] = shifted(xk[c], c, images, p);
      __syncthreads();  // every read of tile[] and carriedImages is done
      if (t == kBlock - 1)
        for (int c = 0; c < 3; ++c) carriedX[c] = tile[c][kBlock - 1];
      if (t == 0)
        for (int c = 0; c < 3; ++c) carriedImages[c] += tileImages[c];
      if (in) {
        if (pass == 0) {
          for (int c = 0; c < 3; ++c) weighted[c] += mass[first + k] * u[c];
          total += mass[first + k];
        } else {
          for (int c = 0; c < 3; ++c) component(pos[slotOfAtom[first + k]], c) = u[c] + shift[c];
        }
      }
      __syncthreads();
    }
    if (pass == 0) {
      const double mTotal = Reduce(reduceStorage).Sum(total);
      __syncthreads();
      for (int c = 0; c < 3; ++c) {
        const double w = Reduce(reduceStorage).Sum(weighted[c]);
        __syncthreads();
        if (t == 0) shift[c] = (p.factor[c] - 1.0) * (w / mTotal);
      }
      __syncthreads();
    }
  }
}

}  // namespace

void launchScaleMolecules(cudaStream_t stream, double4_32a* pos, const int* slotOfAtom, const int* starts,
                          const double* mass, int molecules, const int* large, int largeCount,
                          const BoxScalingParams& params) {
  if (molecules < 1) return;
  scaleMoleculesKernel<<<blocksFor(molecules, kThreads), kThreads, 0, stream>>>(pos, slotOfAtom, starts, mass,
                                                                                 molecules, params);
  FARADAY_CUDA_CHECK_LAUNCH("scaleMoleculesKernel");
  if (largeCount < 1) return;
  scaleLargeMoleculesKernel<<<largeCount, kBlock, 0, stream>>>(pos, slotOfAtom, starts, mass, large, params);
  FARADAY_CUDA_CHECK_LAUNCH("scaleLargeMoleculesKernel");
}

}  // namespace faraday
