#!/usr/bin/env python3
"""Builds rectangular boxes of liquid water of about N atoms for benchmarks: conf.gro, a
self-contained topol.top (SPC/E, TIP3P or TIP4P-Ew; rigid by SETTLE, flexible with define =
-DFLEXIBLE) and a Faraday sim.cfg (--dt, --defines or --rigid, --hydrogen-mass, --pressure for
a barostat).

The box is made of nx x ny x nz copies of an equilibrated periodic box of 510 SPC/E waters
(tools/data/spce_water_template.gro: 300 K, 1 bar), so no two molecules overlap across the copies;
the copies repeat exactly, which the first picoseconds of dynamics undo. The hydrogens are put
at the model's geometry (O-H length and H-O-H angle) in each molecule's own plane, about its
own bisector; TIP4P-Ew's charge site M on that bisector (a virtual site, [ virtual_sites3 ], as
GROMACS's tip4pew.itp builds it). Pure Python and numpy, no GROMACS: a million atoms take
seconds; the same arguments give the same files.

Examples:
  tools/build_water.py --atoms 25000 --out /tmp/water25k              # 2 x 2 x 4 copies, 24,576 atoms
  tools/build_water.py --atoms 1000000 --model tip3p --out /tmp/water1m
  tools/build_water.py --copies 4 4 4 --out /tmp/water64                # 98,304 atoms
  tools/build_water.py --atoms 25000 --rigid --dt 0.002 --pressure 1 --out /tmp/npt25k   # rigid, 2 fs, NPT
  tools/build_water.py --atoms 25000 --rigid --dt 0.004 --hydrogen-mass 1.5 --out /tmp/hmr25k
  tools/build_water.py --atoms 25000 --model tip4pew --rigid --dt 0.002 --out /tmp/tip4pew25k  # 24,480 atoms
  tools/build_water.py --atoms 100000 --model tip4pew --rigid --dt 0.002 --out /tmp/tip4pew100k  # 97,920
  tools/build_water.py --equilibrate-template                          # remakes the template (gmx)

Models (parameters as GROMACS's amber99sb-ildn.ff ffnonbonded.itp, spce.itp, tip3p.itp and tip4pew.itp):
  spce   O sigma 0.316557 nm, epsilon 0.650629 kJ/mol, q -0.8476 e; H 0.4238 e, no LJ;
         O-H 0.1 nm, H-O-H 109.47 deg; flexible: k_b 345000 kJ/mol/nm^2, k_theta 383 kJ/mol/rad^2
  tip3p  O sigma 0.315061 nm, epsilon 0.636386 kJ/mol, q -0.834 e; H 0.417 e, no LJ;
         O-H 0.09572 nm, H-O-H 104.52 deg; flexible: k_b 502416, k_theta 628.02
  tip4pew O sigma 0.316435 nm, epsilon 0.680946 kJ/mol, no charge; H 0.52422 e, no LJ; M -1.04844 e,
         0.0125 nm from O on the bisector (Horn et al. 2004), massless; O-H and H-O-H as tip3p
"""
import argparse
import itertools
import math
import os
import shutil
import sys

import numpy as np

from gro import read_gro, write_gro

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = os.path.join(HERE, "data", "spce_water_template.gro")

MODELS = {
    # O mass, H mass (amu), O charge (e), O sigma (nm), O epsilon (kJ/mol), O-H (nm), H-O-H (deg),
    # bond and angle force constants of the flexible variant
    "spce": dict(name="SPC/E", mo=15.9994, mh=1.008, qo=-0.8476, sigma=0.316557, epsilon=0.650629,
                 doh=0.1, angle=109.47, kb=345000.0, ka=383.0),
    "tip3p": dict(name="TIP3P", mo=16.0, mh=1.008, qo=-0.834, sigma=0.315061, epsilon=0.636386,
                  doh=0.09572, angle=104.52, kb=502416.0, ka=628.02),
    # and for a four-site model the charge and distance from O of its site M
    "tip4pew": dict(name="TIP4P-Ew", mo=16.0, mh=1.008, qo=0.0, sigma=0.316435, epsilon=0.680946,
                    doh=0.09572, angle=104.52, kb=502416.0, ka=628.02, qm=-1.04844, dom=0.0125),
}

