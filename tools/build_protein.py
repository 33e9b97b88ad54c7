#!/usr/bin/env python3
"""Builds systems/protein, the example and benchmark protein: adenylate kinase (E. coli, closed
form, 214 residues; adk_closed.pdb from MDAnalysisTests) with CHARMM27 in TIP3P water with
Na+ and Cl- at 0.15 mol/L, neutral, in a rectangular box with at least 1.0 nm of water on
every side of the protein, energy-minimised; and, from the same structure, systems/
protein_dodecahedron: AMBER99SB-ILDN with TIP4P-Ew water (its charge on a virtual site) in a
rhombic dodecahedron, and the cube it is compared with.

Steps (GROMACS, $GMX, default gmx_d, one thread, fixed seeds: the same files every time on one
machine): the heavy atoms of the PDB; pdb2gmx -ff FORCEFIELD -water WATER -ignh (hydrogens
rebuilt, charged termini, the histidines as the PDB names them: HSD in CHARMM27, HID in AMBER);
editconf (a centred rectangular box, or -bt dodecahedron / cubic -d 1.0); gmx solvate
(spc216.gro, tip4p.gro for four-site water); genion -neutral -conc 0.15 (seed 2026, replacing
water); steepest descent with rigid water (SETTLE; the sites of four-site water are virtual)
and PME (rc 1.0 nm) to a largest force below 1000 kJ/mol/nm.

Writes into --out: conf.gro, topol.top, posre.itp (restraints on the heavy atoms with define =
-DPOSRES), the force-field files topol.top includes, and README.md.

Usage:
  tools/build_protein.py [--out systems/protein] [--keep /tmp/work]
  tools/build_protein.py --forcefield amber99sb-ildn --water tip4pew --box dodecahedron \\
      --out systems/protein_dodecahedron
  tools/build_protein.py --forcefield amber99sb-ildn --water tip4pew --box cubic --out /tmp/protein_cube
Needs gmx_d (apt-get install gromacs) and MDAnalysisTests (pip install MDAnalysisTests).
"""
import argparse
import os
import shutil
import tempfile

import gmx_prep
from gro import read_gro

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(os.path.dirname(HERE), "systems", "protein")
PADDING = 1.0         # nm of water on every side of the protein
CONCENTRATION = 0.15  # mol/L NaCl
EMTOL = 1000.0        # kJ/mol/nm, largest force after minimisation
FORCE_FIELDS = {"charmm27": "CHARMM27", "amber99sb-ildn": "AMBER99SB-ILDN"}
WATERS = {"tip3p": ("TIP3P", "spc216.gro"), "tip4pew": ("TIP4P-Ew", "tip4p.gro")}  # name, solvate's coordinates
SHAPES = ("rectangular", "dodecahedron", "cubic")

README = """# Adenylate kinase in water (CHARMM27, TIP3P, 0.15 M NaCl)

E. coli adenylate kinase in its closed form (214 residues; `adk_closed.pdb` of the
MDAnalysis test data, package MDAnalysisTests) with the CHARMM27 force field (CMAP,
Urey-Bradley) in TIP3P water with Na+ and Cl- at 0.15 mol/L, neutral, energy-minimised: the
example protein of the README and the protein of the benchmarks.

| | |
|---|---|
| atoms | {atoms} |
| molecules | {molecules} |
| box | {box} nm (rectangular, at least {padding} nm of water around the protein) |
| net charge | 0 (protein {protein_charge:+d} e) |

Files: `conf.gro` (coordinates, nm), `topol.top` (the topology; it includes the files of
`charmm27.ff/` beside it, copied from GROMACS 2022.5, only those it uses), `posre.itp`
(position restraints of 1000 kJ/mol/nm^2 on the heavy atoms, used with `define = -DPOSRES`).
Water is rigid (SETTLE) unless `define = -DFLEXIBLE`.

Made by `tools/build_protein.py` with GROMACS 2022.5: the heavy atoms of the PDB, `pdb2gmx
-ff charmm27 -water tip3p -ignh` (hydrogens rebuilt, charged termini, histidines HSD as the
PDB names them), a centred rectangular box, `gmx solvate` with spc216.gro, `gmx genion
-neutral -conc {concentration}` (seed 2026), then steepest descent with rigid water and PME
(cutoff 1.0 nm) to a largest force below {emtol:g} kJ/mol/nm (reached {force:.0f} kJ/mol/nm,
potential energy {energy:.6g} kJ/mol). The same command gives the same files with the same
GROMACS build:

    tools/build_protein.py --out systems/protein
"""

