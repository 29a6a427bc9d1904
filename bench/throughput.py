#!/usr/bin/env python3
"""Executions per second of two frugal binaries, side by side (issue 17).

For each crate: one warm-up run per binary (it pays the builds), then `--reps` repetitions in
which the old and the new binary run in turn with the same seed and the same execution budget.
Reports the median search-phase executions per second of each, their ratio, and whether every
emitted suite of the new binary is byte-identical to the old one's (same seed, same budget).
Registry crates are fetched with their checksums (crates_common.fetch); their code runs only
inside frugal's own sandbox.

Usage (from the repository root):
    git worktree add /tmp/frugal-old <old commit> && cargo build --release -p frugal --bins \\
        --manifest-path /tmp/frugal-old/Cargo.toml   # or any older frugal binary
    cargo build --release -p frugal --bins
    python3 bench/throughput.py --old /tmp/frugal-old/target/release/frugal [--reps 3]
        [--budget 200000] [--crates numeric,textparse,statemachine,humantime@2.1.0,quick-xml@0.23.0]
    python3 bench/throughput.py --old BIN --reps 5 --vary-seeds   # seeds 1..5: rates and coverage
    python3 bench/throughput.py --old BIN --smoke   # one example, one rep, small budget (CI)

Writes bench/THROUGHPUT.md and bench/throughput.json (or --out-dir). Exits 1 when a suite
differs.
"""

import argparse
import filecmp
import json
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crates_common import ROOT, fetch, frugal_bin, frugal_commit, log, machine, run_frugal  # noqa: E402

CRATES = ["numeric", "textparse", "statemachine", "humantime@2.1.0", "quick-xml@0.23.0"]


def source_of(spec):
    """An example's directory, or a registry crate fetched (checksum verified) into the cache."""
    if "@" not in spec:
        return os.path.join(ROOT, "examples", spec)
    name, version = spec.split("@", 1)
    return fetch(name, version)


def one_run(frugal, src, seed, budget, root, label):
    """Search-phase executions per second and the emitted file's path (kept under root)."""
    work = os.path.join(root, "work", label)
    out = tempfile.mkdtemp(prefix=f"{label}-", dir=os.path.join(root, "out"))
    summary, _, err = run_frugal(frugal, src, seed, str(budget), [], "tests", work, out)
    if summary is None:
        raise SystemExit(f"frugal ({label}) failed:\n{err}")
    search = summary["seconds"]["search"]
    return {"executions": summary["executions"], "search_seconds": search,
            "exec_per_s": summary["executions"] / search if search > 0 else 0.0,
            # Tests answered with the result of an identical earlier run (binaries since 8626fc4).
            "repeats": summary.get("repeats", 0),
            # Probe goals covered (instrumentation-level: the same goals for both binaries).
            "line": coverage(summary, "line"), "branch": coverage(summary, "branch"),
            "suite": os.path.join(out, "frugal_generated.rs")}


def coverage(summary, kind):
    g = summary.get("goals", {}).get(kind, {})
    return g["covered"] / g["total"] if g.get("total") else None


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def same_file(a, b):
    return os.path.exists(a) and os.path.exists(b) and filecmp.cmp(a, b, shallow=False)


def measure_crate(spec, old, new, args, root):
    src = source_of(spec)
    os.makedirs(os.path.join(root, "out"), exist_ok=True)
    runs = {"old": [], "new": []}
    for label, binary in (("old", old), ("new", new)):
        log(f"{spec}: warm-up ({label})")
        one_run(binary, src, args.seed, args.budget, root, f"{spec}-{label}")
    seeds = [args.seed + rep if args.vary_seeds else args.seed for rep in range(args.reps)]
    for rep, seed in enumerate(seeds):
        for label, binary in (("old", old), ("new", new)):
            r = one_run(binary, src, seed, args.budget, root, f"{spec}-{label}")
            log(f"{spec} rep {rep + 1} (seed {seed}) {label}: {r['exec_per_s']:.0f} exec/s")
            runs[label].append(r)
    identical = all(same_file(o["suite"], n["suite"]) for o, n in zip(runs["old"], runs["new"]))
    old_rate = statistics.median(r["exec_per_s"] for r in runs["old"])
    new_rate = statistics.median(r["exec_per_s"] for r in runs["new"])
    return {"crate": spec, "budget": args.budget, "seeds": seeds, "reps": args.reps,
            "old": [r["exec_per_s"] for r in runs["old"]], "new": [r["exec_per_s"] for r in runs["new"]],
            "old_median": old_rate, "new_median": new_rate,
            "ratio": new_rate / old_rate if old_rate else 0.0, "identical": identical,
            "ratios": [n["exec_per_s"] / o["exec_per_s"] if o["exec_per_s"] else 0.0
                       for o, n in zip(runs["old"], runs["new"])],
            "new_repeats": runs["new"][-1]["repeats"] if runs["new"] else 0,
            **{f"{label}_{kind}": mean(r[kind] for r in runs[label])
               for label in ("old", "new") for kind in ("line", "branch")}}


