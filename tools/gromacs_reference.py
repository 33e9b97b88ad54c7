#!/usr/bin/env python3
"""GROMACS 2022 double-precision reference energies and forces for Faraday's topology tests.

For every system below this script (1) prepares it from inputs that ship with GROMACS or
MDAnalysisTests (stage `prepare`) and (2) computes its single point with gmx_d (stage
`reference`), writing into tests/data/gromacs/<system>/:

  conf.gro        coordinates, 6 decimals; the very coordinates GROMACS evaluated
  topol.top       the topology, with the force-field files it includes copied beside it
  <ff>.ff/...     (only the included files) so it reads without GROMACS installed
  posre.itp       position restraints written by pdb2gmx (used only with -DPOSRES)
  restraint.gro   reference positions of the restraints (grompp -r), where `define` has -DPOSRES
  reference.mdp   the run parameters
  tpr/*.npy       per-atom charge, mass and LJ type, C6/C12 per type pair and the excluded
                  pairs as grompp built them (from gmx dump -s), for checking a topology reader
  reference.json  energy per term (kJ/mol, names as gmx energy prints them), the virial,
                  the settings (cutoffs, beta and how it was found, PME grid and order), what
                  grompp and mdrun said, and the topology's interaction counts
  forces.npy      float64 N x 3, kJ/mol/nm, the total force on every atom

The systems (tools/gmx_prep.py has the shared steps):
  spce_water            884 flexible SPC/E waters (gmx solvate with spc216.gro), 3 nm cube
  peptide_amber_vacuum  adenylate kinase residues 138-147 (NPPKVEGKDD, charged termini, net
                        charge -1) with AMBER99SB-ILDN in vacuum in a periodic 6.0 x 5.5 x 5.0
                        nm box, heavy atoms restrained (-DPOSRES) to the unminimised positions
  protein_charmm_tip3p  adenylate kinase residues 122-151 with CHARMM27 (CMAP, Urey-Bradley)
                        in TIP3P with 0.15 M NaCl, neutral, padding >= 1 nm
  peptide_oplsaa_tip3p  adenylate kinase residues 180-191 (GYYSKEAEAGNT) with OPLS-AA
                        (geometric combination rule, Ryckaert-Bellemans dihedrals) in TIP3P,
                        one Na+ to neutralise
  peptide_gromos54a7_vacuum  the same residues 180-191 with GROMOS 54A7 (united atoms, G96
                        bonds and angles, 1-4 pairs from [ pairtypes ] with combination rule
                        1, gen-pairs no), net charge -1, in vacuum in a periodic 5.0 x 4.5 x
                        4.0 nm box
and the systems with virtual sites:
  tip4pew_water         515 rigid TIP4P-Ew waters (AMBER99SB-ILDN's tip4pew.itp), 2.5 nm cube
  tip4p_oplsaa          515 rigid TIP4P waters (OPLS-AA's tip4p.itp), 2.5 nm cube
  tip5p_oplsaa          rigid TIP5P waters (OPLS-AA's tip5p.itp, two 3out sites), 2.5 nm cube
  opc_water             515 rigid OPC waters (systems/water/opc.itp) with AMBER99SB-ILDN's defaults
  vsite_types           40 copies of a made-up molecule with a site of every construction
                        GROMACS 2022 has (1, 2, 2fd, 3, 3fd, 3fad, 3out, 4fdn, COG, COM, COW and
                        a site built from a site), placed by gmx insert-molecules, 3 nm cube
Each system but vsite_types is energy-minimised (steepest descent, the same non-bonded
settings, flexible water where the water is not a rigid site model) and the minimised
coordinates rounded to 6 decimals are the reference coordinates.

Settings, the same for every system (tools/gmx_prep.py NONBONDED): Verlet lists, rlist 1.2 nm
above rcoulomb = rvdw = 1.0 nm (verlet-buffer-tolerance -1), potential-shift modifiers for LJ
and Coulomb, PME order 4 on an explicit grid of spacing <= 0.1 nm, ewald-rtol 1e-5, no
dispersion correction, no constraints, define = -DFLEXIBLE (water with bonds and an angle).
The single point is `gmx_d mdrun -rerun conf.gro -nt 1 -reprod` with GMX_NBNXN_EWALD_ANALYTICAL=1
(real-space Ewald from erfc, not from tables); a second run, `mdrun` with nsteps = 0, gives the
virial (reruns do not write it) and must agree with the rerun's energies and forces. With
virtual sites GROMACS builds the sites: a 0-step run of conf.gro (continuation = yes) writes
them where their atoms put them, and the reference is a 0-step run from those built positions
(grompp -t), which a rerun of them must repeat. (The run of conf.gro itself is no reference: its
short-range forces take the sites where conf.gro wrote them, rounded, and its PME the built ones.)

Usage:
  tools/gromacs_reference.py                          # all systems, both stages
  tools/gromacs_reference.py --stage reference        # recompute from the committed inputs
  tools/gromacs_reference.py --systems spce_water --keep /tmp/gmxref
Needs gmx_d (apt-get install gromacs) and, for `prepare`, MDAnalysisTests (pip).
tools/check_gromacs_reference.py checks the written files without GROMACS.
"""
import argparse
import json
import math
import os
import re
import shutil
import tempfile

import numpy as np

import gmx_output
import gmx_prep
from gmx_prep import fail, gmx
from gro import read_gro, write_gro

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(os.path.dirname(HERE), "tests", "data", "gromacs")
CUTOFF = 1.0
EWALD_RTOL = 1e-5
ANALYTICAL_EWALD = {"GMX_NBNXN_EWALD_ANALYTICAL": "1"}

