#!/usr/bin/env python3
"""The speed anchor: OpenMM's CUDA platform on the same systems and parameters as Faraday.

Run it on the GPU machine in the same call as `faraday bench md`, so the ratio is measured
side by side. OpenMM is not installed there: fetch its wheels here and carry them, e.g.
  echo /.whl/ >> .git/info/exclude
  python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
      --implementation cp --platform manylinux_2_34_x86_64 -d .whl openmm==8.6.1 openmm-cuda-13==8.6.1
and on the GPU machine (carry .whl):
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
  python3 ../shared/tools/openmm_anchor.py systems/nacl_melt/system.gro --steps 2000

Systems:
  GRO alone      ions/atoms named NA, CL, CS or AR (parameters below, as in systems/*/sim.cfg):
                 PME when any atom is charged, else LJ with a plain cutoff.
  GRO --top TOP  a GROMACS topology (OpenMM's GromacsTopFile; --include-dir for force fields,
                 --defines for #ifdef branches, --constraints, --rigid-water, --hydrogen-mass).
Options: --pressure (bar) adds OpenMM's MonteCarloBarostat (NPT); --device-index 0,1,... runs OpenMM
on several GPUs (one context per GPU, nonbonded work split, PME on the first); --average-steps N
then samples N more steps and prints mean potential energy, kinetic temperature (of the
velocities OpenMM reports, over 3N less constraints less 3 for the centre-of-mass motion remover,
N the particles with mass: virtual sites have none)
and density with standard errors; --friction, --seed set the Langevin integrator's (the seed also
draws the starting velocities). Prints the potential energy at the given coordinates first.
Boxes: the .gro's box vectors as they are (triclinic included; the PME grid from the diagonal).
Parameters as Faraday's defaults: cutoff 1.0 nm, erfc(beta rc) = ewald_rtol (1e-5), PME grid
from 0.12 nm rounded up to a 2,3,5,7-smooth size, order 5 is OpenMM's fixed choice (Faraday 4),
dispersion correction on, Langevin (middle) integrator. Prints, per system: atoms, ns/day,
ms/step (wall time of --steps steps after 200 warm-up steps, energies fetched once at the end).
"""
import argparse, math, tempfile, time

import openmm as mm
from openmm import app, unit

# name: mass (amu), charge (e), sigma (nm), epsilon (kJ/mol)
PARTICLES = {"NA": (22.98977, 1.0, 0.2159538, 1.4754532), "CL": (35.453, -1.0, 0.4830453, 0.0534924),
             "CS": (132.90545, 1.0, 0.3601012, 0.3759596), "AR": (39.948, 0.0, 0.3405, 0.99774)}


def next_fft_size(n):
    m = max(n, 1)
    while True:
        r = m
        for p in (2, 3, 5, 7):
            while r % p == 0:
                r //= p
        if r == 1:
            return m
        m += 1


def ewald_beta(cutoff, rtol):
    lo, hi = 0.0, 100.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if math.erfc(mid * cutoff) > rtol else (lo, mid)
    return 0.5 * (lo + hi)


def set_pme(nb, box_lengths, args):
    grid = [next_fft_size(int(math.ceil(l / args.spacing - 1e-9))) for l in box_lengths]
    nb.setNonbondedMethod(mm.NonbondedForce.PME)
    nb.setPMEParameters(ewald_beta(args.cutoff, args.rtol), *grid)
    return grid


def read_gro(path):
    """OpenMM's GromacsGroFile of `path`; a .gro of another precision (GROMACS writes wider
    columns with more decimals, the spacing of the decimal points says how wide) is rewritten
    in the 3-decimal form OpenMM reads first."""
    try:
        return app.GromacsGroFile(path)
    except Exception:
        lines = open(path).read().splitlines()
        n = int(lines[1])
        first = lines[2]
        dot = first.index(".", 20)
        width = first.index(".", dot + 1) - dot
        out = [lines[0], lines[1]]
        for line in lines[2:2 + n]:
            xyz = [float(line[20 + k * width:20 + (k + 1) * width]) for k in range(3)]
            out.append(line[:20] + "".join(f"{v:8.3f}" for v in xyz))
        out.append(lines[2 + n])
        tmp = tempfile.NamedTemporaryFile("w", suffix=".gro", delete=False)
        tmp.write("\n".join(out) + "\n")
        tmp.close()
        gro = app.GromacsGroFile(tmp.name)
        precise = [mm.Vec3(*(float(line[20 + k * width:20 + (k + 1) * width]) for k in range(3)))
                   for line in lines[2:2 + n]]
        gro._positions[0] = precise * unit.nanometer  # the full precision of the file, not 3 decimals
        return gro


