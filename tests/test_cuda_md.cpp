// The whole step on the GPU: the tile list covers every pair once (many geometries, hydrogens
// grouped with their heavy atoms), the
// CPU walk of the GPU's tiles matches the CPU backend (list) and the GPU kernel matches the
// walk (kernel), GPU against CPU forces, energies and virial, bitwise repeatability and
// independence of the input order, the list's growth after an overflow, exclusion bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "engine/backends/CpuBackend.h"
#include "engine/config/KernelParams.h"
#include "engine/setup/SystemSetup.h"
#include "integrators/InitialVelocities.h"
#include "kernels/neighbor/NeighborList.h"
#include "kernels/neighbor/SlotGroups.h"
#include "kernels/nonbonded/CpuTileWalker.h"
#include "tests/BackendTestSystems.h"
#include "tests/ConstraintTestSystems.h"
#include "tests/Tolerances.h"
#include "engine/config/LoadConfig.h"

#if defined(FARADAY_HAVE_CUDA)
#include "engine/backends/CudaBackend.h"
#endif

namespace faraday::test {
namespace {

#if defined(FARADAY_HAVE_CUDA)

double relRmsVec(const std::vector<Vec3>& a, const std::vector<Vec3>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += norm2(a[i] - ref[i]);
    den += norm2(ref[i]);
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

std::vector<Vec3> referencePositions(const HostTileList& list) {
  std::vector<Vec3> r(list.atoms);
  for (int s = 0; s < list.atoms; ++s)
    r[list.atomOfSlot[s]] = Vec3{list.slotPositions[3 * s], list.slotPositions[3 * s + 1], list.slotPositions[3 * s + 2]};
  return r;
}

/// Every pair within cutoff + buffer of the build's positions is listed exactly once, and
/// no pair is listed twice.
void expectCoversEveryPairOnce(CudaBackend& gpu, const Box& box, double radius, const std::string& what) {
  const HostTileList list = gpu.tileList();
  const std::vector<std::pair<int, int>> listed = tilePairs(list);
  for (std::size_t k = 1; k < listed.size(); ++k)
    ASSERT_NE(listed[k], listed[k - 1]) << what << ": pair (" << listed[k].first << ", " << listed[k].second
                                        << ") listed twice";
  // Pairs within the radius less a float rounding margin must be there.
  const std::vector<Vec3> at = referencePositions(list);
  const auto needed = bruteForcePairs(at, box, radius * (1 - 1e-6));
  long long missing = 0;
  for (const auto& p : needed)
    if (!std::binary_search(listed.begin(), listed.end(), p) && ++missing <= 5)
      std::printf("[ info ] %s: pair of particles %d and %d missing, %.9f nm apart\n", what.c_str(), p.first, p.second,
                  std::sqrt(norm2(box.minimumImage(at[p.first] - at[p.second]))));
  EXPECT_EQ(missing, 0) << what << ": " << missing << " of " << needed.size() << " pairs missing";
  EXPECT_GE(listed.size(), needed.size()) << what;
}

std::unique_ptr<CudaBackend> startGpu(const Config& config, const System& system, const State& state) {
  auto gpu = std::make_unique<CudaBackend>(cutoffRunParams(config, system, true), system, nullptr);
  gpu->setState(state, {});
  gpu->computeForces();
  return gpu;
}

/// All atoms inside a sphere of `radius` around `center`, wrapped (it may straddle the box).
BuiltSystem clusterSystem(int n, double edge, Vec3 center, double radius, double minDistance, unsigned seed) {
  BuiltSystem b;
  b.system.types = twoLjTypes();
  b.system.box = Box::rectangular(edge, edge, edge);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  while (int(b.positions.size()) < n) {
    const Vec3 d{u(rng) * radius, u(rng) * radius, u(rng) * radius};
    if (norm2(d) > radius * radius) continue;
    const Vec3 x = b.system.box.wrap(center + d);
    bool ok = true;
    for (const Vec3& y : b.positions) ok = ok && norm2(b.system.box.minimumImage(x - y)) >= minDistance * minDistance;
    if (ok) addParticle(b, int(b.positions.size()) % 3 == 0 ? 1 : 0, x);
  }
  return b;
}

/// n LJ particles at random fractional positions of a triclinic `box`, no two closer than
/// 0.27 nm; every seventh moved by a lattice vector (unwrapped coordinates must work).
BuiltSystem triclinicLjSystem(int n, const Box& box, unsigned seed) {
  BuiltSystem b;
  b.system.types = twoLjTypes();
  b.system.box = box;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  while (int(b.positions.size()) < n) {
    const Vec3 x = box.fromFractional(Vec3{u(rng), u(rng), u(rng)});
    bool ok = true;
    for (const Vec3& y : b.positions) ok = ok && norm2(box.minimumImage(x - y)) >= 0.27 * 0.27;
    if (!ok) continue;
    const int k = int(b.positions.size());
    addParticle(b, k % 3 == 0 ? 1 : 0, k % 7 == 0 ? x - box.a + box.b * 2.0 - box.c : x);
  }
  return b;
}

/// gmx editconf's rhombic dodecahedron (xy-square) and truncated octahedron of image distance d.
Box dodecahedronBox(double d) { return Box::fromVectors({d, 0, 0}, {0, d, 0}, {d / 2, d / 2, d / std::sqrt(2.0)}); }
Box octahedronBox(double d) {
  return Box::fromVectors({d, 0, 0}, {d / 3, 2 * std::sqrt(2.0) * d / 3, 0},
                          {-d / 3, std::sqrt(2.0) * d / 3, std::sqrt(6.0) * d / 3});
}

class CudaMd : public ::testing::Test {
 protected:
  void SetUp() override { FARADAY_REQUIRE_GPU(); }
};

TEST_F(CudaMd, TilesCoverEveryPairOnceInManyGeometries) {
  struct Case {
    std::string name;
    BuiltSystem b;
  };
  std::vector<Case> cases;
  cases.push_back({"random liquid", randomLjSystem(1500, {4.0, 3.6, 3.8}, 11)});
  cases.push_back({"dense cluster", clusterSystem(700, 5.0, {2.5, 2.5, 2.5}, 1.2, 0.12, 12)});
  cases.push_back({"crowded corner", clusterSystem(400, 4.5, {0.05, 4.45, 0.0}, 0.9, 0.14, 13)});
  cases.push_back({"smallest legal box", randomLjSystem(300, {2.0 + 1e-3, 2.3, 2.1}, 14)});
  // 8 x 4 x 2 cells: the Hilbert curve of the slots runs through a cube larger than the grid.
  cases.push_back({"elongated box", randomLjSystem(2000, {9.0, 4.4, 2.4}, 15)});
  for (int n : {1, 31, 33}) cases.push_back({std::to_string(n) + " atoms", randomLjSystem(n, {2.5, 2.5, 2.5}, 20 + n)});
  // Triclinic cells: small ones whose spans cover whole rows, the smallest the cutoff allows
  // (half of c_z = d / sqrt 2 just above 1.1 nm), and large ones whose spans move with the
  // shift classes of the cells across the faces.
  cases.push_back({"dodecahedron 4 nm", triclinicLjSystem(1200, dodecahedronBox(4.0), 31)});
  cases.push_back({"smallest dodecahedron", triclinicLjSystem(800, dodecahedronBox(3.12), 32)});
  cases.push_back({"octahedron 4.2 nm", triclinicLjSystem(1200, octahedronBox(4.2), 33)});
  cases.push_back({"dodecahedron 8 nm", triclinicLjSystem(4000, dodecahedronBox(8.0), 34)});
  cases.push_back({"octahedron 7.5 nm", triclinicLjSystem(4000, octahedronBox(7.5), 35)});
  const Config c = ljConfig("cuda", 1.0, 0.1);
  for (auto& k : cases) {
    auto gpu = startGpu(c, k.b.system, stateOf(k.b));
    expectCoversEveryPairOnce(*gpu, k.b.system.box, 1.1, k.name);
  }
}

TEST_F(CudaMd, TilesCoverEveryPairOnceAfterAtomsMoveInATriclinicCell) {
  for (const Box& box : {dodecahedronBox(7.0), octahedronBox(6.5)}) {
    const BuiltSystem b = triclinicLjSystem(3000, box, 41);
    State s = stateOf(b);
    s.velocities = maxwellBoltzmannVelocities(b.system, 600.0, 7, IntegratorType::Verlet);
    auto gpu = std::make_unique<CudaBackend>(cutoffRunParams(ljConfig("cuda"), b.system, true), b.system, nullptr);
    gpu->setState(s, {});
    gpu->computeForces();
    const long long first = gpu->neighborListBuilds();
    for (int k = 0; k < 300; ++k) gpu->advance(false);
    EXPECT_GT(gpu->neighborListBuilds(), first) << "the list was never rebuilt: the test proves nothing";
    expectCoversEveryPairOnce(*gpu, box, 1.1, box.c.x > 0 ? "dodecahedron after 300 steps" : "octahedron after 300 steps");
  }
}

TEST_F(CudaMd, TilesCoverEveryPairOnceAfterAtomsMove) {
  const BuiltSystem b = fccArgon(6);
  Config c = ljConfig("cuda");
  State s = stateOf(b);
  s.velocities = maxwellBoltzmannVelocities(b.system, 300.0, 7, IntegratorType::Verlet);
  auto gpu = std::make_unique<CudaBackend>(cutoffRunParams(c, b.system, true), b.system, nullptr);
  gpu->setState(s, {});
  gpu->computeForces();
  const long long first = gpu->neighborListBuilds();
  for (int k = 0; k < 200; ++k) gpu->advance(false);
  EXPECT_GT(gpu->neighborListBuilds(), first) << "the list was never rebuilt: the test proves nothing";
  expectCoversEveryPairOnce(*gpu, b.system.box, 1.1, "after 200 steps");
}

/// Each hydrogen in the slot after its anchor's (and its rank's): SlotGroups.h. Returns the
/// number of grouped hydrogens checked.
int expectGroupsInConsecutiveSlots(const HostTileList& list, const System& system, const std::string& what) {
  const SlotGroups g = hydrogenSlotGroups(system);
  std::vector<int> slotOf(std::size_t(list.atoms));
  for (int s = 0; s < list.atoms; ++s) slotOf[std::size_t(list.atomOfSlot[std::size_t(s)])] = s;
  int grouped = 0, apart = 0;
  for (std::size_t i = 0; i < g.anchor.size(); ++i) {
    if (g.anchor[i] == int(i)) continue;
    ++grouped;
    if (slotOf[i] != slotOf[std::size_t(g.anchor[i])] + g.rank[i] && ++apart <= 5)
      std::printf("[ info ] %s: atom %zu in slot %d, its anchor %d in slot %d, rank %d\n", what.c_str(), i, slotOf[i],
                  g.anchor[i], slotOf[std::size_t(g.anchor[i])], g.rank[i]);
  }
  EXPECT_EQ(apart, 0) << what << ": " << apart << " of " << grouped << " grouped atoms apart from their anchors";
  return grouped;
}

TEST_F(CudaMd, HydrogenGroupsTakeConsecutiveSlotsAndEveryPairStaysListed) {
  MoleculeMix mix;
  mix.waters = 300, mix.methyls = 60, mix.chains = 20, mix.dimers = 20;
  const Config c = moleculeConfig("cuda", "verlet", 0.002);
  {
    // Hydrogens of every seventh water stretched 0.35 nm from their oxygen: a member sits in
    // its anchor's cell, so the cell scan must reach that much further.
    BuiltSystem b = moleculeLiquid(mix, 0.6, 41);
    for (const Settle& w : b.system.topology.settles) {
      if (w.oxygen % 7 != 0) continue;
      for (int k = 1; k <= 2; ++k) {
        Vec3& h = b.positions[std::size_t(w.oxygen + k)];
        const Vec3 o = b.positions[std::size_t(w.oxygen)];
        h = o + (h - o) * 3.5;
      }
    }
    auto gpu = startGpu(c, b.system, stateOf(b));
    const HostTileList list = gpu->tileList();
    EXPECT_GT(expectGroupsInConsecutiveSlots(list, b.system, "stretched waters"), 600);
    expectCoversEveryPairOnce(*gpu, b.system.box, 1.0, "stretched waters");
  }
  {
    const BuiltSystem b = moleculeLiquid(mix, 0.6, 42);
    auto gpu = std::make_unique<CudaBackend>(cutoffRunParams(c, b.system, true), b.system, nullptr);
    gpu->setState(constrainedStart(c, b, 400.0, 43), {});
    gpu->computeForces();
    const long long first = gpu->neighborListBuilds();
    for (int k = 0; k < 300; ++k) gpu->advance(false);
    EXPECT_GT(gpu->neighborListBuilds(), first) << "the list was never rebuilt: the test proves nothing";
    expectGroupsInConsecutiveSlots(gpu->tileList(), b.system, "after 300 steps");
    expectCoversEveryPairOnce(*gpu, b.system.box, 1.0, "after 300 steps");
  }
}

/// The CPU walk of the GPU's tiles equals the CPU backend in double (the list is right), and
/// the GPU forces equal the walk within float precision (the kernel is right).
TEST_F(CudaMd, WalkOfGpuTilesMatchesCpuAndKernelMatchesWalk) {
  const BuiltSystem b = randomLjSystem(2000, {4.2, 4.0, 4.4}, 5);
  const Config gc = ljConfig("cuda"), cc = ljConfig("cpu");
  auto gpu = startGpu(gc, b.system, stateOf(b));
  CpuBackend cpu(cutoffRunParams(cc, b.system, false), b.system, nullptr);
  cpu.setState(stateOf(b), {});
  const Energies ce = cpu.computeForces();
  const LjTable table = makeLjTable(b.system, 1.0, true);
  const TileWalkResult walk = walkTiles(gpu->tileList(), b.system, b.positions, b.system.box, table, 1.0, 0.0);
  EXPECT_LT(relRmsVec(walk.forces, cpu.forces()), tol::kDoubleSum * 100);
  EXPECT_NEAR(walk.lj, ce.lj, tol::kDoubleSum * 100 * std::fabs(ce.lj));
  const Energies ge = gpu->computeForces();
  EXPECT_LT(relRmsVec(gpu->forces(), walk.forces), tol::kGpuForceRelRms);
  EXPECT_NEAR(ge.lj, walk.lj, tol::kGpuEnergyRel * std::fabs(walk.lj));
  for (int a = 0; a < 3; ++a)
    EXPECT_NEAR(ge.virial.m[a][a], ce.virial.m[a][a], tol::kGpuEnergyRel * std::fabs(ce.virial.trace()));
}

Config meltConfig(const std::string& platform) {
  Config c = loadConfig(sourceDir() + "/systems/nacl_melt/sim.cfg", {"--run.platform=" + platform, "--run.threads=0"});
  return c;
}

TEST_F(CudaMd, GpuMatchesCpuOnArgonAndNaClMelt) {
  for (const std::string system : {"argon", "nacl_melt"}) {
    const std::string cfg = system == "argon" ? "/systems/argon/sim.cfg" : "/systems/nacl_melt/sim.cfg";
    const Config gc = loadConfig(sourceDir() + cfg, {"--run.platform=cuda"});
    const Config cc = loadConfig(sourceDir() + cfg, {"--run.platform=cpu"});
    faraday::Setup setup = buildSetup(gc);
    // The argon file is an fcc lattice, where every force is a near-cancelling sum; moved
    // off the lattice its forces are a liquid's.
    std::mt19937_64 rng(17);
    std::normal_distribution<double> jiggle(0.0, 0.02);
    if (system == "argon")
      for (Vec3& x : setup.state.positions) x += Vec3{jiggle(rng), jiggle(rng), jiggle(rng)};
    auto gpu = startGpu(gc, setup.system, setup.state);
    CpuBackend cpu(cutoffRunParams(cc, setup.system, false), setup.system, nullptr);
    cpu.setState(setup.state, {});
    const Energies ce = cpu.computeForces();
    const Energies ge = gpu->computeForces();
    const double f = relRmsVec(gpu->forces(), cpu.forces());
    std::printf("[ info ] %s: force rel RMS %.2e, potential rel %.2e, virial trace rel %.2e\n", system.c_str(), f,
                std::fabs(ge.potential() - ce.potential()) / std::fabs(ce.potential()),
                std::fabs(ge.virial.trace() - ce.virial.trace()) / std::fabs(ce.virial.trace()));
    EXPECT_LT(f, tol::kGpuForceRelRms) << system;
    EXPECT_NEAR(ge.lj, ce.lj, tol::kGpuEnergyRel * std::fabs(ce.potential())) << system;
    EXPECT_NEAR(ge.coulombReal, ce.coulombReal, tol::kGpuEnergyRel * std::fabs(ce.potential())) << system;
    EXPECT_NEAR(ge.coulombRecip, ce.coulombRecip, tol::kGpuEnergyRel * std::fabs(ce.potential())) << system;
    EXPECT_NEAR(ge.potential(), ce.potential(), tol::kGpuEnergyRel * std::fabs(ce.potential())) << system;
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c)
        EXPECT_NEAR(ge.virial.m[a][c], ce.virial.m[a][c], tol::kGpuEnergyRel * std::fabs(ce.virial.trace()))
            << system << " W" << a << c;
    EXPECT_NEAR(gpu->kineticEnergy(), cpu.kineticEnergy(), tol::kDoubleSum * cpu.kineticEnergy());
  }
}

TEST_F(CudaMd, ForcesAreBitwiseRepeatableAndIndependentOfInputOrder) {
  const Config c = meltConfig("cuda");
  const faraday::Setup setup = buildSetup(c);
  auto gpu = startGpu(c, setup.system, setup.state);
  const std::vector<Vec3> f1 = gpu->forces();
  const Energies e1 = gpu->computeForces();
  const std::vector<Vec3> f2 = gpu->forces();
  const Energies e2 = gpu->computeForces();
  ASSERT_EQ(f1.size(), f2.size());
  for (std::size_t i = 0; i < f1.size(); ++i) ASSERT_TRUE(f1[i] == f2[i]) << i;
  EXPECT_EQ(e1.potential(), e2.potential());
  // The same atoms in another order: the same forces, permuted.
  const std::size_t n = setup.system.size();
  std::vector<std::size_t> perm(n);
  for (std::size_t i = 0; i < n; ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(3));
  System ps = setup.system;
  State st = setup.state;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = perm[k];
    ps.type[k] = setup.system.type[i];
    ps.charge[k] = setup.system.charge[i];
    ps.mass[k] = setup.system.mass[i];
    ps.atomName[k] = setup.system.atomName[i];
    st.positions[k] = setup.state.positions[i];
    st.velocities[k] = setup.state.velocities[i];
  }
  auto permuted = startGpu(c, ps, st);
  const std::vector<Vec3> fp = permuted->forces();
  for (std::size_t k = 0; k < n; ++k) ASSERT_TRUE(fp[k] == f1[perm[k]]) << k;
  Vec3 total{};
  for (const Vec3& f : f1) total += f;
  std::printf("[ info ] net force on the melt: %.3e %.3e %.3e kJ/mol/nm\n", total.x, total.y, total.z);
}

TEST_F(CudaMd, ListGrowsAfterAnOverflowAndTheTrajectoryStaysExact) {
  const BuiltSystem b = clusterSystem(900, 5.0, {2.5, 2.5, 2.5}, 1.4, 0.15, 21);
  Config c = ljConfig("cuda");
  c.integrator.type = IntegratorType::Langevin;
  c.integrator.temperature = 150;
  State s = stateOf(b);
  s.velocities = maxwellBoltzmannVelocities(b.system, 150.0, 9, IntegratorType::Langevin);
  auto reference = startGpu(c, b.system, s);
  auto limited = startGpu(c, b.system, s);
  limited->limitTileCapacityForTesting(8);
  for (int k = 0; k < 30; ++k) {
    reference->advance(k % 10 == 9);
    limited->advance(k % 10 == 9);
  }
  EXPECT_GT(limited->stepsRedone(), 0);
  State a, z;
  reference->getState(a);
  limited->getState(z);
  for (std::size_t i = 0; i < a.positions.size(); ++i) {
    ASSERT_TRUE(a.positions[i] == z.positions[i]) << i;
    ASSERT_TRUE(a.velocities[i] == z.velocities[i]) << i;
  }
  // The cluster boils off: particles thousands of nm away (unwrapped) must still be placed
  // to well within the list's margin.
  expectCoversEveryPairOnce(*reference, b.system.box, 1.1, "reference run");
  expectCoversEveryPairOnce(*startGpu(c, b.system, z), b.system.box, 1.1, "a fresh build at the final state");
  expectCoversEveryPairOnce(*limited, b.system.box, 1.1, "after growing");
}

/// Synthetic exclusions: each atom with its three nearest neighbours. The walk's excluded
/// count equals the excluded pairs within the cutoff; the GPU forces equal a direct double
/// sum that skips them.
TEST_F(CudaMd, ExclusionBitsRemoveExactlyTheExcludedPairs) {
  const BuiltSystem b = randomLjSystem(600, {3.0, 3.0, 3.0}, 31);
  const std::size_t n = b.system.size();
  std::vector<std::vector<int>> excluded(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::pair<double, int>> d;
    for (std::size_t j = 0; j < n; ++j)
      if (j != i) d.emplace_back(norm2(b.system.box.minimumImage(b.positions[i] - b.positions[j])), int(j));
    std::partial_sort(d.begin(), d.begin() + 3, d.end());
    for (int k = 0; k < 3; ++k) {
      excluded[i].push_back(d[k].second);
      excluded[std::size_t(d[k].second)].push_back(int(i));
    }
  }
  std::vector<int> offsets{0}, list;
  for (auto& e : excluded) {
    std::sort(e.begin(), e.end());
    e.erase(std::unique(e.begin(), e.end()), e.end());
    list.insert(list.end(), e.begin(), e.end());
    offsets.push_back(int(list.size()));
  }
  const Config c = ljConfig("cuda");
  CudaBackend gpu(cutoffRunParams(c, b.system, true), b.system, nullptr, &offsets, &list);
  gpu.setState(stateOf(b), {});
  gpu.computeForces();
  const LjTable table = makeLjTable(b.system, 1.0, true);
  std::vector<Vec3> direct(n);
  long long excludedPairs = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const Vec3 d = b.system.box.minimumImage(b.positions[i] - b.positions[j]);
      if (norm2(d) >= 1.0) continue;
      if (std::binary_search(excluded[i].begin(), excluded[i].end(), int(j))) {
        ++excludedPairs;
        continue;
      }
      const Vec3 f = d * ljPair(norm2(d), table.at(b.system.type[i], b.system.type[j])).fOverR;
      direct[i] += f;
      direct[j] -= f;
    }
  const TileWalkResult walk = walkTiles(gpu.tileList(), b.system, b.positions, b.system.box, table, 1.0, 0.0);
  EXPECT_GT(excludedPairs, 0);
  EXPECT_EQ(walk.excludedInCutoff, excludedPairs);
  EXPECT_LT(relRmsVec(walk.forces, direct), tol::kDoubleSum * 100);
  EXPECT_LT(relRmsVec(gpu.forces(), direct), tol::kGpuForceRelRms);
}

