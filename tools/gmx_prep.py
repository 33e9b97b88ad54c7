"""Shared steps of the GROMACS-based builders in tools/ (gromacs_reference.py, build_protein.py):
running gmx, cutting peptides from adenylate kinase, solvating, adding ions, minimising, and
copying a topology with the force-field files it includes.

Everything runs one thread (mdrun -nt 1 -reprod: no run-time choices such as FFT plans that
change the last bits) with fixed seeds, so a rerun on the same machine and GROMACS build gives
the same files. The GROMACS binary is $GMX (default gmx_d, double
precision); the force fields come from $GMXDATA/top (default /usr/share/gromacs/top).
"""
import math
import os
import re
import shutil
import subprocess
import sys

from gro import box_vectors, read_gro, write_gro

GMX = os.environ.get("GMX", "gmx_d")
GMX_TOP = os.path.join(os.environ.get("GMXDATA", "/usr/share/gromacs"), "top")

# Non-bonded settings shared by every system (minimisation and reference): Verlet lists with
# rlist above the cutoffs (with rlist = rc, update groups let GROMACS miss pairs a little
# inside the cutoff), potential-shifted LJ and real-space Ewald, PME order 4 with
# erfc(beta rc) = ewald_rtol (PME order 4 unless said otherwise), no dispersion correction, no
# constraints (flexible water).
NONBONDED = [
    ("cutoff-scheme", "Verlet"),
    ("verlet-buffer-tolerance", "-1"),
    ("nstlist", "10"),
    ("rlist", "1.2"),
    ("pbc", "xyz"),
    ("coulombtype", "PME"),
    ("coulomb-modifier", "Potential-shift"),
    ("rcoulomb", "1.0"),
    ("vdwtype", "Cut-off"),
    ("vdw-modifier", "Potential-shift"),
    ("rvdw", "1.0"),
    ("DispCorr", "no"),
    ("ewald-rtol", "1e-5"),
    ("ewald-geometry", "3d"),
    ("epsilon-surface", "0"),
    ("epsilon-r", "1"),
    ("constraints", "none"),
]


def fail(message):
    sys.exit(f"{os.path.basename(sys.argv[0])}: {message}")


def gmx(args, cwd, stdin=None, env=None, check=True):
    """Runs `$GMX args` in cwd; its output is appended to cwd/gmx.log and returned. A failure
    ends the script unless check is False."""
    full_env = dict(os.environ, **(env or {}))
    cmd = [GMX] + [str(a) for a in args]
    result = subprocess.run(cmd, cwd=cwd, input=stdin, text=True, capture_output=True, env=full_env)
    text = result.stdout + result.stderr
    with open(os.path.join(cwd, "gmx.log"), "a") as f:
        f.write(f"$ {' '.join(cmd)}\n{text}\n")
    if check and result.returncode != 0:
        fail(f"'{' '.join(cmd)}' failed in {cwd}:\n{text[-3000:]}")
    return text


def padded_box(gro, padding):
    """Rectangular box edges (nm, rounded up to 0.1 nm) leaving `padding` nm on every side of
    the atoms of gro."""
    _, _, x, _ = read_gro(gro)
    lo = [min(p[d] for p in x) for d in range(3)]
    hi = [max(p[d] for p in x) for d in range(3)]
    return [math.ceil((h - l + 2 * padding) * 10 - 1e-9) / 10 for l, h in zip(lo, hi)]


def nice_grid(edge, spacing=0.1):
    """Smallest FFT-friendly (factors 2, 3, 5, 7) grid size with spacing <= `spacing` nm."""
    n = int(edge / spacing - 1e-9) + 1
    while True:
        m = n
        for p in (2, 3, 5, 7):
            while m % p == 0:
                m //= p
        if m == 1:
            return n
        n += 1


def vector_lengths(vectors):
    """Lengths (nm) of the box vectors a, b, c."""
    return [math.sqrt(sum(v * v for v in row)) for row in vectors]


def grid_for_vectors(vectors, spacing=0.1):
    """A PME grid of spacing <= `spacing` nm along each box vector (as GROMACS sizes one from
    the vectors' lengths)."""
    return [nice_grid(length, spacing) for length in vector_lengths(vectors)]


def mdp_text(integrator, define, grid, extra=(), pme_order=4):
    """An .mdp with the shared non-bonded settings and an explicit PME grid (nx, ny, nz); an
    `extra` (name, value) pair replaces a shared setting of the same name."""
    extra = list(extra)
    names = {k for k, _ in extra}
    lines = [("integrator", integrator), ("define", define)] + extra + [kv for kv in NONBONDED if kv[0] not in names]
    lines += [("pme-order", pme_order), ("fourier-nx", grid[0]), ("fourier-ny", grid[1]), ("fourier-nz", grid[2])]
    return "".join(f"{k:<24s}= {v}\n" for k, v in lines)


