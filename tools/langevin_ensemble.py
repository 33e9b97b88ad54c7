#!/usr/bin/env python3
"""Ensembles of Langevin runs with constraints: mean kinetic temperature and potential energy.

Runs `faraday run` on the peptides of tests/data/gromacs (the cases of tests/test_langevin_ensemble.cpp:
the vacuum peptide with h-bonds at 1, 2 and 4 fs with 1.5 and 3 amu hydrogens, all-bonds at 2 fs,
the solvated peptide at 4 fs, and on request at 2 and 1 fs; Langevin at 300 K, friction 1/ps), on
each platform asked for, and
prints each case's mean temperature and potential energy with standard errors of 20 block means
over the samples after the first --discard-cpu / --discard-gpu ps (the vacuum peptide relaxes from
its minimised start over tens of ps). CPU runs go side by side (one thread each), GPU runs one
after another beside them (--gpu-jobs side by side). Optional:
  --openmm ANCHOR   OpenMM's LangevinMiddle on the same topology and settings (tools/openmm_anchor.py)
  --nve             velocity Verlet with h-bonds at 1 and 2 fs: the total energy's drift per atom
  --npt STEPS       systems/protein/npt.cfg for STEPS steps on cuda: mean temperature and density
  --replicas N|auto independent runs per case (seeds --seed, --seed + 1, ...), combined; auto: 4 fs / dt
  --match-openmm    Faraday with OpenMM's nonbonded terms, so that potential energies compare

  tools/langevin_ensemble.py --faraday build/faraday --platforms cpu,cuda --ps-cpu 200 --ps-gpu 1000
"""
import argparse, concurrent.futures as cf, csv, math, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "gromacs")
# name: solvated, constraints, dt (ps), hydrogen mass (amu; 0 = as they are)
CASES = {
    "HBonds1fsH15": (False, "h-bonds", 0.001, 1.5), "HBonds2fsH15": (False, "h-bonds", 0.002, 1.5),
    "HBonds4fsH15": (False, "h-bonds", 0.004, 1.5), "HBonds1fsH3": (False, "h-bonds", 0.001, 3.0),
    "HBonds2fsH3": (False, "h-bonds", 0.002, 3.0), "HBonds4fsH3": (False, "h-bonds", 0.004, 3.0),
    "AllBonds2fs": (False, "all-bonds", 0.002, 0.0), "Solvated4fsH15": (True, "h-bonds", 0.004, 1.5),
    "Solvated2fsH15": (True, "h-bonds", 0.002, 1.5), "Solvated1fsH15": (True, "h-bonds", 0.001, 1.5),
}
DEFAULT_CASES = [c for c in CASES if c not in ("Solvated2fsH15", "Solvated1fsH15")]


def folder(solvated):
    return os.path.join(DATA, "peptide_oplsaa_tip3p" if solvated else "peptide_amber_vacuum")


# OpenMM's NonbondedForce with PME as tools/openmm_anchor.py builds it: LJ and real-space Coulomb
# not shifted, the dispersion correction on, B-splines of order 5. The vacuum peptide's potential
# energy at its given coordinates is then OpenMM's (Reference platform) to 0.002 kJ/mol.
OPENMM_NONBONDED = "lj_shift = false\ncoulomb_modifier = none\ndispersion_correction = true\n"
OPENMM_PME = "pme_order = 5\n"


def config_text(case, integrator, steps, platform, seed, match_openmm=False):
    solvated, constraints, dt, hmass = CASES[case]
    f = folder(solvated)
    return (f"[system]\ncoordinates = {f}/conf.gro\ntopology = {f}/topol.top\nconstraints = {constraints}\n"
            f"hydrogen_mass = {hmass}\ntemperature = 300\nvelocity_seed = {seed}\n"
            f"[nonbonded]\ncutoff = 1.0\nbuffer = {'0.1' if platform == 'cpu' else 'auto'}\n"
            + (OPENMM_NONBONDED if match_openmm else "")
            + f"[electrostatics]\nmethod = pme\nfourier_spacing = {0.12 if solvated else 0.15}\n"
            + (OPENMM_PME if match_openmm else "")
            + f"[integrator]\ntype = {integrator}\ndt = {dt}\n"
            + ("temperature = 300\nfriction = 1\nseed = %d\n" % seed if integrator == "langevin" else "")
            + f"[run]\nsteps = {steps}\nplatform = {platform}\nthreads = 1\nprogress_interval = 0\n"
            f"[output]\nenergy_interval = 10\ntrajectory_file =\ncheckpoint_file =\n")


def read_energy(path):
    with open(path) as fh:
        rows = list(csv.reader(fh))
    head = [h.lstrip("#").strip('"') for h in rows[0]]
    return {h: [float(r[k]) if r[k] != "--" else float("nan") for r in rows[1:]] for k, h in enumerate(head)}


def block_mean(values, blocks=20):
    n = len(values) // blocks
    means = [sum(values[i * n:(i + 1) * n]) / n for i in range(blocks)]
    m = sum(means) / blocks
    return m, math.sqrt(sum((x - m) ** 2 for x in means) / (blocks - 1) / blocks)


