#!/usr/bin/env python3
"""The GROMACS corpus: one peptide under every force field GROMACS 2022.5 ships, in every box
shape and water model a GROMACS user meets, each with its double-precision single point.

The peptide is adenylate kinase (adk_closed.pdb of MDAnalysisTests) residues 30-39, STGDMLRAAV
(charged termini, net charge 0), its hydrogens from pdb2gmx. Each system is solvated (gmx
solvate with the water's own coordinates: spc216.gro, tip4p.gro or tip5p.gro), given NaCl at
0.15 mol/L (gmx genion -neutral -conc 0.15, seed 2026) and minimised (steepest descent, flexible
water but rigid TIP5P, the reference settings); then its single point is computed as tools/gromacs_reference.py
computes the references of tests/data/gromacs (the same functions: gmx_d mdrun -rerun with
GMX_NBNXN_EWALD_ANALYTICAL=1, rlist 1.2 nm above the 1.0 nm cutoffs, energies per term, virial,
the force on every atom). Systems with virtual sites (TIP4P, TIP4P-Ew, TIP5P, OPC) take a 0-step
gmx_d mdrun with continuation = no instead: GROMACS 2022.5 builds the sites from their atoms
before the forces only at the start of a run that is not a continuation (-rerun, and
continuation = yes, take the sites where the file puts them), and conf.gro gets the sites as built.

The systems (tests/data/gromacs/corpus/<name>/, laid out as tests/data/gromacs/README.md says,
with the topology arrays of grompp in one compressed tpr.npz):
  - the 15 force fields of $GMXDATA/top, each with the water its watermodels.dat recommends
    (TIP3P for AMBER and CHARMM27, SPC for GROMOS, TIP4P for OPLS-AA), in a rectangular box with
    at least 0.8 nm of water around the peptide;
  - AMBER99SB with TIP4P-Ew, which its watermodels.dat recommends as well;
  - the rhombic dodecahedron and the truncated octahedron (gmx editconf -bt dodecahedron,
    -bt octahedron, -d 0.8: box vectors in GROMACS' reduced form), two force fields each, and the
    dodecahedron with TIP4P-Ew;
  - AMBER99SB-ILDN with TIP4P-Ew, TIP5P and OPC (opc.itp written here from Izadi, Anandakrishnan
    and Onufriev 2014, J. Phys. Chem. Lett. 5, 3863: the corpus's own copy).

Usage:
  tools/gromacs_corpus.py                                   # prepare and compute all (an hour)
  tools/gromacs_corpus.py --stage reference                 # recompute from the committed inputs
  tools/gromacs_corpus.py --systems amber03_tip3p --keep /tmp/corpus
  tools/gromacs_corpus.py --list                            # the systems and what they hold
  tools/gromacs_corpus.py --readme                          # the data folder's README.md
  tools/check_gromacs_reference.py --data tests/data/gromacs/corpus [--direct]
Needs gmx_d (apt-get install gromacs) and, for `prepare`, MDAnalysisTests (pip).
"""
import argparse
import functools
import json
import math
import os
import re

import gmx_prep
import gromacs_reference
from gmx_prep import fail

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(os.path.dirname(HERE), "tests", "data", "gromacs", "corpus")
PEPTIDE = (30, 39)    # adenylate kinase residues STGDMLRAAV
PADDING = 0.8         # nm of water between the peptide and the box
SMALLEST_EDGE = 2.6   # nm: rlist (1.2 nm) below half of every box vector, with room
CONCENTRATION = 0.15  # mol/L NaCl

