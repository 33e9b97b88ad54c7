#!/usr/bin/env python3
"""The GROMACS index file of systems/protein that test_selection.cpp compares the selection
language with: `gmx make_ndx` with its default groups (System, Protein, Protein-H, C-alpha,
Backbone, ..., Water, SOL, Ion, Water_and_ions) and the residue groups NA and CL, written to
tests/data/ndx/protein.ndx.

Usage: tools/make_ndx_reference.py [output file]   (needs gmx on PATH, or $GMX)
"""
import os
import subprocess
import sys

GMX = os.environ.get("GMX", "gmx")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "data", "ndx", "protein.ndx")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    conf = os.path.join(ROOT, "systems", "protein", "conf.gro")
    commands = "r NA\nr CL\nq\n"
    env = dict(os.environ, GMX_MAXBACKUP="-1")  # overwrite, no #protein.ndx.1# beside it
    subprocess.run([GMX, "-quiet", "make_ndx", "-f", conf, "-o", out], input=commands, text=True, check=True,
                   stdout=subprocess.DEVNULL, env=env)
    print("wrote", out)


if __name__ == "__main__":
    main()
