#!/usr/bin/env python3
"""Checks the GROMACS reference data of tests/data/gromacs (made by tools/gromacs_reference.py)
without GROMACS: every file is there and loads, and the numbers agree with each other.

Per system:
  - topol.top and every file it includes (all #ifdef branches) resolve inside the folder;
  - conf.gro, forces.npy (N x 3 float64, finite) and tpr/*.npy (or tpr.npz) agree on N, the box
    (three edges, or the vectors of a triclinic box) matches;
  - the energy terms add up to Potential;
  - the charges add up to the stated net charge, an integer;
  - the net force is small against the forces (bonded, LJ and real-space forces cancel in
    pairs; PME's reciprocal force and the position restraints do not): with restraints, the
    net force minus the restraint forces (recomputed from posre.itp, restraint.gro and conf.gro,
    whose energy must equal "Position Rest.") is what must be small;
  - the virial tensor is symmetric (the potential does not change under a rotation), but for
    rigid water's constraint virial.
With --direct, LJ (SR) and Coulomb (SR) are summed pair by pair from tpr/*.npy and conf.gro
as reference.json's term_notes say, and an Ewald sum in reciprocal space is compared with
GROMACS's PME on the finer grid of pme_convergence: this shows what each GROMACS term contains.

Usage: tools/check_gromacs_reference.py [--data tests/data/gromacs] [--direct] [system ...]
       tools/check_gromacs_reference.py --data tests/data/gromacs/corpus [--direct]
Exit status 0 when every check passes.
"""
import argparse
import json
import itertools
import math
import os
import re
import sys

import numpy as np

from gro import read_gro

HERE = os.path.dirname(os.path.abspath(__file__))
# GROMACS 2022 derives 1/(4 pi eps0) from CODATA 2018 (e, eps0, N_A): 138.93545764438198 kJ/mol nm/e^2,
# 2.6e-9 below the rounded 138.935458.
COULOMB = 138.93545764438198


class Checker:
    def __init__(self, name):
        self.name, self.failures, self.passed = name, [], 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failures.append(what)
        return ok


def includes_resolve(top, chk):
    """Follows every #include of top (all branches) relative to the including file."""
    seen, todo = set(), [top]
    while todo:
        path = todo.pop()
        with open(path) as f:
            for n, line in enumerate(f, start=1):
                m = re.match(r'\s*#include\s+"([^"]+)"', line)
                if m:
                    target = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
                    if chk.check(os.path.exists(target), f"{path}:{n}: {m.group(1)} not found beside it"):
                        if target not in seen:
                            seen.add(target)
                            todo.append(target)
    return seen


def minimum_image(d, vectors):
    """The shortest periodic images of the differences d (N x 3, or rows x N x 3) in the box
    whose vectors are the rows of `vectors`: the shifts c, then b, then a, followed by the
    best of the 27 neighbouring images (which a triclinic box needs)."""
    vectors = np.asarray(vectors, dtype=float)
    d = np.array(d, dtype=float)
    for k in (2, 1, 0):
        d -= np.round(d[..., k] / vectors[k, k])[..., None] * vectors[k]
    if not np.any(vectors - np.diag(np.diag(vectors))):
        return d
    best, best2 = d, np.einsum("...k,...k->...", d, d)
    for shift in itertools.product((-1, 0, 1), repeat=3):
        if any(shift):
            e = d + np.array(shift, dtype=float) @ vectors
            e2 = np.einsum("...k,...k->...", e, e)
            closer = e2 < best2
            best = np.where(closer[..., None], e, best)
            best2 = np.where(closer, e2, best2)
    return best


def load_tpr_arrays(folder):
    """The topology arrays of tpr/*.npy, or of tpr.npz where the folder has that instead."""
    keys = ("charge", "mass", "type", "c6", "c12", "excluded_pairs")
    if os.path.exists(os.path.join(folder, "tpr.npz")):
        with np.load(os.path.join(folder, "tpr.npz")) as arrays:
            return {key: arrays[key] for key in keys}
    return {key: np.load(os.path.join(folder, "tpr", key + ".npy")) for key in keys}


def restraint_forces(folder, x, box):
    """(energy, forces) of the position restraints of posre.itp (atom numbers of the first
    molecule, which starts at atom 1) pulling conf.gro's atoms towards restraint.gro's."""
    _, _, ref, _ = read_gro(os.path.join(folder, "restraint.gro"), vectors=True)
    ref = np.array(ref)
    forces = np.zeros_like(x)
    energy, inside = 0.0, False
    with open(os.path.join(folder, "posre.itp")) as f:
        for line in f:
            line = line.split(";")[0].strip()
            if line.startswith("["):
                inside = line.replace(" ", "") == "[position_restraints]"
            elif inside and line and not line.startswith("#"):
                fields = line.split()
                i, k = int(fields[0]) - 1, np.array([float(v) for v in fields[2:5]])
                d = minimum_image(x[i] - ref[i], box)
                energy += 0.5 * float(np.sum(k * d * d))
                forces[i] -= k * d
    return energy, forces