# What each energy term holds in GROMACS 2022 with the Verlet scheme and these settings;
# tools/check_gromacs_reference.py --direct recomputes the short-range ones from these formulas.
TERM_NOTES = {
    "Coulomb (SR)": "k_e sum over non-excluded pairs with r < rc of q_i q_j (erfc(beta r)/r - erfc(beta rc)/rc), "
                    "plus -k_e q_i q_j erf(beta r)/r for every excluded pair within rc (no shift), plus the "
                    "self term -k_e beta/sqrt(pi) sum_i q_i^2",
    "Coul. recip.": "the smooth PME reciprocal-space energy on the stated grid and order, plus the neutralising "
                    "background term -k_e pi Q^2 / (2 V beta^2) for a net charge Q",
    "LJ (SR)": "sum over non-excluded pairs with r < rc of C12/r^12 - C6/r^6 - (C12/rc^12 - C6/rc^6)",
    "LJ-14": "[ pairs ] (gen-pairs: fudgeLJ times the normal pair, or [ pairtypes ]) in full, no cutoff, no shift",
    "Coulomb-14": "fudgeQQ k_e q_i q_j / r over [ pairs ], plain Coulomb, no cutoff, no shift",
    "Position Rest.": "sum over restrained atoms and dimensions of 0.5 k_d (x_d - x_ref,d)^2, x_ref from "
                      "restraint.gro, minimum-image difference, refcoord-scaling = no",
    "Potential": "the sum of all the terms",
}

# md.log run parameter -> the value it must have, so that nothing was changed on the way.
EXPECTED = {
    "cutoff-scheme": "Verlet", "verlet-buffer-tolerance": -1, "rlist": 1.2, "coulombtype": "PME",
    "coulomb-modifier": "Potential-shift", "rcoulomb": CUTOFF, "vdw-type": "Cut-off",
    "vdw-modifier": "Potential-shift", "rvdw": CUTOFF, "DispCorr": "No", "pme-order": 4,
    "ewald-rtol": EWALD_RTOL, "ewald-geometry": "3d", "epsilon-surface": 0, "epsilon-r": 1,
    "nstcalcenergy": 1, "constraints": "none",
}


def ewald_beta(rc, rtol):
    """beta (1/nm) with erfc(beta rc) = rtol, by bisection the way GROMACS finds it: doubling
    from 5 until erfc(beta rc) <= rtol, then 60 more halvings of [0, beta] than doublings."""
    beta, doublings = 5.0, 0
    while True:
        doublings += 1
        beta *= 2.0
        if math.erfc(beta * rc) <= rtol:
            break
    low, high = 0.0, beta
    for _ in range(doublings + 60):
        beta = 0.5 * (low + high)
        if math.erfc(beta * rc) > rtol:
            low = beta
        else:
            high = beta
    return beta


def write_vst(work):
    """The made-up molecule VST of vsite_types (vst.itp, its force field and topology) and one
    copy of it (vst.gro, the sites where GROMACS builds them)."""
    with open(os.path.join(work, "topol.top"), "w") as f:
        f.write(VST_TOP + EMPTY_MOLECULES.format(title="Virtual sites of every construction"))
    with open(os.path.join(work, "one.top"), "w") as f:
        f.write(VST_TOP + EMPTY_MOLECULES.format(title="one VST") + "VST 1\n")
    atoms = [(1, "VST", name) for name, _ in VST_ATOMS]
    from gro import write_gro
    write_gro(os.path.join(work, "raw.gro"), "one VST", atoms, [x for _, x in VST_ATOMS], [4.0, 4.0, 4.0],
              decimals=3)
    # The sites of the copy where a 0-step run builds them (insert-molecules copies them as they are).
    built = zero_step_positions(work, "raw.gro", "one.top", [40, 40, 40])
    write_gro(os.path.join(work, "vst.gro"), "one VST", atoms, built, [4.0, 4.0, 4.0], decimals=3)


def zero_step_positions(work, gro, top, grid):
    """The positions after a 0-step md run of gro (virtual sites built, molecules whole as mdrun
    writes its final coordinates), N rows of 3."""
    with open(os.path.join(work, "zero.mdp"), "w") as f:
        f.write(reference_mdp("", grid))
    gmx(["grompp", "-f", "zero.mdp", "-c", gro, "-p", top, "-o", "zero.tpr", "-maxwarn", 1], work)
    gmx(["mdrun", "-s", "zero.tpr", "-deffnm", "zero", "-c", "zero.g96", "-nt", 1, "-reprod"], work)
    gmx_prep.g96_to_gro(os.path.join(work, "zero.g96"), os.path.join(work, "zero.gro"), decimals=9)
    return read_gro(os.path.join(work, "zero.gro"))[2]


def prepare_vsite_types(work):
    write_vst(work)
    box = [3.0, 3.0, 3.0]
    gmx(["insert-molecules", "-ci", "vst.gro", "-nmol", 40, "-box"] + box + ["-seed", 2026, "-radius", 0.2,
                                                                         "-o", "inserted.gro"], work)
    with open(os.path.join(work, "topol.top"), "a") as f:
        f.write("VST 40\n")
    # conf.gro: the inserted atoms (3 decimals) and the sites GROMACS builds from them.
    title, atoms, _, _ = read_gro(os.path.join(work, "inserted.gro"))
    built = zero_step_positions(work, "inserted.gro", "topol.top", grid_for(box))
    from gro import write_gro
    write_gro(os.path.join(work, "conf.gro"), "Virtual sites of every construction (40 VST)", atoms, built, box,
              decimals=6)
    return "conf.gro", box


