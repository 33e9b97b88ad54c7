// Checkpoints: the binary format, its checks, and restarts that continue bit for bit.
#include <gtest/gtest.h>

#include <csignal>
#include <cstring>
#include <limits>

#include "engine/run/Checkpoint.h"
#include "engine/config/Config.h"
#include "engine/formats/DcdFile.h"
#include "core/Error.h"
#include "engine/setup/SystemSetup.h"
#include "tests/BackendTestSystems.h"
#include "tests/EngineTestSupport.h"
#include "engine/config/LoadConfig.h"

namespace faraday::test {
namespace {

Checkpoint sampleCheckpoint(std::size_t atoms) {
  Checkpoint c;
  c.step = 1234;
  c.time = 2.468;
  c.box = Box::rectangular(2.1, 2.2, 2.3);
  for (std::size_t i = 0; i < atoms; ++i) {
    c.positions.push_back({0.1 * double(i), 1.0 / 3.0, -0.0});
    c.velocities.push_back({1e-300, -2.5, double(i)});
    c.listReference.push_back({0.1 * double(i) + 1e-7, 0.3, 0.0});
  }
  c.physics = "atoms=" + std::to_string(atoms) + "\nintegrator.dt=0.002\n";
  return c;
}

bool bitwiseEqual(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Vec3)) == 0;
}

TEST(Checkpoint, RoundTripIsBitwiseAndThePreviousFileIsKept) {
  TempDir dir;
  const Checkpoint c = sampleCheckpoint(11);
  writeCheckpoint(dir / "s.chk", c);
  EXPECT_FALSE(fs::exists(dir / "s.chk.prev"));
  Checkpoint later = c;
  later.step = 2000;
  writeCheckpoint(dir / "s.chk", later);
  EXPECT_TRUE(fs::exists(dir / "s.chk.prev"));
  EXPECT_FALSE(fs::exists(dir / "s.chk.tmp"));
  const Checkpoint r = readCheckpoint(dir / "s.chk", 11, c.physics);
  EXPECT_EQ(r.step, 2000);
  EXPECT_EQ(readCheckpoint(dir / "s.chk.prev", 11, c.physics).step, 1234);
  EXPECT_EQ(std::memcmp(&r.time, &c.time, sizeof r.time), 0);
  EXPECT_TRUE(bitwiseEqual(r.positions, c.positions));
  EXPECT_TRUE(bitwiseEqual(r.velocities, c.velocities));
  EXPECT_TRUE(bitwiseEqual(r.listReference, c.listReference));
  EXPECT_EQ(r.box.diagonal(), c.box.diagonal());
  EXPECT_EQ(r.physics, c.physics);
}

