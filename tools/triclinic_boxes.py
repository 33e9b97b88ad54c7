#!/usr/bin/env python3
"""Writes the triclinic-box examples of tests/data/triclinic/ with GROMACS: the 151-atom
peptide of tests/data/gromacs/peptide_amber_vacuum centred in a rhombic dodecahedron and in a
truncated octahedron (`gmx editconf -bt dodecahedron|octahedron -d 0.8 -c`), each as GROMACS
writes it to .gro (nine box numbers), PDB (CRYST1 lengths and angles) and XTC (the 3x3 box).

  tools/triclinic_boxes.py [OUT_DIR]       (default tests/data/triclinic)

The GROMACS binary is $GMX (default gmx). The tests read these files as GROMACS wrote them
and never run GROMACS themselves.
"""
import os
import shutil
import subprocess
import sys
import tempfile

GMX = os.environ.get("GMX", "gmx")
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "tests", "data", "gromacs", "peptide_amber_vacuum", "conf.gro")
SHAPES = {"dodecahedron": "dodecahedron", "octahedron": "octahedron"}


def gmx(args, cwd, stdin=None):
    result = subprocess.run([GMX] + args, cwd=cwd, input=stdin, text=True, capture_output=True)
    if result.returncode != 0:
        sys.exit(f"triclinic_boxes.py: {GMX} {' '.join(args)} failed:\n{result.stdout}{result.stderr}")


def main(argv):
    out = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(HERE, "..", "tests", "data", "triclinic"))
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        shutil.copy(SOURCE, os.path.join(work, "in.gro"))
        for name, shape in SHAPES.items():
            gmx(["editconf", "-f", "in.gro", "-bt", shape, "-d", "0.8", "-c", "-o", f"{name}.gro"], work)
            gmx(["editconf", "-f", f"{name}.gro", "-o", f"{name}.pdb"], work)
            gmx(["trjconv", "-f", f"{name}.gro", "-o", f"{name}.xtc"], work, stdin="0\n")
            for ext in ("gro", "pdb", "xtc"):
                shutil.copy(os.path.join(work, f"{name}.{ext}"), os.path.join(out, f"{name}.{ext}"))
    print(f"triclinic_boxes.py: wrote {', '.join(SHAPES)} (.gro, .pdb, .xtc) to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
