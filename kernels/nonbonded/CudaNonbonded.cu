// The short-range tile kernel, in layers: one pair (PairEvaluators.h, shared with the CPU)
// -> one tile (a warp; lane l owns atom i = 32 I + l, the tile's j atoms rotate through the
// warp by shuffles, so every lane meets every j once; the pair's force goes to i's
// registers and, negated, to j's, which rotate with j) -> the kernel (one tile per warp) -> the host call.
// Forces leave a tile once per atom as 64-bit fixed point through integer atomics, so the
// totals do not depend on the order in which tiles run. Energies and virial (only when
// asked) are summed per lane and per tile in double and added as fixed point.
#include <algorithm>
#include <type_traits>

#include "core/Error.h"
#include "core/Units.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/FixedPoint.h"
#include "kernels/nonbonded/CudaNonbonded.h"
#include "kernels/nonbonded/EwaldExclusionPair.h"
#include "kernels/nonbonded/PairEvaluators.h"

namespace faraday {
namespace {

constexpr int kThreads = 256;
constexpr unsigned kFull = 0xffffffffu;

struct TileArgs {
  int n;
  int types;
  int capacity;
  const int* info;
  const int* lanes;
  const int* exclusionIndex;
  const std::uint32_t* masks;
  const float4* blockCenter;  ///< per block: bounding-box centre at the build (nm)
  const float4* blockHalf;    ///< per block: bounding-box half extents at the build (nm)
  TileCounters* counters;
  const float4* posq;  ///< wrapped x, y, z (nm) and k_C^(1/2) q
  const int* type;
  const float4* table;       ///< per type pair: c6, c12, shift (LJ) or c1, c2, c3, shift (typed)
  const float2* forceTable;  ///< per type pair: 6 c6, 12 c12 (LJ; the steps without energies)
  const TileBox* box;  ///< edges, their inverses and the one-image reach, in device memory
  float cutoff2, beta, coulombShift;
  float typedRmin2;  ///< nm^2 (typed force)
  EwaldForceConstants<float> ewald;
  unsigned long long* force;
  std::size_t stride;
  unsigned long long* sums;
  WorkShare share;  ///< the tiles this GPU computes (all on one GPU)
  TileGroupExclusions groups;  ///< the excluded pairs corrected here (null: none)
};

__device__ __forceinline__ void addFixed(unsigned long long* at, float v) {
  if (v != 0.f) atomicAdd(at, static_cast<unsigned long long>(__float2ll_rn(v * 4294967296.f)));
}

__device__ __forceinline__ double warpSum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFull, v, o);
  return v;
}

/// The shared-memory table entry of a kernel variant: the force-only LJ steps read 6 c6 and
/// 12 c12 (ljEwaldForceFast); energy steps and the typed force read the four-value entry.
template <bool kEnergy, bool kTyped>
using TableEntry = std::conditional_t<kEnergy || kTyped, float4, float2>;

/// One pair: LJ (p = c6, c12, shift) or the typed force (p = c1, c2, c3, shift), plus the
/// real-space Coulomb of qq = k_C q_i q_j; energies apart (the short-range term in `lj`).
template <bool kCoulomb, bool kTyped>
__device__ __forceinline__ PairResult2<float> shortRangePair(float r2, float4 p, float qq, float beta, float rmin2) {
  if constexpr (kTyped) {
    const PairResult<float> t = typedPair<float>(r2, TypedPairParams<float>{p.x, p.y, p.z}, rmin2);
    PairResult2<float> out{t.energy - p.w, 0.f, t.fOverR};
    if constexpr (kCoulomb) {
      const PairResult<float> c = ewaldRealPairFast<float>(r2, qq, beta);
      out.coulomb = c.energy;
      out.fOverR += c.fOverR;
    }
    return out;
  } else {
    return ljEwaldPairFast<float, kCoulomb>(r2, LjParams<float>{p.x, p.y, p.z}, qq, beta);
  }
}

