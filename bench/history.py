#!/usr/bin/env python3
"""Replay a real crate's published versions as commits watched by frugald, and report what the
regression check said at each version (issue: every commit is checked against the previous
suite).

For each crate: its consecutive versions (exact, fetched from crates.io with the index's
checksum) become consecutive commits of a fresh git repository, with the crate at the root.
A private frugald (its own state dir and port, polling off, the configured budget) watches the
repository; each commit is triggered in turn and the script waits for its job, so every
version's check runs the suite generated for the version before it. Per version it records the
report: tests checked, passed, behaviour changed, no longer compiling, crashed, flaky, and one
example per kind, plus the job's wall time. Results go to bench/history.json and the table to
bench/HISTORY.md.

Usage (from the repository root):
    cargo build --release -p frugal -p frugald --bins
    python3 bench/history.py [--crates humantime,bytesize] [--budget 60s] [--smoke]

--smoke: humantime 2.0.1 -> 2.1.0 only, 20 s budget.
The crates' code runs only inside frugald's sandbox (frugald refuses jobs on a host that cannot
confine them). Sources, repositories and state live in $FRUGAL_BENCH_CACHE/history.
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crates_common  # noqa: E402  (fetch, cache_root, machine)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERIES = {
    "humantime": ["2.0.0", "2.0.1", "2.1.0", "2.2.0", "2.3.0", "2.4.0"],
    "bytesize": ["1.3.0", "1.3.1", "1.3.2", "2.0.0", "2.0.1", "2.1.0"],
}
KINDS = ["passed", "changed", "no_longer_compiles", "crashed", "timed_out", "flaky"]


def log(msg):
    print(f"[history {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@localhost",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@localhost")
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True, env=env).stdout.strip()


def make_history(name, versions, dest):
    """A git repository with one commit per version, oldest first; returns [(version, sha)]."""
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    git(dest, "init", "-q", "-b", "main")
    commits = []
    for v in versions:
        src = crates_common.fetch(name, v)
        for entry in os.listdir(dest):
            if entry != ".git":
                path = os.path.join(dest, entry)
                shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
        shutil.copytree(src, dest, dirs_exist_ok=True, symlinks=True)
        git(dest, "add", "-A")
        git(dest, "commit", "-q", "-m", f"{name} {v}")
        commits.append((v, git(dest, "rev-parse", "HEAD")))
    return commits


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    def __init__(self, workdir, budget, bin_dir):
        self.bin_dir = bin_dir
        self.dir = workdir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        # A fresh state dir: every replay starts with no suites and no registration.
        shutil.rmtree(workdir, ignore_errors=True)
        os.makedirs(workdir)
        self.config = os.path.join(workdir, "frugal.toml")
        with open(self.config, "w") as f:
            f.write(f'[daemon]\nlisten = "127.0.0.1:{self.port}"\nstate_dir = "state"\n\n'
                    f'[search]\nbudget = "{budget}"\n\n[scheduler]\npoll_interval = "off"\n\n'
                    '[regressions]\ncheck = true\npolicy = "record"\n')
        self.log = open(os.path.join(workdir, "frugald.log"), "w")
        frugald = os.path.join(bin_dir, "frugald")
        self.proc = subprocess.Popen([frugald, "--config", self.config], stdout=self.log,
                                     stderr=subprocess.STDOUT)
        for _ in range(200):
            try:
                self.get("/healthz")
                return
            except Exception:  # noqa: BLE001 - not up yet
                time.sleep(0.1)
        sys.exit(f"frugald did not come up; see {self.log.name}")

    def get(self, path):
        with urllib.request.urlopen(self.url + path, timeout=30) as r:
            return json.loads(r.read())

    def frugal(self, *args):
        frugal = os.path.join(self.bin_dir, "frugal")
        out = subprocess.run([frugal, *args, "--config", self.config, "--url", self.url],
                             capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"frugal {' '.join(args)} failed ({out.returncode}):\n{out.stderr}")
        return out.stdout

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def wait_for_jobs(d, repo_id, timeout):
    started = time.time()
    while time.time() - started < timeout:
        jobs = [j for j in d.get("/v1/jobs") if j["repo"] == repo_id]
        if jobs and all(j["state"] not in ("queued", "running") for j in jobs):
            return jobs
        time.sleep(2)
    sys.exit(f"jobs of repository {repo_id} did not finish within {timeout} s")


def outcome_kind(test):
    o = test.get("outcome", {})
    return o.get("kind", "unknown") if isinstance(o, dict) else str(o)


def summarise(report):
    """Counts per outcome kind, and the first example of each kind that is not a pass."""
    counts = {k: 0 for k in KINDS}
    examples = {}
    for t in (report or {}).get("tests", []):
        k = outcome_kind(t)
        counts[k] = counts.get(k, 0) + 1
        if k != "passed" and k not in examples:
            examples[k] = {"test": t.get("name"), "outcome": t.get("outcome"),
                           "body": t.get("body")}
    return counts, examples


def replay(name, versions, budget, cache, bin_dir):
    repo = os.path.join(cache, f"{name}-repo")
    commits = make_history(name, versions, repo)
    d = Daemon(os.path.join(cache, f"{name}-daemon"), budget, bin_dir)
    rows = []
    try:
        d.frugal("repo", "add", repo, "--crate", name, "--no-hooks")
        repo_id = next(r["id"] for r in d.get("/v1/repos") if r["path"] == os.path.realpath(repo))
        done_jobs = set()
        for v, sha in commits:
            started = time.time()
            d.frugal("trigger", str(repo_id), "--commit", sha)
            jobs = wait_for_jobs(d, repo_id, timeout=3600)
            job = max((j for j in jobs if j["id"] not in done_jobs), key=lambda j: j["id"])
            done_jobs.add(job["id"])
            wall = time.time() - started
            try:
                answer = d.get(f"/v1/repos/{repo_id}/commits/{sha}/report")
            except urllib.error.HTTPError as e:
                answer = {"crates": [], "error": f"HTTP {e.code}"}
            crate = next((c for c in answer.get("crates", []) if c["crate"] == name), {})
            counts, examples = summarise(crate.get("report"))
            rows.append({"crate": name, "version": v, "commit": sha, "job": job["id"],
                         "frugal": git(ROOT, "rev-parse", "--short", "HEAD"),
                         "job_state": job["state"], "job_outcome": job.get("outcome"),
                         "wall_s": round(wall, 1), "baseline_commit": crate.get("baseline_commit"),
                         "changed": crate.get("changed"), "note": crate.get("note"),
                         "counts": counts, "examples": examples,
                         "summary": (crate.get("report") or {}).get("summary")})
            log(f"{name} {v}: job {job['state']} in {wall:.0f} s, changed {crate.get('changed')}, "
                f"{counts}")
    finally:
        d.stop()
    return rows


def describe(example):
    """One line a reviewer reads: the call and how its result differs, or what no longer builds."""
    o = example["outcome"] or {}
    c = o.get("change") or {}
    if c.get("kind") == "value":
        return f"`{c.get('subject')}` was `{c.get('expected')}`, now `{c.get('actual')}`"
    if c:
        return f"{c.get('kind')}: {c.get('message') or c.get('expected') or ''}"
    if o.get("kind") == "no_longer_compiles":
        first = (o.get("error") or "").splitlines()[0] if o.get("error") else ""
        return f"`{o.get('item') or example['test']}`: {first}"
    return f"{o.get('kind')}: {o.get('detail', '')}"


def write_outputs(out, rows, budget, command):
    with open(os.path.join(out, "HISTORY.md"), "w") as f:
        f.write("# Published versions replayed as commits\n\n" + table(rows, budget, command))


def table(rows, budget, command):
    out = ["| crate | version | job | wall s | checked | passed | changed | no longer compiles | "
           "crashed/timed out | flaky | example |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        c = r["counts"]
        checked = sum(c.values())
        example = r["note"] or ""
        shown = [describe(r["examples"][k]) for k in ("changed", "no_longer_compiles", "crashed",
                                                      "timed_out") if k in r["examples"]]
        if shown:
            example = "; ".join(x[:200] for x in shown)
        out.append(f"| {r['crate']} | {r['version']} | {r['job_state']} | {r['wall_s']} | "
                   f"{checked} | {c.get('passed', 0)} | {c.get('changed', 0)} | "
                   f"{c.get('no_longer_compiles', 0)} | {c.get('crashed', 0) + c.get('timed_out', 0)}"
                   f" | {c.get('flaky', 0)} | {example.replace('|', '/')} |")
    m = crates_common.machine()
    commit = rows[0].get("frugal") if rows else None
    head = (f"Budget {budget} per job; frugal {commit or git(ROOT, 'rev-parse', '--short', 'HEAD')}; "
            f"{m['cpu']}, {m['cores']} cores, {m['rustc']}; {time.strftime('%Y-%m-%d')}.\n"
            f"Command: `{command}`\n")
    return head + "\n" + "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--crates", default=",".join(SERIES))
    ap.add_argument("--budget", default="60s")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench"))
    ap.add_argument("--render", action="store_true",
                    help="write HISTORY.md again from history.json, running nothing")
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "release"),
                    help="where frugal and frugald are (a copy keeps a long run off rebuilds)")
    a = ap.parse_args()
    if a.render:
        with open(os.path.join(a.out, "history.json")) as f:
            rows = json.load(f)
        with open(os.path.join(a.out, "HISTORY.md")) as f:
            budget = f.read().split("Budget ", 1)[1].split(" ", 1)[0]
        write_outputs(a.out, rows, budget, rows[0].get("command", ""))
        return
    series = {"humantime": ["2.0.1", "2.1.0"]} if a.smoke else {
        c: SERIES[c] for c in a.crates.split(",")}
    budget = "20s" if a.smoke else a.budget
    cache = os.path.join(crates_common.cache_root(), "history")
    rows = []
    for name, versions in series.items():
        rows += replay(name, versions, budget, cache, os.path.abspath(a.bin_dir))
    command = "python3 bench/history.py " + " ".join(sys.argv[1:])
    for r in rows:
        r["command"] = command
    if not a.smoke:
        with open(os.path.join(a.out, "history.json"), "w") as f:
            json.dump(rows, f, indent=1)
        write_outputs(a.out, rows, budget, command)
    print(table(rows, budget, command))
    failed = [r for r in rows if r["job_state"] != "succeeded"]
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
