#!/usr/bin/env python3
"""One generated suite judged on EVERY mutant of a crate, against the own suite's verdicts.

Issue 39's humantime acceptance: the generated suite's cargo-mutants score over all of
humantime 2.1.0's mutants, and each mutant only the own suite catches, killed now or listed with
the reason. bench/mutation.py judges a sample; this judges them all, for one suite that
bench/mutation.py (or `frugal run`) already wrote.

1. The crate is fetched and copied with the suite as tests/frugal_generated.rs (as
   bench/mutation.py does); cargo-mutants lists its mutants and judges the suite on every one
   (`-- --test frugal_generated`), confined (bench/mutants.py's `confined`: a private mount
   namespace, every mount read-only but a scratch dir, no network, own pid namespace).
2. The own suite's verdicts come from an earlier full run of bench/mutants.py (`--own-from`,
   default bench/mutants.json, whose `mutants[].cargo_mutants_own` judged the same crate
   version with the same cargo-mutants), or are judged here with `--judge-own`.
3. Per mutant the two verdicts are compared; "own only" lists each mutant the own suite catches
   and the generated suite misses, with its fn and whether frugal calls that fn directly
   (`supported`, from bench/mutants.json).

Usage (from the repository root):
    python3 bench/mutation_full.py --crate humantime@2.1.0 \\
        --suite ~/.cache/frugal-bench/mutation/humantime-2.1.0/out-new-5m-seed1/frugal_generated.rs
Writes bench/mutation-full.json and bench/MUTATION-FULL.md (--json-out, --md-out to change).
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crates_common import (ROOT, add_report_args, cache_root, fetch, frugal_commit, log,  # noqa: E402
                           machine)
from mutants import CAUGHT, MISSED, TIMEOUT, cargo_mutants, list_mutants, score, standalone  # noqa: E402


def verdict_of(v):
    return v.get("verdict") if v else None


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--crate", default="humantime@2.1.0")
    ap.add_argument("--suite", required=True, help="the generated suite (frugal_generated.rs)")
    ap.add_argument("--own-from", default=os.path.join(ROOT, "bench", "mutants.json"),
                    help="an earlier bench/mutants.py run with the own suite's verdicts")
    ap.add_argument("--judge-own", action="store_true", help="judge the own suite here instead")
    add_report_args(ap, "mutation-full")
    args = ap.parse_args()

    name, version = args.crate.split("@")
    src = fetch(name, version)
    root = os.path.join(cache_root(), "mutation", f"{name}-{version}")
    os.makedirs(root, exist_ok=True)
    pristine = standalone(src, os.path.join(root, "pristine"))
    mutants = list_mutants(pristine, os.path.join(root, "list"))
    names = [m["name"] for m in mutants]
    log(f"{name} {version}: judging the suite on all {len(mutants)} mutants")
    started = time.time()
    copy = standalone(src, os.path.join(root, "with-suite-full"), suite=args.suite)
    gen = cargo_mutants(copy, mutants, root, "gen-full", ["--test", "frugal_generated"])

    supported = {}
    if args.judge_own:
        own = {n: verdict_of(v) for n, v in
               cargo_mutants(pristine, mutants, root, "own-full", [])["verdicts"].items()}
        own_source = "judged here"
    else:
        with open(args.own_from) as f:
            earlier = json.load(f)
        if (earlier["crate"], earlier["version"]) != (name, version):
            sys.exit(f"{args.own_from} is for {earlier['crate']} {earlier['version']}")
        own = {m["name"]: verdict_of(m.get("cargo_mutants_own")) for m in earlier["mutants"]}
        supported = {m["name"]: m.get("supported") for m in earlier["mutants"]}
        own_source = f"{os.path.relpath(args.own_from, ROOT)} ({earlier['command']}, {earlier['date']})"

    caught = (CAUGHT, TIMEOUT)
    rows = []
    for m in mutants:
        g = verdict_of(gen["verdicts"].get(m["name"]))
        fn = m.get("function")
        rows.append({"name": m["name"],
                     "function": fn.get("function_name") if isinstance(fn, dict) else fn,
                     "generated": g, "own": own.get(m["name"]),
                     "supported": supported.get(m["name"])})
    own_only = [r for r in rows if r["own"] in caught and r["generated"] == MISSED]
    gen_only = [r for r in rows if r["generated"] in caught and r["own"] == MISSED]
    own_scored = score({n: {"verdict": v} for n, v in own.items() if n in set(names)}, names)
    result = {"crate": name, "version": version, "suite": args.suite, "commit": frugal_commit(),
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
              "command": "python3 " + " ".join(sys.argv), "own_source": own_source,
              "mutants": len(mutants), "generated": score(gen["verdicts"], names),
              "own": own_scored, "own_only": own_only, "generated_only": gen_only,
              "wall_seconds": round(time.time() - started), "rows": rows}
    with open(args.json_out, "w") as f:
        json.dump(result, f, indent=1)
    md = markdown(result)
    with open(args.md_out, "w") as f:
        f.write(md)
    print(md)


def pct(s):
    return "n/a" if s.get("score") is None else f"{100 * s['score']:.1f}%"


def markdown(r):
    g, o = r["generated"], r["own"]
    lines = [f"# {r['crate']} {r['version']}: the generated suite on every mutant", "",
             f"Command: `{r['command']}`. frugal commit {r['commit']}, {r['date']}; "
             f"{r['wall_seconds']} s. Own verdicts: {r['own_source']}.", "",
             "| suite | mutants | caught | timeout | missed | unviable | score |",
             "|---|---|---|---|---|---|---|",
             f"| generated | {r['mutants']} | {g['caught']} | {g['timeout']} | {g['missed']} | "
             f"{g['unviable']} | {pct(g)} |",
             f"| own | {r['mutants']} | {o['caught']} | {o['timeout']} | {o['missed']} | "
             f"{o['unviable']} | {pct(o)} |", "",
             f"Caught by the own suite only ({len(r['own_only'])}):", ""]
    for x in r["own_only"]:
        how = {True: "frugal calls its fn", False: "its fn is not one frugal calls directly",
               None: "fn support unknown"}[x["supported"]]
        lines.append(f"- `{x['name']}` ({how})")
    lines += ["", f"Caught by the generated suite only: {len(r['generated_only'])}.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
