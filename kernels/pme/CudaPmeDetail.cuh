#pragma once
// What the phase files of the GPU PME share (CudaPmeSpread.cu, CudaPmeConvolve.cu,
// CudaPmeGather.cu, and the host driver, CudaPmeSolver.cuh): the layouts of the bins, their entries
// and the energy sums, the block sizes, and a host-callable launch function per phase. A
// kernel is launched from the file that defines it (no relocatable device code); the
// templates over the spline order P are instantiated there for P = 4..8.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/pme/LineFft.h"
#include "kernels/pme/PmeGridGeometry.h"
#include "kernels/common/Launch.h"

namespace faraday::pme::gpu {

constexpr int kThreads = 128;       // per block, binning and spreading
constexpr int kReduceThreads = 256; // per block, convolution
constexpr int kMaxReduceBlocks = 1024;
constexpr unsigned kFullMask = 0xffffffffu;

/// Energy and virial partial sums: E, W_xx, W_yy, W_zz, W_xy, W_xz, W_yz (kJ/mol).
struct Sums7 {
  double v[7];
};
struct Sums7Add {
  __device__ Sums7 operator()(const Sums7& a, const Sums7& b) const {
    Sums7 r;
#pragma unroll
    for (int c = 0; c < 7; ++c) r.v[c] = a.v[c] + b.v[c];
    return r;
  }
};

/// What the convolution hands back: the seven sums, and the count of the fullest bin when
/// one overflowed its capacity (0 otherwise).
struct EvaluationSums {
  Sums7 sums;
  int binsNeeded;
};

/// The box-dependent constants of the convolution and the gather, in device memory so that
/// a captured graph stays valid when the box changes (the host rewrites them before a replay).
///
/// A reciprocal vector of indices (i, j, k) is m = i a* + j b* + k c*. In a rectangular box
/// that is (i/L_x, j/L_y, k/L_z), exp(-pi^2 m^2/beta^2) factors per dimension and the
/// factor tables hold it; in a triclinic one (the kernels' kTriclinic variants) the tables
/// hold the B-spline moduli only and the exponential is taken per point.
struct BoxTerms {
  float3 invLength;   ///< a*_x, b*_y, c*_z = 1/a_x, 1/b_y, 1/c_z (1/nm)
  float prefactor;    ///< k_C / (pi V) (kJ/mol nm)
  float piOverBeta2;  ///< pi^2 / beta^2 (nm^2)
  float3 scale;       ///< K_x a*_x, K_y b*_y, K_z c*_z (grid units per nm)
  float3 recipTilt;   ///< a*_y, a*_z, b*_z (1/nm; zero in a rectangular box)
  float3 scaleTilt;   ///< K_x a*_y, K_x a*_z, K_y b*_z (grid units per nm)
};

/// Blocks of perBlock threads for `threads` threads.

/// Where the bins live: nb bins per dimension (total of them), cap record slots per bin.
struct BinLayout {
  int nb[3];
  unsigned int total;
  int cap;
};

/// Entry slot of bin b, slot s.
__device__ __forceinline__ std::size_t binSlot(const BinLayout& bins, unsigned int b, int s) {
  return std::size_t(b) * std::size_t(bins.cap) + std::size_t(s);
}

/// What a bin slot holds for its atom, phase 1's output, in floats: the tag (atom index << 6
/// | the atom's cell inside the bin, (x, y, z) in 2 bits each; the int's bits), the B-spline
/// values q theta_x, theta_y, theta_z (P each), then the derivatives q dtheta_x, dtheta_y,
/// dtheta_z (P each); padded to whole 32-byte sectors (128 bytes at orders 4 and 5), so
/// that the binning writes whole sectors. The spreading reads the tag and the values, the
/// gather all of it. The charge is folded into the x factors.
/// Float4s of an entry at order P (whole sectors), for the kernels and the host.
constexpr int entryFloat4s(int P) { return (1 + 6 * P + 7) / 8 * 2; }
template <int P>
struct Entry {
  static constexpr int kValues = 1;          ///< first float of the values
  static constexpr int kDerivs = 1 + 3 * P;  ///< first float of the derivatives
  static constexpr int kFloat4s = entryFloat4s(P);
  static constexpr int kSpreadFloat4s = (kDerivs + 3) / 4;  ///< the tag and the values
  static constexpr int kGatherFloat4s = (1 + 6 * P + 3) / 4;
};

/// The floats of N float4s, in order.
template <int N>
__device__ __forceinline__ void unpackFloat4s(const float4 (&in)[N], float out[4 * N]) {
#pragma unroll
  for (int c = 0; c < N; ++c) {
    out[4 * c] = in[c].x;
    out[4 * c + 1] = in[c].y;
    out[4 * c + 2] = in[c].z;
    out[4 * c + 3] = in[c].w;
  }
}
constexpr int kTagBits = 6;
static_assert(pme::kBinEdge == 4, "tags hold the cell inside a bin in 2 bits per dimension");
__device__ __forceinline__ void tagCell(int tag, const int binOrigin[3], int cell[3]) {
  cell[0] = binOrigin[0] + ((tag >> 4) & 3);
  cell[1] = binOrigin[1] + ((tag >> 2) & 3);
  cell[2] = binOrigin[2] + (tag & 3);
}

constexpr int kBrickEdge = pme::kBrickEdge;

/// The brick of index `index` (spreading and gather: one block per brick, z fastest, x
/// slowest, so that a slab of x planes is a run of indices).
__device__ __forceinline__ void brickOfIndex(int3 nBricks, unsigned int index, int brick[3]) {
  const int rest = int(index / unsigned(nBricks.z));
  brick[2] = int(index - unsigned(rest) * unsigned(nBricks.z));
  brick[1] = rest % nBricks.y;
  brick[0] = rest / nBricks.y;
}

/// A row of the spreading's brick table (bins of a brick along one dimension, brickBins()):
/// the count, then the bins.
constexpr int kBrickTableEntry = 1 + pme::kMaxBrickBins;

constexpr int kLineThreads = 256;  ///< per block, the line transforms and convolution

// ---- The phases, launched on `stream` ------------------------------------------------

/// Phase 1 (CudaPmeSpread.cu): per atom its cell, B-spline values and derivatives, and its
/// entry in the bin of its cell; zero force for uncharged atoms. Only atoms whose stencil
/// reaches the x planes [slabFirst, slabLast) are binned (all: 0, K_x).
template <int P>
void launchBinning(int n, const std::uint32_t* fractions, const double* charges, GridDims g, BinLayout bins,
                   int* binCount, float4* entries, float* forces, int slabFirst, int slabLast, cudaStream_t stream);

/// Phase 2 (CudaPmeSpread.cu): every brick of the grid collects its charge from the bins.
/// Bricks firstBrick .. firstBrick + brickCount - 1 (all of them, or a slab's).
template <int P>
void launchSpreading(GridDims g, BinLayout bins, int3 nBricks, int firstBrick, int brickCount, const int* brickTable,
                     int tableRows, const int* binCount, const float4* entries, float* grid, cudaStream_t stream);

/// Phase 4 on the spectrum of a 3D transform (CudaPmeConvolve.cu): the influence function,
/// energy and virial partials of `blocks` blocks.
void launchConvolution(int blocks, GridDims g, float2* spectrum, const float* fx, const float* fy, const float* fz,
                       const BoxTerms* box, bool triclinic, Sums7* partials, cudaStream_t stream);

/// Split over GPUs with direct stores into the peers' memory (CudaPmeExchange.cu): every
/// rank's planes and rows, every rank's buffers (device pointers, valid on this GPU through
/// peer access), and this rank's signal counters. Each GPU's flags hold, per direction
/// (0: to rows, 1: back to planes) and per rank, the count of that rank's scatters that have
/// landed here.
constexpr int kMaxSlabRanks = 8;
struct SlabExchange {
  int me, ranks;
  int kx, ky, kh;
  int planeStart[kMaxSlabRanks + 1];  ///< rank p's x planes: [planeStart[p], planeStart[p + 1])
  int rowStart[kMaxSlabRanks + 1];    ///< rank p's y rows
  float2* rows[kMaxSlabRanks];        ///< rank p's rows: K_x x its rows x kh
  float2* spectrum[kMaxSlabRanks];    ///< rank p's full spectrum: K_x x K_y x kh
  unsigned long long* flags[kMaxSlabRanks];  ///< rank p's flags: [2][kMaxSlabRanks]
  unsigned long long* sent;           ///< this rank's scatters so far, per direction
  unsigned int* blocksDone;           ///< this rank's finished blocks of the running scatter, per direction
};

/// This GPU's rows of its planes into each peer's rows buffer, then a signal to each peer.
void launchScatterToRows(const SlabExchange& x, const float2* spectrum, cudaStream_t stream);
/// The peers' planes of this GPU's rows into each peer's spectrum, then a signal to each.
void launchScatterToPlanes(const SlabExchange& x, const float2* rows, cudaStream_t stream);
/// Waits until every peer's scatter of `direction` for this evaluation has landed here.
void launchWaitForPeers(const SlabExchange& x, int direction, cudaStream_t stream);

/// Split over GPUs: the planes [first, last) of this GPU, whose rows the line kernel reads
/// and writes in place in its full spectrum (K_x x K_y x (K_z / 2 + 1)); none on one GPU.
struct LineOwnPlanes {
  float2* spectrum;
  int first, last;
};

/// Phases 3b-5a by lines (CudaPmeConvolve.cu): x transform, convolution and inverse x
/// transform per tile of 2^logW m_z columns, after the (y, z) transforms; energy and virial
/// partials of yRows tilesZ blocks. `spectrum` holds the rows m_y = yFirst .. yFirst + yRows
/// - 1 of every m_x (K_x x yRows x (K_z / 2 + 1), x slowest): all of them on one GPU; on
/// several, but those of `own`'s planes, which are read and written there.
void launchLineConvolution(int logW, int tilesZ, int yFirst, int yRows, GridDims g, const pme::LinePassTable& passes,
                           float2* spectrum, LineOwnPlanes own,
                           const float2* twiddles, const float* fx, const float* fy, const float* fz,
                           const BoxTerms* box, bool triclinic, Sums7* partials, cudaStream_t stream);

/// The line kernel's static shared memory (bytes), the same for every tile width.
std::size_t lineConvolutionStaticShared();

/// Lets the line kernel of tile width 2^logW use `bytes` of dynamic shared memory.
void setLineConvolutionShared(int logW, int bytes);

/// Where the gather puts its forces: float triples in atom order, or (fixed non-null) added
/// to a 64-bit fixed-point buffer of x, y, z planes of `stride` by integer atomics.
struct ForceOut {
  float* forces;
  unsigned long long* fixed;
  std::size_t stride;
};

/// The x planes [first, last) of the potential grid that one GPU holds (all: 0, K_x), and
/// where the gather also stores the energy sums as fixed point (null: not at all).
struct GatherSlab {
  int first, last;
  unsigned long long* fixedSums;
};

/// Phase 6 (CudaPmeGather.cu): forces from the potential grid's planes of `slab`; block 0
/// first sums the convolution's partialCount energy and virial partials into `out`.
template <int P>
void launchGather(GridDims g, BinLayout bins, int3 nBricks, int* binCount, const float4* entries, const float* phi,
                  const BoxTerms* box, ForceOut forces, GatherSlab slab, const Sums7* partials, int partialCount,
                  int* binsNeeded, EvaluationSums* out, cudaStream_t stream);

}  // namespace faraday::pme::gpu
