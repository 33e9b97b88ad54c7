// Potential maps (DCS): CPU reference against analytic values, GPU kernels against the
// CPU reference and each other, cutoff against direct, averaging, writers, bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "engine/Config.h"
#include "engine/Coordinates.h"
#include "engine/DcdFile.h"
#include "engine/Error.h"
#include "engine/GroFile.h"
#include "engine/MapCommand.h"
#include "engine/MapReporter.h"
#include "engine/MapWriters.h"
#include "engine/Units.h"
#include "engine/bench/CudaDcsStudy.h"
#include "kernels/dcs/Dcs.h"
#include "kernels/dcs/DcsPair.h"
#include "tests/TestSupport.h"
#include "tests/Tolerances.h"

namespace faraday {
namespace {

using test::errorOf;
using test::relRms;

struct Atoms {
  std::vector<Vec3> positions;
  std::vector<double> charges;
};

/// n atoms uniform in [lo, lo + L) with random charges of alternating sign (net charge ~0).
Atoms randomAtoms(std::size_t n, Vec3 lo, Vec3 L, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Atoms a;
  for (std::size_t i = 0; i < n; ++i) {
    a.positions.push_back({lo.x + u(rng) * L.x, lo.y + u(rng) * L.y, lo.z + u(rng) * L.z});
    a.charges.push_back((i % 2 ? -1.0 : 1.0) * (0.2 + 0.8 * u(rng)));
  }
  return a;
}

Lattice makeLattice(Vec3 origin, double h, int nx, int ny, int nz) {
  Lattice l;
  l.origin = origin;
  l.spacing = {h, h, h};
  l.nx = nx;
  l.ny = ny;
  l.nz = nz;
  return l;
}

double maxAbs(const std::vector<double>& a) {
  double m = 0;
  for (double v : a) m = std::max(m, std::abs(v));
  return m;
}

std::filesystem::path tempDir(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / ("faraday_test_dcs_" + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

/// A DCD of `frames` (positions nm) in `box`, written by the engine's DcdWriter.
void writeDcd(const std::filesystem::path& file, const std::vector<std::vector<Vec3>>& frames, const Box& box) {
  DcdWriter w(file, frames.at(0).size(), 0, 10, 0.002);
  for (const auto& f : frames) w.writeFrame(f, box);
}

/// Parses an OpenDX file written by writeOpenDx: header lines and values (back to x fastest).
struct ParsedDx {
  std::vector<std::string> header;
  int n[3] = {0, 0, 0};
  std::vector<double> values;
  std::string text;
};
ParsedDx readDx(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  ParsedDx p;
  p.text = ss.str();
  std::istringstream lines(p.text);
  std::string line;
  std::size_t items = 0;
  while (std::getline(lines, line)) {
    p.header.push_back(line);
    if (line.rfind("object 1 class gridpositions counts", 0) == 0)
      std::sscanf(line.c_str(), "object 1 class gridpositions counts %d %d %d", &p.n[0], &p.n[1], &p.n[2]);
    if (line.find("data follows") != std::string::npos) {
      std::sscanf(line.c_str(), "object 3 class array type double rank 0 items %zu", &items);
      break;
    }
  }
  std::vector<double> zfast(items);
  for (std::size_t i = 0; i < items; ++i) lines >> zfast[i];
  p.values.resize(items);
  std::size_t c = 0;
  for (int i = 0; i < p.n[0]; ++i)
    for (int j = 0; j < p.n[1]; ++j)
      for (int k = 0; k < p.n[2]; ++k) p.values[(std::size_t(k) * p.n[1] + j) * p.n[0] + i] = zfast[c++];
  return p;
}

MapOptions directOptions(bool periodic, const Box& box = Box::rectangular(3, 3, 3)) {
  MapOptions o;
  o.method = MapMethod::Direct;
  o.periodic = periodic;
  o.box = box;
  return o;
}
MapOptions cutoffOptions(double rc, bool periodic, const Box& box = Box::rectangular(3, 3, 3)) {
  MapOptions o = directOptions(periodic, box);
  o.method = MapMethod::Cutoff;
  o.cutoff = rc;
  return o;
}

/// A lone charge off the lattice planes, plus one lattice point that sits on a second
/// charge (whose own term is skipped there: DcsPair.h kMinDistance).
struct LoneCharge {
  Lattice lattice = makeLattice({-1.0, -1.0, -1.0}, 0.1, 21, 21, 21);
  Atoms atoms{{{0.0312, -0.0147, 0.0221}}, {0.8}};
  double expected(int i, int j, int k) const {
    const double r = std::sqrt(norm2(lattice.point(i, j, k) - atoms.positions[0]));
    return units::kCoulomb * atoms.charges[0] / r;
  }
};

// ---- direct: analytic ------------------------------------------------------------------

TEST(DcsCpu, SingleChargeGivesCoulombPotential) {
  LoneCharge c;
  std::vector<double> map;
  cpuDirectMap(c.lattice, c.atoms.positions, c.atoms.charges, directOptions(false), map);
  for (int k = 0; k < c.lattice.nz; k += 3)
    for (int j = 0; j < c.lattice.ny; j += 2)
      for (int i = 0; i < c.lattice.nx; ++i)
        EXPECT_NEAR(map[c.lattice.index(i, j, k)], c.expected(i, j, k), tol::kDoubleSum * std::abs(c.expected(i, j, k)));
}

TEST(DcsCpu, PointOnAnAtomSkipsThatAtom) {
  const Lattice l = makeLattice({0, 0, 0}, 0.1, 4, 4, 4);
  const Atoms a{{{0.1, 0.2, 0.3}, {0.35, 0.05, 0.05}}, {1.0, -0.5}};
  std::vector<double> map;
  cpuDirectMap(l, a.positions, a.charges, directOptions(false), map);
  const double r = std::sqrt(norm2(l.point(1, 2, 3) - a.positions[1]));
  EXPECT_NEAR(map[l.index(1, 2, 3)], units::kCoulomb * -0.5 / r, 1e-12);
}

TEST(DcsGpu, SingleChargeGivesCoulombPotential) {
  FARADAY_REQUIRE_GPU();
  LoneCharge c;
  for (DcsKernel k : {DcsKernel::Gather, DcsKernel::Coarsened, DcsKernel::Coalesced}) {
    const std::vector<double> map =
        cudaPotentialMap(k, kProductionAccumulation, c.lattice, c.atoms.positions, c.atoms.charges, directOptions(false));
    int checked = 0;
    for (int kz = 0; kz < c.lattice.nz; ++kz)
      for (int j = 0; j < c.lattice.ny; ++j)
        for (int i = 0; i < c.lattice.nx; ++i) {
          const double e = c.expected(i, j, kz);
          ASSERT_NEAR(map[c.lattice.index(i, j, kz)], e, tol::kDcsFloatPointRel * std::abs(e))
              << dcsKernelName(k) << " at " << i << "," << j << "," << kz;
          ++checked;
        }
    EXPECT_EQ(checked, 21 * 21 * 21);
  }
}

TEST(DcsGpu, PointOnAnAtomSkipsThatAtom) {
  FARADAY_REQUIRE_GPU();
  const Lattice l = makeLattice({0, 0, 0}, 0.1, 4, 4, 4);
  const Atoms a{{{0.1, 0.2, 0.3}, {0.35, 0.05, 0.05}}, {1.0, -0.5}};
  std::vector<double> ref;
  cpuDirectMap(l, a.positions, a.charges, directOptions(false), ref);
  for (DcsKernel k : {DcsKernel::Gather, DcsKernel::Coarsened, DcsKernel::Coalesced}) {
    const std::vector<double> map =
        cudaPotentialMap(k, kProductionAccumulation, l, a.positions, a.charges, directOptions(false));
    const double r = std::sqrt(norm2(l.point(1, 2, 3) - a.positions[1]));
    const double e = units::kCoulomb * -0.5 / r;
    EXPECT_NEAR(map[l.index(1, 2, 3)], e, tol::kDcsFloatPointRel * std::abs(e)) << dcsKernelName(k);
    // The row through the atom (j = 2, k = 3) takes the per-point test path; every point
    // still matches the reference, to float rounding of the larger of the two terms.
    for (int kz = 0; kz < l.nz; ++kz)
      for (int j = 0; j < l.ny; ++j)
        for (int i = 0; i < l.nx; ++i) {
          double scale = 0;
          for (std::size_t n = 0; n < a.positions.size(); ++n) {
            const double rn = std::sqrt(norm2(l.point(i, j, kz) - a.positions[n]));
            if (rn > dcs::kMinDistance) scale += units::kCoulomb * std::abs(a.charges[n]) / rn;
          }
          EXPECT_NEAR(map[l.index(i, j, kz)], ref[l.index(i, j, kz)], tol::kDcsFloatPointRel * scale)
              << dcsKernelName(k) << " at " << i << "," << j << "," << kz;
        }
  }
}

// ---- direct: GPU vs CPU ------------------------------------------------------------------

class DcsGpuDirect : public ::testing::TestWithParam<bool> {};

TEST_P(DcsGpuDirect, MatchesCpuReference) {
  FARADAY_REQUIRE_GPU();
  const bool periodic = GetParam();
  const Box box = Box::rectangular(3.1, 2.7, 2.9);
  // Atoms over the box (some outside it when non-periodic), lattice from the box; 9000
  // atoms = 3 constant-memory chunks.
  const Atoms a = randomAtoms(9000, {-0.3, -0.3, -0.3}, {3.7, 3.3, 3.5}, periodic ? 21 : 22);
  const Lattice l = Lattice::fromBox(box, 0.13);
  const MapOptions o = directOptions(periodic, box);
  std::vector<double> ref;
  cpuDirectMap(l, a.positions, a.charges, o, ref);
  for (DcsAccumulation acc : {DcsAccumulation::Float, DcsAccumulation::Kahan, DcsAccumulation::BlockedDouble}) {
    const std::vector<double> gpu = cudaPotentialMap(DcsKernel::Coalesced, acc, l, a.positions, a.charges, o);
    const double err = relRms(gpu, ref);
    std::printf("  direct %s, %s accumulation: relative RMS vs CPU %.3e\n", periodic ? "periodic" : "non-periodic",
                dcsAccumulationName(acc), err);
    if (acc == kProductionAccumulation) EXPECT_LT(err, tol::kDcsGpuRelRms);
  }
}
INSTANTIATE_TEST_SUITE_P(PeriodicOrNot, DcsGpuDirect, ::testing::Values(false, true));

TEST(DcsGpu, LongRowsMatchCpuReference) {
  FARADAY_REQUIRE_GPU();
  // nx = 200 and 300 take the 8- and 16-points-per-thread tiles (one tile per row, partly
  // outside the lattice); 7 x 4 tiles are far fewer than the GPU holds, so every tile is
  // split over atom ranges and folded by tailFoldKernel. Lattice inside the atoms' box
  // (closest approach ~7e-3 nm): a host emulation of the float arithmetic gives 5e-7.
  for (int nx : {200, 300}) {
    const Lattice l = makeLattice({-0.1, 1.0, 1.0}, 0.01, nx, 7, 4);
    const Atoms a = randomAtoms(3000, {0, 0, 0}, {3.0, 3.0, 3.0}, 33);
    for (bool periodic : {false, true}) {
      const MapOptions o = directOptions(periodic, Box::rectangular(3.0, 3.0, 3.0));
      std::vector<double> ref;
      cpuDirectMap(l, a.positions, a.charges, o, ref);
      const std::vector<double> gpu =
          cudaPotentialMap(DcsKernel::Coalesced, kProductionAccumulation, l, a.positions, a.charges, o);
      const double err = relRms(gpu, ref);
      std::printf("  direct nx = %d %s: relative RMS vs CPU %.3e\n", nx, periodic ? "periodic" : "non-periodic", err);
      EXPECT_LT(err, tol::kDcsGpuRelRms) << "nx " << nx << (periodic ? " periodic" : " non-periodic");
      EXPECT_EQ(gpu, cudaPotentialMap(DcsKernel::Coalesced, kProductionAccumulation, l, a.positions, a.charges, o));
    }
  }
}

TEST(DcsGpu, EveryVariantEqualsProductionGather) {
  FARADAY_REQUIRE_GPU();
  // nx = 70 is not a multiple of any block width: the edge guards are exercised.
  const Lattice l = makeLattice({-0.2, -0.1, 0.05}, 0.07, 70, 23, 9);
  const Atoms a = randomAtoms(5000, {0, 0, 0}, {4.5, 1.5, 0.6}, 31);
  for (bool periodic : {false, true}) {
    const MapOptions o = directOptions(periodic, Box::rectangular(4.5, 1.6, 0.7));
    const std::vector<double> prod =
        cudaPotentialMap(DcsKernel::Coalesced, kProductionAccumulation, l, a.positions, a.charges, o);
    // Deterministic: the same inputs give the same bits.
    EXPECT_EQ(prod, cudaPotentialMap(DcsKernel::Coalesced, kProductionAccumulation, l, a.positions, a.charges, o));
    for (DcsKernel k : {DcsKernel::Scatter, DcsKernel::Gather, DcsKernel::Coarsened, DcsKernel::Coalesced})
      for (DcsAccumulation acc : {DcsAccumulation::Float, DcsAccumulation::Kahan, DcsAccumulation::BlockedDouble}) {
        if (k == DcsKernel::Scatter && (periodic || acc != DcsAccumulation::Float)) continue;
        const std::vector<double> m = cudaPotentialMap(k, acc, l, a.positions, a.charges, o);
        EXPECT_LT(relRms(m, prod), tol::kDcsVariantRelRms)
            << dcsKernelName(k) << " " << dcsAccumulationName(acc) << (periodic ? " periodic" : "");
      }
  }
}

// ---- cutoff ------------------------------------------------------------------------------

/// Brute-force cutoff map: every atom (every image within one box when periodic) against
/// every point, with the same switched term. Independent of the CPU and GPU binning.
std::vector<double> bruteCutoff(const Lattice& l, const Atoms& a, const MapOptions& o) {
  std::vector<double> map(l.size(), 0.0);
  const double inv_rc2 = 1.0 / (o.cutoff * o.cutoff);
  for (int k = 0; k < l.nz; ++k)
    for (int j = 0; j < l.ny; ++j)
      for (int i = 0; i < l.nx; ++i) {
        double phi = 0;
        for (std::size_t n = 0; n < a.positions.size(); ++n) {
          Vec3 d = l.point(i, j, k) - a.positions[n];
          if (o.periodic) d = o.box.minimumImage(d);
          const double r2 = norm2(d);
          phi += dcs::cutoffTerm(a.charges[n], r2, 1.0 / std::sqrt(r2), inv_rc2);
        }
        map[l.index(i, j, k)] = units::kCoulomb * phi;
      }
  return map;
}

TEST(DcsCpu, CutoffMatchesBruteForce) {
  const Box box = Box::rectangular(3.0, 2.8, 3.2);
  const Atoms a = randomAtoms(1500, {0, 0, 0}, box.lengths(), 41);
  const Lattice l = Lattice::fromBox(box, 0.15);
  for (bool periodic : {false, true}) {
    const MapOptions o = cutoffOptions(1.1, periodic, box);
    std::vector<double> map;
    cpuCutoffMap(l, a.positions, a.charges, o, map);
    const std::vector<double> brute = bruteCutoff(l, a, o);
    EXPECT_LT(relRms(map, brute), tol::kDoubleSum) << (periodic ? "periodic" : "non-periodic");
  }
}

TEST(DcsCpu, CutoffOfALoneChargeIsTheSwitchedCoulomb) {
  LoneCharge c;
  const double rc = 0.7;
  std::vector<double> map;
  cpuCutoffMap(c.lattice, c.atoms.positions, c.atoms.charges, cutoffOptions(rc, false), map);
  int inside = 0, outside = 0;
  for (int k = 0; k < c.lattice.nz; ++k)
    for (int j = 0; j < c.lattice.ny; ++j)
      for (int i = 0; i < c.lattice.nx; ++i) {
        const double r = std::sqrt(norm2(c.lattice.point(i, j, k) - c.atoms.positions[0]));
        const double s = 1 - r * r / (rc * rc);
        const double e = r < rc ? c.expected(i, j, k) * s * s : 0.0;
        (r < rc ? inside : outside)++;
        ASSERT_NEAR(map[c.lattice.index(i, j, k)], e, tol::kDoubleSum * std::abs(c.expected(i, j, k)));
      }
  EXPECT_GT(inside, 1000);
  EXPECT_GT(outside, 1000);
}

/// Pointwise bound on |direct - cutoff| (double, CPU): per point,
///   phi_direct - phi_cut = k_C [ sum_{r<rc} q (1 - s(r)) / r + sum_{r>=rc} q / r ],
/// s(r) = (1 - r^2/rc^2)^2, so by the triangle inequality
///   |phi_direct - phi_cut| <= k_C [ sum_{r<rc} |q| (1 - s(r)) / r + sum_{r>=rc} |q| / r ].
/// For a neutral random system the actual difference is much smaller (the far field
/// nearly cancels); the bound holds for any charges, so the test can only fail when the
/// cutoff map is not this switched sum.
TEST(DcsCpu, CutoffDiffersFromDirectWithinDerivedBound) {
  const Atoms a = randomAtoms(2000, {0, 0, 0}, {3, 3, 3}, 51);
  const Lattice l = makeLattice({0.05, 0.05, 0.05}, 0.2, 15, 15, 15);
  const double rc = 1.0;
  std::vector<double> direct, cut;
  cpuDirectMap(l, a.positions, a.charges, directOptions(false), direct);
  cpuCutoffMap(l, a.positions, a.charges, cutoffOptions(rc, false), cut);
  double maxRatio = 0;
  for (int k = 0; k < l.nz; ++k)
    for (int j = 0; j < l.ny; ++j)
      for (int i = 0; i < l.nx; ++i) {
        double bound = 0;
        for (std::size_t n = 0; n < a.positions.size(); ++n) {
          const double r = std::sqrt(norm2(l.point(i, j, k) - a.positions[n]));
          const double s = r < rc ? (1 - r * r / (rc * rc)) * (1 - r * r / (rc * rc)) : 0.0;
          bound += std::abs(a.charges[n]) * (1 - s) / r;
        }
        bound *= units::kCoulomb;
        const std::size_t p = l.index(i, j, k);
        const double diff = std::abs(direct[p] - cut[p]);
        ASSERT_LE(diff, bound * (1 + tol::kDoubleSum)) << "point " << i << "," << j << "," << k;
        maxRatio = std::max(maxRatio, diff / bound);
      }
  std::printf("  cutoff vs direct: largest |difference| / bound = %.3f\n", maxRatio);
}

TEST(DcsGpu, CutoffBinnedMatchesCpuReference) {
  FARADAY_REQUIRE_GPU();
  const Box box = Box::rectangular(4.0, 3.6, 3.3);
  const Atoms a = randomAtoms(12000, {0, 0, 0}, box.lengths(), 61);  // ~250 atoms/nm^3: a dense system
  for (bool periodic : {false, true}) {
    // Non-periodic: a padded lattice off the box corner; periodic: the box lattice.
    const Lattice l = periodic ? Lattice::fromBox(box, 0.11) : Lattice::fromAtoms(a.positions, 0.11, 0.4);
    const MapOptions o = cutoffOptions(1.2, periodic, box);
    std::vector<double> ref;
    cpuCutoffMap(l, a.positions, a.charges, o, ref);
    DcsKernelStats st;
    const std::vector<double> gpu =
        cudaPotentialMap(DcsKernel::CutoffBinned, kProductionAccumulation, l, a.positions, a.charges, o, &st);
    EXPECT_LT(relRms(gpu, ref), tol::kDcsGpuRelRms) << (periodic ? "periodic" : "non-periodic");
    std::printf("  cutoff binned %s: relative RMS %.3e, %lld overflow atoms\n", periodic ? "periodic" : "non-periodic",
                relRms(gpu, ref), st.overflowAtoms);
  }
}

TEST(DcsGpu, CutoffPointOnAnAtomSkipsThatAtom) {
  FARADAY_REQUIRE_GPU();
  // Atoms on lattice points (and one near a point, inside the 2e-4 nm margin) take the
  // host path with the near-atom test; the rest of the map still matches the reference.
  const Box box = Box::rectangular(2.0, 2.0, 2.0);
  Atoms a = randomAtoms(800, {0, 0, 0}, box.lengths(), 75);
  a.positions[0] = {0.5, 0.7, 0.9};
  a.positions[1] = {1.2, 0.3, 1.0};
  a.positions[2] = {0.80005, 1.1, 0.4};
  const Lattice l = Lattice::fromBox(box, 0.1);
  for (bool periodic : {false, true}) {
    const MapOptions o = cutoffOptions(0.9, periodic, box);
    std::vector<double> ref;
    cpuCutoffMap(l, a.positions, a.charges, o, ref);
    DcsKernelStats st;
    const std::vector<double> gpu =
        cudaPotentialMap(DcsKernel::CutoffBinned, kProductionAccumulation, l, a.positions, a.charges, o, &st);
    EXPECT_GE(st.overflowAtoms, 3) << (periodic ? "periodic" : "non-periodic");
    for (double v : gpu) ASSERT_TRUE(std::isfinite(v));
    EXPECT_LT(relRms(gpu, ref), tol::kDcsGpuRelRms) << (periodic ? "periodic" : "non-periodic");
  }
}

TEST(DcsGpu, OverflowListGivesTheSameMap) {
  FARADAY_REQUIRE_GPU();
  const Box box = Box::rectangular(3.0, 3.0, 3.0);
  const Atoms a = randomAtoms(6000, {0, 0, 0}, box.lengths(), 71);
  const Lattice l = Lattice::fromBox(box, 0.12);
  for (bool periodic : {false, true}) {
    MapOptions o = cutoffOptions(1.0, periodic, box);
    std::vector<double> ref;
    cpuCutoffMap(l, a.positions, a.charges, o, ref);
    DcsKernelStats roomy, tight;
    const std::vector<double> m16 =
        cudaPotentialMap(DcsKernel::CutoffBinned, kProductionAccumulation, l, a.positions, a.charges, o, &roomy);
    o.binCapacity = 2;  // 0.5 nm bins hold ~28 atoms here: most atoms overflow to the host
    o.binSide = 0.5;
    const std::vector<double> m2 =
        cudaPotentialMap(DcsKernel::CutoffBinned, kProductionAccumulation, l, a.positions, a.charges, o, &tight);
    EXPECT_GT(tight.overflowAtoms, 3000);
    EXPECT_LT(relRms(m2, ref), tol::kDcsGpuRelRms);
    EXPECT_LT(relRms(m2, m16), tol::kDcsVariantRelRms);
  }
}

// ---- averaging ---------------------------------------------------------------------------

Config mapConfig(const std::filesystem::path& dir, const std::string& method, const std::string& file) {
  Config c;
  c.output.directory = dir;
  c.map.enabled = true;
  c.map.method = method;
  c.map.spacing = 0.2;
  c.map.cutoff = 0.9;
  c.map.periodic = true;
  c.map.interval = 10;
  c.map.file = file;
  c.map.units = "kJ/mol/e";
  return c;
}

System smallSystem(std::size_t n, const Box& box) {
  System s;
  s.types.push_back({"A", 10, 0, 0.3, 0.5});
  s.box = box;
  const Atoms a = randomAtoms(n, {0, 0, 0}, box.lengths(), 81);
  s.charge = a.charges;
  s.type.assign(n, 0);
  s.mass.assign(n, 10);
  return s;
}

std::vector<std::vector<Vec3>> frames(std::size_t n, const Box& box, int count) {
  std::vector<std::vector<Vec3>> f;
  for (int i = 0; i < count; ++i) f.push_back(randomAtoms(n, {0, 0, 0}, box.lengths(), 90 + i).positions);
  return f;
}

void checkAverageEqualsMeanOfFrames(bool useCuda, const std::string& method) {
  const Box box = Box::rectangular(2.4, 2.2, 2.0);
  const System sys = smallSystem(400, box);
  const auto dir = tempDir(std::string("avg_") + (useCuda ? "gpu_" : "cpu_") + method);
  const Config cfg = mapConfig(dir, method, "avg.dx");
  auto reporter = makeMapReporter(cfg, sys, useCuda, nullptr);
  EXPECT_EQ(reporter->interval(), 10);
  const auto f = frames(sys.size(), box, 3);
  State st;
  st.box = box;
  for (int i = 0; i < 3; ++i) {
    st.positions = f[i];
    st.step = 10 * i;
    reporter->report(st, Energies{}, 0.0);
  }
  reporter->report(st, Energies{}, 0.0);  // the same step again is not a new frame
  reporter->finish(st);
  // Mean of single-frame maps, each computed alone by the same path.
  const Lattice l = Lattice::fromBox(box, 0.2);
  MapOptions o = method == "cutoff" ? cutoffOptions(0.9, true, box) : directOptions(true, box);
  std::vector<double> mean(l.size(), 0.0);
  for (int i = 0; i < 3; ++i) {
    std::vector<double> m;
    if (useCuda)
      m = cudaPotentialMap(productionKernel(o.method), kProductionAccumulation, l, f[i], sys.charge, o);
    else
      cpuPotentialMap(l, f[i], sys.charge, o, m);
    for (std::size_t p = 0; p < m.size(); ++p) mean[p] += m[p] / 3.0;
  }
  const ParsedDx dx = readDx(dir / "avg.dx");
  ASSERT_EQ(dx.values.size(), l.size());
  EXPECT_LT(relRms(dx.values, mean), tol::kDxRoundTripRel);
  EXPECT_GT(maxAbs(mean), 1.0);
}

TEST(DcsCpu, AveragedMapEqualsMeanOfFrames) {
  checkAverageEqualsMeanOfFrames(false, "direct");
  checkAverageEqualsMeanOfFrames(false, "cutoff");
}

TEST(DcsGpu, AveragedMapEqualsMeanOfFrames) {
  FARADAY_REQUIRE_GPU();
  checkAverageEqualsMeanOfFrames(true, "direct");
  checkAverageEqualsMeanOfFrames(true, "cutoff");
}

void checkMapOfTrajectory(bool useCuda) {
  const Box box = Box::rectangular(2.0, 2.0, 2.0);
  const System sys = smallSystem(300, box);
  const auto dir = tempDir(useCuda ? "traj_gpu" : "traj_cpu");
  Config cfg = mapConfig(dir, "direct", "traj.dx");
  cfg.map.trajectory = (dir / "t.dcd").string();
  const auto f = frames(sys.size(), box, 4);
  writeDcd(cfg.map.trajectory, f, box);
  ASSERT_EQ(mapMain(cfg, sys, useCuda), 0);
  const Lattice l = Lattice::fromBox(box, 0.2);
  std::vector<double> sum;
  for (const auto& frame : f) {
    std::vector<Vec3> p = frame;
    for (Vec3& r : p) r = Vec3{float(r.x * 10), float(r.y * 10), float(r.z * 10)} / 10.0;  // DCD stores float Angstrom
    cpuDirectMap(l, p, sys.charge, directOptions(true, box), sum);
  }
  for (double& v : sum) v /= 4.0;
  EXPECT_LT(relRms(readDx(dir / "traj.dx").values, sum), useCuda ? tol::kDcsGpuRelRms : tol::kDxRoundTripRel);
}

TEST(DcsCpu, MapOfTrajectoryAveragesEveryFrame) { checkMapOfTrajectory(false); }

TEST(DcsGpu, MapOfTrajectoryAveragesEveryFrame) {
  FARADAY_REQUIRE_GPU();
  checkMapOfTrajectory(true);
}

/// `faraday map CONFIG`: the config loader, the coordinate reader and the DCD reader of the
/// engine, end to end on the CPU, against the reference map of the same frames.
TEST(DcsCpu, MapCommandFromConfigFile) {
  const auto dir = tempDir("command");
  const Box box = Box::rectangular(2.5, 2.5, 2.5);
  Coordinates c;
  c.title = "ions";
  c.box = box;
  const Atoms a = randomAtoms(60, {0, 0, 0}, box.lengths(), 101);
  for (std::size_t i = 0; i < a.positions.size(); ++i) {
    c.residueId.push_back(int(i) + 1);
    c.residueName.push_back(i % 2 ? "CL" : "NA");
    c.atomName.push_back(i % 2 ? "CL" : "NA");
    c.positions.push_back(a.positions[i]);
  }
  writeGro(dir / "ions.gro", c);
  const auto f = frames(c.size(), box, 3);
  writeDcd(dir / "ions.dcd", f, box);
  {
    std::ofstream cfg(dir / "map.cfg");
    cfg << "[system]\ncoordinates = ions.gro\n\n[atom.NA]\nmass = 22.99\ncharge = 1\nsigma = 0.33\nepsilon = 0.01\n\n"
           "[atom.CL]\nmass = 35.45\ncharge = -1\nsigma = 0.44\nepsilon = 0.4\n\n[nonbonded]\ncutoff = 1.0\n\n"
           "[run]\nplatform = cpu\n\n[output]\ndirectory = out\n\n"
           "[map]\nmethod = cutoff\ncutoff = 1.0\nspacing = 0.25\ntrajectory = ions.dcd\nfile = ions.dx\nunits = V\n";
  }
  const Config config = loadConfig(dir / "map.cfg", {});
  std::filesystem::create_directories(config.output.directory);
  ASSERT_EQ(mapMain(config), 0);
  const Lattice l = Lattice::fromBox(box, 0.25);
  std::vector<double> charges;
  for (std::size_t i = 0; i < c.size(); ++i) charges.push_back(i % 2 ? -1.0 : 1.0);
  std::vector<double> mean;
  for (const auto& frame : f) {
    std::vector<Vec3> p = frame;
    for (Vec3& r : p) r = Vec3{float(r.x * 10), float(r.y * 10), float(r.z * 10)} / 10.0;  // DCD stores float Angstrom
    cpuCutoffMap(l, p, charges, cutoffOptions(1.0, true, box), mean);
  }
  for (double& v : mean) v *= units::kVoltPerKjMolE / 3.0;
  EXPECT_LT(relRms(readDx(dir / "out" / "ions.dx").values, mean), tol::kDxRoundTripRel);
}

// ---- writers -----------------------------------------------------------------------------

TEST(DcsWriters, OpenDxRoundTripsWithApbsHeader) {
  const Lattice l = makeLattice({-1.25, 0.5, 2.0}, 0.15, 5, 4, 7);  // 140 values: not a multiple of 3... 140 = 3*46+2
  std::vector<double> v(l.size());
  std::mt19937 rng(5);
  std::normal_distribution<double> g(0, 30);
  for (double& x : v) x = g(rng);
  const auto dir = tempDir("dx");
  writeMap(dir / "m.dx", l, v, "test map");
  EXPECT_FALSE(std::filesystem::exists(dir / "m.dx.tmp"));
  const ParsedDx dx = readDx(dir / "m.dx");
  for (const char* line :
       {"object 1 class gridpositions counts 5 4 7", "origin -1.250000000e+01 5.000000000e+00 2.000000000e+01",
        "delta 1.500000000e+00 0.000000000e+00 0.000000000e+00", "delta 0.000000000e+00 1.500000000e+00 0.000000000e+00",
        "delta 0.000000000e+00 0.000000000e+00 1.500000000e+00", "object 2 class gridconnections counts 5 4 7",
        "object 3 class array type double rank 0 items 140 data follows", "attribute \"dep\" string \"positions\"",
        "object \"regular positions regular connections\" class field", "component \"positions\" value 1",
        "component \"connections\" value 2", "component \"data\" value 3"})
    EXPECT_NE(dx.text.find(std::string(line) + "\n"), std::string::npos) << line;
  ASSERT_EQ(dx.values.size(), v.size());
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(dx.values[i], v[i], tol::kDxRoundTripRel * std::abs(v[i]));
  // z fastest: the first data line holds points (0,0,0), (0,0,1), (0,0,2).
  const std::size_t at = dx.text.find("data follows\n") + 13;
  double first[3];
  std::sscanf(dx.text.c_str() + at, "%lf %lf %lf", &first[0], &first[1], &first[2]);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(first[k], v[l.index(0, 0, k)], tol::kDxRoundTripRel * std::abs(v[l.index(0, 0, k)]));
}

TEST(DcsWriters, MrcHeaderAndData) {
  const Lattice l = makeLattice({0.3, -0.2, 0.1}, 0.1, 6, 5, 4);
  std::vector<double> v(l.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.37 * double(i)) * 12.5;
  const auto dir = tempDir("mrc");
  writeMap(dir / "m.ccp4", l, v, "");
  std::ifstream in(dir / "m.ccp4", std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), 1024 + 4 * v.size());
  std::int32_t iw[256];
  std::memcpy(iw, bytes.data(), 1024);
  const float* fw = reinterpret_cast<const float*>(iw);
  EXPECT_EQ(iw[0], 6);
  EXPECT_EQ(iw[1], 5);
  EXPECT_EQ(iw[2], 4);
  EXPECT_EQ(iw[3], 2);
  EXPECT_NEAR(fw[10], 6.0f, 1e-5);  // cell, Angstrom
  EXPECT_NEAR(fw[11], 5.0f, 1e-5);
  EXPECT_NEAR(fw[49], 3.0f, 1e-5);  // origin, Angstrom
  EXPECT_EQ(iw[22], 1);      // ISPG: a single volume
  EXPECT_EQ(iw[27], 20140);  // NVERSION: MRC2014, which mrcfile.validate requires
  EXPECT_EQ(std::string(bytes.data() + 208, 4), "MAP ");
  EXPECT_EQ(std::uint8_t(bytes[212]), 0x44);
  for (std::size_t i = 0; i < v.size(); ++i) {
    float f;
    std::memcpy(&f, bytes.data() + 1024 + 4 * i, 4);
    EXPECT_NEAR(f, v[i], tol::kMrcRoundTripRel * std::abs(v[i]));
  }
}

TEST(DcsWriters, UnitFactors) {
  EXPECT_EQ(mapUnitFactor("kJ/mol/e", 300), 1.0);
  EXPECT_DOUBLE_EQ(mapUnitFactor("kT/e", 300), 1.0 / (units::kBoltzmann * 300));
  EXPECT_DOUBLE_EQ(mapUnitFactor("V", 300), units::kVoltPerKjMolE);
  EXPECT_THROW(mapUnitFactor("mV", 300), Error);
}

// ---- bad input ---------------------------------------------------------------------------

TEST(DcsErrors, BadSpacingAndHugeLattice) {
  const Box box = Box::rectangular(10, 10, 10);
  EXPECT_NE(errorOf([&] { Lattice::fromBox(box, 0.0); }).find("map.spacing"), std::string::npos);
  EXPECT_NE(errorOf([&] { Lattice::fromBox(box, -0.1); }).find("map.spacing"), std::string::npos);
  const std::string huge = errorOf([&] { Lattice::fromBox(box, 1e-5); });
  EXPECT_NE(huge.find("bytes"), std::string::npos) << huge;
  EXPECT_NE(huge.find("16000000000000000000"), std::string::npos) << huge;  // 1e18 points x 16 bytes
}

TEST(DcsErrors, BadMapKeys) {
  const Box box = Box::rectangular(2, 2, 2);
  const System sys = smallSystem(10, box);
  Config cfg = mapConfig(tempDir("keys"), "pme", "x.dx");
  cfg.electrostatics.method = "none";  // a pme map needs the run's Ewald splitting
  EXPECT_NE(errorOf([&] { makeMapReporter(cfg, sys, false, nullptr); }).find("electrostatics.method"),
            std::string::npos);
  cfg.map.method = "ewald";
  EXPECT_NE(errorOf([&] { makeMapReporter(cfg, sys, false, nullptr); }).find("map.method"), std::string::npos);
  cfg.map.method = "cutoff";
  cfg.map.cutoff = 1.5;  // > half of the 2 nm box
  EXPECT_NE(errorOf([&] { makeMapReporter(cfg, sys, false, nullptr); }).find("map.cutoff"), std::string::npos);
  cfg.map.cutoff = 0.8;
  cfg.map.units = "volts";
  EXPECT_NE(errorOf([&] { makeMapReporter(cfg, sys, false, nullptr); }).find("map.units"), std::string::npos);
  cfg.map.units = "V";
  cfg.map.file = "x.txt";
  EXPECT_NE(errorOf([&] { makeMapReporter(cfg, sys, false, nullptr); }).find("map.file"), std::string::npos);
}

TEST(DcsErrors, TrajectoryAtomCountMismatch) {
  const Box box = Box::rectangular(2, 2, 2);
  const System sys = smallSystem(7, box);
  const auto dir = tempDir("mismatch");
  Config cfg = mapConfig(dir, "direct", "m.dx");
  cfg.map.trajectory = (dir / "five.dcd").string();
  writeDcd(cfg.map.trajectory, frames(5, box, 2), box);
  const std::string e = errorOf([&] { mapMain(cfg, sys, false); });
  EXPECT_NE(e.find("five.dcd"), std::string::npos) << e;
  EXPECT_NE(e.find("5 atoms"), std::string::npos) << e;
  EXPECT_NE(e.find("has 7"), std::string::npos) << e;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.dx"));
}

}  // namespace
}  // namespace faraday