def system_from_gro(gro, args):
    names = [n.strip().upper() for n in gro.atomNames]
    box = gro.getPeriodicBoxVectors()
    system = mm.System()
    system.setDefaultPeriodicBoxVectors(*box)
    nb = mm.NonbondedForce()
    for n in names:
        mass, q, sigma, eps = PARTICLES[n]
        system.addParticle(mass)
        nb.addParticle(q, sigma, eps)
    nb.setCutoffDistance(args.cutoff)
    nb.setUseDispersionCorrection(True)
    grid = None
    if any(PARTICLES[n][1] != 0 for n in names):
        grid = set_pme(nb, [box[i][i].value_in_unit(unit.nanometer) for i in range(3)], args)
    else:
        nb.setNonbondedMethod(mm.NonbondedForce.CutoffPeriodic)
    system.addForce(nb)
    return system, grid


def system_from_top(gro, args):
    box = gro.getPeriodicBoxVectors()
    defines = {d: True for d in args.defines.split(",") if d} if args.defines else None
    top = app.GromacsTopFile(args.top, periodicBoxVectors=box, includeDir=args.include_dir, defines=defines)
    constraints = {"none": None, "h-bonds": app.HBonds, "all-bonds": app.AllBonds}[args.constraints]
    system = top.createSystem(nonbondedMethod=app.PME, nonbondedCutoff=args.cutoff * unit.nanometer,
                              constraints=constraints, rigidWater=args.rigid_water,
                              hydrogenMass=args.hydrogen_mass * unit.amu if args.hydrogen_mass else None)
    grid = None
    for f in system.getForces():
        if isinstance(f, mm.NonbondedForce):
            f.setUseDispersionCorrection(True)
            grid = set_pme(f, [box[i][i].value_in_unit(unit.nanometer) for i in range(3)], args)
    return system, grid


def block_mean(values, blocks=10):
    """Mean and its standard error from `blocks` block means."""
    n = len(values) // blocks
    means = [sum(values[i * n:(i + 1) * n]) / n for i in range(blocks)]
    m = sum(means) / blocks
    return m, math.sqrt(sum((x - m) ** 2 for x in means) / (blocks - 1) / blocks)


def degrees_of_freedom(system):
    """3N less one per constraint, less 3 with a centre-of-mass motion remover; N counts the
    particles with mass (virtual sites have none, and no degrees of freedom)."""
    massive = sum(1 for i in range(system.getNumParticles()) if system.getParticleMass(i).value_in_unit(unit.dalton) > 0)
    dof = 3 * massive - system.getNumConstraints()
    if any(isinstance(f, mm.CMMotionRemover) for f in system.getForces()):
        dof -= 3
    return dof