/// A pair's force f/r along d = x_i - x_j: +f on i's sum, -f on j's, and (energy steps) its
/// virial d (x) f.
template <bool kEnergy>
__device__ __forceinline__ void addPairForce(float fOverR, float dx, float dy, float dz, float3& fi, float3& fj,
                                             double* w) {
  fi.x = fmaf(fOverR, dx, fi.x), fi.y = fmaf(fOverR, dy, fi.y), fi.z = fmaf(fOverR, dz, fi.z);
  fj.x = fmaf(-fOverR, dx, fj.x), fj.y = fmaf(-fOverR, dy, fj.y), fj.z = fmaf(-fOverR, dz, fj.z);
  if constexpr (kEnergy) {
    const float fx = fOverR * dx, fy = fOverR * dy, fz = fOverR * dz;
    w[0] += double(fx * dx), w[1] += double(fy * dy), w[2] += double(fz * dz);
    w[3] += double(fx * dy), w[4] += double(fx * dz), w[5] += double(fy * dz);
  }
}

/// The 32 pair-steps of one tile. kDiagonal: the tile pairs a block with itself, each pair
/// once. kMasks: the tile has exclusion bits (one more value rotates). kImage: displacements
/// by minimum image per pair; otherwise i and j were moved to the images nearest the block's
/// centre once per tile, which keeps every pair within the cutoff in one image (tile()), and
/// the pair needs no rounding to an image. Forces add by fused multiply-adds. With masks and
/// Coulomb, an excluded pair of one slot group (gi == gj >= 0; `groups`: gj rotates with j)
/// gets its exclusion correction whatever its distance.
template <bool kEnergy, bool kCoulomb, bool kTyped, bool kDiagonal, bool kMasks, bool kImage>
__device__ __forceinline__ void tilePairs(const TileArgs& a, const TableEntry<kEnergy, kTyped>* pairRow, bool iValid,
                                          float4 pi, float4 pj,
                                          int tj, std::uint32_t mj, int lane, float3& fi, float3& fj, double& eLj,
                                          double& eCoulomb, double* w, bool groups, int gi, int gj, double& eExcl) {
  const int next = (lane + 1) & 31;
  float3 L{}, invL{}, tilt{};
  if constexpr (kImage) L = a.box->length, invL = a.box->invLength, tilt = a.box->tilt;
#pragma unroll 4
  for (int k = 0; k < 32; ++k) {
    // One image per tile: an absent i or j sits far away (tile()), beyond any cutoff.
    bool pairOk = kImage ? iValid && tj >= 0 : true;
    // Diagonal tiles: pair (l, l + k) for k = 1..15, and for k = 16 the lower half only.
    if constexpr (kDiagonal) pairOk = pairOk && k > 0 && (k < 16 || (k == 16 && lane < 16));
    bool active = pairOk, excluded = false;
    if constexpr (kMasks) {
      excluded = ((mj >> lane) & 1u) != 0u;
      active = active && !excluded;
    }
    float dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
    if constexpr (kImage) {
      // c, then b, then a: the tilts (b_x, c_x, c_y) are zero in a rectangular box.
      const float sz = rintf(dz * invL.z);
      dx -= tilt.y * sz;
      dy -= tilt.z * sz;
      dz -= L.z * sz;
      const float sy = rintf(dy * invL.y);
      dx -= tilt.x * sy;
      dy -= L.y * sy;
      dx -= L.x * rintf(dx * invL.x);
    }
    const float r2 = dx * dx + dy * dy + dz * dz;
    if constexpr (!kEnergy && !kTyped && !kImage) {
      // Every pair-step evaluates the force and keeps it where the pair is in reach: some lane
      // of the warp almost always is, and without the branch the compiler overlaps the
      // steps (every j is a real atom or far away, so the force is finite; a select, never a
      // product, drops it).
      const float2 p = pairRow[tj];
      const float f = ljEwaldForceFast<float, kCoulomb>(r2, LjForceParams<float>{p.x, p.y}, pi.w * pj.w, a.ewald);
      addPairForce<false>(active && r2 < a.cutoff2 ? f : 0.f, dx, dy, dz, fi, fj, w);
    } else if (active && r2 < a.cutoff2) {
      const float qq = pi.w * pj.w;
      if constexpr (kEnergy || kTyped) {
        const PairResult2<float> r = shortRangePair<kCoulomb, kTyped>(r2, pairRow[tj], qq, a.beta, a.typedRmin2);
        if constexpr (kEnergy) {
          eLj += double(r.lj);
          if constexpr (kCoulomb) eCoulomb += double(r.coulomb) - double(qq) * double(a.coulombShift);
        }
        addPairForce<kEnergy>(r.fOverR, dx, dy, dz, fi, fj, w);
      } else {
        const float2 p = pairRow[tj];
        const float fOverR = ljEwaldForceFast<float, kCoulomb>(r2, LjForceParams<float>{p.x, p.y}, qq, a.ewald);
        addPairForce<false>(fOverR, dx, dy, dz, fi, fj, w);
      }
    }
    if constexpr (kMasks && kCoulomb) {
      if (pairOk && excluded && gi == gj && gi >= 0 && r2 > 0.f) {
        const PairResult<float> c = ewaldExclusionPair<float, kEnergy>(r2, pi.w * pj.w, a.beta);
        if constexpr (kEnergy) eExcl += double(c.energy);
        addPairForce<kEnergy>(c.fOverR, dx, dy, dz, fi, fj, w);
      }
      if (groups) gj = __shfl_sync(kFull, gj, next);
    }
    // j's data and force move one lane down: at step k lane l holds the j of lane l + k.
    pj.x = __shfl_sync(kFull, pj.x, next);
    pj.y = __shfl_sync(kFull, pj.y, next);
    pj.z = __shfl_sync(kFull, pj.z, next);
    pj.w = __shfl_sync(kFull, pj.w, next);
    tj = __shfl_sync(kFull, tj, next);
    if constexpr (kMasks) mj = __shfl_sync(kFull, mj, next);
    fj.x = __shfl_sync(kFull, fj.x, next);
    fj.y = __shfl_sync(kFull, fj.y, next);
    fj.z = __shfl_sync(kFull, fj.z, next);
  }
}

