#!/usr/bin/env python3
"""Incremental regeneration through frugald against regeneration from scratch (issue 14, speed).

A git repository holds humantime 2.1.0 (fetched with realcrates.fetch) as its base commit, and
then three changes as consecutive commits, each on top of the one before, as in a real history:
  body   - one function body: `"hr"` leaves the hours arm of duration.rs's unit match;
  new-fn - a new public function `is_hours` in lib.rs;
  api    - an API change: `format_rfc3339_nanos` becomes `pub(crate)` (and leaves the re-export).
A private frugald (history.py's Daemon: its own state dir and port, polling off, the budget
below) watches the repository. The base commit's job runs from scratch; each change's job then
checks the previous suite, seeds its search with that suite's stored model and stops when it
stalls. For comparison, each change's commit is also regenerated from scratch by a second
private frugald with a fresh state dir and the same configuration, which has no previous suite:
the same job, with the full budget.

Per job it records the run's wall time (finished - started), the time per phase (the
pipeline's own `seconds`, and for the phases around it - snapshot, regression check, profile,
store - the run's progress polled every 0.25 s), whether it was seeded, the search's stop
reason and the coverage of the stored suite (all goals and branch goals). Results go to
bench/incremental.json and the table to bench/INCREMENTAL.md.

Usage (from the repository root):
    cargo build --release -p frugal -p frugald -p frugal-profiler --bins
    python3 bench/incremental.py [--budget 5m] [--smoke]

--smoke: the body change only, 20 s budget, nothing written to bench/.
The crate's code runs only inside frugald's sandbox. Repository and state dirs live in
$FRUGAL_BENCH_CACHE/incremental.
"""

import argparse
import json
import os
import shutil
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import history  # noqa: E402  (Daemon, git, wait_for_jobs)
import realcrates  # noqa: E402  (fetch, cache_root, machine)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRATE, VERSION = "humantime", "2.1.0"
TARGET_S, TARGET_POINTS = 60.0, 1.0

IS_HOURS = '''
/// Whether a duration text is a whole number of hours, like `"12h"`.
pub fn is_hours(s: &str) -> bool {
    if s.len() > 1 && s.ends_with('h') {
        s[..s.len() - 1].bytes().all(|b| b.is_ascii_digit())
    } else {
        false
    }
}
'''

# kind -> (what it changes, [(file, old, new)]); old == None appends new to the file.
CHANGES = {
    "body": ("one function body: `\"hr\"` leaves `parse_duration`'s hours arm",
             [("src/duration.rs", '"hours" | "hour" | "hr" | "hrs" | "h" =>',
               '"hours" | "hour" | "hrs" | "h" =>')]),
    "new-fn": ("a new public function `is_hours`", [("src/lib.rs", None, IS_HOURS)]),
    "api": ("an API change: `format_rfc3339_nanos` becomes `pub(crate)`",
            [("src/date.rs", "\npub fn format_rfc3339_nanos(",
              "\npub(crate) fn format_rfc3339_nanos("),
             ("src/lib.rs", "format_rfc3339_millis, format_rfc3339_nanos,",
              "format_rfc3339_millis,")]),
}


