#include "kernels/common/WorkShare.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/Error.h"

namespace faraday {

std::vector<WorkShare> makeWorkShares(int ranks, double rank0Weight) {
  if (ranks < 1 || ranks >= WorkShare::kMaxCuts)
    throw Error("a work split spans 1 to " + std::to_string(WorkShare::kMaxCuts - 1) + " GPUs");
  if (!(rank0Weight >= 0 && rank0Weight <= 1)) throw Error("a work split's rank-0 weight must be in [0, 1]");
  std::vector<WorkShare> shares(static_cast<std::size_t>(ranks));
  if (ranks == 1) return shares;  // the whole work, PME included
  // Rank r's slots of a run end at the rounded cumulative weight: rank 0 rank0Weight, the others 1.
  const double total = rank0Weight + double(ranks - 1);
  const auto boundary = [&](int r) {
    return r == 0 ? 0 : int(std::lround(WorkShare::kPeriod * (rank0Weight + double(r - 1)) / total));
  };
  for (int r = 0; r < ranks; ++r) {
    WorkShare& s = shares[static_cast<std::size_t>(r)];
    s.rank = r;
    s.ranks = ranks;
    s.period = WorkShare::kPeriod;
    for (int q = 0; q < ranks; ++q) s.shareEnds[q] = boundary(q);
    s.shareEnds[ranks] = WorkShare::kPeriod;
    s.pme = r == 0;
  }
  return shares;
}

std::vector<WorkShare> makeSlabWorkShares(int ranks) {
  std::vector<WorkShare> shares = makeWorkShares(ranks, 1.0);
  if (ranks == 1) return shares;
  for (WorkShare& s : shares) s.pme = s.pmeSlabs = true;
  return shares;
}

void WorkShare::cutContiguous(const std::vector<long long>& tilesPerBlock) {
  const int blocks = int(tilesPerBlock.size());
  long long total = 0;
  for (long long t : tilesPerBlock) total += t;
  cuts[0] = 0;
  long long before = 0;  // tiles of blocks [0, b)
  int b = 0;
  for (int r = 1; r < ranks; ++r) {
    const long long target = (long long)std::llround(double(total) * shareEnds[r] / period);
    while (b < blocks && before + tilesPerBlock[std::size_t(b)] <= target) before += tilesPerBlock[std::size_t(b++)];
    cuts[r] = b;
  }
  cuts[ranks] = blocks;
  contiguous = true;
}

double rank0TileWeight(int ranks, double tiles, double gridPoints, double atoms) {
  if (ranks <= 1) return 1.0;
  const double t = tiles / kTilesPerMs, p = gridPoints / kGridPointsPerMs + atoms / kPmeAtomsPerMs;
  if (!(t + p > 0)) return 1.0;
  return std::clamp((t - double(ranks - 1) * p) / (t + p), 0.0, 1.0);
}

}  // namespace faraday
