#include "engine/formats/XtcCodec.h"

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdlib>

namespace faraday::xtc {
namespace {

/// Sizes of the small differences: magic[i]^3 fits i bits, and the sizes grow by ~2^(1/3).
constexpr std::array<std::int32_t, 73> kMagicInts{
    0,       0,       0,       0,        0,        0,        0,       0,       0,       8,       10,
    12,      16,      20,      25,       32,       40,       50,      64,      80,      101,     128,
    161,     203,     256,     322,      406,      512,      645,     812,     1024,    1290,    1625,
    2048,    2580,    3250,    4096,     5060,     6501,     8192,    10321,   13003,   16384,   20642,
    26007,   32768,   41285,   52015,    65536,    82570,    104031,  131072,  165140,  208063,  262144,
    330280,  416127,  524287,  660561,   832255,   1048576,  1321122, 1664510, 2097152, 2642245, 3329021,
    4194304, 5284491, 6658042, 8388607,  10568983, 13316085, 16777216};
constexpr int kFirstIndex = 9;
constexpr int kLastIndex = int(kMagicInts.size()) - 1;
/// Sizes up to this many values share one mixed-radix number; larger ones are sent alone.
constexpr std::uint32_t kMaxMixedSize = 0xffffff;
/// |round(x p)| must stay below this (GROMACS: INT_MAX - 2).
constexpr double kMaxAbsInteger = double(INT_MAX - 2);
constexpr int kMaxRunAtoms = 8;

using Triple = std::array<std::int64_t, 3>;
using Sizes = std::array<std::uint32_t, 3>;

std::uint32_t floatBits(float f) { return std::bit_cast<std::uint32_t>(f); }

/// Bits needed to write the values 0..size (GROMACS' sizeofint: the bit length, at most 32).
int bitLength(std::uint64_t size) { return std::min(32, int(std::bit_width(size))); }

/// A non-negative integer below 2^96 as little-endian bytes: the mixed-radix numbers of the
/// stream are products of three sizes below 2^24 (large coordinates) or 2^25 (small ones).
class Wide {
 public:
  explicit Wide(std::uint32_t value) {
    for (; value != 0; value >>= 8) bytes_[n_++] = std::uint8_t(value);
  }
  Wide() = default;
  /// this = this * factor + add.
  void multiplyAdd(std::uint32_t factor, std::uint32_t add) {
    std::uint64_t carry = add;
    int j = 0;
    for (; j < n_; ++j) {
      carry += std::uint64_t(bytes_[j]) * factor;
      bytes_[j] = std::uint8_t(carry);
      carry >>= 8;
    }
    for (; carry != 0; carry >>= 8) bytes_[j++] = std::uint8_t(carry);
    n_ = j;
  }
  /// this = this / divisor; returns the remainder.
  std::uint32_t divide(std::uint32_t divisor) {
    std::uint64_t rest = 0;
    for (int j = n_ - 1; j >= 0; --j) {
      rest = rest << 8 | bytes_[j];
      bytes_[j] = std::uint8_t(rest / divisor);
      rest %= divisor;
    }
    while (n_ > 0 && bytes_[n_ - 1] == 0) --n_;
    return std::uint32_t(rest);
  }
  int bitLength() const { return n_ == 0 ? 0 : 8 * (n_ - 1) + int(std::bit_width(unsigned(bytes_[n_ - 1]))); }
  std::uint8_t byte(int j) const { return j < n_ ? bytes_[j] : 0; }
  void setByte(int j, std::uint8_t b) {
    bytes_[j] = b;
    n_ = std::max(n_, j + 1);
    while (n_ > 0 && bytes_[n_ - 1] == 0) --n_;
  }
  /// The value when it is below 2^64 (else `tooLarge`).
  std::uint64_t value(std::uint64_t tooLarge) const {
    if (n_ > 8) return tooLarge;
    std::uint64_t v = 0;
    for (int j = n_ - 1; j >= 0; --j) v = v << 8 | bytes_[j];
    return v;
  }

