#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "core/Box.h"
#include "core/Vec3.h"

namespace faraday {

/// Verlet neighbor list with a buffer (skin) for a rectangular periodic box, built with a
/// cell list (CpuNeighborList.cpp). Particles are numbered in cell order ("slots": slot s
/// holds particle order()[s]), so that particles close in space are close in memory; the
/// pair loop then reads neighbours from cache whatever the order of the input (a shuffled
/// 256k-atom liquid ran 3.8x slower in input order). The list is FULL: a pair of slots
/// (s, k) within cutoff + buffer appears in row s and in row k. Rows are stored in CSR form
/// (offsets, neighbors: slot numbers), each row sorted ascending, so that per-particle
/// force sums run in a fixed order whatever the number of threads. The slot order depends
/// only on the positions at the build. Pairs are judged by their minimum-image distance;
/// since the cutoff is below half of every box edge, each interacting pair has exactly one
/// image within the cutoff.
class NeighborList {
 public:
  /// cutoff and buffer in nm; threads = OpenMP threads for the build (0 = all).
  NeighborList(double cutoff, double buffer, int threads = 0);

  /// Builds the list for `positions` (nm, wrapped or not) in `box` and remembers them as
  /// the reference positions.
  void build(const std::vector<Vec3>& positions, const Box& box);
  /// True when any particle has moved more than buffer/2 (minimum image) since the last
  /// build, or the box changed, or the list was never built: then a pair that was beyond
  /// cutoff + buffer may have come within the cutoff.
  bool needsRebuild(const std::vector<Vec3>& positions, const Box& box) const;

  double cutoff() const { return cutoff_; }
  double buffer() const { return buffer_; }
  double listRadius() const { return cutoff_ + buffer_; }
  std::size_t size() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }
  /// Row s (of particle order()[s]) is the slots neighbors()[offsets()[s] .. offsets()[s+1]).
  const std::vector<int>& offsets() const { return offsets_; }
  const std::vector<int>& neighbors() const { return neighbors_; }
  /// order()[s] = the particle in slot s: particles by cell, ascending index within a cell.
  const std::vector<int>& order() const { return order_; }
  /// Positions at the last build (empty before the first).
  const std::vector<Vec3>& reference() const { return reference_; }
  /// Number of builds so far.
  long long builds() const { return builds_; }
  /// Cells of the last build's cell grid (at most max(64, 4 N): sparse boxes get larger cells).
  std::size_t cells() const { return cells_; }

 private:
  /// CSR offsets from row lengths (rowLength[i + 1] = length of row i); throws when the
  /// list outgrows int indices.
  void setOffsets(const std::vector<std::int64_t>& rowLength);

  double cutoff_, buffer_;
  int threads_;
  Box box_{};
  std::vector<int> offsets_, neighbors_, order_;
  std::vector<Vec3> reference_;
  long long builds_ = 0;
  std::size_t cells_ = 0;
};

/// O(N^2) reference: every pair i < j whose minimum-image distance is below `radius` (nm),
/// sorted. For tests.
std::vector<std::pair<int, int>> bruteForcePairs(const std::vector<Vec3>& positions, const Box& box, double radius);

}  // namespace faraday