# The force fields GROMACS 2022.5 ships and the waters each one's watermodels.dat recommends,
# the first of them pdb2gmx's first choice (check_shipped() compares with $GMXDATA/top).
RECOMMENDED = {
    "amber03": ["tip3p"], "amber94": ["tip3p"], "amber96": ["tip3p"], "amber99": ["tip3p"],
    "amber99sb": ["tip3p", "tip4pew"], "amber99sb-ildn": ["tip3p"], "amberGS": ["tip3p"], "charmm27": ["tip3p"],
    "gromos43a1": ["spc"], "gromos43a2": ["spc"], "gromos45a3": ["spc"], "gromos53a5": ["spc"], "gromos53a6": ["spc"],
    "gromos54a7": ["spc"], "oplsaa": ["tip4p"],
}
WATERS = {  # name, the coordinates gmx solvate fills the box from, whether it has virtual sites
    "spc": ("SPC", "spc216.gro", False), "tip3p": ("TIP3P", "spc216.gro", False),
    "tip4p": ("TIP4P", "tip4p.gro", True), "tip4pew": ("TIP4P-Ew", "tip4p.gro", True),
    "tip5p": ("TIP5P", "tip5p.gro", True), "opc": ("OPC", "tip4p.gro", True),
}
SHAPES = {
    "rectangular": f"a rectangular box with at least {PADDING} nm of water around the peptide",
    "dodecahedron": f"a rhombic dodecahedron (gmx editconf -bt dodecahedron -d {PADDING}: a along x, b along y, "
                    "c = (a/2, a/2, a/sqrt 2))",
    "octahedron": f"a truncated octahedron (gmx editconf -bt octahedron -d {PADDING}: a along x, b in the xy "
                  "plane, every angle 70.53 or 109.47 degrees)",
}
# (force field, water, box shape) of every system beyond the 15 with the first recommended water.
VARIANTS = [
    ("amber99sb", "tip4pew", "rectangular"),
    ("amber99sb-ildn", "tip3p", "dodecahedron"), ("charmm27", "tip3p", "dodecahedron"),
    ("amber99sb-ildn", "tip4pew", "dodecahedron"),
    ("amber99sb-ildn", "tip3p", "octahedron"), ("oplsaa", "tip3p", "octahedron"),
    ("amber99sb-ildn", "tip4pew", "rectangular"), ("amber99sb-ildn", "tip5p", "rectangular"),
    ("amber99sb-ildn", "opc", "rectangular"),
]

# OPC (Izadi, Anandakrishnan and Onufriev 2014, Table 1): geometry, charges, oxygen LJ.
OPC = {"doh": 0.08724, "angle": 103.6, "qh": 0.6791, "qm": -1.3582, "dom": 0.01594, "sigma": 0.316655,
       "epsilon": 0.89036}

OPC_ITP = """; OPC water: Izadi, Anandakrishnan and Onufriev, J. Phys. Chem. Lett. 5, 3863 (2014), Table 1.
; Four sites: O-H {doh} nm, H-O-H {angle} deg, q_H {qh} e, the charge q_M {qm} e on a virtual site
; {dom} nm from O along the bisector, LJ on O only (sigma {sigma} nm, epsilon {epsilon} kJ/mol).
; Written by tools/gromacs_corpus.py from these numbers (the corpus's copy of the model).
; Include it right after the force field's forcefield.itp: it brings its own [ atomtypes ].
; Rigid (SETTLE) unless -DFLEXIBLE, whose bonds and angle (TIP3P's force constants, as in
; GROMACS's tip4pew.itp) serve minimisation and single points, not dynamics.

[ atomtypes ]
; name   at.num  mass      charge  ptype  sigma (nm)  epsilon (kJ/mol)
OW_opc   8       16.00000  0.0000  A      {sigma}    {epsilon}
HW_opc   1       1.00800   0.0000  A      0.0         0.0
MW_opc   0       0.00000   0.0000  V      0.0         0.0

[ moleculetype ]
; molname  nrexcl
SOL        2

[ atoms ]
; id  at type  res nr  res name  at name  cg nr  charge    mass
  1   OW_opc   1       SOL       OW       1       0         16.00000
  2   HW_opc   1       SOL       HW1      1       {qh}    1.00800
  3   HW_opc   1       SOL       HW2      1       {qh}    1.00800
  4   MW_opc   1       SOL       MW       1      {qm}    0.00000

#ifndef FLEXIBLE
[ settles ]
; i  funct  doh      dhh
1    1      {doh}  {dhh:.8f}
#else
[ bonds ]
; i  j  funct  length   force.c.
1    2  1      {doh}  502416.0
1    3  1      {doh}  502416.0

[ angles ]
; i  j  k  funct  angle  force.c.
2    1  3  1      {angle}  628.02
#endif

[ virtual_sites3 ]
; site  from     funct  a  b: x_M = x_O + a (x_H1 - x_O) + b (x_H2 - x_O),
; a = b = d(O-M) / (2 d(O-H) cos(H-O-H / 2))
4       1  2  3  1      {a:.12f}  {a:.12f}

[ exclusions ]
1  2  3  4
2  1  3  4
3  1  2  4
4  1  2  3

#ifdef POSRES_WATER
[ position_restraints ]
; i  funct  fcx   fcy   fcz
1    1      1000  1000  1000
#endif
"""


