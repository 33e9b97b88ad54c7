// The triangular all-pairs kernel against the CPU double loop: softened gravity with masses
// per body and with uniform masses, the typed force; the total force exactly zero; bitwise
// repeatability; sizes around the warp's 32 and the warp's 8 blocks of i bodies.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/common/FixedPoint.h"
#include "kernels/nbody/AllPairs.h"
#include "tests/TestSupport.h"
#include "tests/Tolerances.h"

#if defined(FARADAY_HAVE_CUDA)
#include "kernels/nbody/CudaAllPairs.h"
#endif

namespace faraday::test {
namespace {

#if defined(FARADAY_HAVE_CUDA)

struct Bodies {
  std::vector<Vec3> x;
  std::vector<double> mass;
  std::vector<int> type;
};

/// n bodies uniformly in a ball of radius 2 nm; masses 0.5..2 (or all 1), types 0/1.
Bodies randomBodies(int n, bool uniformMass, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), m(0.5, 2.0);
  Bodies b;
  while ((int)b.x.size() < n) {
    const Vec3 p{2 * u(rng), 2 * u(rng), 2 * u(rng)};
    if (norm2(p) > 4) continue;
    b.x.push_back(p);
    b.mass.push_back(uniformMass ? 1.0 : m(rng));
    b.type.push_back(int(b.x.size()) % 2);
  }
  return b;
}

AllPairsParams gravity() {
  AllPairsParams p;
  p.G = 0.7;
  p.softening = 0.05;
  return p;
}

AllPairsParams typed() {
  AllPairsParams p;
  p.potential = AllPairsPotential::Typed;
  p.typed.types = 2;
  // Like charges repel (c1 > 0), unlike attract; a steep repulsion keeps them apart.
  p.typed.params = {{1.0, 0.2, 9.0}, {-1.0, 0.25, 9.0}, {-1.0, 0.25, 9.0}, {1.5, 0.3, 9.0}};
  p.typed.rmin = 0.05;
  return p;
}

struct GpuResult {
  std::vector<long long> fixedForce;  // 3 planes of n
  std::vector<Vec3> forces;
  double energy = 0;
};

GpuResult gpuForces(const Bodies& b, const AllPairsParams& params, bool uniform) {
  const int n = int(b.x.size());
  std::vector<float4> host(b.x.size());
  for (std::size_t i = 0; i < b.x.size(); ++i)
    host[i] = make_float4(float(b.x[i].x), float(b.x[i].y), float(b.x[i].z),
                          params.potential == AllPairsPotential::Gravity ? float(b.mass[i]) : float(b.type[i]));
  DeviceBuffer<float4> body("test bodies", 0);
  body.upload(host);
  DeviceBuffer<unsigned long long> force("test forces", 3 * b.x.size()), energy("test energy", 1);
  force.zero();
  energy.zero();
  CudaAllPairs kernel(n, params, uniform ? b.mass[0] : 0.0);
  AllPairsDeviceInput in;
  in.n = n;
  in.body = body.data();
  in.force = force.data();
  in.stride = b.x.size();
  in.scale = allPairsForceScale(params, b.mass, b.type);
  in.energy = energy.data();
  kernel.enqueue(nullptr, in);
  const std::vector<unsigned long long> f = force.toHost(), e = energy.toHost();
  GpuResult r;
  r.fixedForce.assign(f.begin(), f.end());
  r.forces.resize(b.x.size());
  for (std::size_t i = 0; i < b.x.size(); ++i)
    r.forces[i] = Vec3{double(r.fixedForce[i]), double(r.fixedForce[in.stride + i]),
                       double(r.fixedForce[2 * in.stride + i])} *
                  (1.0 / in.scale);
  r.energy = fixed::energyFromFixed((long long)e[0]);
  return r;
}

double relRms(const std::vector<Vec3>& a, const std::vector<Vec3>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) num += norm2(a[i] - ref[i]), den += norm2(ref[i]);
  return std::sqrt(num / den);
}

