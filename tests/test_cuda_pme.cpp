// GPU PME (CudaPme.cu) against the CPU oracle (CpuPme) and its bitwise reproducibility.
// The host/device helpers it is built on are tested without a GPU in test_pme_geometry.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "core/Timers.h"
#include "kernels/pme/BSpline.h"
#include "kernels/pme/CpuPme.h"
#include "kernels/pme/CudaPme.h"
#include "kernels/pme/Electrostatics.h"
#include "tests/ElectrostaticsTestSupport.h"
#include "tests/TestSupport.h"
#include "tests/Tolerances.h"

namespace faraday {
namespace {


/// n ions (+1/-1 alternating: neutral for even n) uniformly at random in a cube at NaCl
/// melt density. A tenth of them are moved by whole box edges out of [0, L) (unwrapped
/// coordinates, as in a trajectory), which both solvers must wrap.
test::Ions randomMelt(int n, unsigned seed) {
  test::Ions s;
  const double edge = test::meltEdge(n);
  s.box = Box::rectangular(edge, edge, edge);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, edge);
  std::uniform_int_distribution<int> shift(-3, 3);
  for (int i = 0; i < n; ++i) {
    Vec3 r{u(rng), u(rng), u(rng)};
    if (i % 10 == 3) r += Vec3{shift(rng) * edge, shift(rng) * edge, shift(rng) * edge};
    s.positions.push_back(r);
    s.charges.push_back(i % 2 ? -1.0 : 1.0);
  }
  return s;
}

/// GROMACS-like settings: cutoff 1 nm, ewald_rtol 1e-5, spacing 0.12 nm.
PmeParams meltParams(const test::Ions& s, int order, double spacing = 0.12) {
  return test::pmeParams(ewaldBetaFromRtol(1.0, 1e-5), order, spacing, s.box);
}

struct PmeRun {
  ReciprocalResult result;
  std::vector<Vec3> forces;
};

PmeRun run(ReciprocalSolver& solver, const test::Ions& s, Timers* timers = nullptr) {
  PmeRun r;
  r.forces.assign(s.positions.size(), Vec3{});
  r.result = solver.compute(s.positions, s.charges, s.box, r.forces, timers);
  return r;
}

double maxAbs(const Tensor3& w) {
  double m = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) m = std::max(m, std::fabs(w.m[a][b]));
  return m;
}

/// GPU vs CPU with identical parameters: energy, forces, virial.
void expectGpuMatchesCpu(const test::Ions& s, const PmeParams& p, const char* what) {
  CpuPme cpu(p, 0);
  auto gpu = makeCudaPme(p, s.positions.size());
  const PmeRun c = run(cpu, s);
  const PmeRun g = run(*gpu, s);
  const double eRel = std::fabs(g.result.energy - c.result.energy) / std::fabs(c.result.energy);
  const double fRel = test::relativeRmsDifference(g.forces, c.forces, c.forces);
  double wMax = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      wMax = std::max(wMax, std::fabs(g.result.virial.m[a][b] - c.result.virial.m[a][b]));
  const double wRel = wMax / maxAbs(c.result.virial);
  std::printf("[ CudaPme ] %s: N=%zu grid %dx%dx%d order %d: energy rel %.2e, force rel RMS %.2e, virial rel %.2e\n",
              what, s.positions.size(), p.grid[0], p.grid[1], p.grid[2], p.order, eRel, fRel, wRel);
  EXPECT_LT(eRel, tol::kCudaPmeEnergy) << what << ": GPU " << g.result.energy << " CPU " << c.result.energy;
  EXPECT_LT(fRel, tol::kCudaPmeForceRms) << what;
  EXPECT_LT(wRel, tol::kCudaPmeVirial) << what;
}

bool bitwiseEqual(const PmeRun& a, const PmeRun& b) {
  return std::memcmp(&a.result.energy, &b.result.energy, sizeof(double)) == 0 &&
         std::memcmp(&a.result.virial, &b.result.virial, sizeof(Tensor3)) == 0 &&
         std::memcmp(a.forces.data(), b.forces.data(), a.forces.size() * sizeof(Vec3)) == 0;
}

// ---- GPU against the CPU oracle -------------------------------------------------------------

TEST(CudaPme, MatchesCpuPme1k) {
  FARADAY_REQUIRE_GPU();
  const test::Ions s = randomMelt(1000, 1);
  expectGpuMatchesCpu(s, meltParams(s, 4), "1k");
}

TEST(CudaPme, MatchesCpuPme10k) {
  FARADAY_REQUIRE_GPU();
  const test::Ions s = randomMelt(10000, 2);
  expectGpuMatchesCpu(s, meltParams(s, 4), "10k");
}