def pct(x):
    return "–" if x is None else f"{x:.1%}"


def table(rows):
    out = ["| crate | old exec/s | new exec/s | ratio | ratio per run | new: repeats answered | "
           "line goals old / new | branch goals old / new | suites byte-identical |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        share = r.get("new_repeats", 0) / r["budget"] if r["budget"] else 0.0
        per_run = " ".join(f"{x:.2f}" for x in r.get("ratios", []))
        out.append(f"| {r['crate']} | {r['old_median']:.0f} | {r['new_median']:.0f} | "
                   f"{r['ratio']:.2f}× | {per_run} | {share:.0%} | "
                   f"{pct(r.get('old_line'))} / {pct(r.get('new_line'))} | "
                   f"{pct(r.get('old_branch'))} / {pct(r.get('new_branch'))} | "
                   f"{'yes' if r['identical'] else '**no**'} |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="the baseline frugal binary")
    ap.add_argument("--new", default=None, help="the frugal binary measured (default target/release/frugal)")
    ap.add_argument("--crates", default=",".join(CRATES))
    ap.add_argument("--budget", type=int, default=200000, help="executions per run (default 200000)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--vary-seeds", action="store_true",
                    help="repetition k runs with seed SEED+k-1 (both binaries the same seed), so the "
                         "coverage columns compare the binaries over as many seeds as repetitions")
    ap.add_argument("--old-label", default="old", help="what the old binary is (commit), for the report")
    ap.add_argument("--new-label", default=None, help="what the new binary is (default: the checkout's commit)")
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "bench"))
    ap.add_argument("--smoke", action="store_true", help="statemachine, one rep, 5000 executions")
    args = ap.parse_args()
    if args.smoke:
        args.crates, args.reps, args.budget = "statemachine", 1, 5000
    old, new = os.path.abspath(args.old), frugal_bin(args.new)
    root = tempfile.mkdtemp(prefix="frugal-throughput-")
    rows = [measure_crate(spec, old, new, args, root) for spec in args.crates.split(",")]
    shutil.rmtree(root, ignore_errors=True)
    report = table(rows)
    print(report)
    if not args.smoke:
        os.makedirs(args.out_dir, exist_ok=True)
        with open(os.path.join(args.out_dir, "throughput.json"), "w") as f:
            json.dump({"machine": machine(), "new_commit": args.new_label or frugal_commit(), "old": args.old_label,
                       "rows": rows}, f, indent=1)
        with open(os.path.join(args.out_dir, "THROUGHPUT.md"), "w") as f:
            f.write(render_md(rows, args))
    if not all(r["identical"] for r in rows):
        log("FAILED: a suite differs from the old binary's")
        sys.exit(1)


def seeds_text(args):
    if args.vary_seeds:
        return f"Seeds {args.seed}–{args.seed + args.reps - 1}, one per repetition, the same for both binaries"
    return f"Same seed ({args.seed})"


def render_md(rows, args):
    m = machine()
    return (
        "# Executions per second, old and new binary side by side\n\n"
        f"New: {args.new_label or frugal_commit()}; old: {args.old_label}. {seeds_text(args)}, {args.budget} "
        f"executions per run, {args.reps} interleaved repetitions per binary after one warm-up run each; medians "
        "of the search phase's executions per second (executions / search seconds). Goals: the mean share of "
        "the probes' line and branch goals the runs covered.\n"
        f"Machine: {m['cores']} cores, {m['cpu'] or 'unknown CPU'}, {m['os']}.\n\n"
        f"Reproduce: `python3 bench/throughput.py --old <binary built at {args.old_label}> --old-label {args.old_label} "
        f"--reps {args.reps} --budget {args.budget} --seed {args.seed}{' --vary-seeds' if args.vary_seeds else ''} "
        f"--crates {','.join(r['crate'] for r in rows)}`\n\n"
        + table(rows) + "\n")


if __name__ == "__main__":
    main()
