// MD of one system across several GPUs (engine/backends/CudaMultiBackend.h; the work split and
// the ranks' threads in test_multigpu_work_split.cpp): which systems the update split takes,
// and on machines with two or more GPUs: with PME on the first GPU (run.pme_split = first) the
// trajectory against one GPU's, bit for bit, for ions and for a protein with bonded terms,
// exclusions and constraints, the Monte Carlo barostat's volume moves, restarts from a
// checkpoint on another GPU count and the map reporter's map; with PME split in slabs (the
// default) the forces and energies against one GPU's within float rounding, the same bits in
// every run, volume moves, and exact restarts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <tuple>

#include "core/Error.h"
#include "engine/backends/BackendFactory.h"
#include "engine/backends/CudaMultiBackend.h"
#include "engine/cli/RunFromConfig.h"
#include "engine/config/LoadConfig.h"
#include "engine/run/Barostat.h"
#include "engine/setup/ConstraintSetup.h"
#include "engine/setup/SystemSetup.h"
#include "kernels/common/Device.h"
#if defined(FARADAY_HAVE_CUDA)
#include "kernels/common/CudaOwners.h"
#include "kernels/common/DeviceBuffer.h"
#include "integrators/CudaIntegrator.h"
#include "kernels/multigpu/CudaPeerSum.h"
#endif
#include "tests/EngineTestSupport.h"
#include "tests/TestSupport.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

/// The update split needs every water and constraint cluster inside one slot group (so that
/// no GPU's run of slots cuts one): the protein's waters and hydrogen bonds are; a constraint
/// between two heavy atoms joins two groups.
TEST(MultiGpuMd, UpdateSplitNeedsEveryConstrainedGroupInOneSlotGroup) {
  const auto systemOf = [](const std::string& name, const std::string& config, std::vector<std::string> args) {
    return buildSetup(loadConfig(sourceDir() + "/systems/" + name + "/" + config, args)).system;
  };
  EXPECT_TRUE(updateSplitPossible(systemOf("nacl_melt", "sim.cfg", {})));
  EXPECT_TRUE(updateSplitPossible(systemOf("protein", "sim.cfg", {})));  // no constraints
  EXPECT_TRUE(updateSplitPossible(systemOf("protein", "npt.cfg", {})));  // SETTLE and h-bonds
  EXPECT_FALSE(updateSplitPossible(systemOf("protein", "npt.cfg", {"--system.constraints=all-bonds"})));
}

/// A CUDA backend of systems/NAME/CONFIG on `devices` ("" = one GPU), at its initial state
/// (on its constraints where it has them).
struct MdRun {
  Config config;
  Setup setup;
  std::unique_ptr<Backend> backend;
};
MdRun startRun(const std::string& name, const std::string& devices, const std::string& config = "sim.cfg",
               const std::string& pmeSplit = "first", const std::string& gpuSum = "auto",
               const std::string& updateSplit = "auto") {
  MdRun r;
  std::vector<std::string> args = {"--run.platform=cuda", "--run.pme_split=" + pmeSplit, "--run.gpu_sum=" + gpuSum,
                                   "--run.update_split=" + updateSplit};
  if (!devices.empty()) args.push_back("--run.devices=" + devices);
  r.config = loadConfig(sourceDir() + "/systems/" + name + "/" + config, args);
  r.setup = buildSetup(r.config);
  constrainInitialState(r.config, r.setup.system, r.setup.state, -1.0);
  r.backend = makeBackend(r.config, r.setup.system, nullptr);
  r.backend->setState(r.setup.state, {});
  r.backend->computeForces();
  return r;
}

/// `steps` steps, energies every 25th; the potential energies of those steps.
std::vector<double> advance(Backend& b, int steps) {
  std::vector<double> e;
  for (int s = 1; s <= steps; ++s) {
    b.advance(s % 25 == 0);
    if (s % 25 == 0) e.push_back(b.energies().potential());
  }
  return e;
}

bool sameBits(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Vec3)) == 0;
}

/// The same step, positions and velocities, bit for bit.
void expectSameState(Backend& a, Backend& b, const std::string& what) {
  State sa, sb;
  a.getState(sa);
  b.getState(sb);
  EXPECT_EQ(sa.step, sb.step) << what;
  EXPECT_TRUE(sameBits(sa.positions, sb.positions)) << what;
  EXPECT_TRUE(sameBits(sa.velocities, sb.velocities)) << what;
}