def print_averages(path, system, context, integrator, args):
    mass = sum(system.getParticleMass(i).value_in_unit(unit.dalton) for i in range(system.getNumParticles()))
    kb = unit.MOLAR_GAS_CONSTANT_R.value_in_unit(unit.kilojoule_per_mole / unit.kelvin)
    dof = degrees_of_freedom(system)
    epot, temp, rho = [], [], []
    for _ in range(max(args.average_steps // args.sample_every, 10)):
        integrator.step(args.sample_every)
        state = context.getState(getEnergy=True)
        epot.append(state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole))
        temp.append(2 * state.getKineticEnergy().value_in_unit(unit.kilojoule_per_mole) / (dof * kb))
        rho.append(mass * 1.66053906660e-3 / state.getPeriodicBoxVolume().value_in_unit(unit.nanometer ** 3))
    (em, es), (tm, ts), (rm, rs) = block_mean(epot), block_mean(temp), block_mean(rho)
    print(f"{path}: averages over {len(epot)} samples every {args.sample_every} steps: "
          f"epot {em:.2f} +- {es:.2f} kJ/mol temperature {tm:.2f} +- {ts:.2f} K over {dof} dof "
          f"density {rm:.4f} +- {rs:.4f} g/mL", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gro", nargs="+")
    ap.add_argument("--top", help="GROMACS topology for every GRO given")
    ap.add_argument("--include-dir", default="/usr/share/gromacs/top")
    ap.add_argument("--constraints", default="none", choices=["none", "h-bonds", "all-bonds"])
    ap.add_argument("--rigid-water", action="store_true")
    ap.add_argument("--hydrogen-mass", type=float, default=0.0, help="amu; 0 = no repartitioning")
    ap.add_argument("--defines", default="", help="topology defines, comma-separated (e.g. FLEXIBLE,POSRES)")
    ap.add_argument("--pressure", type=float, default=0.0, help="bar: MonteCarloBarostat every 25 steps; 0 = NVT")
    ap.add_argument("--device-index", default="", help="CUDA DeviceIndex, e.g. 0,1,2,3 for several GPUs")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--dt", type=float, default=0.002, help="ps")
    ap.add_argument("--temperature", type=float, default=1300.0, help="K")
    ap.add_argument("--cutoff", type=float, default=1.0, help="nm")
    ap.add_argument("--rtol", type=float, default=1e-5, help="erfc(beta cutoff)")
    ap.add_argument("--spacing", type=float, default=0.12, help="largest PME grid spacing, nm")
    ap.add_argument("--precision", default="mixed", choices=["single", "mixed", "double"])
    ap.add_argument("--deterministic", action="store_true", help="OpenMM's DeterministicForces")
    ap.add_argument("--platform", default="CUDA", help="CUDA, or CPU to try the script")
    ap.add_argument("--average-steps", type=int, default=0,
                    help="after the timed steps, this many more sampled every --sample-every steps: prints the "
                         "mean potential energy (kJ/mol) and density (g/mL) with standard errors of 10 block means")
    ap.add_argument("--sample-every", type=int, default=50)
    ap.add_argument("--friction", type=float, default=1.0, help="1/ps, Langevin")
    ap.add_argument("--seed", type=int, default=0, help="Langevin noise seed (0: OpenMM picks one)")
    args = ap.parse_args()
    platform = mm.Platform.getPlatformByName(args.platform)
    props = {"Precision": args.precision, "DeterministicForces": str(args.deterministic).lower()} \
        if args.platform == "CUDA" else {}
    if args.device_index and args.platform == "CUDA":
        props["DeviceIndex"] = args.device_index
    print(f"OpenMM {mm.version.full_version} {args.platform} {props}", flush=True)
    for path in args.gro:
        gro = read_gro(path)
        system, grid = system_from_top(gro, args) if args.top else system_from_gro(gro, args)
        if args.pressure > 0:
            system.addForce(mm.MonteCarloBarostat(args.pressure * unit.bar, args.temperature * unit.kelvin, 25))
        integrator = mm.LangevinMiddleIntegrator(args.temperature * unit.kelvin, args.friction / unit.picosecond,
                                                 args.dt * unit.picoseconds)
        integrator.setRandomNumberSeed(args.seed)
        context = mm.Context(system, integrator, platform, props)
        context.setPositions(gro.getPositions())
        start = context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
        print(f"{path}: potential energy at the given coordinates {start:.4f} kJ/mol", flush=True)
        context.setVelocitiesToTemperature(args.temperature * unit.kelvin, args.seed or 2026)
        integrator.step(200)
        context.getState(getEnergy=True)
        t0 = time.perf_counter()
        integrator.step(args.steps)
        context.getState(getEnergy=True)
        seconds = time.perf_counter() - t0
        grid_text = "x".join(map(str, grid)) if grid else "-"
        print(f"{path}: atoms {system.getNumParticles()} ns/day {args.dt * args.steps / seconds * 86.4:.1f} "
              f"ms/step {1e3 * seconds / args.steps:.4f} pme_grid {grid_text}", flush=True)
        if args.average_steps > 0:
            print_averages(path, system, context, integrator, args)
        del context, integrator


if __name__ == "__main__":
    main()