 private:
  std::array<std::uint8_t, 12> bytes_{};
  int n_ = 0;
};

/// Bits of the mixed-radix number of three digits of these sizes (GROMACS' sizeofints).
int mixedBits(const Sizes& sizes) {
  Wide product(1);
  for (std::uint32_t s : sizes) product.multiplyAdd(s, 0);
  return product.bitLength();
}

/// Appends bits most significant first.
class BitWriter {
 public:
  /// The low `bits` bits of `value` (bits <= 32).
  void put(std::uint32_t value, int bits) {
    while (bits > 0) {
      if (used_ == 0) bytes_.push_back(0);
      const int take = std::min(8 - used_, bits);
      const unsigned chunk = (value >> (bits - take)) & ((1u << take) - 1);
      bytes_.back() = char(std::uint8_t(bytes_.back()) | chunk << (8 - used_ - take));
      used_ = (used_ + take) % 8;
      bits -= take;
    }
  }
  /// A mixed-radix number in `bits` bits: its bytes from the least significant, each sent as
  /// 8 bits (the last one as what is left).
  void putWide(const Wide& value, int bits) {
    for (int j = 0; bits > 0; ++j, bits -= 8) put(value.byte(j), std::min(8, bits));
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
  int used_ = 0;  ///< bits used in the last byte
};

class BitReader {
 public:
  BitReader(const unsigned char* data, std::size_t bytes) : data_(data), bits_(8 * bytes) {}
  std::uint32_t get(int bits) {
    if (std::size_t(bits) > bits_ - at_) throw CodecError{"the compressed coordinates end before the last atom"};
    std::uint32_t v = 0;
    while (bits > 0) {
      const int left = 8 - int(at_ % 8);
      const int take = std::min(left, bits);
      v = v << take | ((data_[at_ / 8] >> (left - take)) & ((1u << take) - 1));
      at_ += std::size_t(take);
      bits -= take;
    }
    return v;
  }
  Wide getWide(int bits) {
    Wide w;
    for (int j = 0; bits > 0; ++j, bits -= 8) w.setByte(j, std::uint8_t(get(std::min(8, bits))));
    return w;
  }

 private:
  const unsigned char* data_;
  std::size_t bits_, at_ = 0;
};

std::int64_t largestComponent(const Triple& a, const Triple& b) {
  return std::max({std::abs(a[0] - b[0]), std::abs(a[1] - b[1]), std::abs(a[2] - b[2])});
}

/// How the large coordinates are written: as one mixed-radix number, or each size alone.
struct LargeFormat {
  Triple min{}, max{};
  Sizes sizes{};
  bool separate = false;
  int bits = 0;                      ///< the mixed-radix number (separate = false)
  std::array<int, 3> separateBits{};  ///< each value (separate = true)

