#!/usr/bin/env python3
"""Mean potential energy, temperature and density of a Faraday NPT (or NVT) run, beside OpenMM's
on the same topology and settings.

Runs `faraday run CONFIG` on the GPU for --ps of sampling after --discard-ps, reads energy.csv and
prints the means with standard errors of 20 block means; with --openmm ANCHOR it runs
tools/openmm_anchor.py (LangevinMiddle, Monte Carlo barostat at the config's pressure) on the
config's coordinates and topology with the config's constraints, hydrogen mass, time step,
temperature and rigid water, the same discard and sampling length, and prints the difference of
each mean in combined standard errors. With --match-openmm Faraday uses OpenMM's nonbonded
terms (LJ and Coulomb not shifted, PME order 5), so that the potential energies compare.

  tools/npt_ensemble.py --faraday build/faraday --config systems/protein_dodecahedron/npt.cfg \\
      --ps 1000 --discard-ps 100 --openmm tools/openmm_anchor.py --match-openmm
  --set KEY=VALUE (repeated) passes a setting to Faraday, e.g. --set system.temperature=298;
  --temperature overrides the config's bath temperature on both engines.
"""
import argparse, csv, math, os, re, subprocess, sys

import langevin_ensemble


def block_mean(values, blocks=20):
    """langevin_ensemble.block_mean, with a clear error when there are too few samples."""
    if len(values) < blocks:
        raise SystemExit(f"npt_ensemble.py: {len(values)} samples are too few for {blocks} blocks")
    return langevin_ensemble.block_mean(values, blocks)


def config_keys(path):
    """section.key -> value of a Faraday config (comments and blank values left out)."""
    keys, section = {}, ""
    for line in open(path):
        line = line.split("#")[0].strip()
        m = re.match(r"\[(\w+)\]", line)
        if m:
            section = m.group(1)
        elif "=" in line:
            k, v = (s.strip() for s in line.split("=", 1))
            keys[f"{section}.{k}"] = v
    return keys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--faraday", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--ps", type=float, required=True, help="sampled ps after the discarded ones")
    ap.add_argument("--discard-ps", type=float, default=100.0)
    ap.add_argument("--temperature", type=float, default=0.0, help="K; 0 = the config's")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--openmm", default="", help="path of openmm_anchor.py")
    ap.add_argument("--match-openmm", action="store_true")
    ap.add_argument("--platform", default="cuda", help="Faraday's platform (cpu to try the script)")
    ap.add_argument("--openmm-platform", default="CUDA")
    ap.add_argument("--out", default="out/npt_ensemble")
    args = ap.parse_args()

    cfg = os.path.abspath(args.config)
    faraday = os.path.abspath(args.faraday)
    here = os.path.dirname(cfg)
    keys = config_keys(cfg)
    dt = float(keys["integrator.dt"])
    temperature = args.temperature or float(keys["integrator.temperature"])
    interval = 25
    steps = int(round((args.ps + args.discard_ps) / dt))
    steps -= steps % interval
    os.makedirs(args.out, exist_ok=True)
    sets = [f"--{s}" for s in args.set] + [f"--integrator.temperature={temperature}", f"--system.temperature={temperature}",
                                          f"--run.steps={steps}", f"--run.platform={args.platform}", f"--output.energy_interval={interval}",
                                          "--output.trajectory_file=", "--output.checkpoint_file=",
                                          f"--output.directory={os.path.abspath(args.out)}/faraday", "--run.progress_interval=0"]
    if args.match_openmm:
        sets += ["--nonbonded.lj_shift=false", "--nonbonded.coulomb_modifier=none", "--electrostatics.pme_order=5"]
    r = subprocess.run([faraday, "run", cfg] + sets, capture_output=True, text=True, cwd=here)
    if r.returncode != 0:
        sys.exit("npt_ensemble.py: faraday failed: " + (r.stderr.strip().splitlines() or ["?"])[-1])
    rows = list(csv.DictReader(open(os.path.join(args.out, "faraday", "energy.csv"))))
    keep = [row for row in rows if float(row["Time (ps)"]) > args.discard_ps + 1e-9]
    col = lambda name: [float(row[name]) for row in keep]
    fu = block_mean(col("Potential Energy (kJ/mole)"))
    ft = block_mean(col("Temperature (K)"))
    fr = block_mean(col("Density (g/mL)"))
    wall = re.search(r"([0-9.]+) ns/day", r.stdout + r.stderr)
    print(f"faraday: {len(keep)} samples every {interval} steps over {args.ps:g} ps after {args.discard_ps:g} ps: "
          f"epot {fu[0]:.1f} +- {fu[1]:.1f} kJ/mol temperature {ft[0]:.2f} +- {ft[1]:.2f} K "
          f"density {fr[0]:.4f} +- {fr[1]:.4f} g/mL" + (f" ({wall.group(1)} ns/day)" if wall else ""), flush=True)
    if not args.openmm:
        return
    top = os.path.join(here, keys["system.topology"])
    gro = os.path.join(here, keys["system.coordinates"])
    defines = ",".join(d.replace("-D", "") for d in keys.get("system.defines", "").split())
    cmd = [sys.executable, args.openmm, gro, "--top", top, "--include-dir", here, "--defines", defines,
           "--constraints", keys.get("system.constraints", "none"), "--dt", str(dt), "--temperature", str(temperature),
           "--spacing", keys.get("electrostatics.fourier_spacing", "0.12"),
           "--steps", str(int(round(args.discard_ps / dt))), "--average-steps", str(int(round(args.ps / dt))),
           "--sample-every", str(interval), "--platform", args.openmm_platform]
    if float(keys.get("system.hydrogen_mass", "0") or 0):
        cmd += ["--hydrogen-mass", keys["system.hydrogen_mass"]]
    if "barostat.pressure" in keys:
        cmd += ["--pressure", keys["barostat.pressure"]]
    if "FLEXIBLE" not in defines.split(","):
        cmd += ["--rigid-water"]
    o = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"epot (\S+) \+- (\S+) kJ/mol temperature (\S+) \+- (\S+) K.*density (\S+) \+- (\S+) g/mL", o.stdout)
    if not m:
        sys.exit("npt_ensemble.py: OpenMM failed: " + (o.stderr.strip().splitlines() or o.stdout.splitlines() or ["?"])[-1])
    ou, ous, ot, ots, orho, orhos = map(float, m.groups())
    speed = re.search(r"ns/day ([0-9.]+)", o.stdout)
    print(f"openmm:  epot {ou:.1f} +- {ous:.1f} kJ/mol temperature {ot:.2f} +- {ots:.2f} K density {orho:.4f} +- "
          f"{orhos:.4f} g/mL" + (f" ({speed.group(1)} ns/day)" if speed else ""))
    se = lambda a, sa, b, sb: (a - b) / math.sqrt(sa * sa + sb * sb) if sa or sb else float("nan")
    print(f"faraday - openmm: epot {fu[0] - ou:+.1f} kJ/mol ({se(fu[0], fu[1], ou, ous):+.1f} SE), temperature "
          f"{ft[0] - ot:+.2f} K ({se(ft[0], ft[1], ot, ots):+.1f} SE), density {fr[0] - orho:+.4f} g/mL "
          f"({se(fr[0], fr[1], orho, orhos):+.1f} SE)" + ("" if args.match_openmm else
                                                         " (potentials of different nonbonded terms)"))


if __name__ == "__main__":
    main()