def erfc(values):
    try:
        from scipy.special import erfc as scipy_erfc
        return scipy_erfc(values)
    except ImportError:
        return np.vectorize(math.erfc)(values)


def pairs_within(x, box, cutoff):
    """(i, j, r) of every pair i < j closer than cutoff (minimum image), by blocks of rows."""
    out_i, out_j, out_r = [], [], []
    block = 256 if not np.any(box - np.diag(np.diag(box))) else 32
    for start in range(0, len(x), block):
        rows = np.arange(start, min(start + block, len(x)))
        d = minimum_image(x[rows, None, :] - x[None, :, :], box)
        r = np.sqrt(np.einsum("ijk,ijk->ij", d, d))
        ii, jj = np.nonzero((r < cutoff) & (np.arange(len(x))[None, :] > rows[:, None]))
        out_i.append(rows[ii])
        out_j.append(jj)
        out_r.append(r[ii, jj])
    return np.concatenate(out_i), np.concatenate(out_j), np.concatenate(out_r)


def direct_terms(ref, x, box, top):
    """LJ (SR), Coulomb (SR) and the Ewald reciprocal energy as reference.json's term_notes say."""
    settings = ref["settings"]
    rc, beta = settings["cutoff_nm"], settings["beta_per_nm"]
    q, t = top["charge"], top["type"]
    n = len(q)
    i, j, r = pairs_within(x, box, rc)
    excluded_keys = top["excluded_pairs"][:, 0].astype(np.int64) * n + top["excluded_pairs"][:, 1]
    excluded = np.isin(i.astype(np.int64) * n + j, excluded_keys)
    keep = ~excluded
    c6, c12 = top["c6"][t[i], t[j]][keep], top["c12"][t[i], t[j]][keep]
    rk = r[keep]
    lj = float(np.sum(c12 / rk ** 12 - c6 / rk ** 6 - (c12 / rc ** 12 - c6 / rc ** 6)))
    qq = COULOMB * q[i] * q[j]
    real = float(np.sum(qq[keep] * (erfc(beta * rk) / rk - math.erfc(beta * rc) / rc)))
    # (a virtual site on its atom, r = 0: -qq erf(beta r)/r -> -qq 2 beta/sqrt(pi))
    re_ = r[excluded]
    safe = np.where(re_ > 0, re_, 1.0)
    erf_over_r = np.where(re_ > 0, (1.0 - erfc(beta * safe)) / safe, 2 * beta / math.sqrt(math.pi))
    exclusion = float(np.sum(-qq[excluded] * erf_over_r))
    self_term = -COULOMB * beta / math.sqrt(math.pi) * float(np.sum(q * q))
    return {"LJ (SR)": lj, "Coulomb (SR)": real + exclusion + self_term,
            "Coul. recip.": ewald_reciprocal(x, q, box, beta)}


def ewald_reciprocal(x, q, box, beta, tail=1e-14):
    """k_e/(2V) sum_{k != 0} 4 pi/k^2 exp(-k^2/(4 beta^2)) |S(k)|^2 - k_e pi Q^2/(2 V beta^2),
    over the half space of k (times 2), to exp(-k^2/(4 beta^2)) < tail; k = 2 pi (m1 a* + m2 b* +
    m3 c*) with the reciprocal vectors of the box's vectors a, b, c (a_i . a*_j = delta_ij)."""
    volume = abs(float(np.linalg.det(box)))
    reciprocal = np.linalg.inv(box).T
    kmax = 2.0 * beta * math.sqrt(-math.log(tail))
    m = [int(kmax * np.linalg.norm(v) / (2 * math.pi)) + 1 for v in box]
    grids = np.meshgrid(*[np.arange(-mi, mi + 1) for mi in m], indexing="ij")
    vecs = np.stack([g.ravel() for g in grids], axis=1)
    half = (vecs[:, 0] > 0) | ((vecs[:, 0] == 0) & ((vecs[:, 1] > 0) | ((vecs[:, 1] == 0) & (vecs[:, 2] > 0))))
    k = 2 * math.pi * vecs[half] @ reciprocal
    k2 = np.sum(k * k, axis=1)
    k, k2 = k[k2 < kmax * kmax], k2[k2 < kmax * kmax]
    energy = 0.0
    for start in range(0, len(k), 2048):
        kb, k2b = k[start:start + 2048], k2[start:start + 2048]
        phase = x @ kb.T
        s2 = (q @ np.cos(phase)) ** 2 + (q @ np.sin(phase)) ** 2
        energy += float(np.sum(4 * math.pi / k2b * np.exp(-k2b / (4 * beta * beta)) * s2))
    energy *= 2 * COULOMB / (2 * volume)
    return energy - COULOMB * math.pi * float(np.sum(q)) ** 2 / (2 * volume * beta * beta)