/// 200 steps with a volume move every 10th; the volumes after each move.
std::vector<double> advanceWithVolumeMoves(MdRun& r, MonteCarloBarostat& barostat, Box& box) {
  std::vector<double> volumes;
  for (int s = 1; s <= 200; ++s) {
    const bool move = s % 10 == 0;
    r.backend->advance(move);
    if (move) {
      barostat.attempt(*r.backend, box);
      volumes.push_back(box.volume());
    }
  }
  return volumes;
}


/// Skips unless the machine has two GPUs or more; "all" otherwise.
#define FARADAY_REQUIRE_GPUS(n)                                                                   \
  do {                                                                                           \
    if (::faraday::cudaDeviceCount() < (n))                                                      \
      GTEST_SKIP() << "multi-GPU test skipped: " << ::faraday::cudaDeviceCount() << " GPU(s) here, " \
                   << (n) << " needed";                                                          \
  } while (0)

#if defined(FARADAY_HAVE_CUDA)
/// The update split's slots from block cuts: each rank's run starts at its first block's first
/// slot, moved on to the next change of the group key, and a rank whose cut is block 0 (the
/// ranks before it have no tiles) starts at slot 0 (no slot before it to compare with).
TEST(MultiGpuMdGpu, UpdateBoundsFollowTheBlockCutsToGroupBoundaries) {
  FARADAY_REQUIRE_GPU();
  const int n = 400, shift = 4, ranks = 4;
  std::vector<unsigned long long> keys(n);
  for (int s = 0; s < n; ++s) keys[std::size_t(s)] = (unsigned long long)(s / 3) << shift | (s % 3);  // groups of 3
  const DeviceBuffer<unsigned long long> d = deviceCopy("keys", keys);
  DeviceBuffer<int> bounds("bounds", ranks + 1);
  for (const auto& [cuts, want] : std::vector<std::pair<std::vector<int>, std::vector<int>>>{
           {{0, 0, 5, 10, 13}, {0, 0, 162, 321, 400}}, {{0, 3, 6, 9, 13}, {0, 96, 192, 288, 400}},
           {{0, 0, 0, 0, 13}, {0, 0, 0, 0, 400}}}) {
    launchUpdateBounds(nullptr, n, ranks, d.data(), shift, bounds.data(), cuts.data());
    EXPECT_EQ(bounds.toHost(), want) << "cuts " << cuts[1] << ", " << cuts[2] << ", " << cuts[3];
  }
}
#endif

#if defined(FARADAY_HAVE_CUDA)
/// The direct-sum test's case: n slots of stride, sumCount energy sums, the ranks' slot bounds
/// (uneven: shifted by 37 g), and every rank's partials per round.
struct PeerSumCase {
  int n = 100003, ranks;
  std::size_t stride = 100096, sumCount = 5;
  std::vector<int> bounds;

  explicit PeerSumCase(int r) : ranks(r), bounds(std::size_t(r) + 1) {
    for (int g = 0; g <= ranks; ++g)
      bounds[std::size_t(g)] = int((long long)g * n / ranks) + (g > 0 && g < ranks ? 37 * g : 0);
  }
  /// Rank r's partial of value (plane, slot) in `round`: its own slots and 200 either side
  /// (the second round: 50), every 997th slot (shifted by the round), else zero; large values
  /// whose sums wrap around 2^64.
  unsigned long long partial(int round, int r, int plane, int slot) const {
    const int edge = round == 0 ? 200 : 50;
    const bool near = slot >= bounds[std::size_t(r)] - edge && slot < bounds[std::size_t(r) + 1] + edge;
    const bool single = (slot + 13 * r + 101 * round) % 997 == 0;
    if (slot >= n || !(near || single)) return 0ull;
    return 0x9E3779B97F4A7C15ull * (unsigned long long)(slot + 1) * (unsigned long long)(3 * r + plane + 1 + round) ^
           ((unsigned long long)plane << 60);
  }
  /// Rank r's energy sum c in `round`.
  unsigned long long energy(int r, std::size_t c, int round) const {
    return 1000ull * (unsigned long long)(r + 1) + c + round;
  }
};

