#!/usr/bin/env python3
"""Ensembles of Langevin runs with constraints: mean kinetic temperature and potential energy.

Runs `faraday run` on the peptides of tests/data/gromacs (the cases of tests/test_langevin_ensemble.cpp:
the vacuum peptide with h-bonds at 1, 2 and 4 fs with 1.5 and 3 amu hydrogens, all-bonds at 2 fs,
the solvated peptide at 4 fs, and on request at 2 and 1 fs; Langevin at 300 K, friction 1/ps), on
each platform asked for, and
prints each case's mean temperature and potential energy with standard errors of 20 block means
over the samples after the first --discard-cpu / --discard-gpu ps (the vacuum peptide relaxes from
its minimised start over tens of ps). CPU runs go side by side (one thread each), GPU runs one
after another beside them. Optional:
  --openmm ANCHOR   OpenMM's LangevinMiddle on the same topology and settings (tools/openmm_anchor.py)
  --nve             velocity Verlet with h-bonds at 1 and 2 fs: the total energy's drift per atom
  --npt STEPS       systems/protein/npt.cfg for STEPS steps on cuda: mean temperature and density

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


def config_text(case, integrator, steps, platform, seed):
    solvated, constraints, dt, hmass = CASES[case]
    f = folder(solvated)
    return (f"[system]\ncoordinates = {f}/conf.gro\ntopology = {f}/topol.top\nconstraints = {constraints}\n"
            f"hydrogen_mass = {hmass}\ntemperature = 300\nvelocity_seed = {seed}\n"
            f"[nonbonded]\ncutoff = 1.0\nbuffer = {'0.1' if platform == 'cpu' else 'auto'}\n"
            f"[electrostatics]\nmethod = pme\nfourier_spacing = {0.12 if solvated else 0.15}\n"
            f"[integrator]\ntype = {integrator}\ndt = {dt}\n"
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


def run_faraday(args, case, platform, integrator, ps, out):
    dt = CASES[case][2]
    steps = int(round((discard_ps(args, platform) + ps) / dt))
    d = os.path.join(out, f"{case}_{platform}_{integrator}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "sim.cfg"), "w") as fh:
        fh.write(config_text(case, integrator, steps, platform, args.seed))
    r = subprocess.run([args.faraday, "run", "sim.cfg", "--output.directory=out"], cwd=d, capture_output=True, text=True)
    if r.returncode != 0:
        return case, platform, integrator, f"failed: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}"
    e = read_energy(os.path.join(d, "out", "energy.csv"))
    keep = [i for i, t in enumerate(e["Time (ps)"]) if t > discard_ps(args, platform) + 1e-9]
    if integrator == "verlet":
        total, t = [e["Total Energy (kJ/mole)"][i] for i in keep], [e["Time (ps)"][i] for i in keep]
        with open(os.path.join(folder(CASES[case][0]), "conf.gro")) as fh:
            atoms = int(fh.readlines()[1])
        mt, me = sum(t) / len(t), sum(total) / len(total)
        slope = sum((a - mt) * (b - me) for a, b in zip(t, total)) / sum((a - mt) ** 2 for a in t)
        return case, platform, integrator, f"NVE drift {slope / max(atoms, 1):.3g} kJ/mol/ps per atom over {ps:g} ps ({atoms} atoms)"
    tm, ts = block_mean([e["Temperature (K)"][i] for i in keep])
    um, us = block_mean([e["Potential Energy (kJ/mole)"][i] for i in keep])
    return case, platform, integrator, f"<T> {tm:7.2f} +- {ts:4.2f} K ({(tm - 300) / ts:+5.1f} SE)  <U> {um:9.2f} +- {us:5.2f} kJ/mol  {ps:g} ps"


def run_openmm(args, case, ps):
    solvated, constraints, dt, hmass = CASES[case]
    f = folder(solvated)
    cmd = [sys.executable, args.openmm, os.path.join(f, "conf.gro"), "--top", os.path.join(f, "topol.top"), "--include-dir", f,
           "--constraints", constraints, "--dt", str(dt), "--temperature", "300", "--spacing", "0.12" if solvated else "0.15",
           "--steps", str(int(args.discard_gpu / dt)), "--average-steps", str(int(ps / dt)), "--sample-every", "10",
           "--seed", str(args.seed)]
    if hmass:
        cmd += ["--hydrogen-mass", str(hmass)]
    if solvated:
        cmd += ["--rigid-water"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"epot (\S+) \+- (\S+) kJ/mol temperature (\S+) \+- (\S+) K", r.stdout)
    if not m:
        return case, "openmm", "langevin", "failed: " + (r.stderr.strip().splitlines() or ["?"])[-1]
    um, us, tm, ts = map(float, m.groups())
    return case, "openmm", "langevin", f"<T> {tm:7.2f} +- {ts:4.2f} K ({(tm - 300) / ts:+5.1f} SE)  <U> {um:9.2f} +- {us:5.2f} kJ/mol  {ps:g} ps"


def run_npt(args, out):
    d = os.path.join(out, "protein_npt")
    os.makedirs(d, exist_ok=True)
    cfg = os.path.join(ROOT, "systems", "protein", "npt.cfg")
    r = subprocess.run([args.faraday, "run", cfg, f"--run.steps={args.npt}", "--run.platform=cuda", f"--output.directory={d}",
                        "--output.trajectory_file=", "--output.checkpoint_file=", "--run.progress_interval=0"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return "protein NPT", "cuda", "langevin", "failed: " + r.stderr.strip().splitlines()[-1]
    e = read_energy(os.path.join(d, "energy.csv"))
    t = e["Time (ps)"]
    keep = [i for i in range(len(t)) if t[i] > 0.2 * t[-1]]
    tm, ts = block_mean([e["Temperature (K)"][i] for i in keep])
    rm, rs = block_mean([e["Density (g/mL)"][i] for i in keep])
    return "protein NPT", "cuda", "langevin", f"<T> {tm:7.2f} +- {ts:4.2f} K ({(tm - 300) / ts:+5.1f} SE)  density {rm:.4f} +- {rs:.4f} g/mL"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--faraday", default=os.path.join(ROOT, "build", "faraday"))
    ap.add_argument("--platforms", default="cpu,cuda")
    ap.add_argument("--cases", default=",".join(DEFAULT_CASES), help="of " + ", ".join(CASES))
    ap.add_argument("--ps-cpu", type=float, default=40.0, help="sampled ps per case on the CPU")
    ap.add_argument("--ps-gpu", type=float, default=1000.0, help="sampled ps per case on the GPU (solvated: a tenth)")
    ap.add_argument("--discard-cpu", type=float, default=10.0, help="ps left out at the start on the CPU")
    ap.add_argument("--discard-gpu", type=float, default=100.0, help="ps left out at the start on the GPU and OpenMM")
    ap.add_argument("--openmm", default="", help="path of openmm_anchor.py: OpenMM on the same cases (GPU lengths)")
    ap.add_argument("--openmm-cases", default="", help="comma-separated; default: every case")
    ap.add_argument("--nve", action="store_true")
    ap.add_argument("--npt", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default="out/langevin_ensemble")
    args = ap.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    platforms = [p for p in args.platforms.split(",") if p]
    length = lambda case, p: (args.ps_gpu if p != "cpu" else args.ps_cpu) / (10 if CASES[case][0] else 1)
    results = []
    with cf.ThreadPoolExecutor(max_workers=max(args.jobs, 2)) as pool, cf.ThreadPoolExecutor(max_workers=1) as gpu:
        futures = []
        for p in platforms:
            target = gpu if p == "cuda" else pool
            for c in cases:
                futures.append(target.submit(run_faraday, args, c, p, "langevin", length(c, p), args.out))
            if args.nve:
                for c in ("HBonds1fsH15", "HBonds2fsH15"):
                    futures.append(target.submit(run_faraday, args, c, p, "verlet", 100.0 if p == "cuda" else 20.0, args.out))
        if args.npt:
            futures.append(gpu.submit(run_npt, args, args.out))
        if args.openmm:
            for c in (args.openmm_cases.split(",") if args.openmm_cases else cases):
                futures.append(gpu.submit(run_openmm, args, c, length(c, "cuda")))
        for f in cf.as_completed(futures):
            results.append(f.result())
            print("  ".join(results[-1]), flush=True)
    print(f"\nLangevin ensembles (300 K bath, friction 1/ps; 20 block means after {args.discard_cpu:g} ps on the CPU, "
          f"{args.discard_gpu:g} ps on the GPU)")
    for r in sorted(results):
        print(f"{r[0]:15s} {r[1]:7s} {r[2]:9s} {r[3]}")


if __name__ == "__main__":
    main()
