#!/usr/bin/env python3
"""Compares Faraday's reading of GROMACS topologies with grompp's.

For each case (a .top, its coordinates and the defines), runs `gmx grompp` (constraints =
none, so that no bond becomes a constraint) and `gmx dump` of the .tpr, counts the
interactions of the whole system (each molecule type's times its molecules), the excluded
pairs and the net charge, writes them as expected counts, and runs the Faraday test
GromppCounts.* on them (tests/test_gromacs_topology_grompp.cpp), which reads the same
topology and compares. Prints both columns side by side.

    tools/check_topology_counts.py --tests BUILD/tests/faraday_tests \
        --case amber:/path/topol.top:/path/conf.gro[:-DPOSRES] ...

Needs GROMACS (gmx) on PATH; the unit tests do not.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

# gmx dump ilist name -> (atoms per interaction, the count's key in the case files).
ILISTS = {
    "Bond": (2, "bonds"),
    "Morse": (2, "morse"),
    "Connect Bonds": (2, "connections"),
    "Angle": (3, "angles"),
    "U-B": (3, "urey_bradley"),
    "Proper Dih.": (4, "proper_dihedrals"),
    "Ryckaert-Bell.": (4, "rb_dihedrals"),
    "Fourier Dih.": (4, "rb_dihedrals"),
    "Improper Dih.": (4, "impropers"),
    "Per. Imp. Dih.": (4, "periodic_impropers"),
    "CMAP Dih.": (5, "cmaps"),
    "LJ-14": (2, "pairs14"),
    "LJC-14 q": (2, "pairs14"),
    "Constraint": (2, "constraints"),
    "Constr. No Conn.": (2, "constraints"),
    "Settle": (3, "settles"),
    "Position Rest.": (1, "position_restraints"),
}
KEYS = ["atoms", "bonds", "morse", "angles", "urey_bradley", "proper_dihedrals", "periodic_impropers",
        "impropers", "rb_dihedrals", "cmaps", "pairs14", "exclusions", "constraints", "settles",
        "position_restraints", "charge"]

MDP = """integrator = md
nsteps = 0
cutoff-scheme = Verlet
constraints = none
coulombtype = cut-off
rcoulomb = 1.0
rvdw = 1.0
pbc = xyz
define = {defines}
"""


def dump_counts(dump_text):
    """Whole-system counts from `gmx dump -s topol.tpr`."""
    moltypes, molblocks = [], []
    current, ilist = None, None
    for line in dump_text.splitlines():
        s = line.strip()
        if re.match(r"^moltype \(\d+\):$", s):
            current = {"atoms": 0, "charge": 0.0, "exclusions": 0}
            moltypes.append(current)
            ilist = None
            continue
        m = re.match(r"^molblock \((\d+)\):$", s)
        if m:
            molblocks.append({})
            current = None
            continue
        if molblocks and current is None:
            m = re.match(r"^moltype\s*=\s*(\d+)", s)
            if m:
                molblocks[-1]["type"] = int(m.group(1))
            m = re.match(r"^#molecules\s*=\s*(\d+)", s)
            if m:
                molblocks[-1]["count"] = int(m.group(1))
            continue
        if current is None:
            continue
        m = re.match(r"^atom\[\s*\d+\]=\{type=.*q=\s*([-+0-9.eE]+)", s)
        if m:
            current["atoms"] += 1
            current["charge"] += float(m.group(1))
            continue
        m = re.match(r"^numLists=(\d+)$", s)
        if m:
            current["_lists"] = int(m.group(1))
            continue
        m = re.match(r"^numElements=(\d+)$", s)
        if m:
            # Every atom's list holds the atom itself; the rest are pairs counted twice.
            current["exclusions"] = (int(m.group(1)) - current.pop("_lists")) // 2
            continue
        if s.endswith(":") and s[:-1] in ILISTS:
            ilist = s[:-1]
            continue
        m = re.match(r"^nr:\s*(\d+)$", s)
        if m and ilist:
            atoms, key = ILISTS[ilist]
            current[key] = current.get(key, 0) + int(m.group(1)) // (atoms + 1)
            ilist = None
    total = {k: 0 for k in KEYS}
    total["charge"] = 0.0
    for block in molblocks:
        mt = moltypes[block["type"]]
        for k in KEYS:
            total[k] += block["count"] * mt.get(k, 0)
    return total


def run(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("failed: " + " ".join(cmd) + "\n" + r.stdout[-2000:] + r.stderr[-2000:])
    return r.stdout


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tests", required=True, help="the faraday_tests executable")
    p.add_argument("--case", action="append", required=True, help="NAME:TOP:GRO[:DEFINES] (defines blank-separated)")
    args = p.parse_args()
    cases_dir = tempfile.mkdtemp(prefix="faraday_grompp_")
    expected = {}
    for spec in args.case:
        name, top, gro, *rest = spec.split(":")
        defines = rest[0] if rest else ""
        work = os.path.join(cases_dir, name)
        os.makedirs(work)
        with open(os.path.join(work, "grompp.mdp"), "w") as f:
            f.write(MDP.format(defines=defines))
        run(["gmx", "grompp", "-f", "grompp.mdp", "-c", os.path.abspath(gro), "-r", os.path.abspath(gro),
             "-p", os.path.abspath(top), "-o", "topol.tpr", "-po", "mdout.mdp", "-maxwarn", "10"], work)
        counts = dump_counts(run(["gmx", "dump", "-s", "topol.tpr"], work))
        expected[name] = counts
        with open(os.path.join(work, "case.txt"), "w") as f:
            f.write("top " + os.path.abspath(top) + "\n")
            f.write("defines " + defines + "\n")
            for k in KEYS:
                f.write("%s %s\n" % (k, repr(counts[k])))
    env = dict(os.environ, FARADAY_GROMPP_CASES=cases_dir)
    r = subprocess.run([args.tests, "--gtest_filter=GromppCounts.*"], env=env, capture_output=True, text=True)
    print(r.stdout[-4000:])
    for name, counts in expected.items():
        ours = {}
        path = os.path.join(cases_dir, name, "faraday_counts.txt")
        if os.path.exists(path):
            for line in open(path):
                k, v = line.split()
                ours[k] = v
        print("\n%-20s %14s %14s" % (name, "grompp", "faraday"))
        for k in KEYS:
            g = ("%.4f" % counts[k]) if k == "charge" else str(counts[k])
            print("%-20s %14s %14s" % (k, g, ours.get(k, "-")))
    sys.exit(r.returncode)


if __name__ == "__main__":
    main()
