#!/usr/bin/env python3
"""aDynaMOSA against DynaMOSA on RustyUnit's six real crates (issue 17, [adynamosa]).

For each crate, seed 1..N and algorithm (dynamosa, adynamosa): `frugal run` with a wall-clock
budget, then the emitted suite
- line coverage: cargo-llvm-cov over the crate's sources, the suite alone (crates_common.measure,
  confined);
- measured cost: `frugal profile --valgrind` on a copy with the suite placed (frugal's own
  sandbox): summed instructions (cachegrind) and summed per-test peak heap (dhat), and the
  median wall time of `cargo test` running the suite (confined, three runs, build excluded);
- per test: its proxies (summary.json) and its instructions, for the Spearman correlation of
  each proxy with the measured cost, per crate.

Writes bench/algorithms-real.json and bench/ALGORITHMS-REAL.md (totals over all crates, per-crate
rows, correlations). The paper's claim is -24% runtime and -15% heap at equal coverage; the goal
here is at least 25% fewer instructions and 15% less peak heap summed over all crates, with line
coverage within 1 point.

Usage (from the repository root):
    cargo build --release -p frugal -p frugal-profiler --bins
    python3 bench/algorithms_real.py [--budget 5m] [--seeds 3] [--crates humantime,tight] [--jobs 2]
    python3 bench/algorithms_real.py --smoke    # humantime, 10 s, one seed: the pipeline works
    python3 bench/algorithms_real.py --render-only [--crates ...]   # the report from the rows so far
    python3 bench/algorithms_real.py --remeasure   # profile again the suites whose profile failed
    python3 bench/algorithms_real.py --resume ...  # only the runs the rows file lacks
    python3 bench/algorithms_real.py --crates gamie --algorithms dynamosa,adynamosa,adynamosa-estimate \
        --rows bench/algorithms-real-estimate-rows.jsonl --out-dir DIR   # a variant beside the two

Each finished run is appended to bench/algorithms-real-rows.jsonl at once, so a run cut short
keeps what it measured.

Crate code runs only confined: frugal's sandbox for runs and profiles, crates_common.confined
for coverage and `cargo test`. Sources and caches live in $FRUGAL_BENCH_CACHE.
"""

import argparse
import concurrent.futures
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crates_common import (ROOT, cache_root, confined, ensure_llvm_cov, fetch, frugal_bin,  # noqa: E402
                           frugal_commit, log, machine, measure, package_name, pct, run_frugal, set_frugal_commit,
                           standalone_copy)
from realcrates import CRATES  # noqa: E402

ALGORITHMS = ["dynamosa", "adynamosa"]
# Variants run with --algorithms: a label and the `frugal run` flags it stands for.
VARIANTS = {
    "dynamosa": ["--algorithm", "dynamosa"],
    "adynamosa": ["--algorithm", "adynamosa"],
    # The minimiser's pieces (`--minimiser`; the two above use frugal's default, `shrink`): a
    # cover by goal count as other tools ship it, the cover weighted by estimated cost, and
    # shrinking the kept tests' cost after it.
    "dynamosa-plain": ["--algorithm", "dynamosa", "--minimiser", "plain"],
    "dynamosa-cost": ["--algorithm", "dynamosa", "--minimiser", "cost"],
    "adynamosa-cost": ["--algorithm", "adynamosa", "--minimiser", "cost"],
    # aDynaMOSA whose archive keeps the test with fewer estimated instructions, not Eq. 1's.
    "adynamosa-estimate": ["--algorithm", "adynamosa", "--archive", "estimate"],
}
PROXIES = ["loop_cycles", "covered_calls", "test_calls", "allocations", "covered_statements",
           "test_statements", "test_length"]


def place_suite(src, generated, placement, dest):
    """A standalone copy of the crate with the suite where `frugal run` placed it."""
    standalone_copy(src, dest, declare_generated=placement == "tests")
    if placement == "tests":
        os.makedirs(os.path.join(dest, "tests"), exist_ok=True)
        shutil.copy(generated, os.path.join(dest, "tests", "frugal_generated.rs"))
        return ["--test", "frugal_generated"], []
    _, has_lib, bins = package_name(dest)
    shutil.copy(generated, os.path.join(dest, "src", "frugal_generated.rs"))
    with open(os.path.join(dest, "src", "lib.rs" if has_lib else "main.rs"), "a") as f:
        f.write('\n#[cfg(test)]\n#[path = "frugal_generated.rs"]\nmod frugal_generated;\n')
    return (["--lib"] if has_lib else ["--bin", bins[0]]), ["frugal_generated::"]


