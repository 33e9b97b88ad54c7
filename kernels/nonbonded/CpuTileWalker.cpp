#include "kernels/nonbonded/CpuTileWalker.h"

#include <algorithm>

#include "core/Units.h"

namespace faraday {
namespace {

/// Calls pair(i, j, excluded) for every pair of the list (slots).
template <typename Pair>
void forEachTilePair(const HostTileList& list, Pair pair) {
  for (std::size_t t = 0; t < list.info.size(); ++t) {
    const int block = tileBlock(list.info[t]);
    const bool diagonal = tileIsDiagonal(list.info[t]);
    const int x = list.exclusionIndex[t];
    for (int lj = 0; lj < kTileSize; ++lj) {
      const int j = list.lanes[t * kTileSize + lj];
      if (j == kNoAtom) continue;
      const std::uint32_t mask = x >= 0 ? list.exclusionMasks[std::size_t(x) * kTileSize + lj] : 0u;
      for (int li = 0; li < (diagonal ? lj : kTileSize); ++li) {
        const int i = block * kTileSize + li;
        if (i >= list.atoms) continue;
        pair(i, j, ((mask >> li) & 1u) != 0);
      }
    }
  }
}

}  // namespace

TileWalkResult walkTiles(const HostTileList& list, const System& system, const std::vector<Vec3>& positions,
                         const Box& box, const LjTable& table, double cutoff, double beta, double coulombShift) {
  TileWalkResult r;
  r.forces.assign(positions.size(), Vec3{});
  const double cutoff2 = cutoff * cutoff;
  forEachTilePair(list, [&](int si, int sj, bool excluded) {
    const int i = list.atomOfSlot[si], j = list.atomOfSlot[sj];
    const Vec3 d = box.minimumImage(positions[i] - positions[j]);
    const double r2 = norm2(d);
    if (r2 >= cutoff2) return;
    if (excluded) {
      ++r.excludedInCutoff;
      return;
    }
    ++r.pairsInCutoff;
    const PairResult<double> lj = ljPair(r2, table.at(system.type[i], system.type[j]));
    double fOverR = lj.fOverR;
    r.lj += lj.energy;
    if (beta > 0) {
      const double qq = units::kCoulomb * system.charge[i] * system.charge[j];
      const PairResult<double> c = ewaldRealPair(r2, qq, beta, coulombShift);
      fOverR += c.fOverR;
      r.coulombReal += c.energy;
    }
    const Vec3 f = d * fOverR;
    r.forces[i] += f;
    r.forces[j] -= f;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) r.virial.m[a][b] += f[a] * d[b];
  });
  return r;
}

TilePairCounts countTilePairs(const HostTileList& list, const Box& box, double cutoff) {
  TilePairCounts c;
  const double cutoff2 = cutoff * cutoff;
  const double* x = list.slotPositions.data();
  forEachTilePair(list, [&](int i, int j, bool) {
    ++c.listed;
    const Vec3 d = box.minimumImage(Vec3{x[3 * i] - x[3 * j], x[3 * i + 1] - x[3 * j + 1], x[3 * i + 2] - x[3 * j + 2]});
    if (norm2(d) < cutoff2) ++c.inCutoff;
  });
  return c;
}

std::vector<std::pair<int, int>> tilePairs(const HostTileList& list) {
  std::vector<std::pair<int, int>> pairs;
  forEachTilePair(list, [&](int si, int sj, bool) {
    const int a = list.atomOfSlot[si], b = list.atomOfSlot[sj];
    pairs.emplace_back(std::min(a, b), std::max(a, b));
  });
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace faraday
