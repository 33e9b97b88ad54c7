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

/// One large molecule (a protein: thousands of atoms) per block. The unwrapped coordinate of
/// scaleMolecule, u_k = x_k - L N_k with N_k = sum_{j <= k} nearbyint((x_j - x_{j-1}) / L), comes
/// from a block scan of the integer image counts (one chain of dependent reads per thread would
/// take milliseconds), and the centre of mass from a block reduction of per-thread sums, both in
/// a fixed order, so the move is the same bits in every run. Two passes over the atoms in tiles
/// of kBlock: the centre, then the writes (a tile's coordinates are all read before any is
/// written; the last original coordinate of a tile is carried to the next).
__global__ void __launch_bounds__(kBlock) scaleLargeMoleculesKernel(double4_32a* pos, const int* slotOfAtom,
                                                                    const int* starts, const double* mass,
                                                                    const int* large, BoxScalingParams p) {
  using Scan = cub::BlockScan<int, kBlock>;
  using Reduce = cub::BlockReduce<double, kBlock>;
  __shared__ typename Scan::TempStorage scanStorage;
  __shared__ typename Reduce::TempStorage reduceStorage;
  __shared__ double tile[kBlock];
  __shared__ double carriedX, shift;
  __shared__ int carriedImages;
  const int m = large[blockIdx.x], first = starts[m], count = starts[m + 1] - first;
  const int t = int(threadIdx.x);
  for (int c = 0; c < 3; ++c) {
    const double L = p.length[c];
    double weighted = 0, total = 0;
    for (int pass = 0; pass < 2; ++pass) {
      if (t == 0) carriedImages = 0;
      for (int base = 0; base < count; base += kBlock) {
        const int k = base + t;
        const bool in = k < count;
        const double xk = in ? component(pos[slotOfAtom[first + k]], c) : 0.0;
        tile[t] = xk;
        __syncthreads();
        const double previous = t > 0 ? tile[t - 1] : (base > 0 ? carriedX : xk);
        const int image = in && k > 0 ? int(nearbyint((xk - previous) / L)) : 0;
        int images = 0, tileImages = 0;
        Scan(scanStorage).InclusiveSum(image, images, tileImages);
        images += carriedImages;
        const double u = xk - L * double(images);
        __syncthreads();  // every read of tile[] and carriedImages is done
        if (t == kBlock - 1) carriedX = tile[kBlock - 1];
        if (t == 0) carriedImages += tileImages;
        if (in) {
          if (pass == 0) {
            weighted += mass[first + k] * u;
            total += mass[first + k];
          } else {
            component(pos[slotOfAtom[first + k]], c) = u + shift;
          }
        }
        __syncthreads();
      }
      if (pass == 0) {
        const double w = Reduce(reduceStorage).Sum(weighted);
        __syncthreads();
        const double mTotal = Reduce(reduceStorage).Sum(total);
        if (t == 0) shift = (p.factor[c] - 1.0) * (w / mTotal);
        __syncthreads();
      }
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
