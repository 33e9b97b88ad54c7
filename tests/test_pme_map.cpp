// PME potential maps (map.method = pme): the CPU map against the plain Ewald potential at
// arbitrary points, the map at the atoms against the Ewald energy, the GPU map against
// the CPU reference, `faraday map` and the run reporter end to end, bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "engine/backends/Backend.h"
#include "engine/config/Config.h"
#include "engine/formats/Coordinates.h"
#include "engine/formats/DcdFile.h"
#include "core/Error.h"
#include "engine/formats/GroFile.h"
#include "engine/config/KernelParams.h"
#include "engine/maps/MapCommand.h"
#include "engine/maps/MapReporter.h"
#include "engine/setup/SystemSetup.h"
#include "core/Units.h"
#include "kernels/dcs/PmeMap.h"
#include "kernels/pme/CpuPme.h"
#include "kernels/pme/Electrostatics.h"
#include "kernels/pme/Ewald.h"
#include "tests/ElectrostaticsTestSupport.h"
#include "tests/MapTestSupport.h"
#include "tests/TestSupport.h"
#include "tests/Tolerances.h"

namespace faraday {
namespace {

using namespace test;

using test::Ions;




/// Random points in [-L/2, 3L/2) per axis (outside the box too: the map wraps them).
std::vector<Vec3> randomPoints(std::size_t n, const Box& box, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.5, 1.5);
  const Vec3 L = box.diagonal();
  std::vector<Vec3> p;
  for (std::size_t i = 0; i < n; ++i) p.push_back({u(rng) * L.x, u(rng) * L.y, u(rng) * L.z});
  return p;
}

struct Accuracy {
  double potential;  ///< RMS |phi_PME - phi_Ewald| / RMS phi_Ewald,reciprocal over the points
  double force;      ///< RMS |F_PME,rec - F_Ewald,rec| / RMS |F_Ewald,rec| over the atoms
};

/// The PME map and the plain Ewald potential at random points; the reciprocal PME forces
/// against the Ewald forces of the same ions with the same parameters (the yardstick).
Accuracy measureAccuracy(const Ions& s, double cutoff, int order, double spacing) {
  const double beta = ewaldBetaFromRtol(cutoff, 1e-5);
  const PmeParams p = test::pmeParams(beta, order, spacing, s.box);
  const std::vector<Vec3> points = randomPoints(400, s.box, 17);
  CpuPmeMap map(pmeOptions(p, cutoff, s.box));
  std::vector<double> phi;
  map.potentialAt(points, s.positions, s.charges, s.box, phi);
  const EwaldPotential ref = ewaldPotentialAt(points, s.positions, s.charges, s.box, beta, cutoff, 1e-14);
  double num = 0;
  for (std::size_t i = 0; i < points.size(); ++i) num += std::pow(phi[i] - ref.total(i), 2);
  Accuracy a;
  a.potential = std::sqrt(num / double(points.size())) / rmsOf(ref.reciprocal);
  CpuPme pme(p, 0);
  EwaldSum ewald(beta, 1e-14, 0);
  std::vector<Vec3> fp(s.positions.size()), fe(s.positions.size());
  pme.compute(s.positions, s.charges, s.box, fp, nullptr);
  ewald.compute(s.positions, s.charges, s.box, fe, nullptr);
  a.force = test::relativeRmsDifference(fp, fe, fe);
  std::printf("PME map vs Ewald (order %d, spacing %.3g nm, grid %d^3, beta %.4g /nm): potential %.3e of the "
              "reciprocal potential's RMS, reciprocal forces %.3e\n",
              order, spacing, p.grid[0], beta, a.potential, a.force);
  return a;
}

// ---- CPU: physics -------------------------------------------------------------------------

TEST(PmeMapCpu, MatchesEwaldPotentialAtRandomPoints) {
  const Ions s = test::randomIons(300, test::meltEdge(300), 5, 0.18, 0.0);
  // The engine's default settings (order 4, 0.12 nm) and tight ones (order 6, 0.06 nm).
  const Accuracy coarse = measureAccuracy(s, 0.9, 4, 0.12);
  const Accuracy fine = measureAccuracy(s, 0.9, 6, 0.06);
  EXPECT_LT(coarse.potential, tol::kPmeMapVsForceError * coarse.force);
  EXPECT_LT(fine.potential, tol::kPmeMapVsForceError * fine.force);
  EXPECT_LT(fine.potential, tol::kPmeMapTightVsEwald);
  EXPECT_LT(fine.potential, 0.1 * coarse.potential);  // converges with order and grid: a real PME error
}

/// With a net charge too: 1/2 sum_i q_i phi(r_i) (real space without the atom's own term)
/// is the total Ewald energy minus the self energy, with the same PME (identity up to
/// rounding) and with the plain Ewald sum (within the PME accuracy).
TEST(PmeMapCpu, EnergyFromMapAtAtomsIsEwaldEnergyWithoutSelf) {
  for (double net : {0.0, 0.75}) {
    const Ions s = test::randomIons(300, test::meltEdge(300), 9, 0.18, net);
    const double cutoff = 0.9, beta = ewaldBetaFromRtol(cutoff, 1e-5);
    const PmeParams p = test::pmeParams(beta, 5, 0.1, s.box);
    CpuPmeMap map(pmeOptions(p, cutoff, s.box));
    std::vector<double> phi;
    map.potentialAt(s.positions, s.positions, s.charges, s.box, phi);
    double e = 0;
    for (std::size_t i = 0; i < phi.size(); ++i) e += 0.5 * s.charges[i] * phi[i];
    CpuPme pme(p, 0);
    EwaldSum ewald(beta, 1e-14, 0);
    const double self = ewaldSelfEnergy(beta, s.charges);
    const test::Electrostatics withPme = test::totalElectrostatics(s, pme, beta, cutoff);
    const test::Electrostatics withEwald = test::totalElectrostatics(s, ewald, beta, cutoff);
    std::printf("net charge %.2f e: 1/2 sum q phi = %.10g kJ/mol, E_PME - E_self = %.10g (rel. diff %.1e), "
                "E_Ewald - E_self = %.10g (diff %.1e of |E_rec|)\n",
                net, e, withPme.energy - self, std::abs(e / (withPme.energy - self) - 1), withEwald.energy - self,
                std::abs(e - (withEwald.energy - self)) / std::abs(withEwald.recip));
    EXPECT_NEAR(e, withPme.energy - self, tol::kPmeMapEnergyIdentityRel * std::abs(withPme.energy - self));
    EXPECT_NEAR(e, withEwald.energy - self, tol::kPmeMapEnergyVsEwaldRel * std::abs(withEwald.recip));
  }
}

/// A lone charge +q with its background in a cubic box: phi is the same at points related
/// by the cube's symmetry about the charge, and the mean of phi over a lattice that tiles
/// the box is zero (the m = 0 term is excluded: the neutralised system has zero mean
/// potential).
TEST(PmeMapCpu, LoneChargeSymmetryAndZeroMean) {
  const Box box = Box::rectangular(3.0, 3.0, 3.0);
  const Vec3 c{1.53, 1.47, 1.512};  // off the lattice planes
  const std::vector<Vec3> atom{c};
  const std::vector<double> q{1.0};
  const double cutoff = 1.2, beta = ewaldBetaFromRtol(cutoff, 1e-6);
  const MapOptions o = pmeOptions(test::pmeParams(beta, 6, 0.1, box), cutoff, box);
  CpuPmeMap map(o);
  std::vector<double> phi;
  const std::vector<Vec3> pts{c + Vec3{0.4, 0.1, 0}, c + Vec3{0, -0.4, 0.1}, c + Vec3{0.1, 0, 0.4},
                              c + Vec3{-0.4, 0, -0.1}};
  map.potentialAt(pts, atom, q, box, phi);
  double spread = 0;
  for (std::size_t i = 1; i < pts.size(); ++i) {
    EXPECT_NEAR(phi[i], phi[0], tol::kPmeMapSymmetryRel * std::abs(phi[0]));
    spread = std::max(spread, std::abs(phi[i] - phi[0]) / std::abs(phi[0]));
  }
  std::vector<double> m;
  const Lattice l = Lattice::fromBox(box, 0.1);
  map.addFrame(l, atom, q, box, m);
  double mean = 0;
  for (double v : m) mean += v / double(m.size());
  // Real space: the lattice sum of erfc(beta r)/r approximates its integral (pi/beta^2
  // per unit charge and volume) to the lattice's quadrature error; PME reciprocal: zero mean.
  std::printf("lone charge: symmetric points differ by %.2e relative; lattice mean %.3e kJ/mol/e, map RMS %.3e, "
              "background %.3e\n",
              spread, mean, rmsOf(m), ewaldBackgroundPotential(beta, 1.0, box.volume()));
  EXPECT_NEAR(mean, 0.0, tol::kPmeMapZeroMeanRel * rmsOf(m));
}

// ---- pmepot: the Gaussian-smeared potential ------------------------------------------------

/// 80 ions with a net charge of 0.5 e (so the background term counts) in a 2.5 nm box.
Ions pmePotIons() { return test::randomIons(80, 2.5, 41, 0.18, 0.5); }

/// map.method = pmepot (the reciprocal part alone, beta = PMEpot's 2.5 /nm) against the
/// direct double-precision image sum of q erf(beta d)/d with the pme maps' background, at
/// random points inside and outside the box: at the engine's default PME (order 4, 0.12 nm)
/// and at a tight one (order 6, 0.06 nm), where only the PME discretisation error is left.
TEST(PmePotMapCpu, MatchesGaussianImageSum) {
  const Ions s = pmePotIons();
  const std::vector<Vec3> points = randomPoints(300, s.box, 23);
  const std::vector<double> ref = gaussianPotentialAt(points, s.positions, s.charges, s.box, kPmePotEwaldFactor);
  double err[2];
  const int orders[2] = {4, 6};
  const double spacings[2] = {0.12, 0.06};
  for (int c = 0; c < 2; ++c) {
    CpuPmeMap map(pmePotOptions(test::pmeParams(kPmePotEwaldFactor, orders[c], spacings[c], s.box), s.box));
    std::vector<double> phi;
    map.potentialAt(points, s.positions, s.charges, s.box, phi);
    err[c] = relRms(phi, ref);
    std::printf("pmepot map (order %d, %.2f nm) vs Gaussian image sum: relative RMS %.3e (map RMS %.4g kJ/mol/e)\n",
                orders[c], spacings[c], err[c], rmsOf(ref));
  }
  EXPECT_GT(rmsOf(ref), 1.0);
  EXPECT_LT(err[0], tol::kPmePotDefaultVsGaussianSum);
  EXPECT_LT(err[1], tol::kPmePotTightVsGaussianSum);
}

/// pmepot is smooth: finite at an atom (no 1/r term), and equal to the pme map minus its
/// real-space part when both use the same beta.
TEST(PmePotMapCpu, IsThePmeMapWithoutItsRealSpacePart) {
  const Ions s = pmePotIons();
  const double cutoff = 1.0, beta = kPmePotEwaldFactor;
  const PmeParams p = test::pmeParams(beta, 5, 0.1, s.box);
  CpuPmeMap pot(pmePotOptions(p, s.box)), full(pmeOptions(p, cutoff, s.box));
  const std::vector<Vec3> points = randomPoints(200, s.box, 29);
  std::vector<double> a, b;
  pot.potentialAt(points, s.positions, s.charges, s.box, a);
  full.potentialAt(points, s.positions, s.charges, s.box, b);
  const EwaldPotential real = ewaldPotentialAt(points, s.positions, s.charges, s.box, beta, cutoff, 1e-14);
  double worst = 0;
  for (std::size_t i = 0; i < points.size(); ++i)
    worst = std::max(worst, std::abs(b[i] - real.real[i] - a[i]) / std::max(1.0, std::abs(b[i])));
  EXPECT_LT(worst, tol::kPmePotSplitRel);
  std::vector<double> atAtoms;
  pot.potentialAt(s.positions, s.positions, s.charges, s.box, atAtoms);
  for (double v : atAtoms) EXPECT_TRUE(std::isfinite(v));
}

// ---- GPU ----------------------------------------------------------------------------------

/// The GPU pmepot map on a lattice tiling the box against the CPU map and against the
/// Gaussian image sum at the same points.
TEST(PmePotMapGpu, MatchesCpuAndGaussianImageSum) {
  FARADAY_REQUIRE_GPU();
  const Ions s = pmePotIons();
  const MapOptions o = pmePotOptions(test::pmeParams(kPmePotEwaldFactor, 6, 0.06, s.box), s.box);
  const Lattice l = Lattice::fromBox(s.box, 0.2);
  CudaPmeMap gpu(l, o);
  gpu.addFrame(s.positions, s.charges, s.box);
  const std::vector<double> g = gpu.sum();
  std::vector<double> cpu;
  CpuPmeMap cpuMap(o);
  cpuMap.addFrame(l, s.positions, s.charges, s.box, cpu);
  const std::vector<double> ref = gaussianPotentialAt(latticePoints(l), s.positions, s.charges, s.box, kPmePotEwaldFactor);
  std::printf("GPU pmepot map, %d x %d x %d points: vs CPU %.3e, vs Gaussian image sum %.3e\n", l.nx, l.ny, l.nz,
              relRms(g, cpu), relRms(g, ref));
  EXPECT_LT(relRms(g, cpu), tol::kPmeMapGpuRelRms);
  EXPECT_LT(relRms(g, ref), tol::kPmePotTightVsGaussianSum);
}

/// A CUDA backend's device frame (positions and charges in slot order, read in place) gives
/// the map of the same state copied to the host: the same float terms, only the order in
/// which each cell's terms are added differs. Both pme and pmepot; after a few steps, so the
/// slots are a permutation of the particles.
TEST(PmeMapGpu, DeviceFrameOfTheBackendMatchesHostFrame) {
  FARADAY_REQUIRE_GPU();
  const MapCase c = writeMapCase("device_frame", "cuda");
  const SteppedBackend run = steppedBackend(c, 20);
  const Config& config = run.config;
  const faraday::Setup& setup = run.setup;
  Backend* backend = run.backend.get();
  ASSERT_TRUE(backend->deviceFrame().valid());
  const Lattice l = Lattice::fromBox(c.box, 0.2);
  for (const char* method : {"pme", "pmepot"}) {
    Config m = config;
    m.map.method = choiceNamed<MapMethod>(method);
    MapOptions o = pmeOptions({}, 0, c.box);
    applyEwaldSetup(mapEwaldSetup(m, setup.system), o);
    if (m.map.method == MapMethod::PmePot) o = pmePotOptions(o.pme, c.box);
    CudaPmeMap fromDevice(l, o), fromHost(l, o);
    fromDevice.addFrame(backend->deviceFrame(), c.box);
    State st;
    backend->getState(st);
    fromHost.addFrame(st.positions, setup.system.charge, c.box);
    const std::vector<double> a = fromDevice.sum(), b = fromHost.sum();
    std::printf("%s: device frame vs host frame, relative RMS %.3e\n", method, relRms(a, b));
    EXPECT_GT(rmsOf(b), 1.0);
    EXPECT_LT(relRms(a, b), tol::kPmeMapSummationOrderRel);
  }
}

TEST(PmeMapGpu, MatchesCpuReference) {
  FARADAY_REQUIRE_GPU();
  const Ions s = test::randomIons(1500, test::meltEdge(1500), 21, 0.18, 0.5);
  const double cutoff = 1.0, beta = ewaldBetaFromRtol(cutoff, 1e-5);
  const MapOptions o = pmeOptions(test::pmeParams(beta, 4, 0.12, s.box), cutoff, s.box);
  // A lattice tiling the box and one over the atoms' bounding box grown past the box.
  for (const Lattice& l : {Lattice::fromBox(s.box, 0.1), Lattice::fromAtoms(s.positions, 0.15, 0.6)}) {
    Ions moved = s;
    test::translate(moved, {0.37, -0.21, 0.05});
    const GpuPmeMapCheck check = gpuPmeMapOfTwoFrames(l, o, s, moved, s.box);
    std::printf("GPU PME map vs CPU, %d x %d x %d points, 2 frames: relative RMS %.3e\n", l.nx, l.ny, l.nz,
                check.relRmsVsCpu);
    EXPECT_LT(check.relRmsVsCpu, tol::kPmeMapGpuRelRms);
    EXPECT_TRUE(check.repeatable) << "GPU map not bitwise reproducible";
  }
}

/// 100000 ions at melt density (14.6 nm box) on a 0.1 nm lattice (146^3 points) with the
/// engine's default PME (order 4, 0.12 nm): time per frame, and a spot check of 3000
/// lattice points against the CPU reference.
TEST(PmeMapGpu, LargeMapTimingAndSpotCheck) {
  FARADAY_REQUIRE_GPU();
  const int n = 100000;
  const double edge = test::meltEdge(n);
  Ions s;
  s.box = Box::rectangular(edge, edge, edge);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.0, edge);
  for (int i = 0; i < n; ++i) {
    s.positions.push_back({u(rng), u(rng), u(rng)});
    s.charges.push_back(i % 2 ? -1.0 : 1.0);
  }
  const double cutoff = 1.0, beta = ewaldBetaFromRtol(cutoff, 1e-5);
  const MapOptions o = pmeOptions(test::pmeParams(beta, 4, 0.12, s.box), cutoff, s.box);
  const Lattice l = Lattice::fromBox(s.box, 0.1);
  CudaPmeMap gpu(l, o);
  gpu.addFrame(s.positions, s.charges, s.box);  // warm-up (plans, first allocations)
  const int frames = 3;
  const auto t0 = std::chrono::steady_clock::now();
  for (int f = 0; f < frames; ++f) gpu.addFrame(s.positions, s.charges, s.box);
  const std::vector<double> sum = gpu.sum();  // waits for the frames
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / frames;
  std::vector<Vec3> points;
  std::vector<double> gpuValues;
  std::mt19937_64 pick(8);
  std::uniform_int_distribution<std::size_t> idx(0, l.size() - 1);
  for (int p = 0; p < 3000; ++p) {
    const std::size_t i = idx(pick);
    points.push_back(l.point(int(i % l.nx), int((i / l.nx) % l.ny), int(i / (std::size_t(l.nx) * l.ny))));
    gpuValues.push_back(sum[i] / (frames + 1));
  }
  CpuPmeMap cpu(o);
  std::vector<double> ref;
  cpu.potentialAt(points, s.positions, s.charges, s.box, ref);
  const double err = relRms(gpuValues, ref);
  std::printf("GPU PME map: %d atoms, %d^3 PME grid, %d x %d x %d lattice: %.1f ms per frame (upload and the final "
              "download of the sum shared out), %.2f ms of GPU time per frame; spot check vs CPU relative RMS %.3e\n",
              n, o.pme.grid[0], l.nx, l.ny, l.nz, 1e3 * seconds, gpu.deviceMsPerFrame(), err);
  EXPECT_LT(err, tol::kPmeMapGpuRelRms);
}

// ---- end to end ---------------------------------------------------------------------------

}  // namespace
}  // namespace faraday
