#include "integrators/BoxScaling.h"

#include "core/Error.h"

namespace faraday {

std::vector<int> moleculeStarts(const Topology& topology, int n) {
  std::vector<int> starts;
  int next = 0;  // first atom not yet in a molecule
  const auto singles = [&](int until) {
    for (; next < until; ++next) starts.push_back(next);
  };
  for (const Molecule& m : topology.molecules) {
    if (m.first < next || m.count < 1 || m.first + m.count > n)
      throw Error("topology: molecule '" + m.name + "' (atoms " + std::to_string(m.first + 1) + ".." +
                  std::to_string(m.first + m.count) + ") overlaps another or lies beyond the system");
    singles(m.first);
    starts.push_back(m.first);
    next = m.first + m.count;
  }
  singles(n);
  starts.push_back(n);
  return starts;
}

BoxScalingParams boxScaling(const Box& from, const Box& to) {
  BoxScalingParams p{};
  const Vec3 a = from.diagonal(), b = to.diagonal();
  for (int c = 0; c < 3; ++c) {
    p.length[c] = a[c];
    p.factor[c] = b[c] / a[c];
  }
  p.tilt[0] = from.b.x;
  p.tilt[1] = from.c.x;
  p.tilt[2] = from.c.y;
  return p;
}

void scaleMolecules(std::vector<Vec3>& positions, const std::vector<double>& mass, const std::vector<int>& starts,
                    const BoxScalingParams& params) {
  const long molecules = long(starts.size()) - 1;
#pragma omp parallel for schedule(static)
  for (long m = 0; m < molecules; ++m) {
    const int first = starts[std::size_t(m)], count = starts[std::size_t(m) + 1] - first;
    scaleMolecule(
        count, params, [&](int k, int c) { return positions[std::size_t(first + k)][c]; },
        [&](int k, int c, double v) { positions[std::size_t(first + k)][c] = v; },
        [&](int k) { return mass[std::size_t(first + k)]; });
  }
}

}  // namespace faraday
