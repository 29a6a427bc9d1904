#!/usr/bin/env python3
"""Detection power of the regression check (`frugal check --suite`) on cargo-mutants' mutants.

One crate (default humantime 2.1.0, fetched like bench/realcrates.py does):
1. `frugal run` generates its suite once (confined by frugal's sandbox).
2. `cargo mutants --list --json --diff` lists the mutants of the pristine crate (it parses the
   source and calls `cargo locate-project` and `cargo metadata`, which build nothing; it runs
   confined all the same). Each mutant is placed in the function that contains it; a mutant is
   "in a supported function" when that function is one of the callables frugal's run could
   call (model.json of the run's work dir).
3. The scripted run: a git repository whose base commit is the pristine crate; per mutant, one
   commit applying its diff on the base, checked out, and `frugal check <repo> --suite <suite>
   --json` with one work dir for all (incremental builds). Exit 1: caught (the outcome kinds
   are recorded); 0: missed; 2 with "does not build": unviable (excluded from scores, as
   cargo-mutants does); anything else: error.
4. cargo-mutants' own score of the SAME suite: a copy of the crate with the suite as
   tests/frugal_generated.rs, `cargo mutants ... -- --test frugal_generated`, confined (a
   private mount namespace where every mount is read-only but one scratch directory, no
   network, own pid namespace, no capabilities), offline after `cargo fetch`.
5. The crate's own suite's score: `cargo mutants` on the pristine copy, confined likewise.
Per mutant the three verdicts are compared; the agreement table and the scores (over all
mutants run and over those in supported functions) go to bench/MUTANTS.md and
bench/mutants.json.

Usage (from the repository root):
    cargo build --release -p frugal --bins
    python3 bench/mutants.py [--crate humantime@2.1.0] [--budget 2m] [--seed 1]
                             [--scope supported|all] [--sample N] [--smoke]

--scope: which mutants run (default supported: those in supported functions); --sample N:
N of them, evenly spaced in source order (default: every one). --smoke: 20 s budget, 3
mutants (about 3 minutes). Scores exclude unviable mutants; timeouts count as caught.
The crate sources and build caches live in $FRUGAL_BENCH_CACHE (default ~/.cache/frugal-bench).
"""

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crates_common import (ROOT, add_report_args, cache_root, confined, fetch, frugal_bin,  # noqa: E402
                           frugal_commit, log, machine, run_frugal, standalone_copy)


CAUGHT, MISSED, UNVIABLE, TIMEOUT, ERROR = "caught", "missed", "unviable", "timeout", "error"
# cargo-mutants' outcome summaries -> ours.
CM_SUMMARY = {"CaughtMutant": CAUGHT, "MissedMutant": MISSED, "Unviable": UNVIABLE,
              "Timeout": TIMEOUT}


def git(repo, *args, check=True):
    return subprocess.run(["git", "-C", repo] + list(args), capture_output=True, text=True,
                          check=check)


def standalone(src, dest, suite=None):
    """crates_common.standalone_copy, optionally with `suite` as tests/frugal_generated.rs, and
    its dependencies fetched."""
    manifest = standalone_copy(src, dest, declare_generated=bool(suite))
    if suite:
        os.makedirs(os.path.join(dest, "tests"), exist_ok=True)
        shutil.copy(suite, os.path.join(dest, "tests", "frugal_generated.rs"))
    # Dependencies (dev-dependencies included) fetched unconfined: no crate code runs.
    subprocess.run(["cargo", "fetch", "--manifest-path", manifest], check=True,
                   capture_output=True, text=True, cwd=dest)
    return dest


def cargo_env(scratch, target):
    return dict(os.environ, CARGO_TARGET_DIR=target, CARGO_NET_OFFLINE="true", RUST_BACKTRACE="0",
                CARGO_TERM_COLOR="never")