SHAPE_README = """# Adenylate kinase in a rhombic dodecahedron ({forcefield}, {water}, 0.15 M NaCl)

The protein of `systems/protein` (E. coli adenylate kinase, closed form, 214 residues;
`adk_closed.pdb` of MDAnalysisTests) from the same structure, with the {forcefield} force
field in {water} water (rigid; four sites, the negative charge on a massless virtual site M
built from O and the two H, as GROMACS's `{water_key}.itp` says) with Na+ and Cl- at
{concentration} mol/L, neutral, in a rhombic dodecahedron with at least {padding} nm of water
around the protein, energy-minimised. The dodecahedron is the box `gmx editconf -bt
dodecahedron` makes and the GROMACS tutorials use for proteins: every periodic image is as far
away as in the cube of the same image distance, in {volume_ratio:.0%} of its volume.

| | |
|---|---|
| atoms | {atoms} |
| molecules | {molecules} |
| box | rhombic dodecahedron, image distance d = {d:.4f} nm: a = (d, 0, 0), b = (0, d, 0), c = (d/2, d/2, d/sqrt 2) (`conf.gro`'s nine box numbers), volume {volume:.1f} nm^3 |
| net charge | 0 (protein {protein_charge:+d} e) |
| the cube | the same protein, water, ions and padding in a cube (`gmx editconf -bt cubic -d {padding}`, edge {cube_edge:.4f} nm): {cube_atoms} atoms; the dodecahedron has {atom_ratio:.3f} of them, the cube {inverse_ratio:.3f} times as many |

Files: `conf.gro` (coordinates, nm, 3 decimals), `topol.top` (it includes the files of
`{forcefield_key}.ff/` beside it, copied from GROMACS 2022.5, only those it uses), `posre.itp`
(restraints of 1000 kJ/mol/nm^2 on the heavy atoms, `define = -DPOSRES`), `sim.cfg` (NVT:
Langevin at 300 K, 4 fs with the bonds to hydrogen constrained and hydrogens of 3 amu, as
`systems/protein/npt.cfg`), `npt.cfg` (the same at 1 bar with the Monte Carlo barostat).
Loading it takes triclinic boxes in .gro files and virtual sites (particle type D,
`[ virtual_sites3 ]`); `tests/data/gromacs/corpus` has the same force field, water and box
shape on a peptide against GROMACS's single points.

Made by `tools/build_protein.py` with GROMACS 2022.5: the heavy atoms of the PDB (histidines
HSD renamed HID, the same protonation in AMBER's names), `pdb2gmx -ff {forcefield_key} -water
{water_key} -ignh` (hydrogens rebuilt, charged termini), `gmx editconf -bt dodecahedron -d
{padding} -c`, `gmx solvate` with tip4p.gro, `gmx genion -neutral -conc {concentration}` (seed
2026), then steepest descent with rigid water and PME (cutoff 1.0 nm) to a largest force below
{emtol:g} kJ/mol/nm (reached {force:.0f} kJ/mol/nm, potential energy {energy:.6g} kJ/mol). The
cube comes from the same steps with `--box cubic`. The same commands give the same files with
the same GROMACS build:

    tools/build_protein.py --forcefield {forcefield_key} --water {water_key} --box dodecahedron --out systems/protein_dodecahedron
    tools/build_protein.py --forcefield {forcefield_key} --water {water_key} --box cubic --out /tmp/protein_cube
"""


def solvated(work, forcefield, water, shape):
    """The protein with hydrogens, solvated and with ions in `shape` (solvated.gro and topol.top
    in work). Returns the protein's charge and the PME grid (spacing <= 0.12 nm)."""
    os.makedirs(work, exist_ok=True)
    adk = os.path.join(work, "adk.pdb")
    gmx_prep.write_heavy_atoms(gmx_prep.adk_pdb("closed"), adk)
    if forcefield != "charmm27":  # the PDB's CHARMM name for the N-delta protonated histidine
        with open(adk) as f:
            text = f.read()
        with open(adk, "w") as f:
            f.write(text.replace(" HSD ", " HID "))
    gmx_prep.pdb2gmx(work, "adk.pdb", forcefield, water)
    protein_charge = round(pdb2gmx_charge(work))
    if shape == "rectangular":
        box = gmx_prep.padded_box(os.path.join(work, "protein.gro"), PADDING)
        grid = [gmx_prep.nice_grid(edge, 0.12) for edge in box]
    else:
        box, grid = (shape, PADDING), None
    gmx_prep.solvate_and_ions(work, "protein.gro", box, grid, CONCENTRATION, solvent=WATERS[water][1])
    vectors = read_gro(os.path.join(work, "solvated.gro"), vectors=True)[3]
    return protein_charge, gmx_prep.grid_for_vectors(vectors, 0.12)


