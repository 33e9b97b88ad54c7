// CPU double-precision PME potential map and the plain Ewald potential reference (PmeMap.h).
#include <omp.h>

#include <cmath>
#include <complex>

#include "core/Error.h"
#include "core/Units.h"
#include "kernels/dcs/PmeMap.h"
#include "kernels/dcs/PmeMapDetail.h"
#include "kernels/dcs/ShearedBox.h"
#include "kernels/pme/CpuPme.h"

namespace faraday {

void applyEwaldSetup(const EwaldSetup& setup, MapOptions& options) {
  if (setup.method == ElectrostaticsMethod::None || !(setup.beta > 0))
    throw Error("pme potential map: needs an Ewald setup (pme or ewald) for its beta, grid and order");
  options.pme = setup.pme;
  options.ewaldCutoff = setup.cutoff;
}

double ewaldBackgroundPotential(double beta, double netCharge, double volume) {
  return -units::kCoulomb * units::kPi * netCharge / (volume * beta * beta);
}

namespace {
double netCharge(const std::vector<double>& charges) {
  double q = 0;
  for (double c : charges) q += c;
  return q;
}
void checkBox(const MapOptions& o, const Box& box) {
  if (!box.isValid()) throw Error("pme potential map: needs a box in reduced triclinic form");
  if (o.method == MapMethod::Pme && !(o.ewaldCutoff < box.maxCutoff()))
    throw Error("pme potential map: the real-space cutoff " + std::to_string(o.ewaldCutoff) + " nm must be below half " +
                box.maxCutoffMeaning() + " (" + std::to_string(box.maxCutoff()) + " nm)");
}
}  // namespace

CpuPmeMap::CpuPmeMap(const MapOptions& options, int threads)
    : options_(options), threads_(threads > 0 ? threads : omp_get_max_threads()) {
  if (!isPmeMethod(options_.method)) throw Error("CpuPmeMap: map method is not pme or pmepot");
  pme_ = std::make_unique<CpuPme>(options_.pme, threads_);
}

CpuPmeMap::~CpuPmeMap() = default;

void CpuPmeMap::potentialAt(const std::vector<Vec3>& points, const std::vector<Vec3>& positions,
                            const std::vector<double>& charges, const Box& box, std::vector<double>& phi,
                            Timers* timers) {
  if (positions.size() != charges.size()) throw Error("pme potential map: positions and charges differ in count");
  checkBox(options_, box);
  // Reciprocal: after CpuPme::compute the real grid holds dE_rec/dQ(k) (the forces are
  // gathered from it and discarded here).
  {
    ScopedTimer t(timers, "map.pme.reciprocal");
    std::vector<Vec3> forces(positions.size());
    pme_->compute(positions, charges, box, forces, nullptr);
  }
  pmemap::GridView grid{{options_.pme.grid[0], options_.pme.grid[1], options_.pme.grid[2]},
                        options_.pme.order,
                        dcs::shearedBoxOf(box),
                        pme_->realGrid().data()};
  const bool realSpace = options_.method == MapMethod::Pme;  // pmepot: the smooth part alone
  pmemap::CellView cells;
  std::vector<int> start;
  std::vector<pmemap::Site> sites;
  if (realSpace)
    pmemap::buildCells(positions, charges, box, options_.ewaldCutoff, options_.pme.beta, cells, start, sites);
  const double background = ewaldBackgroundPotential(options_.pme.beta, netCharge(charges), box.volume());
  phi.resize(points.size());
  ScopedTimer t(timers, "map.pme.points");
  const long long np = (long long)points.size();
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 256)
  for (long long p = 0; p < np; ++p) {
    const Vec3 r = points[p];
    const double real = realSpace ? units::kCoulomb * pmemap::realSpaceSum(cells, r.x, r.y, r.z) : 0.0;
    phi[p] = real + pmemap::interpolateGrid(grid, r.x, r.y, r.z) + background;
  }
}