/// x moved by box vectors to the image whose offset from c lies in the brick |d_a| <= L_a/2:
/// by c, then b, then a (tilts b_x, c_x, c_y; zero in a rectangular box, where each dimension
/// moves by its own length alone).
__device__ __forceinline__ float4 imageNear(float4 x, float4 c, float3 L, float3 invL, float3 tilt) {
  const float sz = rintf((x.z - c.z) * invL.z);
  x.x -= tilt.y * sz;
  x.y -= tilt.z * sz;
  x.z -= L.z * sz;
  const float sy = rintf((x.y - c.y) * invL.y);
  x.x -= tilt.x * sy;
  x.y -= L.y * sy;
  x.x -= L.x * rintf((x.x - c.x) * invL.x);
  return x;
}

/// Atom k's force f added to the fixed-point force planes.
__device__ __forceinline__ void addAtomForce(const TileArgs& a, int k, float3 f) {
  addFixed(a.force + k, f.x);
  addFixed(a.force + a.stride + k, f.y);
  addFixed(a.force + 2 * a.stride + k, f.z);
}

/// The warp's energies and virial summed, lane c adding sum c (when non-zero) to the
/// fixed-point sums.
__device__ __forceinline__ void addTileSums(const TileArgs& a, int lane, double eLj, double eCoulomb,
                                            const double w[6], double eExcl) {
  const double s[kNonbondedSums] = {warpSum(eLj),  warpSum(eCoulomb), warpSum(w[0]), warpSum(w[1]), warpSum(w[2]),
                                    warpSum(w[3]), warpSum(w[4]),     warpSum(w[5]), warpSum(eExcl)};
  if (lane < kNonbondedSums) {
    double v = s[0];
#pragma unroll
    for (int c = 1; c < kNonbondedSums; ++c) v = lane == c ? s[c] : v;
    if (v != 0.0) atomicAdd(a.sums + lane, static_cast<unsigned long long>(fixed::energyToFixed(v)));
  }
}