TOPOLOGY = """; {name} water, {count} molecules (tools/build_water.py). Rigid (SETTLE) by default;
; define = -DFLEXIBLE in the run parameters gives harmonic O-H bonds and an H-O-H angle.

[ defaults ]
; nbfunc  comb-rule  gen-pairs  fudgeLJ  fudgeQQ
  1       2          no         1.0      1.0

[ atomtypes ]
; name    at.num  mass      charge  ptype  sigma (nm)  epsilon (kJ/mol)
  OW_{key:<6s} 8     {mo:<9.4f} 0.0     A      {sigma:.6f}    {epsilon:.6f}
  HW_{key:<6s} 1     {mh:<9.4f} 0.0     A      0.0         0.0
{site_type}
[ moleculetype ]
; name  nrexcl
  SOL   2

[ atoms ]
; nr  type       resnr  residue  atom  cgnr  charge    mass
  1   OW_{key:<6s}  1      SOL      OW    1     {qo:<9.4f} {mo:.4f}
  2   HW_{key:<6s}  1      SOL      HW1   1     {qh:<9s} {mh:.4f}
  3   HW_{key:<6s}  1      SOL      HW2   1     {qh:<9s} {mh:.4f}
{site_atom}
#ifndef FLEXIBLE
[ settles ]
; O  funct  d(O-H) nm  d(H-H) nm
  1  1      {doh:.5f}    {dhh:.5f}
{rigid_exclusions}#else
[ bonds ]
; i  j  funct  length (nm)  k (kJ/mol/nm^2)
  1  2  1      {doh:.5f}      {kb:.1f}
  1  3  1      {doh:.5f}      {kb:.1f}

[ angles ]
; i  j  k  funct  angle (deg)  k (kJ/mol/rad^2)
  2  1  3  1      {angle:.2f}       {ka:.2f}
#endif
{site_block}
[ system ]
{name} water, {count} molecules

[ molecules ]
; name  count
  SOL   {count}
"""

THREE_SITE_EXCLUSIONS = """
[ exclusions ]
  1  2  3
  2  1  3
  3  1  2
"""

# A four-site model's site M: massless (ptype D, as GROMACS's force fields name it), built from
# O, H1, H2 as x_M = x_O + a (x_H1 - x_O) + a (x_H2 - x_O) with a = d(O-M) / (2 d(O-H) cos(HOH/2)),
# and excluded from its molecule's other atoms whether the water is rigid or flexible.
FOUR_SITE = """
[ virtual_sites3 ]
; site  from     funct  a  b
  4     1  2  3  1      {a:.9f}  {a:.9f}

[ exclusions ]
  1  2  3  4
  2  1  3  4
  3  1  2  4
  4  1  2  3
"""


def sites(model):
    """Atom names of a molecule of `model`."""
    return ("OW", "HW1", "HW2", "MW") if "dom" in MODELS[model] else ("OW", "HW1", "HW2")


def topology(model, count):
    m = MODELS[model]
    half = math.radians(m["angle"]) / 2
    dhh = 2 * m["doh"] * math.sin(half)
    if "dom" not in m:
        return TOPOLOGY.format(key=model, count=count, qh=f"{-m['qo'] / 2:.4f}", dhh=dhh, site_type="", site_atom="",
                               rigid_exclusions=THREE_SITE_EXCLUSIONS, site_block="", **m)
    site_type = f"  MW_{model:<6s} 0     0.0000    0.0     D      0.0         0.0\n"
    site_atom = f"  4   MW_{model:<6s}  1      SOL      MW    1     {m['qm']:<9.5f} 0.0000\n"
    site_block = FOUR_SITE.format(a=m["dom"] / (2 * m["doh"] * math.cos(half)))
    return TOPOLOGY.format(key=model, count=count, qh=f"{-(m['qo'] + m['qm']) / 2:.5f}", dhh=dhh, site_type=site_type,
                           site_atom=site_atom, rigid_exclusions="", site_block=site_block, **m)