void expectMatchesCpu(const Bodies& b, const AllPairsParams& params, bool uniform, const std::string& what) {
  std::vector<Vec3> ref;
  const AllPairsResult cpu = allPairsForces(b.x, b.mass, b.type, params, ref, 4);
  const GpuResult gpu = gpuForces(b, params, uniform);
  EXPECT_LT(relRms(gpu.forces, ref), tol::kGpuAllPairsForceRelRms) << what;
  EXPECT_NEAR(gpu.energy, cpu.energy, tol::kGpuEnergyRel * std::fabs(cpu.energy)) << what;
  // Newton's third law in fixed point: the total is zero bit for bit.
  const std::size_t n = b.x.size();
  for (int c = 0; c < 3; ++c) {
    long long sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += gpu.fixedForce[c * n + i];
    EXPECT_EQ(sum, 0) << what << ": total force component " << c;
  }
}

TEST(CudaAllPairs, GravityWithMassesMatchesTheCpuLoop) {
  FARADAY_REQUIRE_GPU();
  for (int n : {2, 31, 33, 256, 257, 3001})
    expectMatchesCpu(randomBodies(n, false, 7u + unsigned(n)), gravity(), false, "n = " + std::to_string(n));
}

TEST(CudaAllPairs, GravityWithUniformMassesMatchesTheCpuLoop) {
  FARADAY_REQUIRE_GPU();
  for (int n : {33, 1000, 4099}) {
    const Bodies b = randomBodies(n, true, 11u + unsigned(n));
    expectMatchesCpu(b, gravity(), true, "uniform, n = " + std::to_string(n));
    // The uniform path and the general one agree to float rounding on equal masses.
    EXPECT_LT(relRms(gpuForces(b, gravity(), true).forces, gpuForces(b, gravity(), false).forces), tol::kGpuAllPairsForceRelRms);
  }
}

TEST(CudaAllPairs, TypedForceMatchesTheCpuLoop) {
  FARADAY_REQUIRE_GPU();
  for (int n : {64, 999, 2050}) expectMatchesCpu(randomBodies(n, false, 3u + unsigned(n)), typed(), false, "typed");
}

TEST(CudaAllPairs, OneBodyFeelsNothingAndTwoBodiesFeelTheAnalyticForce) {
  FARADAY_REQUIRE_GPU();
  Bodies one{{Vec3{0.3, 0.1, 0.2}}, {2.0}, {0}};
  const GpuResult r1 = gpuForces(one, gravity(), false);
  EXPECT_EQ(norm2(r1.forces[0]), 0.0);
  EXPECT_EQ(r1.energy, 0.0);
  Bodies two{{Vec3{0, 0, 0}, Vec3{0.6, 0.8, 0}}, {2.0, 3.0}, {0, 1}};
  const AllPairsParams p = gravity();
  const GpuResult r2 = gpuForces(two, p, false);
  const double s2 = 1.0 + p.softening * p.softening, f = p.G * 6.0 / (s2 * std::sqrt(s2));  // |F| / r, r = 1
  EXPECT_NEAR(r2.forces[0].x, f * 0.6, tol::kGpuPair * f);
  EXPECT_NEAR(r2.forces[0].y, f * 0.8, tol::kGpuPair * f);
  EXPECT_NEAR(r2.forces[1].y, -f * 0.8, tol::kGpuPair * f);
  EXPECT_NEAR(r2.energy, -p.G * 6.0 / std::sqrt(s2), tol::kGpuPair * p.G * 6.0);
}

TEST(CudaAllPairs, RepeatedEvaluationsAreBitwiseIdentical) {
  FARADAY_REQUIRE_GPU();
  const Bodies b = randomBodies(5000, false, 5u);
  const GpuResult a = gpuForces(b, gravity(), false), c = gpuForces(b, gravity(), false);
  EXPECT_EQ(a.fixedForce, c.fixedForce);
  EXPECT_EQ(a.energy, c.energy);
}

#else
TEST(CudaAllPairs, NeedsACudaBuild) { GTEST_SKIP() << "GPU test skipped: this build has no CUDA backend"; }
#endif

}  // namespace
}  // namespace faraday::test
