// The work split of MD across several GPUs (kernels/common/WorkShare.h): every block and
// bonded warp has one owner, contiguous runs of blocks hold each GPU's share, PME's weight on
// the first GPU, the direct sum's chunk bits; and the ranks' threads and barrier
// (engine/backends/RankThreads.h). CPU only.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "core/Error.h"
#include "engine/backends/RankThreads.h"
#include "kernels/common/WorkShare.h"
#if defined(FARADAY_HAVE_CUDA)
#include "kernels/multigpu/CudaPeerSum.h"
#endif

namespace faraday::test {
namespace {

TEST(MultiGpuMd, EveryBlockAndEveryBondedWarpBelongsToExactlyOneGpu) {
  for (int ranks = 1; ranks <= 4; ++ranks)
    for (double w : {0.0, 0.3, 1.0}) {
      const std::vector<WorkShare> shares = makeWorkShares(ranks, w);
      ASSERT_EQ(int(shares.size()), ranks);
      int pme = 0;
      for (const WorkShare& s : shares) pme += s.pme;
      EXPECT_EQ(pme, 1);
      EXPECT_TRUE(shares[0].pme);
      for (int block = 0; block < 1000; ++block) {
        int owners = 0, warpOwners = 0;
        for (const WorkShare& s : shares) owners += s.ownsBlock(block), warpOwners += s.ownsWarp(block);
        EXPECT_EQ(owners, 1) << ranks << " GPUs, weight " << w << ", block " << block;
        EXPECT_EQ(warpOwners, 1);
      }
      if (ranks > 1) {
        // Rank 0's slots follow its weight; the others' are equal within one slot.
        const double expect0 = WorkShare::kPeriod * w / (w + ranks - 1);
        EXPECT_NEAR(shares[0].end() - shares[0].begin(), expect0, 1.0);
        for (int r = 2; r < ranks; ++r)
          EXPECT_NEAR(shares[std::size_t(r)].end() - shares[std::size_t(r)].begin(), shares[1].end() - shares[1].begin(),
                      1);
      }
    }
  EXPECT_THROW(makeWorkShares(0, 1.0), Error);
  EXPECT_THROW(makeWorkShares(2, 1.5), Error);
}

/// With the direct sum the tiles go by contiguous runs of blocks, cut where the tiles reach
/// each rank's share: every block has one owner, the runs follow rank order, and each rank's
/// tiles are its share of them to within one block's tiles.
TEST(MultiGpuMd, ContiguousCutsGiveEachGpuOneRunHoldingItsShareOfTheTiles) {
  for (int ranks = 1; ranks <= 4; ++ranks)
    for (const double w : {1.0, 0.3})
      for (const int blocks : {1, 5, 64, 1000, 31251}) {
        std::vector<long long> tiles(static_cast<std::size_t>(blocks), 0);
        long long total = 0;
        for (int b = 0; b < blocks; ++b) total += tiles[std::size_t(b)] = 20 + (b * 7919) % 37 + (b < blocks / 4 ? 15 : 0);
        std::vector<WorkShare> shares = makeWorkShares(ranks, w);
        for (WorkShare& s : shares) s.cutContiguous(tiles);
        int previous = 0;
        std::vector<long long> held(std::size_t(ranks), 0);
        for (int block = 0; block < blocks; ++block) {
          int owner = -1, owners = 0;
          for (const WorkShare& s : shares)
            if (s.ownsBlock(block)) owner = s.rank, ++owners;
          ASSERT_EQ(owners, 1) << ranks << " GPUs, " << blocks << " blocks, block " << block;
          EXPECT_GE(owner, previous) << "block " << block << " goes back to an earlier rank";
          previous = owner;
          held[std::size_t(owner)] += tiles[std::size_t(block)];
        }
        for (int r = 0; r < ranks; ++r) {
          const WorkShare& s = shares[std::size_t(r)];
          const double want = double(total) * (s.end() - s.begin()) / s.period;
          EXPECT_NEAR(double(held[std::size_t(r)]), want, 2 * 72.0 + 1) << ranks << " GPUs, rank " << r;
        }
      }
}

TEST(MultiGpuMd, SlabSharesRunPmeOnEveryGpuWithEqualTiles) {
  EXPECT_FALSE(makeSlabWorkShares(1)[0].pmeSlabs);
  for (int ranks = 2; ranks <= 4; ++ranks) {
    const std::vector<WorkShare> shares = makeSlabWorkShares(ranks);
    for (const WorkShare& s : shares) {
      EXPECT_TRUE(s.pme && s.pmeSlabs);
      EXPECT_NEAR(s.end() - s.begin(), double(WorkShare::kPeriod) / ranks, 1.0);
    }
  }
}

#if defined(FARADAY_HAVE_CUDA)
/// The direct sum's chunk bits: whole 16-byte pairs in a chunk, a bit for every value and no
/// word past the values.
TEST(MultiGpuMd, DirectSumChunkBitsCoverEveryValueOnce) {
  constexpr std::size_t kWordValues = std::size_t(kPeerChunk) * kPeerChunksPerWord;
  EXPECT_EQ(kPeerChunk % 2, 0);  // a chunk holds whole 16-byte pairs
  for (const std::size_t count : {std::size_t(1), std::size_t(2), std::size_t(2048), std::size_t(2049),
                                  std::size_t(3 * 1000448), std::size_t(3 * 1000001)}) {
    const std::size_t words = CudaPeerSum::chunkWords(count);
    EXPECT_GE(words * kWordValues, count) << count;        // every value has a bit
    EXPECT_LT((words - 1) * kWordValues, count) << count;  // and no word is past the values
  }
}
#endif

TEST(MultiGpuMd, RankZerosTileWeightBalancesItsPmeAgainstTheOthersTiles) {
  EXPECT_EQ(rank0TileWeight(1, 1e6, 1e6, 1e6), 1.0);
  EXPECT_EQ(rank0TileWeight(4, 1e6, 0, 0), 1.0);  // no PME: equal shares
  // T = 2 ms of tiles, P = 0.5 ms of PME on 2 GPUs: w = (2 - 0.5) / 2.5 = 0.6, and then
  // rank 0's P + w s equals the other's s = T / (1 + w).
  const double tiles = 2 * kTilesPerMs, grid = 0.25 * kGridPointsPerMs, atoms = 0.25 * kPmeAtomsPerMs;
  const double w = rank0TileWeight(2, tiles, grid, atoms);
  EXPECT_NEAR(w, 0.6, 1e-12);
  const double s = 2.0 / (1 + w);
  EXPECT_NEAR(0.5 + w * s, s, 1e-12);
  EXPECT_EQ(rank0TileWeight(4, tiles, 4 * grid, 4 * atoms), 0.0);  // PME alone is rank 0's
}

TEST(MultiGpuMd, RankThreadsRunOnEveryRankAndTheirBarrierOrsAndFailsFast) {
  RankThreads threads({0, 1, 2}, false);
  std::atomic<int> sum{0};
  threads.run([&](int r) { sum += r + 1; });
  EXPECT_EQ(sum.load(), 6);
  std::vector<int> seen(3, -1);
  threads.run([&](int r) {
    const bool a = threads.any(r == 2), b = threads.any(false);
    seen[std::size_t(r)] = int(a) * 2 + int(b);
  });
  EXPECT_EQ(seen, (std::vector<int>{2, 2, 2}));
  // A rank that fails does not leave the others waiting at the barrier.
  try {
    threads.run([&](int r) {
      if (r == 1) throw Error("rank 1 fails");
      threads.any(true);
    });
    ADD_FAILURE() << "the error was lost";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fails"), std::string::npos) << e.what();
  }
  threads.run([&](int r) { seen[std::size_t(r)] = threads.any(r == 0); });  // usable again
  EXPECT_EQ(seen, (std::vector<int>{1, 1, 1}));
  std::vector<unsigned long long> least(3);
  threads.run([&](int r) { least[std::size_t(r)] = threads.minimum(r == 1 ? 7ull : 100ull + r); });
  EXPECT_EQ(least, (std::vector<unsigned long long>{7, 7, 7}));
}

}  // namespace
}  // namespace faraday::test
