// The triangular all-pairs kernel, in layers: one pair (a potential: softened gravity or
// the typed force) -> one tile (32 j bodies rotating through the warp, kIBlocks i bodies
// per lane) -> one run (a warp, its i bodies against a run of j blocks, the exact-zero
// remainder) -> the kernel (a warp per run) -> the host calls. See CudaAllPairs.h.
#include "kernels/nbody/CudaAllPairs.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/Error.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/common/FixedPoint.h"

namespace faraday {
namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kIBlocks = 8;       ///< i blocks of 32 per warp: 8 pairs per lane per j rotation
constexpr int kWarpsPerCta = 4;
constexpr int kMaxTypes = 16;     ///< typed table in shared memory: kMaxTypes^2 entries

/// Plummer-softened gravity (softenedGravityPair's formula), w = mass. d = x_j - x_i; the
/// force on i is G m_i (m_j s^-3) d, on j -G m_j (m_i s^-3) d: the per-pair factors leave out
/// G and the body's own mass. s^-1 and s^-3 from softenedInverse with the hardware reciprocal
/// square root with denormals flushed (rsqrtf() without -ftz adds a range test and two
/// scalings per call, 3 of the ~20 instructions of a pair; s^2 >= eps^2 is far from denormal).
/// kUniform (every mass equal): the factors are s^-3 alone and G m^2 multiplies the sums,
/// two multiplications fewer per pair.
template <bool kUniform>
struct Gravity {
  float eps2;
  template <bool kMasked, bool kEnergy>
  __device__ __forceinline__ void pair(float dx, float dy, float dz, float wi, float wj, bool valid, float& si,
                                       float& sj, float& e) const {
    const float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
    const SoftenedInverse<float> s = softenedInverse<float, true>(r2);
    float inv3 = s.inv3;
    if (kMasked && !valid) inv3 = 0.f;
    sj = kUniform ? inv3 : wj * inv3;
    si = kUniform ? inv3 : wi * inv3;
    if (kEnergy && (!kMasked || valid)) e = kUniform ? e - s.inv : fmaf(-wi * wj, s.inv, e);
  }
};

/// The typed force, w = type index; the table row of type a starts at a * types.
struct Typed {
  const float4* table;  ///< shared memory: c1, c2, c3 per type pair
  int types;
  float rmin2;
  template <bool kMasked, bool kEnergy>
  __device__ __forceinline__ void pair(float dx, float dy, float dz, float wi, float wj, bool valid, float& si,
                                       float& sj, float& e) const {
    const float r2 = fmaf(dx, dx, fmaf(dy, dy, dz * dz));
    const float4 c = table[int(wi) * types + int(wj)];
    const PairResult<float> p = typedPair<float>(r2, TypedPairParams<float>{c.x, c.y, c.z}, rmin2);
    // F_i = g (x_i - x_j) = -g d.
    float g = -p.fOverR;
    if (kMasked && !valid) g = 0.f;
    sj = g;
    si = g;
    if (kEnergy && (!kMasked || valid)) e += p.energy;
  }
};

struct RunArgs {
  int n, blocks;
  int runBlocks;              ///< j blocks per run (at most)
  long long runs;
  int rows;
  const long long* runStart;  ///< first run of each row of kIBlocks i blocks (prefix sums)
  const float4* body;
  unsigned long long* force;
  std::size_t stride;
  double scale;       ///< fixed-point scale
  double factorG;     ///< gravity: G (force and energy factor; times m^2 with uniform masses); typed: 1
  bool massFactor;    ///< gravity with masses per body: the body's own mass multiplies its sum
  unsigned long long* energy;
};

struct Body {
  float x, y, z, w;
};

/// One 32 x (32 kIBlocks) tile: the i bodies stay, the j bodies and their sums rotate.
/// (Reading the j bodies from shared memory instead of rotating them was measured slower.)
template <bool kMasked, bool kEnergy, class Pot>
__device__ __forceinline__ void tile(const Pot& pot, const Body (&bi)[kIBlocks], const int (&gi)[kIBlocks],
                                     float (&fi)[kIBlocks][3], Body& bj, float (&fj)[3], int jBase, int n, int lane,
                                     float& e) {
#pragma unroll 4
  for (int s = 0; s < 32; ++s) {
    const int gj = jBase + ((lane + s) & 31);
#pragma unroll
    for (int k = 0; k < kIBlocks; ++k) {
      const float dx = bj.x - bi[k].x, dy = bj.y - bi[k].y, dz = bj.z - bi[k].z;
      const bool valid = kMasked ? (gi[k] < gj && gj < n) : true;
      float si, sj;
      pot.template pair<kMasked, kEnergy>(dx, dy, dz, bi[k].w, bj.w, valid, si, sj, e);
      fi[k][0] = fmaf(sj, dx, fi[k][0]);
      fi[k][1] = fmaf(sj, dy, fi[k][1]);
      fi[k][2] = fmaf(sj, dz, fi[k][2]);
      fj[0] = fmaf(-si, dx, fj[0]);
      fj[1] = fmaf(-si, dy, fj[1]);
      fj[2] = fmaf(-si, dz, fj[2]);
    }
    const int from = (lane + 1) & 31;
    bj.x = __shfl_sync(kFull, bj.x, from);
    bj.y = __shfl_sync(kFull, bj.y, from);
    bj.z = __shfl_sync(kFull, bj.z, from);
    bj.w = __shfl_sync(kFull, bj.w, from);
    fj[0] = __shfl_sync(kFull, fj[0], from);
    fj[1] = __shfl_sync(kFull, fj[1], from);
    fj[2] = __shfl_sync(kFull, fj[2], from);
  }
}

__device__ __forceinline__ Body loadBody(const float4* body, int g, int n) {
  if (g >= n) return Body{0.f, 0.f, 0.f, 0.f};
  const float4 b = body[g];
  return Body{b.x, b.y, b.z, b.w};
}

__device__ __forceinline__ long long warpSum(long long v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFull, v, o);
  return v;
}
__device__ __forceinline__ double warpSum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFull, v, o);
  return v;
}