def discard_ps(args, platform):
    return args.discard_cpu if platform == "cpu" else args.discard_gpu


def replicas(args, case):
    """Independent runs per case (seeds seed, seed + 1, ...): a number, or auto (4 fs / dt, so that
    every run of a case list has about the same number of steps)."""
    return max(1, round(0.004 / CASES[case][2])) if args.replicas == "auto" else int(args.replicas)


class Sampled:
    """The (mean, error) of temperature and potential energy of each replica of one case, of ps each."""

    def __init__(self, ps):
        self.ps = ps
        self.temperature, self.potential, self.failed, self.start = [], [], [], []

    def row(self):
        if self.failed and not self.temperature:
            return self.failed[0]
        r = len(self.temperature)
        tm = sum(m for m, _ in self.temperature) / r
        ts = math.sqrt(sum(e * e for _, e in self.temperature)) / r
        um = sum(m for m, _ in self.potential) / r
        us = math.sqrt(sum(e * e for _, e in self.potential)) / r
        text = f"<T> {tm:7.2f} +- {ts:4.2f} K ({(tm - 300) / ts:+5.1f} SE)  <U> {um:9.2f} +- {us:5.2f} kJ/mol"
        if r >= 4:  # the replicas' scatter also sees correlations longer than a block
            spread = math.sqrt(sum((m - um) ** 2 for m, _ in self.potential) / (r - 1) / r)
            text += f" (+- {spread:5.2f} from the {r} replica means)"
        text += f"  {self.ps * r:g} ps in {r} run{'s' if r > 1 else ''}"
        if self.start:
            text += f"  U(t=0) {self.start[0]:.4f}"
        if self.failed:
            text += f"  ({len(self.failed)} failed: {self.failed[0]})"
        return text


