// Maps averaged by several workers (engine/maps/MapFrames.h): the chunks, their reduction in
// chunk order, and maps with the same bits on one or several workers (CPU workers here, GPU
// workers on one GPU shared by three, and on every GPU of the machine) equal to the frames
// summed one after another.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>
#include <thread>

#include "engine/formats/TrajectoryFile.h"
#include "engine/maps/MapFrames.h"
#include "kernels/common/Device.h"
#include "tests/MapTestSupport.h"
#include "tests/TestSupport.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

TEST(MapFrames, ChunksCoverEveryFrameOnceAndDependOnTheFrameCountAlone) {
  EXPECT_EQ(mapChunkFrames(3), 8);
  EXPECT_EQ(mapChunkFrames(201), 8);
  EXPECT_EQ(mapChunkFrames(2000), 32);
  for (long long frames : {1LL, 7LL, 8LL, 9LL, 201LL, 2000LL, 100001LL}) {
    const MapChunks c{frames, mapChunkFrames(frames)};
    EXPECT_LE(c.count(), std::max<long long>(64, (frames + 7) / 8));
    long long next = 0;
    for (long long k = 0; k < c.count(); ++k) {
      EXPECT_EQ(c.first(k), next);
      EXPECT_GT(c.end(k), c.first(k));
      next = c.end(k);
    }
    EXPECT_EQ(next, frames);
  }
}

/// Chunk sums whose double sum depends on the order of the additions.
std::vector<double> chunkSum(long long chunk) {
  return {1e16 * double(chunk % 3 == 0 ? 1 : -1), 0.1 * double(chunk) + 1.0, 3.0 + 1e-3 * double(chunk * chunk)};
}

TEST(MapFrames, ReducerAddsTheChunksInChunkOrderWhateverOrderTheyArriveIn) {
  const long long chunks = 40;
  std::vector<double> expect(3, 0.0);
  for (long long c = 0; c < chunks; ++c)
    for (std::size_t p = 0; p < 3; ++p) expect[p] += chunkSum(c)[p];
  std::vector<long long> order(chunks);
  for (long long c = 0; c < chunks; ++c) order[std::size_t(c)] = c;
  std::mt19937 rng(5);
  std::shuffle(order.begin(), order.end(), rng);
  // Four threads hand the chunks over while this one adds those that are next in order.
  ChunkReducer reducer(3);
  std::vector<std::thread> threads;
  std::atomic<int> ended{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (std::size_t i = std::size_t(t); i < order.size(); i += 4) {
        reducer.add(order[i], chunkSum(order[i]));
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      ++ended;
    });
  while (ended.load() < 4) reducer.addReady(std::chrono::milliseconds(1));
  for (std::thread& t : threads) t.join();
  const std::vector<double> got = reducer.total();
  for (std::size_t p = 0; p < 3; ++p) EXPECT_EQ(got[p], expect[p]) << "point " << p;
  // The same sums added in arrival order differ: the test can tell the orders apart.
  std::vector<double> arrival(3, 0.0);
  for (long long c : order)
    for (std::size_t p = 0; p < 3; ++p) arrival[p] += chunkSum(c)[p];
  EXPECT_NE(arrival, expect);
  // A chunk that never came (a stopped run): the others are still added in chunk order.
  ChunkReducer gap(3);
  std::vector<double> expectGap(3, 0.0);
  for (long long c : {4LL, 0LL, 3LL, 1LL}) gap.add(c, chunkSum(c));
  for (long long c : {0LL, 1LL, 3LL, 4LL})
    for (std::size_t p = 0; p < 3; ++p) expectGap[p] += chunkSum(c)[p];
  EXPECT_EQ(gap.total(), expectGap);
}

/// The map case's ions over `frames` frames (each moved at random by up to 0.05 nm per axis)
/// in its DCD, its config with `platform`, map.method = `method` and the `more` options.
struct LongMapCase {
  MapCase c;
  Config config;
  Setup setup;
};

