#!/usr/bin/env python3
"""What the minimiser's choice of tests costs: two frugal binaries on the example crates, same
seed and execution budget, so the search and its archive are the same and only the tests kept
at the end can differ. Each emitted suite is profiled under valgrind (`frugal profile
--valgrind`: deterministic cachegrind instructions and dhat peak heap per test, the empty
run's cost subtracted from instructions) and the suites' goal coverage is compared.

Usage (from the repository root):
    python3 bench/suite_cost.py --old OLD_FRUGAL --new NEW_FRUGAL [--seeds 3] [--budget 20000]
        [--crates numeric,textparse,statemachine] [--algorithms dynamosa,adynamosa]

Prints a Markdown table (medians over seeds) and writes the rows as JSON to --json-out.
The example crates are this repository's own; runs and profiles are confined by frugal anyway.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from algorithms_real import place_suite, profile  # noqa: E402
from crates_common import ROOT, log, run_frugal  # noqa: E402


def one(frugal, label, krate, seed, algorithm, budget, scratch):
    root = os.path.join(scratch, f"{label}-{krate}-{algorithm}-{seed}")
    out = os.path.join(root, "out")
    src = os.path.join(ROOT, "examples", krate)
    summary, _, err = run_frugal(frugal, src, seed, str(budget),
                                 ["--algorithm", algorithm, "--no-measure"], "tests",
                                 os.path.join(root, "work"), out)
    if summary is None:
        sys.exit(f"{label} {krate} seed {seed}: frugal failed:\n{err}")
    copy = os.path.join(root, "copy")
    place_suite(src, os.path.join(out, "frugal_generated.rs"), "tests", copy)
    prof = profile(frugal, copy, "tests", [], os.path.join(root, "target"))
    if "error" in prof:
        sys.exit(f"{label} {krate} seed {seed}: profile failed:\n{prof['error']}")
    goals = sum(g.get("covered", 0) for g in summary["goals"].values()) \
        if isinstance(summary.get("goals"), dict) else None
    return {"binary": label, "crate": krate, "seed": seed, "algorithm": algorithm,
            "tests": summary["tests_emitted"], "goals_covered": goals,
            "instructions": prof["instructions"], "heap_peak": prof["heap_peak"],
            "heap_net": prof["heap_net"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--budget", type=int, default=20000)
    ap.add_argument("--crates", default="numeric,textparse,statemachine")
    ap.add_argument("--algorithms", default="dynamosa,adynamosa")
    ap.add_argument("--json-out", default=os.path.join(tempfile.gettempdir(), "suite-cost.json"))
    args = ap.parse_args()
    scratch = tempfile.mkdtemp(prefix="frugal-suite-cost-")
    rows = []
    for krate in args.crates.split(","):
        for algorithm in args.algorithms.split(","):
            for seed in range(1, args.seeds + 1):
                for label, binary in (("old", os.path.abspath(args.old)), ("new", os.path.abspath(args.new))):
                    row = one(binary, label, krate, seed, algorithm, args.budget, scratch)
                    log(json.dumps(row))
                    rows.append(row)
    with open(args.json_out, "w") as f:
        json.dump(rows, f, indent=1)
    med = statistics.median
    print("| crate | algorithm | tests old / new | goals old / new | instructions old / new | ratio | "
          "peak heap old / new | heap above empty run old / new |")
    print("|---|---|---|---|---|---|---|---|")
    for krate in args.crates.split(","):
        for algorithm in args.algorithms.split(","):
            def of(label, key):
                return med(r[key] for r in rows if (r["binary"], r["crate"], r["algorithm"]) == (label, krate, algorithm))
            ratio = of("new", "instructions") / of("old", "instructions")
            print(f"| {krate} | {algorithm} | {of('old', 'tests'):.0f} / {of('new', 'tests'):.0f} | "
                  f"{of('old', 'goals_covered')} / {of('new', 'goals_covered')} | "
                  f"{of('old', 'instructions'):.3e} / {of('new', 'instructions'):.3e} | {ratio:.3f} | "
                  f"{of('old', 'heap_peak'):.3e} / {of('new', 'heap_peak'):.3e} | "
                  f"{of('old', 'heap_net'):.3e} / {of('new', 'heap_net'):.3e} |")


if __name__ == "__main__":
    main()