def profile(frugal, copy, placement, flags, target):
    """Per-test instructions (cachegrind) and peak heap (dhat) of the placed suite."""
    suite = ["--suite", "generated"] if placement == "tests" else ["--suite", "existing", "--filter",
                                                                    "frugal_generated::"]
    cmd = [frugal, "profile", copy, "--valgrind", "--repeat", "1", "--json", "--target-dir", target] + suite + flags
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return {"error": proc.stderr[-2000:]}
    report = json.loads(proc.stdout)
    base_heap = {}
    for b in report.get("baselines", []):
        for fig in b.get("figures", []):
            reading = fig.get("reading", {})
            if (fig["metric"], fig["source"]) == ("heap-peak-bytes", "dhat") and reading.get("status") == "measured":
                base_heap[json.dumps(b["binary"], sort_keys=True)] = reading["stats"]["median"]
    tests = {}
    for t in report.get("tests", []):
        name = t["name"].split("::")[-1]
        row = {}
        for fig in t.get("figures", []):
            reading = fig.get("reading", {})
            if reading.get("status") != "measured":
                continue
            key = (fig["metric"], fig["source"])
            if key == ("instructions", "cachegrind"):
                net = reading.get("net_median")
                row["instructions"] = max(net if net is not None else reading["stats"]["median"], 0.0)
            elif key == ("heap-peak-bytes", "dhat"):
                row["heap_peak"] = reading["stats"]["median"]
                # A peak is not additive, but the empty run's peak (libtest's own buffers) is
                # a floor every test pays; above it is what the test's code allocated.
                base = base_heap.get(json.dumps(t["binary"], sort_keys=True))
                if base is not None:
                    row["heap_net"] = max(row["heap_peak"] - base, 0.0)
        tests[name] = row
    return {"tests": tests,
            "instructions": sum(r.get("instructions", 0.0) for r in tests.values()),
            "heap_peak": sum(r.get("heap_peak", 0.0) for r in tests.values()),
            "heap_net": (sum(r.get("heap_net", 0.0) for r in tests.values())
                         if any("heap_net" in r for r in tests.values()) else None),
            "unmeasured": sum(1 for r in tests.values() if "instructions" not in r)}


def cargo_test_seconds(copy, target_args, filter_args, flags, scratch, runs=3):
    """Median wall time of `cargo test` running the suite, the build done first and excluded."""
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(scratch, "target"), CARGO_NET_OFFLINE="true",
               RUST_BACKTRACE="0")
    extra = [f for f in flags if f == "--all-features"]
    base = ["cargo", "test", "--manifest-path", os.path.join(copy, "Cargo.toml"), "-q"] + extra + target_args
    subprocess.run(["cargo", "fetch", "--manifest-path", os.path.join(copy, "Cargo.toml")],
                   capture_output=True, text=True)
    built = confined(base + ["--no-run"], scratch, env, copy)
    if built.returncode != 0:
        return None
    times = []
    for _ in range(runs):
        started = time.time()
        confined(base + ["--"] + filter_args, scratch, env, copy)
        times.append(time.time() - started)
    return statistics.median(times)


def spearman(xs, ys):
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2.0
            i = j + 1
        return r
    if len(xs) < 3:
        return None
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.mean(rx), statistics.mean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sx = sum((a - mx) ** 2 for a in rx) ** 0.5
    sy = sum((b - my) ** 2 for b in ry) ** 0.5
    return cov / (sx * sy) if sx and sy else None


def a12(xs, ys):
    """Vargha and Delaney's Â12: the probability that a value of `xs` is larger than one of
    `ys`, ties counting half. 0.5 is no difference; for instructions, below 0.5 means `xs`'s
    suites are cheaper."""
    if not xs or not ys:
        return float("nan")
    wins = sum((x > y) + 0.5 * (x == y) for x in xs for y in ys)
    return wins / (len(xs) * len(ys))


