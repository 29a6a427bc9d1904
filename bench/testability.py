#!/usr/bin/env python3
"""Ablation of the testability transformations (issue 16, [testability]).

Runs `frugal run` with and without `--no-testability` (interleaved: seed 1 on, seed 1 off, seed
2 on, ...) on the example crates and on registry crates (fetched with their checksums by
crates_common.fetch; their code runs only inside frugal's sandbox and, for coverage, confined by
crates_common.measure), and compares:

- line coverage of the emitted suite, measured by cargo-llvm-cov over the crate's sources (the
  paper's metric: the transformations add goals, so goal counts alone are not comparable);
- plain branch goals: the branch goals both configurations have (every branch goal but the
  observers' own two per call site), covered by the emitted suite;
- all branch goals of each configuration, for reference (different denominators).

Reports medians, the Vargha-Delaney A12 of "with" against "without" and the exact two-sided
Mann-Whitney U p-value, into bench/TESTABILITY.md (and the raw rows into bench/testability.json).

`--throughput` instead measures executions per second side by side: an execution budget, the
same seed, on and off interleaved, several repetitions per crate.

Usage (from the repository root):
    cargo build --release -p frugal
    python3 bench/testability.py [--seeds 5] [--budget 20s] [--crates numeric,humantime@2.1.0]
    python3 bench/testability.py --throughput [--reps 3] [--budget 20000]
    python3 bench/testability.py --smoke     # flagparse, one seed, 5 s: what CI can afford
"""

import argparse
import itertools
import json
import os
import re
import shutil
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crates_common import (ROOT, add_report_args, cache_root, ensure_llvm_cov, fetch, frugal_bin,  # noqa: E402
                           frugal_commit, log, machine, measure, run_frugal)

EXAMPLES = ["flagparse", "textparse", "numeric", "statemachine"]
REGISTRY = ["humantime@2.1.0", "quick-xml@0.23.0"]
# Parser-like crates of the corpus (bench/corpus.py, category "parsers" and "time").
CORPUS_PARSERS = ["semver@1.0.28", "httparse@1.10.1", "mime@0.3.18", "glob@0.3.4",
                  "shlex@2.0.1", "httpdate@1.0.3"]
THROUGHPUT = ["numeric", "textparse", "statemachine", "flagparse"]
CONFIGS = [("with", []), ("without", ["--no-testability"])]

# Labels of the goals observers add (instrument/observe.rs): "<method> <outcome>".
OBSERVER_LABEL = re.compile(
    r"^(starts_with|ends_with|contains|eq_ignore_ascii_case|contains_key|strip_prefix|"
    r"strip_suffix|find|rfind|split_once|rsplit_once|get|to_digit|is_empty|parse|try_from|"
    r"is_ascii_[a-z]+) (true|false|some|none|ok|err)$")


def source_of(spec):
    """An example's directory, or a registry crate fetched (checksum verified) into the cache."""
    if "@" not in spec:
        return os.path.join(ROOT, "examples", spec)
    name, version = spec.split("@", 1)
    return fetch(name, version)


def plain_branch_coverage(work, summary):
    """(covered, total) over the branch goals that are not observers' own, from the work dir's
    goals.json and the goals of the emitted tests."""
    with open(os.path.join(work, "goals.json")) as f:
        goals = json.load(f)
    plain = {g["id"] for g in goals if g["kind"] == "branch" and not OBSERVER_LABEL.match(g["label"])}
    covered = set()
    for t in summary.get("tests", []):
        covered.update(t.get("goals", []))
    return len(plain & covered), len(plain)


