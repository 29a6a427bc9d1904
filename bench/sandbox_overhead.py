#!/usr/bin/env python3
"""What the sandbox costs: executions per second and build times of `frugal run` with and without
it, on the example crates, in one interleaved session (same seed, same execution budget).

    cargo build --release -p frugal
    python3 bench/sandbox_overhead.py [--reps 3] [--budget 100000] [--out bench/SANDBOX.md]

Each repetition runs every crate confined, then with --no-sandbox, in alternating order, so load
from elsewhere on the machine hits both sides alike. Work dirs are kept per crate and mode, so
after the first repetition builds are warm; the first build of each is reported separately.
The examples are the project's own crates, so running them unconfined is safe.
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = ["numeric", "textparse", "statemachine"]


def run(frugal, crate, confined, budget, work):
    cmd = [frugal, "run", str(ROOT / "examples" / crate), "--budget", str(budget), "--seed", "1",
           "--json", "--out", str(work / "out"), "--work-dir", str(work / "wd")]
    if not confined:
        cmd.append("--no-sandbox")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    s = json.loads(p.stdout)
    t = s["seconds"]
    return {"eps": s["executions_per_second"], "build": t["instrument"] + t["build_harness"],
            "verify": t["verify"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frugal", default=str(ROOT / "target/release/frugal"))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--budget", type=int, default=100000)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="frugal-sandbox-overhead-"))
    res = {(c, m): [] for c in CRATES for m in (True, False)}
    for r in range(a.reps):
        for c in CRATES:
            order = (True, False) if r % 2 == 0 else (False, True)
            for confined in order:
                x = run(a.frugal, c, confined, a.budget, tmp / c / ("on" if confined else "off"))
                res[(c, confined)].append(x)
                print(f"rep {r} {c:12} {'sandbox' if confined else 'none   '} "
                      f"{x['eps']:9.0f} exec/s  build {x['build']:6.2f}s  verify {x['verify']:5.2f}s",
                      flush=True)
    lines = ["| crate | exec/s with sandbox | exec/s without | ratio | first build with / without (s) "
             "| warm build with / without (s) | verify with / without (s) |",
             "|---|---|---|---|---|---|---|"]
    for c in CRATES:
        on, off = res[(c, True)], res[(c, False)]
        med = lambda xs, k: statistics.median(x[k] for x in xs)
        warm = lambda xs: statistics.median(x["build"] for x in xs[1:]) if len(xs) > 1 else xs[0]["build"]
        ratio = med(on, "eps") / med(off, "eps")
        lines.append(f"| {c} | {med(on, 'eps'):.0f} | {med(off, 'eps'):.0f} | {ratio:.3f} | "
                     f"{on[0]['build']:.1f} / {off[0]['build']:.1f} | {warm(on):.1f} / {warm(off):.1f} | "
                     f"{med(on, 'verify'):.1f} / {med(off, 'verify'):.1f} |")
    table = "\n".join(lines)
    print(table)
    if a.out:
        Path(a.out).write_text(
            "# Sandbox overhead\n\n"
            f"`python3 bench/sandbox_overhead.py --reps {a.reps} --budget {a.budget}`: medians over "
            f"{a.reps} interleaved repetitions, seed 1, {a.budget} executions per run, on this "
            "2-core machine. Ratio = executions per second with the sandbox / without.\n\n"
            + table + "\n")


if __name__ == "__main__":
    main()