def run_faraday(args, case, platform, integrator, ps, out, seed):
    dt = CASES[case][2]
    steps = int(round((discard_ps(args, platform) + ps) / dt))
    d = os.path.join(out, f"{case}_{platform}_{integrator}_{seed}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "sim.cfg"), "w") as fh:
        fh.write(config_text(case, integrator, steps, platform, seed, args.match_openmm))
    r = subprocess.run([args.faraday, "run", "sim.cfg", "--output.directory=out"] + args.set, cwd=d, capture_output=True,
                       text=True)
    if r.returncode != 0:
        return f"failed: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}"
    e = read_energy(os.path.join(d, "out", "energy.csv"))
    keep = [i for i, t in enumerate(e["Time (ps)"]) if t > discard_ps(args, platform) + 1e-9]
    if integrator == "verlet":
        total, t = [e["Total Energy (kJ/mole)"][i] for i in keep], [e["Time (ps)"][i] for i in keep]
        with open(os.path.join(folder(CASES[case][0]), "conf.gro")) as fh:
            atoms = int(fh.readlines()[1])
        mt, me = sum(t) / len(t), sum(total) / len(total)
        slope = sum((a - mt) * (b - me) for a, b in zip(t, total)) / sum((a - mt) ** 2 for a in t)
        return f"NVE drift {slope / max(atoms, 1):.3g} kJ/mol/ps per atom over {ps:g} ps ({atoms} atoms)"
    return (block_mean([e["Temperature (K)"][i] for i in keep]), block_mean([e["Potential Energy (kJ/mole)"][i] for i in keep]),
            e["Potential Energy (kJ/mole)"][0])


def run_openmm(args, case, ps, seed):
    solvated, constraints, dt, hmass = CASES[case]
    f = folder(solvated)
    cmd = [sys.executable, args.openmm, os.path.join(f, "conf.gro"), "--top", os.path.join(f, "topol.top"), "--include-dir", f,
           "--constraints", constraints, "--dt", str(dt), "--temperature", "300", "--spacing", "0.12" if solvated else "0.15",
           "--steps", str(int(args.discard_gpu / dt)), "--average-steps", str(int(ps / dt)),
           "--sample-every", str(args.openmm_sample_every),
           "--seed", str(seed)]
    if hmass:
        cmd += ["--hydrogen-mass", str(hmass)]
    if solvated:
        cmd += ["--rigid-water"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"epot (\S+) \+- (\S+) kJ/mol temperature (\S+) \+- (\S+) K", r.stdout)
    if not m:
        return "failed: " + (r.stderr.strip().splitlines() or ["?"])[-1]
    um, us, tm, ts = map(float, m.groups())
    start = re.search(r"potential energy at the given coordinates (\S+) kJ/mol", r.stdout)
    return (tm, ts), (um, us), float(start.group(1)) if start else None


def run_npt(args, out):
    d = os.path.join(out, "protein_npt")
    os.makedirs(d, exist_ok=True)
    cfg = os.path.join(ROOT, "systems", "protein", "npt.cfg")
    r = subprocess.run([args.faraday, "run", cfg, f"--run.steps={args.npt}", "--run.platform=cuda", f"--output.directory={d}",
                        "--output.trajectory_file=", "--output.checkpoint_file=", "--run.progress_interval=0"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return "failed: " + r.stderr.strip().splitlines()[-1]
    e = read_energy(os.path.join(d, "energy.csv"))
    t = e["Time (ps)"]
    keep = [i for i in range(len(t)) if t[i] > 0.2 * t[-1]]
    tm, ts = block_mean([e["Temperature (K)"][i] for i in keep])
    rm, rs = block_mean([e["Density (g/mL)"][i] for i in keep])
    return f"<T> {tm:7.2f} +- {ts:4.2f} K ({(tm - 300) / ts:+5.1f} SE)  density {rm:.4f} +- {rs:.4f} g/mL"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--faraday", default=os.path.join(ROOT, "build", "faraday"))
    ap.add_argument("--platforms", default="cpu,cuda")
    ap.add_argument("--cases", default=",".join(DEFAULT_CASES), help="of " + ", ".join(CASES))
    ap.add_argument("--ps-cpu", type=float, default=40.0, help="sampled ps per case on the CPU, over all replicas")
    ap.add_argument("--ps-gpu", type=float, default=1000.0, help="sampled ps per case on the GPU (solvated: a tenth)")
    ap.add_argument("--discard-cpu", type=float, default=10.0, help="ps left out at the start of each run on the CPU")
    ap.add_argument("--discard-gpu", type=float, default=100.0, help="ps left out at the start on the GPU and OpenMM")
    ap.add_argument("--replicas", default="1", help="independent runs per case, or auto (4 fs / dt)")
    ap.add_argument("--match-openmm", action="store_true",
                    help="Faraday with OpenMM's nonbonded terms (no shifts, dispersion correction, PME order 5)")
    ap.add_argument("--set", action="append", default=[], metavar="--KEY=VALUE",
                    help="a setting for every Faraday run, e.g. --set=--integrator.constraint_tolerance=1e-10")
    ap.add_argument("--openmm", default="", help="path of openmm_anchor.py: OpenMM on the same cases (GPU lengths)")
    ap.add_argument("--openmm-cases", default="", help="comma-separated; default: every case")
    ap.add_argument("--openmm-sample-every", type=int, default=10, help="steps between OpenMM's samples")
    ap.add_argument("--nve", action="store_true")
    ap.add_argument("--npt", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="CPU runs side by side")
    ap.add_argument("--gpu-jobs", type=int, default=1,
                    help="GPU runs (Faraday and OpenMM) side by side; keep 1: small systems side by side on one "
                         "GPU slow each other several-fold (the GPU time-slices between processes)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default="out/langevin_ensemble")
    args = ap.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    platforms = [p for p in args.platforms.split(",") if p]
    length = lambda case, p: (args.ps_gpu if p != "cpu" else args.ps_cpu) / (10 if CASES[case][0] else 1)
    sampled, lines = {}, []
    with cf.ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool, \
            cf.ThreadPoolExecutor(max_workers=max(args.gpu_jobs, 1)) as gpu:
        futures = {}
        for p in platforms:
            target = gpu if p == "cuda" else pool
            for c in cases:
                r = replicas(args, c)
                sampled[(c, p)] = Sampled(length(c, p) / r)
                for k in range(r):
                    futures[target.submit(run_faraday, args, c, p, "langevin", length(c, p) / r, args.out,
                                          args.seed + k)] = (c, p)
            if args.nve:
                for c in ("HBonds1fsH15", "HBonds2fsH15"):
                    futures[target.submit(run_faraday, args, c, p, "verlet", 100.0 if p == "cuda" else 20.0, args.out,
                                          args.seed)] = (c, p + " verlet")
        if args.npt:
            futures[gpu.submit(run_npt, args, args.out)] = ("protein NPT", "cuda")
        if args.openmm:
            for c in (args.openmm_cases.split(",") if args.openmm_cases else cases):
                r = replicas(args, c)
                sampled[(c, "openmm")] = Sampled(length(c, "cuda") / r)
                for k in range(r):
                    futures[gpu.submit(run_openmm, args, c, length(c, "cuda") / r, args.seed + k)] = (c, "openmm")
        for f in cf.as_completed(futures):
            key, result = futures[f], f.result()
            print(f"{key[0]} {key[1]}: {result}", flush=True)
            if key in sampled and isinstance(result, tuple):
                s = sampled[key]
                s.temperature.append(result[0])
                s.potential.append(result[1])
                if result[2] is not None and not s.start:
                    s.start.append(result[2])
            elif key in sampled:
                sampled[key].failed.append(result)
            else:
                lines.append(f"{key[0]:15s} {key[1]:13s} {result}")
    print(f"\nLangevin ensembles (300 K bath, friction 1/ps; per run 20 block means after {args.discard_cpu:g} ps on the "
          f"CPU, {args.discard_gpu:g} ps on the GPU; replicas combined with equal weights"
          + ("; Faraday with OpenMM's nonbonded terms" if args.match_openmm else "") + ")")
    for key in sorted(sampled):
        print(f"{key[0]:15s} {key[1]:13s} {sampled[key].row()}")
    for line in sorted(lines):
        print(line)


if __name__ == "__main__":
    main()
