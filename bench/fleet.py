#!/usr/bin/env python3
"""frugald nodes on one PostgreSQL: the three figures of bench/FLEET.md, each from one command.

    python3 bench/fleet.py [--only claims|load|jobs|migrate] [--load-secs 30] [--out bench/FLEET.md]

claims  claim latency with 8 nodes contending over 10,000 queued jobs (one scheduler and
        connection pool per node, claim then finish until the queue is empty):
        cargo run --release -p frugal-scheduler --example claim_latency -- --nodes 8 --jobs 10000
load    the load test's 500 req/s over the read endpoints, against a node on sled and then a
        node on PostgreSQL, in this one invocation (same seeded history, a real job running):
        FRUGAL_LOAD_SECS=30 [FRUGAL_LOAD_STORE=postgres] cargo test --release -p frugal-e2e \\
            --test load -- --nocapture read_endpoints
jobs    jobs per hour with 1, 2 and 3 nodes, each job sleeping 2 s instead of searching
        (FRUGALD_BENCH_SLEEP_JOBS_MS), 30 jobs over 30 repositories:
        cargo test --release -p frugal-e2e --test fleet -- --ignored --nocapture jobs_per_hour
migrate the state dir of a real sled installation (a soak run: python3 bench/soak.py
        --minutes 3 --keep) moved to PostgreSQL with `frugal store migrate`, every tree's count
        and checksum compared, then a node on each serving the same repositories, runs and
        best suites:
        FRUGAL_MIGRATE_STATE=<soak>/state cargo test --release -p frugal-e2e --test fleet -- \\
            --ignored --nocapture a_soak_installation

Every server is real: PostgreSQL from Debian's package, started in a temp dir by the tests.
"""
import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sh(cmd, env=None):
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run(cmd, cwd=ROOT, env=e, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout[-4000:]}\n{p.stderr[-4000:]}")
    return p.stdout


def json_lines(text):
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            out.append(json.loads(line))
    return out


def claims():
    out = sh(["cargo", "run", "--release", "-q", "-p", "frugal-scheduler", "--example",
              "claim_latency", "--", "--nodes", "8", "--jobs", "10000", "--json"])
    return json_lines(out)[-1]


LOAD_RE = re.compile(r"(\d+) requests in ([\d.]+)s = (\d+) req/s, (\d+) errors, latency p50 "
                     r"([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms")


def load(secs):
    rows = {}
    for backend in ["sled", "postgres"]:
        env = {"FRUGAL_LOAD_SECS": str(secs)}
        if backend == "postgres":
            env["FRUGAL_LOAD_STORE"] = "postgres"
        out = sh(["cargo", "test", "--release", "-q", "-p", "frugal-e2e", "--test", "load", "--",
                  "--nocapture", "read_endpoints"], env)
        m = LOAD_RE.search(out)
        if not m:
            sys.exit(f"no load report in the output:\n{out}")
        rows[backend] = {"requests": int(m[1]), "secs": float(m[2]), "rps": int(m[3]),
                         "errors": int(m[4]), "p50_ms": float(m[5]), "p99_ms": float(m[6]),
                         "max_ms": float(m[7])}
    rows["p99_ratio"] = rows["postgres"]["p99_ms"] / rows["sled"]["p99_ms"]
    return rows


def jobs():
    out = sh(["cargo", "test", "--release", "-q", "-p", "frugal-e2e", "--test", "fleet", "--",
              "--ignored", "--nocapture", "jobs_per_hour"])
    return json_lines(out)


SOAK_KEPT = re.compile(r"kept (\S+) \(daemon log")


