// Backend choice and set-up: platform selection, invalid input, phase timers, the
// dispersion correction in the energies.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/backends/CpuBackend.h"
#include "core/Error.h"
#include "kernels/common/Device.h"
#include "tests/BackendTestSystems.h"
#include "tests/Tolerances.h"
#include "engine/backends/BackendFactory.h"

namespace faraday::test {
namespace {

TEST(MakeBackend, CpuPlatformGivesTheCpuBackend) {
  const BuiltSystem b = fccArgon(4);
  EXPECT_EQ(makeBackend(ljConfig("cpu"), b.system, nullptr)->name(), "cpu");
}

TEST(MakeBackend, CudaWithoutDeviceIsAnErrorNamingTheKey) {
  if (cudaDeviceCount() > 0) GTEST_SKIP() << "a CUDA device is present";
  const BuiltSystem b = fccArgon(4);
  try {
    makeBackend(ljConfig("cuda"), b.system, nullptr);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("run.platform = cuda"), std::string::npos) << e.what();
  }
}

TEST(MakeBackend, AutoFallsBackToCpuWithoutDevice) {
  if (cudaDeviceCount() > 0) GTEST_SKIP() << "a CUDA device is present";
  const BuiltSystem b = fccArgon(4);
  testing::internal::CaptureStderr();
  const auto backend = makeBackend(ljConfig("auto"), b.system, nullptr);
  const std::string notice = testing::internal::GetCapturedStderr();
  EXPECT_EQ(backend->name(), "cpu");
  EXPECT_NE(notice.find("using the CPU backend"), std::string::npos) << notice;
}

// An unknown platform or integrator cannot reach a backend: the configuration reads them into
// enums (test_config: unknown values).
TEST(MakeBackend, BadValuesAreErrors) {
  const BuiltSystem b = fccArgon(4);  // box 2.30 nm
  Config c = ljConfig("cpu", 1.2);  // cutoff above half the box
  EXPECT_THROW(makeBackend(c, b.system, nullptr), Error);
  c = ljConfig("cpu");
  c.integrator.dt = 0;
  EXPECT_THROW(makeBackend(c, b.system, nullptr), Error);
  c = ljConfig("cpu");
  c.run.threads = -1;
  EXPECT_THROW(makeBackend(c, b.system, nullptr), Error);
}

class BackendSetup : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { FARADAY_REQUIRE_BACKEND(GetParam()); }
};

TEST_P(BackendSetup, PhasesAreTimed) {
  const BuiltSystem b = fccArgon(4);
  Timers timers;
  auto backend = makeBackend(ljConfig(GetParam()), b.system, &timers);
  backend->setState(stateOf(b), {});
  backend->computeForces();
  for (int s = 0; s < 3; ++s) backend->step();
  std::map<std::string, long long> calls;
  std::map<std::string, double> seconds;
  for (const auto& [name, e] : timers.ordered()) calls[name] = e.calls, seconds[name] = e.seconds;
  if (onGpu(GetParam())) {
    // GPU phases come from CUDA events around the phases of sampled steps (step 0 here).
    for (const char* phase : {"neighbor", "nonbonded", "integrate"}) {
      EXPECT_GE(calls[phase], 1) << phase;
      EXPECT_GT(seconds[phase], 0.0) << phase;
    }
    return;
  }
  EXPECT_EQ(calls["nonbonded"], 4);
  EXPECT_EQ(calls["neighbor"], 5);  // the build in setState, then one check per force call
  EXPECT_GE(calls["integrate"], 3);
}

/// The dispersion correction enters the energy and the virial diagonal; the forces do not change.
TEST_P(BackendSetup, DispersionCorrectionEntersEnergyAndVirial) {
  const BuiltSystem b = fccArgon(4);
  Config plain = ljConfig(GetParam()), corrected = ljConfig(GetParam());
  corrected.nonbonded.dispersionCorrection = true;
  auto p = makeBackend(plain, b.system, nullptr), c = makeBackend(corrected, b.system, nullptr);
  p->setState(stateOf(b), {});
  c->setState(stateOf(b), {});
  const Energies ep = p->computeForces(), ec = c->computeForces();
  const DispersionCorrection d = dispersionCorrection(b.system, 1.0, true, b.system.box.volume());
  EXPECT_LT(d.energy, 0.0);
  EXPECT_EQ(ep.dispersionCorrection, 0.0);
  EXPECT_NEAR(ec.dispersionCorrection, d.energy, tol::kDoubleSum * std::fabs(d.energy));
  EXPECT_NEAR(ec.potential() - ep.potential(), d.energy, tol::kDoubleSum * std::fabs(ep.potential()));
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(ec.virial.m[k][k] - ep.virial.m[k][k], d.virialDiagonal, tol::kDoubleSum * std::fabs(ep.virial.trace()));
  for (std::size_t i = 0; i < b.system.size(); ++i) ASSERT_TRUE(p->forces()[i] == c->forces()[i]);
}

INSTANTIATE_TEST_SUITE_P(Backends, BackendSetup, ::testing::ValuesIn(kBackendNames), backendTestName);

}  // namespace
}  // namespace faraday::test