def mann_whitney_p(xs, ys):
    """Two-sided p of the Mann-Whitney U test, exact: over every way of splitting the pooled
    values into groups of these sizes (252 splits for 5 seeds against 5), the share whose U is
    at least as far from its mean as the observed one. Ties count half, as in Â12."""
    n, m = len(xs), len(ys)
    if not n or not m:
        return float("nan")
    pooled = list(xs) + list(ys)
    mean = n * m / 2

    def u(group):
        rest = [pooled[i] for i in range(n + m) if i not in group]
        return sum((pooled[i] > y) + 0.5 * (pooled[i] == y) for i in group for y in rest)
    observed = abs(u(set(range(n))) - mean)
    splits = [set(c) for c in itertools.combinations(range(n + m), n)]
    if len(splits) > 50_000:
        return float("nan")
    return sum(abs(u(c) - mean) >= observed - 1e-9 for c in splits) / len(splits)


def run_root(name, version, algorithm, seed):
    return os.path.join(cache_root(), "algorithms-real", f"{name}-{version}", f"{algorithm}-seed{seed}")


def cost_of_suite(frugal, spec, root, row):
    """Profiles the run's emitted suite (kept in `root`/out) and times `cargo test` on it."""
    name, version, binary, flags, _, _ = spec
    placement = "in-crate" if binary else "tests"
    generated = os.path.join(root, "out", "frugal_generated.rs")
    copy = os.path.join(root, "profiled")
    shutil.rmtree(copy, ignore_errors=True)
    target_args, filter_args = place_suite(fetch(name, version), generated, placement, copy)
    row["profile"] = profile(frugal, copy, placement, flags, os.path.join(root, "profile-target"))
    row["cargo_test_seconds"] = cargo_test_seconds(copy, target_args, filter_args, flags,
                                                   os.path.join(root, "cargo-test"))


def one(frugal, spec, seed, algorithm, budget):
    name, version, binary, flags, _, _ = spec
    src = fetch(name, version)
    placement = "in-crate" if binary else "tests"
    root = run_root(name, version, algorithm, seed)
    out = os.path.join(root, "out")
    shutil.rmtree(out, ignore_errors=True)
    # One work dir per crate and algorithm: its runs are sequential, and builds are paid once.
    work = os.path.join(os.path.dirname(root), f"work-{algorithm}")
    summary, wall, err = run_frugal(frugal, src, seed, budget, flags + VARIANTS[algorithm] + ["--no-measure"],
                                    placement, work, out)
    row = {"crate": name, "version": version, "seed": seed, "algorithm": algorithm, "budget": budget,
           "frugal_wall_seconds": round(wall, 1), "frugal_commit": frugal_commit()}
    if summary is None:
        row["error"] = err
        return row
    generated = os.path.join(out, "frugal_generated.rs")
    row["tests_emitted"] = summary["tests_emitted"]
    row["proxy_total"] = summary["suite_proxy_total"]
    row["test_proxies"] = {t["name"]: t.get("proxies", {}) for t in summary.get("tests", [])}
    cov = measure(src, generated, flags, placement, os.path.join(root, "cov"))
    row["lines"] = pct(cov["lines"]) if "lines" in cov else None
    cost_of_suite(frugal, spec, root, row)
    log(f"{name} {algorithm} seed {seed}: lines {row['lines']}, instructions "
        f"{row['profile'].get('instructions')}, heap {row['profile'].get('heap_peak')}")
    return row


def keep(row, path, lock):
    """Appends a finished run to the rows file: a run cut short keeps what it measured
    (`--render-only` turns the file into the report)."""
    with lock, open(path, "a") as f:
        f.write(json.dumps(row) + "\n")
    return row


def archive_score(px):
    """Eq. 1 of [adynamosa], what aDynaMOSA's archive compares: sum of x / (x + 1) over I1..I7."""
    return sum(float(px.get(p, 0)) / (float(px.get(p, 0)) + 1.0) for p in PROXIES)


def nnls(xs, ys, weights, iterations=3000):
    """Non-negative least squares by coordinate descent on the normal equations:
    min sum_i weights_i (x_i . w - y_i)^2 with w >= 0. Small problems (eight unknowns)."""
    n = len(xs[0])
    g = [[sum(wt * x[a] * x[b] for x, wt in zip(xs, weights)) for b in range(n)] for a in range(n)]
    h = [sum(wt * x[a] * y for x, y, wt in zip(xs, ys, weights)) for a in range(n)]
    w = [0.0] * n
    for _ in range(iterations):
        for j in range(n):
            if g[j][j] <= 0:
                continue
            grad = sum(g[j][k] * w[k] for k in range(n)) - h[j]
            w[j] = max(0.0, w[j] - grad / g[j][j])
    return w


