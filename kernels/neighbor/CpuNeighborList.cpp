// Cell-list construction of the full Verlet list on the CPU (OpenMP).
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cmath>
#include <limits>
#include <string>

#include "core/Error.h"
#include "kernels/neighbor/MinimumImage.h"
#include "kernels/neighbor/NeighborList.h"

namespace faraday {
namespace {

/// Cells per list radius along each edge: cells of edge >= radius / kReach, so a pair within
/// the radius lies at most kReach cells apart. Two gives a 5x5x5 stencil of half-size
/// cells, whose volume (15.6 radius^3) holds 1.7x fewer candidates than 3x3x3 full cells.
constexpr int kReach = 2;

/// Particles binned into cells of edge >= radius / kReach.
struct CellGrid {
  std::array<int, 3> n{1, 1, 1};   ///< cells per dimension
  std::vector<Vec3> wrapped;       ///< positions wrapped into [0, L), nm
  std::vector<int> cellOf;         ///< per particle
  std::vector<int> start;          ///< CSR: atoms of cell c are atoms[start[c] .. start[c+1])
  std::vector<int> atoms;          ///< ascending within each cell
  std::vector<Vec3> sorted;        ///< wrapped positions in the order of `atoms` (contiguous per cell)

  int index(int x, int y, int z) const { return (x * n[1] + y) * n[2] + z; }
};

/// Most cells per particle: cells of edge radius / kReach give ~0.2 cells per atom in a liquid,
/// but in a sparse box their number grows with the volume (2 atoms in a 300 nm box would need
/// 1.6e8 cells and ~20 GB). Beyond this many per particle the cells are made larger instead
/// (still >= radius / kReach, so the stencil still covers the radius).
constexpr double kMaxCellsPerParticle = 4;
constexpr double kMinCellCap = 64;

/// Cells per dimension: edges >= radius / kReach, at most max(kMinCellCap,
/// kMaxCellsPerParticle N) cells in all.
std::array<int, 3> cellCounts(const Vec3& L, double radius, std::size_t particles) {
  const double cap = std::max(kMinCellCap, kMaxCellsPerParticle * double(particles));
  std::array<double, 3> n{};
  for (int d = 0; d < 3; ++d) n[d] = std::max(1.0, std::floor(L[d] * kReach / radius));
  const auto total = [&n] { return n[0] * n[1] * n[2]; };
  if (total() > cap) {  // scale every edge alike, then trim the longest rows until under the cap
    const double s = std::cbrt(total() / cap);
    for (double& c : n) c = std::max(1.0, std::floor(c / s));
    while (total() > cap) {
      const int d = int(std::max_element(n.begin(), n.end()) - n.begin());
      n[d] = std::max(1.0, std::floor(n[d] * cap / total()));
    }
  }
  return {int(n[0]), int(n[1]), int(n[2])};
}

int cellCoordinate(double x, double length, int n) {
  const int c = int(x / length * n);  // x is wrapped into [0, L)
  return std::min(std::max(c, 0), n - 1);
}

CellGrid binParticles(const std::vector<Vec3>& positions, const Box& box, double radius) {
  CellGrid g;
  const Vec3 L = box.diagonal();
  g.n = cellCounts(L, radius, positions.size());
  const int cells = g.n[0] * g.n[1] * g.n[2];
  g.cellOf.resize(positions.size());
  g.wrapped.resize(positions.size());
  g.start.assign(cells + 1, 0);
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const Vec3 r = g.wrapped[i] = box.wrap(positions[i]);
    g.cellOf[i] = g.index(cellCoordinate(r.x, L.x, g.n[0]), cellCoordinate(r.y, L.y, g.n[1]),
                          cellCoordinate(r.z, L.z, g.n[2]));
    ++g.start[g.cellOf[i] + 1];
  }
  for (int c = 0; c < cells; ++c) g.start[c + 1] += g.start[c];
  g.atoms.resize(positions.size());
  std::vector<int> fill(g.start.begin(), g.start.end() - 1);
  for (std::size_t i = 0; i < positions.size(); ++i) g.atoms[fill[g.cellOf[i]]++] = int(i);
  g.sorted.resize(positions.size());
  for (std::size_t k = 0; k < positions.size(); ++k) g.sorted[k] = g.wrapped[std::size_t(g.atoms[k])];
  return g;
}

int floorDiv(int x, int n) { return x >= 0 ? x / n : -((-x + n - 1) / n); }

/// Cell-index range [first, last] of the cells, along one row of cells of edge `edge`,
/// that hold points within `radius` of [lo, hi): unwrapped indices (may leave 0..n-1).
std::pair<int, int> reachOf(double lo, double hi, double radius, double edge) {
  return {int(std::floor((lo - radius) / edge)), int(std::floor((hi + radius) / edge))};
}

/// Ranges [begin, end) of `atoms` covering the distinct cells within reach of cell c. The
/// cells live in the brick [0, a_x) x [0, b_y) x [0, c_z); a cell reached across the z
/// boundary holds atoms whose images are shifted by c (so its x and y ranges move by c_x
/// and c_y), one reached across y by b: the stencil follows each shift, so a triclinic cell
/// is searched as tightly as a rectangular one. Cells are numbered with z fastest, so the
/// reachable cells of one (x, y) column merge into one or two runs: about 25 ranges of 20
/// atoms instead of 125 cells of 4. Each cell is listed once, however many of its images
/// are in reach (rows of few cells).
using AtomRanges = std::vector<std::pair<int, int>>;
AtomRanges adjacentRanges(const CellGrid& g, int c, const Box& box, double radius) {
  const int cx = c / (g.n[1] * g.n[2]), cy = (c / g.n[2]) % g.n[1], cz = c % g.n[2];
  const Vec3 L = box.diagonal();
  const double wx = L.x / g.n[0], wy = L.y / g.n[1], wz = L.z / g.n[2];
  std::vector<int> cells;
  const auto [z0, z1] = reachOf(cz * wz, (cz + 1) * wz, radius, wz);
  for (int z = z0; z <= z1; ++z) {
    const int sz = floorDiv(z, g.n[2]);  // images of this cell's atoms are shifted by sz c
    const auto [y0, y1] = reachOf(cy * wy - sz * box.c.y, (cy + 1) * wy - sz * box.c.y, radius, wy);
    for (int y = y0; y <= y1; ++y) {
      const int sy = floorDiv(y, g.n[1]);
      const double shiftX = sz * box.c.x + sy * box.b.x;
      const auto [x0, x1] = reachOf(cx * wx - shiftX, (cx + 1) * wx - shiftX, radius, wx);
      for (int x = x0; x <= x1; ++x)
        cells.push_back(g.index(x - floorDiv(x, g.n[0]) * g.n[0], y - sy * g.n[1], z - sz * g.n[2]));
    }
  }
  std::sort(cells.begin(), cells.end());
  cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
  AtomRanges out;
  for (std::size_t a = 0, b; a < cells.size(); a = b) {
    for (b = a + 1; b < cells.size() && cells[b] == cells[b - 1] + 1;) ++b;  // a run of consecutive cells
    out.emplace_back(g.start[std::size_t(cells[a])], g.start[std::size_t(cells[b - 1]) + 1]);
  }
  return out;
}

/// Appends the sorted row of slot s (all slots k != s within `radius`) to `row`. Candidates
/// are written unconditionally and kept by advancing the end only when within the radius:
/// about three in four candidates are rejected in no predictable pattern, so a branch would
/// mispredict often.
template <typename Image>
void appendRow(int s, const CellGrid& g, const AtomRanges& ranges, const Image& image, double radius2,
               std::vector<int>& row) {
  const std::size_t first = row.size();
  std::size_t candidates = 0;
  for (const auto& [begin, end] : ranges) candidates += std::size_t(end - begin);
  row.resize(first + candidates);
  int* out = row.data() + first;
  std::size_t kept = 0;
  const Vec3 xs = g.sorted[s];
  for (const auto& [begin, end] : ranges) {
    for (int k = begin; k < end; ++k) {
      const Vec3 d = image(xs - g.sorted[k]);
      out[kept] = k;
      kept += (norm2(d) < radius2) & (k != s);
    }
  }
  row.resize(first + kept);
  std::sort(row.begin() + std::ptrdiff_t(first), row.end());
}

void requireValid(const Box& box) {
  if (!box.isValid()) throw Error("neighbor list: the box must be in reduced triclinic form with a finite volume");
}

/// The displacement of two wrapped positions (each in the brick): for a rectangular box one
/// select per component, exactly; otherwise the shifts by c, b, a.
struct WrappedImage {
  Box box;
  Vec3 half = box.diagonal() * 0.5;
  bool rectangular = box.isRectangular();
  Vec3 operator()(const Vec3& d) const {
    if (!rectangular) return box.minimumImage(d);
    const Vec3 L = box.diagonal();
    return {nearestImage(d.x, L.x, half.x), nearestImage(d.y, L.y, half.y), nearestImage(d.z, L.z, half.z)};
  }
};

int threadCount(int requested) { return requested > 0 ? requested : omp_get_max_threads(); }

}  // namespace

