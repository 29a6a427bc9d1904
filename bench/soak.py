#!/usr/bin/env python3
"""Soak test of frugald on a shared CI host (issue 15): triggers every few seconds on two
repositories for a long time, with retention settings small enough to bite.

What it checks, and exits 1 when one fails:
  - the state dir's size stays within a bound derived from the retention settings
    (work dirs' disk budget + the kept runs' output + the store) over the whole run;
  - no leak: frugald's open file descriptors and threads, and its descendant processes, are
    counted idle before the first trigger and idle after the last job; after <= before + slack;
  - every acknowledged trigger (202) ends as a stored run: each job id the daemon answered is
    seen finished as `succeeded` with a run, and that run as `succeeded`.

The two repositories are git repositories in a temp dir made from `examples/numeric` and
`examples/textparse`, with short search budgets. Every trigger first commits a change, so every
trigger is a new commit; the daemon dedupes them per crate (one running and one queued job).

  python3 bench/soak.py --minutes 30              # the acceptance run (debug binaries)
  python3 bench/soak.py --smoke                   # CI: about a minute, one trigger per repo
  python3 bench/soak.py --minutes 10 --json-out soak.json --report bench/SOAK.md

It builds the binaries with cargo first (`--release` for release ones).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPOS = ["numeric", "textparse"]
MIB = 1 << 20


def sh(*args, cwd=None, check=True):
    env = dict(os.environ)
    env.update(
        GIT_AUTHOR_NAME="soak",
        GIT_AUTHOR_EMAIL="soak@frugal.invalid",
        GIT_COMMITTER_NAME="soak",
        GIT_COMMITTER_EMAIL="soak@frugal.invalid",
    )
    r = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, args))} failed:\n{r.stdout}{r.stderr}")
    return r.stdout.strip()


def build(release):
    cmd = ["cargo", "build", "--quiet", "-p", "frugal", "-p", "frugald", "-p", "frugal-profiler", "--bins"]
    if release:
        cmd.append("--release")
    subprocess.run(cmd, cwd=ROOT, check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / ("release" if release else "debug")


def make_repo(example, dest):
    shutil.copytree(
        ROOT / "examples" / example,
        dest,
        ignore=shutil.ignore_patterns("target", "frugal.out"),
    )
    sh("git", "init", "-q", "-b", "main", cwd=dest)
    sh("git", "add", "-A", cwd=dest)
    sh("git", "commit", "-q", "-m", "initial", cwd=dest)


def commit(repo, n):
    lib = repo / "src" / "lib.rs"
    with open(lib, "a") as f:
        f.write(f"// soak change {n}\n")
    sh("git", "commit", "-q", "-am", f"soak {n}", cwd=repo)
    return sh("git", "rev-parse", "HEAD", cwd=repo)


class Api:
    def __init__(self, base, token):
        self.base, self.token = base, token

    def call(self, method, path, body=None, timeout=30):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if method != "GET":
            req.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                text = r.read().decode()
                return r.status, (json.loads(text) if text.strip().startswith(("{", "[")) else text)
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def get(self, path):
        return self.call("GET", path)[1]


def dir_bytes(path):
    """Bytes on disk (allocated blocks), symlinks not followed."""
    total = 0
    for dirpath, dirnames, filenames in os.walk(path):
        for name in dirnames + filenames:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
            except OSError:
                pass
    return total


def proc_table():
    table = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        rest = stat[stat.rfind(")") + 2 :].split()
        if rest[0] != "Z":
            table[int(pid)] = int(rest[1])
    return table


def descendants(root):
    table = proc_table()
    found, frontier = set(), {root}
    while frontier:
        frontier = {p for p, pp in table.items() if pp in frontier and p not in found}
        found |= frontier
    return len(found)


def resources(pid):
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    threads = int(
        next(l for l in Path(f"/proc/{pid}/status").read_text().splitlines() if l.startswith("Threads:")).split()[1]
    )
    return {"fds": fds, "threads": threads, "children": descendants(pid)}


def wait_idle(api, limit):
    """Waits for an empty queue; returns False at the limit."""
    end = time.time() + limit
    while time.time() < end:
        st = api.get("/v1/status")
        if st["jobs_queued"] == 0 and st["jobs_running"] == 0:
            return True
        time.sleep(2)
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--interval", type=float, default=4, help="seconds between triggers")
    ap.add_argument("--budget", default="300", help="search budget per job (executions or 10s)")
    ap.add_argument("--smoke", action="store_true", help="one trigger per repository, about a minute")
    ap.add_argument("--release", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir")
    ap.add_argument("--json-out")
    ap.add_argument("--report", help="write a markdown report here")
    a = ap.parse_args()

    bins = build(a.release)
    tmp = Path(tempfile.mkdtemp(prefix="frugal-soak-"))
    state = tmp / "state"
    retention = {"suites_per_crate": 3, "reports": 10, "runs": 10, "jobs": 10, "disk_budget": "300M", "gc_interval": "20s"}
    (tmp / "frugal.toml").write_text(
        "[daemon]\nlisten = \"127.0.0.1:0\"\nstate_dir = \"state\"\n\n"
        f"[search]\nbudget = \"{a.budget}\"\n\n[executor]\nworkers = 1\n\n"
        "[scheduler]\npoll_interval = \"off\"\n\n[jobs]\nmax_seconds = 900\n\n[retention]\n"
        + "".join(f"{k} = {json.dumps(v)}\n" for k, v in retention.items())
    )
    repos = {}
    for name in REPOS:
        make_repo(name, tmp / name)
    log = open(tmp / "frugald.log", "w")
    daemon = subprocess.Popen(
        [bins / "frugald", "--config", tmp / "frugal.toml", "--profile-repeat", "1"],
        stdout=log,
        stderr=log,
        stdin=subprocess.DEVNULL,
    )
    ok = True
    samples, acked, seen = [], [], {}
    try:
        for _ in range(300):
            addr = state / "frugald.addr"
            if addr.exists() and addr.read_text().strip():
                break
            time.sleep(0.1)
        api = Api("http://" + (state / "frugald.addr").read_text().strip(), (state / "token").read_text().strip())
        for name in REPOS:
            st, r = api.call("POST", "/v1/repos", {"path": str(tmp / name), "crates": [{"name": name, "dir": ""}]})
            assert st == 201, r
            repos[name] = r["id"]
        time.sleep(2)
        before = resources(daemon.pid)
        started = time.time()
        duration = 0 if a.smoke else a.minutes * 60
        n, last_sample = 0, 0.0

        def observe_jobs():
            for j in api.get("/v1/jobs"):
                if j["state"] not in ("queued", "running"):
                    seen[j["id"]] = j

        def sample(phase):
            samples.append(
                {
                    "t_s": round(time.time() - started, 1),
                    "phase": phase,
                    "state_mib": round(dir_bytes(state) / MIB, 1),
                    "work_mib": round(dir_bytes(state / "work") / MIB, 1),
                    "runs_dirs": len(os.listdir(state / "runs")) if (state / "runs").exists() else 0,
                    **resources(daemon.pid),
                }
            )
            print(json.dumps(samples[-1]), flush=True)

        while True:
            for name in REPOS:
                n += 1
                sha = commit(tmp / name, n)
                st, r = api.call("POST", f"/v1/repos/{repos[name]}/trigger", {"commit": sha})
                if st == 202:
                    acked.append({"repo": name, "commit": sha, "jobs": [j["job"] for j in r["jobs"]]})
                else:
                    print(f"trigger not acknowledged ({st}): {r}", file=sys.stderr)
            observe_jobs()
            if time.time() - last_sample >= 30:
                last_sample = time.time()
                sample("triggering")
            if time.time() - started >= duration:
                break
            time.sleep(a.interval)
        drained_at = time.time()
        while not wait_idle(api, 5):
            observe_jobs()
            if time.time() - drained_at > (600 if not a.smoke else 240):
                print("the queue did not drain", file=sys.stderr)
                ok = False
                break
        observe_jobs()
        time.sleep(2)
        sample("drained")
        st, gc = api.call("POST", "/v1/gc", {})
        sample("after gc")
        after = resources(daemon.pid)
        metrics = api.get("/metrics")
    finally:
        daemon.terminate()
        try:
            daemon.wait(30)
        except subprocess.TimeoutExpired:
            daemon.kill()

    # Every acknowledged trigger's jobs ended as succeeded runs.
    job_ids = sorted({j for t in acked for j in t["jobs"]})
    missing = [j for j in job_ids if j not in seen]
    failed = [seen[j] for j in job_ids if j in seen and (seen[j]["state"] != "succeeded" or seen[j]["run"] is None)]
    if missing or failed:
        ok = False
        print(f"jobs never seen finished: {missing}; not succeeded: {failed}", file=sys.stderr)
    leak = {k: after[k] - before[k] for k in before}
    if after["children"] != 0 or leak["fds"] > 4 or leak["threads"] > 4:
        ok = False
        print(f"leak: before {before}, after {after}", file=sys.stderr)
    # The bound: the work dirs' budget, plus room for the kept runs' outputs and the store.
    bound_mib = 300 + 100
    peak = max(s["state_mib"] for s in samples)
    if peak > bound_mib:
        ok = False
        print(f"state dir peaked at {peak} MiB, above the {bound_mib} MiB bound", file=sys.stderr)
    result = {
        "ok": ok,
        "minutes": round((drained_at - started) / 60, 1),
        "interval_s": a.interval,
        "budget": a.budget,
        "retention": retention,
        "triggers_acknowledged": len(acked),
        "jobs": len(job_ids),
        "jobs_succeeded": sum(1 for j in job_ids if j in seen and seen[j]["state"] == "succeeded"),
        "resources_before": before,
        "resources_after": after,
        "state_peak_mib": peak,
        "state_bound_mib": bound_mib,
        "gc_metrics": [l for l in metrics.splitlines() if l.startswith("frugal_gc_")],
        "samples": samples,
    }
    print(json.dumps({k: v for k, v in result.items() if k != "samples"}, indent=2))
    if a.json_out:
        Path(a.json_out).write_text(json.dumps(result, indent=2))
    if a.report:
        write_report(Path(a.report), result)
    if a.keep or not ok:
        print(f"kept {tmp} (daemon log: {tmp / 'frugald.log'})", file=sys.stderr)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(0 if ok else 1)


def write_report(path, r):
    lines = [
        "# Soak run of frugald",
        "",
        f"`python3 bench/soak.py --minutes {r['minutes']}`: triggers every {r['interval_s']} s on two "
        f"repositories (numeric, textparse), budget {r['budget']} executions per job, retention "
        f"{json.dumps(r['retention'])}.",
        "",
        f"- result: {'pass' if r['ok'] else 'FAIL'}",
        f"- triggers acknowledged: {r['triggers_acknowledged']}, jobs they map to: {r['jobs']}, "
        f"succeeded with a stored run: {r['jobs_succeeded']}",
        f"- state dir peak: {r['state_peak_mib']} MiB (bound {r['state_bound_mib']} MiB)",
        f"- frugald before: {r['resources_before']}, after: {r['resources_after']}",
        "",
        "| t (s) | phase | state MiB | work MiB | run dirs | fds | threads | child processes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in r["samples"]:
        lines.append(
            f"| {s['t_s']} | {s['phase']} | {s['state_mib']} | {s['work_mib']} | {s['runs_dirs']} | "
            f"{s['fds']} | {s['threads']} | {s['children']} |"
        )
    lines += ["", "GC metrics at the end:", "", "```", *r["gc_metrics"], "```", ""]
    path.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
