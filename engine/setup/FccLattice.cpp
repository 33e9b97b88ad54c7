#include "engine/setup/FccLattice.h"

#include "core/Error.h"
#include "core/Units.h"

namespace faraday {

AtomType argonType() {
  AtomType t;
  t.name = "AR";
  t.mass = 39.948;
  t.charge = 0;
  t.sigma = 0.3405;
  t.epsilon = 119.8 * units::kBoltzmann;
  return t;
}

BuiltSystem fccArgon(int cells, double a) {
  if (cells < 1 || !(a > 0)) throw Error("fccArgon: need cells >= 1 and a lattice constant > 0");
  static const Vec3 basis[4] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  BuiltSystem b;
  b.system.types = {argonType()};
  b.system.box = Box::rectangular(cells * a, cells * a, cells * a);
  for (int x = 0; x < cells; ++x)
    for (int y = 0; y < cells; ++y)
      for (int z = 0; z < cells; ++z)
        for (const Vec3& s : basis) {
          b.positions.push_back((Vec3{double(x), double(y), double(z)} + s + Vec3{0.25, 0.25, 0.25}) * a);
          b.system.type.push_back(0);
          b.system.charge.push_back(0);
          b.system.mass.push_back(b.system.types[0].mass);
          b.system.atomName.push_back("AR");
          b.system.residueName.push_back("AR");
          b.system.residueId.push_back(int(b.system.type.size()));
        }
  return b;
}

AtomType sodiumType() { return AtomType{"NA", 22.98977, 1.0, 0.2159538, 1.4754532}; }
AtomType chlorideType() { return AtomType{"CL", 35.453, -1.0, 0.4830453, 0.0534924}; }

BuiltSystem rockSalt(int cells, double a) {
  if (cells < 1 || !(a > 0)) throw Error("rockSalt: need cells >= 1 and a lattice constant > 0");
  // Na on the fcc sites, Cl shifted by a/2 along x; a/8 from the faces.
  static const Vec3 basis[4] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  BuiltSystem b;
  b.system.types = {sodiumType(), chlorideType()};
  b.system.box = Box::rectangular(cells * a, cells * a, cells * a);
  for (int x = 0; x < cells; ++x)
    for (int y = 0; y < cells; ++y)
      for (int z = 0; z < cells; ++z)
        for (int t = 0; t < 2; ++t)
          for (const Vec3& s : basis) {
            const Vec3 shift = t == 0 ? Vec3{0.125, 0.125, 0.125} : Vec3{0.625, 0.125, 0.125};
            b.positions.push_back((Vec3{double(x), double(y), double(z)} + s + shift) * a);
            const AtomType& type = b.system.types[std::size_t(t)];
            b.system.type.push_back(t);
            b.system.charge.push_back(type.charge);
            b.system.mass.push_back(type.mass);
            b.system.atomName.push_back(type.name);
            b.system.residueName.push_back(type.name);
            b.system.residueId.push_back(int(b.system.type.size()));
          }
  return b;
}

}  // namespace faraday