/// One GPU's buffers, stream and peer sum in the direct-sum test.
struct PeerSumRank {
  DeviceBuffer<unsigned long long> force{"test forces", 0}, sums{"test sums", 0};
  DeviceBuffer<double> pos{"test positions", 0}, vel{"test velocities", 0};
  DeviceBuffer<int> bounds{"test bounds", 0};
  std::unique_ptr<CudaPeerSum> sum;
  CudaStream stream;
};

/// Every rank's buffers and peer sum, peer access enabled and the sums connected.
std::vector<PeerSumRank> connectedPeerSums(const PeerSumCase& c, const std::vector<int>& devices) {
  std::vector<PeerSumRank> rank(static_cast<std::size_t>(c.ranks));
  std::vector<PeerSumAddresses> addresses;
  for (int r = 0; r < c.ranks; ++r) {
    FARADAY_CUDA_CHECK(cudaSetDevice(r));
    for (int d : devices)
      if (d != r) enablePeerAccess(d);
    PeerSumRank& k = rank[std::size_t(r)];
    k.stream = CudaStream();
    k.force = DeviceBuffer<unsigned long long>("test forces", 3 * c.stride);
    k.sums = DeviceBuffer<unsigned long long>("test sums", c.sumCount);
    k.pos = DeviceBuffer<double>("test positions", 4 * c.stride);
    k.vel = DeviceBuffer<double>("test velocities", 4 * c.stride);
    k.bounds.upload(c.bounds);
    PeerSumArrays arrays;
    arrays.force = k.force.data();
    arrays.stride = c.stride;
    arrays.sums = k.sums.data();
    arrays.sumCount = c.sumCount;
    arrays.positions = k.pos.data();
    arrays.velocities = k.vel.data();
    k.sum = std::make_unique<CudaPeerSum>(r, c.ranks, arrays);
    addresses.push_back(k.sum->addresses());
  }
  for (int r = 0; r < c.ranks; ++r) rank[std::size_t(r)].sum->connect(addresses);
  return rank;
}

void uploadPartials(const PeerSumCase& c, std::vector<PeerSumRank>& rank, int round) {
  for (int r = 0; r < c.ranks; ++r) {
    FARADAY_CUDA_CHECK(cudaSetDevice(r));
    std::vector<unsigned long long> f(3 * c.stride), e(c.sumCount);
    for (int plane = 0; plane < 3; ++plane)
      for (int slot = 0; slot < int(c.stride); ++slot) f[plane * c.stride + std::size_t(slot)] = c.partial(round, r, plane, slot);
    for (std::size_t s = 0; s < c.sumCount; ++s) e[s] = c.energy(r, s, round);
    PeerSumRank& k = rank[std::size_t(r)];
    k.force.upload(f, k.stream.get());
    k.sums.upload(e, k.stream.get());
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(k.stream.get()));
  }
}

/// Every GPU's slots (the reduce-scatter: its own) and energy sums against the host's sums.
void expectHostSums(const PeerSumCase& c, std::vector<PeerSumRank>& rank, bool scatter, int round) {
  for (int r = 0; r < c.ranks; ++r) {
    FARADAY_CUDA_CHECK(cudaSetDevice(r));
    PeerSumRank& k = rank[std::size_t(r)];
    const std::vector<unsigned long long> f = k.force.toHost(k.stream.get()), e = k.sums.toHost(k.stream.get());
    int wrong = 0;
    for (int plane = 0; plane < 3; ++plane)
      for (int slot = 0; slot < c.n; ++slot) {
        if (scatter && (slot < c.bounds[std::size_t(r)] || slot >= c.bounds[std::size_t(r) + 1])) continue;
        unsigned long long want = 0;
        for (int q = 0; q < c.ranks; ++q) want += c.partial(round, q, plane, slot);
        wrong += f[plane * c.stride + std::size_t(slot)] != want;
      }
    EXPECT_EQ(wrong, 0) << (scatter ? "reduce-scatter" : "all-reduce") << ", round " << round << ", GPU " << r;
    for (std::size_t s = 0; s < c.sumCount; ++s) {
      unsigned long long want = 0;
      for (int q = 0; q < c.ranks; ++q) want += c.energy(q, s, round);
      EXPECT_EQ(e[s], want) << "energy sum " << s << ", GPU " << r;
    }
  }
}

