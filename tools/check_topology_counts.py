#!/usr/bin/env python3
"""Compares Faraday's reading of GROMACS topologies with grompp's.

For each case (a .top, its coordinates and the defines), runs `gmx grompp` (constraints =
none, so that no bond becomes a constraint) and `gmx dump` of the .tpr, counts the
interactions of the whole system (each molecule type's times its molecules), the excluded
pairs and the net charge, writes them as expected counts, and runs the Faraday test
GromppCounts.* on them (tests/test_gromacs_topology_grompp.cpp), which reads the same
topology and compares. Prints both columns side by side. Then compares every term's
parameters (and the LJ table) with the .tpr's, term by term, to the dump's precision.

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

KEYS = ["atoms", "bonds", "g96_bonds", "morse", "cubic_bonds", "angles", "g96_angles", "urey_bradley",
        "proper_dihedrals", "periodic_impropers", "impropers", "rb_dihedrals", "cmaps", "pairs14", "exclusions",
        "constraints", "settles", "position_restraints", "other", "charge"]

# gmx dump function -> (its count's key, the term's name in faraday_terms.txt, its
# parameters in the dump). Any other function counts as "other", which Faraday never has.
DUMP_FUNCTIONS = {
    "BONDS": ("bonds", "BONDS", ["b0A", "cbA"]),
    "G96BONDS": ("g96_bonds", "G96BONDS", ["b0A", "cbA"]),  # b0A: b0^2, as grompp stores it
    "MORSE": ("morse", "MORSE", ["b0A", "cbA", "betaA"]),
    "CUBICBONDS": ("cubic_bonds", "CUBICBONDS", ["b0", "kb", "kcub"]),
    "ANGLES": ("angles", "ANGLES", ["thA", "ctA"]),
    "G96ANGLES": ("g96_angles", "G96ANGLES", ["thA", "ctA"]),  # thA: cos(theta0), as grompp stores it
    "UREY_BRADLEY": ("urey_bradley", "UREY_BRADLEY", ["thetaA", "kthetaA", "r13A", "kUBA"]),
    "PDIHS": ("proper_dihedrals", "PDIHS", ["phiA", "cpA", "mult"]),
    "PIDIHS": ("periodic_impropers", "PIDIHS", ["phiA", "cpA", "mult"]),
    "IDIHS": ("impropers", "IDIHS", ["xiA", "cxA"]),
    "RBDIHS": ("rb_dihedrals", "RBDIHS", ["rbcA[%d]" % k for k in range(6)]),
    "FOURDIHS": ("rb_dihedrals", "RBDIHS", ["rbcA[%d]" % k for k in range(6)]),
    "LJ14": ("pairs14", "LJ14", ["c6A", "c12A"]),
    "LJC14_Q": ("pairs14", "LJ14", ["c6", "c12"]),
    "CMAP": ("cmaps", "CMAP", []),
    "SETTLE": ("settles", "SETTLE", ["doh", "dhh"]),
    "CONSTR": ("constraints", "CONSTR", ["dA"]),
    "CONSTRNC": ("constraints", "CONSTR", ["dA"]),
    "POSRES": ("position_restraints", "POSRES", ["fcA"]),
}
# Lists of the .tpr that hold no bonded term.
NOT_TERMS = {"LJ_SR", "BHAM", "COUL_SR"}
# gmx dump prints 6 to 9 significant digits of single-precision values.
RELATIVE = 2e-5
ABSOLUTE = 1e-12

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


def parse_dump(dump_text):
    """The parameter types, the LJ table size, the molecule types (atom types and charges,
    excluded pairs, terms) and the molecule blocks of `gmx dump -s topol.tpr`."""
    functypes, moltypes, molblocks = {}, [], []
    atnr, current = 0, None
    value = r"(\([^)]*\)|[-+0-9.eE]+)"
    for line in dump_text.splitlines():
        s = line.strip()
        m = re.match(r"^functype\[(\d+)\]=(\w+), ?(.*)$", s)
        if m:
            params = {}
            for name, v in re.findall(r"([\w\[\]]+)=\s*" + value, m.group(3)):
                params[name] = [float(x) for x in v.strip("()").split(",")]
            functypes[int(m.group(1))] = (m.group(2), params)
            continue
        m = re.match(r"^atnr=(\d+)$", s)
        if m:
            atnr = int(m.group(1))
            continue
        if re.match(r"^moltype \(\d+\):$", s):
            current = {"types": [], "charges": [], "exclusions": 0, "terms": []}
            moltypes.append(current)
            continue
        if re.match(r"^molblock \(\d+\):$", s):
            molblocks.append({})
            current = None
            continue
        if current is None:
            m = re.match(r"^(moltype|#molecules)\s*=\s*(\d+)", s)
            if m and molblocks:
                molblocks[-1]["type" if m.group(1) == "moltype" else "count"] = int(m.group(2))
            continue
        m = re.match(r"^atom\[\s*\d+\]=\{type=\s*(\d+),.*[ ,]q=\s*([-+0-9.eE]+)", s)
        if m:
            current["types"].append(int(m.group(1)))
            current["charges"].append(float(m.group(2)))
            continue
        m = re.match(r"^numLists=(\d+)$", s)
        if m:
            current["lists"] = int(m.group(1))
            continue
        m = re.match(r"^numElements=(\d+)$", s)
        if m:
            # Every atom's list holds the atom itself; the rest are pairs counted twice.
            current["exclusions"] = (int(m.group(1)) - current["lists"]) // 2
            continue
        m = re.match(r"^\d+ type=(\d+) \((\w+)\)\s+([\d\s]+)$", s)
        if m and m.group(2) not in NOT_TERMS:
            current["terms"].append((int(m.group(1)), [int(a) for a in m.group(3).split()]))
    return functypes, atnr, moltypes, molblocks


def dump_counts(dump_text):
    """Whole-system counts: each molecule type's times its molecules."""
    functypes, _, moltypes, molblocks = parse_dump(dump_text)
    total = {k: 0 for k in KEYS}
    total["charge"] = 0.0
    for block in molblocks:
        mt, n = moltypes[block["type"]], block["count"]
        total["atoms"] += n * len(mt["types"])
        total["charge"] += n * sum(mt["charges"])
        total["exclusions"] += n * mt["exclusions"]
        for t, _ in mt["terms"]:
            total[DUMP_FUNCTIONS.get(functypes[t][0], ("other",))[0]] += n
    return total