TEST_F(CudaMd, FastErfcCoulombMatchesDoubleEvaluator) {
  // Over the whole real-space range: |U_fast - U| <= kFastErfcAbsolute qq / r.
  const double beta = 3.123, qq = 138.935458;
  double worst = 0;
  for (int k = 1; k <= 4000; ++k) {
    const double r = 0.05 + 0.95 * k / 4000.0;
    const PairResult<double> exact = ewaldRealPair(r * r, qq, beta, 0.0);
    const PairResult<float> fast = ewaldRealPairFast<float>(float(r * r), float(qq), float(beta));
    worst = std::max(worst, std::fabs(double(fast.energy) - exact.energy) / (qq / r));
    EXPECT_NEAR(fast.fOverR, exact.fOverR, tol::kFastErfcAbsolute * (qq / (r * r * r)) + tol::kFloatPair * std::fabs(exact.fOverR)) << r;
  }
  std::printf("[ info ] fast erfc: largest |U_fast - U| / (qq / r) = %.2e\n", worst);
  EXPECT_LT(worst, tol::kFastErfcAbsolute);
  // The tile kernel's combined evaluator is the same formulas (in double, exactly).
  const LjParams<double> lj = mixLorentzBerthelot(0.2159538, 1.4754532, 0.4830453, 0.0534924, 1.0, true);
  for (double r : {0.22, 0.3, 0.5, 0.8, 0.999}) {
    const PairResult2<double> both = ljEwaldPairFast<double, true>(r * r, lj, qq, beta);
    const PairResult<double> l = ljPair(r * r, lj), c = ewaldRealPairFast(r * r, qq, beta);
    EXPECT_NEAR(both.lj, l.energy, tol::kDoubleSum * (std::fabs(l.energy) + lj.c6 / std::pow(r, 6)));
    EXPECT_NEAR(both.coulomb, c.energy, tol::kDoubleSum * qq / r);
    EXPECT_NEAR(both.fOverR, l.fOverR + c.fOverR, tol::kDoubleSum * (std::fabs(l.fOverR) + qq / (r * r * r) + 12 * lj.c12 / std::pow(r, 14)));
  }
}

TEST_F(CudaMd, TooLargeSystemFailsBeforeTheRunWithBytes) {
  BuiltSystem b = randomLjSystem(8, {3.0, 3.0, 3.0}, 41);
  // An enormous system: 2.7e8 particles x ~700 bytes of device memory each > 140 GB.
  System big = b.system;
  const std::size_t n = std::size_t(1) << 28;
  big.type.assign(n, 0);
  big.charge.assign(n, 0.0);
  big.mass.assign(n, 39.9);
  big.atomName.assign(1, "A");
  const std::string e = errorOf([&] { CudaBackend gpu(cutoffRunParams(ljConfig("cuda"), big, true), big, nullptr); });
  EXPECT_NE(e.find("bytes of device memory"), std::string::npos) << e;
  EXPECT_NE(e.find("bytes are free"), std::string::npos) << e;
}

#else
TEST(CudaMd, NeedsACudaBuild) { GTEST_SKIP() << "GPU test skipped: this build has no CUDA backend"; }
#endif

}  // namespace
}  // namespace faraday::test