def template_waters():
    """(O, H1, H2 positions as M x 3 arrays, box edges) of the template, molecules made whole."""
    _, atoms, x, box = read_gro(TEMPLATE)
    x, box = np.array(x), np.array(box)
    if len(atoms) % 3 or any(a[2] != n for a, n in zip(atoms, itertools.cycle(("OW", "HW1", "HW2")))):
        sys.exit(f"build_water: {TEMPLATE} is not a list of OW HW1 HW2 waters")
    o, h1, h2 = x[0::3], x[1::3], x[2::3]
    h1 = o + (h1 - o) - box * np.round((h1 - o) / box)
    h2 = o + (h2 - o) - box * np.round((h2 - o) / box)
    return o, h1, h2, box


def model_geometry(o, h1, h2, model):
    """Hydrogens at the model's O-H length and H-O-H angle, in the plane of (o, h1, h2) and
    symmetric about its bisector, and a four-site model's M on the bisector: [H1, H2(, M)]."""
    m = MODELS[model]
    a, b = h1 - o, h2 - o
    bisector = a / np.linalg.norm(a, axis=1)[:, None] + b / np.linalg.norm(b, axis=1)[:, None]
    bisector /= np.linalg.norm(bisector, axis=1)[:, None]
    across = a - b
    across -= np.sum(across * bisector, axis=1)[:, None] * bisector
    across /= np.linalg.norm(across, axis=1)[:, None]
    half = math.radians(m["angle"]) / 2
    along, side = m["doh"] * math.cos(half), m["doh"] * math.sin(half)
    hydrogens = [o + along * bisector + side * across, o + along * bisector - side * across]
    return hydrogens + ([o + m["dom"] * bisector] if "dom" in m else [])


def choose_copies(atoms, per_copy):
    """(nx, ny, nz) whose atom count is nearest `atoms`, the most cube-like among equals
    (ny and nz at most twice nx)."""
    best = None
    limit = max(1, round((atoms / per_copy) ** (1 / 3))) * 2 + 1
    for nx in range(1, limit + 1):
        for ny in range(nx, 2 * nx + 1):
            for nz in range(ny, 2 * nx + 1):
                key = (abs(nx * ny * nz * per_copy - atoms), nz / nx, (nx, ny, nz))
                if best is None or key < best:
                    best = key
    return best[2]


def build(copies, model):
    """Positions (sites x M x 3: O H1 H2 (M) per molecule) and box of nx x ny x nz template copies."""
    o, h1, h2, box = template_waters()
    molecule = np.stack([o] + model_geometry(o, h1, h2, model), axis=1)  # M x sites x 3
    shifts = np.array(list(itertools.product(*[range(n) for n in copies])), dtype=float) * box
    tiled = molecule[None, :, :, :] + shifts[:, None, None, :]
    return tiled.reshape(-1, 3), box * np.array(copies)


CONFIG = """# {name} water, {atoms} atoms (tools/build_water.py). Run: faraday run sim.cfg
# {water} at {dt_fs:g} fs, Langevin at 300 K, PME{ensemble}.

[system]
coordinates = conf.gro
topology = topol.top
defines = {defines}
temperature = 300
velocity_seed = 2026{system_extra}

[nonbonded]
cutoff = 1
{buffer_note}
buffer = {buffer}
dispersion_correction = true

[electrostatics]
method = pme
ewald_rtol = 1e-5
fourier_spacing = 0.12
pme_order = 4

[integrator]
type = langevin
dt = {dt}
temperature = 300
friction = 1.0
seed = 2026

{barostat}[run]
steps = 1000

[output]
energy_interval = 100
trajectory_interval = 1000
"""