def check_system(folder, direct):
    name = os.path.basename(folder)
    chk = Checker(name)
    with open(os.path.join(folder, "reference.json")) as f:
        ref = json.load(f)
    includes_resolve(os.path.join(folder, "topol.top"), chk)
    _, atoms, x, box = read_gro(os.path.join(folder, "conf.gro"), vectors=True)
    x, box = np.array(x), np.array(box)
    forces = np.load(os.path.join(folder, "forces.npy"))
    top = load_tpr_arrays(folder)
    n = len(atoms)
    chk.check(n == ref["atoms"] == len(top["charge"]), f"atom counts differ: conf.gro {n}, json {ref['atoms']}")
    stated = np.array(ref["box_nm"], dtype=float)
    chk.check(np.allclose(box if stated.ndim == 2 else np.diag(box), stated, rtol=0, atol=1e-12),
              "box differs from reference.json")
    chk.check(forces.dtype == np.float64 and forces.shape == (n, 3), f"forces.npy is {forces.dtype} {forces.shape}")
    chk.check(bool(np.all(np.isfinite(forces))), "forces.npy has non-finite values")

    terms = ref["energies_kJ_mol"]
    parts = {k: v for k, v in terms.items() if k != "Potential"}
    total = sum(parts.values())
    chk.check(abs(total - terms["Potential"]) <= 1e-10 * sum(abs(v) for v in parts.values()),
              f"terms add up to {total!r}, Potential is {terms['Potential']!r}")

    charge = float(np.sum(top["charge"]))
    chk.check(abs(charge - ref["net_charge_e"]) < 1e-4 and abs(charge - round(charge)) < 1e-4,
              f"charges add up to {charge}, json says {ref['net_charge_e']}")

    net = forces.sum(axis=0)
    if "Position Rest." in terms:
        energy, posre = restraint_forces(folder, x, box)
        chk.check(abs(energy - terms["Position Rest."]) <= 1e-9 * abs(energy),
                  f"restraint energy {energy!r} from posre.itp, GROMACS {terms['Position Rest.']!r}")
        net = net - posre.sum(axis=0)
    # Bonded, LJ and real-space forces cancel in pairs; the PME reciprocal force does not, and its
    # error on each atom (rms sigma: the reference grid against a twice finer one of order 8)
    # adds up over N atoms like a random walk, to about sqrt(N) sigma.
    sigma = ref["pme_convergence"]["force_difference_rms_kJ_mol_nm"]
    bound = 3.0 * math.sqrt(n) * sigma
    chk.check(float(np.linalg.norm(net)) < bound,
              f"net force {np.linalg.norm(net):.4g} kJ/mol/nm, more than 3 sqrt(N) sigma = {bound:.4g}")

    # The virial is symmetric, but for the constraint virial of rigid water (GROMACS's comes from
    # its first leap-frog step).
    vir = ref["virial_kJ_mol"]
    worst = max(abs(vir[f"Vir-{a}{b}"] - vir[f"Vir-{b}{a}"]) for a, b in ("XY", "XZ", "YZ"))
    if "Settle" not in ref["interaction_counts"]:
        chk.check(worst <= 1e-9 * max(abs(v) for v in vir.values()), f"virial not symmetric: {worst:g} kJ/mol")

    report = []
    if direct:
        fine = ref["pme_convergence"]
        for term, value in direct_terms(ref, x, box, top).items():
            # Charges and C6/C12 come from gmx dump with 6 and 9 significant digits; the Ewald sum
            # is compared with GROMACS's PME on the finer grid of order 8 (the reference grid's own
            # error is printed).
            # With virtual sites the sums take conf.gro's sites, up to 2e-6 nm from where GROMACS
            # built them (reference.json's consistency): a charge q in a field E moves by q E dx,
            # ~1e-3 kJ/mol a site, of both signs.
            want = fine[term] if term == "Coul. recip." else terms[term]
            diff = value - want
            sites = ref.get("virtual_sites", 0)
            bound = 1e-7 * abs(want) + 1e-6 + 1e-4 * math.sqrt(sites)
            chk.check(abs(diff) <= bound, f"{term}: direct {value!r}, GROMACS {want!r}")
            line = f"{term}: direct {value:.10g}, GROMACS {want:.10g} (difference {diff:.2g})"
            if term == "Coul. recip.":
                line += f"; reference grid {terms[term]:.10g} (PME error {terms[term] - value:.3g})"
            report.append(line)
    return chk, report


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("systems", nargs="*", help="system folders' names (default: all)")
    p.add_argument("--data", default=os.path.join(os.path.dirname(HERE), "tests", "data", "gromacs"))
    p.add_argument("--direct", action="store_true", help="also sum LJ, Coulomb and Ewald directly")
    args = p.parse_args()
    names = args.systems or sorted(d for d in os.listdir(args.data)
                                   if os.path.exists(os.path.join(args.data, d, "reference.json")))
    if not names:
        sys.exit(f"check_gromacs_reference: no systems in {args.data}")
    failed = 0
    for name in names:
        chk, report = check_system(os.path.join(args.data, name), args.direct)
        status = "ok" if not chk.failures else "FAILED"
        print(f"{name}: {status}, {chk.passed} checks passed, {len(chk.failures)} failed")
        for line in report:
            print(f"  {line}")
        for what in chk.failures:
            print(f"  FAIL {what}")
        failed += bool(chk.failures)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
