#include "kernels/pme/Ewald.h"

#include <omp.h>

#include <cmath>
#include <string>

#include "core/Error.h"
#include "core/Units.h"

namespace faraday {

namespace {

Error ewaldError(int line, const std::string& what) {
  return Error(std::string(__FILE__) + ":" + std::to_string(line) + ": " + what);
}

struct KVector {
  int k[3];
  Vec3 m;        // 1/nm
  double m2;     // 1/nm^2
};

/// |m| cut in 1/nm: exp(-pi^2 m^2/beta^2) = rtol.
double mCut(double beta, double rtol) { return beta * std::sqrt(-std::log(rtol)) / units::kPi; }

/// The vectors m = kx a* + ky b* + kz c* of the half space with |m| <= mcut.
std::vector<KVector> halfSpaceVectors(const std::array<int, 3>& kmax, const Box& box, double mcut) {
  const ReciprocalBox r = box.reciprocal();
  std::vector<KVector> ks;
  const double mcut2 = mcut * mcut;
  for (int kx = 0; kx <= kmax[0]; ++kx)
    for (int ky = -kmax[1]; ky <= kmax[1]; ++ky)
      for (int kz = -kmax[2]; kz <= kmax[2]; ++kz) {
        // One of each pair {k, -k}: the first non-zero component is positive.
        const bool positive = kx > 0 || (kx == 0 && (ky > 0 || (ky == 0 && kz > 0)));
        if (!positive) continue;
        KVector v{{kx, ky, kz}, r.a * double(kx) + r.b * double(ky) + r.c * double(kz), 0};
        v.m2 = norm2(v.m);
        if (v.m2 <= mcut2) ks.push_back(v);
      }
  return ks;
}

}  // namespace

EwaldSum::EwaldSum(double beta, double kspaceRtol, int threads)
    : beta_(beta), rtol_(kspaceRtol), threads_(threads > 0 ? threads : omp_get_max_threads()) {
  if (!(beta_ > 0)) throw ewaldError(__LINE__, "Ewald beta must be > 0");
  if (!(rtol_ > 0 && rtol_ < 1)) throw ewaldError(__LINE__, "Ewald k-space rtol must lie in (0, 1)");
}

std::array<int, 3> EwaldSum::kmax(const Box& box) const {
  // kx = m.a, so |kx| <= |m| |a|: the edge lengths bound the indices of |m| <= mcut.
  const double mcut = mCut(beta_, rtol_);
  const Vec3 L = box.edgeLengths();
  return {int(std::floor(mcut * L[0])), int(std::floor(mcut * L[1])), int(std::floor(mcut * L[2]))};
}

std::size_t EwaldSum::numVectors(const Box& box) const {
  return halfSpaceVectors(kmax(box), box, mCut(beta_, rtol_)).size();
}

ReciprocalResult EwaldSum::compute(const std::vector<Vec3>& positions, const std::vector<double>& charges,
                                   const Box& box, std::vector<Vec3>& forces, Timers* timers) {
  ScopedTimer timer(timers, "ewald.kspace");
  if (!box.isValid()) throw ewaldError(__LINE__, "Ewald needs a box in reduced triclinic form");
  if (charges.size() != positions.size() || forces.size() != positions.size())
    throw ewaldError(__LINE__, "positions, charges and forces differ in size");
  const auto km = kmax(box);
  const auto ks = halfSpaceVectors(km, box, mCut(beta_, rtol_));
  const ReciprocalBox recip = box.reciprocal();

  std::vector<int> atoms;
  for (std::size_t i = 0; i < charges.size(); ++i)
    if (charges[i] != 0.0) atoms.push_back(int(i));
  const std::size_t na = atoms.size();

  // Per atom and dimension: exp(2 pi i k u_d) for k = 0..kmax_d, u the fractional
  // coordinates (m.r = kx u_a + ky u_b + kz u_c), by repeated products.
  using C = std::complex<double>;
  const int stride[3] = {km[0] + 1, km[1] + 1, km[2] + 1};
  const std::size_t perAtom = std::size_t(stride[0] + stride[1] + stride[2]);
  std::vector<C> table(na * perAtom);
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (std::size_t a = 0; a < na; ++a) {
    C* t = &table[a * perAtom];
    const Vec3 u = recip.fractional(positions[atoms[a]]);
    for (int d = 0; d < 3; ++d) {
      const double phase = 2.0 * units::kPi * u[d];
      const C step{std::cos(phase), std::sin(phase)};
      t[0] = 1.0;
      for (int k = 1; k <= km[d]; ++k) t[k] = t[k - 1] * step;
      t += stride[d];
    }
  }
  auto expikr = [&](std::size_t a, const KVector& v) {
    const C* t = &table[a * perAtom];
    const C ex = t[v.k[0]];
    const C ey = v.k[1] >= 0 ? t[stride[0] + v.k[1]] : std::conj(t[stride[0] - v.k[1]]);
    const C ez = v.k[2] >= 0 ? t[stride[0] + stride[1] + v.k[2]] : std::conj(t[stride[0] + stride[1] - v.k[2]]);
    return ex * ey * ez;
  };

  // Structure factors, one k vector per iteration.
  const std::size_t nk = ks.size();
  std::vector<C> S(nk);
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 16)
  for (std::size_t k = 0; k < nk; ++k) {
    C s = 0.0;
    for (std::size_t a = 0; a < na; ++a) s += charges[atoms[a]] * expikr(a, ks[k]);
    S[k] = s;
  }

  // Energy and virial, summed in k order. Half space: E = k_C/(pi V) sum g |S|^2.
  const double a2 = units::kPi * units::kPi / (beta_ * beta_);
  const double volume = box.volume();
  std::vector<double> g(nk);
  ReciprocalResult r;
  for (std::size_t k = 0; k < nk; ++k) {
    const KVector& v = ks[k];
    g[k] = std::exp(-a2 * v.m2) / v.m2;
    const double e = units::kCoulomb / (units::kPi * volume) * g[k] * std::norm(S[k]);
    const double vfac = 2.0 * (1.0 + a2 * v.m2) / v.m2;
    r.energy += e;
    for (int x = 0; x < 3; ++x)
      for (int y = 0; y < 3; ++y) r.virial.m[x][y] += e * ((x == y ? 1.0 : 0.0) - vfac * v.m[x] * v.m[y]);
  }

  // Forces: F_i = (4 k_C / V) q_i sum_half g m Im[exp(i theta_i) S*].
  const double fpre = 4.0 * units::kCoulomb / volume;
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (std::size_t a = 0; a < na; ++a) {
    Vec3 f;
    for (std::size_t k = 0; k < nk; ++k) {
      const double im = (expikr(a, ks[k]) * std::conj(S[k])).imag();
      f += ks[k].m * (g[k] * im);
    }
    forces[atoms[a]] += f * (fpre * charges[atoms[a]]);
  }
  return r;
}

}  // namespace faraday
