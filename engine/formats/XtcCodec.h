#pragma once
// The coordinate block of a GROMACS XTC frame ("3dfcoord"), in XDR: 4-byte big-endian
// words, opaque bytes padded to a multiple of 4.
//
// Block layout: the atom count N; for N <= 9, 3N floats (nm); otherwise the precision p
// (float, 1/nm), the smallest and largest integer coordinate per dimension (3 + 3 ints),
// the starting index of the small-difference size in the magic-integer table (int), the
// length of the bit stream in bytes (int) and the bit stream itself. The stream holds the
// integers round(x p), atom by atom, most significant bit first:
//  - a "large" coordinate: the three values x - min as one mixed-radix number of
//    bitLength(size_x size_y size_z) bits (size = max - min + 1), or three numbers of
//    bitLength(size) bits each when a size exceeds 0xffffff;
//  - a flag bit, then when it is 1 a 5-bit code 3 r + s + 1: r (0..8) atoms follow as small
//    differences, and the index moves by s (-1, 0, +1) after them; 0 repeats the last r;
//  - the run: each atom's difference to the previous atom, plus half the current magic
//    integer, as one mixed-radix number of `index` bits (three digits of base
//    magic[index]). The first atom of a run is written after the large one although it
//    comes before it in the frame (water: O written small after H1, ...).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/Vec3.h"

namespace faraday::xtc {

/// First word of every frame.
inline constexpr std::int32_t kMagic = 1995;
/// Frames of up to this many atoms store plain floats.
inline constexpr std::size_t kMaxUncompressedAtoms = 9;

/// Something the codec cannot write or read; the caller names the file and the frame.
struct CodecError {
  std::string what;
};

void putInt(std::string& out, std::int32_t value);
void putFloat(std::string& out, float value);

/// Reads XDR words from a byte range; reading past its end throws CodecError naming `what`.
class XdrCursor {
 public:
  XdrCursor(const unsigned char* data, std::size_t size) : data_(data), size_(size) {}
  std::int32_t getInt(const char* what);
  float getFloat(const char* what);
  /// `bytes` bytes of opaque data, then the padding to the next multiple of 4.
  const unsigned char* getOpaque(std::size_t bytes, const char* what);
  std::size_t offset() const { return at_; }

 private:
  const unsigned char* take(std::size_t bytes, const char* what);
  const unsigned char* data_;
  std::size_t size_, at_ = 0;
};

/// Appends the block of `positions` (nm) at `precision` (1/nm). Throws CodecError naming
/// the atom (from 1) when a coordinate is not finite or round(x p) does not fit 31 bits.
void encodeCoordinates(std::string& out, const std::vector<Vec3>& positions, float precision);

/// Reads a block of `atoms` atoms into `positions` (nm): the integers divided by the precision
/// in double, so that a coordinate is within 0.5 / p of what was written at any size (GROMACS
/// reads into float: its values differ by float rounding).
/// Throws CodecError for a block that no XTC writer produces: another atom count, a
/// precision that is not positive, a byte count beyond what N atoms can need, a stream that
/// ends early, a magic-integer index or a coordinate outside its range.
void decodeCoordinates(XdrCursor& in, std::size_t atoms, std::vector<Vec3>& positions);

/// Bytes of the block after its fixed part, from the byte count: the stream padded to 4.
inline std::size_t paddedBytes(std::size_t bytes) { return (bytes + 3) / 4 * 4; }

/// The largest byte count a block of `atoms` atoms can have: at most 96 bits for a large
/// coordinate, 6 for the run code and 72 for a small one, so 13 bytes per atom and a tail.
inline std::size_t maxStreamBytes(std::size_t atoms) { return 13 * atoms + 16; }

}  // namespace faraday::xtc
