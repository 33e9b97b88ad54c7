#!/usr/bin/env python3
"""Plots of Faraday's outputs (matplotlib), where looking beats reading.

  tools/plot.py energy out/energy.csv            energy.png, temperature.png, pressure.png (none for
                                                 an all-pairs log: open boundaries have no pressure);
                                                 the total energy's drift only for an NVE run (the
                                                 run.log beside the log says integrator.type = verlet)
  tools/plot.py bench pme_bench.csv              pme_phases.png: median time per PME phase,
                                                 CPU against GPU, one panel per system size
  tools/plot.py md md_bench.csv [--openmm openmm.log]
                                                 md_throughput.png: ns/day against system size per
                                                 system and platform (with OpenMM's figures from the
                                                 anchor's output); md_phases.png: ms per step per
                                                 phase, one bar per size and platform
  tools/plot.py map out/potential.dx --coordinates out/final.gro [--axis z] [--at 2.5]
                                                 (or a .mrc/.ccp4/.map file, MRC mode 2)
                                                 map_slice.png: the slice nearest to --at (nm,
                                                 default the middle) with the atoms within half a
                                                 grid spacing of the plane overlaid (a solute's
                                                 atoms within 0.3 nm)

Pictures go next to the input unless --out names a folder.
"""
import argparse
import csv
import math
import os
import sys

