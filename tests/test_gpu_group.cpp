// Several GPUs through NCCL: the device list's parsing, and the deterministic sum over the
// GPUs of the group (every usable GPU here; one GPU runs the same path). The maps across
// GPUs: test_map_frames.cpp.
#include <gtest/gtest.h>

#include <cstdlib>

#include "engine/config/DeviceList.h"
#include "kernels/multigpu/GpuGroup.h"
#include "tests/TestSupport.h"

#if defined(FARADAY_HAVE_CUDA)
#include "kernels/common/DeviceBuffer.h"
#endif

namespace faraday::test {
namespace {

TEST(GpuGroup, DeviceListsAreParsedAndCheckedWithTheKeyNamed) {
  EXPECT_EQ(parseDevices("run.devices", "0,2,1", 4), (std::vector<int>{0, 2, 1}));
  EXPECT_EQ(parseDevices("run.devices", "all", 3), (std::vector<int>{0, 1, 2}));
  for (const char* bad : {"", "0,0", "4", "-1", "1,x", "0,,1", "1.5"}) {
    try {
      parseDevices("run.devices", bad, 4);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("run.devices"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(parseDevices("run.devices", "all", 0), Error);
}

#if defined(FARADAY_HAVE_NCCL)
TEST(GpuGroup, SumOverTheGpusIsInRankOrderAndTheSameOnEveryGpu) {
  FARADAY_REQUIRE_GPU();
  const std::vector<int> devices = parseDevices("devices", "all", cudaDeviceCount());
  std::unique_ptr<GpuGroup> group;
  try {
    group = std::make_unique<GpuGroup>(devices);
  } catch (const Error& e) {
    GTEST_SKIP() << "GPU group test skipped: " << e.what();
  }
  const int ranks = group->size();
  const std::size_t count = 100003;
  // Values whose sum depends on the order of the additions.
  auto value = [](int rank, std::size_t i) { return (rank + 1) * 1e16 * ((i % 7) + 1) + 0.1 * double(i % 13) + rank; };
  std::vector<DeviceBuffer<double>> partial, gathered, sum;
  for (int r = 0; r < ranks; ++r) {
    FARADAY_CUDA_CHECK(cudaSetDevice(group->device(r)));
    std::vector<double> host(count);
    for (std::size_t i = 0; i < count; ++i) host[i] = value(r, i);
    partial.emplace_back("partial", 0);
    partial.back().upload(host);
    gathered.emplace_back("gathered", count * ranks);
    sum.emplace_back("sum", count);
    FARADAY_CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::vector<const double*> p;
  std::vector<double*> g, s;
  for (int r = 0; r < ranks; ++r) p.push_back(partial[r].data()), g.push_back(gathered[r].data()), s.push_back(sum[r].data());
  group->sumInRankOrder(p, g, s, count);
  for (int r = 0; r < ranks; ++r) {
    FARADAY_CUDA_CHECK(cudaSetDevice(group->device(r)));
    const std::vector<double> got = sum[r].toHost();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < count; ++i) {
      double expect = value(0, i);
      for (int q = 1; q < ranks; ++q) expect += value(q, i);
      if (got[i] != expect) ++wrong;
    }
    EXPECT_EQ(wrong, 0u) << "GPU " << group->device(r) << " of " << ranks;
  }
  FARADAY_CUDA_CHECK(cudaSetDevice(group->device(0)));
  std::printf("[ info ] GPU group of %d GPU(s), NCCL %d\n", ranks, group->ncclVersion());
}
#else
TEST(GpuGroup, NeedsANcclBuild) { GTEST_SKIP() << "GPU group test skipped: this build has no NCCL"; }
#endif

}  // namespace
}  // namespace faraday::test