def opc_itp():
    half = math.radians(OPC["angle"]) / 2
    return OPC_ITP.format(dhh=2 * OPC["doh"] * math.sin(half), a=OPC["dom"] / (2 * OPC["doh"] * math.cos(half)),
                          **OPC)


def use_opc(work, forcefield):
    """Replaces the TIP4P-Ew water pdb2gmx wrote into topol.top by OPC: opc.itp (with its atom
    types) right after the force field, the water's include and its POSRES_WATER block gone."""
    path = os.path.join(work, "topol.top")
    with open(path) as f:
        text = f.read()
    water = f'#include "{forcefield}.ff/tip4pew.itp"\n'
    block = water in text and re.search(r"#ifdef POSRES_WATER\n.*?#endif\n", text[text.index(water):], re.S)
    if not block:
        fail(f"{path}: no TIP4P-Ew include with its POSRES_WATER block to replace")
    text = text.replace(water, "", 1).replace(block.group(0), "", 1)
    head = f'#include "{forcefield}.ff/forcefield.itp"\n'
    text = text.replace(head, head + '\n; OPC water (its atom types come before any molecule type)\n#include "opc.itp"\n', 1)
    with open(path, "w") as f:
        f.write(text)
    with open(os.path.join(work, "opc.itp"), "w") as f:
        f.write(opc_itp())


def prepare_peptide(work, forcefield, water, shape):
    gmx_prep.write_heavy_atoms(gmx_prep.adk_pdb(), os.path.join(work, "fragment.pdb"), *PEPTIDE)
    gmx_prep.pdb2gmx(work, "fragment.pdb", forcefield, "tip4pew" if water == "opc" else water)
    if water == "opc":
        use_opc(work, forcefield)
    if shape == "rectangular":
        box = [max(edge, SMALLEST_EDGE) for edge in gmx_prep.padded_box(os.path.join(work, "protein.gro"), PADDING)]
    else:
        box = (shape, PADDING)
    gmx_prep.solvate_and_ions(work, "protein.gro", box, None, CONCENTRATION, solvent=WATERS[water][1])
    return "solvated.gro", None


def system_name(forcefield, water, shape):
    return f"{forcefield}_{water}" + ("" if shape == "rectangular" else f"_{shape}")


def corpus():
    """name -> spec (as tools/gromacs_reference.py's SYSTEMS, plus force field, water, shape)."""
    systems = {}
    for forcefield, water, shape in [(ff, w[0], "rectangular") for ff, w in RECOMMENDED.items()] + VARIANTS:
        label, _, sites = WATERS[water]
        recommended = " (recommended by the force field)" if water in RECOMMENDED[forcefield] else ""
        systems[system_name(forcefield, water, shape)] = {
            "forcefield": forcefield, "water": water, "shape": shape, "virtual_sites": sites,
            "define": "-DFLEXIBLE", "tpr_npz": True,
            # grompp's warning that GROMOS was parametrised with a twin-range cutoff (its issue 2884)
            "maxwarn": 1 if forcefield.startswith("gromos") else 0,
            # Flexible TIP5P collapses under steepest descent (a hydrogen, which has no LJ, falls onto
            # another molecule's lone pair: GROMACS's issue 1348), so it is minimised rigid.
            "minimise_define": "" if water == "tip5p" else "-DFLEXIBLE",
            "prepare": functools.partial(prepare_peptide, forcefield=forcefield, water=water, shape=shape),
            "description": f"adenylate kinase (adk_closed.pdb, MDAnalysisTests) residues {PEPTIDE[0]}-{PEPTIDE[1]} "
                           f"STGDMLRAAV with {forcefield} (GROMACS 2022.5's {forcefield}.ff), hydrogens from pdb2gmx, "
                           f"charged termini (net charge 0), in flexible {label} water{recommended} with "
                           f"{CONCENTRATION} M NaCl (gmx genion -neutral -conc), in {SHAPES[shape]}, energy-minimised "
                           "(steepest descent)"}
    return systems