def migrate(minutes):
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "soak.py"), "--minutes", str(minutes),
                        "--keep", "--release"], cwd=ROOT, capture_output=True, text=True)
    m = SOAK_KEPT.search(p.stderr)
    if p.returncode != 0 or not m:
        sys.exit(f"the soak run failed ({p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    soak = Path(m[1])
    try:
        out = sh(["cargo", "test", "--release", "-q", "-p", "frugal-e2e", "--test", "fleet", "--",
                  "--ignored", "--nocapture", "a_soak_installation"],
                 {"FRUGAL_MIGRATE_STATE": str(soak / "state")})
    finally:
        subprocess.run(["rm", "-rf", str(soak)])
    r = json_lines(out)[-1]
    r["soak_minutes"] = minutes
    return r


def render(res, commit):
    lines = ["# frugald nodes on one PostgreSQL", "",
             f"Measured by `python3 bench/fleet.py` at {commit} on this repository's 2-core host "
             "(each section from one invocation of its command; PostgreSQL 15 from Debian, started "
             "in a temp dir with `fsync=off`, on a unix socket).", ""]
    if "claims" in res:
        c = res["claims"]
        lines += ["## Claim latency", "",
                  "`cargo run --release -p frugal-scheduler --example claim_latency -- --nodes 8 "
                  "--jobs 10000`: 8 schedulers, each with its own connection pool, claim and finish "
                  "until 10,000 queued jobs are done. A claim is one transaction: the node's running "
                  "jobs, then queued rows locked with `FOR UPDATE SKIP LOCKED`.", "",
                  "| nodes | jobs | claim p50 | claim p99 | max | claims/s (claim + finish) |",
                  "|---|---|---|---|---|---|",
                  f"| {c['nodes']} | {c['jobs']} | {c['p50_ms']:.2f} ms | {c['p99_ms']:.2f} ms | "
                  f"{c['max_ms']:.2f} ms | {c['claims_per_s']:.0f} |", ""]
    if "load" in res:
        l = res["load"]
        lines += ["## Read load: PostgreSQL beside sled", "",
                  f"The load test (`tests/load.rs`, {res['load_secs']} s at 500 req/s over 10 read "
                  "endpoints and `/healthz`, 10,000 runs and 2,000 suites of history, a real job "
                  "running), once on sled and once with `FRUGAL_LOAD_STORE=postgres`, in one "
                  "invocation.", "",
                  "| store | requests | errors | p50 | p99 | max |", "|---|---|---|---|---|---|"]
        for b in ["sled", "postgres"]:
            r = l[b]
            lines.append(f"| {b} | {r['requests']} | {r['errors']} | {r['p50_ms']:.2f} ms | "
                         f"{r['p99_ms']:.2f} ms | {r['max_ms']:.2f} ms |")
        lines += ["", f"p99 on PostgreSQL is {l['p99_ratio']:.2f}× sled's (the target: within 2×).",
                  ""]
    if "jobs" in res:
        lines += ["## Jobs per hour with 1, 2 and 3 nodes", "",
                  "`cargo test --release -p frugal-e2e --test fleet -- --ignored --nocapture "
                  "jobs_per_hour`: 30 jobs over 30 repositories, each job sleeping 2 s instead of "
                  "searching (`FRUGALD_BENCH_SLEEP_JOBS_MS`), one job at a time per node; wall time "
                  "from the first trigger until the queue is empty.", "",
                  "| nodes | wall | jobs per hour | ideal (nodes × 1800) | efficiency |",
                  "|---|---|---|---|---|"]
        for j in res["jobs"]:
            lines.append(f"| {j['nodes']} | {j['wall_s']:.1f} s | {j['jobs_per_hour']:.0f} | "
                         f"{j['ideal_per_hour']:.0f} | {100 * j['efficiency']:.0f}% |")
        lines.append("")
    if "migrate" in res:
        m = res["migrate"]
        lines += ["## Moving a sled installation to PostgreSQL", "",
                  f"The state dir of a {m['soak_minutes']}-minute soak run (`bench/soak.py`, two "
                  "repositories, retention biting) copied with `frugal store migrate --from "
                  "sled:<state> --to postgres:<url>`, in {:.1} s; then a node on a copy of the sled "
                  "store and a node on PostgreSQL gave the same repositories, runs and best suites "
                  "({} best suites compared).".format(m["seconds"], m["best_suites_compared"]), "",
                  "| tree | sled | PostgreSQL | checksum (both) |", "|---|---|---|---|"]
        for t in m["migrate"]:
            same = "equal" if t["source_checksum"] == t["target_checksum"] else "DIFFERS"
            lines.append(f"| {t['name']} | {t['source_count']} | {t['target_count']} | "
                         f"`{t['source_checksum']}` ({same}) |")
        lines.append("")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=["claims", "load", "jobs", "migrate"])
    ap.add_argument("--soak-minutes", type=float, default=3)
    ap.add_argument("--load-secs", type=int, default=30)
    ap.add_argument("--out", default=str(ROOT / "bench" / "FLEET.md"))
    ap.add_argument("--json-out", default=str(ROOT / "bench" / "fleet.json"))
    a = ap.parse_args()
    # A section run on its own (--only) replaces its part of an earlier run's results.
    prior = Path(a.json_out)
    res = json.loads(prior.read_text()) if a.only and prior.exists() else {}
    if a.only in (None, "claims"):
        res["claims"] = claims()
        print(json.dumps(res["claims"]), flush=True)
    if a.only in (None, "load"):
        res["load"] = load(a.load_secs)
        res["load_secs"] = a.load_secs
        print(json.dumps(res["load"]), flush=True)
    if a.only in (None, "jobs"):
        res["jobs"] = jobs()
        print(json.dumps(res["jobs"]), flush=True)
    if a.only in (None, "migrate"):
        res["migrate"] = migrate(a.soak_minutes)
        print(json.dumps({k: v for k, v in res["migrate"].items() if k != "migrate"}), flush=True)
    commit = sh(["git", "rev-parse", "--short", "HEAD"]).strip()
    res["commit"] = commit
    Path(a.json_out).write_text(json.dumps(res, indent=2) + "\n")
    Path(a.out).write_text(render(res, commit))
    print(f"wrote {a.out} and {a.json_out}")


if __name__ == "__main__":
    main()