def prepare_site_water(work, forcefield, water, structure, extra_itp=None):
    """Rigid site water of `water`.itp (from the force field, or `extra_itp` copied beside the
    topology) filled into a 2.5 nm cube by gmx solvate from `structure`."""
    include = f'#include "{forcefield}.ff/{water}.itp"' if extra_itp is None else f'#include "{water}.itp"'
    if extra_itp:
        shutil.copyfile(extra_itp, os.path.join(work, os.path.basename(extra_itp)))
    with open(os.path.join(work, "topol.top"), "w") as f:
        f.write(f"; {water} water with {forcefield}'s defaults, rigid (SETTLE) with virtual sites\n"
                f'#include "{forcefield}.ff/forcefield.itp"\n{include}\n'
                + EMPTY_MOLECULES.format(title=f"{water} water"))
    box = [2.5, 2.5, 2.5]
    gmx(["solvate", "-cs", structure, "-box"] + box + ["-o", "water.gro", "-p", "topol.top"], work)
    return "water.gro", box


def grid_for(box):
    """The reference PME grid (spacing <= 0.1 nm) of a box given by its edges or its vectors."""
    if hasattr(box[0], "__len__"):
        return gmx_prep.grid_for_vectors(box)
    return [gmx_prep.nice_grid(edge) for edge in box]


EMPTY_MOLECULES = "\n[ system ]\n{title}\n\n[ molecules ]\n; name  count\n"


def prepare_spce_water(work):
    with open(os.path.join(work, "topol.top"), "w") as f:
        f.write("; SPC/E water with AMBER99SB-ILDN's defaults; -DFLEXIBLE gives bonds and an angle\n"
                '#include "amber99sb-ildn.ff/forcefield.itp"\n#include "amber99sb-ildn.ff/spce.itp"\n'
                + EMPTY_MOLECULES.format(title="SPC/E water"))
    box = [3.0, 3.0, 3.0]
    gmx(["solvate", "-cs", "spc216.gro", "-box"] + box + ["-o", "water.gro", "-p", "topol.top"], work)
    return "water.gro", box


def prepare_peptide_amber_vacuum(work):
    gmx_prep.write_heavy_atoms(gmx_prep.adk_pdb(), os.path.join(work, "fragment.pdb"), 138, 147)
    gmx_prep.pdb2gmx(work, "fragment.pdb", "amber99sb-ildn", "none")
    box = [6.0, 5.5, 5.0]
    gmx(["editconf", "-f", "protein.gro", "-o", "boxed.gro", "-box"] + box + ["-c"], work)
    # The restraints pull towards the unminimised positions, so that their energy is not zero.
    gmx_prep.editconf_gro(work, "boxed.gro", "restraint.gro", "Restraint positions: the peptide before minimisation")
    return "boxed.gro", box


def prepare_peptide_vacuum(work, first, last, forcefield, box):
    gmx_prep.write_heavy_atoms(gmx_prep.adk_pdb(), os.path.join(work, "fragment.pdb"), first, last)
    gmx_prep.pdb2gmx(work, "fragment.pdb", forcefield, "none")
    gmx(["editconf", "-f", "protein.gro", "-o", "boxed.gro", "-box"] + box + ["-c"], work)
    return "boxed.gro", box


def prepare_solvated(work, first, last, forcefield, concentration):
    gmx_prep.write_heavy_atoms(gmx_prep.adk_pdb(), os.path.join(work, "fragment.pdb"), first, last)
    gmx_prep.pdb2gmx(work, "fragment.pdb", forcefield, "tip3p")
    box = gmx_prep.padded_box(os.path.join(work, "protein.gro"), 1.0)
    gmx_prep.solvate_and_ions(work, "protein.gro", box, grid_for(box), concentration)
    return "solvated.gro", box


# VST: six atoms in a chain (bonds at their lengths in VST_ATOMS, no angles: nothing but the bonds acts inside the
# molecule, every pair of its particles is excluded) and twelve sites, one of every GROMACS 2022
# construction and one built from a site. Charges and LJ on the sites, so that every spread
# force is tested; the virtual_sites1 site carries neither: GROMACS 2022.5 loses the force on
# such a site (spread_vsite1 adds the atom's force to the site's, then clears the site's).
VST_ATOMS = [
    ("C1", (2.000, 2.000, 2.000)), ("C2", (2.150, 2.000, 2.000)), ("C3", (2.200, 2.140, 2.000)),
    ("C4", (2.060, 2.200, 2.050)), ("C5", (2.100, 2.050, 2.150)), ("C6", (1.950, 2.080, 1.900)),
    ("V1", (2, 2, 2)), ("V2", (2, 2, 2)), ("V2F", (2, 2, 2)), ("V3", (2, 2, 2)), ("V3F", (2, 2, 2)),
    ("V3A", (2, 2, 2)), ("V3O", (2, 2, 2)), ("V4N", (2, 2, 2)), ("VCG", (2, 2, 2)), ("VCM", (2, 2, 2)),
    ("VCW", (2, 2, 2)), ("VSS", (2, 2, 2)),
]
VST_TOP = """; A made-up molecule with a virtual site of every construction (tools/gromacs_reference.py)
[ defaults ]
; nbfunc comb-rule gen-pairs fudgeLJ fudgeQQ
1 2 yes 0.5 0.8333

[ atomtypes ]
; name at.num mass charge ptype sigma epsilon
CX   6  12.011 0.0 A 0.32 0.40
NX   7  14.007 0.0 A 0.30 0.50
VX   0   0.000 0.0 V 0.12 0.10
VA   0   0.000 0.0 A 0.10 0.20
VN   0   0.000 0.0 D 0.00 0.00

[ moleculetype ]
VST 3

[ atoms ]
;  nr type resnr res atom cgnr charge mass
    1  CX   1  VST  C1    1   0.30  12.011
    2  NX   1  VST  C2    1  -0.25  14.007
    3  CX   1  VST  C3    1   0.20  12.011
    4  NX   1  VST  C4    1  -0.30  14.007
    5  CX   1  VST  C5    1   0.15  12.011
    6  CX   1  VST  C6    1  -0.10  12.011
    7  VN   1  VST  V1    1   0.00   0.000
    8  VX   1  VST  V2    1   0.20   0.000
    9  VX   1  VST  V2F   1  -0.15   0.000
   10  VA   1  VST  V3    1   0.25   0.000
   11  VX   1  VST  V3F   1  -0.20   0.000
   12  VX   1  VST  V3A   1   0.10   0.000
   13  VA   1  VST  V3O   1  -0.35   0.000
   14  VX   1  VST  V4N   1   0.30   0.000
   15  VX   1  VST  VCG   1  -0.10   0.000
   16  VX   1  VST  VCM   1   0.05   0.000
   17  VX   1  VST  VCW   1  -0.15   0.000
   18  VX   1  VST  VSS   1   0.05   0.000

[ bonds ]
1 2 1 0.150 300000
2 3 1 0.149 300000
3 4 1 0.160 300000
4 5 1 0.185 300000
5 6 1 0.293 300000

[ virtual_sites1 ]
7 5 1
[ virtual_sites2 ]
8 1 2 1 0.3
9 2 3 2 0.05
[ virtual_sites3 ]
10 1 2 3 1 0.2 0.3
11 3 4 5 2 0.4 0.06
12 4 5 6 3 110.0 0.05
13 1 4 6 4 0.2 0.3 2.0
18 8 4 6 1 0.25 0.35
[ virtual_sites4 ]
14 2 1 3 5 2 0.8 0.7 0.04
[ virtual_sitesn ]
15 1 1 2 3 4
16 2 3 4 5 6
17 3 1 0.5 5 1.0 6 2.0

[ exclusions ]
""" + "".join(" ".join(str(a) for a in [i] + [j for j in range(1, 19) if j != i]) + "\n" for i in range(1, 19))

