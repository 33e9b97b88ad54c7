// The barostat's molecule move on the GPU against the CPU's scaleMolecules: small molecules
// (a thread each) and a chain longer than the box (a block each, unwrapped by a scan).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "integrators/BoxScaling.h"
#include "kernels/common/Device.h"
#include "tests/TestSupport.h"
#include "tests/Tolerances.h"

#if defined(FARADAY_HAVE_CUDA)
#include "integrators/CudaBoxScaling.h"
#include "kernels/common/DeviceBuffer.h"
#endif

namespace faraday {
namespace {

#if defined(FARADAY_HAVE_CUDA)
/// Molecules in `box` scaled by 0.98 on the GPU and on the CPU.
void checkScaling(const Box& box) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(-1, 1), massOf(1, 16);
  // A 1000-atom random walk of 0.15 nm steps (spanning several box edges), then 300 waters
  // and 1 ion, every atom wrapped into the box.
  std::vector<Vec3> x;
  std::vector<int> starts = {0};
  Vec3 at{1, 1, 1};
  for (int k = 0; k < 1000; ++k) {
    Vec3 d{unit(rng), unit(rng), unit(rng)};
    at = at + (0.15 / std::sqrt(norm2(d))) * d;
    x.push_back(at);
  }
  starts.push_back(1000);
  for (int w = 0; w < 300; ++w) {
    const Vec3 o = box.fromFractional(Vec3{0.5 + 0.5 * unit(rng), 0.5 + 0.5 * unit(rng), 0.5 + 0.5 * unit(rng)});
    x.insert(x.end(), {o, o + Vec3{0.1, 0, 0}, o + Vec3{0, 0.1, 0}});
    starts.push_back(int(x.size()));
  }
  x.push_back(Vec3{0.2, 0.3, 0.4});
  starts.push_back(int(x.size()));
  for (Vec3& p : x) p = box.wrap(p);
  const int n = int(x.size());
  std::vector<double> mass(static_cast<std::size_t>(n));
  for (double& m : mass) m = massOf(rng);
  std::vector<int> slotOfAtom(static_cast<std::size_t>(n));
  std::iota(slotOfAtom.begin(), slotOfAtom.end(), 0);
  std::shuffle(slotOfAtom.begin(), slotOfAtom.end(), rng);

  const Box to = box.scaled(0.98);
  const BoxScalingParams params = boxScaling(box, to);
  std::vector<Vec3> cpu = x;
  scaleMolecules(cpu, mass, starts, params);

  std::vector<double4_32a> pos(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) pos[std::size_t(slotOfAtom[std::size_t(i)])] = make_double4_32a(x[std::size_t(i)].x, x[std::size_t(i)].y, x[std::size_t(i)].z, 0.0);
  std::vector<int> large;
  for (int m = 0; m + 1 < int(starts.size()); ++m)
    if (starts[std::size_t(m) + 1] - starts[std::size_t(m)] >= kLargeMolecule) large.push_back(m);
  ASSERT_EQ(large, std::vector<int>{0});
  DeviceBuffer<double4_32a> dPos = deviceCopy("positions", pos);
  DeviceBuffer<int> dSlot = deviceCopy("slots", slotOfAtom), dStarts = deviceCopy("starts", starts),
                    dLarge = deviceCopy("large", large);
  DeviceBuffer<double> dMass = deviceCopy("masses", mass);
  launchScaleMolecules(nullptr, dPos.data(), dSlot.data(), dStarts.data(), dMass.data(), int(starts.size()) - 1,
                       dLarge.data(), int(large.size()), params);
  std::vector<double4_32a> gpu = dPos.toHost();
  double worstChain = 0, worstSmall = 0, span = 0;
  for (int i = 0; i < n; ++i) {
    const double4_32a g = gpu[std::size_t(slotOfAtom[std::size_t(i)])];
    const Vec3 d = Vec3{g.x, g.y, g.z} - cpu[std::size_t(i)];
    const double e = std::max({std::fabs(d.x), std::fabs(d.y), std::fabs(d.z)});
    (i < 1000 ? worstChain : worstSmall) = std::max(i < 1000 ? worstChain : worstSmall, e);
    if (i < 1000) span = std::max(span, std::sqrt(norm2(cpu[std::size_t(i)] - cpu[0])));
  }
  std::printf("[ info ] scaled on the GPU against the CPU (%s box): chain of 1000 atoms (span %.1f nm) %.3g nm, small "
              "molecules %.3g nm\n",
              box.isRectangular() ? "rectangular" : "triclinic", span, worstChain, worstSmall);
  EXPECT_GT(span, box.edgeLengths().z);  // the chain is longer than the box: the unwrapping matters
  EXPECT_LT(worstChain, tol::kGpuScaledLargeMoleculeNm);
  EXPECT_LT(worstSmall, tol::kGpuScaledPositionNm);
}
#endif

TEST(BoxScalingGpu, LargeAndSmallMoleculesMoveAsOnTheCpu) {
  FARADAY_REQUIRE_GPU();
#if defined(FARADAY_HAVE_CUDA)
  checkScaling(Box::rectangular(3.0, 3.2, 3.4));
  // A rhombic dodecahedron: the unwrapping shifts by whole c, b and a vectors.
  checkScaling(Box::fromVectors({3.3, 0, 0}, {0, 3.3, 0}, {1.65, 1.65, 3.3 / std::sqrt(2.0)}));
#endif
}

}  // namespace
}  // namespace faraday