def one_run(frugal, spec, src, seed, budget, config, flags, root, coverage):
    work = os.path.join(root, "work", spec.replace("@", "-"), config)
    out = os.path.join(root, "out", f"{spec.replace('@', '-')}-{config}-{seed}")
    shutil.rmtree(out, ignore_errors=True)
    summary, wall, err = run_frugal(frugal, src, seed, budget, flags, "tests", work, out)
    row = {"crate": spec, "config": config, "seed": seed, "budget": budget, "wall": wall}
    if err:
        row["error"] = err
        return row
    branch = summary["goals"].get("branch", {})
    row.update({
        "branch_covered": branch.get("covered", 0),
        "branch_total": branch.get("total", 0),
        "executions": summary.get("executions"),
        "executions_per_second": summary.get("executions_per_second"),
        "search_seconds": summary.get("seconds", {}).get("search"),
        "tests": summary.get("tests_emitted"),
    })
    row["plain_covered"], row["plain_total"] = plain_branch_coverage(work, summary)
    if coverage:
        line_coverage(row, spec, src, out, flags, root)
    return row


def line_coverage(row, spec, src, out, flags, root):
    """Measures the run's suite into `row` (the crate's coverage build is kept between runs;
    `measure` drops the profiles of the suites before)."""
    cov_root = os.path.join(root, "cov", spec.replace("@", "-"))
    cov = measure(src, os.path.join(out, "frugal_generated.rs"), flags, "tests", cov_root)
    if "error" in cov:
        row["coverage_error"] = cov["error"][-1500:]
    else:
        row["lines_covered"] = cov["lines"]["covered"]
        row["lines_count"] = cov["lines"]["count"]


def remeasure(args, root):
    """Measures again the suites of the rows in --json-out (their out dirs are kept)."""
    with open(args.json_out) as f:
        saved = json.load(f)
    for row in saved["rows"]:
        if "error" in row:
            continue
        spec = row["crate"]
        out = os.path.join(root, "out", f"{spec.replace('@', '-')}-{row['config']}-{row['seed']}")
        flags = dict(CONFIGS)[row["config"]]
        line_coverage(row, spec, source_of(spec), out, flags, root)
        log(f"{spec} {row['config']} seed {row['seed']}: lines {row.get('lines_covered')}/{row.get('lines_count')}")
        with open(args.json_out, "w") as f:
            json.dump(saved, f, indent=1)


# ---- statistics ----

def a12(xs, ys):
    """Vargha-Delaney A12: the probability that a value of xs beats one of ys (ties half)."""
    if not xs or not ys:
        return None
    wins = sum((x > y) + 0.5 * (x == y) for x in xs for y in ys)
    return wins / (len(xs) * len(ys))


def mann_whitney_p(xs, ys):
    """Exact two-sided p-value of the Mann-Whitney U test by enumerating every split of the
    pooled values (fine for 5 + 5: 252 splits); None when a sample is empty."""
    if not xs or not ys:
        return None
    pooled = xs + ys

    def u_of(sample_idx):
        a = [pooled[i] for i in sample_idx]
        b = [pooled[i] for i in range(len(pooled)) if i not in sample_idx]
        return sum((x > y) + 0.5 * (x == y) for x in a for y in b)

    observed = u_of(set(range(len(xs))))
    mean = len(xs) * len(ys) / 2
    extreme = abs(observed - mean)
    splits = list(itertools.combinations(range(len(pooled)), len(xs)))
    hits = sum(abs(u_of(set(s)) - mean) >= extreme - 1e-9 for s in splits)
    return hits / len(splits)


def metric(rows, key_c, key_t):
    return [100.0 * r[key_c] / r[key_t] for r in rows if r.get(key_t)]


def fmt(v, digits=1):
    return "—" if v is None else f"{v:.{digits}f}"


def compare(rows, spec, key_c, key_t):
    on = metric([r for r in rows if r["crate"] == spec and r["config"] == "with"], key_c, key_t)
    off = metric([r for r in rows if r["crate"] == spec and r["config"] == "without"], key_c, key_t)
    med = lambda xs: statistics.median(xs) if xs else None  # noqa: E731
    return med(on), med(off), a12(on, off), mann_whitney_p(on, off), len(on), len(off)


def verdict(a, p):
    if a is None or p is None:
        return ""
    if p < 0.05:
        return "**gain**" if a > 0.5 else "**loss**"
    return "n.s."


def describe(m):
    return f"{m['cpu']}, {m['cores']} cores, {m['rustc']}, {m['cargo_llvm_cov']}"