LongMapCase longMapCase(const std::string& name, const std::string& platform, const std::string& method, int frames,
                        std::vector<std::string> more = {}) {
  LongMapCase m{writeMapCase(name, platform), {}, {}};
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> u(-0.05, 0.05);
  {
    DcdWriter w(m.c.dir / "ions.dcd", m.c.frames[0].size(), 0, 10, 0.002);
    for (int f = 0; f < frames; ++f) {
      std::vector<Vec3> p = m.c.frames[std::size_t(f) % m.c.frames.size()];
      for (Vec3& r : p) r = {r.x + u(rng), r.y + u(rng), r.z + u(rng)};
      w.writeFrame(p, m.c.box);
    }
  }
  more.push_back("--map.method=" + method);
  m.config = loadConfig(m.c.dir / "map.cfg", more);
  m.setup = buildSetup(m.config);
  return m;
}

/// The frames' maps added one after another by one averager (host frames), averaged. The
/// frames are read back from the trajectory, as averageMapFrames reads them: the DCD keeps
/// float Angstroms, and maps of the unrounded double positions differ by ~2e-6 relative.
std::vector<double> sequentialAverage(const LongMapCase& m, bool useCuda) {
  const EwaldSetup ewald = mapEwaldSetup(m.config, m.setup.system);
  PotentialMapAverager averager(m.config.map, m.setup.system, useCuda, nullptr, &ewald);
  const auto trajectory = openTrajectory(m.config.map.trajectory, (long long)m.setup.system.size());
  TrajectoryFrame frame;
  for (long long f = 0; f < trajectory->frames(); ++f) {
    trajectory->readFrame(f, frame);
    averager.addFrame(frame.positions, frame.hasBox ? frame.box : m.setup.system.box);
  }
  return averager.average();
}

/// Number of points where a and b differ in any bit.
std::size_t differing(const std::vector<double>& a, const std::vector<double>& b) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
  return n + (a.size() > b.size() ? a.size() - b.size() : b.size() - a.size());
}

/// The largest |a - b| over the largest |b|.
double maxRelDiff(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
  return worst / maxAbs(b);
}

TEST(MapFrames, CpuWorkersGiveTheBitsOfOneWorkerAndTheSequentialAverage) {
  for (const std::string method : {"direct", "pme"}) {
    const LongMapCase m = longMapCase("cpu_workers_" + method, "cpu", method, 40);  // 5 chunks of 8
    const MapAverage one = averageMapFrames(m.config, m.setup.system, false, {0}, 40, nullptr);
    const MapAverage three = averageMapFrames(m.config, m.setup.system, false, {0, 0, 0}, 40, nullptr);
    EXPECT_EQ(one.frames, 40);
    EXPECT_EQ(three.frames, 40);
    EXPECT_EQ(differing(one.average, three.average), 0u) << method;
    const std::vector<double> ref = sequentialAverage(m, false);
    EXPECT_GT(maxAbs(ref), 1.0);
    EXPECT_LE(maxRelDiff(three.average, ref), tol::kMapChunkedSumRel) << method;
  }
}

/// takeSum hands over the sum of the frames added since the last one and starts the next
/// from zero: a chunk's sum has the bits of a fresh averager's, whatever its worker summed
/// before (every method, on the CPU, and on the GPU where there is one).
TEST(MapFrames, TakeSumStartsEveryChunkFromZero) {
  std::vector<std::string> platforms{"cpu"};
  if (cudaDeviceCount() > 0)
    platforms.push_back("cuda");
  else
    std::printf("[ info ] no GPU here: the CPU averagers only\n");
  for (const std::string& platform : platforms)
    for (const std::string method : {"direct", "cutoff", "pme", "pmepot"}) {
      const std::string where = method + " on " + platform;
      const LongMapCase m =
          longMapCase("take_sum_" + platform + "_" + method, platform, method, 6, {"--map.cutoff=1.0"});
      const EwaldSetup ewald = mapEwaldSetup(m.config, m.setup.system);
      const auto trajectory = openTrajectory(m.config.map.trajectory, (long long)m.setup.system.size());
      auto add = [&](PotentialMapAverager& averager, long long from, long long to) {
        TrajectoryFrame frame;
        for (long long f = from; f < to; ++f) {
          trajectory->readFrame(f, frame);
          averager.addFrame(frame.positions, frame.hasBox ? frame.box : m.setup.system.box);
        }
      };
      const bool useCuda = platform == "cuda";
      PotentialMapAverager worker(m.config.map, m.setup.system, useCuda, nullptr, &ewald);
      PotentialMapAverager fresh0(m.config.map, m.setup.system, useCuda, nullptr, &ewald);
      PotentialMapAverager fresh1(m.config.map, m.setup.system, useCuda, nullptr, &ewald);
      TrajectoryFrame first;
      trajectory->readFrame(0, first);
      for (PotentialMapAverager* a : {&worker, &fresh0, &fresh1}) a->startWith(first.positions);  // one lattice
      add(worker, 0, 3);
      const std::vector<double> chunk0 = worker.takeSum();
      add(worker, 3, 6);
      const std::vector<double> chunk1 = worker.takeSum();
      const std::vector<double> none = worker.takeSum();
      add(fresh0, 0, 3);
      add(fresh1, 3, 6);
      EXPECT_GT(maxAbs(chunk1), 1.0) << where;
      EXPECT_GT(differing(chunk0, chunk1), 0u) << where;  // the chunks' frames differ
      EXPECT_EQ(differing(chunk0, fresh0.takeSum()), 0u) << where;
      EXPECT_EQ(differing(chunk1, fresh1.takeSum()), 0u) << where;
      EXPECT_EQ(none.size(), chunk0.size()) << where;
      EXPECT_EQ(maxAbs(none), 0.0) << where;
    }
}

