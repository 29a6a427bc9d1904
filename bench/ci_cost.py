#!/usr/bin/env python3
"""What a CI job pays for frugal's suite and for the crate's own tests, side by side on the same
crate version: for each crate (exact version from crates.io), `frugal run` emits a suite into a
standalone copy (`tests/frugal_generated.rs`), then `frugal profile --ci-cost --suite both`
measures each suite on its own copy: `cargo test --no-run` from an empty target dir
(dependencies included), the same after a one-line change in the crate, and the median wall and
CPU time of `cargo test` and `cargo nextest run` over the built targets (doc tests are not run).

Usage (from the repository root):
    python3 bench/ci_cost.py [--budget 1m] [--crates time,humantime] [--runs 3]
    python3 bench/ci_cost.py --smoke     # humantime 2.1.0, a 10 s run, one run each

Binary crates (RustyUnit's lsd and tight) get their suite inside the crate (`--placement
in-crate`, module `frugal_generated`), in the crate's own test binary, so the two suites cannot
be built apart: the own tests are measured on the crate as published, and frugal's suite on the
crate with its module, running only the module's tests (`--filter frugal_generated::`); its
builds include the own tests (marked "with own" in the table). Writes bench/ci-cost.json and
bench/CI-COST.md (or --json-out / --md-out).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from algorithms_real import place_suite  # noqa: E402
from crates_common import (ROOT, add_report_args, cache_root, fetch, frugal_bin, frugal_commit,  # noqa: E402
                           log, machine, run_frugal, standalone_copy)

# RustyUnit's six crates, then ten of the public corpus (bench/corpus.py) that build quickly,
# across its categories: name, version, extra flags.
CRATES = [
    ("time", "0.3.7", []),
    ("gamie", "0.7.0", ["--all-features"]),
    ("lsd", "0.21.0", []),
    ("humantime", "2.1.0", []),
    ("quick-xml", "0.23.0", []),
    ("tight", "1.0.1", []),
    ("itoa", "1.0.19", []),
    ("semver", "1.0.28", []),
    ("mime", "0.3.18", []),
    ("glob", "0.3.4", []),
    ("shlex", "2.0.1", []),
    ("httpdate", "1.0.3", []),
    ("hex", "0.4.3", []),
    ("strsim", "0.11.1", []),
    ("heck", "0.5.0", []),
    ("unicase", "2.10.0", []),
]
SMOKE = [("humantime", "2.1.0", [])]
# Crates without a library: frugal's suite goes inside them (see the module doc).
BINARIES = {"lsd", "tight"}


def one(frugal, name, version, flags, budget, runs, scratch):
    src = fetch(name, version)
    root = os.path.join(scratch, f"{name}-{version}")
    out, work = os.path.join(root, "out"), os.path.join(root, "work")
    placement = "in-crate" if name in BINARIES else "tests"
    summary, wall, err = run_frugal(frugal, src, 1, budget, flags + ["--no-measure"], placement, work, out)
    row = {"crate": name, "version": version, "budget": budget, "frugal_wall_s": round(wall, 1),
           "frugal_commit": frugal_commit(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "placement": placement, "machine": machine()["cpu"]}
    if err:
        row["error"] = f"frugal run failed: {err[-800:]}"
        return row
    row["tests_emitted"] = summary["tests_emitted"]
    copy = os.path.join(root, "crate")
    shutil.rmtree(copy, ignore_errors=True)
    place_suite(src, os.path.join(out, "frugal_generated.rs"), placement, copy)
    copies = {"generated": (copy, ["--filter", "frugal_generated::"] if placement == "in-crate" else [])}
    if placement == "in-crate":
        # The own tests as CI runs them today: the crate as published, without frugal's module.
        own = os.path.join(root, "own")
        shutil.rmtree(own, ignore_errors=True)
        standalone_copy(src, own, declare_generated=False)
        copies["existing"] = (own, [])
    else:
        copies["existing"] = (copy, [])
    # Each suite on its own: one that does not build (an own suite needing a feature) leaves
    # the other's figures.
    for suite in ("generated", "existing"):
        where, names = copies[suite]
        cmd = [frugal, "profile", where, "--ci-cost", "--suite", suite, "--repeat", str(runs), "--json"] + \
            names + [f for f in flags if f == "--all-features"]
        log(" ".join(cmd))
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            row[suite] = {"error": first_error(proc.stderr)}
            continue
        row[suite] = json.loads(proc.stdout)[0]
    return row


def first_error(stderr):
    """The compiler's first error and a few lines after it, else the end of stderr."""
    lines = stderr.splitlines()
    at = next((i for i, l in enumerate(lines) if l.startswith("error")), None)
    return "\n".join(lines[at:at + 6] if at is not None else lines[-6:])