NeighborList::NeighborList(double cutoff, double buffer, int threads)
    : cutoff_(cutoff), buffer_(buffer), threads_(threads) {
  if (!(cutoff > 0)) throw Error("neighbor list: the cutoff must be > 0 nm");
  if (!(buffer >= 0)) throw Error("neighbor list: the buffer must be >= 0 nm");
}

void NeighborList::build(const std::vector<Vec3>& positions, const Box& box) {
  requireValid(box);
  const double radius = listRadius();
  const CellGrid grid = binParticles(positions, box, radius);
  std::vector<AtomRanges> stencils(grid.start.size() - 1);
  for (std::size_t c = 0; c < stencils.size(); ++c) stencils[c] = adjacentRanges(grid, int(c), box, radius);
  const WrappedImage image{box};
  const int n = int(positions.size());
  // Each thread builds the rows of one contiguous block of slots; the blocks are then
  // concatenated in order, so the result does not depend on the number of threads.
  const int maxThreads = threadCount(threads_);
  std::vector<std::vector<int>> blocks(maxThreads);
  std::vector<int> blockBegin(maxThreads + 1, n);
  std::vector<std::int64_t> rowLength(std::size_t(n) + 1, 0);
#pragma omp parallel num_threads(maxThreads) if (n >= 1024)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int begin = int(std::int64_t(n) * t / nt), end = int(std::int64_t(n) * (t + 1) / nt);
    blockBegin[t] = begin;
    for (int slot = begin; slot < end; ++slot) {
      const std::size_t before = blocks[t].size();
      const int cell = grid.cellOf[std::size_t(grid.atoms[slot])];
      appendRow(slot, grid, stencils[std::size_t(cell)], image, radius * radius, blocks[t]);
      rowLength[std::size_t(slot) + 1] = std::int64_t(blocks[t].size() - before);
    }
  }
  setOffsets(rowLength);
  neighbors_.resize(std::size_t(offsets_[n]));
