#!/usr/bin/env python3
"""Builds paid once (issue 17): what a second `frugal run` spends outside the search.

Three runs of frugal on one crate with the same work dir (where the warm target dirs live:
`frugal run` defaults to one per crate under ~/.cache/frugal, frugald to one per repository
and crate): a cold run, a second run on the unchanged crate, and a third after a one-line
change in the crate's sources. Each row is the phases' seconds from the run's summary and the
wall time; "outside the search" is wall time minus the search budget. The goal: at most 15 s
outside the search after a one-line change, on 2 cores.

Usage (from the repository root):
    cargo build --release -p frugal --bins
    python3 bench/rebuild.py [--crate humantime --version 2.4.0] [--budget 5s]

Writes the table to stdout and bench/rebuild.json. The crate is fetched into
$FRUGAL_BENCH_CACHE; frugal runs it in its sandbox.
"""

import argparse
import json
import os
import re
import sys
import shutil
import subprocess
import tempfile
import time

from crates_common import ROOT, fetch, frugal_bin, frugal_commit, log, machine

# The edit: one line of the crate's code, a string literal changed (the crate still builds and
# its behaviour changes where the literal is used).
EDITS = {
    "humantime": ("src/duration.rs", "invalid character at", "invalid char at"),
}


def run(frugal, crate_dir, work, out, budget):
    cmd = [frugal, "run", crate_dir, "--budget", budget, "--json", "--work-dir", work, "--out", out]
    log(" ".join(cmd))
    started = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=work)
    wall = time.time() - started
    if proc.returncode != 0:
        raise SystemExit(f"frugal failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout), wall


def seconds(budget):
    m = re.fullmatch(r"(\d+)(s|m)", budget)
    if not m:
        raise SystemExit(f"--budget: want e.g. 5s or 1m, got {budget}")
    return int(m.group(1)) * (60 if m.group(2) == "m" else 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--crate", default="humantime")
    ap.add_argument("--version", default="2.4.0")
    ap.add_argument("--budget", default="5s", help="search budget of each run (default 5s)")
    ap.add_argument("--frugal", default=None)
    ap.add_argument("--json-out", default=os.path.join(ROOT, "bench", "rebuild.json"))
    args = ap.parse_args()
    if args.crate not in EDITS:
        raise SystemExit(f"no one-line edit known for {args.crate}: add one to EDITS")
    frugal = frugal_bin(args.frugal)
    src = fetch(args.crate, args.version)
    scratch = tempfile.mkdtemp(prefix="frugal-rebuild-")
    crate_dir, work, out = (os.path.join(scratch, d) for d in ("crate", "work", "out"))
    shutil.copytree(src, crate_dir)
    os.makedirs(work)
    rows = []
    for label in ("cold", "unchanged", "one-line change"):
        if label == "one-line change":
            path, old, new = EDITS[args.crate]
            full = os.path.join(crate_dir, path)
            with open(full) as f:
                text = f.read()
            if old not in text:
                raise SystemExit(f"{path} no longer holds {old!r}")
            with open(full, "w") as f:
                f.write(text.replace(old, new, 1))
        summary, wall = run(frugal, crate_dir, work, out, args.budget)
        phases = {k: round(v, 1) for k, v in summary["seconds"].items()}
        rows.append({"run": label, "wall": round(wall, 1), "phases": phases,
                     "outside_search": round(wall - seconds(args.budget), 1)})
    shutil.rmtree(scratch, ignore_errors=True)
    info = {"command": "python3 bench/rebuild.py " + " ".join(sys.argv[1:]), "commit": frugal_commit(),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
            "load_average": os.getloadavg(), "crate": f"{args.crate} {args.version}", "budget": args.budget,
            "runs": rows}
    with open(args.json_out, "w") as f:
        json.dump(info, f, indent=1)
    print(f"| run | analyse | instrument+build | harness build | search | minimise | verify | wall | outside the search |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        p = r["phases"]
        print(f"| {r['run']} | {p['analyse']} | {p['instrument']} | {p['build_harness']} | {p['search']} | "
              f"{p['minimise']} | {p['verify']} | {r['wall']} | **{r['outside_search']}** |")


if __name__ == "__main__":
    main()
