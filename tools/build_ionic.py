#!/usr/bin/env python3
"""Builds ionic systems for Faraday: a .gro file and a sim.cfg next to it.

Structures:
  rocksalt  NaCl crystal, cells^3 conventional cubic cells (8 ions each), a = 0.5640 nm
  cscl      CsCl crystal, cells^3 simple cubic cells (2 ions each), a = 0.4123 nm
  melt      molten NaCl: a rock-salt lattice expanded to the melt density, every ion
            displaced at random by up to --jitter nm (it disorders within a few ps of the
            Langevin run at 1300 K); or --random for ions at random positions

Examples:
  tools/build_ionic.py melt --cells 8 --out systems/nacl_melt            # 4096 ions
  tools/build_ionic.py rocksalt --cells 6 --out systems/nacl_crystal     # 1728 ions
  tools/build_ionic.py cscl --cells 8 --out /tmp/cscl                    # 1024 ions

Force field: Joung & Cheatham, J. Phys. Chem. B 112, 9020 (2008), the SPC/E-compatible set,
converted with sigma = 2^(5/6) R_min/2 and 1 kcal = 4.184 kJ:
  Na+  R_min/2 1.212 A, eps 0.3526418 kcal/mol -> sigma 0.2159538 nm, eps 1.4754532 kJ/mol
  Cl-  R_min/2 2.711 A, eps 0.0127850 kcal/mol -> sigma 0.4830453 nm, eps 0.0534924 kJ/mol
  Cs+  R_min/2 2.021 A, eps 0.0898565 kcal/mol -> sigma 0.3601012 nm, eps 0.3759596 kJ/mol
Melt density: 1.549 g/cm^3 at 1123 K (850 C), falling by about 5.4e-4 g/cm^3 per K (Janz's
molten-salt correlations), i.e. about 1.45 g/cm^3 at 1300 K. The default --density follows
that line for the chosen --temperature; pass --density 1.55 for the near-melting-point value.
Units: nm, ps, K, amu, kJ/mol, e (as Faraday).
"""
import argparse
import os
import random
import sys

from gro import random_points, write_gro

AVOGADRO = 6.02214076e23

# name: (mass amu, charge e, sigma nm, epsilon kJ/mol)
IONS = {
    "NA": (22.98977, 1.0, 0.2159538, 1.4754532),
    "CL": (35.453, -1.0, 0.4830453, 0.0534924),
    "CS": (132.90545, 1.0, 0.3601012, 0.3759596),
}

NACL_LATTICE = 0.5640   # nm, rock-salt NaCl at room temperature
CSCL_LATTICE = 0.4123   # nm, CsCl at room temperature


def melt_density(temperature):
    """NaCl melt density in g/cm^3 at `temperature` K (linear in T through 1.549 at 1123 K)."""
    return 1.549 - 5.4e-4 * (temperature - 1123.0)


def rocksalt_sites(cells, a):
    """(name, x, y, z) of cells^3 rock-salt cells of edge a nm: Na on fcc sites, Cl + a/2 x."""
    fcc = [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)]
    sites = []
    for i in range(cells):
        for j in range(cells):
            for k in range(cells):
                for (bx, by, bz) in fcc:
                    x, y, z = (i + bx + 0.25) * a, (j + by + 0.25) * a, (k + bz + 0.25) * a
                    sites.append(("NA", x, y, z))
                    sites.append(("CL", (x + 0.5 * a) % (cells * a), y, z))
    return sites


def cscl_sites(cells, a):
    sites = []
    for i in range(cells):
        for j in range(cells):
            for k in range(cells):
                sites.append(("CS", (i + 0.25) * a, (j + 0.25) * a, (k + 0.25) * a))
                sites.append(("CL", (i + 0.75) * a, (j + 0.75) * a, (k + 0.75) * a))
    return sites


def random_sites(pairs, box, min_distance, rng):
    """pairs Na + pairs Cl at random positions in a cube of edge box nm, none closer than
    min_distance nm (periodic), alternating Na and Cl."""
    points = random_points(2 * pairs, box, min_distance, rng, max_attempts=500 * pairs)
    if points is None:
        sys.exit("build_ionic: cannot place the ions; lower --min-distance")
    return [("NA" if n % 2 == 0 else "CL", x, y, z) for n, (x, y, z) in enumerate(points)]


def write_sites(path, title, sites, box):
    """sites: (name, x, y, z); each ion is a residue of its own named like the ion."""
    atoms = [(n, name, name) for n, (name, _, _, _) in enumerate(sites, start=1)]
    write_gro(path, title, atoms, [site[1:] for site in sites], box)