SYSTEMS = {
    "spce_water": {
        "define": "-DFLEXIBLE",
        "prepare": prepare_spce_water,
        "description": "884 flexible SPC/E waters (gmx solvate with spc216.gro) in a 3 nm cube, AMBER99SB-ILDN "
                       "defaults (combination rule 2), energy-minimised"},
    "peptide_amber_vacuum": {
        "define": "-DPOSRES",
        "maxwarn": 1,  # grompp's warning about Ewald with a net charge: the charge is wanted
        "prepare": prepare_peptide_amber_vacuum,
        "description": "adenylate kinase (adk_closed.pdb, MDAnalysisTests) residues 138-147 NPPKVEGKDD with "
                       "AMBER99SB-ILDN, hydrogens from pdb2gmx, charged termini, net charge -1, in vacuum in a "
                       "periodic 6.0 x 5.5 x 5.0 nm box, energy-minimised; heavy atoms restrained (posre.itp, "
                       "1000 kJ/mol/nm^2) to their unminimised positions in restraint.gro"},
    "protein_charmm_tip3p": {
        "define": "-DFLEXIBLE",
        "prepare": lambda work: prepare_solvated(work, 122, 151, "charmm27", 0.15),
        "description": "adenylate kinase (adk_closed.pdb) residues 122-151 with CHARMM27 (CMAP, Urey-Bradley), "
                       "charged termini, in CHARMM TIP3P with 0.15 M NaCl (gmx genion, neutral), at least 1 nm "
                       "of water around the fragment, energy-minimised"},
    "peptide_oplsaa_tip3p": {
        "define": "-DFLEXIBLE",
        "prepare": lambda work: prepare_solvated(work, 180, 191, "oplsaa", None),
        "description": "adenylate kinase (adk_closed.pdb) residues 180-191 GYYSKEAEAGNT with OPLS-AA (combination "
                       "rule 3, Ryckaert-Bellemans dihedrals), charged termini, in TIP3P with one Na+ to "
                       "neutralise, at least 1 nm of water around the peptide, energy-minimised"},
    "peptide_gromos54a7_vacuum": {
        "define": "",
        # grompp's warnings about Ewald with a net charge (wanted) and about GROMOS's twin-range
        # parametrisation (no matter for single points)
        "maxwarn": 2,
        "prepare": lambda work: prepare_peptide_vacuum(work, 180, 191, "gromos54a7", [5.0, 4.5, 4.0]),
        "description": "adenylate kinase (adk_closed.pdb) residues 180-191 GYYSKEAEAGNT with GROMOS 54A7 (united "
                       "atoms; G96 bonds (bonds 2) and angles (angles 2), proper dihedrals 1, harmonic impropers "
                       "2, 1-4 pairs from [ pairtypes ] with combination rule 1 and gen-pairs no, fudge 1), "
                       "polar hydrogens from pdb2gmx, charged termini, net charge -1, in vacuum in a periodic "
                       "5.0 x 4.5 x 4.0 nm box, energy-minimised"},
    "tip4pew_water": {
        "define": "", "virtual_sites": True,
        "prepare": lambda work: prepare_site_water(work, "amber99sb-ildn", "tip4pew", "tip4p.gro"),
        "description": "rigid TIP4P-Ew water (AMBER99SB-ILDN's tip4pew.itp: SETTLE and a virtual_sites3 type 1 "
                       "M site) filled into a 2.5 nm cube by gmx solvate from tip4p.gro, energy-minimised"},
    "tip4p_oplsaa": {
        "define": "", "virtual_sites": True,
        "prepare": lambda work: prepare_site_water(work, "oplsaa", "tip4p", "tip4p.gro"),
        "description": "rigid TIP4P water (OPLS-AA's tip4p.itp, the M site's atom type of particle type D and "
                       "without a mass column) filled into a 2.5 nm cube from tip4p.gro, energy-minimised"},
    "tip5p_oplsaa": {
        "define": "", "virtual_sites": True,
        "prepare": lambda work: prepare_site_water(work, "oplsaa", "tip5p", "tip5p.gro"),
        "description": "rigid TIP5P water (OPLS-AA's tip5p.itp: two virtual_sites3 type 4 (3out) lone pairs) "
                       "filled into a 2.5 nm cube from tip5p.gro, energy-minimised"},
    "opc_water": {
        "define": "", "virtual_sites": True,
        "prepare": lambda work: prepare_site_water(work, "amber99sb-ildn", "opc", "tip4p.gro",
                                                   os.path.join(os.path.dirname(HERE), "systems", "water", "opc.itp")),
        "description": "rigid OPC water (Izadi et al. 2014; systems/water/opc.itp) with AMBER99SB-ILDN's "
                       "defaults, filled into a 2.5 nm cube from tip4p.gro, energy-minimised"},
    "vsite_types": {
        "define": "", "virtual_sites": True, "minimise": False,
        "prepare": prepare_vsite_types,
        "description": "40 copies of VST, a made-up molecule of six bonded atoms and twelve virtual sites (one of "
                       "every construction of GROMACS 2022: 1, 2, 2fd, 3, 3fd, 3fad, 3out, 4fdn, COG, COM, COW, and "
                       "a type-3 site built from the type-2 site) with charges and LJ (none on the type-1 site: "
                       "GROMACS 2022.5 drops its force), every pair inside a molecule excluded, placed by gmx "
                       "insert-molecules in a 3 nm cube, not minimised"},
}


