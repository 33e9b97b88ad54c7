#!/usr/bin/env python3
"""Builds systems/protein, the example and benchmark protein: adenylate kinase (E. coli, closed
form, 214 residues; adk_closed.pdb from MDAnalysisTests) with CHARMM27 in TIP3P water with
Na+ and Cl- at 0.15 mol/L, neutral, in a rectangular box with at least 1.0 nm of water on
every side of the protein, energy-minimised.

Steps (GROMACS, $GMX, default gmx_d, one thread, fixed seeds: the same files every time on one
machine): the heavy atoms of the PDB; pdb2gmx -ff charmm27 -water tip3p -ignh (hydrogens
rebuilt, charged termini, the histidines as the PDB names them, HSD); editconf (centred box);
gmx solvate (spc216.gro); genion -neutral -conc 0.15 (seed 2026, replacing water); steepest
descent with rigid water (SETTLE) and PME (rc 1.0 nm) to a largest force below 1000 kJ/mol/nm.

Writes into --out (default systems/protein): conf.gro, topol.top, posre.itp (restraints on the
heavy atoms with define = -DPOSRES), the charmm27.ff files topol.top includes, and README.md.

Usage: tools/build_protein.py [--out systems/protein] [--keep /tmp/work]
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


def build(out, work):
    adk = os.path.join(work, "adk.pdb")
    gmx_prep.write_heavy_atoms(gmx_prep.adk_pdb("closed"), adk)
    gmx_prep.pdb2gmx(work, "adk.pdb", "charmm27", "tip3p")
    protein_charge = round(pdb2gmx_charge(work))
    box = gmx_prep.padded_box(os.path.join(work, "protein.gro"), PADDING)
    grid = [gmx_prep.nice_grid(edge, 0.12) for edge in box]
    gmx_prep.solvate_and_ions(work, "protein.gro", box, grid, CONCENTRATION)
    energy, force = gmx_prep.minimise(work, "solvated.gro", "topol.top", grid, "minimised.gro", define="",
                                      emtol=EMTOL)
    if os.path.exists(out):
        shutil.rmtree(out)
    gmx_prep.copy_topology(os.path.join(work, "topol.top"), out)
    gmx_prep.g96_to_gro(os.path.join(work, "em.g96"), os.path.join(out, "conf.gro"), decimals=3)
    _, atoms, _, _ = read_gro(os.path.join(out, "conf.gro"))
    molecules = gmx_prep.molecules(os.path.join(out, "topol.top"))
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write(README.format(atoms=f"{len(atoms):,}", molecules=", ".join(f"{n} {c:,}" for n, c in molecules),
                              box=" x ".join(f"{b:.1f}" for b in box), padding=PADDING,
                              protein_charge=protein_charge, concentration=CONCENTRATION, emtol=EMTOL,
                              force=force, energy=energy))
    print(f"build_protein: {len(atoms)} atoms ({', '.join(f'{n} {c}' for n, c in molecules)}), box "
          f"{' x '.join(f'{b:.1f}' for b in box)} nm, largest force {force:.0f} kJ/mol/nm -> {out}")


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
    p.add_argument("--keep", help="work folder to keep (default: a temporary one, removed)")
    args = p.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="build_protein_")
    os.makedirs(work, exist_ok=True)
    try:
        build(args.out, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