def log(msg):
    print(f"[incremental {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def apply_change(repo, kind):
    """Edits the checkout and commits; returns the commit. Fails if an edit no longer applies."""
    for rel, old, new in CHANGES[kind][1]:
        path = os.path.join(repo, rel)
        with open(path) as f:
            text = f.read()
        if old is None:
            text += new
        elif text.count(old) != 1:
            sys.exit(f"{kind}: `{old.strip()}` is not in {rel} exactly once")
        else:
            text = text.replace(old, new)
        with open(path, "w") as f:
            f.write(text)
    history.git(repo, "commit", "-q", "-am", f"{CRATE}: {kind}")
    return history.git(repo, "rev-parse", "HEAD")


def make_repo(dest):
    if os.path.exists(dest):
        shutil.rmtree(dest)
    shutil.copytree(realcrates.fetch(CRATE, VERSION), dest, symlinks=True)
    history.git(dest, "init", "-q", "-b", "main")
    history.git(dest, "add", "-A")
    history.git(dest, "commit", "-q", "-m", f"{CRATE} {VERSION}")
    return history.git(dest, "rev-parse", "HEAD")


class PhaseWatch(threading.Thread):
    """Polls the repository's newest run and notes when each phase was first seen (the run's
    elapsed seconds), while the main thread waits for the job with history.wait_for_jobs."""

    def __init__(self, d, repo_id, after_run):
        super().__init__(daemon=True)
        self.d, self.repo_id, self.after_run = d, repo_id, after_run
        self.first_seen = {}
        self.done = threading.Event()

    def run(self):
        while not self.done.is_set():
            try:
                runs = self.d.get(f"/v1/runs?repo={self.repo_id}&limit=1")
            except Exception:  # noqa: BLE001 - a poll that fails is retried
                runs = []
            if runs and runs[0]["id"] > self.after_run:
                p = runs[0]["progress"]
                self.first_seen.setdefault(p["phase"], p["elapsed_s"])
            time.sleep(0.25)


def outer_phases(first_seen, wall):
    """Seconds of snapshot, check, profile and store from the phases' first sightings."""
    order = sorted(first_seen.items(), key=lambda kv: kv[1])
    out = {}
    for i, (phase, t) in enumerate(order):
        end = order[i + 1][1] if i + 1 < len(order) else wall
        out[phase] = round(end - t, 2)
    return {k: out.get(k) for k in ("snapshot", "check", "profile", "store")}


def coverage(goals):
    total = sum(g["total"] for g in goals.values())
    covered = sum(g["covered"] for g in goals.values())
    b = goals.get("branch", {"covered": 0, "total": 0})
    return {"all": [covered, total], "branch": [b["covered"], b["total"]],
            "all_pct": round(100.0 * covered / total, 2) if total else None,
            "branch_pct": round(100.0 * b["covered"] / b["total"], 2) if b["total"] else None}


def run_job(d, repo_id, sha, label):
    """Triggers the commit, waits for its job and returns what the run recorded."""
    before = d.get(f"/v1/runs?repo={repo_id}&limit=1")
    watch = PhaseWatch(d, repo_id, before[0]["id"] if before else 0)
    watch.start()
    known = {j["id"] for j in d.get("/v1/jobs") if j["repo"] == repo_id}
    d.frugal("trigger", str(repo_id), "--commit", sha)
    jobs = history.wait_for_jobs(d, repo_id, timeout=3600)
    watch.done.set()
    watch.join()
    job = max((j for j in jobs if j["id"] not in known), key=lambda j: j["id"])
    row = {"label": label, "commit": sha, "job": job["id"], "job_state": job["state"],
           "loadavg_1m_after": round(os.getloadavg()[0], 2),
           "job_outcome": job.get("outcome"), "budget_factor": job.get("budget_factor")}
    if job.get("run") is None:
        log(f"{label}: job {job['id']} {job['state']} without a run: {job.get('outcome')}")
        return row
    run = d.get(f"/v1/runs/{job['run']}")
    wall = (run["finished_ms"] - run["started_ms"]) / 1000.0
    summary = run.get("summary") or {}
    p = summary.get("pipeline") or {}
    seeding = p.get("seeding")
    regressions = summary.get("regressions") or {}
    row.update({
        "run": run["id"], "status": run["status"], "error": run.get("error"),
        "wall_s": round(wall, 1), "budget": p.get("budget"),
        "pipeline_s": {k: round(v, 2) for k, v in (p.get("seconds") or {}).items()},
        "outer_s": outer_phases(watch.first_seen, wall), "phases_seen": watch.first_seen,
        "seeded": bool(seeding and seeding.get("resolved", 0) > 0),
        "seeding": seeding and {"resolved": seeding.get("resolved"),
                                "dropped": len(seeding.get("dropped", [])),
                                "dropped_examples": seeding.get("dropped", [])[:3],
                                "executed": seeding.get("executed"),
                                "goals_covered": seeding.get("goals_covered")},
        "search_stop": p.get("search_stop"), "tests": p.get("tests_emitted"),
        "goals": p.get("goals"), "coverage": coverage(p.get("goals") or {}),
        "regressions": {"changed": regressions.get("changed"),
                        "baseline_commit": regressions.get("baseline_commit")},
        "profile": summary.get("profile"),
    })
    c = row["coverage"]
    log(f"{label}: {run['status']} in {wall:.1f} s, stop {row['search_stop']}, "
        f"seeded {row['seeded']}, all {c['all_pct']}%, branch {c['branch_pct']}%")
    return row


def register(d, repo):
    d.frugal("repo", "add", repo, "--crate", CRATE, "--no-hooks")
    return next(r["id"] for r in d.get("/v1/repos") if r["path"] == os.path.realpath(repo))


def measure(kinds, budget, cache, bin_dir):
    repo = os.path.join(cache, f"{CRATE}-repo")
    base = make_repo(repo)
    commits = [("base", base)] + [(k, apply_change(repo, k)) for k in kinds]
    rows = {"incremental": [], "scratch": []}
    d = history.Daemon(os.path.join(cache, "daemon"), budget, bin_dir)
    try:
        repo_id = register(d, repo)
        for kind, sha in commits:
            rows["incremental"].append(run_job(d, repo_id, sha, kind))
    finally:
        d.stop()
    # From scratch: a fresh state dir per commit, so no previous suite exists.
    for kind, sha in commits[1:]:
        s = history.Daemon(os.path.join(cache, f"scratch-{kind}"), budget, bin_dir)
        try:
            rows["scratch"].append(run_job(s, register(s, repo), sha, f"{kind} (scratch)"))
        finally:
            s.stop()
    return commits, rows


def fmt_cov(r):
    c = r.get("coverage")
    if not c:
        return "-"
    return (f"{c['all_pct']}% ({c['all'][0]}/{c['all'][1]}) / "
            f"{c['branch_pct']}% ({c['branch'][0]}/{c['branch'][1]})")


def fmt_split(r):
    o, p = r.get("outer_s") or {}, r.get("pipeline_s") or {}
    build = p.get("analyse", 0) + p.get("instrument", 0) + p.get("build_harness", 0)
    parts = [("snapshot", o.get("snapshot")), ("check", o.get("check")), ("build", build),
             ("search", p.get("search")), ("minimise", p.get("minimise")),
             ("verify", p.get("verify")), ("profile", o.get("profile")),
             ("store", o.get("store"))]
    return " + ".join(f"{n} {v:.1f}" for n, v in parts if v is not None)


def verdicts(rows):
    out = []
    for inc, sc in zip(rows["incremental"][1:], rows["scratch"]):
        ok_time = inc.get("wall_s") is not None and inc["wall_s"] <= TARGET_S
        diff = None
        if inc.get("coverage") and sc.get("coverage") and sc["coverage"]["all_pct"] is not None:
            diff = round(inc["coverage"]["all_pct"] - sc["coverage"]["all_pct"], 2)
        bdiff = None
        if inc.get("coverage") and sc.get("coverage") and sc["coverage"]["branch_pct"] is not None:
            bdiff = round(inc["coverage"]["branch_pct"] - sc["coverage"]["branch_pct"], 2)
        out.append({"kind": inc["label"], "wall_ok": ok_time, "diff_all": diff,
                    "diff_branch": bdiff,
                    "cov_ok": diff is not None and diff >= -TARGET_POINTS})
    return out


def table(commits, rows, budget):
    lines = ["| change | scratch: wall s | scratch: coverage all / branch | incremental: wall s | "
             "incremental: phases (s) | incremental: coverage all / branch | seeded: resolved / "
             "dropped | stop | difference (points, all / branch) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for inc, sc, v in zip(rows["incremental"][1:], rows["scratch"], verdicts(rows)):
        s = inc.get("seeding") or {}
        diff = " / ".join("-" if x is None else f"{x:+.2f}" for x in (v["diff_all"], v["diff_branch"]))
        lines.append(
            f"| {inc['label']} | {sc.get('wall_s', '-')} | {fmt_cov(sc)} | "
            f"{inc.get('wall_s', '-')} | {fmt_split(inc)} | {fmt_cov(inc)} | "
            f"{s.get('resolved', 0)} / {s.get('dropped', 0)} | {inc.get('search_stop')} | {diff} |")
    b = rows["incremental"][0]
    m = realcrates.machine()
    head = (f"{CRATE} {VERSION}, budget {budget}; frugal "
            f"{history.git(ROOT, 'rev-parse', '--short', 'HEAD')}; {m['cpu']}, {m['cores']} cores, "
            f"{m['rustc']}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; 1-minute load "
            f"average after each job (other work shares the cores): "
            f"{', '.join(str(r.get('loadavg_1m_after')) for r in rows['incremental'] + rows['scratch'])}.\n"
            "Command: `python3 bench/incremental.py " + " ".join(sys.argv[1:]) + "`\n\n"
            f"Base commit, from scratch (the first job): {b.get('wall_s')} s ({fmt_split(b)}), "
            f"coverage {fmt_cov(b)}, stop {b.get('search_stop')}.\n")
    jobs = ["| job | commit | wall s | phases (s) | seeded | stop | tests | coverage all / branch |",
            "|---|---|---|---|---|---|---|---|"]
    for r in rows["incremental"] + rows["scratch"]:
        jobs.append(f"| {r['label']} | {r['commit'][:7]} | {r.get('wall_s', '-')} | "
                    f"{fmt_split(r)} | {r.get('seeded')} | {r.get('search_stop')} | "
                    f"{r.get('tests')} | {fmt_cov(r)} |")
    return (head + "\n" + "\n".join(lines) + "\n\nEvery job, its wall time split by phase "
            "(build: analyse + instrument + build the harness):\n\n" + "\n".join(jobs) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", default="5m")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench"))
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "release"),
                    help="where frugal and frugald are (a copy keeps a long run off rebuilds)")
    a = ap.parse_args()
    kinds = ["body"] if a.smoke else list(CHANGES)
    budget = "20s" if a.smoke else a.budget
    cache = os.path.join(realcrates.cache_root(), "incremental")
    # Without frugal-launch next to frugald a job skips profiling, a phase every real job has.
    for b in ("frugal", "frugald", "frugal-launch"):
        if not os.path.isfile(os.path.join(a.bin_dir, b)):
            sys.exit(f"{b} is not in {a.bin_dir}: cargo build --release -p frugal -p frugald "
                     "-p frugal-profiler --bins")
    commits, rows = measure(kinds, budget, cache, os.path.abspath(a.bin_dir))
    text = table(commits, rows, budget)
    vs = verdicts(rows)
    if not a.smoke:
        with open(os.path.join(a.out, "incremental.json"), "w") as f:
            json.dump({"budget": budget, "commits": commits, "rows": rows, "verdicts": vs},
                      f, indent=1)
        with open(os.path.join(a.out, "INCREMENTAL.md"), "w") as f:
            f.write("# Incremental regeneration through frugald vs from scratch\n\n" + text)
    print(text)
    for v in vs:
        print(f"{v['kind']}: wall <= {TARGET_S:.0f} s: {v['wall_ok']}; coverage within "
              f"{TARGET_POINTS:.0f} point: {v['cov_ok']} ({v['diff_all']})")
    failed = [r for r in rows["incremental"] + rows["scratch"] if r["job_state"] != "succeeded"]
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
