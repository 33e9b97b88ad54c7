#!/usr/bin/env python3
"""Reference energies and forces of every bonded term from GROMACS (gmx_d, double precision).

Builds one small molecule carrying every bonded term Faraday computes (harmonic, GROMOS-96,
Morse and cubic bonds, harmonic, GROMOS-96 and Urey-Bradley angles, proper type 9,
Ryckaert-Bellemans, harmonic and periodic impropers, CMAP on two grids, 1-4 pairs of type 2,
position restraints), with no
non-bonded interaction (zero charges and LJ), runs one step of `gmx_d mdrun` and writes
tests/data/bonded_gmx_reference.txt: the terms (Faraday units, angles in degrees as in the
.top), the positions, the energies per `gmx energy` term and the forces at full precision.
test_bonded_gromacs.cpp reads it and compares Faraday's CPU reference.

Usage: tools/bonded_gmx_reference.py [output file]   (needs gmx_d on PATH)
"""
import math
import os
import subprocess
import sys
import tempfile

GMX = os.environ.get("GMX", "gmx_d")
N = 24  # CMAP points per angle


def cmap_grid(seed):
    """A smooth periodic map of the CHARMM scale plus a bumpy part, phi major (rows: phi)."""
    out = []
    for a in range(N):
        for b in range(N):
            phi = -math.pi + 2 * math.pi * a / N
            psi = -math.pi + 2 * math.pi * b / N
            e = (6 * math.cos(phi + 0.3 * seed) + 4 * math.sin(2 * psi - seed) + 3 * math.cos(phi - psi)
                 + 2 * math.sin(2 * phi + psi + seed) + 1.5 * math.cos(3 * psi) * math.sin(phi)
                 + 0.7 * math.sin(5 * a + 3 * b + seed))  # the last: not smooth, as real maps are not
            out.append(e)
    return out


