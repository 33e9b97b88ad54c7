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
Each system is energy-minimised (steepest descent, the same non-bonded settings, flexible
water) and the minimised coordinates rounded to 6 decimals are the reference coordinates.

Settings, the same for every system (tools/gmx_prep.py NONBONDED): Verlet lists, rlist 1.2 nm
above rcoulomb = rvdw = 1.0 nm (verlet-buffer-tolerance -1), potential-shift modifiers for LJ
and Coulomb, PME order 4 on an explicit grid of spacing <= 0.1 nm, ewald-rtol 1e-5, no
dispersion correction, no constraints, define = -DFLEXIBLE (water with bonds and an angle).
The single point is `gmx_d mdrun -rerun conf.gro -nt 1 -reprod` with GMX_NBNXN_EWALD_ANALYTICAL=1
(real-space Ewald from erfc, not from tables); a second run, `mdrun` with nsteps = 0, gives the
virial (reruns do not write it) and must agree with the rerun's energies and forces.

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
    """Rewrites conf.gro (in `data` and `run`) with the virtual sites (indices `sites`) where
    the run built them (`built`, brought next to conf.gro's value by whole box vectors), with
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
    topology = gmx_output.tpr_topology(run, "reference.tpr")
    site = topology.pop("site")
    if bool(np.any(site)) != vsites:
        fail(f"{name}: {int(np.sum(site))} virtual sites, but the system says virtual_sites = {vsites}")
    single = ["mdrun", "-s", "reference.tpr", "-nt", 1, "-reprod"]
    gmx(single + ["-deffnm", "step0"], run, env=ANALYTICAL_EWALD)
    if vsites:
        # The reference is the 0-step run, which built the sites; conf.gro gets them, and a rerun of
        # the very positions the run wrote must give the same.
        built = gmx_output.read_trr(os.path.join(run, "step0.trr"))[0]["x"]
        largest = write_built_sites(data, run, built, np.nonzero(site)[0])
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

    # The coordinates GROMACS evaluated must be the decimal numbers of conf.gro, and the two runs
    # and the printed forces must agree.
    # (mdrun puts atoms into the box, which may round the last bit of a wrapped coordinate).
    # (the sites of conf.gro are the built ones rounded to SITE_DECIMALS decimals).
    shift = np.abs(minimum_image(frame["x"] - np.array(x), vectors))
    position_error = float(np.max(shift[~site]))
    site_rounding = float(np.max(shift[site])) if vsites else 0.0
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
        "excluded_pairs": int(len(topology["excluded_pairs"])),
        "consistency": {"rerun_positions_vs_conf_gro_max_nm": position_error,
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
            "(9 decimals; the other atoms keep the 6-decimal numbers of the minimisation); the consistency "
            "check is a rerun of the positions that run wrote; forces.npy has the sites' forces spread onto "
            "their atoms, as mdrun writes them")}
    with open(os.path.join(data, "reference.json"), "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print(f"{name}: {len(atoms)} atoms, Potential {terms['Potential']:.10g} kJ/mol, grid {grid}")


def pme_convergence(run, define, grid, restraint, maxwarn, forces, virtual_sites=False):
    """The same single point with PME on `grid` and order 8, close to the exact Ewald sum: how far
    the reference grid's reciprocal energy and forces are from it."""
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
