#!/usr/bin/env python3
"""Fits `proxies::INSTRUCTIONS` (proxies/src/estimate.rs), the estimate of a test's instructions
from its proxies I1..I7 that the minimiser and shrinking rank tests by, on profiled tests, and
validates it leave one crate out: each crate's tests are estimated by weights fitted on the
other crates only, which is what the estimate meets on a crate nobody profiled.

Input: rows files of `bench/algorithms_real.py` (one JSON object per run, with each emitted
test's proxies and its cachegrind instructions). Tests that appear in several runs of a crate
(same name, same proxies) count once.

Usage (from the repository root):
    python3 bench/fit_instructions.py [ROWS.jsonl ...]   # default: bench/algorithms-real*-rows.jsonl

Prints, per held-out crate, the Spearman correlation with the measured instructions and the
median relative error of the committed constant and of the held-out fit, then the weights fitted
on every crate as the Rust constant.
"""

import glob
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from algorithms_real import PROXIES, fit_cost, fitted, spearman  # noqa: E402
from crates_common import ROOT  # noqa: E402


def committed():
    """The INSTRUCTIONS constant as committed: [per_test, w1..w7]."""
    with open(os.path.join(ROOT, "proxies", "src", "estimate.rs")) as f:
        text = f.read()
    block = text[text.index("pub const INSTRUCTIONS"):]
    per_test = float(re.search(r"per_test:\s*([0-9_.eE+-]+)", block).group(1).replace("_", ""))
    weights = re.search(r"weights:\s*\[([^\]]*)\]", block).group(1)
    return [per_test] + [float(w.replace("_", "")) for w in weights.split(",") if w.strip()]


def samples(paths):
    """{crate: [(proxies, instructions)]}, each distinct test once."""
    seen, by = set(), {}
    for path in paths:
        with open(path) as f:
            for line in f:
                row = json.loads(line)
                tests = (row.get("profile") or {}).get("tests") or {}
                for name, prof in tests.items():
                    px = (row.get("test_proxies") or {}).get(name)
                    if px is None or "instructions" not in prof:
                        continue
                    key = (row["crate"], name, json.dumps(px, sort_keys=True))
                    if key in seen:
                        continue
                    seen.add(key)
                    by.setdefault(row["crate"], []).append((px, prof["instructions"]))
    return by


def relative_error(w, pairs):
    return statistics.median(abs(fitted(w, px) - c) / max(c, 1.0) for px, c in pairs)


def main():
    paths = sys.argv[1:] or sorted(glob.glob(os.path.join(ROOT, "bench", "algorithms-real*-rows.jsonl")))
    by = samples(paths)
    now = committed()
    print(f"rows: {', '.join(os.path.relpath(p, ROOT) for p in paths)}")
    print(f"tests: {sum(len(v) for v in by.values())} over {len(by)} crates\n")
    print("| held-out crate | tests | Spearman, committed | Spearman, held-out fit | median rel. error, committed "
          "| median rel. error, held-out fit |")
    print("|---|---|---|---|---|---|")
    gains = []
    for crate, pairs in sorted(by.items()):
        others = [s for c, ss in by.items() if c != crate for s in ss]
        w = fit_cost(others)
        cost = [c for _, c in pairs]
        rho_now = spearman([fitted(now, px) for px, _ in pairs], cost)
        rho_fit = spearman([fitted(w, px) for px, _ in pairs], cost)
        err_now, err_fit = relative_error(now, pairs), relative_error(w, pairs)
        gains.append(err_now - err_fit)
        fmt = lambda r: "n/a" if r is None else f"{r:.2f}"  # noqa: E731
        print(f"| {crate} | {len(pairs)} | {fmt(rho_now)} | {fmt(rho_fit)} | {err_now:.2f} | {err_fit:.2f} |")
    every = [s for ss in by.values() for s in ss]
    w = fit_cost(every)
    print(f"\nheld-out fits beat the committed constant's median relative error on "
          f"{sum(g > 0 for g in gains)} of {len(gains)} crates")
    print("\nfitted on every crate:\n")
    print("pub const INSTRUCTIONS: CostModel = CostModel {")
    print(f"    per_test: {w[0]:.1f},")
    print("    weights: [" + ", ".join(f"{x:.4g}" for x in w[1:]) + "],")
    print("};")
    print(f"\ncommitted: per_test {now[0]}, weights {now[1:]} ({', '.join(PROXIES)})")


if __name__ == "__main__":
    main()
