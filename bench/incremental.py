#!/usr/bin/env python3
"""Incremental regeneration through frugald against regeneration from scratch (issue 14, speed).

A git repository holds humantime 2.1.0 (fetched with crates_common.fetch) as its base commit, and
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
--render bench/incremental.json: the markdown again from saved results, measuring nothing.
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
import crates_common  # noqa: E402  (fetch, cache_root, machine)

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
    shutil.copytree(crates_common.fetch(CRATE, VERSION), dest, symlinks=True)
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
    return job_row(d, job, sha, label, watch.first_seen)


def job_row(d, job, sha, label, first_seen):
    """What a finished job's run recorded; first_seen: the phases' first sightings, or {} when
    the run was not watched (then snapshot, check, profile and store are unknown)."""
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
        "outer_s": outer_phases(first_seen, wall) if first_seen else {},
        "phases_seen": first_seen,
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


def measure(kinds, budget, cache, bin_dir, save):
    """Fills commits and rows; save(commits, rows) after every job, so a run cut short (a
    daemon killed from outside) keeps what it measured."""
    repo = os.path.join(cache, f"{CRATE}-repo")
    commits = [("base", make_repo(repo))]
    rows = {"incremental": [], "scratch": []}
    d = history.Daemon(os.path.join(cache, "daemon"), budget, bin_dir)
    try:
        repo_id = register(d, repo)
        rows["incremental"].append(run_job(d, repo_id, commits[0][1], "base"))
        save(commits, rows)
        for kind in kinds:
            # Committed once the previous job is done, as a developer's next commit would be.
            # The snapshot's files carry the commit's time (whole seconds) and the job's
            # profile builds incrementally in a kept target dir: a commit stamped before that
            # dir's last build would be profiled against the stale build (see INCREMENTAL.md).
            time.sleep(1.5)
            commits.append((kind, apply_change(repo, kind)))
            rows["incremental"].append(run_job(d, repo_id, commits[-1][1], kind))
            save(commits, rows)
    finally:
        d.stop()
    # From scratch: a fresh state dir per commit, so no previous suite exists.
    for kind, sha in commits[1:]:
        s = history.Daemon(os.path.join(cache, f"scratch-{kind}"), budget, bin_dir)
        try:
            rows["scratch"].append(run_job(s, register(s, repo), sha, f"{kind} (scratch)"))
            save(commits, rows)
        finally:
            s.stop()
    return commits, rows


def fmt_cov(r):
    c = r.get("coverage")
    if not c:
        return "-"
    return (f"{c['all_pct']}% ({c['all'][0]}/{c['all'][1]}) / "
            f"{c['branch_pct']}% ({c['branch'][0]}/{c['branch'][1]})")


def split(r):
    """[(phase, seconds)] of a job, in order; build is analyse + instrument + the harness."""
    o, p = r.get("outer_s") or {}, r.get("pipeline_s") or {}
    build = p.get("analyse", 0) + p.get("instrument", 0) + p.get("build_harness", 0)
    parts = [("snapshot", o.get("snapshot")), ("check", o.get("check")), ("build", build),
             ("search", p.get("search")), ("minimise", p.get("minimise")),
             ("verify", p.get("verify")), ("profile", o.get("profile")),
             ("store", o.get("store"))]
    if not o and r.get("wall_s") is not None:
        # Not watched: what the pipeline does not time is one figure.
        parts.append(("snapshot+check+profile+store", r["wall_s"] - sum(p.values())))
    return [(n, v) for n, v in parts if v is not None]


def fmt_split(r):
    return " + ".join(f"{n} {v:.1f}" for n, v in split(r))


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


def table(run):
    """The markdown of a measurement (main's `run`, or bench/incremental.json read back)."""
    rows, budget = run["rows"], run["budget"]
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
    m = run.get("machine") or crates_common.machine()
    loads = ", ".join("?" if r.get("loadavg_1m_after") is None else str(r["loadavg_1m_after"])
                      for r in rows["incremental"] + rows["scratch"])
    head = (f"{CRATE} {VERSION}, budget {budget}; frugal {run.get('frugal', '?')}; {m['cpu']}, "
            f"{m['cores']} cores, {m['rustc']}; {run.get('measured', '?')}; 1-minute load average "
            f"after each job (other work shares the cores): {loads}.\n"
            f"Command: `{run.get('command', 'python3 bench/incremental.py')}`\n\n"
            + (f"{run['note']}\n\n" if run.get("note") else "") +
            f"Base commit, from scratch (the first job): {b.get('wall_s')} s ({fmt_split(b)}), "
            f"coverage {fmt_cov(b)}, stop {b.get('search_stop')}.\n")
    jobs = ["| job | commit | wall s | phases (s) | seeded | stop | tests | coverage all / branch | "
            "check: behaviours changed | profiled |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows["incremental"] + rows["scratch"]:
        prof = r.get("profile") or {}
        profiled = (f"failed: {prof['error'].splitlines()[0][:90]}" if prof.get("error")
                    else f"{prof.get('tests')} tests")
        jobs.append(f"| {r['label']} | {r['commit'][:7]} | {r.get('wall_s', '-')} | "
                    f"{fmt_split(r)} | {r.get('seeded')} | {r.get('search_stop')} | "
                    f"{r.get('tests')} | {fmt_cov(r)} | "
                    f"{(r.get('regressions') or {}).get('changed')} | {profiled.replace('|', '/')} |")
    targets = []
    for inc, v in zip(rows["incremental"][1:], verdicts(rows)):
        top = sorted(split(inc), key=lambda kv: -kv[1])[:3]
        wall = inc.get("wall_s") or 0
        targets.append(
            f"- {inc['label']}: {TARGET_S:.0f} s target "
            f"{'holds' if v['wall_ok'] else 'missed'} ({inc.get('wall_s')} s); coverage at most "
            f"{TARGET_POINTS:.0f} point below scratch {'holds' if v['cov_ok'] else 'missed'} "
            f"({v['diff_all']:+} points on all goals, {v['diff_branch']:+} on branches); largest "
            "phases: " + ", ".join(f"{n} {t:.1f} s ({100 * t / wall:.0f}%)" for n, t in top
                                   if wall))
    method = (
        "How: the three changes are consecutive commits on top of the base, each committed after "
        "the previous job finished, watched by one private frugald (`search.budget` as above, "
        "`search.stall_generations` 50, the default). The base commit's job has no previous suite; "
        "each later job checks the previous suite, seeds its search with that suite's model and "
        "stops when it stalls. From scratch: each change's commit is the only job of a second "
        "private frugald with a fresh state dir and the same configuration, so no suite, model or "
        "warm target dir exists (its figures include building the crate and its dev-dependencies "
        "cold). Wall time is the run's finished - started. Phases inside the pipeline are its own "
        "`seconds`; snapshot, check, profile and store come from the run's progress polled every "
        "0.25 s (so to about 0.25 s, and a phase shorter than that may be missing). Coverage is the "
        "stored suite's covered/total goals summed over every kind (line, branch, function, input, "
        "output, ...) and branch goals alone; the difference is incremental minus scratch.\n\n")
    return (head + "\n" + method + "\n".join(lines) + "\n\n" + "\n".join(targets) + "\n\nEvery job, its wall time split by phase "
            "(build: analyse + instrument + build the harness):\n\n" + "\n".join(jobs) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", default="5m")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench"))
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "release"),
                    help="where frugal and frugald are (a copy keeps a long run off rebuilds)")
    ap.add_argument("--render", metavar="JSON",
                    help="write INCREMENTAL.md again from a saved incremental.json, measuring nothing")
    a = ap.parse_args()
    kinds = ["body"] if a.smoke else list(CHANGES)
    budget = "20s" if a.smoke else a.budget
    cache = os.path.join(crates_common.cache_root(), "incremental")
    # Without frugal-launch next to frugald a job skips profiling, a phase every real job has.
    for b in ("frugal", "frugald", "frugal-launch"):
        if not a.render and not os.path.isfile(os.path.join(a.bin_dir, b)):
            sys.exit(f"{b} is not in {a.bin_dir}: cargo build --release -p frugal -p frugald "
                     "-p frugal-profiler --bins")
    if a.render:
        with open(a.render) as f:
            run = json.load(f)
    else:
        run = {"frugal": history.git(ROOT, "rev-parse", "--short", "HEAD"),
               "command": " ".join(["python3 bench/incremental.py", *sys.argv[1:]]),
               "machine": crates_common.machine(), "budget": budget}

        def save(commits, rows):
            run.update(commits=commits, rows=rows, verdicts=verdicts(rows),
                       measured=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
            if not a.smoke:
                with open(os.path.join(a.out, "incremental.json"), "w") as f:
                    json.dump(run, f, indent=1)

        measure(kinds, budget, cache, os.path.abspath(a.bin_dir), save)
    text = table(run)
    if not a.smoke:
        with open(os.path.join(a.out, "INCREMENTAL.md"), "w") as f:
            f.write("# Incremental regeneration through frugald vs from scratch\n\n" + text)
    print(text)
    rows = run["rows"]
    failed = [r for r in rows["incremental"] + rows["scratch"] if r["job_state"] != "succeeded"]
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