/// A body's sum in fixed point: times G m (the body's own mass) for gravity with masses per
/// body, G m^2 with uniform masses, 1 for the typed force.
__device__ __forceinline__ long long toFixedForce(float f, float w, const RunArgs& a) {
  const double factor = a.massFactor ? a.factorG * double(w) * a.scale : a.factorG * a.scale;
  return __double2ll_rn(double(f) * factor);
}

__device__ __forceinline__ void addForce(const RunArgs& a, int g, const long long (&v)[3]) {
#pragma unroll
  for (int c = 0; c < 3; ++c)
    if (v[c] != 0) atomicAdd(a.force + c * a.stride + g, static_cast<unsigned long long>(v[c]));
}

/// The i bodies of row `row` into registers, their sums cleared.
__device__ __forceinline__ void loadRow(const RunArgs& a, int row, int lane, Body (&bi)[kIBlocks],
                                        int (&gi)[kIBlocks], float (&fi)[kIBlocks][3]) {
#pragma unroll
  for (int k = 0; k < kIBlocks; ++k) {
    gi[k] = (row * kIBlocks + k) * 32 + lane;
    bi[k] = loadBody(a.body, gi[k], a.n);
    fi[k][0] = fi[k][1] = fi[k][2] = 0.f;
  }
}

/// The i sums in fixed point to the force buffer; `rest` (lane 0 only: the warp's
/// remainder) comes off the first body, which always exists.
__device__ __forceinline__ void flushRow(const RunArgs& a, const Body (&bi)[kIBlocks], const int (&gi)[kIBlocks],
                                         const float (&fi)[kIBlocks][3], const long long* rest) {
#pragma unroll
  for (int k = 0; k < kIBlocks; ++k) {
    if (gi[k] >= a.n) continue;
    long long v[3];
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      v[c] = toFixedForce(fi[k][c], bi[k].w, a);
      if (rest && k == 0) v[c] -= rest[c];
    }
    addForce(a, gi[k], v);
  }
}