/// One tile by one warp.
///
/// A block's atoms stay within its half extent h + buffer/2 of its build-time centre c (the
/// list is rebuilt before any atom moves further), and a partner j within the cutoff rc of
/// i lies within h + buffer/2 + rc of c. Where that is below L/2 in each dimension, the
/// images of i and j nearest c are the pair's minimum image: the tile moves every atom there
/// once instead of rounding every pair. A pair beyond the cutoff may then be measured in
/// another image, never closer than its minimum image, so it is still skipped.
template <bool kEnergy, bool kCoulomb, bool kExclusions, bool kTyped>
__device__ void tile(const TileArgs& a, const TableEntry<kEnergy, kTyped>* table, int t, int lane) {
  const int info = a.info[t];
  const int block = tileBlock(info);
  const bool diagonal = tileIsDiagonal(info);
  const int i = block * 32 + lane;
  const bool iValid = i < a.n;
  float4 pi = iValid ? a.posq[i] : make_float4(0.f, 0.f, 0.f, 0.f);
  const int ti = iValid ? a.type[i] : 0;
  const int j = a.lanes[std::size_t(t) * 32 + lane];
  const bool jOwn = j != kNoAtom;
  float4 pj = jOwn ? a.posq[j] : make_float4(0.f, 0.f, 0.f, 0.f);
  int tj = jOwn ? a.type[j] : -1;  // -1: an empty lane
  std::uint32_t mj = 0u;
  bool masks = false;
  if constexpr (kExclusions) {
    const int x = a.exclusionIndex[t];
    masks = x >= 0;
    mj = masks ? a.masks[std::size_t(x) * 32 + lane] : 0u;
  }
  const float4 h = a.blockHalf[block];
  const float3 reach = a.box->reach;
  const bool oneImage = h.x < reach.x && h.y < reach.y && h.z < reach.z;
  if (oneImage) {
    const float4 c = a.blockCenter[block];
    const float3 L = a.box->length, invL = a.box->invLength, tilt = a.box->tilt;
    pi = imageNear(pi, c, L, invL, tilt);
    pj = imageNear(pj, c, L, invL, tilt);
    // Absent atoms far from every other (r^2 ~ 1e12 nm^2: finite in float, never in reach), so
    // that the pair loop needs no check for them.
    if (!iValid) pi = make_float4(1e6f, 1e6f, 1e6f, 0.f);
    // Type 0 outside the diagonal tile: the pair step without a branch reads a table entry
    // for every lane. The diagonal tile rounds every pair to its minimum image, which would
    // bring an absent atom back into reach: there tj = -1 keeps marking it absent.
    if (!jOwn) pj = make_float4(-1e6f, -1e6f, -1e6f, 0.f), tj = diagonal ? -1 : 0;
  }
  // The groups of i and j, for the exclusion correction of masked tiles (distinct negative
  // values for absent atoms and where there are no groups).
  const bool groups = kExclusions && kCoulomb && masks && a.groups.groupOfAtom != nullptr;
  int gi = -1, gj = -2;
  if (groups) {
    if (iValid) gi = a.groups.groupOfAtom[a.groups.atomOfSlot[i]];
    if (jOwn) gj = a.groups.groupOfAtom[a.groups.atomOfSlot[j]];
  }
  float3 fi = make_float3(0.f, 0.f, 0.f), fj = make_float3(0.f, 0.f, 0.f);
  // Energies and virial (only in the energy variant) add up in double per lane: their sum
  // then does not depend on the tiles' composition beyond the pairs' own float rounding.
  double eLj = 0, eCoulomb = 0, eExcl = 0, w[6] = {0, 0, 0, 0, 0, 0};
  const TableEntry<kEnergy, kTyped>* pairRow = table + ti * a.types;
  // The branches are uniform over the warp (one tile, one block).
  const auto pairs = [&](auto diagonalTag, auto masksTag, auto imageTag) {
    tilePairs<kEnergy, kCoulomb, kTyped, decltype(diagonalTag)::value, decltype(masksTag)::value,
              decltype(imageTag)::value>(a, pairRow, iValid, pi, pj, tj, mj, lane, fi, fj, eLj, eCoulomb, w, groups,
                                         gi, gj, eExcl);
  };
  using Yes = std::true_type;
  using No = std::false_type;
  if (diagonal) {
    // One per block: the general form.
    pairs(Yes{}, Yes{}, Yes{});
  } else if (masks) {
    oneImage ? pairs(No{}, Yes{}, No{}) : pairs(No{}, Yes{}, Yes{});
  } else {
    oneImage ? pairs(No{}, No{}, No{}) : pairs(No{}, No{}, Yes{});
  }
  // After 32 moves every lane holds its own j again.
  if (iValid) addAtomForce(a, i, fi);
  if (jOwn) addAtomForce(a, j, fj);
  if constexpr (kEnergy) addTileSums(a, lane, eLj, eCoulomb, w, eExcl);
}

