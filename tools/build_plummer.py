#!/usr/bin/env python3
"""Builds Plummer spheres for Faraday's all-pairs gravity: a .gro file with velocities and a
sim.cfg next to it.

Examples:
  tools/build_plummer.py --bodies 1024 --out systems/plummer
  tools/build_plummer.py --bodies 512 --collision --out systems/collision   # two spheres of 512

Units: Henon's N-body units written in Faraday's: G = 1 kJ/mol nm/amu^2, total mass M = 1 amu
(each body M/N), virial radius 1 nm, so that 1 kJ/mol = 1 amu nm^2/ps^2, the total energy of
one sphere is -1/4 kJ/mol and its crossing time 2 sqrt(2) ps.

Sampling: Aarseth, Henon & Wielen, Astron. Astrophys. 37, 183 (1974). A body's radius comes
from the cumulative mass m(r) = r^3 (1 + r^2)^(-3/2) (scale radius 1; radii beyond 10 are
drawn again), its speed q v_esc with v_esc = sqrt(2) (1 + r^2)^(-1/4) and q drawn by
rejection from q^2 (1 - q^2)^(7/2); directions are isotropic. Positions are scaled by 3 pi/16
and speeds by its inverse square root (scale radius 1 -> virial radius 1), the centre of mass
is put at rest at the origin, and the speeds are scaled so that the sphere is in virial
equilibrium with the softened gravity it will feel: 2 K = -W, W = sum over pairs r_ij . F_ij
(for eps = 0, W is the potential energy).

--collision: two such spheres (each --bodies, each of mass M) at distance --separation along
x and --impact-parameter along y, approaching each other at the relative speed of a
parabolic encounter of two point masses, sqrt(2 G (2M) / separation), unless --speed says
otherwise; the pair's centre of mass is at rest at the origin.

Deterministic: the same --seed gives the same file (Python's Mersenne Twister).
"""
import argparse
import math
import os
import random
import sys

import numpy as np

from gro import write_gro


def plummer(n, rng):
    """n positions and velocities (lists of 3-tuples) of a Plummer sphere, scale radius 1."""
    pos, vel = [], []
    for _ in range(n):
        while True:
            r = 1.0 / math.sqrt(rng.random() ** (-2.0 / 3.0) - 1.0)
            if r < 10.0:
                break
        while True:
            q, y = rng.random(), 0.1 * rng.random()
            if y <= q * q * (1.0 - q * q) ** 3.5:
                break
        escape = math.sqrt(2.0) * (1.0 + r * r) ** -0.25
        pos.append(isotropic(rng, r))
        vel.append(isotropic(rng, q * escape))
    return np.array(pos), np.array(vel)


def isotropic(rng, length):
    z = 2.0 * rng.random() - 1.0
    phi = 2.0 * math.pi * rng.random()
    s = math.sqrt(1.0 - z * z)
    return (length * s * math.cos(phi), length * s * math.sin(phi), length * z)


def softened_virial(pos, mass, g, softening):
    """W = sum over pairs r_ij . F_ij = -sum G m_i m_j r^2 / (r^2 + eps^2)^(3/2), kJ/mol."""
    w = 0.0
    for i in range(len(pos) - 1):
        d = pos[i + 1:] - pos[i]
        r2 = np.einsum("ij,ij->i", d, d)
        w -= g * mass * mass * np.sum(r2 / (r2 + softening * softening) ** 1.5)
    return w


def sphere(n, total_mass, g, softening, rng):
    """One sphere in virial equilibrium under softened gravity, centre of mass at rest at 0."""
    pos, vel = plummer(n, rng)
    length = 3.0 * math.pi / 16.0
    pos *= length
    vel /= math.sqrt(length)
    pos -= pos.mean(axis=0)
    vel -= vel.mean(axis=0)
    # Henon units for G = M = 1; other G, M scale the speeds by sqrt(G M).
    vel *= math.sqrt(g * total_mass)
    mass = total_mass / n
    kinetic = 0.5 * mass * np.sum(vel * vel)
    vel *= math.sqrt(-softened_virial(pos, mass, g, softening) / (2.0 * kinetic))
    return pos, vel