/// One run: a warp's i blocks (row `row`) against at most runBlocks consecutive j blocks of
/// the row. Runs are short so that the float i sums stay accurate and the warps finish
/// together. (Equal shares of the whole triangle per resident warp, i sums kept along whole
/// rows, were measured slower, and their long float sums lost accuracy.)
template <bool kEnergy, class Pot>
__device__ void run(const RunArgs& a, const Pot& pot, long long r, int lane) {
  int lo = 0, hi = a.rows;  // the row: the last row with runStart[row] <= r
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (a.runStart[mid] <= r) lo = mid;
    else hi = mid;
  }
  const int row = lo;
  const int jb0 = row * kIBlocks + int(r - a.runStart[row]) * a.runBlocks;
  const int jb1 = min(jb0 + a.runBlocks, a.blocks);
  const bool partialLast = (a.n & 31) != 0;
  Body bi[kIBlocks];
  int gi[kIBlocks];
  float fi[kIBlocks][3];
  loadRow(a, row, lane, bi, gi, fi);
  long long added[3] = {0, 0, 0};
  double energy = 0;
  for (int jb = jb0; jb < jb1; ++jb) {
    const int gj = jb * 32 + lane;
    Body bj = loadBody(a.body, gj, a.n);
    float fj[3] = {0.f, 0.f, 0.f};
    float e = 0.f;
    // j blocks below (row + 1) kIBlocks share bodies with the i blocks.
    if (jb < (row + 1) * kIBlocks || (partialLast && jb == a.blocks - 1))
      tile<true, kEnergy>(pot, bi, gi, fi, bj, fj, jb * 32, a.n, lane, e);
    else
      tile<false, kEnergy>(pot, bi, gi, fi, bj, fj, jb * 32, a.n, lane, e);
    if (kEnergy) energy += double(e);
    if (gj < a.n) {
      const long long v[3] = {toFixedForce(fj[0], bj.w, a), toFixedForce(fj[1], bj.w, a),
                              toFixedForce(fj[2], bj.w, a)};
      addForce(a, gj, v);
#pragma unroll
      for (int c = 0; c < 3; ++c) added[c] += v[c];
    }
  }
  // The remainder of the run's rounding (the i sums about to leave plus the j sums that
  // left) comes off the first body of the row: the run adds exactly zero.
#pragma unroll
  for (int k = 0; k < kIBlocks; ++k)
#pragma unroll
    for (int c = 0; c < 3; ++c)
      if (gi[k] < a.n) added[c] += toFixedForce(fi[k][c], bi[k].w, a);
  long long rest[3];
#pragma unroll
  for (int c = 0; c < 3; ++c) rest[c] = warpSum(added[c]);
  flushRow(a, bi, gi, fi, lane == 0 ? rest : nullptr);
  if (kEnergy) {
    energy = warpSum(energy);
    if (lane == 0 && energy != 0.0)
      atomicAdd(a.energy, static_cast<unsigned long long>(fixed::energyToFixed(energy * a.factorG)));
  }
}

template <bool kEnergy, bool kUniform>
__global__ void __launch_bounds__(32 * kWarpsPerCta) gravityKernel(RunArgs a, float eps2) {
  const long long r = (long long)blockIdx.x * kWarpsPerCta + threadIdx.x / 32;
  if (r >= a.runs) return;
  run<kEnergy>(a, Gravity<kUniform>{eps2}, r, threadIdx.x & 31);
}

template <bool kEnergy>
__global__ void __launch_bounds__(32 * kWarpsPerCta) typedKernel(RunArgs a, const float4* table, int types,
                                                                   float rmin2) {
  __shared__ float4 shared[kMaxTypes * kMaxTypes];
  for (int t = threadIdx.x; t < types * types; t += blockDim.x) shared[t] = table[t];
  __syncthreads();
  const long long r = (long long)blockIdx.x * kWarpsPerCta + threadIdx.x / 32;
  if (r >= a.runs) return;
  run<kEnergy>(a, Typed{shared, types, rmin2}, r, threadIdx.x & 31);
}

