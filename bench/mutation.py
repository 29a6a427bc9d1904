#!/usr/bin/env python3
"""Mutation score of generated suites against the crates' own suites (cargo-mutants' verdicts).

Per crate (name@version from crates.io, fetched as bench/realcrates.py does):
1. `frugal run` generates a suite (confined by frugal's sandbox), once per frugal binary given
   (`--frugal`, and `--baseline-frugal` for a before/after comparison on the same crate).
2. `cargo mutants --list` lists the pristine crate's mutants (confined); `--sample N` keeps N of
   them, evenly spaced in source order, the same N for every suite.
3. cargo-mutants judges each suite on the same crate version and the same mutants, confined
   (bench/mutants.py's `confined`: a private mount namespace with every mount read-only but a
   scratch dir, no network, own pid namespace, no capabilities), offline after `cargo fetch`:
   - own: the pristine crate with its own tests;
   - generated: a copy with the suite as tests/frugal_generated.rs, only that test target;
   - both: the same copy, every test target.
Score = (caught + timeout) / (caught + timeout + missed); unviable mutants are left out, as
cargo-mutants does. "own survivors killed" is the share of the own suite's missed mutants that
the generated suite catches.

Usage (from the repository root):
    cargo build --release -p frugal --bins
    python3 bench/mutation.py [--crates slab@0.4.11,humantime@2.1.0] [--budget 5m]
                              [--sample N] [--baseline-frugal OLD_BINARY] [--seed 1]
                              [--criteria all,weak-mutation] [--baseline-criteria all]
                              [--kill-survivors]
Writes bench/mutation.json and bench/MUTATION.md (--json-out, --md-out to change).

Coverage with and without the mutation phase, at the same budget:
    python3 bench/mutation.py --coverage-only --criteria all --json-out bench/mutation-coverage.json
    python3 bench/mutation.py ... --coverage-baseline bench/mutation-coverage.json
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crates_common import (ROOT, add_report_args, cache_root, fetch, frugal_bin, frugal_commit, log,  # noqa: E402
                           machine, run_frugal)
from mutants import (CAUGHT, MISSED, TIMEOUT, cargo_mutants, list_mutants, sample,  # noqa: E402
                     score, standalone)

DEFAULT_CRATES = "slab@0.4.11,humantime@2.1.0"


def caught(v):
    return v.get("verdict") in (CAUGHT, TIMEOUT)


def generate(frugal, label, src, root, budget, seed, criteria, survivors=None):
    """The suite of one frugal binary: (suite path, summary)."""
    out = os.path.join(root, f"out-{label}-{budget}-seed{seed}")
    work = os.path.join(root, f"work-{label}-{budget}-seed{seed}")
    shutil.rmtree(out, ignore_errors=True)
    flags = ["--criteria", criteria] if criteria else []
    if survivors:
        flags += ["--kill-survivors", survivors]
    summary, wall, err = run_frugal(frugal, src, seed, budget, flags, "tests", work, out)
    if summary is None:
        raise RuntimeError(f"frugal run ({label}) failed:\n{err}")
    summary["bench_wall_seconds"] = round(wall, 1)
    return os.path.join(out, "frugal_generated.rs"), summary


def assertions_per_test(suite):
    with open(suite) as f:
        text = f.read()
    tests = text.count("#[test]")
    asserts = sum(text.count(m) for m in ("assert_eq!(", "assert!(", "assert_ne!("))
    return round(asserts / tests, 2) if tests else None


def one_crate(spec, args, frugals):
    name, version = spec.split("@")
    src = fetch(name, version)
    root = os.path.join(cache_root(), "mutation", f"{name}-{version}")
    os.makedirs(root, exist_ok=True)
    pristine = standalone(src, os.path.join(root, "pristine"))
    mutants = list_mutants(pristine, os.path.join(root, "list"))
    picked = sample(mutants, args.sample)
    names = [m["name"] for m in picked]
    log(f"{name} {version}: {len(mutants)} mutants, judging {len(picked)}")
    row = {"crate": name, "version": version, "mutants_listed": len(mutants),
           "mutants_judged": len(picked), "suites": {}}
    own = cargo_mutants(pristine, picked, root, "own", [])
    row["suites"]["own"] = score(own["verdicts"], names)
    own_missed = [n for n in names if own["verdicts"].get(n, {}).get("verdict") == MISSED]
    own_outcomes = os.path.join(root, "cm-own", "out", "mutants.out", "outcomes.json")
    for label, frugal, criteria in frugals:
        survivors = own_outcomes if args.kill_survivors and label == "new" else None
        suite, summary = generate(frugal, label, pristine, root, args.budget, args.seed, criteria,
                                  survivors)
        copy = standalone(src, os.path.join(root, f"with-suite-{label}"), suite=suite)
        gen = cargo_mutants(copy, picked, root, f"gen-{label}", ["--test", "frugal_generated"])
        both = cargo_mutants(copy, picked, root, f"both-{label}", [])
        killed_survivors = [n for n in own_missed if caught(gen["verdicts"].get(n, {}))]
        both_survivors = [n for n in own_missed if caught(both["verdicts"].get(n, {}))]
        # Survivors in code the default features compile out (frugal's verdict `not_compiled`:
        # `#[cfg(feature = "serde")]` impls and the like): no suite of this build reaches them.
        verdicts = (summary.get("survivors") or {}).get("verdicts", [])
        gated = {v["name"] for v in verdicts if v.get("verdict") == "not_compiled"}
        compiled = [n for n in own_missed if n not in gated]
        row["suites"][label] = {
            "generated": score(gen["verdicts"], names),
            "both": score(both["verdicts"], names),
            "own_survivors": len(own_missed),
            "own_survivors_killed_by_generated": len(killed_survivors),
            "own_survivors_killed_by_both": len(both_survivors),
            "own_survivors_compiled": len(compiled),
            "own_survivors_compiled_killed_by_both": len([n for n in both_survivors
                                                          if n not in gated]),
            "tests": summary["tests_emitted"],
            "assertions_per_test": assertions_per_test(suite),
            "line_goals": summary["goals"].get("line"),
            "criteria": criteria or "all",
            "frugal_mutation": summary.get("mutation"),
            "frugal_survivors": summary.get("survivors"),
            "frugal_wall_seconds": summary["bench_wall_seconds"],
            "baselines": {"generated": gen["baseline"], "both": both["baseline"]},
        }
    return row


def coverage_only(spec, args, frugal):
    """The line goals a suite reaches without the mutation phase (no cargo-mutants): the
    baseline of issue 39's "coverage does not drop" at the same budget."""
    name, version = spec.split("@")
    src = fetch(name, version)
    root = os.path.join(cache_root(), "mutation", f"{name}-{version}")
    os.makedirs(root, exist_ok=True)
    pristine = standalone(src, os.path.join(root, "pristine"))
    suite, summary = generate(frugal, "coverage", pristine, root, args.budget, args.seed,
                              args.criteria)
    return {"crate": name, "version": version, "criteria": args.criteria or "all",
            "tests": summary["tests_emitted"], "line_goals": summary["goals"].get("line"),
            "assertions_per_test": assertions_per_test(suite),
            "frugal_wall_seconds": summary["bench_wall_seconds"]}