def fit_cost(samples):
    """Instructions of a test as an intercept plus non-negative weights on I1..I7, fitted for
    relative error (each test weighs 1/cost^2), so cheap tests count as much as dear ones."""
    xs = [[1.0] + [float(px.get(p, 0)) for p in PROXIES] for px, _ in samples]
    ys = [c for _, c in samples]
    weights = [1.0 / max(c, 1.0) ** 2 for c in ys]
    return nnls(xs, ys, weights)


def fitted(w, px):
    return w[0] + sum(wk * float(px.get(p, 0)) for wk, p in zip(w[1:], PROXIES))


def test_samples(ok, metric):
    """(proxies, measured metric) of every profiled test, by crate."""
    by = {}
    for r in ok:
        for test, prof in r["profile"]["tests"].items():
            if metric in prof and test in r["test_proxies"]:
                by.setdefault(r["crate"], []).append((r["test_proxies"][test], prof[metric]))
    return by


def where_the_cost_is(by, pair):
    """Suite size against cost per test: which of the two moves the total."""
    med = statistics.median
    base, chal = pair
    out = ["", "## Where the difference comes from: number of tests or cost per test", "",
           f"| crate | tests ({base} / {chal}) | instructions per test | heap per test |",
           "|---|---|---|---|"]
    for name, *_ in CRATES:
        d, a = by.get((name, base)), by.get((name, chal))
        if not d or not a:
            continue

        def per(rs, key):
            return med(r["profile"][key] / max(r["tests_emitted"], 1) for r in rs)
        out.append(f"| {name} | {med(r['tests_emitted'] for r in d):.0f} / {med(r['tests_emitted'] for r in a):.0f} | "
                   f"{per(d, 'instructions'):.3e} / {per(a, 'instructions'):.3e} | "
                   f"{per(d, 'heap_peak'):.3e} / {per(a, 'heap_peak'):.3e} |")
    return out


def significance(by, pair):
    """Per crate, whether the seeds separate the two: Mann-Whitney's p and Â12 (challenger
    against baseline) on instructions and on line coverage."""
    base, chal = pair
    out = ["", f"## Per crate: {chal} against {base} over seeds (Mann-Whitney U, exact; Vargha-Delaney Â12)", "",
           "Â12 below 0.5: the first's values are smaller (cheaper suites, or lower coverage).", "",
           "| crate | seeds | instructions ratio (medians) | Â12 | p | line % | Â12 | p |",
           "|---|---|---|---|---|---|---|---|"]
    for name, *_ in CRATES:
        d, a = by.get((name, base)), by.get((name, chal))
        if not d or not a:
            continue
        di = [r["profile"]["instructions"] for r in d]
        ai = [r["profile"]["instructions"] for r in a]
        dl, al = [r["lines"] for r in d], [r["lines"] for r in a]
        med = statistics.median
        out.append(f"| {name} | {len(a)} / {len(d)} | {med(ai) / med(di):.3f} | {a12(ai, di):.2f} | "
                   f"{mann_whitney_p(ai, di):.3f} | {med(al):.1f} / {med(dl):.1f} | {a12(al, dl):.2f} | "
                   f"{mann_whitney_p(al, dl):.3f} |")
    return out


def rho_cell(xs, ys):
    rho = spearman(xs, ys)
    return "n/a" if rho is None else f"{rho:.2f}"