def write_config(path, comment, gro, names, temperature, steps, cutoff, seed):
    lines = [f"# {comment}", "# Built by tools/build_ionic.py. Run: faraday run sim.cfg", "",
             "[system]", f"coordinates = {gro}", f"temperature = {temperature:g}", f"velocity_seed = {seed}", ""]
    for name in names:
        m, q, s, e = IONS[name]
        lines += [f"[atom.{name}]", f"mass = {m}", f"charge = {q:g}", f"sigma = {s}", f"epsilon = {e}", ""]
    lines += ["[nonbonded]", f"cutoff = {cutoff:g}", "buffer = 0.1", "dispersion_correction = true", "",
              "[electrostatics]", "method = pme", "ewald_rtol = 1e-5", "fourier_spacing = 0.12", "pme_order = 4", "",
              "[integrator]", "type = langevin", "dt = 0.002", f"temperature = {temperature:g}", "friction = 1.0",
              f"seed = {seed}", "",
              "[run]", f"steps = {steps}", "",
              "[output]", "energy_interval = 100", "trajectory_interval = 500", "checkpoint_interval = 5000", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("structure", choices=["rocksalt", "cscl", "melt"])
    p.add_argument("--cells", type=int, default=8, help="unit cells per edge (default 8)")
    p.add_argument("--lattice", type=float, default=0.0, help="lattice constant, nm (crystals; default experimental)")
    p.add_argument("--temperature", type=float, default=0.0, help="K (default 300 for crystals, 1300 for the melt)")
    p.add_argument("--density", type=float, default=0.0, help="melt density, g/cm^3 (default from --temperature)")
    p.add_argument("--random", action="store_true", help="melt: ions at random positions instead of a lattice")
    p.add_argument("--min-distance", type=float, default=0.24, help="melt --random: closest approach, nm")
    p.add_argument("--jitter", type=float, default=0.02, help="melt: random displacement of each ion, nm")
    p.add_argument("--cutoff", type=float, default=1.0, help="real-space cutoff written to sim.cfg, nm")
    p.add_argument("--steps", type=int, default=5000)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--out", required=True, help="output folder (gets system.gro and sim.cfg)")
    args = p.parse_args()
    rng = random.Random(args.seed)

    if args.structure == "cscl":
        a = args.lattice or CSCL_LATTICE
        temperature = args.temperature or 300.0
        sites, box, names = cscl_sites(args.cells, a), args.cells * a, ["CS", "CL"]
        title = f"CsCl crystal {args.cells}^3 cells a={a} nm, {len(sites)} ions"
    elif args.structure == "rocksalt":
        a = args.lattice or NACL_LATTICE
        temperature = args.temperature or 300.0
        sites, box, names = rocksalt_sites(args.cells, a), args.cells * a, ["NA", "CL"]
        title = f"NaCl rock-salt crystal {args.cells}^3 cells a={a} nm, {len(sites)} ions"
    else:
        temperature = args.temperature or 1300.0
        density = args.density or melt_density(temperature)
        pairs = 4 * args.cells ** 3
        pair_mass = (IONS["NA"][0] + IONS["CL"][0]) / AVOGADRO  # g
        box = (pairs * pair_mass / (density * 1e-21)) ** (1.0 / 3.0)  # nm (1 nm^3 = 1e-21 cm^3)
        names = ["NA", "CL"]
        if args.random:
            sites = random_sites(pairs, box, args.min_distance, rng)
        else:
            a = box / args.cells
            sites = [(n, (x + rng.uniform(-args.jitter, args.jitter)) % box,
                      (y + rng.uniform(-args.jitter, args.jitter)) % box,
                      (z + rng.uniform(-args.jitter, args.jitter)) % box)
                     for (n, x, y, z) in rocksalt_sites(args.cells, a)]
        title = f"NaCl melt {len(sites)} ions {density:.4f} g/cm^3 T={temperature:g} K"
    if not 2 * (args.cutoff + 0.1) <= box:
        sys.exit(f"build_ionic: box {box:.3f} nm too small for cutoff {args.cutoff} nm + buffer 0.1 nm; add cells")

    os.makedirs(args.out, exist_ok=True)
    write_sites(os.path.join(args.out, "system.gro"), title, sites, box)
    write_config(os.path.join(args.out, "sim.cfg"), title, "system.gro", names, temperature, args.steps, args.cutoff,
                 args.seed)
    print(f"build_ionic: {title}, box {box:.4f} nm -> {args.out}")


if __name__ == "__main__":
    main()
