#!/usr/bin/env python3
"""Benchmark frugal on RustyUnit's six real crates and measure the suites with cargo-llvm-cov.

For each crate (exact version, fetched from crates.io; yanked ones from the registry's download
endpoint) and each seed 1..N: `frugal run` with a fixed wall-clock budget, then the emitted suite
alone is compiled into a clean copy of the crate and measured with cargo-llvm-cov (line and
region coverage of the crate's own sources; the crate's own tests are not run), confined to a
read-only namespace without network (bench/crates_common.py). Per crate it
also reports frugal's own goal counts, the share of callables supported with the top reasons for
the rest, executions per second, tests emitted and dropped, and the wall time of build and
search. Results go to bench/realcrates.json and the table to stdout (bench/REPORT.md quotes it).

Usage (from the repository root):
    cargo build --release -p frugal --bins
    python3 bench/realcrates.py [--budget 5m] [--seeds 1] [--first-seed 1] [--crates humantime,tight] [--smoke]

--smoke: humantime only, 20 s budget, one seed (what CI runs, with --min-line).
Exits 1 when frugal fails, a suite does not compile or pass, or a crate's line coverage is
below --min-line.
The crate sources and build caches live in $FRUGAL_BENCH_CACHE (default ~/.cache/frugal-bench),
never in the repository. cargo-llvm-cov and llvm-tools-preview are installed when missing.
"""

import argparse
import json
import os
import shutil
import statistics
import sys

from crates_common import (ROOT, cache_root, ensure_llvm_cov, fetch, frugal_bin, log, machine,
                           measure, pct, run_frugal, top_reasons)