template <bool kEnergy, bool kCoulomb, bool kExclusions, bool kTyped>
__global__ void __launch_bounds__(kThreads) tileKernel(TileArgs a) {
  using Entry = TableEntry<kEnergy, kTyped>;
  extern __shared__ float4 shared[];
  Entry* table = reinterpret_cast<Entry*>(shared);
  const Entry* source;
  if constexpr (std::is_same_v<Entry, float4>) source = a.table;
  else source = a.forceTable;
  const TileCounters c = *a.counters;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    atomicMax(&a.counters->tilesNeeded, c.tiles);
    atomicMax(&a.counters->exclusionNeeded, c.exclusionTiles);
  }
  const int tiles = min(c.tiles, a.capacity);
  if (blockIdx.x * (kThreads / 32) >= tiles) return;  // the whole block: no tile of this list
  for (int k = threadIdx.x; k < a.types * a.types; k += blockDim.x) table[k] = source[k];
  __syncthreads();
  // The grid has a warp for every tile the storage holds (CudaNonbonded::enqueue).
  const int t = (blockIdx.x * kThreads + threadIdx.x) >> 5;
  if (t < tiles && a.share.ownsBlock(tileBlock(a.info[t])))
    tile<kEnergy, kCoulomb, kExclusions, kTyped>(a, table, t, threadIdx.x & 31);
}

using TileKernel = void (*)(TileArgs);
template <bool kExclusions, bool kTyped>
TileKernel kernelFor(bool energies, bool coulomb) {
  if (energies)
    return coulomb ? tileKernel<true, true, kExclusions, kTyped> : tileKernel<true, false, kExclusions, kTyped>;
  return coulomb ? tileKernel<false, true, kExclusions, kTyped> : tileKernel<false, false, kExclusions, kTyped>;
}
TileKernel kernelFor(bool energies, bool coulomb, bool exclusions, bool typed) {
  if (typed) return exclusions ? kernelFor<true, true>(energies, coulomb) : kernelFor<false, true>(energies, coulomb);
  return exclusions ? kernelFor<true, false>(energies, coulomb) : kernelFor<false, false>(energies, coulomb);
}

}  // namespace

CudaNonbonded::CudaNonbonded(const LjTable& table, const CudaNonbondedParams& params) : params_(params) {
  std::vector<float4> t(table.pairs.size());
  std::vector<float2> f(table.pairs.size());
  for (std::size_t k = 0; k < t.size(); ++k) {
    t[k] = make_float4(float(table.pairs[k].c6), float(table.pairs[k].c12), float(table.pairs[k].shift), 0.f);
    f[k] = make_float2(float(6 * table.pairs[k].c6), float(12 * table.pairs[k].c12));
  }
  forceTable_.upload(f);
  setUp(table.types, t);
}

