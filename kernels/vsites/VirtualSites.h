#pragma once
// Virtual sites on the host: built from their atoms' positions and their forces spread back,
// in double (the CPU backend, the coordinates of a run's input, of `rerun` and `map` frames,
// and the oracle of the GPU's kernels, CudaVirtualSites.h). The per-site formulas are
// VirtualSiteMath.h's; minimum images are the box's.
#include <vector>

#include "core/Box.h"
#include "core/Topology.h"
#include "core/Vec3.h"

namespace faraday {

/// Sorts the sites by level and sets VirtualSites::levels (sites and atoms in any order before,
/// each site's `first` into `atoms`); `particles`: the system's. Throws Error when a site is
/// built from itself, from a particle beyond the system, or from sites in a cycle.
void orderVirtualSites(VirtualSites& sites, std::size_t particles);

/// Puts every site of `sites` where its constructing particles place it, level by level (sites
/// built from sites after those), each next to its first constructing atom.
void constructVirtualSites(const VirtualSites& sites, std::vector<Vec3>& positions, const Box& box);

/// Adds each site's force onto its constructing particles (from the last level down, so that
/// a site built from sites passes its share on) and zeroes the sites' forces. Returns what the
/// spread forces add to the virial W = sum x (x) F (kJ/mol; the site's own term is in the
/// virial of the forces on it): W[a][b] += sum_q x_iq,a f_q,b - r_a F_b over the non-linear sites.
Tensor3 spreadVirtualSiteForces(const VirtualSites& sites, const std::vector<Vec3>& positions,
                                std::vector<Vec3>& forces, const Box& box);

/// Zeroes the sites' velocities (nm/ps): sites have no mass, so no momentum of their own.
void clearVirtualSiteVelocities(const VirtualSites& sites, std::vector<Vec3>& velocities);

/// constructVirtualSites on the GPU (CudaVirtualSites.h), for tests: the positions uploaded in
/// particle order, the sites built, the positions back. Error in a build without CUDA.
void cudaConstructVirtualSites(const VirtualSites& sites, std::vector<Vec3>& positions, const Box& box);
/// spreadVirtualSiteForces on the GPU, for tests: the forces to fixed point, spread, back;
/// returns the virial. Error in a build without CUDA.
Tensor3 cudaSpreadVirtualSiteForces(const VirtualSites& sites, const std::vector<Vec3>& positions,
                                    std::vector<Vec3>& forces, const Box& box);

}  // namespace faraday
