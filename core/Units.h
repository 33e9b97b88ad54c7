#pragma once
// Units and physical constants. Faraday works in the GROMACS/OpenMM unit system:
//   length nm, time ps, mass amu (g/mol), energy kJ/mol, charge e, temperature K.
// Derived: force kJ/(mol nm), velocity nm/ps, pressure bar (reported), potential kJ/(mol e).
// 1 amu nm^2 ps^-2 = 1 kJ/mol, so F/m is directly nm/ps^2.
namespace faraday::units {

/// Coulomb constant 1/(4 pi eps0) in kJ mol^-1 nm e^-2 (CODATA 2018, as in GROMACS ONE_4PI_EPS0).
inline constexpr double kCoulomb = 138.935458;
/// Boltzmann constant in kJ mol^-1 K^-1 (N_A k_B).
inline constexpr double kBoltzmann = 0.0083144626181532;
/// Avogadro constant in mol^-1.
inline constexpr double kAvogadro = 6.02214076e23;
/// Elementary charge in C.
inline constexpr double kElementaryCharge = 1.602176634e-19;
/// kJ/(mol nm^3) to bar: 1e3 J / (6.02214076e23 * 1e-27 m^3) / 1e5 Pa.
inline constexpr double kBarPerKjMolNm3 = 16.6054;
/// bar to kJ/(mol nm^3): 1e5 Pa * 1e-27 m^3/nm^3 * 6.02214076e23 /mol / 1e3 J/kJ (exact by the SI
/// constants), the barostat's P dV in kJ/mol.
inline constexpr double kKjMolNm3PerBar = 0.0602214076;
/// amu/nm^3 to g/mL (= g/cm^3): 1.66053906660e-24 g / 1e-21 cm^3 (CODATA 2018 atomic mass unit).
inline constexpr double kGramPerMlPerAmuNm3 = 1.66053906660e-3;
/// Angstrom per nm (DCD, PDB and DX files are in Angstrom).
inline constexpr double kAngstromPerNm = 10.0;
/// Volts per (kJ mol^-1 e^-1): 1e3 / (N_A e) = 1e3 / 96485.332.
inline constexpr double kVoltPerKjMolE = 1.0 / 96.48533212;
/// Picoseconds per nanosecond, and seconds per day (for ns/day).
inline constexpr double kPsPerNs = 1000.0;
inline constexpr double kSecondsPerDay = 86400.0;

/// Picoseconds per AKMA time unit (CHARMM/DCD time step unit: sqrt(A^2 amu / (kcal/mol))).
inline constexpr double kPsPerAkmaTime = 0.0488882129;

inline constexpr double kPi = 3.14159265358979323846;

}  // namespace faraday::units