# name, version, binary crate, extra frugal/cargo flags, RustyUnit RS and seeded DynaMOSA
# (mean MIR basic-block coverage over 30 runs; [rustyunit], see docs/references.md).
CRATES = [
    ("time", "0.3.7", False, [], 0.58, 0.56),
    ("gamie", "0.7.0", False, ["--all-features"], 0.46, 0.44),
    ("lsd", "0.21.0", True, [], 0.37, 0.35),
    ("humantime", "2.1.0", False, [], 0.18, 0.23),
    ("quick-xml", "0.23.0", False, [], 0.09, 0.12),
    ("tight", "1.0.1", True, [], 0.18, 0.22),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", default="5m", help="frugal search budget per crate and seed (default 5m)")
    ap.add_argument("--seeds", type=int, default=1, help="seeds 1..N (default 1)")
    ap.add_argument("--first-seed", type=int, default=1,
                    help="start at this seed (default 1), to add seeds to an earlier run's rows")
    ap.add_argument("--crates", default=None, help="comma-separated subset of the six")
    ap.add_argument("--frugal", default=None, help="path of the frugal binary")
    ap.add_argument("--smoke", action="store_true", help="humantime, 20 s, one seed (CI)")
    ap.add_argument("--json-out", default=os.path.join(ROOT, "bench", "realcrates.json"))
    ap.add_argument("--min-line", type=float, default=0.0,
                    help="fail (exit 1) when a crate's line coverage is below this percentage")
    ap.add_argument("--placement", choices=["in-crate", "tests", "auto"], default="in-crate",
                    help="where frugal places each suite (default in-crate: private functions are "
                         "tested from inside their modules, as RustyUnit's tests were; auto: "
                         "in-crate for the binary crates only, as in the tables before 2026-11-25)")
    ap.add_argument("--measure-only", action="store_true",
                    help="re-measure the suites of a previous run (same budget) without running frugal")
    args = ap.parse_args()
    if args.smoke:
        args.budget, args.seeds, args.crates = "20s", 1, "humantime"
    wanted = args.crates.split(",") if args.crates else [c[0] for c in CRATES]
    frugal = frugal_bin(args.frugal)
    ensure_llvm_cov()
    results = []

    def save():
        # After every row: a run cut short keeps what it measured.
        with open(args.json_out, "w") as f:
            json.dump({"machine": machine(), "budget": args.budget, "seeds": args.seeds,
                       "results": results}, f, indent=1)

    # In the order asked for, so the crates that matter most can run first.
    by_name = {c[0]: c for c in CRATES}
    for name, version, binary, flags, rs, dyna in (by_name[w] for w in wanted if w in by_name):
        src = fetch(name, version)
        placement = args.placement if args.placement != "auto" else ("in-crate" if binary else "tests")
        for seed in range(args.first_seed, args.seeds + 1):
            run_root = os.path.join(cache_root(), "runs", f"{name}-{version}")
            out = os.path.join(run_root, f"out-seed{seed}")
            if args.measure_only:
                with open(os.path.join(out, "summary.json")) as f:
                    summary, wall, err = json.load(f), 0.0, None
            else:
                shutil.rmtree(out, ignore_errors=True)
                summary, wall, err = run_frugal(frugal, src, seed, args.budget, flags,
                                                placement, os.path.join(run_root, "work"), out)
            row = {"crate": name, "version": version, "seed": seed, "budget": args.budget,
                   "placement": placement, "rustyunit_rs": rs, "rustyunit_dynamosa": dyna,
                   "frugal_wall_seconds": round(wall, 1)}
            if summary is None:
                log(f"{name} seed {seed}: frugal failed\n{err}")
                row["error"] = err
                results.append(row)
                save()
                continue
            row["summary"] = {k: summary[k] for k in (
                "goals", "callables", "executions", "executions_per_second", "tests_emitted",
                "tests_dropped", "seconds", "crashes", "timeouts")}
            row["coverage"] = measure(src, os.path.join(out, "frugal_generated.rs"), flags, placement,
                                      os.path.join(run_root, "cov"))
            log(f"{name} seed {seed}: {fmt_row(row)}")
            results.append(row)
            save()
    save()
    print(table(results))
    problems = [p for row in results for p in row_problems(row, args.min_line)]
    for p in problems:
        log(f"FAILED: {p}")
    if problems:
        sys.exit(1)


def row_problems(row, min_line):
    """Why a run does not meet the bar: frugal failed, the suite did not compile or pass, or
    its line coverage is below `min_line`."""
    name = f"{row['crate']} seed {row['seed']}"
    if "error" in row:
        return [f"{name}: frugal failed"]
    cov = row.get("coverage", {})
    if "error" in cov:
        return [f"{name}: the suite did not build or run under cargo-llvm-cov"]
    out = []
    if cov.get("failed") or not cov.get("passed"):
        out.append(f"{name}: {cov.get('passed')} tests passed, {cov.get('failed')} failed")
    line = pct(cov.get("lines"))
    if line < min_line:
        out.append(f"{name}: line coverage {line:.1f}% is below {min_line}%")
    return out


def fmt_row(row):
    cov = row.get("coverage", {})
    if "lines" not in cov:
        return f"coverage failed: {cov.get('error', '')[-500:]}"
    return f"lines {pct(cov['lines']):.1f}%  regions {pct(cov['regions']):.1f}%  tests {cov['passed']} passed {cov['failed']} failed"


def table(results):
    by_crate = {}
    for r in results:
        by_crate.setdefault(r["crate"], []).append(r)
    head = ("| crate | RustyUnit RS | RustyUnit seeded DynaMOSA | frugal lines | frugal regions | "
            "goals (frugal) | callables supported | top unsupported reasons | tests emitted / dropped | "
            "exec/s | build s | search s | verify s |\n|---" + "|---" * 12 + "|")
    rows, means = [head], []
    for name, version, _, _, rs, dyna in CRATES:
        runs = by_crate.get(name)
        if not runs:
            continue
        ok = [r for r in runs if "lines" in r.get("coverage", {})]
        if not ok:
            why = runs[0].get("error") or runs[0].get("coverage", {}).get("error", "")
            rows.append(f"| {name} {version} | {rs:.0%} | {dyna:.0%} | failed | | | | {why.strip().splitlines()[-1][:120] if why.strip() else ''} | | | | | |")
            means.append(0.0)
            continue
        med = lambda f: statistics.median(f(r) for r in ok)  # noqa: E731
        lines = med(lambda r: pct(r["coverage"]["lines"]))
        means.append(lines)
        s = ok[0]["summary"]
        goals = s["goals"]
        g = " ".join(f"{k} {v['covered']}/{v['total']}" for k, v in goals.items() if k in ("branch", "line", "function"))
        c = s["callables"]
        reasons = "; ".join(f"{n}× {r}" for r, n in top_reasons(s))
        secs = s["seconds"]
        rows.append(
            f"| {name} {version} | {rs:.0%} | {dyna:.0%} | {lines:.1f}% | "
            f"{med(lambda r: pct(r['coverage']['regions'])):.1f}% | {g} | {c['supported']}/{c['total']} | {reasons} | "
            f"{med(lambda r: r['summary']['tests_emitted'])} / {med(lambda r: len(r['summary']['tests_dropped']))} | "
            f"{med(lambda r: r['summary']['executions_per_second']):.0f} | "
            f"{secs['instrument'] + secs['build_harness']:.0f} | {secs['search']:.0f} | {secs['verify']:.0f} |")
    if means:
        rows.append(f"| **mean** | 31% | 32% | **{statistics.mean(means):.1f}%** | | | | | | | | | |")
    return "\n".join(rows)


if __name__ == "__main__":
    main()
