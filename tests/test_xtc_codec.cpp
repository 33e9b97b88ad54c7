// The XTC coordinate codec against its definition: plain floats up to nine atoms, compressed
// frames on the precision grid, runs of small differences, wide, negative and degenerate
// coordinates, and the refusal of what 31 bits cannot hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/formats/XtcCodec.h"
#include "tests/XtcTestFrames.h"

namespace faraday::test {
namespace {

// ---- the codec -------------------------------------------------------------------------------

std::vector<Vec3> roundTrip(const std::vector<Vec3>& positions, float precision, std::size_t* bytes = nullptr) {
  std::string block;
  xtc::encodeCoordinates(block, positions, precision);
  if (bytes) *bytes = block.size();
  xtc::XdrCursor in(reinterpret_cast<const unsigned char*>(block.data()), block.size());
  std::vector<Vec3> read;
  xtc::decodeCoordinates(in, positions.size(), read);
  EXPECT_EQ(in.offset(), block.size()) << "the block has bytes the reader did not use";
  return read;
}

TEST(XtcCodec, FramesOfUpToNineAtomsStorePlainFloats) {
  for (std::size_t n : {1u, 3u, 9u}) {
    const std::vector<Vec3> p = waterLike(n, -2.0, 4.0, unsigned(n));
    std::size_t bytes = 0;
    const std::vector<Vec3> r = roundTrip(p, 1000, &bytes);
    EXPECT_EQ(bytes, 4 + 12 * n) << n;  // the atom count, then 3N floats
    for (std::size_t i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) EXPECT_EQ(r[i][k], double(float(p[i][k]))) << n << " atoms, atom " << i;
  }
}

TEST(XtcCodec, CompressedFramesReadBackOnThePrecisionGrid) {
  for (std::size_t n : {10u, 11u, 100u, 3000u})
    for (float precision : {1000.0f, 100.0f, 333.3f, 100000.0f}) {
      SCOPED_TRACE(std::to_string(n) + " atoms, precision " + std::to_string(precision));
      const std::vector<Vec3> water = waterLike(n, -3.0, 6.0, unsigned(n));
      expectOnTheGrid(water, roundTrip(water, precision), precision);
      const std::vector<Vec3> chain = multiScaleChain(n, unsigned(n) + 1);
      expectOnTheGrid(chain, roundTrip(chain, precision), precision);
    }
}

/// Atoms close to the one before go as small differences in runs: a chain of 0.005 nm steps
/// takes under 3/4 of the bytes of the same atoms in random order (measured: 2.3 and 3.6
/// bytes per atom; plain floats take 12).
TEST(XtcCodec, CloseAtomsCompressAsRunsOfSmallDifferences) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<Vec3> chain(3000);
  for (std::size_t i = 1; i < chain.size(); ++i) chain[i] = chain[i - 1] + Vec3{g(rng), g(rng), g(rng)} * 0.005;
  std::vector<Vec3> shuffled = chain;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  std::size_t close = 0, far = 0;
  expectOnTheGrid(chain, roundTrip(chain, 1000, &close), 1000);
  expectOnTheGrid(shuffled, roundTrip(shuffled, 1000, &far), 1000);
  EXPECT_LT(double(close), 0.75 * double(far));
}

/// Ranges beyond 2^24 integers send each coordinate alone; negative and mixed ranges, atoms
/// all at one point and coordinates near the 31-bit limit read back on the grid.
TEST(XtcCodec, LargeNegativeAndDegenerateCoordinatesReadBackOnTheGrid) {
  std::vector<Vec3> wide = waterLike(300, -1.0e5, 2.0e5, 3);  // 2e8 integers per dimension at 1000/nm
  expectOnTheGrid(wide, roundTrip(wide, 1000), 1000);
  std::vector<Vec3> mixed = waterLike(300, -2.0, 4.0, 4);
  for (std::size_t i = 0; i < mixed.size(); i += 7) mixed[i].y = -40000.0 + 11.0 * double(i);  // only y wide
  expectOnTheGrid(mixed, roundTrip(mixed, 1000), 1000);
  const std::vector<Vec3> same(50, Vec3{-1.234, 0.5, 7.0});  // sizes of 1: one bit per large coordinate
  expectOnTheGrid(same, roundTrip(same, 1000), 1000);
  const std::vector<Vec3> edge = {{-2.1e6, 2.1e6, 0}, {2.147e6, -2.147e6, 1}, {0, 0, 0}, {1, 1, 1}, {2, 2, 2},
                                  {3, 3, 3},          {4, 4, 4},              {5, 5, 5}, {6, 6, 6}, {7, 7, 7}};
  expectOnTheGrid(edge, roundTrip(edge, 1000), 1000);  // 2.147e9 < 2^31 - 2 integers
}

TEST(XtcCodec, CoordinatesBeyondThirtyOneBitsOrNotFiniteAreRefusedNamingTheAtom) {
  std::vector<Vec3> p = waterLike(20, 0.0, 3.0, 5);
  p[12].z = 2.2e6;  // 2.2e9 integers at 1000/nm
  std::string block;
  try {
    xtc::encodeCoordinates(block, p, 1000);
    FAIL() << "a coordinate beyond 2^31 integers was written";
  } catch (const xtc::CodecError& e) {
    EXPECT_HAS(e.what, "atom 13: z = 2200000");
  }
  p[12].z = std::numeric_limits<double>::quiet_NaN();
  try {
    xtc::encodeCoordinates(block, p, 1000);
    FAIL() << "a NaN was written";
  } catch (const xtc::CodecError& e) {
    EXPECT_HAS(e.what, "atom 13 has a non-finite z coordinate");
  }
}

}  // namespace
}  // namespace faraday::test