def check_shipped():
    """The force fields and recommended waters above are those of $GMXDATA/top."""
    if not os.path.isdir(gmx_prep.GMX_TOP):
        fail(f"no GROMACS force fields in {gmx_prep.GMX_TOP} (apt-get install gromacs)")
    shipped = sorted(d[:-3] for d in os.listdir(gmx_prep.GMX_TOP) if d.endswith(".ff"))
    if shipped != sorted(RECOMMENDED):
        fail(f"{gmx_prep.GMX_TOP} ships {shipped}, not the {sorted(RECOMMENDED)} this script knows")
    for forcefield, water in RECOMMENDED.items():
        with open(os.path.join(gmx_prep.GMX_TOP, forcefield + ".ff", "watermodels.dat")) as f:
            recommended = [line.split()[0] for line in f if "recommended" in line]
        if recommended != water:
            fail(f"{forcefield}.ff/watermodels.dat recommends {recommended}, not {water}")


README = """# The GROMACS corpus: every force field, box and water model GROMACS 2022.5 ships

One peptide, adenylate kinase residues {first}-{last} (STGDMLRAAV, `adk_closed.pdb` of
MDAnalysisTests, charged termini, net charge 0), prepared with GROMACS 2022.5's own tools
(`gmx pdb2gmx`, `editconf`, `solvate`, `genion`, `grompp`, `gmx_d mdrun`) under each of the 15
force fields it ships, in its recommended water (its `watermodels.dat`), in the two triclinic
boxes of `gmx editconf -bt dodecahedron` and `-bt octahedron`, and in TIP4P, TIP4P-Ew, TIP5P and
OPC water; each solvated, given NaCl at {concentration} mol/L and minimised (steepest descent,
flexible water; TIP5P rigid, as flexible TIP5P collapses; to a largest force below 100 kJ/mol/nm
or 5000 steps, where TIP4P, TIP4P-Ew and TIP5P stop at 570 to 950 kJ/mol/nm). Made by `tools/gromacs_corpus.py`; checked without GROMACS by
`tools/check_gromacs_reference.py --data tests/data/gromacs/corpus [--direct]`; compared with
Faraday by `tests/test_gromacs_corpus.cpp` (`GromacsCorpus*`): every system must load and
agree, on every backend.

| system | atoms | force field | water | box | virtual sites | PME grid |
|---|---:|---|---|---|---:|---|
{rows}

The files of each folder are those of `tests/data/gromacs/README.md` (the settings too: Verlet
lists, rcoulomb = rvdw = 1.0 nm, rlist = 1.2 nm, potential-shift, PME order 4, ewald-rtol
1e-5, no dispersion correction, `define = -DFLEXIBLE`), except:

- `tpr.npz` (numpy, compressed) holds the arrays of grompp's topology that `tpr/*.npy` holds
  there: `charge`, `mass`, `type`, `c6`, `c12`, `excluded_pairs`.
- Triclinic boxes: `conf.gro` has the nine box numbers (a_x b_y c_z a_y a_z b_x b_z c_x c_y),
  `reference.json`'s `box_nm` the vectors a, b, c as rows; the PME grid is sized from the
  vectors' lengths (spacing <= 0.1 nm along each).
- Virtual sites (TIP4P, TIP4P-Ew, TIP5P: particle type D; OPC: V): the single point is a 0-step
  `gmx_d mdrun` with `continuation = no`, not a rerun. GROMACS 2022.5 builds the sites from
  their atoms before the forces only at the start of a run that is not a continuation;
  `-rerun`, and a run with `continuation = yes`, take the sites where the coordinate file puts
  them (tried: moving the sites of a TIP4P box changes those runs' energies, not this one's).
  `conf.gro` holds the sites as that run built them, with 9 decimals (the other atoms keep the
  6-decimal numbers of the minimisation, which GROMACS evaluated exactly); a rerun of the
  positions the run wrote agrees with it to the last digit (`consistency`). `forces.npy` has
  the sites' forces spread onto their atoms and zero on the sites, as mdrun writes them.
- `amber99sb-ildn_opc/opc.itp`: OPC (Izadi, Anandakrishnan and Onufriev 2014, J. Phys. Chem.
  Lett. 5, 3863: O-H 0.08724 nm, H-O-H 103.6 deg, q_H 0.6791 e, q_M -1.3582 e, O-M 0.01594 nm,
  sigma_O 0.316655 nm, epsilon_O 0.89036 kJ/mol), written by the script from these numbers, with
  its own atom types, included right after the force field; its -DFLEXIBLE bonds and angle
  (TIP3P's force constants) serve the minimisation and the single point only.
- GROMOS: grompp warns that the GROMOS force fields were parametrised with a twin-range cutoff
  (`-maxwarn 1`); the warning is kept in `grompp_messages`.

Remaking (about an hour on one core):

    apt-get install gromacs; pip install MDAnalysisTests
    tools/gromacs_corpus.py                       # prepare and compute all
    tools/gromacs_corpus.py --stage reference     # recompute from the files here
    tools/gromacs_corpus.py --readme              # this file, from the reference.json files
"""