def config_text(model, atoms, defines, dt, hydrogen_mass=0.0, pressure=None, interval=25):
    """sim.cfg: rigid water (SETTLE) unless `defines` has -DFLEXIBLE; hydrogen mass
    repartitioning (system.hydrogen_mass, for solutes: rigid waters keep their masses) when
    `hydrogen_mass` > 0; the Monte Carlo barostat at `pressure` bar every `interval` steps
    when `pressure` is given."""
    flexible = "-DFLEXIBLE" in defines.split()
    water = f"Flexible water ({defines})" if flexible else "Rigid water (SETTLE)"
    system_extra = f"\nhydrogen_mass = {hydrogen_mass:g}" if hydrogen_mass > 0 else ""
    barostat = "" if pressure is None else f"[barostat]\npressure = {pressure:g}\ninterval = {interval}\n\n"
    ensemble = "" if pressure is None else f", Monte Carlo barostat at {pressure:g} bar"
    # The pair-list buffer measured fastest on the H100 (bench md --buffer).
    if flexible:
        buffer, buffer_note = 0.1, "# 0.1 nm: at 1M atoms 2% faster than auto's 0.15 (rebuilds every ~7 steps, not ~11)"
    else:
        buffer, buffer_note = 0.2, ("# 0.2 nm: rigid water's hydrogens turn fast (0.1 nm rebuilds every 4 steps at 2 fs);\n"
                                    "# at 25k-100k atoms and 2-4 fs 3-12% faster than 0.1")
    return CONFIG.format(buffer=buffer, buffer_note=buffer_note, name=MODELS[model]["name"], atoms=atoms, defines=defines, dt=dt, dt_fs=dt * 1000,
                         water=water, system_extra=system_extra, barostat=barostat, ensemble=ensemble)