#pragma omp parallel for num_threads(maxThreads) if (n >= 1024)
  for (int t = 0; t < maxThreads; ++t)
    if (!blocks[t].empty()) std::copy(blocks[t].begin(), blocks[t].end(), neighbors_.begin() + offsets_[blockBegin[t]]);
  order_ = grid.atoms;
  cells_ = grid.start.size() - 1;
  reference_ = positions;
  box_ = box;
  ++builds_;
}

void NeighborList::setOffsets(const std::vector<std::int64_t>& rowLength) {
  offsets_.assign(rowLength.size(), 0);
  std::int64_t total = 0;
  for (std::size_t i = 1; i < rowLength.size(); ++i) {
    total += rowLength[i];
    if (total > std::numeric_limits<int>::max())
      throw Error("neighbor list: more than 2^31 entries; reduce nonbonded.cutoff or the system size");
    offsets_[i] = int(total);
  }
}

bool NeighborList::needsRebuild(const std::vector<Vec3>& positions, const Box& box) const {
  if (builds_ == 0 || positions.size() != reference_.size()) return true;
  if (!(box == box_)) return true;
  const MinimumImage image = MinimumImage::fromBox(box);
  const double limit2 = 0.25 * buffer_ * buffer_;  // (buffer/2)^2
  const long long n = (long long)positions.size();
  bool moved = false;
#pragma omp parallel for num_threads(threadCount(threads_)) reduction(|| : moved) if (n >= 16384)
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
