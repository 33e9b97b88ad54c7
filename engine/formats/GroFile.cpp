#include "engine/formats/GroFile.h"

#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include "engine/formats/AtomicFile.h"
#include "core/Error.h"
#include "engine/formats/LineFile.h"
#include "engine/formats/TextParse.h"

namespace faraday {
namespace {

constexpr std::size_t kCoordinateColumn = 20;  // resid 5 + resname 5 + atom name 5 + atom number 5

/// Width of the coordinate fields: the distance between the first two decimal points
/// after column 20 (as GROMACS reads variable-precision files); 8 when not found.
std::size_t fieldWidth(const std::string& line) {
  const auto first = line.find('.', kCoordinateColumn);
  if (first == std::string::npos) return 8;
  const auto second = line.find('.', first + 1);
  if (second == std::string::npos || second - first < 4) return 8;
  return second - first;
}

long long atomCount(const LineFile& f) {
  if (f.lines.size() < 2) throw fileError(f.name, long(f.lines.size()) + 1, "truncated: missing the atom count line");
  long long n = 0;
  if (!parseInteger(f.lines[1], n)) throw fileError(f.name, 2, "atom count is not an integer: '" + f.lines[1] + "'");
  if (n <= 0) throw fileError(f.name, 2, "atom count must be > 0 (got " + std::to_string(n) + ")");
  return n;
}

double coordinateField(const LineFile& f, std::size_t index, std::size_t column, std::size_t width,
                       const char* what) {
  const std::string text = LineFile::columns(f.lines[index], column, width);
  double v = 0;
  if (!parseDouble(text, v)) throw fileError(f.name, f.number(index), std::string("non-numeric ") + what + ": '" + text + "'");
  if (!std::isfinite(v)) throw fileError(f.name, f.number(index), std::string("non-finite ") + what + ": '" + text + "'");
  return v;
}

Vec3 vectorFields(const LineFile& f, std::size_t index, std::size_t column, std::size_t width, bool velocity) {
  const char* names[2][3] = {{"x coordinate", "y coordinate", "z coordinate"}, {"x velocity", "y velocity", "z velocity"}};
  Vec3 v;
  for (int k = 0; k < 3; ++k) v[k] = coordinateField(f, index, column + std::size_t(k) * width, width, names[velocity][k]);
  return v;
}

/// True when `line` is three or nine numbers: a box line where an atom line was expected.
bool looksLikeBoxLine(const std::string& line) {
  const std::vector<std::string> parts = splitWhitespace(line);
  if (parts.size() != 3 && parts.size() != 9) return false;
  double v = 0;
  for (const std::string& p : parts)
    if (!parseDouble(p, v)) return false;
  return true;
}

void readAtomLine(const LineFile& f, std::size_t index, std::size_t width, bool hasVelocities, Coordinates& c,
                  long long atoms) {
  const std::string& line = f.lines[index];
  const long number = f.number(index);
  if (looksLikeBoxLine(line))
    throw fileError(f.name, number, "wrong atom count: line 2 gives " + std::to_string(atoms) +
                    " atoms but the box line comes after " + std::to_string(index - 2));
  if (line.size() < kCoordinateColumn + 3 * width)
    throw fileError(f.name, number, "atom line too short: expected residue number, residue name, atom name, "
                    "atom number and x y z in fixed columns (" + std::to_string(kCoordinateColumn + 3 * width) +
                    " characters), got '" + line + "'");
  long long resid = 0;
  if (!parseInteger(LineFile::columns(line, 0, 5), resid))
    throw fileError(f.name, number, "non-numeric residue number: '" + LineFile::columns(line, 0, 5) + "'");
  const std::string atomName = trimmed(LineFile::columns(line, 10, 5));
  if (atomName.empty()) throw fileError(f.name, number, "missing atom name (columns 11-15)");
  c.residueId.push_back(int(resid));
  c.residueName.push_back(trimmed(LineFile::columns(line, 5, 5)));
  c.atomName.push_back(atomName);
  c.positions.push_back(vectorFields(f, index, kCoordinateColumn, width, false));
  c.line.push_back(number);
  if (!hasVelocities) return;
  if (line.size() < kCoordinateColumn + 6 * width)
    throw fileError(f.name, number, "missing velocities (the first atom line has vx vy vz)");
  c.velocities.push_back(vectorFields(f, index, kCoordinateColumn + 3 * width, width, true));
}

Box readBoxLine(const LineFile& f, std::size_t index, long long atoms) {
  const long number = f.number(index);
  const std::string& line = f.lines[index];
  const std::vector<std::string> parts = splitWhitespace(line);
  const std::string hint = " after " + std::to_string(atoms) + " atoms (is the atom count on line 2 right?)";
  if (parts.size() != 3 && parts.size() != 9)
    throw fileError(f.name, number, "expected the box line 'lx ly lz' or its nine triclinic numbers (nm)" + hint + ", got '" + line + "'");
  std::vector<double> v;
  for (const std::string& p : parts) {
    double x = 0;
    if (!parseDouble(p, x)) throw fileError(f.name, number, "non-numeric value '" + p + "' in the box line" + hint);
    if (!std::isfinite(x)) throw fileError(f.name, number, "non-finite value '" + p + "' in the box line");
    v.push_back(x);
  }
  if (!(v[0] > 0 && v[1] > 0 && v[2] > 0))
    throw fileError(f.name, number, "non-positive box length in '" + trimmed(line) + "' (box lengths must be > 0 nm)");
  // v1(x) v2(y) v3(z) [v1(y) v1(z) v2(x) v2(z) v3(x) v3(y)]
  v.resize(9, 0.0);
  const Vec3 a{v[0], v[3], v[4]}, b{v[5], v[1], v[6]}, c{v[7], v[8], v[2]};
  if (a.y != 0 || a.z != 0 || b.z != 0)
    throw fileError(f.name, number, "box '" + trimmed(line) + "' cannot be brought to the reduced triclinic form: "
                    "v1(y), v1(z) and v2(z) must be 0 (the first vector along x, the second in the xy plane)");
  const std::optional<Box> box = Box::reduce(a, b, c);
  if (!box || !box->isValid()) throw fileError(f.name, number, "box '" + trimmed(line) + "' too large: its volume overflows");
  return *box;
}

void checkNothingAfter(const LineFile& f, std::size_t boxIndex, long long atoms) {
  for (std::size_t i = boxIndex + 1; i < f.lines.size(); ++i)
    if (!trimmed(f.lines[i]).empty())
      throw fileError(f.name, f.number(i), "wrong atom count? unexpected text after the box line (line 2 gives " +
                      std::to_string(atoms) + " atoms)");
}

}  // namespace

Coordinates readGro(const std::filesystem::path& file) {
  const LineFile f = LineFile::read(file, "coordinates file");
  if (f.lines.empty()) throw fileError(f.name, 0, "empty file");
  const long long n = atomCount(f);
  Coordinates c;
  c.title = f.lines[0];
  const std::size_t width = f.lines.size() > 2 ? fieldWidth(f.lines[2]) : 8;
  const bool hasVelocities =
      f.lines.size() > 2 && !trimmed(LineFile::columns(f.lines[2], kCoordinateColumn + 3 * width, std::string::npos)).empty();
  for (std::size_t i = 2; i < std::size_t(n) + 2; ++i) {
    if (i >= f.lines.size())
      throw fileError(f.name, f.number(i), "truncated: the file ends after " + std::to_string(i - 2) + " of " +
                      std::to_string(n) + " atoms (line 2 gives the atom count)");
    readAtomLine(f, i, width, hasVelocities, c, n);
  }
  const std::size_t boxIndex = std::size_t(n) + 2;
  if (boxIndex >= f.lines.size()) throw fileError(f.name, f.number(boxIndex), "truncated: missing the box line");
  c.box = readBoxLine(f, boxIndex, n);
  checkNothingAfter(f, boxIndex, n);
  return c;
}

std::string groText(const Coordinates& c, int decimals) {
  const int width = decimals + 5;
  std::string out = c.title + "\n";
  char line[512];
  std::snprintf(line, sizeof line, "%5zu\n", c.size());
  out += line;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const Vec3& r = c.positions[i];
    int len = std::snprintf(line, sizeof line, "%5d%-5.5s%5.5s%5d%*.*f%*.*f%*.*f", c.residueId[i] % 100000,
                            c.residueName[i].c_str(), c.atomName[i].c_str(), int((i + 1) % 100000), width, decimals,
                            r.x, width, decimals, r.y, width, decimals, r.z);
    if (!c.velocities.empty()) {
      const Vec3& v = c.velocities[i];
      std::snprintf(line + len, sizeof line - std::size_t(len), "%*.*f%*.*f%*.*f", width, decimals + 1, v.x, width,
                    decimals + 1, v.y, width, decimals + 1, v.z);
    }
    out += line;
    out += '\n';
  }
  // v1(x) v2(y) v3(z), then for a triclinic box v1(y) v1(z) v2(x) v2(z) v3(x) v3(y).
  const Box& b = c.box;
  const int boxDecimals = decimals > 5 ? decimals : 5;
  std::vector<double> numbers = {b.a.x, b.b.y, b.c.z};
  if (!b.isRectangular()) numbers.insert(numbers.end(), {b.a.y, b.a.z, b.b.x, b.b.z, b.c.x, b.c.y});
  for (double v : numbers) {
    std::snprintf(line, sizeof line, "%*.*f", boxDecimals + 5, boxDecimals, v);
    out += line;
  }
  out += '\n';
  return out;
}

void writeGro(const std::filesystem::path& file, const Coordinates& coordinates, int decimals) {
  writeFileAtomically(file, groText(coordinates, decimals));
}

}  // namespace faraday