def dump_terms(dump_text):
    """Every term of the system: {(name, atoms): [params, ...]}, and the LJ table as a
    function of two system-wide atom indices."""
    functypes, atnr, moltypes, molblocks = parse_dump(dump_text)
    terms, atom_type, first = {}, [], 0
    for block in molblocks:
        mt = moltypes[block["type"]]
        for _ in range(block["count"]):
            atom_type.extend(mt["types"])
            for t, atoms in mt["terms"]:
                ftype, params = functypes[t]
                _, name, keys = DUMP_FUNCTIONS.get(ftype, ("other", ftype, []))
                if name == "SETTLE":
                    atoms = atoms[:1]
                values = [x for k in keys for x in params[k]]
                terms.setdefault((name, tuple(first + a for a in atoms)), []).append(values)
            first += len(mt["types"])

    def lj(a, b):
        params = functypes[atom_type[a] * atnr + atom_type[b]][1]
        return params["c6"] + params["c12"]

    return terms, lj


def close(a, b):
    return all(abs(x - y) <= max(ABSOLUTE, RELATIVE * max(abs(x), abs(y))) for x, y in zip(a, b)) and len(a) == len(b)


def compare_terms(dump_text, terms_file):
    """Mismatches between the dump's terms and Faraday's (faraday_terms.txt), by kind."""
    theirs, lj = dump_terms(dump_text)
    ours, checked, problems = {}, {}, []
    for line in open(terms_file):
        head, _, tail = line.partition("|")
        name, *atoms = head.split()
        values = [float(x) for x in tail.split()]
        if name == "LJPAIR":
            checked["LJ table"] = checked.get("LJ table", 0) + 1
            if not close(values, lj(int(atoms[0]), int(atoms[1]))):
                problems.append("LJ table at atoms %s %s: faraday %s, grompp %s" % (atoms[0], atoms[1], values, lj(int(atoms[0]), int(atoms[1]))))
            continue
        ours.setdefault((name, tuple(int(a) for a in atoms)), []).append(values)
    for key in sorted(set(ours) | set(theirs)):
        a, b = sorted(ours.get(key, [])), sorted(theirs.get(key, []))
        checked[key[0]] = checked.get(key[0], 0) + len(a)
        if len(a) != len(b) or not all(close(x, y) for x, y in zip(a, b)):
            problems.append("%s %s: faraday %s, grompp %s" % (key[0], " ".join(map(str, key[1])), a, b))
    return checked, problems


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
    expected, dumps = {}, {}
    for spec in args.case:
        name, top, gro, *rest = spec.split(":")
        defines = rest[0] if rest else ""
        work = os.path.join(cases_dir, name)
        os.makedirs(work)
        with open(os.path.join(work, "grompp.mdp"), "w") as f:
            f.write(MDP.format(defines=defines))
        run(["gmx", "grompp", "-f", "grompp.mdp", "-c", os.path.abspath(gro), "-r", os.path.abspath(gro),
             "-p", os.path.abspath(top), "-o", "topol.tpr", "-po", "mdout.mdp", "-maxwarn", "10"], work)
        dumps[name] = run(["gmx", "dump", "-s", "topol.tpr"], work)
        counts = dump_counts(dumps[name])
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
    failed = r.returncode != 0
    for name in expected:
        terms = os.path.join(cases_dir, name, "faraday_terms.txt")
        if not os.path.exists(terms):
            continue
        checked, problems = compare_terms(dumps[name], terms)
        print("\n%s: parameters of %s terms compared with the .tpr, %d differ" % (
            name, ", ".join("%d %s" % (n, k) for k, n in sorted(checked.items())), len(problems)))
        for p in problems[:10]:
            print("  " + p)
        failed = failed or bool(problems)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
