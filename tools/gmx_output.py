"""Reading what GROMACS writes, for tools/gromacs_reference.py: .trr frames (exact doubles,
straight from the XDR file), energy terms (gmx energy -dp), the run parameters and notes of an
md.log, and the topology of a .tpr (gmx dump -s).
"""
import os
import re
import struct

import numpy as np

from gmx_prep import fail, gmx


def read_trr(path):
    """The frames of a .trr as dicts (box, x, v, f as N x 3 float64 arrays, natoms, step).

    Layout (XDR, big-endian): magic 1993, a version string, 13 ints (sizes in bytes of the
    ir, e, box, vir, pres, top, sym, x, v, f blocks; natoms, step, nre), time and lambda as
    reals, then the blocks present. The real size (4 or 8) follows from the sizes."""
    frames = []
    with open(path, "rb") as f:
        data = f.read()
    pos = 0
    while pos < len(data):
        magic, slen = struct.unpack_from(">2i", data, pos)
        if magic != 1993:
            fail(f"{path}: no .trr frame at byte {pos}")
        pos += 12 + (slen - 1 + 3) // 4 * 4  # magic, string length twice, the padded string
        ir, e, box, vir, pres, top, sym, x, v, force, natoms, step, nre = struct.unpack_from(">13i", data, pos)
        pos += 13 * 4
        real = box // 9 if box else (x or v or force) // (3 * natoms)
        pos += 2 * real  # time, lambda
        frame = {"natoms": natoms, "step": step}
        for name, size in (("box", box), ("vir", vir), ("pres", pres), ("x", x), ("v", v), ("f", force)):
            if size:
                values = np.frombuffer(data, dtype=">f8" if real == 8 else ">f4", count=size // real, offset=pos)
                frame[name] = values.astype(np.float64).reshape(-1, 3)
                pos += size
        frames.append(frame)
    return frames


def energies(run_dir, edr):
    """{term: value} of the first frame of an .edr, every term gmx energy offers, from -dp output."""
    listing = gmx(["energy", "-f", edr, "-o", "none.xvg"], run_dir, stdin="\n", check=False)
    table = listing.split("-" * 67)
    numbers = re.findall(r"(?:^|\s)(\d+)  \S", table[1]) if len(table) > 1 else []
    count = max(int(n) for n in numbers) if numbers else 0
    if count == 0:
        fail(f"{run_dir}/{edr}: gmx energy lists no terms")
    xvg = os.path.join(run_dir, "energy.xvg")
    gmx(["energy", "-f", edr, "-o", xvg, "-dp"], run_dir, stdin=" ".join(map(str, range(1, count + 1))) + "\n\n")
    names, values = [], None
    with open(xvg) as f:
        for line in f:
            m = re.match(r'@ s\d+ legend "(.*)"', line)
            if m:
                names.append(m.group(1))
            elif line.strip() and line[0] not in "#@":
                values = [float(v) for v in line.split()[1:]]
                break
    if values is None or len(values) != len(names):
        fail(f"{xvg}: cannot read the energies")
    return dict(zip(names, values))


def traj_forces(run_dir, trr, tpr):
    """Forces of the first frame as gmx traj -of -fp prints them (15 significant digits)."""
    xvg = os.path.join(run_dir, "forces.xvg")
    gmx(["traj", "-f", trr, "-s", tpr, "-of", xvg, "-fp", "-xvg", "none"], run_dir, stdin="0\n")
    with open(xvg) as f:
        values = [float(v) for v in f.readline().split()[1:]]
    return np.array(values).reshape(-1, 3)


def log_parameters(log):
    """The run parameters an md.log lists at its top ('   name = value'), first occurrence."""
    params = {}
    with open(log) as f:
        for line in f:
            m = re.match(r"^   (\S+)\s+= (.*)$", line)
            if m and m.group(1) not in params:
                params[m.group(1)] = m.group(2).strip()
    return params


def mdp_parameters(mdp):
    """name -> value of an .mdp (grompp's -po output lists every parameter)."""
    params = {}
    with open(mdp) as f:
        for line in f:
            m = re.match(r"^\s*([\w-]+)\s*=\s*(.*?)\s*$", line.split(";")[0])
            if m:
                params[m.group(1)] = m.group(2)
    return params


def log_facts(log):
    """Lines of an md.log that tell what mdrun did: Ewald width, shifts, kernels, pair list,
    notes, and anything it changed."""
    keep = re.compile(r"Gaussian width|Potential shift|short-range kernels|pair-list setup|rlist \d|"
                      r"combination rule|update groups|^NOTE|^WARNING|[Cc]hanging")
    noise = re.compile(r"of the run time|Thread affinity")
    with open(log) as f:
        return [line.strip() for line in f if keep.search(line.strip()) and not noise.search(line)]


def tpr_topology(run_dir, tpr):
    """The topology grompp built, from gmx dump -s: per atom charge q (e), mass m (amu) and LJ type;
    the LJ C6 (kJ/mol nm^6) and C12 (kJ/mol nm^12) of every type pair; the excluded pairs (i < j,
    0-based, self exclusions left out); which atoms are virtual sites (ptype VSite: boolean N,
    key "site"); and the number of entries of every interaction type (functions with several
    terms, such as dihedral type 9, count one entry per term).
    The dump prints q and m with 6 and C6/C12 with 9 significant digits."""
    text = gmx(["dump", "-s", tpr], run_dir)
    lines = text.splitlines()
    atnr = int(re.search(r"atnr=(\d+)", text).group(1))
    lj = [(float(a), float(b)) for a, b in re.findall(r"functype\[\d+\]=LJ_SR, c6=\s*(\S+), c12=\s*(\S+)", text)]
    c6 = np.array([p[0] for p in lj[:atnr * atnr]]).reshape(atnr, atnr)
    c12 = np.array([p[1] for p in lj[:atnr * atnr]]).reshape(atnr, atnr)
    blocks = re.findall(r'moltype\s+= (\d+) "[^"]*"\s+#molecules\s+= (\d+)', text)
    moltypes, current, section, pending = {}, None, None, None
    for line in lines:
        m = re.match(r"^   moltype \((\d+)\):", line)
        if m:
            current = moltypes.setdefault(int(m.group(1)), {"atoms": [], "counts": {}, "excls": []})
            section = None
            continue
        if re.match(r"^   \S", line):
            current = None  # the next top-level item of the dump
        if current is None:
            continue
        m = re.match(r"^\s+atom\[\s*\d+\]=\{type=\s*(\d+),.*?ptype=\s*(\w+), m=\s*(\S+), q=\s*(\S+),", line)
        if m:
            current["atoms"].append((int(m.group(1)), float(m.group(3)), float(m.group(4)), m.group(2) == "VSite"))
            continue
        m = re.match(r"^      (\S[^=]*):$", line)
        if m:
            section = m.group(1)
            continue
        if section == "excls":  # excls[i][num=n]={j, k, ...} (long lists go on over several lines)
            m = re.match(r"^\s+excls\[(\d+)\]\[num=\d+\]=\{(.*)$", line)
            if m:
                pending = [int(m.group(1)), m.group(2)]
            elif pending:
                pending[1] += line
            if pending and pending[1].rstrip().endswith("}"):
                i = pending[0]
                current["excls"] += [(i, int(j)) for j in pending[1].strip().rstrip("}").split(",") if int(j) > i]
                pending = None
            continue
        if section and re.match(r"^\s+\d+ type=\d+ \(\w+\)", line):
            current["counts"][section] = current["counts"].get(section, 0) + 1
    types, masses, charges, sites, excluded, counts = [], [], [], [], [], {}
    for moltype, copies in blocks:
        mol = moltypes[int(moltype)]
        for _ in range(int(copies)):
            offset = len(types)
            for t, m, q, site in mol["atoms"]:
                types.append(t)
                masses.append(m)
                charges.append(q)
                sites.append(site)
            excluded += [(offset + i, offset + j) for i, j in mol["excls"]]
        for name, n in mol["counts"].items():
            counts[name] = counts.get(name, 0) + n * int(copies)
    return {"type": np.array(types, dtype=np.int32), "mass": np.array(masses), "charge": np.array(charges),
            "c6": c6, "c12": c12, "excluded_pairs": np.array(excluded, dtype=np.int32).reshape(-1, 2),
            "site": np.array(sites, dtype=bool), "counts": counts}


def grompp_messages(text):
    """The NOTE and WARNING paragraphs of grompp's output, one string each."""
    found = re.findall(r"((?:NOTE|WARNING) \d+ \[file [^\]]*\]:\n(?:.+\n)+)", text)
    return [" ".join(m.split()) for m in found]