def write_box(out, copies, model, decimals, dt=0.001, defines="-DFLEXIBLE", hydrogen_mass=0.0, pressure=None,
              interval=25):
    positions, box = build(copies, model)
    names = sites(model)
    count = len(positions) // len(names)
    os.makedirs(out, exist_ok=True)
    atoms = [(n // len(names) + 1, "SOL", names[n % len(names)]) for n in range(len(positions))]
    title = (f"{MODELS[model]['name']} water, {count} molecules, {copies[0]} x {copies[1]} x {copies[2]} "
             f"copies of tools/data/spce_water_template.gro")
    write_gro(os.path.join(out, "conf.gro"), title, atoms, positions.tolist(), box.tolist(), decimals=decimals)
    with open(os.path.join(out, "topol.top"), "w") as f:
        f.write(topology(model, count))
    with open(os.path.join(out, "sim.cfg"), "w") as f:
        f.write(config_text(model, len(positions), defines, dt, hydrogen_mass, pressure, interval))
    print(f"build_water: {len(positions)} atoms ({count} {MODELS[model]['name']} waters), box "
          f"{box[0]:.4f} x {box[1]:.4f} x {box[2]:.4f} nm -> {out}/conf.gro, topol.top, sim.cfg")


def equilibrate_template(edge=2.5, seed=2026):
    """Remakes the template with GROMACS ($GMX, default gmx_d, mdrun -nt 1 -reprod): SPC/E
    water in a cube of `edge` nm from spc216.gro (gmx solvate: 510 molecules; its -maxsol would
    pick the molecules at random), rigid, minimised, then 50 ps at 300 K (v-rescale, 0.1 ps) and
    1 bar (C-rescale, 2 ps, isotropic: the box stays a cube) with 2 fs steps, PME and rc = 1.0 nm
    with the dispersion correction for the density; the last frame."""
    import tempfile
    import gmx_prep
    work = tempfile.mkdtemp(prefix="water_template_")
    with open(os.path.join(work, "topol.top"), "w") as f:
        f.write(topology("spce", 0).replace("  SOL   0\n", ""))
    gmx_prep.gmx(["solvate", "-cs", "spc216.gro", "-box", edge, edge, edge, "-p", "topol.top", "-o", "start.gro"],
                 work)
    molecules = gmx_prep.molecules(os.path.join(work, "topol.top"))[0][1]
    grid = [gmx_prep.nice_grid(edge, 0.12)] * 3
    gmx_prep.minimise(work, "start.gro", "topol.top", grid, "minimised.gro", define="", steps=1000, emtol=1000.0)
    md = [("nsteps", 25000), ("dt", 0.002), ("tcoupl", "v-rescale"), ("tc-grps", "System"), ("tau-t", 0.1),
          ("ref-t", 300), ("pcoupl", "C-rescale"), ("pcoupltype", "isotropic"), ("tau-p", 2.0),
          ("ref-p", 1.0), ("compressibility", 4.5e-5), ("gen-vel", "yes"), ("gen-temp", 300),
          ("gen-seed", seed), ("ld-seed", seed), ("nstenergy", 500), ("nstlog", 5000), ("DispCorr", "EnerPres"),
          ("verlet-buffer-tolerance", 0.005), ("rlist", 1.0)]
    with open(os.path.join(work, "md.mdp"), "w") as f:
        f.write(gmx_prep.mdp_text("md", "", grid, md))
    gmx_prep.gmx(["grompp", "-f", "md.mdp", "-c", "minimised.gro", "-p", "topol.top", "-o", "md.tpr"], work)
    gmx_prep.gmx(["mdrun", "-s", "md.tpr", "-deffnm", "md", "-c", "md.g96", "-nt", 1, "-reprod"], work)
    os.makedirs(os.path.dirname(TEMPLATE), exist_ok=True)
    gmx_prep.g96_to_gro(os.path.join(work, "md.g96"), TEMPLATE, decimals=4,
                        title=f"SPC/E water, {molecules} molecules, 50 ps at 300 K and 1 bar "
                              "(tools/build_water.py --equilibrate-template)")
    shutil.rmtree(work)
    print(f"build_water: wrote {TEMPLATE}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--atoms", type=int, help="about this many atoms")
    p.add_argument("--copies", type=int, nargs=3, metavar=("NX", "NY", "NZ"), help="copies of the template")
    p.add_argument("--model", choices=sorted(MODELS), default="spce")
    p.add_argument("--decimals", type=int, default=3, help="decimals of the .gro coordinates (default 3)")
    p.add_argument("--out", help="output folder (gets conf.gro, topol.top and a Faraday sim.cfg)")
    p.add_argument("--dt", type=float, default=0.001, help="time step of sim.cfg, ps (default 0.001)")
    p.add_argument("--defines", default="-DFLEXIBLE", help="topology defines of sim.cfg (default -DFLEXIBLE)")
    p.add_argument("--rigid", action="store_true", help="rigid water (SETTLE): no -DFLEXIBLE in sim.cfg's defines")
    p.add_argument("--hydrogen-mass", type=float, default=0.0,
                   help="system.hydrogen_mass of sim.cfg, amu (0 = none; rigid waters keep their masses)")
    p.add_argument("--pressure", type=float, help="a [barostat] at this pressure in sim.cfg, bar (default: none, NVT)")
    p.add_argument("--barostat-interval", type=int, default=25, help="steps between volume moves (default 25)")
    p.add_argument("--equilibrate-template", action="store_true",
                   help=f"remake {os.path.relpath(TEMPLATE, os.path.dirname(HERE))} with GROMACS")
    args = p.parse_args()
    if args.equilibrate_template:
        equilibrate_template()
        return
    if not args.out or (args.atoms is None) == (args.copies is None):
        p.error("give --out and one of --atoms or --copies")
    if args.atoms is not None and args.atoms < 1 or args.copies and min(args.copies) < 1:
        p.error("--atoms and --copies must be positive")
    per_copy = len(read_gro(TEMPLATE)[1]) // 3 * len(sites(args.model))
    copies = args.copies or choose_copies(args.atoms, per_copy)
    defines = " ".join(d for d in args.defines.split() if d != "-DFLEXIBLE") if args.rigid else args.defines
    write_box(args.out, copies, args.model, args.decimals, args.dt, defines, args.hydrogen_mass, args.pressure,
              args.barostat_interval)


if __name__ == "__main__":
    main()