def prepare(name, spec, work, out):
    """Builds the system of `spec` (an entry of SYSTEMS) in work and writes conf.gro, the
    topology and its included files (and restraint.gro) into out. `prepare` returns the
    coordinates and the box (edges, or None for the box of those coordinates); the minimisation
    has the defines `minimise_define`, by default those of the single point without -DPOSRES."""
    gro, box = spec["prepare"](work)
    if box is None:
        box = read_gro(os.path.join(work, gro), vectors=True)[3]
    define = spec.get("minimise_define", spec["define"].replace("-DPOSRES", "").strip())
    if spec.get("minimise", True):
        energy, force = gmx_prep.minimise(work, gro, "topol.top", grid_for(box), "conf.gro", define,
                                          spec.get("maxwarn", 0))
        print(f"{name}: minimised, potential {energy:.6g} kJ/mol, largest force {force:.4g} kJ/mol/nm")
    if os.path.exists(out):
        shutil.rmtree(out)
    written = gmx_prep.copy_topology(os.path.join(work, "topol.top"), out)
    for extra in ("conf.gro", "restraint.gro"):
        if os.path.exists(os.path.join(work, extra)):
            shutil.copyfile(os.path.join(work, extra), os.path.join(out, extra))
    print(f"{name}: {', '.join(written)}")


def reference_mdp(define, grid, pme_order=4, virtual_sites=False):
    """The single point's parameters. With virtual sites it is a 0-step run with continuation =
    no: only then does mdrun build the sites from their atoms before the forces (GROMACS
    2022.5 builds them at the start of a run that is not a continuation; a continuation and
    -rerun take the sites' positions as the file gives them)."""
    extra = [("nsteps", 0), ("continuation", "no" if virtual_sites else "yes"), ("comm-mode", "None"),
             ("nstcalcenergy", 1), ("nstenergy", 1), ("nstlog", 1), ("nstxout", 1), ("nstfout", 1)]
    what = ("gmx_d mdrun with nsteps = 0, the virtual sites built first" if virtual_sites
            else "gmx_d mdrun -rerun conf.gro")
    return f"; Single point for tools/gromacs_reference.py: {what}\n" + gmx_prep.mdp_text("md", define, grid, extra,
                                                                                         pme_order)


def check_parameters(log, mdout):
    """The EXPECTED run parameters as md.log states them (constraints and define, which the log
    leaves out, from grompp's mdout.mdp); a difference ends the script."""
    params = dict(gmx_output.mdp_parameters(mdout), **gmx_output.log_parameters(log))
    for key, want in EXPECTED.items():
        have = params.get(key)
        same = have is not None and (float(have) == want if isinstance(want, (int, float))
                                     else have.lower() == want.lower())
        if not same:
            fail(f"{log}: {key} = {have}, expected {want}")
    return {key: params[key] for key in list(EXPECTED) + ["define", "fourier-nx", "fourier-ny", "fourier-nz"]}


def minimum_image(d, vectors):
    """Differences d (N x 3) brought to the cell around zero by the box vectors' shifts, c then
    b then a, as GROMACS's pbc code does (exact for the box multiples mdrun adds when it puts
    atoms into the box)."""
    d = np.array(d, dtype=float)
    for k in (2, 1, 0):
        d -= np.outer(np.round(d[:, k] / vectors[k][k]), vectors[k])
    return d


def is_rectangular(vectors):
    return not any(vectors[i][j] for i in range(3) for j in range(3) if i != j)


SITE_DECIMALS = 9


def write_built_sites(data, run, built, sites):
    """Rewrites conf.gro (in `data` and `run`) with the virtual sites (indices `sites`; with
    constraints every atom) where the run built (and constrained) them (`built`, brought next to conf.gro's value by whole box vectors), with
    SITE_DECIMALS decimals; the other atoms keep their decimal numbers exactly. Returns the
    largest distance a site moved."""
    title, atoms, x, box = read_gro(os.path.join(data, "conf.gro"), vectors=True)
    x = np.array(x)
    moved = minimum_image(built[sites] - x[sites], box)
    x[sites] += moved
    for folder in (data, run):
        write_gro(os.path.join(folder, "conf.gro"), title, atoms, x.tolist(), box, decimals=SITE_DECIMALS)
    return float(np.max(np.linalg.norm(moved, axis=1)))


