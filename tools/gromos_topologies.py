#!/usr/bin/env python3
"""pdb2gmx topologies of one small peptide under each GROMOS force field GROMACS 2022 ships
(43a1, 43a2, 45a3, 53a5, 53a6, 54a7), for test_gromacs_topology_gromos.cpp, with what grompp
makes of them.

For each force field: adenylate kinase residues 180-183 (GYYS, charged termini; adk_closed.pdb
of MDAnalysisTests) through `gmx pdb2gmx -ignh -water none`, written into
tests/data/top/gromos/<ff>/ as topol.top (without the header lines naming user, host, date and
folder) and conf.gro, and `gmx grompp` + `gmx dump` of it (constraints = none) counted as
tools/check_topology_counts.py counts: counts.txt, one `key value` line per interaction kind,
the excluded pairs and the net charge. The force field itself is not copied: the topologies
include <ff>.ff/forcefield.itp from the GROMACS data folder, as pdb2gmx wrote them.

Usage: tools/gromos_topologies.py [--out tests/data/top/gromos]   (needs gmx_d and MDAnalysisTests)
"""
import argparse
import os
import shutil
import tempfile

import check_topology_counts
import gmx_prep
from gmx_prep import gmx

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(os.path.dirname(HERE), "tests", "data", "top", "gromos")
FORCE_FIELDS = ["gromos43a1", "gromos43a2", "gromos45a3", "gromos53a5", "gromos53a6", "gromos54a7"]
FIRST, LAST = 180, 183


def one(ff, work, out):
    gmx_prep.write_heavy_atoms(gmx_prep.adk_pdb(), os.path.join(work, "fragment.pdb"), FIRST, LAST)
    gmx_prep.pdb2gmx(work, "fragment.pdb", ff, "none")
    gmx(["editconf", "-f", "protein.gro", "-o", "conf.gro", "-box", 4.0, 4.0, 4.0, "-c"], work)
    with open(os.path.join(work, "grompp.mdp"), "w") as f:
        f.write(check_topology_counts.MDP.format(defines=""))
    gmx(["grompp", "-f", "grompp.mdp", "-c", "conf.gro", "-p", "topol.top", "-o", "topol.tpr", "-po", "mdout.mdp",
         "-maxwarn", 10], work)
    counts = check_topology_counts.dump_counts(gmx(["dump", "-s", "topol.tpr"], work))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(work, "topol.top")) as f, open(os.path.join(out, "topol.top"), "w") as t:
        t.writelines(line for line in f if not gmx_prep.VOLATILE.match(line))
    shutil.copyfile(os.path.join(work, "conf.gro"), os.path.join(out, "conf.gro"))
    with open(os.path.join(out, "counts.txt"), "w") as f:
        f.write(f"# grompp's counts of topol.top (GROMACS 2022.5, constraints = none), by tools/gromos_topologies.py\n")
        for key in check_topology_counts.KEYS:
            value = counts[key]
            f.write(f"{key} {round(value, 6) if key == 'charge' else value}\n")
    print(f"{ff}: {counts['atoms']} atoms, {counts['g96_bonds']} G96 bonds, {counts['g96_angles']} G96 angles, "
          f"{counts['pairs14']} pairs, other {counts['other']}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default=DEFAULT_OUT)
    args = p.parse_args()
    scratch = tempfile.mkdtemp(prefix="gromos_topologies_")
    try:
        for ff in FORCE_FIELDS:
            work = os.path.join(scratch, ff)
            os.makedirs(work)
            one(ff, work, os.path.join(args.out, ff))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