def markdown(rows, args, crates):
    lines = [
        "# Testability transformations: ablation",
        "",
        "Generated by `bench/testability.py` (issue 16; [testability] in",
        "`docs/references.md`). Each crate is run with the transformations (default) and with",
        "`--no-testability`, seeds 1..N interleaved, the same search budget each.",
        "",
        f"- frugal commit: `{frugal_commit()}`; machine: {describe(machine())}",
        f"- budget per run: `{args.budget}` (time), seeds: {args.seeds}, algorithm: adynamosa (default)",
        "- **lines**: line coverage of the emitted suite by cargo-llvm-cov over the crate's sources;",
        "  **plain branches**: branch goals both configurations have (the observers' own goals",
        "  left out), covered by the emitted suite; **all branches (with)**: every branch goal of",
        "  the run with the transformations, observers' included, for reference.",
        "- Â12: Vargha-Delaney effect size of *with* over *without* (0.5 = no difference);",
        "  p: exact two-sided Mann-Whitney U; verdict at p < 0.05.",
        "",
        "| crate | lines with | lines without | Â12 | p | verdict | plain branches with | plain branches without | Â12 | p | verdict | all branches (with) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for spec in crates:
        lm_on, lm_off, la, lp, n_on, n_off = compare(rows, spec, "lines_covered", "lines_count")
        bm_on, bm_off, ba, bp, _, _ = compare(rows, spec, "plain_covered", "plain_total")
        all_on = metric([r for r in rows if r["crate"] == spec and r["config"] == "with"],
                        "branch_covered", "branch_total")
        errors = [r for r in rows if r["crate"] == spec and ("error" in r or "coverage_error" in r)]
        name = spec + (f" ({len(errors)} failed runs)" if errors else "")
        lines.append(
            f"| {name} | {fmt(lm_on)} | {fmt(lm_off)} | {fmt(la, 2)} | {fmt(lp, 3)} | {verdict(la, lp)} "
            f"| {fmt(bm_on)} | {fmt(bm_off)} | {fmt(ba, 2)} | {fmt(bp, 3)} | {verdict(ba, bp)} "
            f"| {fmt(statistics.median(all_on) if all_on else None)} |")
    lines += ["", "Medians in percent. Raw rows: `bench/testability.json`.", ""]
    tp = os.path.join(ROOT, "bench", "testability-throughput.json")
    if os.path.exists(tp):
        with open(tp) as f:
            saved = json.load(f)
        lines += ["## Throughput", "",
                  f"`python3 bench/testability.py --throughput --reps {saved['reps']} --budget {saved['budget']}`:"
                  " executions per second of the search, with and without observers, interleaved runs"
                  " with the same seed and execution budget (raw: `bench/testability-throughput.json`).",
                  "", saved["table"], ""]
    return "\n".join(lines)


NOTES = "<!-- notes: kept when the tables are rendered again -->"


def with_notes(md, path):
    """`md` followed by the hand-written notes of the existing file at `path`, if any."""
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
        if NOTES in old:
            return md + "\n" + NOTES + old.split(NOTES, 1)[1]
    return md


def throughput(frugal, args, root):
    """Executions per second with and without observers, side by side."""
    rows = []
    for spec in args.crates:
        src = source_of(spec)
        for rep in range(1, args.reps + 1):
            for config, flags in CONFIGS:
                # Dirs of their own: an ablation may run at the same time.
                work = os.path.join(root, "throughput", "work", spec, config)
                out = os.path.join(root, "throughput", "out", f"{spec}-{config}-{rep}")
                summary, wall, err = run_frugal(frugal, src, 1, args.budget, flags, "tests", work, out)
                if err:
                    rows.append({"crate": spec, "config": config, "rep": rep, "error": err})
                    continue
                rows.append({"crate": spec, "config": config, "rep": rep,
                             "executions": summary["executions"],
                             "search_seconds": summary["seconds"]["search"],
                             "executions_per_second": summary["executions_per_second"]})
                log(f"{spec} {config} rep {rep}: {summary['executions_per_second']:.0f} exec/s")
    out = ["| crate | exec/s with (median) | exec/s without (median) | ratio with/without | runs |",
           "|---|---|---|---|---|"]
    for spec in args.crates:
        on = [r["executions_per_second"] for r in rows if r["crate"] == spec and r["config"] == "with" and "error" not in r]
        off = [r["executions_per_second"] for r in rows if r["crate"] == spec and r["config"] == "without" and "error" not in r]
        if on and off:
            m_on, m_off = statistics.median(on), statistics.median(off)
            out.append(f"| {spec} | {m_on:.0f} | {m_off:.0f} | {m_on / m_off:.3f} | {len(on)} + {len(off)} |")
    return rows, "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--budget", default=None, help="per run (default 20s; 20000 executions with --throughput)")
    ap.add_argument("--crates", default=None,
                    help="comma-separated: example names and name@version (default: examples, "
                         "humantime, quick-xml; `corpus` adds the corpus's parsers)")
    ap.add_argument("--frugal", default=None)
    ap.add_argument("--smoke", action="store_true", help="flagparse, one seed, 5 s")
    ap.add_argument("--throughput", action="store_true", help="executions per second side by side")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per crate and config (--throughput)")
    ap.add_argument("--no-coverage", action="store_true", help="skip cargo-llvm-cov (goals only)")
    add_report_args(ap, "testability")
    ap.add_argument("--render", action="store_true",
                    help="only render TESTABILITY.md from --json-out (e.g. of an interrupted run)")
    ap.add_argument("--remeasure", action="store_true",
                    help="measure the line coverage of the suites of --json-out again")
    args = ap.parse_args()
    if args.remeasure:
        ensure_llvm_cov()
        remeasure(args, os.path.join(cache_root(), "testability"))
        return
    if args.render:
        with open(args.json_out) as f:
            saved = json.load(f)
        args.budget, args.seeds = saved["budget"], saved["seeds"]
        crates = list(dict.fromkeys(r["crate"] for r in saved["rows"]))
        md = with_notes(markdown(saved["rows"], args, crates), args.md_out)
        with open(args.md_out, "w") as f:
            f.write(md)
        print(md)
        return
    frugal = frugal_bin(args.frugal)
    root = os.path.join(cache_root(), "testability")
    os.makedirs(root, exist_ok=True)

    if args.throughput:
        args.budget = args.budget or "20000"
        args.crates = args.crates.split(",") if args.crates else THROUGHPUT
        rows, table = throughput(frugal, args, root)
        print(table)
        with open(os.path.join(ROOT, "bench", "testability-throughput.json"), "w") as f:
            json.dump({"budget": args.budget, "reps": args.reps, "rows": rows, "table": table}, f, indent=1)
        return

    if args.smoke:
        args.seeds, args.budget, crates = 1, "5s", ["flagparse"]
    else:
        args.budget = args.budget or "20s"
        crates = EXAMPLES + REGISTRY
        if args.crates:
            crates = [c for part in args.crates.split(",")
                      for c in (CORPUS_PARSERS if part == "corpus" else [part])]
    coverage = not args.no_coverage
    if coverage:
        ensure_llvm_cov()
    rows = []
    started = time.time()
    for spec in crates:
        src = source_of(spec)
        for seed in range(1, args.seeds + 1):
            for config, flags in CONFIGS:
                row = one_run(frugal, spec, src, seed, args.budget, config, flags, root, coverage)
                rows.append(row)
                log(f"{spec} {config} seed {seed}: branch {row.get('branch_covered')}/{row.get('branch_total')}"
                    f" plain {row.get('plain_covered')}/{row.get('plain_total')}"
                    f" lines {row.get('lines_covered')}/{row.get('lines_count')}"
                    + (f" ERROR {row['error'][-300:]}" if "error" in row else ""))
                # Partial results survive an interrupted run.
                with open(args.json_out, "w") as f:
                    json.dump({"budget": args.budget, "seeds": args.seeds, "rows": rows}, f, indent=1)
    md = markdown(rows, args, crates)
    print(md)
    print(f"({time.time() - started:.0f} s)")
    if not args.smoke:
        md = with_notes(md, args.md_out)
        with open(args.md_out, "w") as f:
            f.write(md)


if __name__ == "__main__":
    main()