def adk_pdb(state="closed"):
    """Path of adenylate kinase (adk_closed.pdb or adk_open.pdb) from MDAnalysisTests."""
    try:
        import MDAnalysisTests
    except ImportError:
        fail("needs MDAnalysisTests (pip install MDAnalysisTests) for adenylate kinase")
    path = os.path.join(os.path.dirname(MDAnalysisTests.__file__), "data", f"adk_{state}.pdb")
    if not os.path.exists(path):
        fail(f"{path} not found")
    return path


def write_heavy_atoms(src, dst, first=None, last=None):
    """Copies the ATOM records of residues first..last (all when None) without hydrogens, for
    pdb2gmx -ignh to rebuild them with the force field's names and geometry."""
    with open(src) as f, open(dst, "w") as out:
        for line in f:
            if not line.startswith("ATOM"):
                continue
            resnr = int(line[22:26])
            if (first is not None and resnr < first) or (last is not None and resnr > last):
                continue
            if line[12:16].strip().startswith("H"):
                continue
            out.write(line)
        out.write("END\n")


# The waters pdb2gmx -water names; the others (tip4pew, tip5pe, ...) are chosen from the list of
# the force field's watermodels.dat (-water select).
PDB2GMX_WATERS = ("none", "spc", "spce", "tip3p", "tip4p", "tip5p", "tips3p")


def pdb2gmx(cwd, pdb, forcefield, water):
    """pdb2gmx with charged termini (its default) and hydrogens rebuilt: protein.gro, topol.top,
    posre.itp in cwd. `water`: a name of the force field's watermodels.dat."""
    stdin = None
    if water not in PDB2GMX_WATERS:
        with open(os.path.join(GMX_TOP, forcefield + ".ff", "watermodels.dat")) as f:
            names = [line.split()[0] for line in f if line.strip()]
        if water not in names:
            fail(f"{forcefield}.ff has no water model {water} (watermodels.dat lists {', '.join(names)})")
        stdin, water = f"{names.index(water) + 1}\n", "select"
    gmx(["pdb2gmx", "-f", pdb, "-o", "protein.gro", "-p", "topol.top", "-i", "posre.itp",
         "-ff", forcefield, "-water", water, "-ignh"], cwd, stdin=stdin)


def solvate_and_ions(cwd, gro, box, grid, concentration=None, seed=2026, solvent="spc216.gro"):
    """Puts gro in the centre of a box, fills it with water (from `solvent`: spc216.gro, or
    tip4p.gro and tip5p.gro for the models with extra sites, as GROMACS ships them) and replaces
    water by Na+/Cl-: neutralising only, or at `concentration` mol/L as well. Writes
    solvated.gro; topol.top gets the molecule counts.

    box: the three edges (nm) of a rectangular box, or (shape, distance) for `gmx editconf -bt
    shape -d distance` (cubic, dodecahedron, octahedron: box vectors in GROMACS' reduced form,
    `distance` nm between the solute and the box). grid None: from the box vectors' lengths."""
    shape = ["-bt", box[0], "-d", box[1]] if isinstance(box[0], str) else ["-box"] + list(box)
    gmx(["editconf", "-f", gro, "-o", "boxed.gro"] + shape + ["-c"], cwd)
    if grid is None:
        grid = grid_for_vectors(read_gro(os.path.join(cwd, "boxed.gro"), vectors=True)[3])
    gmx(["solvate", "-cp", "boxed.gro", "-cs", solvent, "-p", "topol.top", "-o", "water.gro"], cwd)
    # (grompp warns about the net charge that genion is about to remove)
    with open(os.path.join(cwd, "ions.mdp"), "w") as f:
        f.write(mdp_text("steep", "-DFLEXIBLE", grid))
    gmx(["grompp", "-f", "ions.mdp", "-c", "water.gro", "-p", "topol.top", "-o", "ions.tpr", "-maxwarn", "1"], cwd)
    args = ["genion", "-s", "ions.tpr", "-o", "solvated.gro", "-p", "topol.top", "-pname", "NA", "-nname", "CL",
            "-neutral", "-seed", seed]
    if concentration:
        args += ["-conc", concentration]
    gmx(args, cwd, stdin="SOL\n")