def correlations(ok):
    """Spearman of each proxy, their sum, Eq. 1 and a fitted estimate with a test's measured
    cost, per crate. The fitted estimate of a crate is fitted on the other crates only
    (leave one crate out), so its column is what a fit buys on a crate it has not seen."""
    out = []
    for metric, label in (("instructions", "instructions (cachegrind)"), ("heap_peak", "peak heap (dhat)"),
                          ("heap_net", "peak heap above the empty run's (dhat)")):
        samples = test_samples(ok, metric)
        out += ["", f"## Spearman correlation with a test's {label}", "",
                "| crate | tests | " + " | ".join(PROXIES) + " | sum | Eq. 1 | fitted (held out) |",
                "|---|---" + "|---" * (len(PROXIES) + 3) + "|"]
        for name, *_ in CRATES:
            pairs = samples.get(name, [])
            if len(pairs) < 3:
                continue
            cost = [c for _, c in pairs]
            cells = [rho_cell([float(px.get(p, 0)) for px, _ in pairs], cost) for p in PROXIES]
            cells.append(rho_cell([float(sum(px.values())) for px, _ in pairs], cost))
            cells.append(rho_cell([archive_score(px) for px, _ in pairs], cost))
            others = [s for c, ss in samples.items() if c != name for s in ss]
            if len(others) >= len(PROXIES) + 1:
                w = fit_cost(others)
                cells.append(rho_cell([fitted(w, px) for px, _ in pairs], cost))
            else:
                cells.append("n/a")
            out.append(f"| {name} | {len(pairs)} | " + " | ".join(cells) + " |")
        every = [s for ss in samples.values() for s in ss]
        if len(every) >= len(PROXIES) + 1:
            w = fit_cost(every)
            out += ["", f"Weights fitted on every crate's tests ({metric} = intercept + sum of weight x proxy, "
                    "non-negative, relative error): intercept " + f"{w[0]:.4g}; "
                    + ", ".join(f"{p} {wk:.4g}" for p, wk in zip(PROXIES, w[1:])) + "."]
    return out


def variant_rows(by, med, pair):
    """Per crate, each other variant beside the baseline of the same rows: instructions and
    heap as ratios, line coverage beside it."""
    base = pair[0]
    variants = sorted({a for (_, a) in by if a not in pair})
    out = []
    for v in variants:
        out += ["", f"## {v} against {base}", "",
                f"| crate | seeds | line % ({base}) | tests | instructions / {base}'s | peak heap / {base}'s |",
                "|---|---|---|---|---|---|"]
        for name, *_ in CRATES:
            rs, ds = by.get((name, v)), by.get((name, base))
            if not rs or not ds:
                continue
            ratio = lambda f: med(rs, f) / med(ds, f)  # noqa: E731
            out.append(f"| {name} | {len(rs)} | {med(rs, lambda r: r['lines']):.1f} ({med(ds, lambda r: r['lines']):.1f}) | "
                       f"{med(rs, lambda r: r['tests_emitted']):.0f} | "
                       f"{ratio(lambda r: r['profile']['instructions']):.2f} | "
                       f"{ratio(lambda r: r['profile']['heap_peak']):.2f} |")
    return out


