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

#include "engine/Backend.h"
#include "engine/Config.h"
#include "engine/Coordinates.h"
#include "engine/DcdFile.h"
#include "engine/Error.h"
#include "engine/GroFile.h"
#include "engine/KernelParams.h"
#include "engine/MapCommand.h"
#include "engine/MapReporter.h"
#include "engine/SystemSetup.h"
#include "engine/Units.h"
#include "kernels/dcs/PmeMap.h"
#include "kernels/pme/CpuPme.h"
#include "kernels/pme/Electrostatics.h"
#include "kernels/pme/Ewald.h"
#include "tests/ElectrostaticsTestSupport.h"
#include "tests/TestSupport.h"
#include "tests/Tolerances.h"

namespace faraday {
namespace {

using test::Ions;
using test::errorOf;
using test::relRms;

double rmsOf(const std::vector<double>& a) {
  double s = 0;
  for (double v : a) s += v * v;
  return std::sqrt(s / double(a.size()));
}

std::filesystem::path tempDir(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / ("faraday_test_pme_map_" + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

MapOptions pmeOptions(const PmeParams& p, double cutoff, const Box& box) {
  MapOptions o;
  o.method = MapMethod::Pme;
  o.periodic = true;
  o.box = box;
  o.pme = p;
  o.ewaldCutoff = cutoff;
  return o;
}

/// Random points in [-L/2, 3L/2) per axis (outside the box too: the map wraps them).
std::vector<Vec3> randomPoints(std::size_t n, const Box& box, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.5, 1.5);
  const Vec3 L = box.lengths();
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

// ---- GPU ----------------------------------------------------------------------------------

TEST(PmeMapGpu, MatchesCpuReference) {
  FARADAY_REQUIRE_GPU();
  const Ions s = test::randomIons(1500, test::meltEdge(1500), 21, 0.18, 0.5);
  const double cutoff = 1.0, beta = ewaldBetaFromRtol(cutoff, 1e-5);
  const MapOptions o = pmeOptions(test::pmeParams(beta, 4, 0.12, s.box), cutoff, s.box);
  // A lattice tiling the box and one over the atoms' bounding box grown past the box.
  for (const Lattice& l : {Lattice::fromBox(s.box, 0.1), Lattice::fromAtoms(s.positions, 0.15, 0.6)}) {
    Ions moved = s;
    test::translate(moved, {0.37, -0.21, 0.05});
    std::vector<double> cpu;
    CpuPmeMap cpuMap(o);
    cpuMap.addFrame(l, s.positions, s.charges, s.box, cpu);
    cpuMap.addFrame(l, moved.positions, moved.charges, s.box, cpu);
    CudaPmeMap gpu(l, o), again(l, o);
    for (CudaPmeMap* g : {&gpu, &again}) {
      g->addFrame(s.positions, s.charges, s.box);
      g->addFrame(moved.positions, moved.charges, s.box);
    }
    const std::vector<double> a = gpu.sum(), b = again.sum();
    const double err = relRms(a, cpu);
    std::printf("GPU PME map vs CPU, %d x %d x %d points, 2 frames: relative RMS %.3e\n", l.nx, l.ny, l.nz, err);
    EXPECT_LT(err, tol::kPmeMapGpuRelRms);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0) << "GPU map not bitwise reproducible";
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
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / frames;
  const std::vector<double> sum = gpu.sum();
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
  std::printf("GPU PME map: %d atoms, %d^3 PME grid, %d x %d x %d lattice: %.1f ms per frame (host cell sort and "
              "upload included); spot check vs CPU relative RMS %.3e\n",
              n, o.pme.grid[0], l.nx, l.ny, l.nz, 1e3 * seconds, err);
  EXPECT_LT(err, tol::kPmeMapGpuRelRms);
}

// ---- end to end ---------------------------------------------------------------------------

/// A configuration file of ions for `faraday map` with map.method = pme.
struct MapCase {
  std::filesystem::path dir;
  Box box = Box::rectangular(2.6, 2.5, 2.4);
  std::vector<double> charges;
  std::vector<std::vector<Vec3>> frames;
};

MapCase writeMapCase(const std::string& name, const std::string& platform) {
  MapCase c;
  c.dir = tempDir(name);
  const Ions ions = test::randomIons(80, 2.4, 33);
  Coordinates co;
  co.title = "ions";
  co.box = c.box;
  for (std::size_t i = 0; i < ions.positions.size(); ++i) {
    co.residueId.push_back(int(i) + 1);
    co.residueName.push_back(ions.charges[i] > 0 ? "NA" : "CL");
    co.atomName.push_back(ions.charges[i] > 0 ? "NA" : "CL");
    co.positions.push_back(ions.positions[i]);
    c.charges.push_back(ions.charges[i]);
  }
  writeGro(c.dir / "ions.gro", co);
  for (int f = 0; f < 3; ++f) {
    Ions t = ions;
    test::translate(t, {0.11 * f, -0.07 * f, 0.05 * f});
    c.frames.push_back(t.positions);
  }
  {
    DcdWriter w(c.dir / "ions.dcd", co.size(), 0, 10, 0.002);
    for (const auto& f : c.frames) w.writeFrame(f, c.box);
  }
  std::ofstream cfg(c.dir / "map.cfg");
  cfg << "[system]\ncoordinates = ions.gro\n\n[atom.NA]\nmass = 22.99\ncharge = 1\nsigma = 0.33\nepsilon = 0.01\n\n"
         "[atom.CL]\nmass = 35.45\ncharge = -1\nsigma = 0.44\nepsilon = 0.4\n\n[nonbonded]\ncutoff = 1.0\n\n"
         "[electrostatics]\nmethod = pme\npme_order = 5\nfourier_spacing = 0.1\n\n[run]\nplatform = "
      << platform
      << "\n\n[output]\ndirectory = out\n\n"
         "[map]\nmethod = pme\nspacing = 0.2\ntrajectory = ions.dcd\nfile = ions.dx\nunits = kJ/mol/e\n";
  return c;
}

/// The case's ions as a System (one atom type; the map reporter reads charges and box).
System mapCaseSystem(const MapCase& c) {
  System sys;
  sys.types.push_back({"NA", 22.99, 1, 0.33, 0.01});
  sys.box = c.box;
  sys.charge = c.charges;
  sys.type.assign(c.charges.size(), 0);
  sys.mass.assign(c.charges.size(), 22.99);
  return sys;
}

/// The CPU reference map of the case's DCD frames (float Angstrom) averaged.
std::vector<double> referenceMap(const MapCase& c, const Config& config) {
  MapOptions o = pmeOptions({}, 0, c.box);
  applyEwaldSetup(chooseEwaldSetup(config, c.box), o);
  EXPECT_EQ(o.pme.order, 5);
  CpuPmeMap map(o);
  const Lattice l = Lattice::fromBox(c.box, 0.2);
  std::vector<double> mean;
  for (const auto& frame : c.frames) {
    std::vector<Vec3> p = frame;
    for (Vec3& r : p) r = Vec3{float(r.x * 10), float(r.y * 10), float(r.z * 10)} / 10.0;  // DCD: float Angstrom
    map.addFrame(l, p, c.charges, c.box, mean);
  }
  for (double& v : mean) v /= double(c.frames.size());
  return mean;
}

std::vector<double> readDxValues(const std::filesystem::path& file, int n[3]) {
  std::ifstream in(file);
  std::string line;
  std::size_t items = 0;
  while (std::getline(in, line)) {
    if (line.rfind("object 1 class gridpositions counts", 0) == 0)
      std::sscanf(line.c_str(), "object 1 class gridpositions counts %d %d %d", &n[0], &n[1], &n[2]);
    if (line.find("data follows") != std::string::npos) {
      std::sscanf(line.c_str(), "object 3 class array type double rank 0 items %zu", &items);
      break;
    }
  }
  std::vector<double> zfast(items), xfast(items);
  for (double& v : zfast) in >> v;
  std::size_t k = 0;
  for (int a = 0; a < n[0]; ++a)
    for (int b = 0; b < n[1]; ++b)
      for (int d = 0; d < n[2]; ++d) xfast[(std::size_t(d) * n[1] + b) * n[0] + a] = zfast[k++];
  return xfast;
}

void checkMapCommand(const std::string& platform) {
  const MapCase c = writeMapCase("cmd_" + platform, platform);
  const Config config = loadConfig(c.dir / "map.cfg", {});
  std::filesystem::create_directories(config.output.directory);
  ASSERT_EQ(mapMain(config), 0);
  int n[3] = {0, 0, 0};
  const std::vector<double> dx = readDxValues(c.dir / "out" / "ions.dx", n);
  const std::vector<double> ref = referenceMap(c, config);
  const Lattice l = Lattice::fromBox(c.box, 0.2);
  EXPECT_EQ(n[0], l.nx);
  EXPECT_EQ(n[2], l.nz);
  ASSERT_EQ(dx.size(), ref.size());
  EXPECT_GT(rmsOf(ref), 1.0);
  EXPECT_LT(relRms(dx, ref), platform == "cuda" ? tol::kPmeMapGpuRelRms : tol::kDxRoundTripRel);
}

TEST(PmeMapCpu, MapCommandWritesDx) { checkMapCommand("cpu"); }

TEST(PmeMapGpu, MapCommandWritesDx) {
  FARADAY_REQUIRE_GPU();
  checkMapCommand("cuda");
}

/// The run's reporter with [map] method = pme: the written map is the mean of the
/// sampled frames' maps.
TEST(PmeMapCpu, RunReporterAveragesFrames) {
  const MapCase c = writeMapCase("reporter", "cpu");
  Config config = loadConfig(c.dir / "map.cfg", {});
  config.map.interval = 5;
  std::filesystem::create_directories(config.output.directory);
  const System sys = mapCaseSystem(c);
  auto reporter = makeMapReporter(config, sys, false, nullptr);
  State st;
  st.box = c.box;
  std::vector<std::vector<Vec3>> exact;
  for (int f = 0; f < 3; ++f) {
    st.positions = c.frames[f];
    st.step = 5 * f;
    reporter->report(st, Energies{}, 0.0);
  }
  reporter->finish(st);
  MapOptions o = pmeOptions({}, 0, c.box);
  applyEwaldSetup(chooseEwaldSetup(config, c.box), o);
  CpuPmeMap map(o);
  const Lattice l = Lattice::fromBox(c.box, 0.2);
  std::vector<double> mean;
  for (const auto& f : c.frames) map.addFrame(l, f, c.charges, c.box, mean);
  for (double& v : mean) v /= 3.0;
  int n[3];
  EXPECT_LT(relRms(readDxValues(c.dir / "out" / "ions.dx", n), mean), tol::kDxRoundTripRel);
}

/// The map at the atoms against the engine's own energies: the CPU backend's
/// coulombReal + coulombRecip + coulombNetCharge for the same config equals
/// 1/2 sum_i q_i phi(r_i), with a net charge (one ion removed). The map is the Ewald
/// potential itself, so the identity holds for the unshifted real-space Coulomb.
TEST(PmeMapCpu, MapAtAtomsMatchesBackendCoulombEnergy) {
  const MapCase c = writeMapCase("backend", "cpu");
  Config config = loadConfig(c.dir / "map.cfg", {});
  config.run.threads = 1;
  config.nonbonded.coulombModifier = "none";
  faraday::Setup setup = buildSetup(config);
  // Remove the last ion: net charge +-1 exercises the background term.
  setup.system.charge.pop_back();
  setup.system.type.pop_back();
  setup.system.mass.pop_back();
  setup.system.atomName.pop_back();
  setup.system.residueName.pop_back();
  setup.system.residueId.pop_back();
  setup.state.positions.pop_back();
  setup.state.velocities.pop_back();
  auto backend = makeBackend(config, setup.system, nullptr);
  backend->setState(setup.state, {});
  const Energies e = backend->computeForces();
  MapOptions o = pmeOptions({}, 0, setup.system.box);
  applyEwaldSetup(chooseEwaldSetup(config, setup.system.box), o);
  CpuPmeMap map(o, 1);
  std::vector<double> phi;
  map.potentialAt(setup.state.positions, setup.state.positions, setup.system.charge, setup.system.box, phi);
  double sum = 0;
  for (std::size_t i = 0; i < phi.size(); ++i) sum += 0.5 * setup.system.charge[i] * phi[i];
  const double engine = e.coulombReal + e.coulombRecip + e.coulombNetCharge;
  std::printf("backend: real %.10g + recip %.10g + net charge %.6g = %.10g kJ/mol; 1/2 sum q phi = %.10g\n",
              e.coulombReal, e.coulombRecip, e.coulombNetCharge, engine, sum);
  EXPECT_NE(e.coulombNetCharge, 0.0);
  EXPECT_NEAR(sum, engine, tol::kPmeMapEnergyIdentityRel * std::abs(engine));
}

// ---- bad input ----------------------------------------------------------------------------

TEST(PmeMapErrors, NeedsEwaldElectrostaticsAndPeriodicMap) {
  const MapCase c = writeMapCase("errors", "cpu");
  const System sys = mapCaseSystem(c);
  Config config = loadConfig(c.dir / "map.cfg", {});
  config.electrostatics.method = "none";
  std::string e = errorOf([&] { makeMapReporter(config, sys, false, nullptr); });
  EXPECT_NE(e.find("electrostatics.method"), std::string::npos) << e;
  config.electrostatics.method = "pme";
  config.map.periodic = false;
  e = errorOf([&] { makeMapReporter(config, sys, false, nullptr); });
  EXPECT_NE(e.find("map.periodic"), std::string::npos) << e;
  config.map.periodic = true;
  config.nonbonded.cutoff = 1.3;  // above half of the 2.4 nm edge
  e = errorOf([&] { makeMapReporter(config, sys, false, nullptr); });
  EXPECT_NE(e.find("nonbonded.cutoff"), std::string::npos) << e;
  config.nonbonded.cutoff = 1.0;
  EXPECT_EQ(errorOf([&] { makeMapReporter(config, sys, false, nullptr); }), "");
}

}  // namespace
}  // namespace faraday
