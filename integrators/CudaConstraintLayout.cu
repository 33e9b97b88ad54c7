// The device layout of the constraint clusters (CudaConstraints.h): stars apart from the
// general clusters.
#include <algorithm>

#include "integrators/CudaConstraints.h"

namespace faraday {

DeviceClusterLayout deviceClusterLayout(const ConstraintSet& set) {
  DeviceClusterLayout out;
  for (const ConstraintCluster& cl : set.clusters) {
    const ClusterConstraint* k = set.constraints.data() + cl.firstConstraint;
    const int* members = set.clusterAtoms.data() + cl.firstAtom;
    if (cl.star) {
      DeviceStar s;
      s.centre = members[0];
      s.count = cl.constraintCount;
      s.code = cl.firstConstraint;
      for (int i = 0; i < cl.constraintCount; ++i) s.arms[i] = k[i].b, s.d2[i] = k[i].d2;
      out.stars.push_back(s);
      continue;
    }
    DeviceCluster d{int(out.constraints.size()), cl.constraintCount, int(out.atoms.size()), cl.atomCount,
                    cl.firstConstraint};
    const auto local = [&](int particle) {
      return int(std::lower_bound(members, members + cl.atomCount, particle) - members);  // members are sorted
    };
    for (int i = 0; i < cl.constraintCount; ++i) out.constraints.push_back({local(k[i].a), local(k[i].b), k[i].d2});
    out.atoms.insert(out.atoms.end(), members, members + cl.atomCount);
    out.clusters.push_back(d);
  }
  return out;
}

}  // namespace faraday