def render(rows, args):
    ok = [r for r in rows if "error" not in r and r.get("lines") is not None and "error" not in r["profile"]]
    by = {}
    for r in ok:
        by.setdefault((r["crate"], r["algorithm"]), []).append(r)
    med = lambda rs, f: statistics.median(f(r) for r in rs) if rs else float("nan")  # noqa: E731
    pair = (args.baseline, "adynamosa")
    base, chal = pair
    lines = [f"# aDynaMOSA (frugal's default) against {base} on real crates", "",
             f"Runs by frugal at {', '.join(sorted({r.get('frugal_commit', 'a commit the rows do not record (see the reading)') for r in rows}))}; "
             f"budget {args.budget} per run; seeds 1..{args.seeds}; "
             f"machine: {machine()['cores']} cores, {machine()['cpu']}.",
             f"Reproduce: `python3 bench/algorithms_real.py --budget {args.budget} --seeds {args.seeds}"
             f"{' --crates ' + args.crates if args.crates else ''}"
             f"{' --algorithms ' + args.algorithms if args.algorithms != ','.join(ALGORITHMS) else ''}"
             f"{' --baseline ' + base if base != ALGORITHMS[0] else ''}`", "",
             "Medians over seeds. Instructions: summed net cachegrind instructions of the suite's tests; "
             "heap: summed per-test peak heap (dhat); `cargo test`: median wall time of running the "
             "suite, build excluded.", "",
             "| crate | algorithm | line % | tests | proxies | instructions | peak heap (bytes) | heap above empty run | cargo test s |",
             "|---|---|---|---|---|---|---|---|---|"]
    totals = {a: {"instructions": 0.0, "heap": 0.0, "heap_net": 0.0, "lines": []} for a in pair}
    for name, *_ in CRATES:
        # Totals compare like with like: only crates both algorithms have runs of.
        if not all(by.get((name, a)) for a in pair):
            continue
        for a in pair:
            rs = by.get((name, a))
            ins = med(rs, lambda r: r["profile"]["instructions"])
            heap = med(rs, lambda r: r["profile"]["heap_peak"])
            totals[a]["instructions"] += ins
            totals[a]["heap"] += heap
            nets = [r["profile"]["heap_net"] for r in rs if r["profile"].get("heap_net") is not None]
            net = statistics.median(nets) if nets else float("nan")
            totals[a]["heap_net"] += net
            totals[a]["lines"].append(med(rs, lambda r: r["lines"]))
            secs = [r["cargo_test_seconds"] for r in rs if r.get("cargo_test_seconds") is not None]
            lines.append(f"| {name} | {a} | {med(rs, lambda r: r['lines']):.1f} | "
                         f"{med(rs, lambda r: r['tests_emitted']):.0f} | {med(rs, lambda r: r['proxy_total']):.0f} | "
                         f"{ins:.3e} | {heap:.3e} | {net:.3e} | {statistics.median(secs) if secs else float('nan'):.2f} |")
    d, a = totals[base], totals[chal]
    if d["instructions"] and d["heap"] and d["lines"] and a["lines"]:
        lines += ["", "## Totals over the crates", "",
                  f"- Instructions: {chal} {a['instructions']:.3e} vs {base} {d['instructions']:.3e} "
                  f"({100 * (a['instructions'] / d['instructions'] - 1):+.1f}%; goal -25%).",
                  f"- Peak heap: {a['heap']:.3e} vs {d['heap']:.3e} ({100 * (a['heap'] / d['heap'] - 1):+.1f}%; goal -15%).",
                  f"- Peak heap above the empty run's: {a['heap_net']:.3e} vs {d['heap_net']:.3e} "
                  f"({100 * (a['heap_net'] / d['heap_net'] - 1) if d['heap_net'] else float('nan'):+.1f}%).",
                  f"- Mean line coverage: {statistics.mean(a['lines']):.1f}% vs {statistics.mean(d['lines']):.1f}% "
                  "(goal: within 1 point)."]
        # One crate's expensive outlier can decide a sum; the per-crate ratios show each crate.
        ratios = [med(by[(n, chal)], lambda r: r["profile"]["instructions"])
                  / med(by[(n, base)], lambda r: r["profile"]["instructions"])
                  for n, *_ in CRATES if by.get((n, chal)) and by.get((n, base))]
        if ratios and all(x > 0 for x in ratios):
            geo = statistics.geometric_mean(ratios)
            lines.append(f"- Instructions, {chal} / {base} per crate: "
                         + ", ".join(f"{x:.2f}" for x in ratios) + f"; geometric mean {geo:.2f}.")
    lines += significance(by, pair)
    lines += variant_rows(by, med, pair)
    lines += where_the_cost_is(by, pair)
    lines += correlations(ok)
    failed = [r for r in rows if r not in ok]
    if failed:
        lines += ["", "## Runs without figures", ""]
        for r in failed:
            why = r.get("error") or r.get("profile", {}).get("error") or "no coverage"
            lines.append(f"- {r['crate']} {r['algorithm']} seed {r['seed']}: {why.strip().splitlines()[-1][:200] if why.strip() else '?'}")
    return "\n".join(lines) + "\n"