def place(i, j, k, bond, angle, dihedral):
    """Atom l with |l - k| = bond, angle j-k-l and dihedral i-j-k-l (degrees, IUPAC)."""
    def sub(u, v): return [u[0] - v[0], u[1] - v[1], u[2] - v[2]]
    def cross(u, v): return [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
    def unit(u):
        n = math.sqrt(sum(c * c for c in u))
        return [c / n for c in u]
    bc = unit(sub(k, j))
    n = unit(cross(sub(j, i), bc))
    m = cross(n, bc)
    a, d = math.radians(angle), math.radians(dihedral)
    x, y, z = -bond * math.cos(a), bond * math.sin(a) * math.cos(d), bond * math.sin(a) * math.sin(d)
    return [k[c] + bc[c] * x + m[c] * y + n[c] * z for c in range(3)]


def molecule():
    """Seven atoms: positions (nm) and the terms, as (kind, atoms 0-based, parameters)."""
    x = [[1.20, 1.30, 1.40], [1.35, 1.31, 1.42]]
    x.append(place([1.2, 1.5, 1.4], x[0], x[1], 0.153, 111.0, 75.0))
    for bond, angle, dih in [(0.149, 108.0, -65.0), (0.152, 114.0, 172.0), (0.147, 104.0, 7.5), (0.151, 118.0, -129.0)]:
        x.append(place(x[-3], x[-2], x[-1], bond, angle, dih))
    terms = [
        ("bond", [0, 1], [0.150, 2.5e5]),
        ("bond", [1, 2], [0.154, 3.1e5]),
        ("bond", [3, 4], [0.149, 2.9e5]),
        ("bond", [5, 6], [0.146, 2.2e5]),
        ("morse", [2, 3], [0.151, 420.0, 21.5]),
        ("morse", [4, 5], [0.150, 380.0, 19.0]),
        ("g96bond", [0, 2], [0.248, 3.5e6]),
        ("g96bond", [2, 4], [0.256, 2.8e6]),
        ("cubic", [1, 3], [0.240, 229074.0, -16.5]),
        ("cubic", [4, 6], [0.259, 1.8e5, -12.0]),
        ("angle", [0, 1, 2], [109.5, 400.0]),
        ("angle", [2, 3, 4], [111.0, 350.0]),
        ("angle", [4, 5, 6], [120.0, 420.0]),
        ("g96angle", [0, 2, 4], [112.0, 520.0]),
        ("g96angle", [1, 3, 5], [118.0, 380.0]),
        ("ub", [1, 2, 3], [107.0, 330.0, 0.245, 2.2e4]),
        ("ub", [3, 4, 5], [110.0, 310.0, 0.240, 1.8e4]),
        ("proper", [0, 1, 2, 3], [0.0, 0.6, 3]),
        ("proper", [0, 1, 2, 3], [180.0, 1.1, 2]),
        ("proper", [2, 3, 4, 5], [35.0, 2.3, 1]),
        ("proper", [3, 4, 5, 6], [-120.0, 4.0, 4]),
        ("rb", [1, 2, 3, 4], [9.28, 12.16, -13.12, -3.06, 26.24, -31.5]),
        ("rb", [4, 3, 2, 1], [2.1, -1.3, 0.7, 3.3, -2.2, 1.1]),
        ("improper", [1, 0, 2, 3], [-40.0, 60.0]),
        ("improper", [4, 3, 5, 6], [170.0, 45.0]),
        ("perimproper", [2, 1, 3, 4], [180.0, 4.6, 2]),
        ("perimproper", [5, 4, 6, 3], [15.0, 2.5, 3]),
        ("cmap", [0, 1, 2, 3, 4], [0]),
        ("cmap", [2, 3, 4, 5, 6], [1]),
        ("pair", [0, 3], [0.5, 0.45, -0.62, 2.1e-3, 3.3e-6]),
        ("pair", [2, 5], [0.8333, -0.31, 0.27, 1.7e-3, 2.4e-6]),
        ("pair", [3, 6], [1.0, 0.6, 0.5, 2.4e-3, 4.1e-6]),
        ("posres", [1], [1000.0, 1500.0, 2000.0]),
        ("posres", [5], [500.0, 500.0, 800.0]),
    ]
    ref = [[c + 0.03 * math.sin(3 * i + d) for d, c in enumerate(p)] for i, p in enumerate(x)]
    return x, ref, terms


def gro(path, x):
    with open(path, "w") as f:
        f.write("bonded reference\n%5d\n" % len(x))
        for i, p in enumerate(x):
            f.write("%5d%-5s%5s%5d%15.10f%15.10f%15.10f\n" % (1, "MOL", "A%d" % (i + 1), i + 1, p[0], p[1], p[2]))
        f.write("%10.5f%10.5f%10.5f\n" % (4.0, 4.0, 4.0))


def top(path, x, terms, grids):
    kinds = {"bond": ("bonds", 1), "g96bond": ("bonds", 2), "morse": ("bonds", 3), "cubic": ("bonds", 4),
             "angle": ("angles", 1), "g96angle": ("angles", 2), "ub": ("angles", 5),
             "proper": ("dihedrals", 9), "rb": ("dihedrals", 3), "improper": ("dihedrals", 2),
             "perimproper": ("dihedrals", 4), "pair": ("pairs", 2), "posres": ("position_restraints", 1)}
    with open(path, "w") as f:
        f.write("[ defaults ]\n1 1 no 1.0 1.0\n\n[ atomtypes ]\n")
        for i in range(len(x)):
            f.write("T%d 6 12.011 0.0 A 0.0 0.0\n" % (i + 1))
        f.write("\n[ cmaptypes ]\n")
        for g, grid in enumerate(grids):
            first = 2 * g  # grid g on the atoms of the term that uses it
            names = " ".join("T%d" % (first + k + 1) for k in range(5))
            f.write("%s 1 %d %d\\\n" % (names, N, N))
            for r in range(0, len(grid), 10):
                f.write(" ".join("%.12f" % v for v in grid[r:r + 10]) + ("\\\n" if r + 10 < len(grid) else "\n"))
        f.write("\n[ moleculetype ]\nMOL 3\n\n[ atoms ]\n")
        for i in range(len(x)):
            f.write("%d T%d 1 MOL A%d %d 0.0 12.011\n" % (i + 1, i + 1, i + 1, i + 1))
        for kind in ["bond", "g96bond", "morse", "cubic", "angle", "g96angle", "ub", "proper", "rb", "improper",
                     "perimproper", "pair", "posres"]:
            section, ft = kinds[kind]
            f.write("\n[ %s ]\n" % section)
            for k, atoms, p in terms:
                if k == kind:
                    f.write(" ".join(str(a + 1) for a in atoms) + " %d " % ft + " ".join(repr(v) for v in p) + "\n")
        f.write("\n[ cmap ]\n")
        for k, atoms, p in terms:
            if k == "cmap":
                f.write(" ".join(str(a + 1) for a in atoms) + " 1\n")
        f.write("\n[ system ]\nbonded reference\n\n[ molecules ]\nMOL 1\n")


MDP = """integrator = md
nsteps = 0
dt = 0.001
cutoff-scheme = Verlet
nstcalcenergy = 1
nstenergy = 1
nstfout = 1
coulombtype = cut-off
rcoulomb = 1.0
rvdw = 1.0
pbc = xyz
tcoupl = no
pcoupl = no
constraints = none
gen-vel = no
"""

TERMS = ["Bond", "G96Bond", "Morse", "Cubic Bonds", "Angle", "G96Angle", "U-B", "Proper Dih.", "Ryckaert-Bell.",
         "Improper Dih.", "Per. Imp. Dih.", "CMAP Dih.", "LJ-14", "Coulomb-14", "Position Rest."]


def run(args, cwd, stdin=None):
    subprocess.run(args, cwd=cwd, input=stdin, text=True, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)


def xvg_rows(path):
    legends, rows = [], []
    for line in open(path):
        if line.startswith("@ s") and "legend" in line:
            legends.append(line.split('"')[1])
        elif not line.startswith(("#", "@")) and line.strip():
            rows.append([float(v) for v in line.split()])
    return legends, rows


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "data",
                                                              "bonded_gmx_reference.txt")
    x, ref, terms = molecule()
    grids = [cmap_grid(1), cmap_grid(2)]
    with tempfile.TemporaryDirectory() as d:
        gro(os.path.join(d, "conf.gro"), x)
        gro(os.path.join(d, "ref.gro"), ref)
        top(os.path.join(d, "topol.top"), x, terms, grids)
        open(os.path.join(d, "md.mdp"), "w").write(MDP)
        run([GMX, "grompp", "-f", "md.mdp", "-c", "conf.gro", "-r", "ref.gro", "-p", "topol.top", "-o", "run.tpr",
             "-maxwarn", "5"], d)
        run([GMX, "mdrun", "-s", "run.tpr", "-nt", "1", "-deffnm", "run"], d)
        # gmx energy's menu writes the names with '-' for ' '.
        run([GMX, "energy", "-f", "run.edr", "-dp", "-o", "energy.xvg"], d,
            "\n".join(t.replace(" ", "-") for t in TERMS) + "\n\n")
        run([GMX, "traj", "-f", "run.trr", "-s", "run.tpr", "-of", "force.xvg", "-fp"], d, "0\n")
        legends, rows = xvg_rows(os.path.join(d, "energy.xvg"))
        energies = dict(zip(legends, rows[0][1:]))
        _, frows = xvg_rows(os.path.join(d, "force.xvg"))
        forces = frows[0][1:]
        version = subprocess.run([GMX, "--version"], capture_output=True, text=True).stdout
        version = next(line for line in version.splitlines() if line.startswith("GROMACS version")).split(":")[1].strip()
    with open(out, "w") as f:
        f.write("# Bonded terms of one molecule and their energies (kJ/mol) and forces (kJ/mol/nm) from\n")
        f.write("# GROMACS %s, double precision (gmx_d), written by tools/bonded_gmx_reference.py.\n" % version)
        f.write("# Angles in degrees as in the .top; lengths nm; box 4 nm; no non-bonded interactions.\n")
        f.write("# g96bond: b0 kb (U = kb/4 (r^2 - b0^2)^2); cubic: b0 kb kcub; g96angle: theta0 k (harmonic in cos).\n")
        f.write("# pair: fudgeQQ qi qj c6 c12; posres: kx ky kz with the reference in 'reference'.\n")
        for g, grid in enumerate(grids):
            f.write("cmapgrid %d %d %s\n" % (g, N, " ".join("%.12f" % v for v in grid)))
        for k, atoms, p in terms:
            f.write("%s %s %s\n" % (k, " ".join(str(a) for a in atoms), " ".join(repr(v) for v in p)))
        for i, (p, r) in enumerate(zip(x, ref)):
            f.write("position %d %.10f %.10f %.10f\n" % (i, p[0], p[1], p[2]))
            f.write("reference %d %.10f %.10f %.10f\n" % (i, r[0], r[1], r[2]))
        for t in TERMS:
            f.write("energy %s %.15g\n" % (t.replace(" ", "_"), energies[t]))
        for i in range(len(x)):
            f.write("force %d %.15g %.15g %.15g\n" % (i, forces[3 * i], forces[3 * i + 1], forces[3 * i + 2]))


if __name__ == "__main__":
    main()
