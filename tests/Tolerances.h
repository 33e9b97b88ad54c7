#pragma once
// Every numerical tolerance used by the tests, each with the reason for its size.
namespace faraday::tol {

/// Double-precision arithmetic on sums of O(1e3..1e5) terms of magnitude O(1):
/// rounding grows like sqrt(n) * 1e-16; 1e-12 relative leaves three orders of margin.
inline constexpr double kDoubleSum = 1e-12;

// ---- Short-range forces, neighbor list, integrators ----
/// Central-difference step for F = -dE/dx checks, nm. The truncation error h^2/6 |U'''|
/// (|U'''| < 1e6 kJ/mol/nm^3 for LJ pairs at r >= 0.27 nm) is ~2e-5 kJ/mol/nm, and the
/// rounding error 1e-16 |E| / h (|E| ~ 1e3 kJ/mol) is ~2e-8: both below kLjFiniteDifferenceForce.
inline constexpr double kLjFiniteDifferenceStep = 1e-5;
/// Allowed |F_analytic + dE/dx| / max(1, |F|) (kJ/mol/nm): the truncation error above
/// with a factor 5 of margin.
inline constexpr double kLjFiniteDifferenceForce = 1e-4;
/// Statistical tests (Langevin temperature, velocity distributions): allowed deviation in
/// standard errors. 4.5 sigma: a false alarm once in ~150000 runs of one test.
inline constexpr double kStatisticalSigmas = 4.5;
/// NVE total-energy drift of the argon liquid test, kJ/mol/ps per atom. GROMACS' default
/// verlet-buffer-tolerance accepts 0.005 kJ/mol/ps per atom of drift from missed pairs
/// alone; the CPU list misses no pairs, so what remains is the velocity-Verlet error at
/// dt = 4 fs and the force jump F(rc) ~ 0.04 kJ/mol/nm of the potential-shifted LJ at the
/// cutoff (measured: ~2e-6). The bound is 1% of GROMACS' tolerance: a list rebuilt only
/// after moves of 2 x buffer gives ~9e-4, a wrong kick or an inconsistent force far more.
inline constexpr double kArgonNveDriftPerAtom = 5e-5;
/// Velocity Verlet's energy error is O(dt^2): halving dt must divide the rms fluctuation of
/// the total energy by 4. Allowed range of that ratio: [3, 5] (the cutoff's force jump adds
/// a small part that does not scale as dt^2; a first-order scheme gives ~2).
inline constexpr double kVerletScalingMin = 3.0;
inline constexpr double kVerletScalingMax = 5.0;
/// Velocity-Verlet reversibility over 2 x 100 steps of liquid argon, nm: rounding (1e-16
/// relative on positions of a few nm) grows by e^(lambda t) with a Lyapunov exponent of a
/// few per ps over 0.8 ps: 1e-9 nm still leaves orders of magnitude of margin, and a
/// non-symmetric update misses by ~1e-3 nm.
inline constexpr double kReversibilityPosition = 1e-9;
/// F/r against -(dU/dr)/r by central differences with h = 1e-6 r, relative to |F/r| + |U|/r^2:
/// truncation h^2 |U'''| / 6 ~ 1e-12 relative and rounding 1e-16 |U| / h ~ 1e-10 relative;
/// 1e-7 leaves three orders of margin.
inline constexpr double kPairDerivative = 1e-7;
/// Float pair math against double, relative: float epsilon 6e-8 times the ~10 roundings
/// and the cancellation of the two LJ terms (bounded by using |U| + 4|c6/r^6| as scale).
inline constexpr double kFloatPair = 2e-6;

// ---- The whole step on the GPU ----
/// GPU short-range and PME forces against the CPU backend (or the CPU walk of the GPU's
/// tiles), relative RMS: float pair math (6e-8 per rounding, ~20 roundings per pair, the
/// LJ terms' cancellation), float positions relative to a box of a few nm (~3e-7 nm), the
/// fast erfc (1.5e-7 qq/r) and the GPU PME's own 1e-5 bound for its reciprocal forces
/// (measured ~1e-6). 1e-5 keeps the PME bound and a factor 3 above what float math gives;
/// a wrong pair or a missing tile shows as 1e-3 or more.
inline constexpr double kGpuForceRelRms = 1e-5;
/// GPU energies and virial against the CPU, relative to |potential| or |trace W|: per-pair
/// float energies (1e-7 relative) summed per tile in float, then double; fixed-point sums
/// (6e-8 kJ/mol per tile); the PME's energy bound 1e-5.
inline constexpr double kGpuEnergyRel = 1e-5;
/// The all-pairs kernel against the CPU double loop, relative RMS of the forces (relative to
/// the summed magnitudes of the pair terms where signs mix and the net force cancels: a float
/// sum's rounding scales with its terms): float positions relative to the bodies' centroid
/// (6e-8 relative), the hardware rsqrt (2 ulp), ~10 roundings per pair, float sums of at most
/// 32 tiles of 32 terms per body before the fixed-point sum (the error grows as the square
/// root of the terms: ~2e-6 at worst). Measured 2e-7 to 9e-7 for 1k to 1M bodies; 5e-6
/// keeps a factor 5, and a missing or doubled pair shows as 1e-3 or more.
inline constexpr double kGpuAllPairsForceRelRms = 5e-6;
/// A map averaged in chunks (the frames cut into chunks of consecutive frames, each chunk's
/// sum added in chunk order) against the same frames' maps summed one after another, relative
/// to the map's largest value: identical per-frame maps, only the double additions grouped
/// otherwise (40 frames: ~40 roundings of 1.1e-16 relative to partial sums at most 40 times
/// the largest value, ~2e-13). 1e-12. Both read the frames from the same trajectory: maps of
/// positions not rounded to the DCD's float Angstroms differ by ~2e-6. Measured 2e-16 to 4e-16
/// (CPU direct and pme maps, 40 frames in 5 chunks).
inline constexpr double kMapChunkedSumRel = 1e-12;
/// Abramowitz & Stegun 7.1.26 bounds the error of erfc by 1.5e-7 in exact arithmetic; its
/// float evaluation (exp, the reciprocal, the polynomial and two products: about four
/// roundings of 6e-8 relative on values up to 1) adds up to 2.4e-7: 5e-7 (measured 3.6e-7).
inline constexpr double kFastErfcAbsolute = 5e-7;
/// The backend test bodies on the GPU (float pair math on float positions):
/// one pair against its analytic value, relative: float positions of a box up to 5 nm are
/// rounded by up to 2.4e-7 nm, 1.8e-6 of r = 0.27 nm, which the r^-13 repulsion amplifies
/// 13-fold in the force (2.3e-5); the pair math adds ~2e-6: 5e-5.
inline constexpr double kGpuPair = 5e-5;
/// Finite differences of GPU energies: a step of 2e-4 nm (float positions near 3 nm are
/// quantised at 2.4e-7 nm, so the step is known to 1.2e-3 relative, and the truncation
/// h^2/6 |d3U/dr3| stays below 7e-3 kJ/mol/nm); allowed |F + dE/dx| / max(1, |F|): 5e-3.
inline constexpr double kGpuFiniteDifferenceStep = 2e-4;
inline constexpr double kGpuFiniteDifferenceForce = 5e-3;
/// Velocity-Verlet reversibility on the GPU, nm: the forward and backward paths differ at
/// 1e-16 in double positions, which round to different floats now and then, so the float
/// forces differ by ~6e-8 relative, amplified by the chaotic dynamics (measured 6.5e-9 nm).
/// 1e-7 keeps a factor 15; a non-symmetric update misses by 1e-3 nm.
inline constexpr double kGpuReversibilityPosition = 1e-7;

// ---- Engine I/O: coordinate files, trajectories ----
/// DCD stores Angstrom as float32: converting a double rounds to the nearest float,
/// a relative error of at most 2^-24; one float ulp (2^-23 ~ 1.2e-7) relative leaves a
/// factor 2 for the nm <-> Angstrom scaling in double.
inline constexpr double kFloat32Relative = 1.2e-7;
/// A .gro written with d decimals is read back within half a unit of the last decimal,
/// 0.5 * 10^-d nm; the factor (1 + 1e-9) absorbs the double rounding of the parsed value.
inline constexpr double kGroHalfLastDecimal = 0.5 * (1 + 1e-9);
/// Energy of a frame read back from a DCD (float32 Angstrom: ~1e-7 nm per coordinate)
/// against the run's energy at the same step, relative: the energy moves by about
/// sum |F| |dx| ~ 108 x 100 kJ/mol/nm x 1e-7 nm ~ 1e-3 of |E| ~ 600 kJ/mol, 2e-6 (measured
/// 2e-9 on 864 atoms); 1e-5 leaves a factor 5.
inline constexpr double kFloat32TrajectoryEnergy = 1e-5;
/// Forces of a DCD frame against the run's, relative to the largest force: the LJ curvature
/// (up to ~1e5 kJ/mol/nm^2 at close contacts) times 1e-7 nm, ~1e-2 kJ/mol/nm against forces
/// of ~100 (measured 6.5e-6 on 864 atoms); 1e-4.
inline constexpr double kFloat32TrajectoryForce = 1e-4;
/// XTC keeps n = round(x p); Faraday writes x p and reads n / p in double, two roundings of
/// 1.1e-16 relative: a coordinate read back is within 0.5 / p of the written one, up to
/// 1e-12 relative to |x| + 1 nm (ample margin).
inline constexpr double kXtcDoubleRounding = 1e-12;
/// GROMACS' XTC code (gmx, MDAnalysis) computes x p when writing and n (1/p) when reading in
/// float: the product, the reciprocal and the conversion of n above 2^24 round by 2^-24
/// relative each (1.8e-7 together); 2.4e-7 (two float ulps) relative to |x|.
inline constexpr double kXtcFloatRelative = 2.4e-7;
/// Rerun energies of an XTC (0.001 nm) of the 108-atom argon test run against the run's,
/// relative: rounding moves each coordinate by up to 5e-4 nm (rms 2.9e-4), which changes the
/// energy by about sqrt(3N) F_rms 2.9e-4 ~ 18 x 50 x 2.9e-4 ~ 0.3 kJ/mol of ~600 (5e-4);
/// 5e-3 leaves a factor 10.
inline constexpr double kXtcTrajectoryEnergy = 5e-3;
/// `gmx dump` prints coordinates with 6 significant digits (%12.5e): 5e-6 relative, plus
/// gmx's float reading (kXtcFloatRelative): 6e-6.
inline constexpr double kGmxDumpRelative = 6e-6;
/// PDB coordinates go nm -> Angstrom (x10) -> text -> x0.1: two roundings of values
/// below 100 nm, each < 1 ulp (~1.4e-14 nm); 1e-12 nm leaves a wide margin.
inline constexpr double kPdbRoundTrip = 1e-12;
/// A box through CRYST1 (0.001 A, 0.01 degree) vs the .gro's, nm per component: half a step
/// is 5e-5 nm, or 8.7e-5 rad (3.1e-4 nm at 3.5 nm) per angle, up to three per component: 1e-3.
inline constexpr double kCryst1BoxNm = 1e-3;
/// A box through the DCD cell (lengths, angle cosines in double, acos/asin and cos on the
/// way back), nm per component: a few ulp of 3.5 nm vectors (~1e-15); 1e-12 nm.
inline constexpr double kDcdCellRoundTrip = 1e-12;
/// MDAnalysis's box vectors from float32 dimensions (6e-8 each, float cos/sin/sqrt): ~3e-7; 1e-6.
inline constexpr double kMdanalysisBoxVectorRel = 1e-6;

// ---- PME, Ewald and B-splines ----
/// B-spline weights in float vs double: O(1) values after ~30 float operations,
/// float epsilon 6e-8; 1e-6 absolute leaves a factor ~15 of margin.
inline constexpr double kBSplineFloat = 1e-6;
/// Plain Ewald (method = ewald) is the reference: at its default k-space cut the reciprocal
/// energy must be converged to 1e-8 of itself (its documented promise; the cut's estimated
/// tail is 1e-10 |E_self|, measured 2e-10 of the reciprocal energy of random ions at the
/// melt density: a factor 30 of margin for systems whose reciprocal energy is smaller).
inline constexpr double kEwaldReferenceConverged = 1e-8;
/// Madelung constants from the Ewald/PME energy of a perfect crystal: the brief's
/// accuracy target (1e-5 relative); with rtol 1e-12 the method error is far below it.
inline constexpr double kMadelung = 1e-5;
/// Total electrostatic energy at different beta (same real-space rtol 1e-8 and converged
/// k space): the remaining real-space truncation changes the energy by ~1e-8 relative
/// per term; 1e-5 relative is the brief's target with three orders of margin.
inline constexpr double kEnergyBetaIndependence = 1e-5;
/// Forces against central differences of the energy (h = 1e-5 nm): truncation error
/// h^2 E''' / 6 ~ 1e-10 F and rounding eps E / h ~ 1e-8 relative; 1e-6 relative to the
/// RMS force leaves margin. (PME forces are the exact gradient of the PME energy.)
inline constexpr double kFiniteDifferenceElectrostaticForce = 1e-6;
/// Virial tensor from a finite strain (+-1e-6) of the reciprocal energy: central
/// difference error ~1e-12 relative plus rounding ~1e-10 relative; 1e-7 relative to |W|.
inline constexpr double kFiniteDifferenceVirial = 1e-7;
/// Plain Ewald: sum of all forces is zero up to rounding in ~1e4 k vectors x 1e3 atoms.
inline constexpr double kEwaldNetForce = 1e-10;
/// PME's interpolation breaks translation invariance, so sum F is not zero; the drift force
/// is of the order of the force error. Bound: |sum F| / (sqrt(N) F_rms) below 2 rtol at the
/// settings of pmeSpacingForRtol (same budget as the force error).
inline constexpr double kPmeNetForceOverRtol = 2.0;
/// PME force error: RMS |F_PME,rec - F_Ewald,rec| / RMS |F_elec,total| must stay below
/// 2 x ewald_rtol at the spacing of pmeSpacingForRtol (the claim made for the parameters;
/// the same factor 2 as OpenMM's error-tolerance test).
inline constexpr double kPmeForceErrorOverRtol = 2.0;
/// PME vs plain Ewald with order 8 and beta h ~ 0.15: measured agreement ~1e-9 in energy and
/// forces; 1e-7 relative leaves two orders of margin and still catches any wrong factor.
inline constexpr double kPmeTightVsEwald = 1e-7;
/// Virial trace equals the total Coulomb energy (homogeneity of degree -1), up to the
/// method error of the tight settings (~1e-8); 1e-6 relative.
inline constexpr double kVirialTrace = 1e-6;
/// NVE energy drift per atom of the NaCl melt (1000 ions, PME order 4 / 0.12 nm, rtol 1e-5,
/// dt 2 fs), kJ/mol/ps: GROMACS' default verlet-buffer-tolerance, 0.005 kJ/mol/ps per atom,
/// is the drift it accepts from pair-list errors alone; the run must stay below it.
inline constexpr double kNveDriftPerAtom = 0.005;
/// Drift of the total energy of the 512-ion melt over 1 ps at dt 1 fs with the Coulomb
/// potential shift, relative to the drift without it (measured: 0.002 against 0.08 kJ/mol/ps).
/// Unshifted, the energy jumps of pairs crossing the cutoff dominate the drift; with the
/// shift only the much smaller force jump remains. 0.25 leaves a factor 10 for the noise of a
/// drift estimated over 1 ps.
inline constexpr double kCoulombShiftDriftReduction = 0.25;
/// RMS of the total energy about its linear trend relative to the kinetic energy: velocity
/// Verlet's shadow-energy oscillation at dt 2 fs is O(dt^2) ~ 1e-4 of the kinetic energy for
/// this melt; 1e-3 catches a wrong force (which gives O(1e-2) or worse).
inline constexpr double kNveFluctuationOverKinetic = 1e-3;

// ---- GPU PME ----
/// GPU PME vs CpuPme, same beta, grid and order. The GPU forms fractional coordinates in
/// double (uploaded as 32-bit fixed point, 2.3e-10 of the box edge), then works in float:
/// spline weights (rel. ~1e-7), grid sums of ~order^3 x 0.06 atoms per point (float
/// products summed in double), single-precision cuFFT (rel. RMS ~1e-7 log2 N) and the force
/// interpolation; the energy and virial are summed in double. Expected agreement ~1e-6;
/// 1e-5 is the accuracy the GPU PME promises (as in the source document: single precision
/// reaches 1e-5 energy and force errors).
inline constexpr double kCudaPmeEnergy = 1e-5;
/// Forces: relative RMS over all atoms, sqrt(sum |F_gpu - F_cpu|^2 / sum |F_cpu|^2).
inline constexpr double kCudaPmeForceRms = 1e-5;
/// Virial: largest component difference over the largest |W_ab| of the CPU tensor.
inline constexpr double kCudaPmeVirial = 1e-5;
/// Rounding of one GPU reciprocal energy, relative to |E_rec|, for finite differences of the
/// GPU's own energy: the grid is stored in float (6e-8 relative per point) and transformed by
/// a single-precision FFT (rounding ~6e-8 sqrt(log2 K^3) ~ 3e-7 relative per coefficient);
/// the terms are summed in double, and their roundings, independent across coefficients,
/// largely cancel in the sum (~3e-7 / sqrt(coefficients)). Measured on the H100: the
/// finite-difference force error at h = 1e-4 nm was 13 kJ/mol/nm, energy differences good to
/// 2.6e-3 kJ/mol = 4e-8 |E_rec|. 1e-7 of |E_rec| per evaluation. (The systematic float error
/// of kCudaPmeEnergy is smooth in the positions and cancels in a central difference.)
inline constexpr double kCudaPmeEnergyRounding = 1e-7;
/// Grid coordinate from the uploaded 32-bit fixed-point fraction vs from the double
/// position (grid units, K <= 300): one fixed-point step (2^-32 K <= 7e-8: rounding, or
/// truncation for negative positions) plus the float rounding of both fractional parts
/// w < 1 (<= 2 x 3e-8).
inline constexpr double kCudaPmeFixedPointGridUnits = 2e-7;
/// GPU PME split over several GPUs in slabs vs the same GPU PME on one: the same float
/// splines, grid sums and line transforms; what differs is each atom's force, interpolated
/// per slab in float (a sum of P^3 float terms split in two parts at most: ~1e-7 relative)
/// and rounded to fixed point per slab (2^-32 kJ/mol/nm), the (y, z) transforms of a slab
/// made by a plan of fewer planes, and the energy's partial sums added per GPU and rounded to
/// 2^-24 kJ/mol. Relative RMS of the forces, and energy relative to |E_rec|: 1e-6, ten
/// times below kCudaPmeForceRms, so that a lost or doubled plane (~1e-2) cannot pass.
inline constexpr double kSlabPmeVsOneGpu = 1e-6;

// ---- Potential maps (DCS) -------------------------------------------------------------
/// GPU map (float pair math, rsqrtf) vs the CPU double reference, relative RMS over the
/// lattice: the accuracy target of the map kernels. Float coordinates (rounding ~3e-7 nm
/// at 5 nm) and rsqrtf (2 ulp) give ~1e-6 per term; the per-point sums are folded into
/// double every 32 atoms, so accumulation adds little.
inline constexpr double kDcsGpuRelRms = 1e-5;
/// Any two GPU kernel variants (same float pair terms, different accumulation order and
/// precision): a float accumulator over n <= 4000 terms of one constant-memory chunk
/// drifts by ~u sqrt(n) = 6e-8 x 63 = 4e-6 relative; 1e-5 leaves a factor 2.5.
inline constexpr double kDcsVariantRelRms = 1e-5;
/// A CPU map (double) against a direct double sum of the same charges and positions at the
/// lattice points read back from the .dx header: those carry 9 significant digits in Angstrom
/// (5e-10 relative, ~3e-8 A at 50 A), which moves the potential by up to ~3e-8 of its largest
/// value where a point sits ~1 A from an atom; the summation order adds ~1e-13. 1e-7.
inline constexpr double kMapDoubleSumRel = 1e-7;
/// One GPU point vs k q / r for a lone charge at r >= 0.04 nm, coordinates <= 2.1 nm from
/// the lattice origin: float rounding <= 1.2e-7 nm per coordinate (relative 3e-6 at
/// 0.04 nm, three of them) plus rsqrtf's 2 ulp: <= 1e-5; 2e-5.
inline constexpr double kDcsFloatPointRel = 2e-5;
/// OpenDX values are written with 9 significant digits ("%.8e"): relative 5e-9 per value.
inline constexpr double kDxRoundTripRel = 1e-8;
/// MRC mode 2 stores float32: relative rounding 6e-8 per value.
inline constexpr double kMrcRoundTripRel = 1e-7;
/// VMD's map axes from the MRC cell (float32: 7e-8 rad at 70 degrees) vs the steps, relative:
/// z3 = sqrt(1 - z1^2 - z2^2) amplifies an angle error by 1/z3 (< 2 here): ~3e-7; 1e-6.
inline constexpr double kMrcCellAxesRel = 1e-6;

// ---- PME potential maps ---------------------------------------------------------------
/// CPU PME map vs the plain Ewald potential at random points (error over the RMS of the
/// Ewald reciprocal potential), as a multiple of the measured reciprocal PME force error
/// (RMS |F_PME - F_Ewald| / RMS |F_Ewald|) with the same beta, grid and order. The map
/// interpolates the same grid with the splines themselves instead of their derivatives,
/// so its error is of the same order as the force error; measured 0.20 x (order 4,
/// 0.12 nm: 4.5e-4 vs 2.3e-3) and 0.10 x (order 6, 0.06 nm: 1.9e-7 vs 1.9e-6) on 300
/// random ions at melt density, beta 3.47 /nm.
inline constexpr double kPmeMapVsForceError = 0.5;
/// Same, absolute, at order 6 and 0.06 nm (beta h ~0.2): measured 1.9e-7.
inline constexpr double kPmeMapTightVsEwald = 1e-6;
/// 1/2 sum_i q_i phi(r_i) vs E_total - E_self with the same CpuPme: the same grid
/// contracted in a different order, double rounding over ~300 atoms and ~1e4 grid points.
inline constexpr double kPmeMapEnergyIdentityRel = 1e-10;
/// The same sum vs the plain Ewald energy minus the self energy, over |E_rec|: the PME
/// energy error at order 5, 0.1 nm (measured 3.3e-5).
inline constexpr double kPmeMapEnergyVsEwaldRel = 1e-4;
/// Points related by a symmetry of the cube about a lone charge: the PME grid is not
/// symmetric about an arbitrary charge position only through its aliasing error (order 6,
/// 0.1 nm: measured 1.6e-6).
inline constexpr double kPmeMapSymmetryRel = 1e-5;
/// Mean of the map of a lone charge over a lattice tiling the box, over the map's RMS:
/// the lattice sum of the real-space term differs from its integral by quadrature error
/// (measured 1.9e-4 at 0.1 nm; a missing or mis-signed background term would give 3.3e-2).
inline constexpr double kPmeMapZeroMeanRel = 1e-3;
/// GPU PME map vs the CPU reference, relative RMS over the lattice (the map target). The
/// reciprocal part is double throughout (fixed-point charge grid at 9e-13 e resolution,
/// double cuFFT: ~1e-12); the real-space terms q erfc(beta r)/r are float (coordinates
/// relative to the warp's corner, rounding ~2e-7 nm; rsqrtf and erfcf a few ulp: ~1e-6 per
/// term), summed in double: expected ~1e-6 of the map's RMS. 1e-5 is the accuracy the map
/// promises (the DCS maps' float target, kDcsGpuRelRms).
inline constexpr double kPmeMapGpuRelRms = 1e-5;
/// The GPU map of one state read from a CUDA backend's device arrays vs the same state
/// copied to the host: identical float terms, only each cell's sites summed in another
/// order (slot vs input index) in double: ~1e-16 per point; 1e-12 leaves room.
inline constexpr double kPmeMapSummationOrderRel = 1e-12;
/// pme map minus its real-space part vs the pmepot map with the same beta, grid and order:
/// the same reciprocal grid interpolated alike; the real-space sums of the map and of
/// ewaldPotentialAt differ only in double rounding (~1e-15 of the point's value).
inline constexpr double kPmePotSplitRel = 1e-10;
/// pmepot map (beta 2.5 /nm) vs the direct image sum of q erf(beta d)/d with the background,
/// relative RMS at random points, 80 ions in a 2.5 nm box with 0.5 e net charge: the PME
/// discretisation error of the reciprocal potential at the engine's default order 4 and
/// 0.12 nm (beta h = 0.3; measured 1.3e-4).
inline constexpr double kPmePotDefaultVsGaussianSum = 1e-3;
/// Same at order 6 and 0.06 nm (beta h = 0.15; measured 2.5e-8). Also the GPU map on a
/// lattice at the same settings (its float rounding stays near 1e-12 for pmepot).
inline constexpr double kPmePotTightVsGaussianSum = 1e-6;

// ---- All pairs (open boundaries) and the typed pair force ------------------------------------
/// The typed pair force in float against double, relative to |c1|/r^3 + (c2/r)^c3 (forces)
/// or the sum of the terms' magnitudes (energies), so that the cancellation of an attractive
/// c1 against the repulsion does not count: r^2 is rounded (6e-8 relative), 1/sqrt and
/// c2 * (1/r) add three roundings, so c2/r is good to 1.8e-7, and the power multiplies that
/// by c3 (12 at most here: 2.2e-6 worst case), powf adds an ulp. Measured 7.6e-7: 3e-6.
inline constexpr double kFloatTypedPair = 3e-6;
/// Two-body Kepler orbit (e = 0.5, softening eps = 1e-3 a, 5000 steps per period), period from
/// pericentre passages, relative: the softening weakens the force by 1.5 (eps/r)^2, 6e-6 at
/// pericentre (r = a/2) and 7e-7 at apocentre; the softened start changes a by 3e-7 (T by
/// 4.4e-7); velocity Verlet's phase error is (omega dt)^2 / 12 with omega at pericentre
/// 4.2 /ps and dt = 1.03e-3 ps, 1.6e-6. Together below 8e-6 (measured 1.4e-6); 2e-5. A wrong
/// mass, G or reduced-mass handling is off by O(1).
inline constexpr double kKeplerPeriod = 2e-5;
/// The orbit's initial energy against -G m1 m2 / (2a), relative: the softened potential at
/// apocentre r_a = 1.5 a differs from G m1 m2 / r_a by eps^2 / (2 r_a^2) of itself, 3.0e-7 of
/// the orbit's energy (measured 2.96e-7); 1e-6 (float pair energies on the GPU add ~1e-7).
inline constexpr double kKeplerInitialEnergy = 1e-6;
/// Largest |E(t) - E0| over the orbit as a multiple of velocity Verlet's estimate: the shadow
/// Hamiltonian H + dt^2 (p.V''.p / 12 m^2 - |V'|^2 / 24 m) per reduced mass at pericentre,
/// where both terms are largest (1.5e-5 of |E| here). |E(t) - E0| is the swing of that
/// correction between apocentre and pericentre, less than the estimate itself (measured 0.29
/// of it); a kick of the wrong size or a force that is not the gradient of the energy grows
/// without bound instead.
inline constexpr double kKeplerEnergyOverVerletEstimate = 1.0;
/// The centre of mass after 2.5 orbits, nm: it starts at rest and pair forces cancel exactly
/// (also as fixed point on the GPU), so only the rounding of double positions of ~7 nm
/// (1e-15 nm per step, 12500 steps) moves it; 1e-9 nm. A wrapped position moves it by a box
/// edge (3 nm).
inline constexpr double kKeplerCentreOfMass = 1e-9;
/// Plummer sphere, 512 bodies, Henon units (G = M = 1, dynamical time 1 ps), softening 0.05,
/// dt 1/128 ps, 4 ps. RMS of (E(t) - E0) / |E0|: velocity Verlet's shadow-energy oscillation,
/// (dt / t_dyn)^2 / 12 = 5e-6; close pairs are resolved (their shortest time
/// sqrt(eps^3 / 2 G m) = 0.18 ps is 23 steps). Measured 2.8e-6; 2e-5.
inline constexpr double kPlummerEnergyError = 2e-5;
/// Least-squares drift of (E(t) - E0) / |E0|, per ps, same run. Softened gravity is smooth (no
/// cutoff), so Verlet has no secular drift: what a straight-line fit finds in an oscillation of
/// RMS A over a window T is at most ~sqrt(12) A / T, 2.4e-6 /ps for A = 2.8e-6, T = 4 ps
/// (measured 1.3e-7 /ps); 1e-5 /ps. A force that is not the energy's gradient drifts.
inline constexpr double kPlummerDriftPerPs = 1e-5;
/// The same sphere at dt = 1/64 and 1/128 ps: RMS energy error ratio, 4 for a second-order
/// scheme. The two runs' trajectories part (N-body chaos, Lyapunov time about a crossing
/// time), so their error histories differ in detail: +-15% (measured 4.22). A first-order
/// scheme gives 2; unresolved close encounters, energy jumps that do not shrink with dt.
inline constexpr double kPlummerScalingMin = 3.4;
inline constexpr double kPlummerScalingMax = 4.6;
/// systems/plummer's .gro: 2 K / -W against 1 (the generator scales the speeds to virial
/// equilibrium in double) and the momentum against sum m |v|. The file keeps 7 decimals of
/// position (5e-8 nm, 1e-7 of a typical 0.5 nm) and 8 of velocity: errors of ~1e-7 per body
/// that average out over 1024 bodies (measured 1.0e-9 and 3.6e-11); 1e-6. A sphere not
/// scaled to equilibrium misses by its sampling noise, ~1e-2.
inline constexpr double kGroVirialRatio = 1e-6;

// ---- GROMACS topologies ----
/// Net charge of a topology read by Faraday against the sum of the charges `gmx dump` prints
/// of grompp's .tpr, e. The .tpr stores each charge in single precision and dump prints 6
/// significant digits; force-field charges have at most 5 decimals and print back exactly,
/// so the sums agree to rounding (~1e-10 over 5e4 atoms). 1e-3: far above that rounding,
/// far below what a reading error gives (an ion missing or twice, a residue charged wrong:
/// 0.1 e and more).
inline constexpr double kGromppNetCharge = 1e-3;
/// A charge or mass against `gmx dump`'s of the .tpr, relative: half the sixth digit it prints.
inline constexpr double kTprDumpRelative = 5e-6;

// ---- Bonded terms ---------------------------------------------------------------------
/// A bonded energy or force against its value worked out by hand (double, a few operations
/// on O(1..1e3) numbers): 1e-12 relative to max(1, |value|).
inline constexpr double kBondedByHand = 1e-12;
/// Central-difference step for F = -dE/dx of the CPU bonded terms, nm. The truncation error
/// h^2/6 |U'''| with |U'''| < 1e8 kJ/mol/nm^3 (stiff bonds of 3e5 kJ/mol/nm^2 at 0.15 nm,
/// LJ-14 repulsion at 0.25 nm, angles over arms of 0.15 nm) is < 2e-5 kJ/mol/nm; rounding
/// 1e-16 |E| / h with |E| < 1e4 kJ/mol is < 1e-6.
inline constexpr double kBondedFiniteDifferenceStep = 1e-6;
/// Allowed |F + dE/dx| / max(1, |F|) on the CPU. Measured at most 8e-8 over every term of
/// the random chains and the dihedrals at 0, 180 deg and on CMAP cell edges (where the
/// patches' second derivatives jump, adding h |jump| / 4); 1e-6 keeps a factor 10, and a
/// wrong factor or sign in any gradient misses by O(1).
inline constexpr double kBondedFiniteDifferenceForce = 1e-6;
/// The same on the GPU, whose energies are fixed point: each warp's sum of one slot is
/// truncated to 2^-24 = 6e-8 kJ/mol, so an energy of the small test systems (<= 4 warps of
/// <= 3 slots) moves by up to 7e-7 kJ/mol between two evaluations; with a step of 1e-4 nm
/// that is 3.6e-3 kJ/mol/nm; the truncation h^2/6 |U'''| at this step, measured with the CPU
/// reference on the same systems, is at most 7e-4 of max(1, |F|) (RB and stiff bonds). 1e-2
/// relative to max(1, |F|) covers both; a wrong gradient misses by O(1).
inline constexpr double kGpuBondedFiniteDifferenceStep = 1e-4;
inline constexpr double kGpuBondedFiniteDifferenceForce = 1e-2;
/// Energy changes under rotation, translation or re-wrapping of an atom, relative to
/// max(1, |E|): only the rounding of positions of a few nm (1e-16 relative) through terms of
/// up to 1e4 kJ/mol: 1e-10.
inline constexpr double kBondedInvariance = 1e-10;
/// Forces after one atom is moved by box vectors (here by up to 120 nm), kJ/mol/nm: its
/// position is then rounded at 1.4e-14 nm, which moves its forces by that times the
/// stiffness (bonds up to 3e5 kJ/mol/nm^2, angles 400 / 0.15^2 = 1.8e4, LJ-14 ~1e5): 1e-8; on
/// the GPU each term's contribution may round to another step of 2^-32 (2.3e-10, ~30 terms
/// per atom: 7e-9). 1e-7.
inline constexpr double kBondedWrappedForce = 1e-7;
/// |sum of forces| of the translation-invariant terms, relative to the sum of |F_a|: double
/// rounding of ~1e3 terms (1e-16 each): 1e-12 (on the GPU the fixed-point steps of 2.3e-10
/// kJ/mol/nm per component and atom add up to ~1e-10 of forces of ~1e2: see kGpuBondedNetForce).
inline constexpr double kBondedNetForce = 1e-12;
/// The same on the GPU: each of N forces is rounded to 2^-32 kJ/mol/nm per component, so the
/// sum is off by at most N 1.2e-10 (200 atoms: 2.3e-8 kJ/mol/nm), against sum |F| >= 1e3.
inline constexpr double kGpuBondedNetForce = 1e-10;
/// The virial against -dE/d(strain) by central differences (strain step 1e-6): truncation
/// 1e-12 |d3E/de3| and rounding 1e-16 |E| / 1e-6, relative to max(1, |W|): 1e-6.
inline constexpr double kBondedStrainStep = 1e-6;
inline constexpr double kBondedVirialStrain = 1e-6;
/// The same on the GPU, whose energies move by up to ~20 fixed-point steps of 6e-8 kJ/mol
/// (one per warp and slot) between evaluations: a strain step of 1e-4 keeps that at
/// 1.2e-6 / 2e-4 = 6e-3 kJ/mol against |W| >= 1e2, and the truncation h^2/6 |d3E/de3| (the
/// chains span < 1 nm: |d3E/de3| < 1e6 kJ/mol) below 2e-3: 1e-4 relative to max(1, |W|).
inline constexpr double kGpuBondedStrainStep = 1e-4;
inline constexpr double kGpuBondedVirialStrain = 1e-4;
/// The virial against sum_a x_a (x) F_a of unwrapped positions (the same products summed per
/// term instead of per atom), relative to max(1, |W|): double rounding of ~1e3 products of
/// up to 1e3 kJ/mol with cancellation to ~1e2: 1e-12; 1e-10.
inline constexpr double kBondedVirialSum = 1e-10;
/// The same on the GPU, absolute (kJ/mol): the downloaded forces are rounded to 2^-32 kJ/mol/nm
/// (times |x| < 5 nm over 72 coordinates: 8e-8) and the device's virial sums to 2^-24 kJ/mol
/// per warp and component (~20 steps: 1.2e-6): 1e-5.
inline constexpr double kGpuBondedVirialSum = 1e-5;
/// GPU (double arithmetic, fixed-point sums) against the CPU reference. Forces, relative RMS:
/// fused multiply-adds and the device's sin/cos/atan2/erf differ by a few ulp (1e-15
/// relative, amplified ~1e2 by the cancellations of the dihedral gradients) and the force
/// rounding to 2^-32 kJ/mol/nm (2.3e-10 against forces of 1e2 - 1e4): 1e-10 is both with a
/// factor 10 to spare.
inline constexpr double kGpuBondedForceRelRms = 1e-10;
/// Energies and virial components: each warp's double sum of a slot is truncated to
/// 2^-24 kJ/mol once, so a slot of n terms is off by at most (n / 32 + 1) of these steps;
/// the allowed difference is that, plus 1e-12 relative for the arithmetic.
inline constexpr double kFixedEnergyStep = 1.0 / 16777216.0;
inline constexpr double kGpuBondedArithmetic = 1e-12;
/// CMAP slopes at the grid points against an independent dense solve of the same spline
/// (Gaussian elimination on the full system): rounding of two solvers of a well-conditioned
/// (condition number < 3) system of 48 unknowns: 1e-12 relative to the grid's largest value.
inline constexpr double kCmapSlopes = 1e-12;
/// A smooth function sampled on a 24 x 24 grid (h = 15 deg) and interpolated: the bicubic
/// patch's error h^4 |f''''| / 384 with |f''''| ~ 2^4 x 4 x 9 (modes up to 2, amplitudes up to 4,
/// 9 of them) ~ 600 is 5e-3 of the energy, and the slopes' h^3 |f''''| / 72 ~ 3e-2 kJ/mol/rad.
/// The spline slopes themselves are fourth-order accurate. Measured 2.3e-3 kJ/mol and
/// 1.7e-2 kJ/mol/rad over 2000 random points; bounds 5e-3 and 4e-2 (a grid read transposed,
/// or slopes in the wrong units, miss by O(1)).
inline constexpr double kCmapInterpolationEnergy = 5e-3;
inline constexpr double kCmapInterpolationSlope = 4e-2;
/// Faraday's bonded terms (CMAP among them) against GROMACS 2022.5 in double precision
/// (gmx_d), relative to max(1, |value|). Both compute in double and GROMACS' energies come
/// with 12 decimals (`gmx energy -dp`), its forces with 15 digits (`gmx traj -fp`): measured
/// agreement 5e-13 kJ/mol and 5e-12 kJ/mol/nm. 1e-10 is far inside the 1e-6 asked of CMAP
/// and still sees a scheme that differs slightly: CMAP slopes from a periodic spline instead
/// of GROMACS' natural spline on the doubled grid move the energy by ~1e-8 relative; a
/// transposed grid or a sign, by O(1).
inline constexpr double kGromacsReference = 1e-10;
/// GROMACS evaluates 1-4 pairs from cubic-spline tables, 2000 points per nm in double
/// precision (reference manual, "Tabulated interaction functions"): its pair energies and
/// forces are off by up to |V4| h^4 / 384 and |V4| h^3 / (72 sqrt 3) (V4 the fourth derivative,
/// h = 1/2000 nm), which the comparison adds to kGromacsReference for LJ-14, Coulomb-14 and
/// the forces on the pairs' atoms (measured: 3e-4 kJ/mol/nm on forces of 1.6e3 and 3e-8
/// kJ/mol, within that bound; every other term agrees to 5e-13).
inline constexpr double kGromacsPairTableSpacing = 1.0 / 2000.0;

// ---- Molecules against GROMACS 2022.5 in double precision (tests/data/gromacs) ----
/// Bonded terms and 1-4 pairs, relative: both sides evaluate the same formulas in double;
/// GROMACS takes the 1-4 pairs from cubic-spline tables of 2000 points/nm (error ~1e-7
/// relative) and prints 6 decimals; 1e-6 leaves that margin and catches any wrong parameter.
inline constexpr double kGromacsBondedRel = 1e-6;
/// LJ (SR), Coulomb (SR + recip) and the potential, relative: the same pairs, shifts, PME grid,
/// order and beta; what differs is GROMACS's Coulomb constant (2.6e-9 smaller), the spline
/// moduli's rounding and summation order: far below 1e-5.
inline constexpr double kGromacsNonbondedRel = 1e-5;
/// Per-atom forces, relative RMS over all atoms: the same argument as the energies.
inline constexpr double kGromacsForceRelRms = 1e-5;
/// The virial tensor, Frobenius-relative: W = -2 Xi (GROMACS's Xi = -1/2 sum r (x) F).
inline constexpr double kGromacsVirialRel = 1e-5;
/// The GPU against GROMACS: pair math in float (kFloatPair per pair, summed over ~10^6
/// pairs of both signs) and float PME (kCudaPmeEnergy, kCudaPmeForceRms); bonded terms in
/// double stay at kGromacsBondedRel.
inline constexpr double kGromacsGpuNonbondedRel = 2e-5;
/// The Ewald exclusion correction on the GPU against the CPU's (double), relative to |E|: the
/// tile kernel computes the excluded pairs inside slot groups (a hydrogen and its heavy atom,
/// two hydrogens of one atom) in float, erff and rsqrtf (a few ulp, ~2e-7 relative per pair);
/// their energies have both signs (water: O-H positive, H-H negative, sum |E| ~ 1.6 |sum E|), so 1e-6.
inline constexpr double kGpuExclusionCorrectionRel = 1e-6;
/// GPU forces against GROMACS: the RMS difference over the RMS of the LJ and bonded forces.
/// In an energy-minimised structure the net force on an atom (~5 kJ/mol/nm on a water O) is
/// the small difference of LJ, bond and Coulomb forces of ~2000 kJ/mol/nm, and float pair math
/// rounds relative to those (kFloatPair per pair, growing as the root of the ~100 pairs in
/// the cutoff): ~2e-6 of them, so 1e-5. The net forces' relative RMS is printed beside it.
inline constexpr double kGromacsGpuForceOverTerms = 1e-5;

// ---- Virtual sites --------------------------------------------------------------------
/// Spread forces against central differences (step h, nm) of a ~400 kJ/mol site energy, relative
/// to max(1, |F|): rounding 1e-16 |E| / h ~ 4e-8, truncation h^2 |E'''| / 6 < 1e-8; a wrong spread O(1).
inline constexpr double kVirtualSiteFiniteDifferenceStep = 1e-6;
inline constexpr double kVirtualSiteFiniteDifferenceForce = 1e-6;
/// GPU against CPU, both in double: site positions (nm; fused multiply-adds, 1e-16 of ~5 nm per
/// operation), spread forces (kJ/mol/nm; each of a few contributions rounded to 2^-32 fixed
/// point, 2.3e-10) and the spread virial (kJ/mol; 9 sums of 2^-24 steps over ~20 warps).
inline constexpr double kGpuVirtualSitePositionNm = 1e-12;
inline constexpr double kGpuVirtualSiteForce = 1e-8;
inline constexpr double kGpuVirtualSiteVirial = 1e-5;
/// 20 steps of TIP4P-Ew from one start, GPU against CPU (nm): the float forces' error (~1e-5 of
/// ~1e3 kJ/mol/nm) moves a hydrogen by (n dt)^2 dF / 2m ~ 1e-5 nm; a site force spread wrong
/// (its ~1e3 kJ/mol/nm) moves the atoms by ~1e-2 nm.
inline constexpr double kGpuSiteWaterPositionNm = 1e-4;

// ---- Constraints ----------------------------------------------------------------------
/// SETTLE's lengths (relative), momentum and torque (relative to sum m |delta|): positions near
/// 8 nm are rounded to 1.8e-15 nm, 1.8e-14 of a 0.1 nm bond, and the frame's ~50 operations
/// on O(0.1 nm) values add a few 1e-17 nm each (measured 1.1e-14 and below); 1e-12.
inline constexpr double kSettleExact = 1e-12;
/// SETTLE against SHAKE converged to 1e-14 on the same triangle near the origin, nm: both
/// solve the same equations; SHAKE's last sweep leaves up to 1e-14 of 0.1 nm (1e-15 nm) and
/// the positions round to 6e-17 nm (measured 1.9e-15); 1e-13 nm. A wrong rotation or mass
/// weighting misses by 1e-4 nm or more.
inline constexpr double kSettleAgainstShake = 1e-13;
/// trace W = -2 K_rot of freely rotating rigid bodies, relative to 2 K_rot: the waters are
/// solved exactly, the clusters to 1e-12 (times dt^2 over d^2) and their velocities
/// constrained to 1e-12: the identity holds to about that (a missing factor or sign misses by
/// O(1)); 1e-9.
inline constexpr double kConstraintVirialIdentity = 1e-9;
/// Largest |r - d| / d of the iterative constraints over the tolerance: SHAKE stops when every
/// |r^2 - d^2| <= 2 tol d^2, i.e. |r - d| / d <= tol (1 + tol / 2); the velocity constraint does
/// not move the positions. 1.01.
inline constexpr double kConstraintLengthOverTolerance = 1.01;
/// NVE drift of the molecular liquid of test_constraint_dynamics (668 atoms, LJ shifted at
/// 0.9 nm, dt 2 fs, tolerance 1e-6), kJ/mol/ps per atom. Measured 9.2e-6, the same (4e-6 to
/// 9e-6) at tolerances 1e-4 to 1e-10: what drifts is the LJ force jump at the cutoff, as for
/// argon (kArgonNveDriftPerAtom: the same bound, 1% of GROMACS' default).
inline constexpr double kConstrainedNveDriftPerAtom = 5e-5;
/// Largest standard error (K) of the peptide ensembles' mean kinetic temperature
/// (test_langevin_ensemble). On the GPU (400 ps a case, ~1 K) small enough that the on-step
/// velocities' deficit of BAOAB, kT (1 - (w dt / 2)^2) for a mode of frequency w (10% at 4 fs
/// and ~3% at 2 fs on the peptide with h-bonds), stands out at tol::kStatisticalSigmas; on
/// the CPU (40 ps, ~3 K, what CI's time allows) the 4 fs deficit does.
inline constexpr double kEnsembleTemperatureErrorGpu = 1.5;
inline constexpr double kEnsembleTemperatureErrorCpu = 4.5;
/// Largest standard error (kJ/mol) of the vacuum peptide's mean potential energy at 4 fs over 12
/// runs of 250 ps (test_langevin_ensemble, against OpenMM's): the runs' means scatter by 23 to
/// 52 kJ/mol (errors of 6.7 and 15 measured), as the peptide changes shape; 25 keeps a
/// difference of ~100 kJ/mol (a missing term, a wrong ensemble) beyond the allowed sigmas.
inline constexpr double kPeptidePotentialError = 25.0;
/// Largest relative standard error of the stiff-angle methyl liquid's mean temperature
/// (test_langevin_ensemble, 1,944 degrees of freedom, 40 ps): 0.5%, a quarter of the on-step
/// velocities' deficit there (~7%).
inline constexpr double kEnsembleStiffTemperatureError = 0.005;
/// NVE drift of the vacuum peptide with h-bonds after its first 10 ps (test_langevin_ensemble:
/// 151 atoms, PME at 1 nm, 1.5 amu hydrogens, 1 and 2 fs), kJ/mol/ps per atom: GROMACS' default
/// verlet-buffer-tolerance (5e-3), the drift GROMACS accepts. Measured on the CPU -1.6e-4 at
/// 1 fs and -5.4e-4 at 2 fs over 10-20 ps of the test's run (scaling as dt^2 while the peptide
/// still relaxes), +-3.6e-5 in another run over 10-30 ps; on the GPU -9.5e-5 at 2 fs over its
/// first 100 ps.
inline constexpr double kPeptideNveDriftPerAtom = 5e-3;
/// Mean kinetic temperature over the bath's of the 4 ps stability run of test_constraint_runs
/// (the peptide, h-bonds, 3 amu hydrogens, 4 fs): 4.5 standard errors of a 4 ps mean (22 K a
/// sample, ~8 independent samples: 7.6 K, 2.5%), 0.89 to 1.11. The reported temperature is
/// that of the midpoint velocities (integrators/Langevin.h); the on-step velocities' read
/// 0.897, and a count of degrees of freedom without the 75 constraints 0.75.
inline constexpr double kBaoabKineticTemperatureAt4fsLow = 0.89;
inline constexpr double kBaoabKineticTemperatureAt4fsHigh = 1.11;
/// NVE drift of rigid SPC/E water (884 molecules, PME 1e-5, cutoff 1 nm, dt 2 fs) on the GPU,
/// kJ/mol/ps per atom. On the CPU, equilibrated rigid SPC/E (216 molecules, cutoff 0.8 nm)
/// drifted -8.9e-5 at 2 fs over 4 ps (2.2e-6 at 1 fs, -1.1e-5 at 0.5 fs); without the
/// velocity constraint of the second half it drifted +9.5e-4. The GPU's float pair forces
/// add rounding noise that did not change the NaCl melt's drift (README). 3e-4: three times the
/// CPU's figure, a third of the broken scheme's, 1/16 of GROMACS' default tolerance.
inline constexpr double kRigidWaterNveDriftPerAtom = 3e-4;
/// GPU against CPU after 400 steps of freely rotating molecules at tolerance 1e-12 (nm, nm/ps):
/// both in double, the GPU's fused multiply-adds round differently (1e-16 of positions of
/// ~4 nm per operation); where a length sits at the tolerance one backend may take one more
/// sweep, moving the atoms by up to 2e-13 nm and their velocities by that over dt, which free
/// rotors carry on linearly (400 steps: 4e-11 nm). 1e-9 nm and 1e-7 nm/ps keep a margin; a
/// wrong constraint step misses by 1e-4 nm.
inline constexpr double kGpuConstraintPosition = 1e-9;
inline constexpr double kGpuConstraintVelocity = 1e-7;

// ---- Monte Carlo barostat -------------------------------------------------------------
/// Ideal gas under the barostat: the mean volume against (N + 1) kT / P, in standard errors of
/// the mean estimated from block averages (blocks longer than the volume's correlation time,
/// so the block means are independent): a correct sampler misses by more than 4 standard
/// errors once in ~16,000 runs.
inline constexpr double kBarostatMeanSigmas = 4;
/// The ideal-gas run must resolve the mean to better than this fraction, or the test above
/// tests nothing.
inline constexpr double kBarostatIdealGasResolution = 0.02;
/// Molecules moved whole by a volume move: each intramolecular distance changes only by the
/// rounding of coordinates of ~5 nm in double (1e-15 relative, a few operations).
inline constexpr double kRigidMoleculeDistanceNm = 1e-12;
/// The GPU's scaled positions against the CPU's: the same double arithmetic, fused
/// multiply-adds aside.
inline constexpr double kGpuScaledPositionNm = 1e-12;
/// A large molecule's scaled positions, GPU against CPU: the CPU unwraps by summing the
/// minimum-image differences of consecutive atoms one after another (a rounding each, up to
/// count x 2^-52 x the span: 1000 atoms over ~20 nm, 4.4e-12 nm), the GPU as x_k - L N_k with
/// N_k an exact integer scan (one rounding).
inline constexpr double kGpuScaledLargeMoleculeNm = 1e-11;
/// The energy change of the same volume move on the GPU against the CPU's (kJ/mol): float pair
/// forces and energies summed in fixed point; for 500 LJ atoms the potentials agree to ~1e-5
/// relative of ~-2500 kJ/mol, so dU to ~0.05 kJ/mol.
inline constexpr double kGpuVolumeMoveEnergy = 0.05;
/// SPC/E density at 298 K and 1 bar against the published value (Vega & Abascal 2011): 1%,
/// as the model's density with dispersion correction and PME is quoted to three figures and
/// the run's statistical error (block averages) is ~0.2%.
inline constexpr double kSpceDensityRelative = 0.01;

}  // namespace faraday::tol