def list_mutants(copy, scratch):
    """cargo-mutants' mutants of the pristine crate, with their diffs (listed confined)."""
    proc = confined(["cargo", "mutants", "--list", "--json", "--diff", "--dir", copy], scratch,
                    cargo_env(scratch, os.path.join(scratch, "target-list")), copy, timeout=600)
    if proc.returncode != 0:
        sys.exit(f"cargo mutants --list failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def supported_callables(work):
    """(file, name, line) of every callable frugal's run could call."""
    with open(os.path.join(work, "model.json")) as f:
        model = json.load(f)
    return [(c["file"], c["name"], c["line"]) for c in model["callables"]]


def in_supported(mutant, callables):
    """Whether the mutant's enclosing function is a supported callable: same file, same
    name (last path segment), and the callable's line inside the function's span."""
    fn = mutant.get("function")
    if not fn:
        return False
    name = fn["function_name"].rsplit("::", 1)[-1]
    lo, hi = fn["span"]["start"]["line"], fn["span"]["end"]["line"]
    return any(f == mutant["file"] and n == name and lo <= line <= hi for f, n, line in callables)


def sample(items, n):
    """n of `items`, evenly spaced (all when n is None or not smaller)."""
    if not n or n >= len(items):
        return list(items)
    return [items[(i * len(items)) // n] for i in range(n)]


def git_patch(mutant):
    """The mutant's diff with git-style headers (`--- a/FILE`, `+++ b/FILE`)."""
    lines = mutant["diff"].splitlines(keepends=True)
    out = []
    for line in lines:
        if line.startswith("--- "):
            out.append(f"--- a/{mutant['file']}\n")
        elif line.startswith("+++ "):
            out.append(f"+++ b/{mutant['file']}\n")
        else:
            out.append(line)
    text = "".join(out)
    return text if text.endswith("\n") else text + "\n"


def frugal_check_all(frugal, pristine, suite, mutants, root):
    """The scripted run: one commit per mutant on the pristine base, `frugal check` on each."""
    repo = os.path.join(root, "repo")
    if os.path.isdir(repo):
        shutil.rmtree(repo)
    shutil.copytree(pristine, repo, ignore=shutil.ignore_patterns("target", ".git"))
    git(repo, "init", "-q", "-b", "base")
    git(repo, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "add", "-A")
    git(repo, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qm",
        "pristine crate")
    base = git(repo, "rev-parse", "HEAD").stdout.strip()
    work = os.path.join(root, "check-work")
    results = {}
    # The unmutated crate first: every test must pass (and the build is then warm).
    baseline = run_check(frugal, repo, suite, work)
    log(f"frugal check on the pristine crate: {baseline['verdict']} ({baseline['seconds']} s)")
    for i, m in enumerate(mutants, 1):
        git(repo, "checkout", "-q", "--detach", base)
        patch = os.path.join(root, "mutant.patch")
        with open(patch, "w") as f:
            f.write(git_patch(m))
        applied = git(repo, "apply", patch, check=False)
        if applied.returncode != 0:
            results[m["name"]] = {"verdict": ERROR, "detail": "git apply: " + applied.stderr[-500:]}
            continue
        git(repo, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qam",
            m["name"][:200])
        r = run_check(frugal, repo, suite, work)
        r["commit"] = git(repo, "rev-parse", "--short", "HEAD").stdout.strip()
        results[m["name"]] = r
        log(f"[{i}/{len(mutants)}] frugal check: {r['verdict']} {r.get('kinds', '')} "
            f"({r['seconds']} s) {m['name']}")
    git(repo, "checkout", "-q", "--detach", base)
    return baseline, results


def run_check(frugal, repo, suite, work):
    started = time.time()
    proc = subprocess.run([frugal, "check", repo, "--suite", suite, "--json", "--work-dir", work],
                          capture_output=True, text=True, cwd=os.path.dirname(work))
    r = {"exit": proc.returncode, "seconds": round(time.time() - started, 1)}
    if proc.returncode in (0, 1):
        report = json.loads(proc.stdout)
        kinds = collections.Counter(t["outcome"]["kind"] for t in report["tests"])
        r["kinds"] = dict(kinds)
        r["failing"] = [t["name"] for t in report["tests"]
                        if t["outcome"]["kind"] not in ("passed", "flaky")][:20]
        failing_kinds = {k for k in kinds if k not in ("passed", "flaky")}
        if proc.returncode == 0:
            r["verdict"] = MISSED
        elif failing_kinds == {"timed_out"}:
            r["verdict"] = TIMEOUT
        else:
            r["verdict"] = CAUGHT
    elif proc.returncode == 2 and "does not build" in proc.stderr:
        r["verdict"] = UNVIABLE
    else:
        r["verdict"] = ERROR
        r["detail"] = proc.stderr[-1500:]
    return r


def escape(name):
    """A regex matching exactly `name` (Rust's regex syntax: only metacharacters escaped)."""
    return "^" + "".join("\\" + c if c in "\\.+*?()|[]{}^$#&-~" else c for c in name) + "$"


def cargo_mutants(copy, mutants, root, label, test_args):
    """cargo-mutants' verdict on each mutant, with the tests `test_args` selects, confined."""
    scratch = os.path.join(root, f"cm-{label}")
    os.makedirs(scratch, exist_ok=True)
    out = os.path.join(scratch, "out")
    shutil.rmtree(out, ignore_errors=True)
    filters = [a for m in mutants for a in ("-F", escape(m["name"]))]
    cmd = (["cargo", "mutants", "--dir", copy, "--no-shuffle", "-j", "1", "--output", out,
            "--colors", "never"] + filters + (["--"] + test_args if test_args else []))
    log(" ".join(cmd[:9]) + f" -F <{len(mutants)} names> " + " ".join(test_args) + "  (confined)")
    started = time.time()
    proc = confined(cmd, scratch, cargo_env(scratch, os.path.join(scratch, "target")), copy)
    wall = round(time.time() - started, 1)
    outcomes_path = os.path.join(out, "mutants.out", "outcomes.json")
    if not os.path.exists(outcomes_path):
        sys.exit(f"cargo mutants ({label}) wrote no outcomes (exit {proc.returncode}):\n"
                 f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    with open(outcomes_path) as f:
        data = json.load(f)
    verdicts, baseline = {}, None
    for o in data["outcomes"]:
        scenario = o["scenario"]
        if scenario == "Baseline":
            baseline = o["summary"]
            continue
        name = scenario["Mutant"]["name"]
        verdicts[name] = {"verdict": CM_SUMMARY.get(o["summary"], ERROR), "summary": o["summary"],
                          "seconds": round(sum(p.get("duration", 0) for p in o.get("phase_results", [])), 1)}
        if o["summary"] == "Unviable" and o.get("log_path"):
            verdicts[name]["reason"] = first_error(os.path.join(out, "mutants.out", o["log_path"]))
    return {"exit": proc.returncode, "wall_seconds": wall, "baseline": baseline,
            "verdicts": verdicts}


def first_error(log_path):
    """The first `error` line of a cargo-mutants log (why a mutant did not build)."""
    try:
        with open(log_path, errors="replace") as f:
            return next((line.strip()[:300] for line in f if line.startswith("error")), None)
    except OSError:
        return None


def score(verdicts, names):
    """caught, missed, unviable, timeout, error counts over `names`, and the score:
    (caught + timeout) / (caught + timeout + missed)."""
    c = collections.Counter(verdicts.get(n, {}).get("verdict", ERROR) for n in names)
    viable = c[CAUGHT] + c[TIMEOUT] + c[MISSED]
    return {"mutants": len(names), CAUGHT: c[CAUGHT], MISSED: c[MISSED], UNVIABLE: c[UNVIABLE],
            TIMEOUT: c[TIMEOUT], ERROR: c[ERROR],
            "score": round((c[CAUGHT] + c[TIMEOUT]) / viable, 4) if viable else None}


def detected(v):
    return {CAUGHT: "caught", TIMEOUT: "caught", MISSED: "missed"}.get(v, v)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--crate", default="humantime@2.1.0", help="name@version (default humantime@2.1.0)")
    ap.add_argument("--budget", default="2m")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scope", choices=("supported", "all"), default="supported")
    ap.add_argument("--sample", type=int, default=None, help="run N mutants of the scope, evenly spaced")
    ap.add_argument("--smoke", action="store_true", help="20 s budget, 3 mutants")
    ap.add_argument("--reuse-suite", action="store_true",
                    help="keep the suite of a previous run with the same budget and seed")
    ap.add_argument("--skip-own", action="store_true", help="do not score the crate's own suite")
    ap.add_argument("--frugal", default=None)
    add_report_args(ap, "mutants")
    ap.add_argument("--recheck", metavar="JSON",
                    help="re-run the odd unviable mutants of a previous run's mutants.json, then render")
    ap.add_argument("--render", metavar="JSON",
                    help="only write MUTANTS.md again from a previous run's mutants.json")
    args = ap.parse_args()
    if args.recheck:
        with open(args.recheck) as f:
            result = json.load(f)
        name, version = result["crate"], result["version"]
        root = os.path.join(cache_root(), "mutants", f"{name}-{version}")
        suite = os.path.join(root, f"out-{result['budget']}-seed{result['seed']}", "frugal_generated.rs")
        src = fetch(name, version)
        result["rechecks"] = []
        recheck_unviable(result, root, standalone(src, os.path.join(root, "pristine")),
                         standalone(src, os.path.join(root, "with-suite"), suite=suite))
        with open(args.recheck, "w") as f:
            json.dump(result, f, indent=1)
        args.render = args.recheck
    if args.render:
        with open(args.render) as f:
            text = markdown(json.load(f))
        with open(args.md_out, "w") as f:
            f.write(text)
        return
    if args.smoke:
        args.budget, args.sample = "20s", 3
        args.json_out = args.md_out = None
    name, version = args.crate.split("@")
    frugal = frugal_bin(args.frugal)
    started = time.time()
    src = fetch(name, version)
    root = os.path.join(cache_root(), "mutants", f"{name}-{version}" + ("-smoke" if args.smoke else ""))
    os.makedirs(root, exist_ok=True)
    pristine = standalone(src, os.path.join(root, "pristine"))
    walls = {}

    # 1. The suite, generated once.
    out = os.path.join(root, f"out-{args.budget}-seed{args.seed}")
    work = os.path.join(root, f"work-{args.budget}-seed{args.seed}")
    suite = os.path.join(out, "frugal_generated.rs")
    t = time.time()
    if not (args.reuse_suite and os.path.exists(suite) and os.path.exists(os.path.join(out, "summary.json"))):
        shutil.rmtree(out, ignore_errors=True)
        summary, wall, err = run_frugal(frugal, pristine, args.seed, args.budget, [], "tests", work, out)
        if summary is None:
            sys.exit(f"frugal run failed:\n{err}")
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    wall_file = os.path.join(out, "bench-wall.json")
    if time.time() - t < 1:  # a reused suite: its run's wall time, when that run recorded it
        walls["frugal_run"] = None
        if os.path.exists(wall_file):
            with open(wall_file) as f:
                walls["frugal_run"] = json.load(f)["frugal_run"]
    else:
        walls["frugal_run"] = round(time.time() - t, 1)
        with open(wall_file, "w") as f:
            json.dump({"frugal_run": walls["frugal_run"]}, f)
    walls["frugal_run_phases"] = round(sum(summary["seconds"].values()), 1)
    callables = supported_callables(work)

    # 2. The mutants.
    t = time.time()
    mutants = list_mutants(pristine, os.path.join(root, "list"))
    for m in mutants:
        m["supported"] = in_supported(m, callables)
    walls["list"] = round(time.time() - t, 1)
    in_scope = [m for m in mutants if m["supported"] or args.scope == "all"]
    chosen = sample(in_scope, args.sample)
    log(f"{len(mutants)} mutants, {sum(m['supported'] for m in mutants)} in supported functions; "
        f"running {len(chosen)} ({args.scope}{', sampled' if len(chosen) < len(in_scope) else ''})")

    # 3. frugal check, one commit per mutant.
    t = time.time()
    check_baseline, frugal_v = frugal_check_all(frugal, pristine, suite, chosen, root)
    walls["frugal_check"] = round(time.time() - t, 1)

    # 4. cargo-mutants on the same suite; 5. on the crate's own tests.
    with_suite = standalone(src, os.path.join(root, "with-suite"), suite=suite)
    t = time.time()
    cm_gen = cargo_mutants(with_suite, chosen, root, "generated", ["--test", "frugal_generated"])
    walls["cargo_mutants_generated"] = round(time.time() - t, 1)
    cm_own = None
    if not args.skip_own:
        t = time.time()
        cm_own = cargo_mutants(pristine, chosen, root, "own", [])
        walls["cargo_mutants_own"] = round(time.time() - t, 1)
    walls["total"] = round(time.time() - started, 1)

    names_all = [m["name"] for m in chosen]
    names_sup = [m["name"] for m in chosen if m["supported"]]
    scores = {}
    for label, v in (("frugal_check_generated", frugal_v),
                     ("cargo_mutants_generated", cm_gen["verdicts"]),
                     ("cargo_mutants_own", cm_own["verdicts"] if cm_own else None)):
        if v is not None:
            scores[label] = {"all": score(v, names_all), "supported": score(v, names_sup)}
    rows, agree = [], collections.Counter()
    for m in chosen:
        f = frugal_v.get(m["name"], {}).get("verdict", ERROR)
        c = cm_gen["verdicts"].get(m["name"], {}).get("verdict", ERROR)
        o = cm_own["verdicts"].get(m["name"], {}).get("verdict", ERROR) if cm_own else None
        agree[(f, c)] += 1
        rows.append({"name": m["name"], "function": (m.get("function") or {}).get("function_name"),
                     "supported": m["supported"], "frugal_check": frugal_v.get(m["name"]),
                     "cargo_mutants_generated": cm_gen["verdicts"].get(m["name"]),
                     "cargo_mutants_own": cm_own["verdicts"].get(m["name"]) if cm_own else None,
                     "agree": detected(f) == detected(c), "own": o})
    result = {
        "crate": name, "version": version, "budget": args.budget, "seed": args.seed,
        "scope": args.scope, "sample": args.sample, "frugal_commit": frugal_commit(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
        "cargo_mutants": subprocess.run(["cargo", "mutants", "--version"], capture_output=True,
                                        text=True).stdout.strip(),
        "command": " ".join(["python3", "bench/mutants.py"] + sys.argv[1:]),
        "mutants_listed": len(mutants),
        "mutants_in_supported": sum(m["supported"] for m in mutants),
        "mutants_run": len(chosen),
        "listed_by_function": collections.Counter(
            (m.get("function") or {}).get("function_name", "(none)") for m in mutants).most_common(),
        "supported_callables": [f"{f}:{line} {n}" for f, n, line in callables],
        "suite": {"tests_emitted": summary.get("tests_emitted"), "goals": summary.get("goals")},
        "frugal_check_baseline": check_baseline,
        "cargo_mutants_baselines": {"generated": cm_gen["baseline"],
                                    "own": cm_own["baseline"] if cm_own else None},
        "scores": scores,
        "agreement": {f"{f} / {c}": n for (f, c), n in sorted(agree.items())},
        "disagreements": [r for r in rows if not r["agree"]],
        "walls": walls,
        "mutants": rows,
    }
    recheck_unviable(result, root, pristine, with_suite)
    text = markdown(result)
    print(text)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(result, f, indent=1)
    if args.md_out:
        with open(args.md_out, "w") as f:
            f.write(text)
    problems = [r["name"] for r in rows if not r["agree"]]
    if check_baseline["verdict"] != MISSED:
        problems.append("frugal check fails on the pristine crate")
    for p in problems:
        log(f"DISAGREEMENT or failure: {p}")
    sys.exit(1 if problems else 0)


def recheck_unviable(result, root, pristine, with_suite):
    """A mutant one judge found unviable while another built it: the build failed for a reason
    of its own (offline cargo failing to resolve a dependency in the shared registry cache, say).
    cargo-mutants runs it once more; the second verdict goes to `rechecks`, beside the first
    (the scores keep the first)."""
    judges = {"cargo_mutants_generated": (with_suite, "generated", ["--test", "frugal_generated"]),
              "cargo_mutants_own": (pristine, "own", [])}
    rechecks = result.setdefault("rechecks", [])
    for key, (copy, label, test_args) in judges.items():
        odd = [row for row in result["mutants"] if (row.get(key) or {}).get("verdict") == UNVIABLE
               and any((row.get(k) or {}).get("verdict") not in (UNVIABLE, None)
                       for k in ("frugal_check", "cargo_mutants_generated", "cargo_mutants_own"))]
        if not odd:
            continue
        again = cargo_mutants(copy, [{"name": row["name"]} for row in odd], root, f"{label}-recheck", test_args)
        for row in odd:
            rechecks.append({"name": row["name"], "judge": key, "first": row[key]["verdict"],
                             "first_reason": row[key].get("reason"),
                             "again": again["verdicts"].get(row["name"], {}).get("verdict", ERROR)})


def fmt_score(s):
    if s["score"] is None:
        return "n/a"
    return f"{100 * s['score']:.1f}% ({s[CAUGHT] + s[TIMEOUT]}/{s[CAUGHT] + s[TIMEOUT] + s[MISSED]})"


def markdown(r):
    m = r["machine"]
    out = [
        f"# Detection power of `frugal check` on cargo-mutants' mutants",
        "",
        f"Crate: {r['crate']} {r['version']}. Suite: `frugal run --budget {r['budget']} --seed {r['seed']}` "
        f"({r['suite']['tests_emitted']} tests). {r['cargo_mutants']}.",
        f"Command: `{r['command']}`. frugal commit {r['frugal_commit']}, {r['date']}.",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['os']}, {m['rustc']}.",
        "",
        f"cargo-mutants lists {r['mutants_listed']} mutants of the crate, {r['mutants_in_supported']} of "
        f"them in the {len(r['supported_callables'])} functions frugal supports (the callables of the "
        f"run's model). Scope run: {r['scope']}"
        + (f", {r['mutants_run']} of them evenly spaced in source order" if r["sample"] else f", {r['mutants_run']} mutants")
        + ". Score = (caught + timeout) / (caught + timeout + missed); unviable mutants (the crate "
          "does not compile) are left out, as cargo-mutants does.",
        "",
        "How: a git repository holds the pristine crate as its base commit; per mutant, one commit "
        "applies cargo-mutants' diff on the base and `frugal check <repo> --suite frugal_generated.rs "
        "--json` (frugal's sandbox, one work dir, incremental builds) judges it: exit 1 caught, 0 "
        "missed, 2 with \"does not build\" unviable. cargo-mutants judges the same mutants (`-F` with "
        "each name) on a copy of the crate with the suite as `tests/frugal_generated.rs` "
        "(`cargo mutants -j 1 -- --test frugal_generated`), and on the pristine crate with its own "
        "tests; both inside `unshare --mount --net --pid` with every mount read-only but a scratch "
        "directory, offline after `cargo fetch`. Listing (`cargo mutants --list --json --diff`) only "
        "spawns `cargo locate-project` and `cargo metadata --no-deps` (no build, no crate code; "
        "checked with strace); it runs confined all the same.",
        "",
        "## Scores",
        "",
        "| suite, judged by | scope | mutants | caught | timeout | missed | unviable | error | score |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    labels = {"frugal_check_generated": "generated suite, `frugal check`",
              "cargo_mutants_generated": "generated suite, cargo-mutants",
              "cargo_mutants_own": "own suite, cargo-mutants"}
    for key, label in labels.items():
        for scope in ("all", "supported"):
            s = r["scores"].get(key, {}).get(scope)
            if s:
                scope_label = "all run" if scope == "all" else "in supported functions"
                out.append(f"| {label} | {scope_label} | {s['mutants']} | {s[CAUGHT]} | {s[TIMEOUT]} | "
                           f"{s[MISSED]} | {s[UNVIABLE]} | {s[ERROR]} | {fmt_score(s)} |")
    b = r["frugal_check_baseline"]
    cb = r["cargo_mutants_baselines"]
    out += ["", f"Baselines (the unmutated crate): `frugal check` {'passes' if b['verdict'] == MISSED else b['verdict']} "
            f"({b.get('kinds')}), cargo-mutants on the generated suite {cb['generated']}, on the own "
            f"suite {cb['own']}."]
    out += ["", "## Agreement (`frugal check` / cargo-mutants, same suite)", "",
            "| frugal check | cargo-mutants | mutants |", "|---|---|---|"]
    for k, n in r["agreement"].items():
        f, c = k.split(" / ")
        out.append(f"| {f} | {c} | {n} |")
    dis = r["disagreements"]
    out += ["", f"Disagreements (caught or timeout vs missed): {len(dis)}."]
    rechecks = r.get("rechecks") or []
    if rechecks:
        out += ["", "Rechecks: mutants one judge found unviable while another built them, run once more by "
                "cargo-mutants (the scores above keep the first verdict):"]
        out += [f"- `{c['name']}`, {c['judge']}: {c['first']} first"
                + (f" (`{c['first_reason']}`)" if c.get("first_reason") else "") + f", {c['again']} again"
                for c in rechecks]
    for d in dis:
        out.append(f"- `{d['name']}`: frugal check {d['frugal_check']}, cargo-mutants "
                   f"{d['cargo_mutants_generated']}")
    kinds = collections.Counter(
        " + ".join(sorted(k for k in (row["frugal_check"] or {}).get("kinds", {}) if k not in ("passed", "flaky")))
        for row in r["mutants"] if (row["frugal_check"] or {}).get("verdict") in (CAUGHT, TIMEOUT))
    out += ["", "What `frugal check` reported on the mutants it caught (the kinds of its failing tests):", "",
            "| failing outcome kinds | mutants |", "|---|---|"]
    for k, n in kinds.most_common():
        out.append(f"| {k} | {n} |")
    if r["scores"].get("cargo_mutants_own"):
        both = collections.Counter()
        for row in r["mutants"]:
            g = detected((row["cargo_mutants_generated"] or {}).get("verdict", ERROR))
            o = detected((row["cargo_mutants_own"] or {}).get("verdict", ERROR))
            if g in ("caught", "missed") and o in ("caught", "missed"):
                both[(g, o)] += 1
        out += ["", "## Generated suite vs the crate's own suite (cargo-mutants' verdicts, viable mutants)", "",
                "| generated suite | own suite | mutants |", "|---|---|---|"]
        for (g, o), n in sorted(both.items()):
            out.append(f"| {g} | {o} | {n} |")
        only_own = [row["name"] for row in r["mutants"]
                    if detected((row["cargo_mutants_generated"] or {}).get("verdict")) == "missed"
                    and detected((row["cargo_mutants_own"] or {}).get("verdict")) == "caught"]
        if only_own:
            out += ["", f"Caught by the own suite only ({len(only_own)}):"]
            out += [f"- `{n}`" for n in only_own[:40]]
            if len(only_own) > 40:
                out.append(f"- ... and {len(only_own) - 40} more (bench/mutants.json)")
    w = r["walls"]
    per = (w["frugal_check"] / r["mutants_run"]) if r["mutants_run"] else 0
    out += ["", "## Wall times (seconds)", "",
            "| phase | s |", "|---|---|"]
    for k, v in w.items():
        out.append(f"| {k} | {v} |")
    out += ["", "frugal_run: the wall time of `frugal run` (frugal_run_phases: its phases as its summary "
            "times them); frugal_check: the pristine crate's check and one commit and check per mutant.",
            "", f"`frugal check` per mutant (build included): {per:.1f} s on average.",
            "", "## Mutants listed, by function", "",
            "| function | mutants |", "|---|---|"]
    for fn, n in r["listed_by_function"]:
        out.append(f"| `{fn}` | {n} |")
    out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    main()
