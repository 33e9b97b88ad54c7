#include "kernels/vsites/VirtualSites.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "core/Error.h"
#include "kernels/vsites/VirtualSiteMath.h"

namespace faraday {

void orderVirtualSites(VirtualSites& v, std::size_t particles) {
  const std::size_t n = v.sites.size();
  std::vector<int> siteOf(particles, -1);
  for (std::size_t k = 0; k < n; ++k) {
    const VirtualSite& s = v.sites[k];
    if (s.site < 0 || std::size_t(s.site) >= particles || siteOf[std::size_t(s.site)] >= 0)
      throw Error("virtual site " + std::to_string(s.site) + ": not a particle of the system, or a site twice");
    for (int q = 0; q < s.count; ++q) {
      const int a = v.atoms[std::size_t(s.first + q)];
      if (a < 0 || std::size_t(a) >= particles || a == s.site)
        throw Error("virtual site " + std::to_string(s.site) + ": built from particle " + std::to_string(a) +
                    ", itself or none of the system's");
    }
    siteOf[std::size_t(s.site)] = int(k);
  }
  // Levels by passes (a chain of sites of length L takes L + 1); more passes than sites: a cycle.
  std::vector<int> level(n, 0);
  for (std::size_t pass = 0, changed = 1; changed; ++pass) {
    if (pass > n) throw Error("virtual sites built from each other in a cycle");
    changed = 0;
    for (std::size_t k = 0; k < n; ++k)
      for (int q = 0; q < v.sites[k].count; ++q) {
        const int from = siteOf[std::size_t(v.atoms[std::size_t(v.sites[k].first + q)])];
        if (from >= 0 && level[k] < level[std::size_t(from)] + 1) level[k] = level[std::size_t(from)] + 1, changed = 1;
      }
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return level[a] < level[b]; });
  VirtualSites out;
  for (std::size_t k : order) {
    VirtualSite s = v.sites[k];
    if (out.levels.empty() || level[k] != level[order[out.sites.size() - 1]]) out.levels.push_back(int(out.sites.size()));
    for (int q = 0; q < s.count; ++q) {
      out.atoms.push_back(v.atoms[std::size_t(s.first + q)]);
      out.weights.push_back(v.weights.empty() ? 0.0 : v.weights[std::size_t(s.first + q)]);
    }
    s.first = int(out.atoms.size()) - s.count;
    out.sites.push_back(s);
  }
  if (n > 0) out.levels.push_back(int(n));
  v = std::move(out);
}

void constructVirtualSites(const VirtualSites& sites, std::vector<Vec3>& positions, const Box& box) {
  const auto position = [&positions](int a) { return positions[std::size_t(a)]; };
  const auto image = [&box](Vec3 d) { return box.minimumImage(d); };
  // In order: the sites of a level are built from atoms and sites of the levels before it.
  for (const VirtualSite& s : sites.sites)
    positions[std::size_t(s.site)] = vsite::buildSite(s, sites.atoms.data(), sites.weights.data(), position, image);
}

Tensor3 spreadVirtualSiteForces(const VirtualSites& sites, const std::vector<Vec3>& positions,
                                std::vector<Vec3>& forces, const Box& box) {
  const auto position = [&positions](int a) { return positions[std::size_t(a)]; };
  const auto image = [&box](Vec3 d) { return box.minimumImage(d); };
  const auto add = [&forces](int a, Vec3 f) { forces[std::size_t(a)] += f; };
  double w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (auto s = sites.sites.rbegin(); s != sites.sites.rend(); ++s) {
    const Vec3 F = forces[std::size_t(s->site)];
    forces[std::size_t(s->site)] = Vec3{};
    vsite::spreadSite(*s, sites.atoms.data(), sites.weights.data(), position, image, F, add, w);
  }
  Tensor3 t;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) t.m[a][b] = w[3 * a + b];
  return t;
}

void clearVirtualSiteVelocities(const VirtualSites& sites, std::vector<Vec3>& velocities) {
  for (const VirtualSite& s : sites.sites)
    if (std::size_t(s.site) < velocities.size()) velocities[std::size_t(s.site)] = Vec3{};
}

}  // namespace faraday