void CpuPmeMap::addFrame(const Lattice& lattice, const std::vector<Vec3>& positions,
                         const std::vector<double>& charges, const Box& box, std::vector<double>& map,
                         Timers* timers) {
  std::vector<Vec3> points(lattice.size());
  for (int k = 0; k < lattice.nz; ++k)
    for (int j = 0; j < lattice.ny; ++j)
      for (int i = 0; i < lattice.nx; ++i) points[lattice.index(i, j, k)] = lattice.point(i, j, k);
  std::vector<double> phi;
  potentialAt(points, positions, charges, box, phi, timers);
  if (map.size() != lattice.size()) map.assign(lattice.size(), 0.0);
  for (std::size_t p = 0; p < phi.size(); ++p) map[p] += phi[p];
}

void cpuPmeMap(const Lattice& lattice, const std::vector<Vec3>& positions, const std::vector<double>& charges,
               const MapOptions& options, std::vector<double>& map) {
  CpuPmeMap pme(options);
  pme.addFrame(lattice, positions, charges, options.box, map);
}

EwaldPotential ewaldPotentialAt(const std::vector<Vec3>& points, const std::vector<Vec3>& positions,
                                const std::vector<double>& charges, const Box& box, double beta, double cutoff,
                                double kspaceRtol) {
  if (!box.isValid()) throw Error("ewaldPotentialAt: needs a box in reduced triclinic form");
  const std::size_t np = points.size(), na = positions.size();
  EwaldPotential out;
  out.real.assign(np, 0.0);
  out.reciprocal.assign(np, 0.0);
  out.background = ewaldBackgroundPotential(beta, netCharge(charges), box.volume());
  const double rc2 = cutoff * cutoff;
#pragma omp parallel for schedule(dynamic, 16)
  for (long long p = 0; p < (long long)np; ++p) {
    double s = 0;
    for (std::size_t a = 0; a < na; ++a) {
      const double r2 = norm2(box.minimumImage(points[p] - positions[a]));
      if (r2 >= rc2 || r2 < dcs::kMinDistance2) continue;
      const double r = std::sqrt(r2);
      s += charges[a] * std::erfc(beta * r) / r;
    }
    out.real[p] = units::kCoulomb * s;
  }
  // Half space of k vectors (weight 2) with |m| <= m_cut, m = kx a* + ky b* + kz c*: the index
  // along each box vector is m . edge, at most m_cut |edge|.
  const Vec3 L = box.edgeLengths();
  const ReciprocalBox recip = box.reciprocal();
  const double mcut = beta * std::sqrt(-std::log(kspaceRtol)) / units::kPi;
  int kmax[3];
  for (int d = 0; d < 3; ++d) kmax[d] = int(std::ceil(mcut * L[d]));
  struct Term {
    Vec3 m;
    double g;  // 2 exp(-pi^2 m^2/beta^2)/m^2
    std::complex<double> S;
  };
  std::vector<Term> terms;
  for (int kx = 0; kx <= kmax[0]; ++kx)
    for (int ky = -kmax[1]; ky <= kmax[1]; ++ky)
      for (int kz = -kmax[2]; kz <= kmax[2]; ++kz) {
        if (kx == 0 && (ky < 0 || (ky == 0 && kz <= 0))) continue;
        const Vec3 m = recip.a * double(kx) + recip.b * double(ky) + recip.c * double(kz);
        const double m2 = norm2(m);
        if (m2 > mcut * mcut) continue;
        terms.push_back({m, 2.0 * std::exp(-units::kPi * units::kPi * m2 / (beta * beta)) / m2, {0.0, 0.0}});
      }
#pragma omp parallel for schedule(dynamic, 16)
  for (long long t = 0; t < (long long)terms.size(); ++t) {
    std::complex<double> S = 0;
    for (std::size_t a = 0; a < na; ++a) S += charges[a] * std::polar(1.0, 2.0 * units::kPi * dot(terms[t].m, positions[a]));
    terms[t].S = S;
  }
  const double pref = units::kCoulomb / (units::kPi * box.volume());
#pragma omp parallel for schedule(dynamic, 16)
  for (long long p = 0; p < (long long)np; ++p) {
    double s = 0;
    for (const Term& t : terms) s += t.g * (t.S * std::polar(1.0, -2.0 * units::kPi * dot(t.m, points[p]))).real();
    out.reciprocal[p] = pref * s;
  }
  return out;
}

}  // namespace faraday