def nextest_version():
    out = subprocess.run(["cargo", "nextest", "--version"], capture_output=True, text=True)
    return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else "no cargo-nextest"


def secs(x):
    return "n/a" if x is None else f"{x:.2f}"


def runner(cost, key):
    t = (cost or {}).get(key)
    if not t:
        return "n/a", "n/a"
    mark = "" if t.get("passed") else " (failures)"
    return secs(t["wall_seconds"]) + mark, secs(t["cpu_seconds"])


def render(rows, args):
    order = {c[0]: i for i, c in enumerate(CRATES)}
    rows = sorted(rows, key=lambda r: order.get(r["crate"], len(order)))
    lines = [
        "# What CI pays for a suite: frugal's and the crate's own (issue 38)",
        "",
        f"- command: `python3 bench/ci_cost.py --budget {args.budget} --runs {args.runs}"
        + (f" --crates {args.crates}" if args.crates and not args.keep_others else "") + "`",
        "- frugal commit and date per crate: " + "; ".join(sorted(
            {f"{r.get('frugal_commit', '?')} ({r.get('date', '?')}): "
             + ", ".join(x["crate"] for x in rows if x.get("frugal_commit") == r.get("frugal_commit"))
             for r in rows})),
        "- machine per crate: " + "; ".join(sorted(
            {f"{r.get('machine', 'not recorded in its row (an Intel Xeon, said the report of 2026-11-28)')}: "
             + ", ".join(x["crate"] for x in rows if x.get("machine") == r.get("machine"))
             for r in rows})),
        "- this host: {cpu}, {cores} cores, {os}; {rustc}; {nextest}".format(**machine(), nextest=nextest_version()),
        "",
        "Per crate, the generated suite (`tests/frugal_generated.rs`, from `frugal run --budget "
        f"{args.budget} --seed 1`) and the crate's own tests (library, binaries, integration tests; no doc "
        "tests), each measured by `frugal profile --ci-cost` on its own standalone copy, confined: "
        "**clean** is `cargo test --no-run` from an empty target dir, dependencies included; **+1 line** "
        "the same after a comment line is appended to `src/lib.rs`; `cargo test` and `cargo nextest run` "
        f"run the built targets ({args.runs} runs, medians; CPU is every process the command waited for, "
        "cargo's own start included).",
        "",
        "| crate | suite | tests | build clean s | build +1 line s | cargo test wall s | cargo test CPU s "
        "| nextest wall s | nextest CPU s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['crate']} {r['version']} | error | | | | | | | |")
            continue
        for suite in ("generated", "existing"):
            c = r.get(suite) or {}
            tests = r.get("tests_emitted", "") if suite == "generated" else ""
            tw, tc = runner(c, "cargo_test")
            nw, nc = runner(c, "nextest")
            label = "frugal" if suite == "generated" else "own"
            if suite == "generated" and r.get("placement") == "in-crate":
                label = "frugal (in-crate, builds with own)"
            if "error" in c:
                lines.append(f"| {r['crate']} {r['version']} | {label} | {tests} | error (below) | | | | | |")
                continue
            lines.append(f"| {r['crate']} {r['version']} | {label} | {tests} | {secs(c.get('build_clean_seconds'))} "
                         f"| {secs(c.get('build_incremental_seconds'))} | {tw} | {tc} | {nw} | {nc} |")
    lines += totals(rows)
    errors = [(r, "run", r["error"]) for r in rows if "error" in r]
    errors += [(r, s, (r.get(s) or {})["error"]) for r in rows for s in ("generated", "existing")
               if "error" in (r.get(s) or {})]
    if errors:
        lines += ["", "## Failures", ""]
        for r, what, err in errors:
            text = err.replace("\n", " ").replace("|", "\\|")
            lines.append(f"- {r['crate']} {r['version']} ({what}): `{text[:300]}`")
    notes = {n for r in rows for s in ("generated", "existing") for n in (r.get(s) or {}).get("notes", [])}
    if notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in sorted(notes)]
    return "\n".join(lines) + "\n"


