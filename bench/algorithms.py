#!/usr/bin/env python3
"""Compare frugal's search algorithms on the example crates.

Runs every algorithm on every example crate with the same execution budget and seeds 1..N,
collects coverage per criterion, suite size, the suite's summed performance proxies and
executions per second from `frugal run --json`, optionally profiles each emitted suite with
`frugal profile --suite generated` (measured cost), and writes bench/ALGORITHMS.md with medians
and the Vargha-Delaney A12 of each algorithm against dynamosa.

Usage (from the repository root):
    cargo build --release -p frugal -p frugald -p frugal-profiler --bins
    python3 bench/algorithms.py [--seeds 5] [--budget 20000] [--profile] [--smoke]

--smoke runs one crate, two algorithms, one seed and a tiny budget: what CI runs.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALGORITHMS = ["random", "wholesuite", "mio", "mosa", "dynamosa", "adynamosa"]
CRATES = ["numeric", "textparse", "statemachine"]
BASELINE = "dynamosa"


def frugal_bin(explicit=None):
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    path = explicit or os.path.join(target, "release", "frugal")
    if not os.path.exists(path):
        sys.exit(f"{path} is missing: run `cargo build --release -p frugal -p frugald -p frugal-profiler --bins` first")
    return path


def run_one(frugal, krate, algorithm, seed, budget, work_root, profile):
    out = tempfile.mkdtemp(prefix=f"frugal-bench-{krate}-{algorithm}-{seed}-")
    cmd = [frugal, "run", os.path.join(ROOT, "examples", krate), "--algorithm", algorithm,
           "--seed", str(seed), "--budget", str(budget), "--json", "--out", out,
           "--work-dir", os.path.join(work_root, krate)]
    started = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    summary = json.loads(proc.stdout)
    summary["wall_seconds"] = time.time() - started
    summary["measured_ns"] = measure(frugal, krate, out) if profile else None
    shutil.rmtree(out, ignore_errors=True)
    return summary


def measure(frugal, krate, out):
    """Sum of per-test medians (net of the empty-test baseline) of the emitted suite."""
    copy = tempfile.mkdtemp(prefix=f"frugal-bench-profile-{krate}-")
    shutil.copytree(os.path.join(ROOT, "examples", krate), copy, dirs_exist_ok=True)
    os.makedirs(os.path.join(copy, "tests"), exist_ok=True)
    shutil.copy(os.path.join(out, "frugal_generated.rs"), os.path.join(copy, "tests", "frugal_generated.rs"))
    proc = subprocess.run([frugal, "profile", copy, "--suite", "generated", "--repeat", "3", "--json"],
                          capture_output=True, text=True)
    shutil.rmtree(copy, ignore_errors=True)
    if proc.returncode != 0:
        print(f"profiling {krate} failed: {proc.stderr[-500:]}", file=sys.stderr)
        return None
    report = json.loads(proc.stdout)
    return suite_cost(report)


def suite_cost(report):
    """Total of the report's cost basis (net medians) over the tests, or None."""
    basis = report.get("cost_basis")
    if not basis:
        return None
    total, seen = 0.0, False
    for test in report.get("tests", []):
        for fig in test.get("figures", []):
            if fig.get("metric") != basis.get("metric") or fig.get("source") != basis.get("source"):
                continue
            reading = fig.get("reading", {})
            if reading.get("status") == "measured":
                value = reading.get("net_median")
                total += value if value is not None else reading["stats"]["median"]
                seen = True
    label = f"{basis.get('metric')} ({basis.get('source')})"
    return (total, label) if seen else None


def a12(xs, ys):
    """Vargha-Delaney A12: probability that a value from xs is larger than one from ys."""
    if not xs or not ys:
        return float("nan")
    greater = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in xs for y in ys)
    return greater / (len(xs) * len(ys))


def pct(c):
    return 100.0 * c["covered"] / c["total"] if c["total"] else 100.0