/// On the GPU: three workers sharing GPU 0, and one worker per GPU of the machine, give the
/// bits of one worker on GPU 0, within rounding of one averager adding the frames in order.
TEST(MapFramesGpu, WorkersOnOneOrEveryGpuGiveTheBitsOfOneGpu) {
  FARADAY_REQUIRE_GPU();
  std::vector<int> every;
  for (int d = 0; d < cudaDeviceCount(); ++d) every.push_back(d);
  if (every.size() < 2) std::printf("[ info ] one GPU here: the workers across GPUs run as three on GPU 0\n");
  for (const std::string method : {"pme", "pmepot", "direct"}) {
    const LongMapCase m = longMapCase("gpu_workers_" + method, "cuda", method, 40);
    const MapAverage one = averageMapFrames(m.config, m.setup.system, true, {0}, 40, nullptr);
    const MapAverage shared = averageMapFrames(m.config, m.setup.system, true, {0, 0, 0}, 40, nullptr);
    const MapAverage all = averageMapFrames(m.config, m.setup.system, true, every, 40, nullptr);
    EXPECT_EQ(differing(one.average, shared.average), 0u) << method;
    EXPECT_EQ(differing(one.average, all.average), 0u) << method << " on " << every.size() << " GPU(s)";
    const std::vector<double> ref = sequentialAverage(m, true);
    EXPECT_GT(maxAbs(ref), 1.0);
    // direct: the host frame is packed on the host, the device frame on the device (same
    // float terms, another order: the DCS variants' tolerance).
    if (method == "direct")
      EXPECT_LT(relRms(one.average, ref), tol::kDcsVariantRelRms);
    else
      EXPECT_LE(maxRelDiff(one.average, ref), tol::kMapChunkedSumRel) << method;
  }
}

/// faraday map with run.devices = all writes the map of one GPU, bit for bit.
TEST(MapFramesGpu, MapCommandOnEveryGpuWritesTheOneGpuMap) {
  FARADAY_REQUIRE_GPU();
  for (const std::string method : {"pme", "direct"}) {
    const LongMapCase m = longMapCase("map_command_" + method, "cuda", method, 24);
    const Config one = loadConfig(m.c.dir / "map.cfg", {"--map.method=" + method, "--map.file=one.dx"});
    const Config all =
        loadConfig(m.c.dir / "map.cfg", {"--map.method=" + method, "--map.file=all.dx", "--run.devices=all"});
    ASSERT_EQ(mapMain(one), 0);
    ASSERT_EQ(mapMain(all), 0);
    const ParsedDx a = readDx(m.c.dir / "out" / "one.dx"), b = readDx(m.c.dir / "out" / "all.dx");
    EXPECT_GT(maxAbs(a.values), 1.0);
    EXPECT_EQ(differing(a.values, b.values), 0u) << method << " on " << cudaDeviceCount() << " GPU(s)";
  }
}

}  // namespace
}  // namespace faraday::test