CudaNonbonded::CudaNonbonded(const TypedPairTable& table, const CudaNonbondedParams& params)
    : params_(params), typed_(true), typedRmin2_(float(table.rmin * table.rmin)) {
  const std::vector<double> shift = typedPairShifts(table, params.cutoff);
  std::vector<float4> t(table.params.size());
  for (std::size_t k = 0; k < t.size(); ++k) {
    const TypedPairParams<double>& p = table.params[k];
    t[k] = make_float4(float(p.c1), float(p.c2), float(p.c3), float(shift[k]));
  }
  setUp(table.types, t);
}

void CudaNonbonded::setUp(int types, const std::vector<float4>& t) {
  types_ = types;
  if (types_ < 1 || types_ > kMaxTypes)
    throw Error("the CUDA short-range kernel takes 1 to " + std::to_string(kMaxTypes) + " atom types, not " +
                std::to_string(types_));
  table_.upload(t);
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

void CudaNonbonded::setBox(const Box& box, double buffer, cudaStream_t stream) {
  const Vec3 L = box.diagonal();
  // Rounded down by a few float ulps of L: the comparison is made in float.
  const double margin = params_.cutoff + 0.5 * buffer;
  const auto reachOf = [&](double length) { return float((0.5 * length - margin) * (1 - 1e-6) - 1e-6 * length); };
  boxTerms_.set(TileBox{make_float3(float(L.x), float(L.y), float(L.z)),
                        make_float3(float(1 / L.x), float(1 / L.y), float(1 / L.z)),
                        make_float3(float(box.b.x), float(box.c.x), float(box.c.y)),
                        make_float3(reachOf(L.x), reachOf(L.y), reachOf(L.z))},
                stream);
  boxBuffer_ = buffer;
  boxSet_ = true;
}

void CudaNonbonded::enqueue(cudaStream_t stream, bool energies, CudaTileList& list, const float4* posq,
                            const int* type, unsigned long long* force, std::size_t stride,
                            unsigned long long* sums, const WorkShare& share, const TileGroupExclusions& groups) const {
  if (!boxSet_ || boxBuffer_ != list.params().buffer)
    throw Error("CudaNonbonded: setBox() with the list's buffer before enqueue()");
  TileArgs a{list.atoms(),
             types_,
             list.tileCapacity(),
             list.tileInfo(),
             list.tileLanes(),
             list.tileExclusion(),
             list.exclusionMasks(),
             list.blockCenters(),
             list.blockHalfExtents(),
             list.counters(),
             posq,
             type,
             table_.data(),
             forceTable_.data(),
             boxTerms_.data(),
             float(params_.cutoff * params_.cutoff),
             float(params_.ewaldBeta),
             float(params_.coulombShift),
             typedRmin2_,
             EwaldForceConstants<float>::of(params_.ewaldBeta),
             force,
             stride,
             sums,
             share,
             params_.ewaldBeta > 0 ? groups : TileGroupExclusions{}};
  const std::size_t shared = std::size_t(types_) * types_ * (energies || typed_ ? sizeof(float4) : sizeof(float2));
  const bool coulomb = params_.ewaldBeta > 0;
  const auto kernel = kernelFor(energies, coulomb, list.hasExclusions(), typed_);
  // One tile per warp, blocks for the whole capacity (those past the count return at once):
  // short blocks let the PME stream's kernels, at a higher priority, take SMs as they retire.
  const long long blocks = std::max(1LL, (static_cast<long long>(list.tileCapacity()) + kThreads / 32 - 1) / (kThreads / 32));
  kernel<<<static_cast<unsigned>(blocks), kThreads, shared, stream>>>(a);
  FARADAY_CUDA_CHECK_LAUNCH("tileKernel");
}

}  // namespace faraday