/// The direct sum by slots, against the host's integer sums: the all-reduce (every GPU holds
/// every slot's total) and the reduce-scatter (each its own slots), with partials that are
/// non-zero on a GPU's own slots and their edges and at scattered single slots elsewhere (so
/// that most chunks are not sent), over two rounds whose non-zero chunks differ (a chunk sent
/// in the first round and not in the second must not count again).
TEST(MultiGpuMdGpu, DirectSumBySlotsSendsTheNonZeroChunksAndGivesTheHostSums) {
  FARADAY_REQUIRE_GPUS(2);
  const int ranks = std::min(4, ::faraday::cudaDeviceCount());
  std::vector<int> devices;
  for (int r = 0; r < ranks; ++r) devices.push_back(r);
  if (!allPeersReachable(devices)) GTEST_SKIP() << "direct sum test skipped: no peer access between the GPUs";
  const PeerSumCase c(ranks);
  std::vector<PeerSumRank> rank = connectedPeerSums(c, devices);
  for (const bool scatter : {false, true})
    for (int round = 0; round < 2; ++round) {
      uploadPartials(c, rank, round);
      for (int r = 0; r < ranks; ++r) {  // every GPU's kernels in flight together (they wait for each other)
        FARADAY_CUDA_CHECK(cudaSetDevice(r));
        PeerSumRank& k = rank[std::size_t(r)];
        if (scatter) k.sum->enqueueScatter(k.stream.get(), k.bounds.data());
        else k.sum->enqueue(k.stream.get(), k.bounds.data());
      }
      expectHostSums(c, rank, scatter, round);
    }
  FARADAY_CUDA_CHECK(cudaSetDevice(0));
}
#endif

/// The forces summed by direct stores between the GPUs (where they have peer access) and by
/// NCCL's all-reduce: both the one-GPU trajectory.
TEST(MultiGpuMdGpu, TrajectoryOnEveryGpuIsTheOneGpuTrajectoryBitForBit) {
  FARADAY_REQUIRE_GPUS(2);
  const bool peers = allPeersReachable({0, 1});
  if (!peers) std::printf("[ info ] no peer access between GPUs 0 and 1: every sum runs by NCCL\n");
  for (const std::string system : {"nacl_melt", "protein"}) {
    for (const auto& [devices, sum] : std::vector<std::pair<std::string, std::string>>{
             {"0,1", "auto"}, {"all", "auto"}, {"0,1", "nccl"}}) {
      MdRun one = startRun(system, ""), many = startRun(system, devices, "sim.cfg", "first", sum);
      const bool direct = sum == "auto" && peers;
      EXPECT_NE(many.backend->name().find(direct ? "summed by direct stores" : "summed by NCCL"), std::string::npos)
          << many.backend->name();
      EXPECT_EQ(one.backend->computeForces().potential(), many.backend->computeForces().potential()) << system;
      const std::vector<double> e1 = advance(*one.backend, 200), en = advance(*many.backend, 200);
      State a, b;
      one.backend->getState(a);
      many.backend->getState(b);
      EXPECT_TRUE(sameBits(a.positions, b.positions)) << system << " on " << devices;
      EXPECT_TRUE(sameBits(a.velocities, b.velocities)) << system << " on " << devices;
      EXPECT_EQ(e1, en) << system << " on " << devices;
      EXPECT_EQ(one.backend->neighborListBuilds(), many.backend->neighborListBuilds());
      std::printf("[ info ] %s: 200 steps on %s = one GPU, bit for bit (%s)\n", system.c_str(), devices.c_str(),
                  many.backend->name().c_str());
    }
  }
}

