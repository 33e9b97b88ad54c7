#!/usr/bin/env python3
"""NVE energy drift: the least-squares slope of the total energy over time, per atom.

  nve_drift.py faraday ENERGY_CSV --atoms N
      from a Faraday energy log (the column whose name starts with "total" or "Total")
  nve_drift.py openmm GRO --anchor PATH/openmm_anchor.py --dt PS --ps PS [--temperature K]
      runs OpenMM's VerletIntegrator (CUDA, mixed precision) on the system the anchor builds
      from GRO (same parameters as Faraday's defaults), energies every 100 steps

Prints one line: drift in kJ/mol/ps per atom, with the fluctuation (rms about the fit).
"""
import argparse
import csv
import importlib.util
import math
import sys


def fit(times, energies):
    n = len(times)
    mt, me = sum(times) / n, sum(energies) / n
    sxx = sum((t - mt) ** 2 for t in times)
    sxy = sum((t - mt) * (e - me) for t, e in zip(times, energies))
    slope = sxy / sxx
    rms = math.sqrt(sum((e - me - slope * (t - mt)) ** 2 for t, e in zip(times, energies)) / n)
    return slope, rms


def from_faraday(path, atoms):
    with open(path) as f:
        rows = list(csv.reader(f))
    header = [h.strip().strip('"').lower() for h in rows[0]]
    it = next(i for i, h in enumerate(header) if h.startswith("time"))
    ie = next(i for i, h in enumerate(header) if h.startswith("total"))
    data = [(float(r[it]), float(r[ie])) for r in rows[1:] if r]
    return data, atoms


def from_openmm(args):
    spec = importlib.util.spec_from_file_location("anchor", args.anchor)
    anchor = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(anchor)
    mm, app, unit = anchor.mm, anchor.app, anchor.unit
    opts = argparse.Namespace(cutoff=1.0, rtol=1e-5, spacing=0.12)
    gro = app.GromacsGroFile(args.gro)
    system, _ = anchor.system_from_gro(gro, opts)
    integrator = mm.VerletIntegrator(args.dt * unit.picoseconds)
    platform = mm.Platform.getPlatformByName("CUDA")
    context = mm.Context(system, integrator, platform, {"Precision": "mixed"})
    context.setPositions(gro.getPositions())
    context.setVelocitiesToTemperature(args.temperature * unit.kelvin, 2026)
    steps = int(round(args.ps / args.dt))
    data = []
    for k in range(0, steps + 1, 100):
        if k:
            integrator.step(100)
        s = context.getState(getEnergy=True)
        e = (s.getPotentialEnergy() + s.getKineticEnergy()).value_in_unit(unit.kilojoule_per_mole)
        data.append((k * args.dt, e))
    return data, system.getNumParticles()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("engine", choices=["faraday", "openmm"])
    ap.add_argument("input", help="Faraday energy CSV, or a GRO for OpenMM")
    ap.add_argument("--atoms", type=int, default=0)
    ap.add_argument("--anchor")
    ap.add_argument("--dt", type=float, default=0.002)
    ap.add_argument("--ps", type=float, default=100.0)
    ap.add_argument("--temperature", type=float, default=1300.0)
    args = ap.parse_args()
    if args.engine == "faraday":
        if args.atoms <= 0:
            sys.exit("nve_drift.py: --atoms is needed for a Faraday energy log")
        data, atoms = from_faraday(args.input, args.atoms)
    else:
        args.gro = args.input
        data, atoms = from_openmm(args)
    slope, rms = fit([t for t, _ in data], [e for _, e in data])
    span = data[-1][0] - data[0][0]
    print(f"{args.engine} {args.input}: {len(data)} energies over {span:.1f} ps, drift {slope / atoms:.3e} "
          f"kJ/mol/ps per atom, rms about the fit {rms:.3g} kJ/mol", flush=True)


if __name__ == "__main__":
    main()
