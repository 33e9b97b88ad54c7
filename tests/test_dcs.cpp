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
#include <string>
#include <thread>

#include "engine/config/Config.h"
#include "engine/formats/Coordinates.h"
#include "engine/formats/DcdFile.h"
#include "core/Error.h"
#include "engine/formats/GroFile.h"
#include "engine/maps/MapCommand.h"
#include "engine/maps/MapReporter.h"
#include "engine/formats/MapWriters.h"
#include "core/Units.h"
#include "engine/bench/CudaDcsStudy.h"
#include "kernels/dcs/CudaDcs.h"
#include "kernels/dcs/Dcs.h"
#include "kernels/dcs/DcsPair.h"
#include "tests/MapTestSupport.h"
#include "tests/TestSupport.h"
#include "tests/Tolerances.h"

namespace faraday {
namespace {

using namespace test;

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
  const Atoms a = randomAtoms(1500, {0, 0, 0}, box.diagonal(), 41);
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
  const Atoms a = randomAtoms(12000, {0, 0, 0}, box.diagonal(), 61);  // ~250 atoms/nm^3: a dense system
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
  Atoms a = randomAtoms(800, {0, 0, 0}, box.diagonal(), 75);
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
  const Atoms a = randomAtoms(6000, {0, 0, 0}, box.diagonal(), 71);
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

// ---- accumulators sharing a GPU -----------------------------------------------------------

/// Accumulators of the direct and the cutoff method on six host threads at once, all on GPU
/// 0, each with its own lattice and frames, sum the bits each sums alone. The direct
/// kernel's atoms and the cutoff kernel's bin offsets sit in __constant__ memory, one array
/// per GPU: without turns (CudaConstantBank.h) one thread's copy lands under another's
/// kernel, and that map is summed over the wrong atoms (or bins).
TEST(DcsGpu, AccumulatorsOnThreadsSharingTheGpuSumTheirOwnFrames) {
  FARADAY_REQUIRE_GPU();
  const Box box = Box::rectangular(3.0, 3.0, 3.0);
  struct Job {
    Lattice lattice;
    MapOptions options;
    std::vector<Atoms> frames;
  };
  std::vector<Job> jobs;
  for (const bool direct : {true, false})
    for (unsigned t = 0; t < 3; ++t) {
      Job j;
      j.lattice = Lattice::fromBox(box, 0.06 + 0.01 * t);  // another lattice (cutoff: another offset list) each
      j.options = direct ? directOptions(true, box) : cutoffOptions(1.0, true, box);
      for (unsigned f = 0; f < 8; ++f)  // 9000 atoms: 3 constant-memory chunks per direct frame
        j.frames.push_back(randomAtoms(9000, {0, 0, 0}, box.diagonal(), 1000 * (direct ? 1 : 2) + 10 * t + f));
      jobs.push_back(std::move(j));
    }
  auto sumOf = [&](const Job& j) {
    CudaMapAccumulator acc(j.lattice, j.options);
    for (const Atoms& a : j.frames) acc.addFrame(a.positions, a.charges, box, nullptr);
    return acc.takeSum();
  };
  std::vector<std::vector<double>> alone, together(jobs.size());
  for (const Job& j : jobs) alone.push_back(sumOf(j));
  std::vector<std::string> errors(jobs.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    threads.emplace_back([&, i] {
      try {
        together[i] = sumOf(jobs[i]);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  for (std::thread& t : threads) t.join();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string what = std::string(i < 3 ? "direct" : "cutoff") + " job " + std::to_string(i % 3);
    EXPECT_EQ(errors[i], "") << what;
    EXPECT_GT(maxAbs(alone[i]), 1.0) << what;
    std::size_t differing = 0;
    for (std::size_t p = 0; p < alone[i].size() && p < together[i].size(); ++p)
      differing += alone[i][p] != together[i][p];
    EXPECT_EQ(together[i].size(), alone[i].size()) << what;
    EXPECT_EQ(differing, 0u) << what << ": points summed otherwise on a shared GPU";
  }
}

}  // namespace
}  // namespace faraday