  void setSizes() {
    for (int k = 0; k < 3; ++k) sizes[k] = std::uint32_t(max[k] - min[k] + 1);
    separate = (sizes[0] | sizes[1] | sizes[2]) > kMaxMixedSize;
    if (separate)
      for (int k = 0; k < 3; ++k) separateBits[k] = bitLength(sizes[k]);
    else
      bits = mixedBits(sizes);
  }
};

/// Three digits of these sizes as one mixed-radix number: ((d0 s1) + d1) s2 + d2.
Wide mixed(const Triple& digits, const Sizes& sizes) {
  Wide w{std::uint32_t(digits[0])};
  w.multiplyAdd(sizes[1], std::uint32_t(digits[1]));
  w.multiplyAdd(sizes[2], std::uint32_t(digits[2]));
  return w;
}

Triple digitsOf(Wide w, const Sizes& sizes) {
  Triple d{};
  d[2] = w.divide(sizes[2]);
  d[1] = w.divide(sizes[1]);
  const std::uint64_t beyond = std::uint64_t(1) << 40;  // above any size: the range check rejects it
  d[0] = std::int64_t(std::min(w.value(beyond), beyond));
  return d;
}

Sizes smallSizes(int index) {
  const auto s = std::uint32_t(kMagicInts[std::size_t(index)]);
  return {s, s, s};
}

std::int64_t half(int index) { return kMagicInts[std::size_t(index)] / 2; }

// ---- writing -------------------------------------------------------------------------------

std::vector<Triple> toIntegers(const std::vector<Vec3>& positions, float precision) {
  std::vector<Triple> ints(positions.size());
  for (std::size_t i = 0; i < positions.size(); ++i)
    for (int k = 0; k < 3; ++k) {
      const double x = positions[i][k];
      if (!std::isfinite(x))
        throw CodecError{"atom " + std::to_string(i + 1) + " has a non-finite " + "xyz"[k] + " coordinate"};
      const double scaled = x * double(precision);
      if (!(std::fabs(scaled) < kMaxAbsInteger))
        throw CodecError{"atom " + std::to_string(i + 1) + ": " + "xyz"[k] + " = " + std::to_string(x) +
                         " nm times the precision " + std::to_string(precision) + " does not fit a 32-bit integer"};
      ints[i][k] = std::llround(scaled);  // half away from zero, as GROMACS rounds
    }
  return ints;
}

/// The choices of swap, run and index step are GROMACS': for the same integers the stream
/// is the bytes gmx and MDAnalysis write. (Not where consecutive atoms are more than 2^21
/// integers apart, kilometres at 0.001 nm: there GROMACS' 32-bit sums overflow and its index
/// may pass the table's end; here both stay in range.)
class Encoder {
 public:
  Encoder(const std::vector<Triple>& frame, const LargeFormat& large, int index)
      : atoms_(frame), large_(large), index_(index) {
    maxIndex_ = std::min(kLastIndex, index + 8);
    minIndex_ = maxIndex_ - 8;
    larger_ = half(maxIndex_);
  }

  std::string encode() {
    std::size_t i = 0;
    while (i < atoms_.size()) i = encodeGroup(i);
    return bits_.bytes();
  }

 private:
  /// One large coordinate and its run of small differences, from atom i; returns the next atom.
  std::size_t encodeGroup(std::size_t i) {
    const std::size_t n = atoms_.size();
    int step = 0;
    if (index_ < maxIndex_ && i >= 1 && largestComponent(atoms_[i], previous_) < larger_)
      step = 1;
    else if (index_ > minIndex_)
      step = -1;
    // A close next atom is written first, so that this one becomes a small difference.
    const bool swap = i + 1 < n && largestComponent(atoms_[i], atoms_[i + 1]) < half(index_);
    const Triple& first = swap ? atoms_[i + 1] : atoms_[i];
    putLarge(first);
    previous_ = first;
    std::size_t next = i + 1;
    std::array<Triple, kMaxRunAtoms> run;
    int runAtoms = 0;
    bool small = swap;
    if (!small && step == -1) step = 0;
    const std::int64_t smaller = index_ > kFirstIndex ? half(index_ - 1) : 0;
    while (small && runAtoms < kMaxRunAtoms) {
      const Triple& c = next == i + 1 ? atoms_[i] : atoms_[next];
      Triple d{};
      std::int64_t d2 = 0;
      for (int k = 0; k < 3; ++k) {
        d[k] = c[k] - previous_[k];
        d2 += d[k] * d[k];
        d[k] += half(index_);
      }
      if (step == -1 && d2 >= smaller * smaller) step = 0;
      run[std::size_t(runAtoms++)] = d;
      previous_ = c;
      ++next;
      small = next < n && largestComponent(atoms_[next], previous_) < half(index_);
    }
    const int runCode = 3 * runAtoms;
    if (runCode != previousRun_ || step != 0) {
      previousRun_ = runCode;
      bits_.put(1, 1);
      bits_.put(std::uint32_t(runCode + step + 1), 5);
    } else {
      bits_.put(0, 1);
    }
    for (int r = 0; r < runAtoms; ++r) bits_.putWide(mixed(run[std::size_t(r)], smallSizes(index_)), index_);
    index_ += step;
    return next;
  }

  void putLarge(const Triple& c) {
    Triple d{};
    for (int k = 0; k < 3; ++k) d[k] = c[k] - large_.min[k];
    if (large_.separate)
      for (int k = 0; k < 3; ++k) bits_.put(std::uint32_t(d[k]), large_.separateBits[k]);
    else
      bits_.putWide(mixed(d, large_.sizes), large_.bits);
  }