def line_share(goals):
    return goals["covered"] / goals["total"] if goals and goals.get("total") else None


def coverage_lines(result, baseline):
    """The line goals with the mutation phase against a run without it, per crate."""
    base = {(r["crate"], r["version"]): r for r in baseline["rows"]}
    lines = ["", f"Line goals with the mutation phase against a run without it (criteria "
             f"{baseline['rows'][0]['criteria'] if baseline['rows'] else 'all'}, same budget and "
             f"seed; `{baseline['command']}`, frugal {baseline['commit']}):", "",
             "| crate | line goals, without | line goals, with | difference (points) "
             "| assertions/test, without | assertions/test, with |",
             "|---|---|---|---|---|---|"]
    for r in result["rows"]:
        b = base.get((r["crate"], r["version"]))
        s = r["suites"].get("new", {})
        if not b or not s.get("line_goals"):
            continue
        without, with_ = line_share(b["line_goals"]), line_share(s["line_goals"])
        lines.append(f"| {r['crate']} {r['version']} | {b['line_goals']['covered']}/"
                     f"{b['line_goals']['total']} | {s['line_goals']['covered']}/"
                     f"{s['line_goals']['total']} | {100 * (with_ - without):+.1f} "
                     f"| {b.get('assertions_per_test', 'n/a')} "
                     f"| {s.get('assertions_per_test', 'n/a')} |")
    return lines