/// The CUDA samples' all-pairs kernel: a thread per body, tiles of j bodies in shared memory
/// (with the same flushed rsqrt as the triangular kernel, so the two compare fairly).
__global__ void oneSidedGravityKernel(const float4* body, int n, float eps2, float4* accel) {
  extern __shared__ float4 tileBodies[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 bi = i < n ? body[i] : make_float4(0.f, 0.f, 0.f, 0.f);
  float ax = 0.f, ay = 0.f, az = 0.f;
  for (int start = 0; start < n; start += blockDim.x) {
    const int j = start + threadIdx.x;
    tileBodies[threadIdx.x] = j < n ? body[j] : make_float4(0.f, 0.f, 0.f, 0.f);
    __syncthreads();
#pragma unroll 16
    for (int t = 0; t < blockDim.x; ++t) {
      const float4 bj = tileBodies[t];
      const float dx = bj.x - bi.x, dy = bj.y - bi.y, dz = bj.z - bi.z;
      const float inv = pairmath::rsqrtFast(fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2))));
      const float s = bj.w * inv * inv * inv;
      ax = fmaf(s, dx, ax);
      ay = fmaf(s, dy, ay);
      az = fmaf(s, dz, az);
    }
    __syncthreads();
  }
  if (i < n) accel[i] = make_float4(ax, ay, az, 0.f);
}

int smCount() {
  int device = 0, sms = 0;
  FARADAY_CUDA_CHECK(cudaGetDevice(&device));
  FARADAY_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

}  // namespace

double allPairsForceScale(const AllPairsParams& params, const std::vector<double>& mass,
                          const std::vector<int>& type) {
  double bound = 0;
  if (params.potential == AllPairsPotential::Gravity) {
    double total = 0, largest = 0;
    for (double m : mass) total += m, largest = std::max(largest, m);
    const double eps2 = params.softening * params.softening;
    bound = params.G * largest * total * 2.0 / (3.0 * std::sqrt(3.0) * eps2);
  } else {
    const TypedPairTable& t = params.typed;
    std::vector<bool> present(std::size_t(std::max(t.types, 1)), false);
    for (int a : type) present[std::size_t(a)] = true;
    double pairMax = 0;
    const double rmin2 = t.rmin * t.rmin;
    for (int a = 0; a < t.types; ++a)
      for (int b = 0; b < t.types; ++b) {
        if (!present[a] || !present[b]) continue;
        // |F| = |g(r)| r: largest at the clamp for the repulsive power (c3 > 2) and c1 / r^2.
        const PairResult<double> p = typedPair<double>(rmin2, t.at(a, b), rmin2);
        pairMax = std::max(pairMax, std::fabs(p.fOverR) * t.rmin);
      }
    bound = pairMax * double(type.size());
  }
  if (!(bound > 0) || !std::isfinite(bound)) return fixed::kScale;
  // 2^62 / bound, rounded down to a power of two, within [1, 2^80].
  const int e = std::clamp(int(std::floor(std::log2(4.611686018427388e18 / bound))), 0, 80);
  return std::ldexp(1.0, e);
}

CudaAllPairs::CudaAllPairs(int n, const AllPairsParams& params, double uniformMass)
    : n_(n), params_(params), uniformMass_(uniformMass), runStart_("all-pairs runs", 0),
      typedTable_("typed pair table", 0) {
  if (n <= 0) throw Error("all-pairs: no bodies");
  const int blocks = (n + 31) / 32;
  const int rows = (blocks + kIBlocks - 1) / kIBlocks;
  for (int r = 0; r < rows; ++r) tiles_ += blocks - r * kIBlocks;
  // Runs of at most 32 tiles (the float i sums stay accurate), and enough of them to fill
  // the GPU many times over so that the last wave is a small part.
  runBlocks_ = int(std::clamp<long long>(tiles_ / ((long long)smCount() * 256), 1, 32));
  std::vector<long long> start(std::size_t(rows) + 1, 0);
  for (int r = 0; r < rows; ++r) start[r + 1] = start[r] + (blocks - r * kIBlocks + runBlocks_ - 1) / runBlocks_;
  runs_ = start[rows];
  runStart_.upload(start);
  if (params.potential == AllPairsPotential::Typed) {
    const TypedPairTable& t = params.typed;
    if (t.types < 1 || t.types > kMaxTypes)
      throw Error("all-pairs typed force: " + std::to_string(t.types) + " atom types; at most " +
                  std::to_string(kMaxTypes) + " are supported on the GPU");
    std::vector<float4> table(std::size_t(t.types) * t.types);
    for (int a = 0; a < t.types; ++a)
      for (int b = 0; b < t.types; ++b) {
        const TypedPairParams<double>& p = t.at(a, b);
        table[std::size_t(a) * t.types + b] = make_float4(float(p.c1), float(p.c2), float(p.c3), 0.f);
      }
    typedTable_.upload(table);
  }
  FARADAY_CUDA_CHECK(cudaDeviceSynchronize());
}

