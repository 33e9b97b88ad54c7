// Cell-list construction of the full Verlet list on the CPU (OpenMP).
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cmath>
#include <string>

#include "engine/Error.h"
#include "kernels/neighbor/MinimumImage.h"
#include "kernels/neighbor/NeighborList.h"

namespace faraday {
namespace {

/// Particles binned into cells of edge >= the list radius, so every pair within the radius
/// lies in the same or an adjacent cell (periodically).
struct CellGrid {
  std::array<int, 3> n{1, 1, 1};   ///< cells per dimension
  std::vector<int> cellOf;         ///< per particle
  std::vector<int> start;          ///< CSR: atoms of cell c are atoms[start[c] .. start[c+1])
  std::vector<int> atoms;          ///< ascending within each cell

  int index(int x, int y, int z) const { return (x * n[1] + y) * n[2] + z; }
};

int cellCoordinate(double x, double length, int n) {
  const int c = int(x / length * n);  // x is wrapped into [0, L)
  return std::min(std::max(c, 0), n - 1);
}

CellGrid binParticles(const std::vector<Vec3>& positions, const Box& box, double radius) {
  CellGrid g;
  const Vec3 L = box.lengths();
  for (int d = 0; d < 3; ++d) g.n[d] = std::max(1, int(std::floor(L[d] / radius)));
  const int cells = g.n[0] * g.n[1] * g.n[2];
  g.cellOf.resize(positions.size());
  g.start.assign(cells + 1, 0);
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const Vec3 r = box.wrap(positions[i]);
    g.cellOf[i] = g.index(cellCoordinate(r.x, L.x, g.n[0]), cellCoordinate(r.y, L.y, g.n[1]),
                          cellCoordinate(r.z, L.z, g.n[2]));
    ++g.start[g.cellOf[i] + 1];
  }
  for (int c = 0; c < cells; ++c) g.start[c + 1] += g.start[c];
  g.atoms.resize(positions.size());
  std::vector<int> fill(g.start.begin(), g.start.end() - 1);
  for (std::size_t i = 0; i < positions.size(); ++i) g.atoms[fill[g.cellOf[i]]++] = int(i);
  return g;
}

/// Cell offsets along one dimension with n cells, each neighbouring cell once: with fewer
/// than three cells, -1 and +1 would name the same cell (n = 2) or the cell itself (n = 1).
std::vector<int> offsetsAlong(int n) {
  if (n >= 3) return {-1, 0, 1};
  if (n == 2) return {0, 1};
  return {0};
}

/// Indices of the distinct cells adjacent to (and including) cell c.
std::vector<int> adjacentCells(const CellGrid& g, int c) {
  const int cx = c / (g.n[1] * g.n[2]), cy = (c / g.n[2]) % g.n[1], cz = c % g.n[2];
  std::vector<int> out;
  for (int dx : offsetsAlong(g.n[0]))
    for (int dy : offsetsAlong(g.n[1]))
      for (int dz : offsetsAlong(g.n[2]))
        out.push_back(g.index((cx + dx + g.n[0]) % g.n[0], (cy + dy + g.n[1]) % g.n[1],
                              (cz + dz + g.n[2]) % g.n[2]));
  return out;
}

/// Appends the sorted row of particle i (all j != i within `radius`) to `row`.
void appendRow(int i, const CellGrid& g, const std::vector<std::vector<int>>& stencils,
               const std::vector<Vec3>& positions, const MinimumImage& image, double radius2,
               std::vector<int>& row) {
  const std::size_t first = row.size();
  const Vec3 xi = positions[i];
  for (int c : stencils[g.cellOf[i]]) {
    for (int k = g.start[c]; k < g.start[c + 1]; ++k) {
      const int j = g.atoms[k];
      if (j != i && norm2(image.apply(positions[j] - xi)) < radius2) row.push_back(j);
    }
  }
  std::sort(row.begin() + std::ptrdiff_t(first), row.end());
}

void requireRectangular(const Box& box) {
  if (!box.isValid()) throw Error("neighbor list: the box must be rectangular with positive finite edges");
}

int threadCount(int requested) { return requested > 0 ? requested : omp_get_max_threads(); }

}  // namespace

NeighborList::NeighborList(double cutoff, double buffer, int threads)
    : cutoff_(cutoff), buffer_(buffer), threads_(threads) {
  if (!(cutoff > 0)) throw keyError("nonbonded.cutoff", "must be > 0");
  if (!(buffer >= 0)) throw keyError("nonbonded.buffer", "must be >= 0");
}

void NeighborList::build(const std::vector<Vec3>& positions, const Box& box) {
  requireRectangular(box);
  const double radius = listRadius();
  const CellGrid grid = binParticles(positions, box, radius);
  std::vector<std::vector<int>> stencils(grid.start.size() - 1);
  for (std::size_t c = 0; c < stencils.size(); ++c) stencils[c] = adjacentCells(grid, int(c));
  const MinimumImage image = MinimumImage::fromBox(box);
  const int n = int(positions.size());
  const int maxThreads = threadCount(threads_);
  std::vector<std::vector<int>> rows(maxThreads);
  offsets_.assign(n + 1, 0);
  // Each thread builds the rows of one contiguous block of particles, then copies them
  // into place; the result does not depend on the number of threads.
#pragma omp parallel num_threads(maxThreads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int begin = int(std::int64_t(n) * t / nt), end = int(std::int64_t(n) * (t + 1) / nt);
    std::vector<int>& mine = rows[t];
    for (int i = begin; i < end; ++i) {
      const std::size_t before = mine.size();
      appendRow(i, grid, stencils, positions, image, radius * radius, mine);
      offsets_[i + 1] = int(mine.size() - before);
    }
#pragma omp barrier
#pragma omp single
    {
      for (int i = 0; i < n; ++i) offsets_[i + 1] += offsets_[i];
      neighbors_.resize(std::size_t(offsets_[n]));
    }
    std::copy(mine.begin(), mine.end(), neighbors_.begin() + offsets_[begin]);
  }
  reference_ = positions;
  box_ = box;
  ++builds_;
}

bool NeighborList::needsRebuild(const std::vector<Vec3>& positions, const Box& box) const {
  if (builds_ == 0 || positions.size() != reference_.size()) return true;
  if (!(box.lengths() == box_.lengths())) return true;
  const MinimumImage image = MinimumImage::fromBox(box);
  const double limit2 = 0.25 * buffer_ * buffer_;  // (buffer/2)^2
  const long long n = (long long)positions.size();
  bool moved = false;
#pragma omp parallel for num_threads(threadCount(threads_)) reduction(|| : moved)
  for (long long i = 0; i < n; ++i)
    moved = moved || norm2(image.apply(positions[i] - reference_[i])) > limit2;
  return moved;
}

std::vector<std::pair<int, int>> bruteForcePairs(const std::vector<Vec3>& positions, const Box& box, double radius) {
  std::vector<std::pair<int, int>> pairs;
  const int n = int(positions.size());
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (norm2(box.minimumImage(positions[j] - positions[i])) < radius * radius) pairs.emplace_back(i, j);
  return pairs;
}

}  // namespace faraday