def write_readme(systems, out):
    rows = []
    for name, spec in systems.items():
        ref = json.load(open(os.path.join(out, name, "reference.json")))
        box = ref["box_nm"]
        shape = " x ".join(f"{b:.2f}" for b in box) if spec["shape"] == "rectangular" else \
            f"{spec['shape']}, d = {box[0][0]:.3f}"
        sites = ref.get("virtual_sites", {}).get("count", 0)
        rows.append(f"| `{name}` | {ref['atoms']:,} | {spec['forcefield']} | {WATERS[spec['water']][0]} | {shape} | "
                    f"{sites:,} | {' x '.join(map(str, ref['settings']['fourier_grid']))} |")
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write(README.format(first=PEPTIDE[0], last=PEPTIDE[1], concentration=CONCENTRATION, rows="\n".join(rows)))


def describe(systems, out):
    """One line per system: name, atoms, box, what it holds (from reference.json where made)."""
    for name, spec in systems.items():
        path = os.path.join(out, name, "reference.json")
        atoms = json.load(open(path))["atoms"] if os.path.exists(path) else "-"
        print(f"{name:34s} {atoms!s:>6s}  {spec['forcefield']:15s} {WATERS[spec['water']][0]:9s} {spec['shape']}")


def main():
    systems = corpus()
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--systems", nargs="+", choices=list(systems), default=list(systems))
    p.add_argument("--stage", choices=["prepare", "reference", "all"], default="all")
    p.add_argument("--out", default=DEFAULT_OUT, help="data folder (default tests/data/gromacs/corpus)")
    p.add_argument("--keep", help="scratch folder to keep (default: a temporary one, removed)")
    p.add_argument("--list", action="store_true", help="list the systems and stop")
    p.add_argument("--readme", action="store_true", help="write README.md of the data folder and stop")
    args = p.parse_args()
    if args.list:
        describe(systems, args.out)
        return
    if args.readme:
        write_readme(systems, args.out)
        return
    check_shipped()
    gromacs_reference.run_stages(systems, args.systems, args.stage, args.out, args.keep)

if __name__ == "__main__":
    main()
