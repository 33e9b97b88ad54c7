// Phases 3-5 of the GPU PME between the cuFFT transforms (CudaPme.cu has the overview): the
// convolution with the influence function, with the energy and virial by block reductions;
// by lines, the x transforms of the spectrum (LineFft.h) in shared memory around it.
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "kernels/common/CudaCheck.h"
#include "kernels/pme/CudaPmeDetail.cuh"
#include "kernels/pme/LineFft.h"

namespace faraday::pme::gpu {

namespace {

/// The end of the convolution: the block's energy and virial sums (cub::BlockReduce in
/// double) go to partials[blockIdx.x], for sumPartials() (CudaPmeGather.cu). Every thread of
/// the block must call it.
template <int kBlock>
__device__ __forceinline__ void blockPartial(const Sums7& local, Sums7* __restrict__ partials) {
  using BlockReduce = cub::BlockReduce<Sums7, kBlock>;
  __shared__ typename BlockReduce::TempStorage temp;
  const Sums7 total = BlockReduce(temp).Reduce(local, Sums7Add());
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

/// One reciprocal-space term of the convolution at frequency (mx, my, mz) (1/nm), spectrum
/// value s: adds the energy and virial terms (see CpuPme::convolve) to part and returns the
/// factor eterm that multiplies s. fxyz = prefactor f_x f_y f_z; weight 1/2 for the m_z
/// planes stored once (0 and K_z/2), else 1.
__device__ __forceinline__ float convolutionTerm(float2 s, float mx, float my, float mz, float fxyz, float weight,
                                                 float piOverBeta2, float part[7]) {
  const float m2 = mx * mx + my * my + mz * mz;
  const float invM2 = __fdividef(1.f, m2);
  const float eterm = fxyz * invM2;
  const float en = weight * eterm * (s.x * s.x + s.y * s.y);
  const float vfac = 2.f * (1.f + piOverBeta2 * m2) * invM2;
  const float ev = en * vfac;
  part[0] += en;
  part[1] += en - ev * mx * mx;
  part[2] += en - ev * my * my;
  part[3] += en - ev * mz * mz;
  part[4] -= ev * mx * my;
  part[5] -= ev * mx * mz;
  part[6] -= ev * my * mz;
  return eterm;
}

/// Phase 4: S(m) *= eterm(m) over the half-complex grid, with the energy and virial terms
/// (see CpuPme::convolve). One warp per (m_x, m_y) line at a time, lanes along m_z. The
/// terms are formed in float (relative error ~1e-7 each); a lane sums its few terms of a line
/// (at most ceil((K_z/2 + 1)/32)) in float, then the line sums in double in a fixed order,
/// then per block with cub::BlockReduce (blockPartial()).
/// kTriclinic: m = i a* + j b* + k c* has tilt terms, and the factor tables hold the
/// moduli only (BoxTerms).
template <bool kTriclinic>
__global__ void __launch_bounds__(kReduceThreads) convolveKernel(GridDims g, float2* __restrict__ spectrum,
                                                                 const float* __restrict__ fx,
                                                                 const float* __restrict__ fy,
                                                                 const float* __restrict__ fz,
                                                                 const BoxTerms* __restrict__ box,
                                                                 Sums7* __restrict__ partials) {
  const int kh = g.k[2] / 2 + 1;
  const int lines = g.k[0] * g.k[1];
  const int warpsPerBlock = kReduceThreads / 32;
  const int lane = threadIdx.x & 31;
  const float3 invLength = box->invLength;
  const float prefactor = box->prefactor, piOverBeta2 = box->piOverBeta2;
  Sums7 local;
#pragma unroll
  for (int c = 0; c < 7; ++c) local.v[c] = 0.0;
  for (int line = blockIdx.x * warpsPerBlock + (threadIdx.x >> 5); line < lines; line += gridDim.x * warpsPerBlock) {
    const int ix = line / g.k[1];
    const int iy = line - ix * g.k[1];
    const float mi = float(ix <= g.k[0] / 2 ? ix : ix - g.k[0]), mj = float(iy <= g.k[1] / 2 ? iy : iy - g.k[1]);
    const float mx = mi * invLength.x;
    float my = mj * invLength.y, myz = 0.f;
    if constexpr (kTriclinic) {
      const float3 t = box->recipTilt;  // a*_y, a*_z, b*_z
      my = fmaf(mi, t.x, my);
      myz = fmaf(mi, t.y, mj * t.z);
    }
    const float fxy = prefactor * __ldg(fx + ix) * __ldg(fy + iy);
    float2* const row = spectrum + std::size_t(line) * kh;
    float part[7] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    for (int iz = lane; iz < kh; iz += 32) {
      const float2 s = row[iz];
      if (line == 0 && iz == 0) {
        row[0] = make_float2(0.f, 0.f);  // m = 0: the neutralising background, done elsewhere
        continue;
      }
      const float weight = (iz == 0 || 2 * iz == g.k[2]) ? 0.5f : 1.0f;  // 1/2 of 1 or 2
      float mz = float(iz) * invLength.z, fxyz = fxy * __ldg(fz + iz);
      if constexpr (kTriclinic) {
        mz += myz;
        fxyz *= expf(-piOverBeta2 * (mx * mx + my * my + mz * mz));
      }
      const float eterm = convolutionTerm(s, mx, my, mz, fxyz, weight, piOverBeta2, part);
      row[iz] = make_float2(s.x * eterm, s.y * eterm);
    }
#pragma unroll
    for (int c = 0; c < 7; ++c) local.v[c] += double(part[c]);
  }
  blockPartial<kReduceThreads>(local, partials);
}

// ---- Phases 3-5 by lines: (y, z) transforms by cuFFT, x transforms here (LineFft.h) ----

constexpr int kLineBatch = 8;  ///< spectrum loads in flight per thread

__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/// In-register DFT of length R (forward sign, w_R = exp(-2 pi i / R)); radices 7 and above
/// take their roots tw[m n / R] from the twiddle table.
template <int R>
__device__ __forceinline__ void smallDft(float2 v[R], const float2* tw, int n) {
  auto add = [](float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); };
  auto sub = [](float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); };
  auto minusI = [](float2 a) { return make_float2(a.y, -a.x); };  // -i a
  if constexpr (R == 2) {
    const float2 a = v[0], b = v[1];
    v[0] = add(a, b);
    v[1] = sub(a, b);
  } else if constexpr (R == 3) {
    constexpr float kSin60 = 0.866025403784438647f;
    const float2 t1 = add(v[1], v[2]);
    const float2 t2 = make_float2(v[0].x - 0.5f * t1.x, v[0].y - 0.5f * t1.y);
    const float2 d = minusI(make_float2(kSin60 * (v[1].x - v[2].x), kSin60 * (v[1].y - v[2].y)));
    v[0] = add(v[0], t1);
    v[1] = add(t2, d);
    v[2] = sub(t2, d);
  } else if constexpr (R == 4) {
    const float2 s02 = add(v[0], v[2]), d02 = sub(v[0], v[2]);
    const float2 s13 = add(v[1], v[3]), d13 = minusI(sub(v[1], v[3]));
    v[0] = add(s02, s13);
    v[2] = sub(s02, s13);
    v[1] = add(d02, d13);
    v[3] = sub(d02, d13);
  } else if constexpr (R == 5) {
    constexpr float c1 = 0.309016994374947424f, c2 = -0.809016994374947424f;  // cos(2 pi / 5), cos(4 pi / 5)
    constexpr float s1 = 0.951056516295153572f, s2 = 0.587785252292473129f;   // sin(2 pi / 5), sin(4 pi / 5)
    const float2 a1 = add(v[1], v[4]), b1 = sub(v[1], v[4]);
    const float2 a2 = add(v[2], v[3]), b2 = sub(v[2], v[3]);
    const float2 p1 = make_float2(v[0].x + c1 * a1.x + c2 * a2.x, v[0].y + c1 * a1.y + c2 * a2.y);
    const float2 p2 = make_float2(v[0].x + c2 * a1.x + c1 * a2.x, v[0].y + c2 * a1.y + c1 * a2.y);
    const float2 q1 = minusI(make_float2(s1 * b1.x + s2 * b2.x, s1 * b1.y + s2 * b2.y));
    const float2 q2 = minusI(make_float2(s2 * b1.x - s1 * b2.x, s2 * b1.y - s1 * b2.y));
    v[0] = add(v[0], add(a1, a2));
    v[1] = add(p1, q1);
    v[4] = sub(p1, q1);
    v[2] = add(p2, q2);
    v[3] = sub(p2, q2);
  } else {
    float2 root[R];
#pragma unroll
    for (int m = 0; m < R; ++m) root[m] = tw[m * (n / R)];
    float2 out[R];
#pragma unroll
    for (int q = 0; q < R; ++q) {
      out[q] = v[0];
#pragma unroll
      for (int r = 1; r < R; ++r) out[q] = add(out[q], cmul(v[r], root[(r * q) % R]));
    }
#pragma unroll
    for (int q = 0; q < R; ++q) v[q] = out[q];
  }
}

/// Shared-memory index of element (x, w) of a tile of 2^LogW columns: row x, so that a warp
/// touches consecutive words. Rows narrower than 16 columns share the 32 banks in groups
/// of G = 16 >> LogW rows, and a pass that writes every R-th row (R even) would hit one
/// group only: the row's low bits are XORed with the next ones (a permutation inside each
/// aligned group of G rows; tiles hold a multiple of 4 rows).
template <int LogW>
__device__ __forceinline__ int tileIndex(int x, int w) {
  if constexpr (LogW < 4) {
    constexpr int kGroupBits = 4 - LogW;
    x ^= (x >> kGroupBits) & ((1 << kGroupBits) - 1);
  }
  return (x << LogW) + w;
}

/// One Stockham pass of radix R over the 2^LogW columns of a tile: thread t takes column
/// t mod 2^LogW and butterflies j0 = t >> LogW, j0 + J, ... (J = kLineThreads >> LogW).
template <int R, int LogW>
__device__ __forceinline__ void linePass(const float2* in, float2* out, const float2* tw, int n,
                                         const pme::LinePass& pass) {
  constexpr int J = kLineThreads >> LogW;
  const int m = n / R;
  const int w = threadIdx.x & ((1 << LogW) - 1);
  for (pme::LineWalk b(threadIdx.x >> LogW, pass); b.j < m; b.next(J, pass)) {
    float2 v[R];
#pragma unroll
    for (int r = 0; r < R; ++r) v[r] = in[tileIndex<LogW>(b.j + r * m, w)];
    if (b.k != 0) {
      const int step = b.twiddleStep(pass);
#pragma unroll
      for (int r = 1; r < R; ++r) v[r] = cmul(v[r], tw[r * step]);
    }
    smallDft<R>(v, tw, n);
#pragma unroll
    for (int r = 0; r < R; ++r) out[tileIndex<LogW>(b.dst + r * pass.ns, w)] = v[r];
  }
}

/// Forward transform of every column of the tile in a (b is scratch) by the `count` passes
/// of `passes` (the kernel's pass table); returns the buffer that holds the result. Ends
/// with the block synchronised.
template <int LogW>
__device__ __forceinline__ float2* lineForward(float2* a, float2* b, const float2* tw, int n,
                                               const pme::LinePass* passes, int count) {
  for (int p = 0; p < count; ++p) {
    const pme::LinePass pass = passes[p];
    switch (pass.radix) {
      case 2: linePass<2, LogW>(a, b, tw, n, pass); break;
      case 3: linePass<3, LogW>(a, b, tw, n, pass); break;
      case 4: linePass<4, LogW>(a, b, tw, n, pass); break;
      case 5: linePass<5, LogW>(a, b, tw, n, pass); break;
      default: linePass<7, LogW>(a, b, tw, n, pass); break;
    }
    __syncthreads();
    float2* const t = a;
    a = b;
    b = t;
  }
  return a;
}

/// Loads the tile's columns from the spectrum (`element(x)`: row x of this thread's column;
/// zeros outside the grid) into a, kLineBatch loads in flight per thread before their values
/// are stored.
template <int LogW, class Element>
__device__ __forceinline__ void loadLineTile(const Element& element, float2* a, bool inside, int x0, int w, int n) {
  constexpr int J = kLineThreads >> LogW;
  for (int x = x0; x < n; x += kLineBatch * J) {
    float2 v[kLineBatch];
#pragma unroll
    for (int u = 0; u < kLineBatch; ++u)
      v[u] = inside && x + u * J < n ? *element(x + u * J) : make_float2(0.f, 0.f);
#pragma unroll
    for (int u = 0; u < kLineBatch; ++u)
      if (x + u * J < n) a[tileIndex<LogW>(x + u * J, w)] = v[u];
  }
}

/// The energy and the virial's six terms in double from a thread's sums at (m_y, m_z): E,
/// ev = E vfac, ev m_x and ev m_x^2 (see lineConvolveKernel).
__device__ __forceinline__ Sums7 lineSums7(float sumE, float sumEv, float sumEvMx, float sumEvMx2, float my, float mz) {
  Sums7 local;
  const double e = sumE, ev = sumEv, evMx = sumEvMx;
  local.v[0] = e;
  local.v[1] = e - double(sumEvMx2);
  local.v[2] = e - ev * double(my) * double(my);
  local.v[3] = e - ev * double(mz) * double(mz);
  local.v[4] = -evMx * double(my);
  local.v[5] = -evMx * double(mz);
  local.v[6] = -ev * double(my) * double(mz);
  return local;
}

/// lineSums7 for a triclinic box: along the line m = s u + c, with s = i a*_x, u = a*/a*_x and
/// c = (0, c_y, c_z) fixed; sum ev m_a m_b = (sum ev s^2) u_a u_b + (sum ev s)(u_a c_b + u_b c_a)
/// + (sum ev) c_a c_b.
__device__ __forceinline__ Sums7 lineSums7Triclinic(float sumE, float sumEv, float sumEvS, float sumEvS2, float3 u,
                                                    float cy, float cz) {
  const double e = sumE, ev = sumEv, evS = sumEvS, evS2 = sumEvS2;
  const double ud[3] = {u.x, u.y, u.z}, cd[3] = {0.0, cy, cz};
  const auto moment = [&](int a, int b) {
    return evS2 * ud[a] * ud[b] + evS * (ud[a] * cd[b] + ud[b] * cd[a]) + ev * cd[a] * cd[b];
  };
  Sums7 local;
  local.v[0] = e;
  local.v[1] = e - moment(0, 0);
  local.v[2] = e - moment(1, 1);
  local.v[3] = e - moment(2, 2);
  local.v[4] = -moment(0, 1);
  local.v[5] = -moment(0, 2);
  local.v[6] = -moment(1, 2);
  return local;
}

/// Phases 3b-5a: one block per tile of 2^LogW consecutive m_z columns of one m_y, all K_x
/// values of m_x, after the (y, z) forward transform: the x transform, the convolution
/// (energy and virial terms as convolveKernel), and the x inverse transform, done as
/// conj(DFT(conj(.))) by the same forward passes. Shared memory: the twiddles
/// w_n^0..w_n^(n-1), {f_x, m_x} per m_x, then two tiles of lineTileRows(n) rows. Thread t
/// always handles column t mod 2^LogW, rows t >> LogW, + J, ... outside the passes; with m_y
/// and m_z fixed, it sums E, W and the virial's m_x moments over its rows in a fixed order.
template <int LogW, bool kTriclinic>
__global__ void __launch_bounds__(kLineThreads, 4) lineConvolveKernel(
    GridDims g, const __grid_constant__ pme::LinePassTable passTable, int tilesZ, int yFirst, int yRows,
    float2* __restrict__ spectrum, float2* __restrict__ own, int ownFirst, int ownLast,
    const float2* __restrict__ twiddles, const float* __restrict__ fx, const float* __restrict__ fy,
    const float* __restrict__ fz, const BoxTerms* __restrict__ box, Sums7* __restrict__ partials) {
  constexpr int J = kLineThreads >> LogW;
  static_assert(J <= pme::kMaxLineStride, "LineWalk needs at most kMaxLineStride threads per column");
  extern __shared__ float2 lineShared[];
  const pme::LinePass* const passes = passTable.pass;
  const int passCount = passTable.count;
  const int n = g.k[0], ny = g.k[1], kh = g.k[2] / 2 + 1;
  float2* const tw = lineShared;
  float2* const xTerms = tw + n;  // {f_x, m_x} per m_x
  float2* const a = xTerms + n;
  float2* const b = a + (pme::lineTileRows(n) << LogW);
  const int row = blockIdx.x / tilesZ;  // of the rows held; m_y = iy
  const int iy = yFirst + row;
  const int z0 = (blockIdx.x - row * tilesZ) << LogW;
  const int w = threadIdx.x & ((1 << LogW) - 1), x0 = threadIdx.x >> LogW;
  const bool inside = z0 + w < kh;  // this thread's column exists (the last tile may be narrower)
  // Element offsets from spectrum in 32 bits (the grid is capped below 2^31 points): row x of
  // this thread's column at columnAt + x rowStride.
  const unsigned int rowStride = unsigned(yRows) * unsigned(kh);
  const unsigned int columnAt = unsigned(row) * unsigned(kh) + unsigned(z0 + w);
  // Split over GPUs: the rows of this GPU's own planes [ownFirst, ownLast) stay in its full
  // spectrum `own` (K_x x K_y x kh), the others' planes come in `spectrum`.
  const unsigned int ownStride = unsigned(ny) * unsigned(kh);
  const unsigned int ownColumnAt = unsigned(iy) * unsigned(kh) + unsigned(z0 + w);
  const auto element = [&](int x) -> float2* {
    return x >= ownFirst && x < ownLast ? own + (ownColumnAt + unsigned(x) * ownStride)
                                        : spectrum + (columnAt + unsigned(x) * rowStride);
  };
  const float3 invLength = box->invLength;
  for (int m = threadIdx.x; m < n; m += kLineThreads) {
    tw[m] = __ldg(twiddles + m);
    xTerms[m] = make_float2(__ldg(fx + m), float(m <= n / 2 ? m : m - n) * invLength.x);
  }
  loadLineTile<LogW>(element, a, inside, x0, w, n);
  __syncthreads();
  float2* const s = lineForward<LogW>(a, b, tw, n, passes, passCount);

  // Per element, with m^2 = m_x^2 + m_y^2 + m_z^2 and eterm = k_C f_x f_y f_z / (pi V m^2):
  // E = weight eterm |S|^2 and W_ab = E (delta_ab - vfac m_a m_b), vfac = 2 (1 + pi^2 m^2 /
  // beta^2) / m^2. As m_y and m_z are the thread's constants, it sums E, ev = E vfac,
  // ev m_x and ev m_x^2 only.
  const float piOverBeta2 = box->piOverBeta2;
  const float my = float(iy <= ny / 2 ? iy : iy - ny) * invLength.y;
  const int iz = z0 + w;
  float mz = float(iz) * invLength.z;
  // Triclinic: m = s u + c along the line, s = m_x = i a*_x, u = a*/a*_x, c = (0, my, mz) with
  // mz gaining j b*_z: m^2 = s^2 |u|^2 + 2 s u.c + |c|^2.
  float3 u = make_float3(1.f, 0.f, 0.f);
  if constexpr (kTriclinic) {
    const float3 t = box->recipTilt;
    mz = fmaf(float(iy <= ny / 2 ? iy : iy - ny), t.z, mz);
    u = make_float3(1.f, t.x / invLength.x, t.y / invLength.x);
  }
  const float myz2 = my * my + mz * mz;
  const float u2 = u.x * u.x + u.y * u.y + u.z * u.z, twoUc = 2.f * (u.y * my + u.z * mz);
  const float pyz = inside ? box->prefactor * __ldg(fy + iy) * __ldg(fz + iz) : 0.f;
  const float weight = (iz == 0 || 2 * iz == g.k[2]) ? 0.5f : 1.0f;  // 1/2 of the m_z planes stored once
  float sumE = 0.f, sumEv = 0.f, sumEvMx = 0.f, sumEvMx2 = 0.f;
  if (inside) {
    for (int ix = x0; ix < n; ix += J) {
      const int at = tileIndex<LogW>(ix, w);
      const float2 v = s[at];
      const float2 t = xTerms[ix];  // f_x, m_x
      float m2, fx = t.x;
      if constexpr (kTriclinic) {
        m2 = fmaf(t.y, fmaf(t.y, u2, twoUc), myz2);
        fx *= expf(-piOverBeta2 * m2);
      } else {
        m2 = fmaf(t.y, t.y, myz2);
      }
      const float invM2 = m2 > 0.f ? __fdividef(1.f, m2) : 0.f;  // m = 0: the neutralising background, done elsewhere
      const float eterm = pyz * fx * invM2;
      const float e = weight * eterm * fmaf(v.x, v.x, v.y * v.y);
      const float ev = e * (2.f * fmaf(piOverBeta2, m2, 1.f) * invM2);
      sumE += e;
      sumEv += ev;
      sumEvMx = fmaf(ev, t.y, sumEvMx);
      sumEvMx2 = fmaf(ev * t.y, t.y, sumEvMx2);
      s[at] = make_float2(v.x * eterm, -v.y * eterm);  // conjugated for the inverse
    }
  }
  __syncthreads();
  const float2* const r = lineForward<LogW>(s, s == a ? b : a, tw, n, passes, passCount);
  if (inside) {
    for (int x = x0; x < n; x += J) {
      const float2 v = r[tileIndex<LogW>(x, w)];
      *element(x) = make_float2(v.x, -v.y);
    }
  }
  if constexpr (kTriclinic) blockPartial<kLineThreads>(lineSums7Triclinic(sumE, sumEv, sumEvMx, sumEvMx2, u, my, mz), partials);
  else blockPartial<kLineThreads>(lineSums7(sumE, sumEv, sumEvMx, sumEvMx2, my, mz), partials);
}

/// The instantiation for a tile of 2^logW columns (2..5).
using LineKernel = decltype(&lineConvolveKernel<2, false>);
inline LineKernel lineKernelFor(int logW, bool triclinic) {
  if (triclinic) {
    switch (logW) {
      case 2: return lineConvolveKernel<2, true>;
      case 3: return lineConvolveKernel<3, true>;
      case 4: return lineConvolveKernel<4, true>;
      default: return lineConvolveKernel<5, true>;
    }
  }
  switch (logW) {
    case 2: return lineConvolveKernel<2, false>;
    case 3: return lineConvolveKernel<3, false>;
    case 4: return lineConvolveKernel<4, false>;
    default: return lineConvolveKernel<5, false>;
  }
}

}  // namespace