double CudaAllPairs::pairsEvaluated() const { return double(tiles_) * 32.0 * 32.0 * kIBlocks; }

void CudaAllPairs::enqueue(cudaStream_t stream, const AllPairsDeviceInput& in) {
  if (in.n != n_) throw Error("all-pairs: built for " + std::to_string(n_) + " bodies, called with " +
                              std::to_string(in.n));
  const int blocks = (n_ + 31) / 32;
  const bool gravity = params_.potential == AllPairsPotential::Gravity;
  const bool uniform = gravity && uniformMass_ > 0;
  RunArgs a{n_,
            blocks,
            runBlocks_,
            runs_,
            (blocks + kIBlocks - 1) / kIBlocks,
            runStart_.data(),
            in.body,
            in.force,
            in.stride,
            in.scale,
            gravity ? params_.G * (uniform ? uniformMass_ * uniformMass_ : 1.0) : 1.0,
            gravity && !uniform,
            in.energy};
  const unsigned grid = unsigned((runs_ + kWarpsPerCta - 1) / kWarpsPerCta);
  const int threads = 32 * kWarpsPerCta;
  if (gravity) {
    const float eps2 = float(params_.softening * params_.softening);
    if (in.energy && uniform) gravityKernel<true, true><<<grid, threads, 0, stream>>>(a, eps2);
    else if (in.energy) gravityKernel<true, false><<<grid, threads, 0, stream>>>(a, eps2);
    else if (uniform) gravityKernel<false, true><<<grid, threads, 0, stream>>>(a, eps2);
    else gravityKernel<false, false><<<grid, threads, 0, stream>>>(a, eps2);
    FARADAY_CUDA_CHECK_LAUNCH("gravityKernel");
  } else {
    const TypedPairTable& t = params_.typed;
    const float rmin2 = float(t.rmin * t.rmin);
    if (in.energy) typedKernel<true><<<grid, threads, 0, stream>>>(a, typedTable_.data(), t.types, rmin2);
    else typedKernel<false><<<grid, threads, 0, stream>>>(a, typedTable_.data(), t.types, rmin2);
    FARADAY_CUDA_CHECK_LAUNCH("typedKernel");
  }
}

namespace {
/// ms per call of `launch` on a fresh stream, averaged over `repeats` after one warm-up.
template <class Launch>
double timeLaunches(int repeats, Launch launch) {
  CudaStream stream;
  CudaEvent start, stop;
  launch(stream.get());
  FARADAY_CUDA_CHECK(cudaEventRecord(start.get(), stream.get()));
  for (int r = 0; r < repeats; ++r) launch(stream.get());
  FARADAY_CUDA_CHECK(cudaEventRecord(stop.get(), stream.get()));
  FARADAY_CUDA_CHECK(cudaEventSynchronize(stop.get()));
  return double(CudaEvent::elapsedMs(start, stop)) / repeats;
}
}  // namespace

double timeOneSidedGravity(const float4* body, int n, float softening2, float4* accel, int repeats) {
  constexpr int threads = 256;
  const unsigned grid = unsigned((n + threads - 1) / threads);
  return timeLaunches(repeats, [&](cudaStream_t s) {
    oneSidedGravityKernel<<<grid, threads, threads * sizeof(float4), s>>>(body, n, softening2, accel);
    FARADAY_CUDA_CHECK_LAUNCH("oneSidedGravityKernel");
  });
}

double timeAllPairs(CudaAllPairs& kernel, const AllPairsDeviceInput& input, int repeats) {
  return timeLaunches(repeats, [&](cudaStream_t s) { kernel.enqueue(s, input); });
}

}  // namespace faraday