def pct(s):
    return "n/a" if s is None or s.get("score") is None else f"{100 * s['score']:.1f}%"


def survivor_share(s, compiled):
    """Share of the own suite's survivors that own + generated kill; `compiled`: only those in
    code the default features compile (rows without frugal's verdicts count every survivor)."""
    if compiled and "own_survivors_compiled" in s:
        n, k = s["own_survivors_compiled"], s["own_survivors_compiled_killed_by_both"]
    else:
        n, k = s["own_survivors"], s["own_survivors_killed_by_both"]
    return k / n if n else None


def compiled_share(s):
    if "own_survivors_compiled" not in s:
        return "n/a"
    return f"{s['own_survivors_compiled_killed_by_both']}/{s['own_survivors_compiled']}"


def markdown(result):
    labels = [f[0] for f in result["frugals"]]
    lines = ["# Mutation score: generated suites against the crates' own suites", "",
             f"Command: `{result['command']}`. frugal commit {result['commit']}, "
             f"{result['date']}. cargo-mutants {result['cargo_mutants']}.",
             f"Machine: {result['machine']}.", "",
             "Score = (caught + timeout) / (caught + timeout + missed) over the judged mutants; "
             "unviable ones are left out. Every suite of a crate is judged on the same mutants "
             "of the same crate version, confined (see bench/mutation.py).", ""]
    head = "| crate | mutants judged | own |"
    sep = "|---|---|---|"
    for label in labels:
        head += (f" generated ({label}) | own + generated ({label}) | own survivors killed "
                 f"({label}) | of those in compiled code ({label}) | assertions/test ({label}) |")
        sep += "---|---|---|---|---|"
    lines += [head, sep]
    for r in result["rows"]:
        line = f"| {r['crate']} {r['version']} | {r['mutants_judged']} of {r['mutants_listed']} | {pct(r['suites']['own'])} |"
        for label in labels:
            s = r["suites"][label]
            line += (f" {pct(s['generated'])} | {pct(s['both'])} | "
                     f"{s['own_survivors_killed_by_both']}/{s['own_survivors']} | "
                     f"{compiled_share(s)} | {s['assertions_per_test']} |")
        lines.append(line)
    lines.append("")
    for r in result["rows"]:
        for label in labels:
            s = r["suites"][label]
            m, v = s.get("frugal_mutation"), s.get("frugal_survivors")
            line = (f"- {r['crate']} ({label}, criteria {s.get('criteria', 'all')}): "
                    f"{s['tests']} tests, line goals {s['line_goals']['covered']}/{s['line_goals']['total']}")
            if m:
                line += (f"; frugal's own mutants {m['killed']}/{m['mutants']} killed, state "
                         f"assertions {m['state_asserted']} of {m['state_observed']} observed kept")
            if v:
                line += (f"; frugal's verdicts on the own suite's {v['survivors']} survivors: "
                         f"{v['killed']} killed, {v['possibly_equivalent']} possibly equivalent, "
                         f"{v['not_reached']} not reached, {v['no_counterpart']} without counterpart, "
                         f"{v.get('not_compiled', 0)} in code the default features compile out")
            lines.append(line)
    for f in result.get("failed", []):
        lines.append(f"- {f['crate']}: failed: {f['error'].splitlines()[0] if f['error'] else ''}")
    lines.append("")
    for label in labels:
        scores = [r["suites"][label]["generated"]["score"] for r in result["rows"]
                  if r["suites"][label]["generated"]["score"] is not None]
        if scores:
            lines.append(f"Median generated score ({label}): {100 * statistics.median(scores):.1f}%.")
        shares = [survivor_share(r["suites"][label], compiled=False) for r in result["rows"]]
        compiled = [survivor_share(r["suites"][label], compiled=True) for r in result["rows"]]
        shares = [x for x in shares if x is not None]
        compiled = [x for x in compiled if x is not None]
        if shares:
            lines.append(f"Median share of own survivors killed by own + generated ({label}): "
                         f"{100 * statistics.median(shares):.1f}% of all, "
                         f"{100 * statistics.median(compiled):.1f}% of those in compiled code.")
    lines.append("")
    if result.get("coverage_baseline"):
        lines += coverage_lines(result, result["coverage_baseline"])
        lines.append("")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--crates", default=DEFAULT_CRATES, help="comma-separated name@version")
    ap.add_argument("--budget", default="5m")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sample", type=int, default=None, help="judge N mutants per crate, evenly spaced")
    ap.add_argument("--frugal", default=None, help="the frugal binary (default: target/release)")
    ap.add_argument("--baseline-frugal", default=None, help="an older frugal binary to compare")
    ap.add_argument("--criteria", default=None,
                    help="frugal's --criteria for the new binary (default: frugal's own)")
    ap.add_argument("--kill-survivors", action="store_true",
                    help="give the new binary the own suite's outcomes.json (--kill-survivors)")
    ap.add_argument("--baseline-criteria", default=None,
                    help="--criteria for the baseline; without --baseline-frugal, the baseline "
                         "is the same binary run with these criteria")
    add_report_args(ap, "mutation")
    ap.add_argument("--render", metavar="JSON", help="only write the markdown of an earlier run")
    ap.add_argument("--coverage-only", action="store_true",
                    help="only run frugal (with --criteria) and record its line goals; no "
                         "cargo-mutants (the baseline of the coverage comparison)")
    ap.add_argument("--coverage-baseline", metavar="JSON",
                    help="a --coverage-only run to compare line goals with (with --render "
                         "too)")
    args = ap.parse_args()
    if args.coverage_only:
        result = {"command": "python3 " + " ".join(sys.argv), "commit": frugal_commit(),
                  "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                  "machine": machine(), "budget": args.budget, "seed": args.seed, "rows": []}
        for spec in args.crates.split(","):
            try:
                result["rows"].append(coverage_only(spec.strip(), args, frugal_bin(args.frugal)))
            except (RuntimeError, SystemExit) as e:
                log(f"{spec}: {e}")
                result.setdefault("failed", []).append({"crate": spec, "error": str(e)[-2000:]})
            with open(args.json_out, "w") as f:
                json.dump(result, f, indent=1)
        print(json.dumps(result["rows"], indent=1))
        return
    if args.render:
        with open(args.render) as f:
            result = json.load(f)
        # A baseline run alongside (or after) this one can be attached when rendering.
        if args.coverage_baseline:
            with open(args.coverage_baseline) as f:
                result["coverage_baseline"] = json.load(f)
    else:
        frugals = [("new", frugal_bin(args.frugal), args.criteria)]
        if args.baseline_frugal or args.baseline_criteria:
            frugals.insert(0, ("baseline", args.baseline_frugal or frugal_bin(args.frugal),
                               args.baseline_criteria))
        started = time.time()
        cm = os.popen("cargo mutants --version").read().strip()
        result = {"command": "python3 " + " ".join(sys.argv), "commit": frugal_commit(),
                  "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
                  "cargo_mutants": cm, "budget": args.budget, "seed": args.seed,
                  "frugals": frugals, "rows": []}
        if args.coverage_baseline:
            with open(args.coverage_baseline) as f:
                result["coverage_baseline"] = json.load(f)
        for spec in args.crates.split(","):
            try:
                result["rows"].append(one_crate(spec.strip(), args, frugals))
            except (RuntimeError, SystemExit) as e:
                # One crate failing (frugal or cargo-mutants) is a result too, not the end.
                log(f"{spec}: {e}")
                result.setdefault("failed", []).append({"crate": spec, "error": str(e)[-2000:]})
            with open(args.json_out, "w") as f:
                json.dump(result, f, indent=1)
        result["wall_seconds"] = round(time.time() - started)
        with open(args.json_out, "w") as f:
            json.dump(result, f, indent=1)
    with open(args.md_out, "w") as f:
        f.write(markdown(result))
    print(markdown(result))


if __name__ == "__main__":
    main()