CONFIG = """# {what}
# Built by tools/build_plummer.py {args}. Run: faraday run sim.cfg
# Units: G = 1 kJ/mol nm/amu^2, 1 amu per sphere, virial radius 1 nm (1 kJ/mol = 1 amu nm^2/ps^2):
# one sphere has E = -1/4 kJ/mol and a crossing time of 2 sqrt(2) ps.

[system]
coordinates = {gro}

[atom.STAR]
mass = {mass!r}
charge = 0
sigma = 0
epsilon = 0

[nonbonded]
mode = all-pairs
potential = gravity

[gravity]
g = {g!r}
softening = {softening!r}

[integrator]
type = verlet
dt = {dt!r}

[run]
steps = {steps}

[output]
energy_interval = {energy_interval}
trajectory_interval = {trajectory_interval}
checkpoint_interval = {steps}
"""


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bodies", type=int, default=1024, help="bodies per sphere (default 1024)")
    p.add_argument("--softening", type=float, default=0.02, help="Plummer softening, nm (default 0.02)")
    p.add_argument("--g", type=float, default=1.0, help="gravitational constant, kJ/mol nm/amu^2 (default 1)")
    p.add_argument("--mass", type=float, default=1.0, help="mass of one sphere, amu (default 1)")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--collision", action="store_true", help="two spheres on a collision course")
    p.add_argument("--separation", type=float, default=8.0, help="collision: initial distance, nm (default 8)")
    p.add_argument("--impact-parameter", type=float, default=1.0, help="collision: offset along y, nm (default 1)")
    p.add_argument("--speed", type=float, help="collision: relative speed, nm/ps (default: parabolic)")
    p.add_argument("--dt", type=float, default=0.005, help="time step for sim.cfg, ps (default 0.005)")
    p.add_argument("--time", type=float, default=20.0, help="run length for sim.cfg, ps (default 20)")
    p.add_argument("--out", required=True, help="output folder")
    a = p.parse_args()
    if a.bodies < 2 or a.softening <= 0 or a.g <= 0 or a.mass <= 0 or a.dt <= 0:
        sys.exit("build_plummer: --bodies >= 2, and --softening, --g, --mass, --dt > 0")
    rng = random.Random(a.seed)
    pos, vel = sphere(a.bodies, a.mass, a.g, a.softening, rng)
    residues = [("PLU", 1)] * a.bodies
    what = f"A Plummer sphere of {a.bodies} bodies in virial equilibrium (softening {a.softening} nm)"
    if a.collision:
        pos2, vel2 = sphere(a.bodies, a.mass, a.g, a.softening, rng)
        speed = a.speed if a.speed is not None else math.sqrt(2.0 * a.g * 2.0 * a.mass / a.separation)
        offset = np.array([0.5 * a.separation, 0.5 * a.impact_parameter, 0.0])
        approach = np.array([0.5 * speed, 0.0, 0.0])
        pos = np.vstack([pos - offset, pos2 + offset])
        vel = np.vstack([vel + approach, vel2 - approach])
        residues = residues + [("PLU", 2)] * a.bodies
        what = (f"Two Plummer spheres of {a.bodies} bodies on a collision course: {a.separation} nm apart, impact "
                f"parameter {a.impact_parameter} nm, relative speed {speed:.6g} nm/ps")
    # The box is only carried along for the outputs (all pairs, open boundaries): a cube
    # holding every body.
    box = 2.0 * float(np.max(np.abs(pos))) + 1.0
    os.makedirs(a.out, exist_ok=True)
    gro = "collision.gro" if a.collision else "plummer.gro"
    atoms = [(number, name, "STAR") for (name, number) in residues]
    write_gro(os.path.join(a.out, gro), what, atoms, pos, box, velocities=vel, decimals=7)
    steps = int(round(a.time / a.dt))
    args = " ".join(sys.argv[1:])
    with open(os.path.join(a.out, "sim.cfg"), "w") as f:
        f.write(CONFIG.format(what=what, args=args, gro=gro, mass=a.mass / a.bodies, g=a.g, softening=a.softening,
                              dt=a.dt, steps=steps, energy_interval=max(1, steps // 200),
                              trajectory_interval=max(1, steps // 100)))
    print(f"{os.path.join(a.out, gro)}: {len(pos)} bodies; {os.path.join(a.out, 'sim.cfg')}: {steps} steps of {a.dt} ps")


if __name__ == "__main__":
    main()