void launchConvolution(int blocks, GridDims g, float2* spectrum, const float* fx, const float* fy, const float* fz,
                       const BoxTerms* box, bool triclinic, Sums7* partials, cudaStream_t stream) {
  if (triclinic) convolveKernel<true><<<blocks, kReduceThreads, 0, stream>>>(g, spectrum, fx, fy, fz, box, partials);
  else convolveKernel<false><<<blocks, kReduceThreads, 0, stream>>>(g, spectrum, fx, fy, fz, box, partials);
  FARADAY_CUDA_CHECK_LAUNCH("convolveKernel");
}

void launchLineConvolution(int logW, int tilesZ, int yFirst, int yRows, GridDims g, const pme::LinePassTable& passes,
                           float2* spectrum, LineOwnPlanes own, const float2* twiddles, const float* fx,
                           const float* fy, const float* fz, const BoxTerms* box, bool triclinic, Sums7* partials,
                           cudaStream_t stream) {
  if (yRows <= 0) return;
  lineKernelFor(logW, triclinic)<<<yRows * tilesZ, kLineThreads, pme::lineSharedBytes(g.k[0], logW), stream>>>(
      g, passes, tilesZ, yFirst, yRows, spectrum, own.spectrum, own.first, own.last, twiddles, fx, fy, fz, box,
      partials);
  FARADAY_CUDA_CHECK_LAUNCH("lineConvolveKernel");
}

std::size_t lineConvolutionStaticShared() {
  cudaFuncAttributes attributes{};
  std::size_t bytes = 0;
  for (const bool triclinic : {false, true}) {
    FARADAY_CUDA_CHECK(cudaFuncGetAttributes(&attributes, lineKernelFor(5, triclinic)));
    bytes = std::max(bytes, std::size_t(attributes.sharedSizeBytes));
  }
  return bytes;
}

void setLineConvolutionShared(int logW, int bytes) {
  for (const bool triclinic : {false, true})
    FARADAY_CUDA_CHECK(
        cudaFuncSetAttribute(lineKernelFor(logW, triclinic), cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

}  // namespace faraday::pme::gpu