  const std::vector<Triple>& atoms_;
  const LargeFormat& large_;
  int index_, maxIndex_, minIndex_;
  std::int64_t larger_;
  Triple previous_{};
  int previousRun_ = -1;
  BitWriter bits_;
};

// ---- reading -------------------------------------------------------------------------------

class Decoder {
 public:
  Decoder(const LargeFormat& large, int index, float precision, std::vector<Vec3>& out)
      : large_(large), index_(index), precision_(precision), out_(out) {}

  void decode(BitReader& bits, std::size_t atoms) {
    std::size_t i = 0;
    int run = 0;
    while (i < atoms) {
      const Triple first = inRange(getLarge(bits), i);
      int step = 0;
      if (bits.get(1) == 1) {
        const int code = int(bits.get(5));
        step = code % 3 - 1;
        run = code - code % 3;
      }
      const std::size_t runAtoms = std::size_t(run / 3);
      if (runAtoms > atoms - i - 1)
        throw CodecError{"a run of " + std::to_string(runAtoms) + " atoms after atom " + std::to_string(i + 1) +
                         " goes past the last atom"};
      if (runAtoms > 0 && (index_ < kFirstIndex || index_ > kLastIndex))
        throw CodecError{"the small-difference index " + std::to_string(index_) + " before atom " +
                         std::to_string(i + 2) + " is outside the table"};
      Triple previous = first;
      for (std::size_t r = 0; r < runAtoms; ++r) {
        const Triple d = digitsOf(bits.getWide(index_), smallSizes(index_));
        Triple c{};
        for (int k = 0; k < 3; ++k) c[k] = previous[k] + d[k] - half(index_);
        // The first small one comes before the large one in the frame.
        put(i + r + (r == 0 ? 0 : 1), inRange(c, i + r + 1));
        previous = c;
      }
      put(runAtoms > 0 ? i + 1 : i, first);
      i += runAtoms + 1;
      index_ += step;
    }
  }

 private:
  Triple getLarge(BitReader& bits) {
    Triple d{};
    if (large_.separate)
      for (int k = 0; k < 3; ++k) d[k] = bits.get(large_.separateBits[k]);
    else
      d = digitsOf(bits.getWide(large_.bits), large_.sizes);
    for (int k = 0; k < 3; ++k) d[k] += large_.min[k];
    return d;
  }

  const Triple& inRange(const Triple& c, std::size_t atom) const {
    for (int k = 0; k < 3; ++k)
      if (c[k] < large_.min[k] || c[k] > large_.max[k])
        throw CodecError{"atom " + std::to_string(atom + 1) + ": " + "xyz"[k] +
                         " is outside the frame's integer range [" + std::to_string(large_.min[k]) + ", " +
                         std::to_string(large_.max[k]) + "]"};
    return c;
  }

  void put(std::size_t atom, const Triple& c) {
    for (int k = 0; k < 3; ++k) out_[atom][k] = double(c[k]) / precision_;
  }