def minimise(cwd, gro, top, grid, out, define="-DFLEXIBLE", maxwarn=0, steps=5000, emtol=100.0):
    """Steepest descent with the reference settings until the largest force is below emtol
    kJ/mol/nm (or `steps`); the result is written to `out` with 6 decimals (from a .g96 with 9).
    Returns (potential energy, largest force) as mdrun reports them."""
    with open(os.path.join(cwd, "em.mdp"), "w") as f:
        f.write(mdp_text("steep", define, grid, [("nsteps", steps), ("emtol", emtol), ("emstep", "0.01"),
                                                 ("nstcalcenergy", "1"), ("nstenergy", "0")]))
    gmx(["grompp", "-f", "em.mdp", "-c", gro, "-p", top, "-o", "em.tpr", "-maxwarn", maxwarn], cwd)
    text = gmx(["mdrun", "-s", "em.tpr", "-deffnm", "em", "-c", "em.g96", "-nt", 1, "-reprod"], cwd)
    g96_to_gro(os.path.join(cwd, "em.g96"), os.path.join(cwd, out))
    energy = re.search(r"Potential Energy\s+=\s+(\S+)", text)
    force = re.search(r"Maximum force\s+=\s+(\S+)", text)
    return float(energy.group(1)), float(force.group(1))


def g96_to_gro(src, dst, decimals=6, title=None):
    """Rewrites a .g96 (coordinates with 9 decimals) as a .gro with `decimals` decimals; a
    triclinic box keeps its nine numbers."""
    with open(src) as f:
        lines = f.read().splitlines()
    title = title or lines[lines.index("TITLE") + 1]
    start, box_at = lines.index("POSITION") + 1, lines.index("BOX") + 1
    atoms, positions = [], []
    for line in lines[start:lines.index("END", start)]:
        resnr, resname, name, _, x, y, z = line.split()
        atoms.append((int(resnr), resname, name))
        positions.append((float(x), float(y), float(z)))
    box = [float(v) for v in lines[box_at].split()]
    if len(box) not in (3, 9):
        fail(f"{src}: a box line of {len(box)} numbers")
    write_gro(dst, title, atoms, positions, box_vectors(box), decimals=decimals)


def editconf_gro(cwd, src, dst, title, decimals=6):
    """Any coordinate file GROMACS reads, rewritten as a .gro with `decimals` decimals."""
    gmx(["editconf", "-f", src, "-o", "tmp.g96"], cwd)
    g96_to_gro(os.path.join(cwd, "tmp.g96"), os.path.join(cwd, dst), decimals, title)


def molecules(top):
    """[name, count] rows of the [ molecules ] section of a .top."""
    rows, inside = [], False
    with open(top) as f:
        for line in f:
            line = line.split(";")[0].strip()
            if line.startswith("["):
                inside = line.replace(" ", "") == "[molecules]"
            elif inside and line:
                name, count = line.split()
                rows.append([name, int(count)])
    return rows


def included_files(top):
    """(name as written, absolute source) of every file `top` includes, recursively; a name is
    resolved next to the file including it first, then in the GROMACS library (as grompp does).
    #ifdef branches are all followed, so files used only under a define are listed too."""
    found = []

    def walk(path, rel_dir):
        with open(path) as f:
            for line in f:
                m = re.match(r'\s*#include\s+"([^"]+)"', line)
                if not m:
                    continue
                name = m.group(1)
                local = os.path.join(os.path.dirname(path), name)
                source = local if os.path.exists(local) else os.path.join(GMX_TOP, rel_dir, name)
                if not os.path.exists(source):
                    source = os.path.join(GMX_TOP, name)
                if not os.path.exists(source):
                    fail(f"{path}: cannot find included file {name}")
                rel = os.path.normpath(os.path.join(rel_dir, name))
                if rel not in [r for r, _ in found]:
                    found.append((rel, os.path.abspath(source)))
                    walk(source, os.path.dirname(rel))

    walk(top, "")
    return found


VOLATILE = re.compile(r"^;\s*(By user|On host|At date|Working dir):")


def copy_topology(top, dest):
    """Copies top (as topol.top) and every file it includes into dest with the relative paths
    the #include lines use, so the topology reads without GROMACS installed. In the files made
    here (not the force field's) the header lines naming the user, host, date and folder are
    left out, so that a rebuild writes the same bytes. Returns the relative paths written."""
    os.makedirs(dest, exist_ok=True)
    written = []
    for rel, source in [("topol.top", os.path.abspath(top))] + included_files(top):
        target = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if source.startswith(os.path.abspath(GMX_TOP) + os.sep):
            shutil.copyfile(source, target)
        else:
            with open(source) as f, open(target, "w") as out:
                out.writelines(line for line in f if not VOLATILE.match(line))
        written.append(rel)
    return written
