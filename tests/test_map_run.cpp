// Map runs: the reporter averages frames (CPU and GPU), `faraday map` over a trajectory,
// direct and cutoff methods; PME maps end to end.
#include <gtest/gtest.h>

#include "core/Error.h"
#include "engine/cli/RunFromConfig.h"
#include "engine/bench/CudaDcsStudy.h"
#include "kernels/dcs/CudaDcs.h"
#include "tests/MapTestSupport.h"
#include "tests/Tolerances.h"
#include "engine/backends/BackendFactory.h"
#include "engine/config/LoadConfig.h"

namespace faraday {
namespace {

using namespace test;


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

/// The map of a DCD or XTC trajectory is the mean of the maps of its frames as the file
/// stores them (DCD: float Angstrom; XTC: the 0.001 nm grid).
void checkMapOfTrajectory(bool useCuda, TrajectoryFormat format = TrajectoryFormat::Dcd) {
  const Box box = Box::rectangular(2.0, 2.0, 2.0);
  const System sys = smallSystem(300, box);
  const bool xtc = format == TrajectoryFormat::Xtc;
  const auto dir = tempDir(std::string(useCuda ? "traj_gpu" : "traj_cpu") + (xtc ? "_xtc" : ""));
  Config cfg = mapConfig(dir, "direct", "traj.dx");
  cfg.map.trajectory = (dir / (xtc ? "t.xtc" : "t.dcd")).string();
  const auto f = frames(sys.size(), box, 4);
  if (xtc)
    writeXtc(cfg.map.trajectory, f, box);
  else
    writeDcd(cfg.map.trajectory, f, box);
  ASSERT_EQ(mapMain(cfg, sys, useCuda), 0);
  const Lattice l = Lattice::fromBox(box, 0.2);
  std::vector<double> sum;
  for (const auto& frame : f) {
    std::vector<Vec3> p = frame;
    for (Vec3& r : p)
      for (int k = 0; k < 3; ++k) r[k] = xtc ? double(std::llround(r[k] * 1000)) / 1000 : double(float(r[k] * 10)) / 10;
    cpuDirectMap(l, p, sys.charge, directOptions(true, box), sum);
  }
  for (double& v : sum) v /= 4.0;
  EXPECT_LT(relRms(readDx(dir / "traj.dx").values, sum), useCuda ? tol::kDcsGpuRelRms : tol::kDxRoundTripRel);
}

TEST(DcsCpu, MapOfTrajectoryAveragesEveryFrame) {
  checkMapOfTrajectory(false);
  checkMapOfTrajectory(false, TrajectoryFormat::Xtc);
}

TEST(DcsGpu, MapOfTrajectoryAveragesEveryFrame) {
  FARADAY_REQUIRE_GPU();
  checkMapOfTrajectory(true);
  checkMapOfTrajectory(true, TrajectoryFormat::Xtc);
}

/// `faraday map CONFIG`: the config loader, the coordinate reader and the DCD reader of the
/// engine, end to end on the CPU, against the reference map of the same frames.
TEST(DcsCpu, MapCommandFromConfigFile) {
  const auto dir = tempDir("command");
  const Box box = Box::rectangular(2.5, 2.5, 2.5);
  Coordinates c;
  c.title = "ions";
  c.box = box;
  const Atoms a = randomAtoms(60, {0, 0, 0}, box.diagonal(), 101);
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
  config.nonbonded.coulombModifier = CoulombModifier::None;
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

// ---- maps of a run, end to end ---------------------------------------------------------------

/// Keeps the positions of every report (copied back from the backend; no energies, so a
/// step where only it and the map are due takes the run's energy-free reporting path).
class FrameRecorder : public Reporter {
 public:
  explicit FrameRecorder(long long interval) : interval_(interval) {}
  const char* name() const override { return "frames"; }
  long long interval() const override { return interval_; }
  bool needsEnergies() const override { return false; }
  void report(const State& state, const Energies&, double) override {
    if (!steps.empty() && steps.back() == state.step) return;
    steps.push_back(state.step);
    frames.push_back(state.positions);
  }
  std::vector<long long> steps;
  std::vector<std::vector<Vec3>> frames;

 private:
  long long interval_;
};

/// A 30-step run of the map case's ions on `platform` with a map every 10 steps and no
/// energy log (so the map's steps compute no energies): the written map is the CPU
/// reference map averaged over the same frames (steps 0, 10, 20, 30), kept by a reporter
/// that copies the state back at those steps. On cuda the pme, pmepot and direct maps read
/// the device state; the cutoff map takes the state copied back.
void checkRunMapEqualsCpuMeanOfFrames(const std::string& platform, const std::string& method, double tolerance,
                                      bool readsDevice) {
  const MapCase c = writeMapCase("run_" + platform + "_" + method, platform);
  Config config = loadConfig(c.dir / "map.cfg", {});
  config.map.method = choiceNamed<MapMethod>(method);
  config.map.cutoff = 1.0;  // method = cutoff: below half the shortest edge
  config.map.interval = 10;
  config.map.file = "run.dx";
  config.run.steps = 30;
  config.integrator.dt = 0.0005;  // the random ions start close: short steps keep them within the runaway bound
  config.run.progressInterval = 0;
  config.output.energyFile = "";
  config.output.trajectoryFile = "";
  config.output.checkpointFile = "";
  config.output.logFile = "";
  std::ostringstream log;
  Simulation sim(config, buildSetup(config), std::nullopt, log);
  auto map = std::make_unique<MapReporter>(config, sim.system(), platformUsesCuda(choiceNamed<Platform>(platform)), &sim.timers());
  MapReporter* mapReporter = map.get();
  auto recorder = std::make_unique<FrameRecorder>(10);
  FrameRecorder* frames = recorder.get();
  sim.addReporter(std::move(map));
  sim.addReporter(std::move(recorder));
  sim.run();
  EXPECT_EQ(mapReporter->readsDevice(), readsDevice);
  EXPECT_EQ(mapReporter->needsState(), !readsDevice);
  ASSERT_EQ(frames->steps, (std::vector<long long>{0, 10, 20, 30}));
  EXPECT_EQ(mapReporter->averager().frames(), 4);
  const EwaldSetup ewald = mapEwaldSetup(config, sim.system());
  PotentialMapAverager reference(config.map, sim.system(), false, nullptr, &ewald);
  for (const auto& f : frames->frames) reference.addFrame(f, c.box);
  int n[3];
  const std::vector<double> written = readDxValues(c.dir / "out" / "run.dx", n);
  const double err = relRms(written, reference.average());
  std::printf("%s run, map.method = %s: written map vs CPU mean of the same 4 frames, relative RMS %.3e\n",
              platform.c_str(), method.c_str(), err);
  EXPECT_GT(rmsOf(reference.average()), 1.0);
  EXPECT_LT(err, tolerance);
}

TEST(PmeMapCpu, RunMapIsTheMeanOfItsFrames) {
  for (const char* method : {"pme", "pmepot", "direct", "cutoff"})
    checkRunMapEqualsCpuMeanOfFrames("cpu", method, tol::kDxRoundTripRel, false);
}

TEST(PmeMapGpu, RunMapReadsDeviceFramesAndEqualsCpuMean) {
  FARADAY_REQUIRE_GPU();
  checkRunMapEqualsCpuMeanOfFrames("cuda", "pme", tol::kPmeMapGpuRelRms, true);
  checkRunMapEqualsCpuMeanOfFrames("cuda", "pmepot", tol::kPmeMapGpuRelRms, true);
  checkRunMapEqualsCpuMeanOfFrames("cuda", "direct", tol::kDcsGpuRelRms, true);
  checkRunMapEqualsCpuMeanOfFrames("cuda", "cutoff", tol::kDcsGpuRelRms, false);
}

/// The direct map of a CUDA backend's device frame (packed and split on the device, slot
/// order) against the same state copied to the host (packed and split on the host, input
/// order): the same float terms accumulated in another order.
TEST(DcsGpu, DeviceFrameOfTheBackendMatchesHostFrame) {
  FARADAY_REQUIRE_GPU();
  const MapCase c = writeMapCase("dcs_device_frame", "cuda");
  const SteppedBackend run = steppedBackend(c, 20);
  const Lattice l = Lattice::fromBox(c.box, 0.2);
  for (bool periodic : {true, false}) {
    const MapOptions o = directOptions(periodic, c.box);
    CudaMapAccumulator fromDevice(l, o), fromHost(l, o);
    fromDevice.addFrame(run.backend->deviceFrame(), c.box, nullptr);
    State st;
    run.backend->getState(st);
    fromHost.addFrame(st.positions, run.setup.system.charge, c.box, nullptr);
    const std::vector<double> a = fromDevice.sum(), b = fromHost.sum();
    std::printf("direct (%s): device frame vs host frame, relative RMS %.3e\n", periodic ? "periodic" : "open",
                relRms(a, b));
    EXPECT_GT(rmsOf(b), 1.0);
    EXPECT_LT(relRms(a, b), tol::kDcsVariantRelRms);
  }
}

/// Two identical CUDA runs write the same map, bit for bit.
TEST(PmeMapGpu, RunMapIsReproducible) {
  FARADAY_REQUIRE_GPU();
  std::string text[2];
  for (int r = 0; r < 2; ++r) {
    const MapCase c = writeMapCase("repeat_" + std::to_string(r), "cuda");
    Config config = loadConfig(c.dir / "map.cfg", {});
    config.map.enabled = true;
    config.map.interval = 10;
    config.run.steps = 40;
    config.integrator.dt = 0.0005;
    config.run.progressInterval = 0;
    config.output.logFile = "";
    std::ostringstream log;
    runFromConfig(config, RunOptions{}, log);
    text[r] = readDx(c.dir / "out" / "ions.dx").text;
  }
  EXPECT_FALSE(text[0].empty());
  EXPECT_EQ(text[0], text[1]);
}

// ---- bad input ----------------------------------------------------------------------------

}  // namespace
}  // namespace faraday