/// Each GPU updating its own atoms (run.update_split = on: SETTLE and h-bond constraints on the
/// GPU that holds their slots, Langevin noise by particle) against every GPU updating every
/// atom and against one GPU: the same trajectory, kinetic energies and potentials, bit for bit.
TEST(MultiGpuMdGpu, UpdateSplitIsTheOneGpuTrajectoryBitForBit) {
  FARADAY_REQUIRE_GPUS(2);
  if (!allPeersReachable({0, 1})) GTEST_SKIP() << "update split test skipped: no peer access between GPUs 0 and 1";
  for (const auto& [system, config] : std::vector<std::pair<std::string, std::string>>{
           {"nacl_melt", "sim.cfg"}, {"protein", "sim.cfg"}, {"protein", "npt.cfg"}}) {
    MdRun one = startRun(system, "", config);
    MdRun split = startRun(system, "all", config, "first", "auto", "on");
    MdRun whole = startRun(system, "all", config, "first", "auto", "off");
    ASSERT_NE(split.backend->name().find("each updating its own atoms"), std::string::npos) << split.backend->name();
    ASSERT_EQ(whole.backend->name().find("each updating its own atoms"), std::string::npos) << whole.backend->name();
    // auto: the split where there are constraints (npt.cfg), else every GPU updates every atom.
    const bool constrained = config == "npt.cfg";
    EXPECT_EQ(startRun(system, "all", config).backend->name().find("each updating its own atoms") != std::string::npos,
              constrained)
        << system << " " << config;
    const std::vector<double> e1 = advance(*one.backend, 200), es = advance(*split.backend, 200),
                              ew = advance(*whole.backend, 200);
    EXPECT_EQ(e1, es) << system << " " << config;
    EXPECT_EQ(e1, ew) << system << " " << config;
    EXPECT_EQ(one.backend->kineticEnergy(), split.backend->kineticEnergy()) << system << " " << config;
    expectSameState(*one.backend, *split.backend, system + " " + config + ", split");
    expectSameState(*one.backend, *whole.backend, system + " " + config + ", whole");
    EXPECT_TRUE(sameBits(one.backend->forces(), split.backend->forces())) << system << " " << config;
    EXPECT_GT(one.backend->neighborListBuilds(), 2) << "too few list builds: the sorts between GPUs go untested";
    EXPECT_EQ(one.backend->neighborListBuilds(), split.backend->neighborListBuilds());
    const Energies a = one.backend->energies(), b = split.backend->energies();
    for (int i = 0; i < 3; ++i) EXPECT_EQ(a.virial.m[i][i], b.virial.m[i][i]) << system << " " << config;
    std::printf("[ info ] %s %s: 200 steps, each GPU updating its own atoms = one GPU, bit for bit (%lld builds)\n",
                system.c_str(), config.c_str(), one.backend->neighborListBuilds());
  }
}

/// systems/protein/npt.cfg (h-bonds, rigid water, 4 fs, 3 amu hydrogens) with a volume move
/// every 10 steps: on two GPUs the same moves are accepted and the trajectory and box are the
/// one-GPU ones, bit for bit.
TEST(MultiGpuMdGpu, VolumeMovesOnSeveralGpusAreTheOneGpuMovesBitForBit) {
  FARADAY_REQUIRE_GPUS(2);
  MdRun one = startRun("protein", "", "npt.cfg"), many = startRun("protein", "0,1", "npt.cfg");
  const auto run = advanceWithVolumeMoves;
  auto b1 = makeBarostat(one.config, one.setup.system), bn = makeBarostat(many.config, many.setup.system);
  ASSERT_TRUE(b1 && bn);
  Box box1 = one.setup.state.box, boxn = many.setup.state.box;
  const std::vector<double> v1 = run(one, *b1, box1), vn = run(many, *bn, boxn);
  EXPECT_EQ(v1, vn);
  EXPECT_EQ(b1->state().accepted, bn->state().accepted);
  EXPECT_GT(b1->state().accepted, 0) << "no move was accepted: the test proves little";
  EXPECT_LT(b1->state().accepted, b1->state().attempts) << "no move was rejected: the test proves little";
  State a, b;
  one.backend->getState(a);
  many.backend->getState(b);
  EXPECT_EQ(a.box.diagonal(), b.box.diagonal());
  EXPECT_TRUE(sameBits(a.positions, b.positions));
  EXPECT_TRUE(sameBits(a.velocities, b.velocities));
  EXPECT_EQ(one.backend->energies().potential(), many.backend->energies().potential());
  std::printf("[ info ] protein NPT: 20 volume moves (%lld accepted) on 2 GPUs = one GPU, bit for bit\n",
              b1->state().accepted);
}

/// Relative RMS difference of two force arrays.
double relativeRms(const std::vector<Vec3>& got, const std::vector<Vec3>& want) {
  double d = 0, w = 0;
  for (std::size_t i = 0; i < want.size(); ++i) d += norm2(got[i] - want[i]), w += norm2(want[i]);
  return std::sqrt(d / w);
}