def remeasure(args, rows_path):
    """Profiles again the suites of rows whose profile failed (their emitted files are kept),
    and rewrites the rows file: a measuring fault costs no search run."""
    frugal = frugal_bin(args.frugal)
    with open(rows_path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    specs = {c[0]: c for c in CRATES}
    for row in rows:
        if "error" in row or "error" not in row.get("profile", {}):
            continue
        spec = specs[row["crate"]]
        root = run_root(row["crate"], row["version"], row["algorithm"], row["seed"])
        cost_of_suite(frugal, spec, root, row)
        log(f"{row['crate']} {row['algorithm']} seed {row['seed']} re-measured: instructions "
            f"{row['profile'].get('instructions')}, heap {row['profile'].get('heap_peak')}")
        with open(rows_path + ".tmp", "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
        os.replace(rows_path + ".tmp", rows_path)
    return rows


def run_all(args, rows_path):
    frugal = frugal_bin(args.frugal)
    ensure_llvm_cov()
    wanted = args.crates.split(",") if args.crates else [c[0] for c in CRATES]
    specs = [c for c in CRATES if c[0] in wanted]
    done = []
    if args.resume and os.path.exists(rows_path):
        with open(rows_path) as f:
            done = [json.loads(line) for line in f if line.strip()]
        # A search that failed runs again; one whose measuring failed is for --remeasure.
        done = [r for r in done if "error" not in r and r.get("budget") == args.budget]
    with open(rows_path, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in done)
    have = {(r["crate"], r["seed"], r["algorithm"]) for r in done}
    lock = threading.Lock()
    algorithms = args.algorithms.split(",")

    def stream_runs(stream):
        # One crate and algorithm: its seeds in turn, in its own work dir.
        spec, a = stream
        return [keep(one(frugal, spec, seed, a, args.budget), rows_path, lock)
                for seed in range(1, args.seeds + 1) if (spec[0], seed, a) not in have]

    streams = [(spec, a) for spec in specs for a in algorithms]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        return done + [r for rs in pool.map(stream_runs, streams) for r in rs]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", default="5m")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--crates", default=None, help="comma-separated subset of the six")
    ap.add_argument("--jobs", type=int, default=1,
                    help="runs side by side, each a crate and algorithm's seeds in turn (default 1)")
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS),
                    help=f"comma-separated, of {', '.join(VARIANTS)} (default: {','.join(ALGORITHMS)})")
    ap.add_argument("--baseline", default=ALGORITHMS[0], choices=[v for v in VARIANTS if v != "adynamosa"],
                    help="what frugal's default (adynamosa) is compared against in the totals and the "
                         "per-crate tests (default dynamosa; issue 38's acceptance: dynamosa-plain)")
    ap.add_argument("--frugal", default=None)
    ap.add_argument("--frugal-commit", default=None,
                    help="the commit --frugal was built from, recorded in the rows (default: the "
                         "repository's HEAD when the run starts)")
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "bench"))
    ap.add_argument("--smoke", action="store_true", help="humantime, 10 s, one seed")
    ap.add_argument("--rows", default=None,
                    help="file the finished runs are appended to, one JSON object per line "
                         "(default: algorithms-real-rows.jsonl in --out-dir, or the temp dir with --smoke)")
    ap.add_argument("--render-only", action="store_true",
                    help="write the report from the rows file without running anything")
    ap.add_argument("--resume", action="store_true",
                    help="keep the finished runs of the rows file (same budget) and do only the others")
    ap.add_argument("--remeasure", action="store_true",
                    help="profile again the suites of rows whose profile failed, then write the report")
    args = ap.parse_args()
    if args.frugal_commit:
        set_frugal_commit(args.frugal_commit)
    # Read now: a commit made while the run goes on must not relabel its rows.
    frugal_commit()
    os.makedirs(args.out_dir, exist_ok=True)
    if args.smoke:
        args.budget, args.seeds, args.crates = "10s", 1, "humantime"
    rows_path = args.rows or os.path.join(tempfile.gettempdir() if args.smoke else args.out_dir,
                                          "algorithms-real-rows.jsonl")
    if args.remeasure:
        rows = remeasure(args, rows_path)
    elif args.render_only:
        with open(rows_path) as f:
            rows = [json.loads(line) for line in f if line.strip()]
    else:
        rows = run_all(args, rows_path)
    md = render(rows, args)
    print(md)
    suffix = "-smoke" if args.smoke else ""
    with open(os.path.join(args.out_dir if not args.smoke else tempfile.gettempdir(),
                           f"algorithms-real{suffix}.json"), "w") as f:
        json.dump({"machine": machine(), "commit": frugal_commit(), "budget": args.budget, "rows": rows}, f, indent=1)
    if not args.smoke:
        # A reading written by hand beside the data, as for CORPUS.md.
        notes = os.path.join(ROOT, "bench", "ALGORITHMS-REAL-notes.md")
        if os.path.exists(notes):
            with open(notes) as f:
                md += "\n" + f.read()
        with open(os.path.join(args.out_dir, "ALGORITHMS-REAL.md"), "w") as f:
            f.write(md)
    bad = [r for r in rows if "error" in r or r.get("lines") is None or "error" in r.get("profile", {})]
    if bad:
        log(f"FAILED: {len(bad)} run(s) without figures")
        sys.exit(1)


if __name__ == "__main__":
    main()
