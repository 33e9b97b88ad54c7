#include "engine/formats/PdbFile.h"

#include <cmath>
#include <cstdio>
#include <optional>

#include "engine/formats/AtomicFile.h"
#include "core/Error.h"
#include "engine/formats/LineFile.h"
#include "engine/formats/TextParse.h"
#include "core/Units.h"

namespace faraday {
namespace {

/// A number from the 1-based inclusive column range [first, last] of a PDB line.
double pdbNumber(const LineFile& f, std::size_t index, std::size_t first, std::size_t last, const char* what) {
  const std::string text = LineFile::columns(f.lines[index], first - 1, last - first + 1);
  double v = 0;
  if (!parseDouble(text, v))
    throw fileError(f.name, f.number(index), std::string("non-numeric ") + what + " (columns " + std::to_string(first) +
                    "-" + std::to_string(last) + "): '" + text + "'");
  if (!std::isfinite(v)) throw fileError(f.name, f.number(index), std::string("non-finite ") + what + ": '" + text + "'");
  return v;
}

Box readCryst1(const LineFile& f, std::size_t index) {
  const double a = pdbNumber(f, index, 7, 15, "CRYST1 a");
  const double b = pdbNumber(f, index, 16, 24, "CRYST1 b");
  const double c = pdbNumber(f, index, 25, 33, "CRYST1 c");
  const double alpha = pdbNumber(f, index, 34, 40, "CRYST1 alpha"), beta = pdbNumber(f, index, 41, 47, "CRYST1 beta"),
               gamma = pdbNumber(f, index, 48, 54, "CRYST1 gamma");
  if (!(a > 0 && b > 0 && c > 0))
    throw fileError(f.name, f.number(index), "non-positive box length in CRYST1 (box lengths must be > 0)");
  char angles[96];
  std::snprintf(angles, sizeof angles, "alpha %g, beta %g, gamma %g degrees", alpha, beta, gamma);
  for (double angle : {alpha, beta, gamma})
    if (!(angle > 0 && angle < 180))
      throw fileError(f.name, f.number(index), std::string("CRYST1 angles must lie between 0 and 180 degrees (") +
                                                   angles + ")");
  const double s = 1.0 / units::kAngstromPerNm;
  const Box cell = Box::fromLengthsAngles(a * s, b * s, c * s, alpha, beta, gamma);
  if (!(cell.c.z > 0))
    throw fileError(f.name, f.number(index), std::string("CRYST1 ") + angles +
                                                 " describe no cell (the three edges would lie in one plane), so the "
                                                 "box cannot be brought to the reduced triclinic form");
  const std::optional<Box> box = Box::reduce(cell.a, cell.b, cell.c);
  if (!box || !box->isValid()) throw fileError(f.name, f.number(index), "CRYST1 box too large: its volume overflows");
  return *box;
}

void readAtomRecord(const LineFile& f, std::size_t index, Coordinates& c) {
  const std::string& line = f.lines[index];
  if (line.size() < 54)
    throw fileError(f.name, f.number(index), "ATOM/HETATM record too short: x y z need columns 31-54");
  const std::string name = trimmed(LineFile::columns(line, 12, 4));
  if (name.empty()) throw fileError(f.name, f.number(index), "missing atom name (columns 13-16)");
  const std::string residText = LineFile::columns(line, 22, 4);
  long long resid = 0;
  if (!parseInteger(residText, resid))
    throw fileError(f.name, f.number(index), "non-numeric residue number (columns 23-26): '" + residText + "'");
  const double s = 1.0 / units::kAngstromPerNm;
  const Vec3 r{pdbNumber(f, index, 31, 38, "x coordinate") * s, pdbNumber(f, index, 39, 46, "y coordinate") * s,
               pdbNumber(f, index, 47, 54, "z coordinate") * s};
  c.atomName.push_back(name);
  c.residueName.push_back(trimmed(LineFile::columns(line, 17, 3)));
  c.residueId.push_back(int(resid));
  c.positions.push_back(r);
  c.line.push_back(f.number(index));
}

bool startsWith(const std::string& line, const char* record) { return line.rfind(record, 0) == 0; }

}  // namespace

Coordinates readPdb(const std::filesystem::path& file) {
  const LineFile f = LineFile::read(file, "coordinates file");
  Coordinates c;
  bool haveBox = false;
  for (std::size_t i = 0; i < f.lines.size(); ++i) {
    const std::string& line = f.lines[i];
    if (startsWith(line, "ENDMDL") || (startsWith(line, "END") && trimmed(line) == "END")) break;
    if (startsWith(line, "TITLE") && c.title.empty()) c.title = trimmed(LineFile::columns(line, 10, 70));
    if (startsWith(line, "CRYST1")) c.box = readCryst1(f, i), haveBox = true;
    if (startsWith(line, "ATOM  ") || startsWith(line, "HETATM")) readAtomRecord(f, i, c);
  }
  if (c.size() == 0) throw fileError(f.name, 0, "no ATOM or HETATM records");
  if (!haveBox) throw fileError(f.name, 0, "no CRYST1 record: a periodic box is required");
  return c;
}

std::string pdbText(const Coordinates& c) {
  std::string out;
  char line[128];
  if (!c.title.empty()) out += "TITLE     " + c.title.substr(0, 70) + "\n";
  const Vec3 L = c.box.edgeLengths() * units::kAngstromPerNm, angles = c.box.angles();
  std::snprintf(line, sizeof line, "CRYST1%9.3f%9.3f%9.3f%7.2f%7.2f%7.2f P 1           1\n", L.x, L.y, L.z, angles.x,
                angles.y, angles.z);
  out += line;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const Vec3 r = c.positions[i] * units::kAngstromPerNm;
    // Atom names shorter than 4 characters start in column 14 (PDB convention).
    const std::string name = c.atomName[i].size() < 4 ? " " + c.atomName[i] : c.atomName[i];
    std::snprintf(line, sizeof line, "ATOM  %5d %-4.4s %3.3s A%4d    %8.3f%8.3f%8.3f  1.00  0.00\n",
                  int((i + 1) % 100000), name.c_str(), c.residueName[i].c_str(), c.residueId[i] % 10000, r.x, r.y, r.z);
    out += line;
  }
  out += "END\n";
  return out;
}

void writePdb(const std::filesystem::path& file, const Coordinates& coordinates) {
  writeFileAtomically(file, pdbText(coordinates));
}

}  // namespace faraday