def totals(rows):
    """Sums over the crates where both suites were measured apart (an in-crate suite's builds
    include the own tests)."""
    both = [r for r in rows if "error" not in r and r.get("placement", "tests") == "tests"
            and all("error" not in (r.get(s) or {"error": 1}) for s in ("generated", "existing"))]
    if not both:
        return []

    def total(suite, get):
        return sum(get(r[suite]) or 0.0 for r in both)
    figures = [
        ("build clean s", lambda c: c["build_clean_seconds"]),
        ("build +1 line s", lambda c: c["build_incremental_seconds"]),
        ("cargo test wall s", lambda c: (c.get("cargo_test") or {}).get("wall_seconds")),
        ("cargo test CPU s", lambda c: (c.get("cargo_test") or {}).get("cpu_seconds")),
        ("nextest wall s", lambda c: (c.get("nextest") or {}).get("wall_seconds")),
        ("nextest CPU s", lambda c: (c.get("nextest") or {}).get("cpu_seconds")),
    ]
    out = ["", f"## Totals over the {len(both)} crates with both suites measured apart", "",
           "| figure | frugal | own | frugal / own |", "|---|---|---|---|"]
    for label, get in figures:
        g, o = total("generated", get), total("existing", get)
        out.append(f"| {label} | {g:.2f} | {o:.2f} | {g / o:.2f} |" if o else f"| {label} | {g:.2f} | {o:.2f} | n/a |")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", default="1m")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--crates", default=None, help="comma-separated subset")
    ap.add_argument("--frugal", default=None)
    ap.add_argument("--smoke", action="store_true", help="humantime 2.1.0, 10 s, one run each")
    ap.add_argument("--render-only", action="store_true", help="write --md-out from --json-out and stop")
    ap.add_argument("--keep-others", action="store_true",
                    help="keep the rows of --json-out for crates this run does not measure")
    add_report_args(ap, "ci-cost")
    args = ap.parse_args()
    if args.render_only:
        with open(args.json_out) as f:
            rows = json.load(f)
        with open(args.md_out, "w") as f:
            f.write(render(rows, args))
        return
    frugal = frugal_bin(args.frugal)
    crates = CRATES
    if args.smoke:
        crates, args.budget, args.runs = SMOKE, "10s", 1
        args.json_out = os.path.join(tempfile.gettempdir(), "ci-cost-smoke.json")
        args.md_out = os.path.join(tempfile.gettempdir(), "CI-COST-smoke.md")
    if args.crates:
        wanted = args.crates.split(",")
        crates = [c for c in CRATES if c[0] in wanted]
    rows = []
    if args.keep_others and os.path.exists(args.json_out):
        with open(args.json_out) as f:
            names = {c[0] for c in crates}
            rows = [r for r in json.load(f) if r["crate"] not in names]
    with tempfile.TemporaryDirectory(prefix="frugal-ci-cost-", dir=cache_root()) as scratch:
        for name, version, flags in crates:
            row = one(frugal, name, version, flags, args.budget, args.runs, scratch)
            log(f"{name}: {json.dumps({k: v for k, v in row.items() if k not in ('generated', 'existing')})}")
            rows.append(row)
            with open(args.json_out, "w") as f:
                json.dump(rows, f, indent=1)
            with open(args.md_out, "w") as f:
                f.write(render(rows, args))
    print(render(rows, args))
    failed = [r for r in rows if "error" in r]
    if args.smoke:
        r = rows[0]
        if failed or not ((r.get("generated") or {}).get("cargo_test") or {}).get("passed"):
            sys.exit(f"ci_cost smoke failed: {json.dumps(r)[:2000]}")


if __name__ == "__main__":
    main()