def table(results, algorithms, crates, seeds, budget, command, machine):
    lines = ["# Algorithms on the example crates", "",
             f"Budget: {budget} executions per run; seeds 1..{seeds}; machine: {machine}.",
             f"Reproduce: `{command}`", "",
             "Medians over seeds. Coverage is the share of goals the emitted (minimised, verified) suite covers. "
             "Proxies: the suite's summed I1..I7 (aDynaMOSA's cost estimate). Measured: summed per-test "
             "cost from `frugal profile --suite generated` (net of the empty-test baseline) where profiled. "
             "A12 against dynamosa: > 0.5 means larger values than dynamosa (better for coverage, "
             "worse for cost).", "",
             "| crate | algorithm | branch % | line % | function % | tests | proxies | measured | exec/s | A12 branch | A12 proxies |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for krate in crates:
        base = results.get((krate, BASELINE), [])
        for alg in algorithms:
            runs = results.get((krate, alg), [])
            if not runs:
                continue
            branch = [pct(r["goals"]["branch"]) for r in runs]
            line = [pct(r["goals"]["line"]) for r in runs]
            func = [pct(r["goals"]["function"]) for r in runs]
            tests = [r["tests_emitted"] for r in runs]
            proxies = [r["suite_proxy_total"] for r in runs]
            eps = [r["executions_per_second"] for r in runs]
            measured = [r["measured_ns"][0] for r in runs if r.get("measured_ns")]
            basis = next((r["measured_ns"][1] for r in runs if r.get("measured_ns")), "")
            med_measured = f"{statistics.median(measured):.3g} {basis}" if measured else "n/a"
            a_branch = a12(branch, [pct(r["goals"]["branch"]) for r in base]) if alg != BASELINE else 0.5
            a_prox = a12(proxies, [r["suite_proxy_total"] for r in base]) if alg != BASELINE else 0.5
            lines.append(f"| {krate} | {alg} | {statistics.median(branch):.1f} | {statistics.median(line):.1f} | "
                         f"{statistics.median(func):.1f} | {statistics.median(tests):.0f} | "
                         f"{statistics.median(proxies):.0f} | {med_measured} | {statistics.median(eps):.0f} | "
                         f"{a_branch:.2f} | {a_prox:.2f} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--budget", type=int, default=20000, help="executions per run")
    ap.add_argument("--profile", action="store_true", help="also measure each suite with frugal profile")
    ap.add_argument("--smoke", action="store_true", help="tiny run for CI")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "ALGORITHMS.md"))
    ap.add_argument("--frugal", help="path of the frugal binary (default: target/release/frugal)")
    args = ap.parse_args()
    algorithms, crates, seeds, budget = ALGORITHMS, CRATES, args.seeds, args.budget
    if args.smoke:
        algorithms, crates, seeds, budget = ["dynamosa", "adynamosa"], ["numeric"], 1, 2000
    frugal = frugal_bin(args.frugal)
    work_root = os.path.join(ROOT, "target", "bench-work")
    results = {}
    for krate in crates:
        for alg in algorithms:
            for seed in range(1, seeds + 1):
                r = run_one(frugal, krate, alg, seed, budget, work_root, args.profile)
                results.setdefault((krate, alg), []).append(r)
                print(f"{krate:13} {alg:10} seed {seed}: branch {pct(r['goals']['branch']):5.1f}% "
                      f"tests {r['tests_emitted']:3} proxies {r['suite_proxy_total']:6} "
                      f"exec/s {r['executions_per_second']:8.0f} measured {r['measured_ns']}", flush=True)
    command = "python3 bench/algorithms.py " + " ".join(sys.argv[1:])
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip() or "unknown"
    machine = f"{os.cpu_count()} cores, {os.uname().sysname} {os.uname().release}; commit {commit}"
    text = table(results, algorithms, crates, seeds, budget, command.strip(), machine)
    if args.smoke:
        print(text)
        bad = [k for k, runs in results.items() for r in runs if r["tests_emitted"] == 0]
        if bad:
            sys.exit(f"smoke: no tests emitted for {bad}")
    else:
        with open(args.out, "w") as f:
            f.write(text)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