TEST(CudaPme, MatchesCpuPme100k) {
  FARADAY_REQUIRE_GPU();
  const test::Ions s = randomMelt(100000, 3);
  expectGpuMatchesCpu(s, meltParams(s, 4), "100k");
}

TEST(CudaPme, MatchesCpuPme1MAndRepeatsBitwise) {
  // The benchmark's largest size (270^3 grid): agreement, and two calls give the same bits.
  FARADAY_REQUIRE_GPU();
  const test::Ions s = randomMelt(1000000, 16);
  const PmeParams p = meltParams(s, 4);
  expectGpuMatchesCpu(s, p, "1M");
  auto gpu = makeCudaPme(p, s.positions.size());
  const PmeRun first = run(*gpu, s);
  EXPECT_TRUE(bitwiseEqual(first, run(*gpu, s))) << "1M: two identical computations differ";
}

TEST(CudaPme, AllOrdersAgreeWithCpu) {
  FARADAY_REQUIRE_GPU();
  const test::Ions s = randomMelt(3000, 4);
  for (int order = pme::kMinSplineOrder; order <= pme::kMaxSplineOrder; ++order) {
    const std::string what = "order " + std::to_string(order);
    expectGpuMatchesCpu(s, meltParams(s, order), what.c_str());
  }
}

TEST(CudaPme, NonCubicGridAndBox) {
  FARADAY_REQUIRE_GPU();
  test::Ions s = randomMelt(4000, 6);
  const Vec3 L = s.box.diagonal();
  s.box = Box::rectangular(L.x * 1.3, L.y, L.z * 0.8);
  for (Vec3& r : s.positions) r = Vec3{r.x * 1.3, r.y, r.z * 0.8};
  PmeParams p = meltParams(s, 5);
  p.grid = {p.grid[0] + 1, p.grid[1], 17};  // odd, prime, and not 2-3-5-7 smooth
  expectGpuMatchesCpu(s, p, "non-cubic");
}

TEST(CudaPme, XTransformsOfEveryRadixAgreeWithCpu) {
  // K_x of radices 4; 2 and 3; 5 and 7; 2 and 7; 11 (no line plan: the 3D transforms); a
  // tall K_y that takes 32-column tiles with a last tile one column wide (K_z/2 + 1 = 33).
  FARADAY_REQUIRE_GPU();
  const test::Ions s = randomMelt(3000, 14);
  const std::array<int, 3> grids[] = {{64, 20, 24}, {54, 21, 30}, {35, 25, 18}, {98, 24, 20}, {22, 20, 20}, {48, 200, 64}};
  for (const auto& grid : grids) {
    PmeParams p = meltParams(s, 4);
    p.grid = grid;
    const std::string what = "x transform K_x = " + std::to_string(grid[0]);
    expectGpuMatchesCpu(s, p, what.c_str());
  }
}

TEST(CudaPme, GridsSmallerThanABrickAndItsHalo) {
  // Below kBrickEdge + order - 1 points an atom reaches a brick through two periodic images;
  // the spreading then finds each point's spline index modulo K.
  FARADAY_REQUIRE_GPU();
  const test::Ions s = randomMelt(600, 13);
  const std::array<int, 3> grids[] = {{9, 10, 12}, {8, 5, 11}};
  for (int order : {4, 5}) {
    for (const auto& grid : grids) {
      PmeParams p = meltParams(s, order);
      p.grid = grid;
      const std::string what = "small grid, order " + std::to_string(order);
      expectGpuMatchesCpu(s, p, what.c_str());
    }
  }
}

TEST(CudaPme, DenseCellsStageInSeveralPasses) {
  // A coarse grid (0.53 nm spacing) puts ~5 atoms in every cell and ~310 in every bin of
  // 4^3 cells: each brick needs more atoms than one pass stages (128), and every bin is
  // larger than a pass, so the spreading takes the rank windows of a split bin.
  FARADAY_REQUIRE_GPU();
  const test::Ions s = randomMelt(20000, 11);
  for (int order : {4, 8}) {
    PmeParams p = meltParams(s, order);
    p.grid = {16, 16, 16};
    const std::string what = "dense cells, order " + std::to_string(order);
    expectGpuMatchesCpu(s, p, what.c_str());
  }
}