TEST(MultiGpuMdGpu, PmeInSlabsGivesTheOneGpuForcesAndEnergiesToFloatRounding) {
  FARADAY_REQUIRE_GPUS(2);
  for (const std::string system : {"nacl_melt", "protein"}) {
    MdRun one = startRun(system, "");
    const Energies e1 = one.backend->computeForces();
    const std::vector<Vec3> f1 = one.backend->forces();
    ASSERT_NE(e1.coulombRecip, 0.0);
    // Direct stores between the GPUs (peer access), and the same split by NCCL.
    const std::vector<std::pair<std::string, std::string>> runs = {
        {"0,1", "slabs"}, {"all", "slabs"}, {"all", "slabs-nccl"}};
    for (const auto& [devices, split] : runs) {
      MdRun many = startRun(system, devices, "sim.cfg", split);
      ASSERT_NE(many.backend->name().find(split == "slabs" ? "in slabs" : "in slabs by NCCL"), std::string::npos)
          << many.backend->name();
      const Energies en = many.backend->computeForces();
      const double rms = relativeRms(many.backend->forces(), f1);
      EXPECT_LT(rms, tol::kSlabPmeVsOneGpu) << system << " on " << devices;
      EXPECT_NEAR(en.coulombRecip, e1.coulombRecip, tol::kSlabPmeVsOneGpu * std::abs(e1.coulombRecip)) << system;
      for (int a = 0; a < 3; ++a)
        EXPECT_NEAR(en.virial.m[a][a], e1.virial.m[a][a], tol::kSlabPmeVsOneGpu * std::abs(e1.coulombRecip))
            << system << " virial " << a;
      // Everything but PME is summed exactly: the same bits.
      EXPECT_EQ(en.coulombReal, e1.coulombReal) << system;
      EXPECT_EQ(en.lj, e1.lj) << system;
      std::printf("[ info ] %s on %s (%s): forces rel. RMS %.2e, E_rec %.9g vs %.9g\n", system.c_str(),
                  devices.c_str(), many.backend->name().c_str(), rms, en.coulombRecip, e1.coulombRecip);
      if (split == "slabs" && !allPeersReachable({0, 1}))
        std::printf("[ info ] no peer access between GPUs 0 and 1: the split ran by NCCL\n");
    }
  }
}

TEST(MultiGpuMdGpu, PmeInSlabsRepeatsItsTrajectoryBitForBitAndRestartsExactly) {
  FARADAY_REQUIRE_GPUS(2);
  for (const std::string system : {"nacl_melt", "protein"}) {
    MdRun a = startRun(system, "all", "sim.cfg", "slabs"), b = startRun(system, "all", "sim.cfg", "slabs");
    const std::vector<double> ea = advance(*a.backend, 100), eb = advance(*b.backend, 100);
    EXPECT_EQ(ea, eb) << system;
    // b restarts from a snapshot of a at step 100 in a fresh run; both go on for 100 steps.
    State s;
    std::vector<Vec3> reference;
    a.backend->snapshot(s, reference);
    MdRun c = startRun(system, "all", "sim.cfg", "slabs");
    c.backend->setState(s, reference);
    advance(*a.backend, 100);
    advance(*c.backend, 100);
    expectSameState(*a.backend, *c.backend, system);
    // And it stays near the one-GPU run: 100 steps from the same start.
    MdRun one = startRun(system, "");
    const std::vector<double> e1 = advance(*one.backend, 100);
    ASSERT_EQ(e1.size(), ea.size());
    for (std::size_t k = 0; k < e1.size(); ++k)
      EXPECT_NEAR(ea[k], e1[k], 1e-5 * std::abs(e1[k])) << system << " energy row " << k;
    std::printf("[ info ] %s, PME in slabs on all GPUs: two runs the same bits; restart exact; potential after 100 "
                "steps %.9g vs %.9g on one GPU\n",
                system.c_str(), ea.back(), e1.back());
  }
}

