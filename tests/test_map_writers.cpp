// Map files: OpenDX (APBS/VMD dialect) and MRC/CCP4 writers, unit factors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "core/Error.h"
#include "engine/formats/MapWriters.h"
#include "tests/MapTestSupport.h"
#include "tests/Tolerances.h"

namespace faraday {
namespace {

using namespace test;

TEST(DcsWriters, OpenDxRoundTripsWithApbsHeader) {
  const Lattice l = makeLattice({-1.25, 0.5, 2.0}, 0.15, 5, 4, 7);  // 140 values: not a multiple of 3... 140 = 3*46+2
  std::vector<double> v(l.size());
  std::mt19937 rng(5);
  std::normal_distribution<double> g(0, 30);
  for (double& x : v) x = g(rng);
  const auto dir = tempDir("dx");
  writeMap(dir / "m.dx", l, v, "test map");
  EXPECT_FALSE(std::filesystem::exists(dir / "m.dx.tmp"));
  const ParsedDx dx = readDx(dir / "m.dx");
  for (const char* line :
       {"object 1 class gridpositions counts 5 4 7", "origin -1.250000000e+01 5.000000000e+00 2.000000000e+01",
        "delta 1.500000000e+00 0.000000000e+00 0.000000000e+00", "delta 0.000000000e+00 1.500000000e+00 0.000000000e+00",
        "delta 0.000000000e+00 0.000000000e+00 1.500000000e+00", "object 2 class gridconnections counts 5 4 7",
        "object 3 class array type double rank 0 items 140 data follows", "attribute \"dep\" string \"positions\"",
        "object \"regular positions regular connections\" class field", "component \"positions\" value 1",
        "component \"connections\" value 2", "component \"data\" value 3"})
    EXPECT_NE(dx.text.find(std::string(line) + "\n"), std::string::npos) << line;
  ASSERT_EQ(dx.values.size(), v.size());
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(dx.values[i], v[i], tol::kDxRoundTripRel * std::abs(v[i]));
  // z fastest: the first data line holds points (0,0,0), (0,0,1), (0,0,2).
  const std::size_t at = dx.text.find("data follows\n") + 13;
  double first[3];
  std::sscanf(dx.text.c_str() + at, "%lf %lf %lf", &first[0], &first[1], &first[2]);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(first[k], v[l.index(0, 0, k)], tol::kDxRoundTripRel * std::abs(v[l.index(0, 0, k)]));
}

TEST(DcsWriters, OpenDxDataIsPrintfsTextInAnySplitOfBlocks) {
  const Lattice l = makeLattice({0.0, 0.0, 0.0}, 0.1, 5, 4, 7);  // 140 values: the last line holds two
  std::vector<double> v(l.size());
  std::mt19937 rng(7);
  std::normal_distribution<double> g(0, 1);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = g(rng) * std::pow(10.0, double(int(i % 41) - 20) * 8.0);
  v[3] = 0.0, v[4] = -0.0, v[5] = 1e-310, v[6] = -1.7976931348623157e308, v[7] = 9.999999995e99;
  std::string want;
  char field[64];
  for (std::size_t q = 0; q < v.size(); ++q) {
    const int i = int(q / 28), j = int(q % 28 / 7), k = int(q % 7);
    std::snprintf(field, sizeof field, "%.8e", v[l.index(i, j, k)]);
    want += field;
    want += (q + 1) % 3 == 0 || q + 1 == v.size() ? '\n' : ' ';
  }
  EXPECT_EQ(dxDataText(l, v, 0, v.size()), want);
  for (std::size_t cut : {1, 3, 50, 139})
    EXPECT_EQ(dxDataText(l, v, 0, cut) + dxDataText(l, v, cut, v.size()), want) << "cut at " << cut;
}

TEST(DcsWriters, MrcHeaderAndData) {
  const Lattice l = makeLattice({0.3, -0.2, 0.1}, 0.1, 6, 5, 4);
  std::vector<double> v(l.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.37 * double(i)) * 12.5;
  const auto dir = tempDir("mrc");
  writeMap(dir / "m.ccp4", l, v, "");
  std::ifstream in(dir / "m.ccp4", std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), 1024 + 4 * v.size());
  std::int32_t iw[256];
  std::memcpy(iw, bytes.data(), 1024);
  const float* fw = reinterpret_cast<const float*>(iw);
  EXPECT_EQ(iw[0], 6);
  EXPECT_EQ(iw[1], 5);
  EXPECT_EQ(iw[2], 4);
  EXPECT_EQ(iw[3], 2);
  EXPECT_NEAR(fw[10], 6.0f, 1e-5);  // cell, Angstrom
  EXPECT_NEAR(fw[11], 5.0f, 1e-5);
  EXPECT_NEAR(fw[49], 3.0f, 1e-5);  // origin, Angstrom
  EXPECT_EQ(iw[22], 1);      // ISPG: a single volume
  EXPECT_EQ(iw[27], 20140);  // NVERSION: MRC2014, which mrcfile.validate requires
  EXPECT_EQ(std::string(bytes.data() + 208, 4), "MAP ");
  EXPECT_EQ(std::uint8_t(bytes[212]), 0x44);
  for (std::size_t i = 0; i < v.size(); ++i) {
    float f;
    std::memcpy(&f, bytes.data() + 1024 + 4 * i, 4);
    EXPECT_NEAR(f, v[i], tol::kMrcRoundTripRel * std::abs(v[i]));
  }
}

TEST(DcsWriters, UnitFactors) {
  EXPECT_EQ(mapUnitFactor(MapUnits::KjPerMolE, 300), 1.0);
  EXPECT_DOUBLE_EQ(mapUnitFactor(MapUnits::KtPerE, 300), 1.0 / (units::kBoltzmann * 300));
  EXPECT_DOUBLE_EQ(mapUnitFactor(MapUnits::Volt, 300), units::kVoltPerKjMolE);
}

}  // namespace
}  // namespace faraday