TEST(CudaPme, ClusteredAtomsGrowTheBinsAndStillAgree) {
  // All atoms in one eighth of the box: the occupied bins hold eight times the mean, far
  // above the initial capacity (mean + 5 sigma + 4), so the first evaluation overflows, the
  // bins grow and the evaluation runs again. The result must be the CPU's, and a second
  // call (no overflow now) must give the same bits.
  FARADAY_REQUIRE_GPU();
  test::Ions s = randomMelt(8000, 12);
  for (Vec3& r : s.positions) r = s.box.wrap(r) * 0.5;
  const PmeParams p = meltParams(s, 4);
  auto gpu = makeCudaPme(p, s.positions.size());
  const PmeRun first = run(*gpu, s);
  const PmeRun second = run(*gpu, s);
  EXPECT_TRUE(bitwiseEqual(first, second));
  expectGpuMatchesCpu(s, p, "clustered");
}

TEST(CudaPme, ZeroChargeAtomsGetNoForce) {
  FARADAY_REQUIRE_GPU();
  test::Ions s = randomMelt(2000, 7);
  for (std::size_t i = 0; i < s.charges.size(); i += 7) s.charges[i] = 0.0;
  const PmeParams p = meltParams(s, 4);
  auto gpu = makeCudaPme(p, s.positions.size());
  const PmeRun g = run(*gpu, s);
  for (std::size_t i = 0; i < s.charges.size(); i += 7) EXPECT_EQ(norm2(g.forces[i]), 0.0) << i;
  expectGpuMatchesCpu(s, p, "with q=0 atoms");
}

TEST(CudaPme, BitwiseReproducibleAcrossCallsAndReuploads) {
  FARADAY_REQUIRE_GPU();
  const test::Ions s = randomMelt(20000, 8);
  const PmeParams p = meltParams(s, 4);
  auto gpu = makeCudaPme(p, s.positions.size());
  const PmeRun first = run(*gpu, s);
  const PmeRun second = run(*gpu, s);
  EXPECT_TRUE(bitwiseEqual(first, second)) << "two identical computations differ";

  // A permuted copy (other atom order, other charges array) then the original again.
  test::Ions perm = s;
  std::vector<std::size_t> order(s.positions.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(9));
  for (std::size_t i = 0; i < order.size(); ++i) {
    perm.positions[i] = s.positions[order[i]];
    perm.charges[i] = s.charges[order[i]];
  }
  const PmeRun permuted = run(*gpu, perm);
  std::vector<Vec3> back(s.positions.size());
  for (std::size_t i = 0; i < order.size(); ++i) back[order[i]] = permuted.forces[i];
  EXPECT_LT(test::relativeRmsDifference(back, first.forces, first.forces), tol::kCudaPmeForceRms);
  EXPECT_LT(std::fabs(permuted.result.energy - first.result.energy) / std::fabs(first.result.energy),
            tol::kCudaPmeEnergy);
  const PmeRun restored = run(*gpu, s);
  EXPECT_TRUE(bitwiseEqual(first, restored)) << "state leaked from the permuted computation";

  // A second solver instance gives the same bits too.
  auto other = makeCudaPme(p, s.positions.size());
  EXPECT_TRUE(bitwiseEqual(first, run(*other, s)));
}

TEST(CudaPme, ForcesAreAddedAndPhasesTimed) {
  FARADAY_REQUIRE_GPU();
  const test::Ions s = randomMelt(5000, 10);
  const PmeParams p = meltParams(s, 4);
  auto gpu = makeCudaPme(p, s.positions.size());
  Timers timers;
  const PmeRun plain = run(*gpu, s, &timers);
  for (const char* phase :
       {"pme.spline", "pme.spread", "pme.fft_forward", "pme.convolve", "pme.fft_inverse", "pme.gather"}) {
    bool found = false;
    for (const auto& [name, entry] : timers.ordered())
      if (name == phase) {
        found = true;
        EXPECT_GT(entry.seconds, 0.0) << phase;
        EXPECT_EQ(entry.calls, 1) << phase;
      }
    EXPECT_TRUE(found) << phase;
  }
  // compute() adds into the forces it is given; and, without timers, it times the evaluation
  // alone (the untimed graph), within the call's wall time.
  std::vector<Vec3> forces(s.positions.size(), Vec3{1.0, -2.0, 3.0});
  const auto t0 = std::chrono::steady_clock::now();
  gpu->compute(s.positions, s.charges, s.box, forces, nullptr);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GT(gpu->lastEvaluationSeconds(), 0.0);
  EXPECT_LT(gpu->lastEvaluationSeconds(), wall);
  double worst = 0;
  for (std::size_t i = 0; i < forces.size(); ++i)
    worst = std::max(worst, norm2(forces[i] - Vec3{1.0, -2.0, 3.0} - plain.forces[i]));
  EXPECT_LT(std::sqrt(worst), tol::kDoubleSum * (1.0 + test::rms(plain.forces)));
}

}  // namespace
}  // namespace faraday