/// A checkpoint that cannot be put in place leaves the old one as it was and no temporary
/// file behind, and the error says why.
TEST(Checkpoint, AFailedWriteKeepsTheOldFileAndLeavesNoTemporaryFile) {
  TempDir dir;
  const Checkpoint c = sampleCheckpoint(4);
  writeCheckpoint(dir / "s.chk", c);
  fs::create_directories(dir / "s.chk.prev" / "occupied");  // the previous version cannot be kept
  Checkpoint later = c;
  later.step = 5000;
  const std::string msg = errorOf([&] { writeCheckpoint(dir / "s.chk", later); });
  EXPECT_NE(msg.find((dir / "s.chk").string() + ": cannot keep the previous file"), std::string::npos) << msg;
  EXPECT_NE(msg.find("s.chk.prev: "), std::string::npos) << "the system's reason: " << msg;
  EXPECT_FALSE(fs::exists(dir / "s.chk.tmp"));
  EXPECT_EQ(readCheckpoint(dir / "s.chk", 4, c.physics).step, 1234);
  // The same when the temporary file itself cannot be written.
  fs::remove_all(dir / "s.chk.prev");
  fs::create_directories(dir / "ro");
  fs::permissions(dir / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  const std::string denied = errorOf([&] { writeCheckpoint(dir / "ro" / "s.chk", later); });
  fs::permissions(dir / "ro", fs::perms::owner_all);
  if (::geteuid() != 0) EXPECT_NE(denied.find("cannot create: Permission denied"), std::string::npos) << denied;
  EXPECT_FALSE(fs::exists(dir / "ro" / "s.chk.tmp"));
}

/// A checkpoint is checked value by value: a non-finite position, velocity or time is refused
/// naming the atom, even when its checksum is right (as written by a faulty program).
TEST(Checkpoint, NonFiniteValuesAreRefusedNamingTheAtom) {
  TempDir dir;
  for (const char* what : {"position", "velocity", "time"}) {
    Checkpoint c = sampleCheckpoint(6);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (std::string(what) == "position") c.positions[3].z = std::numeric_limits<double>::infinity();
    if (std::string(what) == "velocity") c.velocities[3].x = nan;
    if (std::string(what) == "time") c.time = nan;
    writeCheckpoint(dir / "bad.chk", c);
    const std::string msg = errorOf([&] { readCheckpoint(dir / "bad.chk", 6, c.physics); });
    const std::string expected = std::string(what) == "time" ? "checkpoint holds a non-finite time"
                                                            : std::string("non-finite ") + what + " of atom 4";
    EXPECT_NE(msg.find((dir / "bad.chk").string() + ": "), std::string::npos) << msg;
    EXPECT_NE(msg.find(expected), std::string::npos) << msg;
  }
}

TEST(Checkpoint, RefusesOtherSystemsOtherSettingsAndCorruption) {
  TempDir dir;
  const Checkpoint c = sampleCheckpoint(5);
  writeCheckpoint(dir / "s.chk", c);
  const std::string atoms = errorOf([&] { readCheckpoint(dir / "s.chk", 6, c.physics); });
  EXPECT_NE(atoms.find("s.chk: checkpoint has 5 atoms, the system has 6"), std::string::npos) << atoms;
  const std::string settings = errorOf([&] { readCheckpoint(dir / "s.chk", 5, "atoms=5\nintegrator.dt=0.001\n"); });
  EXPECT_NE(settings.find("different system or settings"), std::string::npos) << settings;
  EXPECT_NE(settings.find("integrator.dt=0.002, this run integrator.dt=0.001"), std::string::npos) << settings;

  std::string bytes = readText(dir / "s.chk");
  bytes[bytes.size() / 2] ^= 0x10;
  writeText(dir / "bad.chk", bytes);
  EXPECT_NE(errorOf([&] { readCheckpoint(dir / "bad.chk", 5, c.physics); }).find("checksum"), std::string::npos);
  writeText(dir / "short.chk", readText(dir / "s.chk").substr(0, 40));
  EXPECT_NE(errorOf([&] { readCheckpoint(dir / "short.chk", 5, c.physics); }).find("short.chk"), std::string::npos);
  writeText(dir / "text.chk", "hello");
  EXPECT_NE(errorOf([&] { readCheckpoint(dir / "text.chk", 5, c.physics); }).find("not a Faraday checkpoint"),
            std::string::npos);
}

TEST(Checkpoint, PhysicsDescriptionCoversTheSettingsThatDecideTheTrajectory) {
  TempDir dir;
  writeText(dir / "argon.gro", argonGro(2));
  writeText(dir / "sim.cfg", argonConfig(10, 0.4));
  const Config a = loadConfig(dir / "sim.cfg", {});
  const faraday::Setup setup = buildSetup(a);
  const std::string base = physicsDescription(a, setup.system);
  EXPECT_EQ(physicsDescription(loadConfig(dir / "sim.cfg", {"--run.steps=99", "--output.energy_interval=3"}), setup.system), base);
  for (const char* change : {"--integrator.dt=0.003", "--integrator.seed=7", "--nonbonded.cutoff=0.5",
                             "--atom.AR.epsilon=1.1", "--integrator.type=verlet"})
    EXPECT_NE(physicsDescription(loadConfig(dir / "sim.cfg", {change}), setup.system), base) << change;
}

/// A run of 256 Langevin argon atoms (fcc 4^3) in `folder`, writing outputs to `out`, on
/// every backend.
class RestartTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    FARADAY_REQUIRE_BACKEND(GetParam());
    writeText(dir / "argon.gro", argonGro(4));
    writeText(dir / "sim.cfg", argonConfig(kSteps, 0.9));
  }
  CommandResult run(const std::string& out, long long steps, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"run", "sim.cfg", "--output.directory=" + out, "--run.steps=" + std::to_string(steps),
                                     "--run.platform=" + GetParam()};
    args.insert(args.end(), extra.begin(), extra.end());
    return runFaraday(dir.path(), args);
  }
  pid_t start(const std::string& out) {
    return startFaraday(dir.path(), {"run", "sim.cfg", "--output.directory=" + out, "--run.steps=100000000",
                                     "--output.energy_interval=1", "--run.platform=" + GetParam()});
  }
  Checkpoint checkpoint(const std::string& out) { return readCheckpoint(dir / out / "state.chk", 256, ""); }

  static constexpr long long kSteps = 300;
  TempDir dir;
};

/// Energy-log rows without the last column (ns/day depends on the wall clock).
/// The rows without their 7th column, the speed.
std::vector<std::string> energyRowsWithoutSpeed(const fs::path& file) {
  std::vector<std::string> rows = lines(readText(file));
  for (std::string& row : rows) {
    std::size_t at = 0;
    for (int k = 0; k < 6; ++k) at = row.find(',', at) + 1;
    row.erase(at, row.find(',', at) - at);
  }
  return rows;
}