def reference(name, spec, data, run):
    """Runs the single point of the system in `data` (in the scratch folder `run`) and writes
    reference.mdp, reference.json and forces.npy (tpr/*.npy, or tpr.npz with spec["tpr_npz"])
    into `data`. spec: an entry of SYSTEMS (define, maxwarn, description, virtual_sites)."""
    if os.path.exists(run):
        shutil.rmtree(run)
    shutil.copytree(data, run)
    title, atoms, x, vectors = read_gro(os.path.join(data, "conf.gro"), vectors=True)
    rectangular = is_rectangular(vectors)
    box = [vectors[k][k] for k in range(3)] if rectangular else vectors
    grid = grid_for(vectors)
    define = spec["define"]
    vsites = spec.get("virtual_sites", False)
    maxwarn = spec.get("maxwarn", 0)
    mdp = reference_mdp(define, grid, virtual_sites=vsites)
    for folder in (run, data):
        with open(os.path.join(folder, "reference.mdp"), "w") as f:
            f.write(mdp)
    restraint = ["-r", "restraint.gro"] if "-DPOSRES" in define else []
    grompp_text = gmx(["grompp", "-f", "reference.mdp", "-c", "conf.gro", "-p", "topol.top", "-o", "reference.tpr",
                       "-po", "mdout.mdp", "-maxwarn", maxwarn] + restraint, run)
    dumped = dumpable_tpr(run, ["-maxwarn", maxwarn] + restraint)
    topology = gmx_output.tpr_topology(run, dumped)
    site = topology.pop("site")
    if bool(np.any(site)) != vsites:
        fail(f"{name}: {int(np.sum(site))} virtual sites, but the system says virtual_sites = {vsites}")
    single = ["mdrun", "-s", "reference.tpr", "-nt", 1, "-reprod"]
    gmx(single + ["-deffnm", "step0"], run, env=ANALYTICAL_EWALD)
    if vsites:
        # The reference is the 0-step run, which built the sites; conf.gro gets them, and a rerun of
        # the very positions the run wrote must give the same.
        # With constraints (rigid water) the run also put the atoms on their constraints first
        # (continuation = no), by about 1e-6 nm: conf.gro gets those positions too.
        built = gmx_output.read_trr(os.path.join(run, "step0.trr"))[0]["x"]
        constrained = any(topology["counts"].get(k, 0) for k in ("Settle", "Constraint", "Constr. No Conn."))
        rewritten = np.ones(len(site), bool) if constrained else site
        largest = write_built_sites(data, run, built, np.nonzero(rewritten)[0])
        x = read_gro(os.path.join(data, "conf.gro"), vectors=True)[2]
        gmx(single + ["-rerun", "step0.trr", "-deffnm", "rerun"], run, env=ANALYTICAL_EWALD)
        primary, second = "step0", "rerun"
    else:
        gmx(single + ["-rerun", "conf.gro", "-deffnm", "rerun"], run, env=ANALYTICAL_EWALD)
        primary, second = "rerun", "step0"

    rerun_terms = gmx_output.energies(run, "rerun.edr")
    step0 = gmx_output.energies(run, "step0.edr")
    potential = {k: step0[k] for k in rerun_terms}  # the terms a rerun writes: the potential's
    terms, other = (potential, rerun_terms) if vsites else (rerun_terms, potential)
    frame = gmx_output.read_trr(os.path.join(run, primary + ".trr"))[0]
    forces = frame["f"]
    other_forces = gmx_output.read_trr(os.path.join(run, second + ".trr"))[0]["f"]
    printed = gmx_output.traj_forces(run, primary + ".trr", "reference.tpr")

    # The coordinates GROMACS evaluated must be the decimal numbers of conf.gro (the sites: where
    # GROMACS built them, which conf.gro holds rounded to 6 decimals), and the two runs and the
    # printed forces must agree.
    # (mdrun puts atoms into the box, which may round the last bit of a wrapped coordinate).
    # (the sites of conf.gro are the built ones rounded to SITE_DECIMALS decimals).
    shift = np.abs(minimum_image(frame["x"] - np.array(x), vectors))
    if not vsites:
        rewritten = np.zeros(len(site), bool)
    position_error = float(np.max(shift[~rewritten])) if not rewritten.all() else 0.0
    site_rounding = float(np.max(shift[rewritten])) if vsites else 0.0
    if position_error > 1e-15 * max(gmx_prep.vector_lengths(vectors)) or site_rounding > 0.51 * 10 ** -SITE_DECIMALS:
        fail(f"{name}: the single point read coordinates {position_error:g} nm away from conf.gro "
             f"(sites: {site_rounding:g} nm)")
    energy_difference = max(abs(terms[k] - other[k]) for k in terms)
    force_difference = float(np.max(np.abs(forces - other_forces)))
    printed_difference = float(np.max(np.abs(forces - printed) / (np.abs(forces) + 1.0)))
    scale = max(abs(v) for v in terms.values())
    if energy_difference > 1e-9 * scale or force_difference > 1e-6 or printed_difference > 1e-12:
        fail(f"{name}: rerun and step-0 run disagree: energies {energy_difference:g} kJ/mol, forces "
             f"{force_difference:g} kJ/mol/nm; gmx traj differs by {printed_difference:g} (relative)")

    fine = pme_convergence(run, define, [2 * n for n in grid], restraint, maxwarn, forces, vsites)

    arrays = {key: values for key, values in topology.items() if key != "counts"}
    if spec.get("tpr_npz"):
        np.savez_compressed(os.path.join(data, "tpr.npz"), **arrays)
    else:
        os.makedirs(os.path.join(data, "tpr"), exist_ok=True)
        for key, values in arrays.items():
            np.save(os.path.join(data, "tpr", key + ".npy"), values)
    np.save(os.path.join(data, "forces.npy"), forces)
    log = os.path.join(run, primary + ".log")
    facts = gmx_output.log_facts(log)
    width = float(re.search(r"Gaussian width \(1/beta\) of (\S+) nm", "\n".join(facts)).group(1))
    beta = ewald_beta(CUTOFF, EWALD_RTOL)
    if abs(1.0 / beta - width) > 1e-6:
        fail(f"{name}: GROMACS used an Ewald width of {width} nm, not 1/beta = {1.0 / beta:.6f} nm")
    charge = float(np.sum(topology["charge"]))
    tpr_files = {"tpr/charge.npy": "float64 N, e", "tpr/mass.npy": "float64 N, amu",
                 "tpr/type.npy": "int32 N, LJ type index",
                 "tpr/c6.npy": "float64 types x types, kJ/mol nm^6",
                 "tpr/c12.npy": "float64 types x types, kJ/mol nm^12",
                 "tpr/excluded_pairs.npy": "int32 M x 2, i < j, 0-based",
                 "source": "gmx dump -s of the reference tpr: charges and masses with 6, "
                           "C6 and C12 with 9 significant digits"}
    if spec.get("tpr_npz"):
        tpr_files = {k.replace("tpr/", "tpr.npz:").replace(".npy", ""): v for k, v in tpr_files.items()}
    how = ("mdrun with nsteps = 0 and continuation = no (the virtual sites built from their atoms before the "
           "forces), -nt 1 -reprod" if vsites else "mdrun -rerun conf.gro -nt 1 -reprod")
    result = {
        "system": name,
        "description": spec["description"],
        "title": title,
        "gromacs": f"GROMACS 2022.5, gmx_d (double precision), {how} with GMX_NBNXN_EWALD_ANALYTICAL=1",
        "atoms": len(atoms),
        "molecules": gmx_prep.molecules(os.path.join(data, "topol.top")),
        "net_charge_e": round(charge, 4) + 0.0,  # (no -0.0)
        "total_mass_amu": round(float(np.sum(topology["mass"])), 3),
        "box_nm": box,
        "files": {"coordinates": "conf.gro", "topology": "topol.top", "mdp": "reference.mdp",
                  "forces": "forces.npy",
                  "tpr_arrays": tpr_files,
                  "restraint_coordinates": "restraint.gro" if restraint else None},
        "settings": {
            "define": define,
            "cutoff_nm": CUTOFF, "rcoulomb_nm": CUTOFF, "rvdw_nm": CUTOFF, "rlist_nm": 1.2,
            "coulombtype": "PME", "coulomb_modifier": "Potential-shift", "vdw_modifier": "Potential-shift",
            "dispersion_correction": False, "constraints": "none",
            "ewald_rtol": EWALD_RTOL, "ewald_geometry": "3d", "epsilon_surface": 0, "epsilon_r": 1,
            "beta_per_nm": beta,
            "beta_method": "erfc(beta * rcoulomb) = ewald_rtol solved by bisection in double precision as "
                           "GROMACS does (calc_ewaldcoeff_q); GROMACS's log states the width 1/beta",
            "gromacs_log_width_nm": width,
            "fourier_grid": grid,
            "fourier_spacing_nm": [b / n for b, n in zip(gmx_prep.vector_lengths(vectors), grid)], "pme_order": 4,
            "coulomb_constant": 138.93545764438198,
            "coulomb_constant_note": "GROMACS 2022 derives 1/(4 pi eps0) from CODATA 2018 e, eps0 and N_A "
                                     "(kJ/mol nm/e^2); the rounded 138.935458 is 2.6e-9 larger",
            "shift": "LJ and real-space Coulomb shifted to zero at the cutoff for non-excluded pairs",
        },
        "energies_kJ_mol": terms,
        "virial_kJ_mol": {k: v for k, v in step0.items() if k.startswith("Vir-")},
        "virial_note": "Xi = -0.5 sum r (x) F (GROMACS convention), from mdrun with nsteps = 0 on the same tpr; "
                       "pressure is not given (a single point has no kinetic energy)",
        "term_notes": {k: v for k, v in TERM_NOTES.items() if k in terms},
        "forces": {"file": "forces.npy", "units": "kJ/mol/nm", "shape": list(forces.shape),
                   "largest_kJ_mol_nm": float(np.max(np.linalg.norm(forces, axis=1))),
                   "sum_kJ_mol_nm": forces.sum(axis=0).tolist()},
        "pme_convergence": fine,
        "interaction_counts": topology["counts"],
        "interaction_counts_note": ("from a tpr of the same topology with the 2fd sites made type-2 sites (gmx dump "
                                    "2022.5 cannot print VSITE2FD): VSITE2 counts both" if dumped != "reference.tpr"
                                    else "from gmx dump -s of reference.tpr"),
        "excluded_pairs": int(len(topology["excluded_pairs"])),
        "consistency": {"rerun_positions_vs_conf_gro_max_nm": position_error,
                        "virtual_site_positions_vs_conf_gro_max_nm": site_rounding,
                        "rerun_vs_step0_max_energy_difference_kJ_mol": energy_difference,
                        "rerun_vs_step0_max_force_difference_kJ_mol_nm": force_difference,
                        "gmx_traj_fp_vs_trr_max_relative_force_difference": printed_difference},
        "gromacs_parameters": check_parameters(log, os.path.join(run, "mdout.mdp")),
        "gromacs_log": facts,
        "grompp_messages": gmx_output.grompp_messages(grompp_text),
    }
    if not rectangular:
        result["box_vectors_note"] = "box_nm: the box vectors a, b, c (rows, nm) in GROMACS' reduced form"
    if vsites:
        result["virtual_sites"] = {
            "count": int(np.sum(site)), "largest_move_from_the_minimised_coordinates_nm": largest,
            "conf_gro_rounding_max_nm": site_rounding, "note": (
            "the reference is the 0-step run, which built the sites from their atoms; conf.gro holds them as built "
            "(9 decimals; the other atoms keep the 6-decimal numbers of the minimisation, but with constraints, "
            "which the run applied first, every atom is written as the run left it); the consistency "
            "check is a rerun of the positions that run wrote; forces.npy has the sites' forces spread onto "
            "their atoms, as mdrun writes them")}
    with open(os.path.join(data, "reference.json"), "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print(f"{name}: {len(atoms)} atoms, Potential {terms['Potential']:.10g} kJ/mol, grid {grid}")


def dumpable_tpr(run, extra):
    """reference.tpr, or where it has 2fd virtual sites, which gmx dump 2022.5 cannot print
    ("unknown function type 67 (VSITE2FD)"), a tpr of the same topology with those sites made
    type-2 sites of the same atoms: the same particles, charges, masses, types and exclusions."""
    with open(os.path.join(run, "topol.top")) as f:
        text = f.read()
    section, lines = None, []
    for line in text.splitlines():
        m = re.match(r"\s*\[\s*(\w+)\s*\]", line)
        if m:
            section = m.group(1)
        fields = line.split(";")[0].split()
        if section == "virtual_sites2" and len(fields) >= 4 and fields[3] == "2":
            line = " ".join(fields[:3] + ["1"] + fields[4:])
        lines.append(line)
    if "\n".join(lines) == text.rstrip("\n"):
        return "reference.tpr"
    with open(os.path.join(run, "dump.top"), "w") as f:
        f.write("\n".join(lines) + "\n")
    gmx(["grompp", "-f", "reference.mdp", "-c", "conf.gro", "-p", "dump.top", "-o", "dump.tpr", "-po", "dump.mdp"]
        + extra, run)
    return "dump.tpr"


def pme_convergence(run, define, grid, restraint, maxwarn, forces, virtual_sites=False):
    """The same single point with PME on `grid` and order 8, close to the exact Ewald sum: how far
    the reference grid's reciprocal energy and forces are from it (with virtual sites a 0-step
    run, which builds them, as the reference)."""
    with open(os.path.join(run, "fine.mdp"), "w") as f:
        f.write(reference_mdp(define, grid, pme_order=8, virtual_sites=virtual_sites))
    gmx(["grompp", "-f", "fine.mdp", "-c", "conf.gro", "-p", "topol.top", "-o", "fine.tpr", "-po", "fine_out.mdp",
         "-maxwarn", maxwarn] + restraint, run)
    rerun = [] if virtual_sites else ["-rerun", "conf.gro"]
    gmx(["mdrun", "-s", "fine.tpr"] + rerun + ["-nt", 1, "-reprod", "-deffnm", "fine"], run, env=ANALYTICAL_EWALD)
    difference = np.linalg.norm(forces - gmx_output.read_trr(os.path.join(run, "fine.trr"))[0]["f"], axis=1)
    return {"fourier_grid": grid, "pme_order": 8,
            "Coul. recip.": gmx_output.energies(run, "fine.edr")["Coul. recip."],
            "force_difference_rms_kJ_mol_nm": float(np.sqrt(np.mean(difference ** 2))),
            "force_difference_max_kJ_mol_nm": float(np.max(difference)),
            "note": "the reference single point again with a twice finer PME grid and order 8 (within about 1e-6 "
                    "of the exact Ewald sum): the differences are the reference grid's PME error"}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--systems", nargs="+", choices=list(SYSTEMS), default=list(SYSTEMS))
    p.add_argument("--stage", choices=["prepare", "reference", "all"], default="all")
    p.add_argument("--out", default=DEFAULT_OUT, help="data folder (default tests/data/gromacs)")
    p.add_argument("--keep", help="scratch folder to keep (default: a temporary one, removed)")
    args = p.parse_args()
    run_stages(SYSTEMS, args.systems, args.stage, args.out, args.keep)


def run_stages(systems, names, stage, out, keep=None):
    """Prepares (stage prepare or all) and computes (reference or all) the `names` of `systems`
    into out/<name>, in a scratch folder (`keep`, or a temporary one that is removed)."""
    if shutil.which(gmx_prep.GMX) is None:
        fail(f"{gmx_prep.GMX} not found (apt-get install gromacs)")
    scratch = keep or tempfile.mkdtemp(prefix="gromacs_reference_")
    try:
        for name in names:
            data = os.path.join(out, name)
            if stage in ("prepare", "all"):
                work = os.path.join(scratch, name, "prepare")
                if os.path.exists(work):
                    shutil.rmtree(work)
                os.makedirs(work)
                prepare(name, systems[name], work, data)
            if stage in ("reference", "all"):
                if not os.path.exists(os.path.join(data, "conf.gro")):
                    fail(f"{data}/conf.gro missing: run --stage prepare first")
                reference(name, systems[name], data, os.path.join(scratch, name, "reference"))
    finally:
        if not keep:
            shutil.rmtree(scratch, ignore_errors=True)

if __name__ == "__main__":
    main()