TEST(MultiGpuMdGpu, VolumeMovesWithPmeInSlabsRepeatBitForBit) {
  FARADAY_REQUIRE_GPUS(2);
  const auto run = advanceWithVolumeMoves;
  MdRun a = startRun("protein", "all", "npt.cfg", "slabs"), b = startRun("protein", "all", "npt.cfg", "slabs");
  auto ba = makeBarostat(a.config, a.setup.system), bb = makeBarostat(b.config, b.setup.system);
  ASSERT_TRUE(ba && bb);
  Box boxA = a.setup.state.box, boxB = b.setup.state.box;
  const std::vector<double> va = run(a, *ba, boxA), vb = run(b, *bb, boxB);
  EXPECT_EQ(va, vb);
  EXPECT_GT(ba->state().accepted, 0) << "no move was accepted: the test proves little";
  EXPECT_LT(ba->state().accepted, ba->state().attempts) << "no move was rejected: the test proves little";
  State sa, sb;
  a.backend->getState(sa);
  b.backend->getState(sb);
  EXPECT_TRUE(sameBits(sa.positions, sb.positions));
  EXPECT_EQ(a.backend->energies().potential(), b.backend->energies().potential());
  std::printf("[ info ] protein NPT, PME in slabs: 20 volume moves (%lld accepted), the same bits twice\n",
              ba->state().accepted);
}

/// Also with each GPU updating its own atoms (run.update_split = on), and for the constrained
/// protein (npt.cfg: auto splits it).
TEST(MultiGpuMdGpu, CheckpointOfSeveralGpusRestartsExactlyOnOneAndBack) {
  FARADAY_REQUIRE_GPUS(2);
  for (const auto& [system, config, split] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"nacl_melt", "sim.cfg", "auto"}, {"protein", "sim.cfg", "auto"}, {"nacl_melt", "sim.cfg", "on"},
           {"protein", "npt.cfg", "auto"}}) {
    const std::string what = system + " " + config + ", update split " + split;
    MdRun straight = startRun(system, "", config);
    advance(*straight.backend, 150);
    MdRun many = startRun(system, "all", config, "first", "auto", split);
    advance(*many.backend, 50);
    State s;
    std::vector<Vec3> reference;
    many.backend->snapshot(s, reference);
    MdRun one = startRun(system, "", config);  // continues on one GPU
    one.backend->setState(s, reference);
    advance(*one.backend, 50);
    one.backend->snapshot(s, reference);
    MdRun again = startRun(system, "0,1", config, "first", "auto", split);  // and back on two
    again.backend->setState(s, reference);
    advance(*again.backend, 50);
    expectSameState(*straight.backend, *again.backend, what);
    std::printf("[ info ] %s: 50 steps on 2 GPUs, 50 on one, 50 on 2 = 150 on one, bit for bit (%s)\n", what.c_str(),
                again.backend->name().c_str());
  }
}

/// The map reporter of a run across GPUs reads the first GPU's device frame, which holds every
/// atom after each step (with the update split, the others' positions gathered into it). With
/// PME on the first GPU the trajectory is the one-GPU trajectory, so the written map has the
/// one-GPU map's bytes: `pme` and `direct`, each GPU updating its own atoms and not.
TEST(MultiGpuMdGpu, MapReporterOfARunAcrossGpusWritesTheOneGpuMap) {
  FARADAY_REQUIRE_GPUS(2);
  const bool peers = allPeersReachable({0, 1});
  for (const std::string method : {"pme", "direct"}) {
    for (const std::string split : {"off", "on"}) {
      if (split == "on" && !peers) continue;  // the update split needs the direct sum
      std::string text[2];
      for (int k = 0; k < 2; ++k) {
        TempDir dir;
        const Config config = loadConfig(
            sourceDir() + "/systems/nacl_melt/sim.cfg",
            {"--run.platform=cuda", k == 0 ? "--run.devices=0" : "--run.devices=all", "--run.pme_split=first",
             "--run.update_split=" + split, "--run.steps=60", "--run.progress_interval=0",
             "--output.directory=" + dir.path().string(), "--output.energy_file=", "--output.trajectory_file=",
             "--output.checkpoint_file=", "--output.log_file=", "--map.enabled=true", "--map.method=" + method,
             "--map.spacing=0.25", "--map.interval=20", "--map.file=run.dx"});
        std::ostringstream log;
        runFromConfig(config, RunOptions{}, log);
        text[k] = readText(dir / "run.dx");
      }
      const std::string what = method + " map, update split " + split;
      EXPECT_GT(text[0].size(), 1000u) << what;
      EXPECT_EQ(text[0], text[1]) << what << ": the map of the run on every GPU differs from one GPU's";
      std::printf("[ info ] %s: the run on every GPU writes the one-GPU map (%zu bytes), the same bytes\n",
                  what.c_str(), text[0].size());
    }
  }
}
}  // namespace
}  // namespace faraday::test