TEST_P(RestartTest, RestartedLangevinRunIsBitwiseTheUninterruptedOne) {
  const CommandResult full = run("full", kSteps);
  ASSERT_EQ(full.exitCode, 0) << full.err;
  const CommandResult half = run("split", kSteps / 2);
  ASSERT_EQ(half.exitCode, 0) << half.err;
  const Checkpoint middle = checkpoint("split");
  EXPECT_EQ(middle.step, kSteps / 2);
  const CommandResult rest = run("split", kSteps, {"--restart", "split/state.chk"});
  ASSERT_EQ(rest.exitCode, 0) << rest.err;

  const Checkpoint a = checkpoint("full"), b = checkpoint("split");
  EXPECT_EQ(a.step, kSteps);
  EXPECT_EQ(b.step, kSteps);
  EXPECT_EQ(std::memcmp(&a.time, &b.time, sizeof a.time), 0);
  EXPECT_TRUE(bitwiseEqual(a.positions, b.positions));
  EXPECT_TRUE(bitwiseEqual(a.velocities, b.velocities));
  EXPECT_TRUE(bitwiseEqual(a.listReference, b.listReference));
  // The state moved: the comparison is not of two copies of the input.
  EXPECT_FALSE(bitwiseEqual(a.positions, middle.positions));
  // The energy log and the trajectory continue exactly as well.
  EXPECT_EQ(energyRowsWithoutSpeed(dir / "full" / "energy.csv"), energyRowsWithoutSpeed(dir / "split" / "energy.csv"));
  DcdReader ta(dir / "full" / "traj.dcd", 256), tb(dir / "split" / "traj.dcd", 256);
  ASSERT_EQ(ta.frames(), kSteps / 10 + 1);
  ASSERT_EQ(tb.frames(), ta.frames());
  TrajectoryFrame fa, fb;
  ta.readFrame(ta.frames() - 1, fa);
  tb.readFrame(tb.frames() - 1, fb);
  EXPECT_TRUE(bitwiseEqual(fa.positions, fb.positions));
  EXPECT_EQ(readText(dir / "full" / "final.gro"), readText(dir / "split" / "final.gro"));
}

TEST_P(RestartTest, RestartWithOtherPhysicsIsRefusedAndWritesNothing) {
  ASSERT_EQ(run("a", 20).exitCode, 0);
  const CommandResult r = run("b", 40, {"--restart", "a/state.chk", "--integrator.dt=0.002"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("faraday: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("state.chk: checkpoint was written for a different system or settings"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("integrator.dt"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "b"));
}

TEST_P(RestartTest, InterruptStopsAfterTheStepWithACheckpointAndTheRunCanContinue) {
  const pid_t pid = start("int");
  ASSERT_GT(pid, 0);
  // Wait until the loop runs (the energy log has rows), then interrupt.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (lines(readText(dir / "int" / "energy.csv")).size() < 4 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(pid, SIGINT);
  const int code = waitFor(pid, 60);
  const std::string err = readText(dir / "faraday.err");
  EXPECT_EQ(code, 130) << err;
  EXPECT_NE(err.find("interrupted at step"), std::string::npos) << err;
  EXPECT_NE(err.find("state.chk"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir / "int" / "final.gro"));
  const Checkpoint c = checkpoint("int");
  EXPECT_GT(c.step, 0);
  // The energy log holds every step up to the interruption.
  EXPECT_EQ(long(lines(readText(dir / "int" / "energy.csv")).size()), c.step + 2);

  const CommandResult rest = run("int", c.step + 5, {"--restart=int/state.chk"});
  ASSERT_EQ(rest.exitCode, 0) << rest.err;
  EXPECT_EQ(checkpoint("int").step, c.step + 5);
  EXPECT_TRUE(fs::exists(dir / "int" / "final.gro"));
}

/// SIGTERM, and SIGHUP (the terminal or the ssh session went away) likewise, stop the run
/// after the step with a checkpoint; the exit code is 128 + the signal.
TEST_P(RestartTest, TerminateAndHangupSignalsExitWith128PlusTheSignalAfterACheckpoint) {
  for (const int signal : {SIGTERM, SIGHUP}) {
    const std::string out = "signal" + std::to_string(signal);
    const pid_t pid = start(out);
    ASSERT_GT(pid, 0);
    EXPECT_TRUE(waitUntil([&] { return lines(readText(dir / out / "energy.csv")).size() >= 3; }));
    ::kill(pid, signal);
    EXPECT_EQ(waitFor(pid, 60), 128 + signal) << readText(dir / "faraday.err");
    EXPECT_HAS(readText(dir / "faraday.err"), "interrupted at step");
    EXPECT_GT(checkpoint(out).step, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, RestartTest, ::testing::ValuesIn(kBackendNames), backendTestName);

}  // namespace
}  // namespace faraday::test
