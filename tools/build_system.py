#!/usr/bin/env python3
"""Builds Lennard-Jones (argon-like) systems of any size: a .gro file and a Faraday config.

Examples:
  tools/build_system.py --cells 10 --out systems/argon            # fcc 10x10x10 = 4000 atoms
  tools/build_system.py --atoms 20000 --lattice random --out /tmp/ar20k
  tools/build_system.py --atoms 500 --reduced-density 0.8442 --temperature 86.6 --out /tmp/small

Units: nm, ps, K, amu, kJ/mol (as Faraday). Default state point: liquid argon near the
triple point, reduced density rho* = 0.8442 and T* = 0.722 (about 86.6 K, 1.42 g/cm^3).
"""
import argparse
import math
import os
import random
import sys

from gro import random_points, write_gro

SIGMA = 0.3405        # nm, argon LJ sigma
EPSILON = 0.99774     # kJ/mol, argon LJ epsilon
MASS = 39.948         # amu
K_BOLTZMANN = 0.0083144626181532  # kJ/mol/K
AVOGADRO = 6.02214076e23


def fcc_positions(cells, spacing):
    """4 * cells^3 fcc sites of lattice constant `spacing` nm, offset by a quarter cell."""
    basis = [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)]
    return [((i + bx + 0.25) * spacing, (j + by + 0.25) * spacing, (k + bz + 0.25) * spacing)
            for i in range(cells) for j in range(cells) for k in range(cells) for (bx, by, bz) in basis]


def random_positions(n, box, min_distance, rng):
    """n points in a cubic box (nm) no closer than min_distance (periodic)."""
    points = random_points(n, box, min_distance, rng, max_attempts=200 * n)
    if points is None:
        sys.exit(f"build_system: could not place {n} atoms with minimum distance {min_distance} nm; "
                 "lower --min-distance or the density")
    return points


def write_config(path, gro_name, args):
    with open(path, "w") as f:
        f.write(f"""# Liquid argon, {args.n} atoms, rho* = {args.reduced_density:g}, T = {args.temperature:g} K.
# Built by tools/build_system.py. Run: faraday run {os.path.basename(path)}

[system]
coordinates = {gro_name}
temperature = {args.temperature:g}
velocity_seed = {args.seed}

[atom.AR]
mass = {MASS}
charge = 0
sigma = {SIGMA}
epsilon = {EPSILON}

[nonbonded]
cutoff = {args.cutoff:g}
buffer = 0.1
dispersion_correction = true

[electrostatics]
method = none

[integrator]
type = {args.integrator}
dt = {args.dt:g}
temperature = {args.temperature:g}
friction = 1.0
seed = {args.seed}

[run]
steps = {args.steps}

[output]
energy_interval = 100
trajectory_interval = 200
checkpoint_interval = 1000
""")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="output folder (created)")
    p.add_argument("--lattice", choices=["fcc", "random"], default="fcc")
    p.add_argument("--cells", type=int, help="fcc cells per edge (4 * cells^3 atoms)")
    p.add_argument("--atoms", type=int, help="number of atoms (fcc: the first N sites of the smallest lattice that holds them)")
    p.add_argument("--reduced-density", type=float, default=0.8442, help="rho* = N sigma^3 / V")
    p.add_argument("--temperature", type=float, default=0.722 * EPSILON / K_BOLTZMANN, help="K")
    p.add_argument("--min-distance", type=float, default=0.8 * SIGMA, help="nm (random packing)")
    p.add_argument("--cutoff", type=float, default=1.0, help="nm")
    p.add_argument("--dt", type=float, default=0.004, help="ps")
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--integrator", choices=["verlet", "langevin"], default="langevin")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--name", default="argon", help="base name of the .gro and .cfg files")
    args = p.parse_args()

    if args.cells is None and args.atoms is None:
        args.cells = 10
    n = args.atoms if args.atoms is not None else 4 * args.cells ** 3
    if n < 2:
        sys.exit("build_system: need at least 2 atoms")
    volume = n * SIGMA ** 3 / args.reduced_density
    box = volume ** (1.0 / 3.0)
    if args.lattice == "fcc":
        cells = args.cells if args.atoms is None else math.ceil((n / 4) ** (1.0 / 3.0) - 1e-9)
        positions = fcc_positions(cells, box / cells)[:n]
    else:
        positions = random_positions(n, box, args.min_distance, random.Random(args.seed))
    if box <= 2 * (args.cutoff + 0.1):
        sys.exit(f"build_system: box {box:.3f} nm is too small for cutoff {args.cutoff} nm + buffer 0.1 nm; use more atoms")
    args.n = n
    os.makedirs(args.out, exist_ok=True)
    gro = args.name + ".gro"
    density = n * MASS / (AVOGADRO * volume * 1e-21)
    write_gro(os.path.join(args.out, gro), f"Argon {args.lattice} {n} atoms rho*={args.reduced_density:g} "
              f"({density:.4f} g/cm^3)", [(i, "AR", "AR") for i in range(1, n + 1)], positions, box)
    write_config(os.path.join(args.out, args.name + ".cfg"), gro, args)
    print(f"{n} atoms, box {box:.4f} nm, {density:.4f} g/cm^3, T {args.temperature:.2f} K -> {args.out}")


if __name__ == "__main__":
    main()