  const LargeFormat& large_;
  int index_;
  double precision_;
  std::vector<Vec3>& out_;
};

}  // namespace

void putInt(std::string& out, std::int32_t value) {
  const auto u = std::uint32_t(value);
  const char bytes[4] = {char(u >> 24), char(u >> 16), char(u >> 8), char(u)};
  out.append(bytes, 4);
}

void putFloat(std::string& out, float value) { putInt(out, std::int32_t(floatBits(value))); }

const unsigned char* XdrCursor::take(std::size_t bytes, const char* what) {
  if (bytes > size_ - at_) throw CodecError{std::string("the frame ends inside ") + what};
  const unsigned char* p = data_ + at_;
  at_ += bytes;
  return p;
}

std::int32_t XdrCursor::getInt(const char* what) {
  const unsigned char* p = take(4, what);
  return std::int32_t(std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3]);
}

float XdrCursor::getFloat(const char* what) { return std::bit_cast<float>(std::uint32_t(getInt(what))); }

const unsigned char* XdrCursor::getOpaque(std::size_t bytes, const char* what) {
  const unsigned char* p = take(bytes, what);
  take(paddedBytes(bytes) - bytes, what);
  return p;
}

void encodeCoordinates(std::string& out, const std::vector<Vec3>& positions, float precision) {
  const std::size_t n = positions.size();
  putInt(out, std::int32_t(n));
  if (n <= kMaxUncompressedAtoms) {
    for (const Vec3& r : positions)
      for (int k = 0; k < 3; ++k) {
        if (!std::isfinite(r[k]))
          throw CodecError{"atom " + std::to_string(&r - positions.data() + 1) + " has a non-finite " + "xyz"[k] +
                           " coordinate"};
        putFloat(out, float(r[k]));
      }
    return;
  }
  const std::vector<Triple> ints = toIntegers(positions, precision);
  LargeFormat large;
  large.min = large.max = ints[0];
  std::int64_t closest = INT64_MAX;  // smallest |r_i - r_(i-1)|_1: where the small sizes start
  for (std::size_t i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) {
      large.min[k] = std::min(large.min[k], ints[i][k]);
      large.max[k] = std::max(large.max[k], ints[i][k]);
    }
    if (i > 0) {
      const Triple& a = ints[i];
      const Triple& b = ints[i - 1];
      closest = std::min(closest, std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]));
    }
  }
  large.setSizes();
  int index = kFirstIndex;
  while (index < kLastIndex && kMagicInts[std::size_t(index)] < closest) ++index;

  putFloat(out, precision);
  for (int k = 0; k < 3; ++k) putInt(out, std::int32_t(large.min[k]));
  for (int k = 0; k < 3; ++k) putInt(out, std::int32_t(large.max[k]));
  putInt(out, index);
  const std::string stream = Encoder(ints, large, index).encode();
  putInt(out, std::int32_t(stream.size()));
  out += stream;
  out.append(paddedBytes(stream.size()) - stream.size(), '\0');
}

void decodeCoordinates(XdrCursor& in, std::size_t atoms, std::vector<Vec3>& positions) {
  const std::int32_t count = in.getInt("the coordinate block's atom count");
  if (count < 0 || std::size_t(count) != atoms)
    throw CodecError{"the coordinate block has " + std::to_string(count) + " atoms, the frame header " +
                     std::to_string(atoms)};
  positions.resize(atoms);
  if (atoms <= kMaxUncompressedAtoms) {
    for (Vec3& r : positions)
      for (int k = 0; k < 3; ++k) r[k] = double(in.getFloat("the coordinates"));
    return;
  }
  const float precision = in.getFloat("the precision");
  if (!(precision > 0) || !std::isfinite(precision))
    throw CodecError{"the precision " + std::to_string(precision) + " is not a positive number"};
  LargeFormat large;
  for (int k = 0; k < 3; ++k) large.min[k] = in.getInt("the smallest integer coordinates");
  for (int k = 0; k < 3; ++k) large.max[k] = in.getInt("the largest integer coordinates");
  for (int k = 0; k < 3; ++k)
    if (large.max[k] < large.min[k] || large.max[k] - large.min[k] >= std::int64_t(UINT32_MAX))
      throw CodecError{std::string("the integer range of ") + "xyz"[k] + " is [" + std::to_string(large.min[k]) + ", " +
                       std::to_string(large.max[k]) + "]"};
  large.setSizes();
  const std::int32_t index = in.getInt("the small-difference index");
  if (index < kFirstIndex || index > kLastIndex)
    throw CodecError{"the small-difference index " + std::to_string(index) + " is outside " +
                     std::to_string(kFirstIndex) + ".." + std::to_string(kLastIndex)};
  const std::int32_t bytes = in.getInt("the byte count");
  if (bytes < 0 || std::size_t(bytes) > maxStreamBytes(atoms))
    throw CodecError{"the byte count " + std::to_string(bytes) + " is not possible for " + std::to_string(atoms) +
                     " atoms"};
  const unsigned char* stream = in.getOpaque(std::size_t(bytes), "the compressed coordinates");
  BitReader bits(stream, std::size_t(bytes));
  Decoder(large, index, precision, positions).decode(bits, atoms);
}

}  // namespace faraday::xtc