def build(out, work, forcefield="charmm27", water="tip3p", shape="rectangular"):
    protein_charge, grid = solvated(work, forcefield, water, shape)
    energy, force = gmx_prep.minimise(work, "solvated.gro", "topol.top", grid, "minimised.gro", define="",
                                      emtol=EMTOL)
    if os.path.exists(out):
        shutil.rmtree(out)
    gmx_prep.copy_topology(os.path.join(work, "topol.top"), out)
    gmx_prep.g96_to_gro(os.path.join(work, "em.g96"), os.path.join(out, "conf.gro"), decimals=3)
    _, atoms, _, vectors = read_gro(os.path.join(out, "conf.gro"), vectors=True)
    molecules = gmx_prep.molecules(os.path.join(out, "topol.top"))
    box = [vectors[k][k] for k in range(3)]
    facts = dict(atoms=f"{len(atoms):,}", molecules=", ".join(f"{n} {c:,}" for n, c in molecules), padding=PADDING,
                 protein_charge=protein_charge, concentration=CONCENTRATION, emtol=EMTOL, force=force, energy=energy)
    if shape == "dodecahedron":
        # The cube of the same image distance, built as far as its atom count.
        solvated(os.path.join(work, "cube"), forcefield, water, "cubic")
        _, cube_atoms, _, cube = read_gro(os.path.join(work, "cube", "solvated.gro"))
        d = vectors[0][0]
        volume = vectors[0][0] * vectors[1][1] * vectors[2][2]
        text = SHAPE_README.format(forcefield=FORCE_FIELDS[forcefield], forcefield_key=forcefield,
                                   water=WATERS[water][0], water_key=water, d=d, volume=volume,
                                   volume_ratio=volume / cube[0] ** 3, cube_edge=cube[0],
                                   cube_atoms=f"{len(cube_atoms):,}", atom_ratio=len(atoms) / len(cube_atoms),
                                   inverse_ratio=len(cube_atoms) / len(atoms), **facts)
    elif (forcefield, water, shape) == ("charmm27", "tip3p", "rectangular"):
        text = README.format(box=" x ".join(f"{b:.1f}" for b in box), **facts)
    else:
        text = f"# Adenylate kinase ({FORCE_FIELDS[forcefield]}, {WATERS[water][0]}, {shape} box)\n\n" \
               f"Made by `tools/build_protein.py --forcefield {forcefield} --water {water} --box {shape}`: " \
               f"{len(atoms):,} atoms, box vectors {vectors} nm.\n"
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write(text)
    print(f"build_protein: {len(atoms)} atoms ({', '.join(f'{n} {c}' for n, c in molecules)}), {shape} box "
          f"{' x '.join(f'{b:.4f}' for b in box)} nm, largest force {force:.0f} kJ/mol/nm -> {out}")


def pdb2gmx_charge(work):
    """The protein's total charge, from the last '; qtot' comment of pdb2gmx's [ atoms ]."""
    charge = 0.0
    with open(os.path.join(work, "topol.top")) as f:
        for line in f:
            if "; qtot" in line:
                charge = float(line.split("; qtot")[1].split()[0])
    return charge


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=DEFAULT_OUT, help="output folder (default systems/protein)")
    p.add_argument("--forcefield", choices=sorted(FORCE_FIELDS), default="charmm27")
    p.add_argument("--water", choices=sorted(WATERS), default="tip3p")
    p.add_argument("--box", choices=SHAPES, default="rectangular",
                   help=f"rectangular (at least {PADDING} nm of water around the protein), or gmx editconf -bt "
                        f"dodecahedron / cubic -d {PADDING}")
    p.add_argument("--keep", help="work folder to keep (default: a temporary one, removed)")
    args = p.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="build_protein_")
    os.makedirs(work, exist_ok=True)
    try:
        build(args.out, work, args.forcefield, args.water, args.box)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