import gro
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_energy_log(path):
    """Columns of the energy log by name (the header line starts with '#')."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or not rows[0] or not rows[0][0].startswith("#"):
        sys.exit(f"{path}: not a Faraday energy log (no '#\"Step\"' header)")
    names = [rows[0][0][1:]] + rows[0][1:]
    columns = {name: [] for name in names}
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(names):
            sys.exit(f"{path}:{line}: {len(row)} fields, the header has {len(names)}")
        for name, value in zip(names, row):
            columns[name].append(float("nan") if value == "--" else float(value))
    return columns


def is_nve(path):
    """Whether the run of energy log `path` was NVE: its run.log (beside it) has integrator.type =
    verlet and no barostat. A thermostat or a barostat exchanges energy, so a drift of the total
    means nothing there; without a run log it is not known."""
    log = os.path.join(os.path.dirname(os.path.abspath(path)), "run.log")
    try:
        with open(log, errors="replace") as f:
            pairs = [line.strip("\n ").partition(" = ") for line in f if line.startswith("  ")]
    except OSError:
        return False
    settings = {key: value for key, sep, value in pairs if sep}
    return settings.get("integrator.type") == "verlet" and settings.get("barostat.enabled", "false") != "true"


def plot_energy(path, out):
    c = read_energy_log(path)
    t = c["Time (ps)"]
    fig, ax = plt.subplots(3, 1, sharex=True, figsize=(7, 7))
    for a, name in zip(ax, ["Potential Energy (kJ/mole)", "Kinetic Energy (kJ/mole)", "Total Energy (kJ/mole)"]):
        a.plot(t, c[name])
        a.set_ylabel(name.replace(" (kJ/mole)", "\n(kJ/mol)"))
        a.grid(alpha=0.3)
    total = c["Total Energy (kJ/mole)"]
    if total and total[0] != 0 and is_nve(path):
        # How well the total is conserved, in the panel's corner (NVE runs alone).
        change = max(abs(e - total[0]) for e in total) / abs(total[0])
        ax[2].set_title(f"max |E - E(0)| / |E(0)| = {change:.2e}", loc="right", fontsize=8)
        print(f"{path}: NVE energy drift max |E - E(0)| / |E(0)| = {change:.2e}")
    ax[-1].set_xlabel("time (ps)")
    fig.suptitle(os.path.basename(path) + ": energies")
    fig.tight_layout()
    written = [save(fig, out, "energy.png")]
    for name, file, label in [("Temperature (K)", "temperature.png", "temperature (K)"),
                              ("Pressure (bar)", "pressure.png", "pressure (bar)")]:
        if all(math.isnan(v) for v in c[name]):
            continue  # "--" throughout: nonbonded.mode = all-pairs has no pressure
        fig, a = plt.subplots(figsize=(7, 3.5))
        a.plot(t, c[name])
        a.set_xlabel("time (ps)")
        a.set_ylabel(label)
        a.grid(alpha=0.3)
        a.set_title(os.path.basename(path) + ": " + label)
        fig.tight_layout()
        written.append(save(fig, out, file))
    return written


def plot_bench(path, out):
    """pme_bench.csv: rows atoms,grid,order,spacing_nm,platform,phase,median_ms."""
    times = {}  # atoms -> platform -> phase -> ms
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            phase = row["phase"]
            if not phase.startswith("pme."):
                continue
            times.setdefault(int(row["atoms"]), {}).setdefault(row["platform"], {})[phase[4:]] = float(row["median_ms"])
    if not times:
        sys.exit(f"{path}: no pme.* phase rows")
    sizes = sorted(times)
    fig, axes = plt.subplots(1, len(sizes), figsize=(4.5 * len(sizes), 4), squeeze=False)
    for a, n in zip(axes[0], sizes):
        platforms = sorted(times[n])
        phases = list(next(iter(times[n].values())).keys())
        width = 0.8 / len(platforms)
        for k, p in enumerate(platforms):
            xs = [i + (k - (len(platforms) - 1) / 2) * width for i in range(len(phases))]
            a.bar(xs, [times[n][p].get(ph, 0.0) for ph in phases], width, label=p)
        a.set_xticks(range(len(phases)))
        a.set_xticklabels(phases, rotation=35, ha="right")
        a.set_ylabel("median time (ms)")
        a.set_title(f"{n} ions")
        a.grid(axis="y", alpha=0.3)
        a.legend()
    fig.suptitle("PME time per phase")
    fig.tight_layout()
    return [save(fig, out, "pme_phases.png")]


def read_md_bench(path):
    """md_bench.csv of faraday bench md: system,atoms,platform,...,ns_per_day,...,neighbor_ms,..."""
    rows = []
    with open(path, newline="") as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            try:
                rows.append({"system": row["system"], "platform": row["platform"], "atoms": int(row["atoms"]),
                             "ns_per_day": float(row["ns_per_day"]),
                             "phases": {k[:-3]: float(row[k]) for k in
                                        ("neighbor_ms", "nonbonded_ms", "pme_ms", "integrate_ms")}})
            except (KeyError, TypeError, ValueError) as e:
                sys.exit(f"{path}:{line}: not a faraday bench md row ({e})")
    if not rows:
        sys.exit(f"{path}: no rows")
    return rows


def read_openmm(path):
    """Lines 'PATH/SYSTEM_N.gro: atoms N ns/day X ...' of openmm_anchor.py -> {(system, atoms): ns/day}."""
    import re
    found = {}
    with open(path) as f:
        for line in f:
            m = re.search(r"([a-z]+)_\d+\.gro: atoms (\d+) ns/day ([0-9.]+)", line)
            if m:
                found[(m.group(1), int(m.group(2)))] = float(m.group(3))
    return found


def plot_md(path, out, openmm):
    rows = read_md_bench(path)
    fig, a = plt.subplots(figsize=(6.5, 4.5))
    for key in sorted({(r["system"], r["platform"]) for r in rows}):
        pts = sorted((r["atoms"], r["ns_per_day"]) for r in rows if (r["system"], r["platform"]) == key)
        a.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=f"Faraday {key[1]}, {key[0]}")
    if openmm:
        ref = read_openmm(openmm)
        for system in sorted({s for s, _ in ref}):
            pts = sorted((n, v) for (s, n), v in ref.items() if s == system)
            a.plot([p[0] for p in pts], [p[1] for p in pts], "s--", label=f"OpenMM CUDA, {system}")
    a.set_xscale("log")
    a.set_yscale("log")
    a.set_xlabel("atoms")
    a.set_ylabel("ns/day")
    a.grid(alpha=0.3, which="both")
    a.legend(fontsize=8)
    a.set_title("Whole-step MD throughput")
    fig.tight_layout()
    written = [save(fig, out, "md_throughput.png")]
    fig, a = plt.subplots(figsize=(max(6.0, 1.1 * len(rows)) + 1.5, 4.5))
    # Shares of the step (sizes differ by orders of magnitude), the step's ms above each bar.
    labels = [f"{r['system']} {r['atoms']}\n{r['platform']}" for r in rows]
    totals = [sum(r["phases"].values()) or 1.0 for r in rows]
    bottom = [0.0] * len(rows)
    for phase in ("neighbor", "nonbonded", "pme", "integrate"):
        values = [100 * r["phases"][phase] / t for r, t in zip(rows, totals)]
        a.bar(range(len(rows)), values, 0.7, bottom=bottom, label=phase)
        bottom = [b + v for b, v in zip(bottom, values)]
    for i, t in enumerate(totals):
        a.text(i, 101, f"{t:.3g} ms", ha="center", va="bottom", fontsize=7)
    a.set_xticks(range(len(rows)))
    a.set_xticklabels(labels, fontsize=7)
    a.set_ylim(0, 112)
    a.set_ylabel("share of the step (%)")
    a.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    a.set_title("Time per phase of one step")
    fig.tight_layout()
    written.append(save(fig, out, "md_phases.png"))
    return written


def read_dx(path):
    """An OpenDX map as Faraday and APBS write it: counts, origin and deltas (Angstrom), z fastest."""
    counts = origin = None
    deltas, values, units = [], [], "map units"
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            if words[0] == "#":
                if " units " in line:  # Faraday's comment: "... units kT/e at 300 K"
                    units = line.split(" units ", 1)[1].split(" at ")[0].strip()
                continue
            if line.startswith("object 1"):
                counts = [int(w) for w in words[-3:]]
            elif words[0] == "origin":
                origin = [float(w) for w in words[1:4]]
            elif words[0] == "delta":
                deltas.append([float(w) for w in words[1:4]])
            elif words[0][0] in "-+.0123456789":
                values.extend(float(w) for w in words)
    if counts is None or origin is None or len(deltas) != 3:
        sys.exit(f"{path}: not an OpenDX map (no counts, origin or deltas)")
    nx, ny, nz = counts
    if len(values) != nx * ny * nz:
        sys.exit(f"{path}: {len(values)} values for {nx} x {ny} x {nz} points")
    spacing = [deltas[i][i] for i in range(3)]
    return counts, origin, spacing, values, units


def read_mrc(path):
    """An MRC/CCP4 map of float32 values (mode 2) as read_dx returns an OpenDX one: counts,
    origin and the steps' diagonal (Angstrom), the values z fastest. With mrcfile when it is
    importable, else from the 1024-byte header as Faraday writes it: NC NR NS, MODE, NCSTART..,
    MX MY MZ, the cell's lengths (Angstrom) and angles (degrees), MAPC MAPR MAPS, ORIGIN in
    words 50-52; the extended header (NSYMBT bytes) follows."""
    import numpy as np

    try:
        import mrcfile
    except ImportError:
        mrcfile = None
    if mrcfile is not None:
        try:
            with mrcfile.open(path, permissive=True) as m:
                if m.data is None:
                    raise ValueError("no data")
                h = m.header
                counts = [int(h.nx), int(h.ny), int(h.nz)]
                mode = int(h.mode)
                starts = [int(h.nxstart), int(h.nystart), int(h.nzstart)]
                sampling = [int(h.mx), int(h.my), int(h.mz)]
                lengths = [float(h.cella.x), float(h.cella.y), float(h.cella.z)]
                angles = [float(h.cellb.alpha), float(h.cellb.beta), float(h.cellb.gamma)]
                axes = [int(h.mapc), int(h.mapr), int(h.maps)]
                origin = [float(h.origin.x), float(h.origin.y), float(h.origin.z)]
                data = np.asarray(m.data, dtype=np.float64)
        except ValueError as e:
            sys.exit(f"{path}: not an MRC/CCP4 map ({e})")
        if mode != 2:
            sys.exit(f"{path}: MRC mode {mode}, only mode 2 (float32) is read")
    else:
        with open(path, "rb") as f:
            header = f.read(1024)
            if len(header) < 1024:
                sys.exit(f"{path}: not an MRC/CCP4 map (shorter than its 1024-byte header)")
            words = np.frombuffer(header, dtype="<i4")
            floats = np.frombuffer(header, dtype="<f4")
            counts = [int(w) for w in words[0:3]]
            mode = int(words[3])
            starts = [int(w) for w in words[4:7]]
            sampling = [int(w) for w in words[7:10]]
            lengths = [float(x) for x in floats[10:13]]
            angles = [float(x) for x in floats[13:16]]
            axes = [int(w) for w in words[16:19]]
            origin = [float(x) for x in floats[49:52]]
            f.seek(1024 + int(words[23]))  # after the extended header
            raw = f.read()
        if mode != 2:
            sys.exit(f"{path}: MRC mode {mode}, only mode 2 (float32) is read")
        n = counts[0] * counts[1] * counts[2]
        if min(counts) <= 0 or len(raw) < 4 * n:
            sys.exit(f"{path}: {len(raw) // 4} values for {counts[0]} x {counts[1]} x {counts[2]} points")
        # Sections (MAPS) slowest, columns (MAPC) fastest.
        data = np.frombuffer(raw[:4 * n], dtype="<f4").astype(np.float64).reshape(counts[2], counts[1], counts[0])
    if sorted(axes) != [1, 2, 3]:
        sys.exit(f"{path}: MAPC, MAPR, MAPS = {axes} is no order of the axes 1, 2, 3")
    # The data's axes are (MAPS, MAPR, MAPC); put them in the order x, y, z, then z fastest.
    order = [axes[::-1].index(d + 1) for d in range(3)]
    data = data.transpose(order)
    counts = list(data.shape)
    sampling = [sampling[d] or counts[d] for d in range(3)]  # MX, MY, MZ are along x, y, z
    starts = [starts[axes.index(d + 1)] for d in range(3)]  # NCSTART.. follow the data axes
    # The steps' diagonal: a along x, b in the xy plane (the CCP4 convention).
    ca, cb, cg = (math.cos(math.radians(x)) for x in angles)
    sg = math.sin(math.radians(angles[2])) or 1.0
    cy = (ca - cb * cg) / sg
    diagonal = [lengths[0], lengths[1] * sg, lengths[2] * math.sqrt(max(1.0 - cb * cb - cy * cy, 0.0))]
    spacing = [diagonal[d] / sampling[d] for d in range(3)]
    if not any(origin):  # an older map places its first point by NCSTART.. alone
        origin = [starts[d] * spacing[d] for d in range(3)]
    return counts, origin, spacing, data.ravel().tolist(), "map units"


def read_map(path):
    """read_mrc for .mrc, .ccp4 and .map, read_dx for .dx; another name (a backup such as
    #potential.dx.1#) by its content: MRC has the word "MAP " at byte 208."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".dx", ".mrc", ".ccp4", ".map"):
        with open(path, "rb") as f:
            ext = ".mrc" if f.read(212)[208:] == b"MAP " else ".dx"
    return read_dx(path) if ext == ".dx" else read_mrc(path)


WATER = {"SOL", "WAT", "HOH", "TIP3", "TIP4", "SPC"}


def read_gro(path):
    """Overlay labels and positions (nm) of a .gro file's atoms: the atom name for atomic systems;
    for molecules (a water residue or more than five atom names) ions by name, the other
    residues' heavy atoms as "solute", water and hydrogens left out."""
    _, atoms, positions, _ = gro.read_gro(path)
    molecular = any(a[1] in WATER for a in atoms) or len({a[2] for a in atoms}) > 5
    out = []
    for (_, residue, name), x in zip(atoms, positions):
        if molecular:
            if residue in WATER or name.startswith("H"):
                continue
            name = name if residue == name else "solute"
        out.append((name, x[0], x[1], x[2]))
    return out


def plot_map(path, out, coordinates, axis, at):
    counts, origin, spacing, values, units = read_map(path)
    nx, ny, nz = counts
    d = "xyz".index(axis)
    # Grid coordinates in nm (the .dx file is in Angstrom).
    o = [x / 10 for x in origin]
    h = [x / 10 for x in spacing]
    k = counts[d] // 2 if at is None else min(max(round((at - o[d]) / h[d]), 0), counts[d] - 1)
    index = lambda i, j, l: (i * ny + j) * nz + l  # z fastest
    u, v = [a for a in range(3) if a != d]
    grid = [[values[index(*[(k if a == d else (p if a == u else q)) for a in range(3)])]
             for p in range(counts[u])] for q in range(counts[v])]
    # Each value is drawn as a pixel centred on its grid point.
    extent = [o[u] - h[u] / 2, o[u] + h[u] * (counts[u] - 0.5), o[v] - h[v] / 2, o[v] + h[v] * (counts[v] - 0.5)]
    fig, a = plt.subplots(figsize=(6.5, 5.5))
    # Colour range: the 99th percentile of |potential|, so that the few points next to an
    # atom (where the potential diverges) do not wash out the rest.
    magnitudes = sorted(abs(x) for row in grid for x in row)
    limit = magnitudes[int(0.99 * (len(magnitudes) - 1))] or 1.0
    image = a.imshow(grid, origin="lower", extent=extent, cmap="RdBu_r", vmin=-limit, vmax=limit)
    fig.colorbar(image, ax=a, label=f"potential ({units})", extend="both")
    plane = o[d] + k * h[d]
    if coordinates:
        # Atoms within half a spacing of the plane; a protein's heavy atoms within 0.3 nm, so that
        # its outline shows.
        near = [atom for atom in read_gro(coordinates)
                if abs(atom[1 + d] - plane) <= (max(h[d] / 2, 0.3) if atom[0] == "solute" else h[d] / 2)]
        colours = ["black", "yellow", "lime", "magenta", "cyan"]  # apart from the red-blue map
        for c, name in enumerate(sorted({atom[0] for atom in near})):
            pts = [atom for atom in near if atom[0] == name]
            a.scatter([p[1 + u] for p in pts], [p[1 + v] for p in pts], s=6 if name == "solute" else 14,
                      c=colours[c % len(colours)], edgecolors="k", linewidths=0.3 if name == "solute" else 0.5,
                      label=f"{name} ({len(pts)})")
        if near:
            a.legend(loc="upper right", fontsize=8, title=f"atoms within {h[d] / 2:.3g} nm"
                     + (" (solute 0.3 nm)" if any(n[0] == "solute" for n in near) else ""))
    a.set_xlabel(f"{'xyz'[u]} (nm)")
    a.set_ylabel(f"{'xyz'[v]} (nm)")
    a.set_title(f"{os.path.basename(path)}: {axis} = {plane:.3f} nm (slice {k} of {counts[d]})")
    fig.tight_layout()
    return [save(fig, out, "map_slice.png")]


def save(fig, folder, name):
    path = os.path.join(folder, name)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", choices=["energy", "bench", "md", "map"])
    p.add_argument("file")
    p.add_argument("--out", help="folder of the pictures (default: the input's folder)")
    p.add_argument("--coordinates", help="map: .gro whose atoms are overlaid")
    p.add_argument("--openmm", help="md: output of openmm_anchor.py on the same systems")
    p.add_argument("--axis", default="z", choices=["x", "y", "z"], help="map: normal of the slice")
    p.add_argument("--at", type=float, help="map: position of the slice along --axis, nm (default: middle)")
    a = p.parse_args()
    if not os.path.exists(a.file):
        sys.exit(f"{a.file}: not found")
    out = a.out or os.path.dirname(os.path.abspath(a.file))
    os.makedirs(out, exist_ok=True)
    if a.kind == "energy":
        written = plot_energy(a.file, out)
    elif a.kind == "bench":
        written = plot_bench(a.file, out)
    elif a.kind == "md":
        written = plot_md(a.file, out, a.openmm)
    else:
        written = plot_map(a.file, out, a.coordinates, a.axis, a.at)
    for w in written:
        print(w)


if __name__ == "__main__":
    main()
