//! The whole system as a CI host runs it: the real `frugald` on 127.0.0.1 with a temporary state
//! dir, a git repository made from `examples/numeric`, registration through the `frugal` CLI
//! (which installs the hooks), a commit whose hook triggers a job, the best suite downloaded into
//! the repository and passing `cargo test`, then a `kill -9` while a job runs: after a restart
//! the job runs again and every stored suite is intact. Also the API's error answers.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use frugal_testkit::{Daemon, binaries, example_repo, git, run, wait_for};
use serde_json::Value;

const JOB_LIMIT: Duration = Duration::from_secs(300);

fn config(dir: &Path) -> std::path::PathBuf {
    frugal_testkit::daemon_config(
        dir,
        "[search]\nbudget = \"3000\"\n\n[executor]\nworkers = 2\n",
    )
}

fn frugal(cfg: &Path, cwd: &Path) -> Command {
    let mut c = Command::new(&binaries().frugal);
    c.arg("--config").arg(cfg).current_dir(cwd);
    c
}

fn commit_change(repo: &Path, line: &str) -> String {
    let lib = repo.join("src/lib.rs");
    let mut text = std::fs::read_to_string(&lib).unwrap();
    text.push_str(&format!("// {line}\n"));
    std::fs::write(&lib, text).unwrap();
    run(git(repo).args(["commit", "-q", "-am", line])).unwrap();
    run(git(repo).args(["rev-parse", "HEAD"]))
        .unwrap()
        .trim()
        .to_string()
}

/// The run of a commit, once it reaches one of `states`; panics with the daemon log if the run
/// failed and failure was not among them.
fn run_of(d: &Daemon, commit: &str, states: &[&str]) -> anyhow::Result<Option<Value>> {
    let runs = d.get("/v1/runs?repo=1")?.json();
    for r in runs.as_array().into_iter().flatten() {
        if r["commit"] != commit {
            continue;
        }
        let st = r["status"].as_str().unwrap_or("");
        if states.contains(&st) {
            return Ok(Some(r.clone()));
        }
        if st == "failed" && !r["error"].as_str().unwrap_or("").starts_with("interrupted") {
            panic!("run failed: {}\n--- daemon log ---\n{}", r, d.log_text());
        }
    }
    Ok(None)
}

fn suites(d: &Daemon) -> BTreeMap<u64, String> {
    let list = d.get("/v1/repos/1/suites").unwrap().json();
    list.as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let id = s["id"].as_u64().unwrap();
            let src = d.get(&format!("/v1/suites/{id}/source")).unwrap();
            assert_eq!(src.status, 200);
            (id, src.body)
        })
        .collect()
}

fn check_error_answers(d: &Daemon, repo: &Path) {
    let body = format!("{{\"path\": \"{}\"}}", repo.display());
    let r = d.post("/v1/repos", None, &body).unwrap();
    assert_eq!(r.status, 401, "{}", r.body);
    assert!(r.json()["error"].as_str().unwrap().contains("Bearer"));
    let r = d.post("/v1/repos/1/trigger", Some("wrong"), "{}").unwrap();
    assert_eq!(r.status, 401, "{}", r.body);
    let r = d.post("/v1/repos", Some(&d.token), "{\"path\": ").unwrap();
    assert_eq!(r.status, 400, "{}", r.body);
    let msg = r.json()["error"].as_str().unwrap().to_string();
    assert!(
        msg.starts_with("malformed JSON body: ") && msg.contains("line 1"),
        "{msg}"
    );
    let r = d.get("/v1/repos/999").unwrap();
    assert_eq!(r.status, 404, "{}", r.body);
    let r = d.post("/v1/repos/999/trigger", Some(&d.token), "").unwrap();
    assert_eq!(r.status, 404, "{}", r.body);
    let r = d.get("/v1/repos/999/suites/best").unwrap();
    assert_eq!(r.status, 404, "{}", r.body);
}

#[test]
fn a_commit_hook_yields_a_suite_that_passes_and_a_kill_9_loses_nothing() {
    let bins = binaries();
    let tmp = tempfile::tempdir().unwrap();
    let cfg = config(tmp.path());
    let state = tmp.path().join("state");
    let repo = tmp.path().join("numeric");
    example_repo("numeric", &repo).unwrap();
    let mut d = Daemon::start(&bins.frugald, &cfg, &state).unwrap();

    // Register through the CLI, which installs the hooks.
    let out = run(frugal(&cfg, tmp.path()).args(["repo", "add"]).arg(&repo)).unwrap();
    assert!(out.contains("registered repository 1"), "{out}");
    for h in ["post-commit", "post-merge", "post-receive"] {
        assert!(
            repo.join(".git/hooks").join(h).is_file(),
            "{h} missing:\n{out}"
        );
    }
    check_error_answers(&d, &repo);

    // A commit: the post-commit hook triggers a job.
    let first = commit_change(&repo, "first change");
    wait_for(
        "the hook's run to succeed",
        JOB_LIMIT,
        Duration::from_millis(500),
        || run_of(&d, &first, &["succeeded"]),
    )
    .unwrap();
    let best = d.get("/v1/repos/1/suites/best").unwrap();
    assert_eq!(best.status, 200, "{}", best.body);
    let best = best.json();
    assert!(best["test_count"].as_u64().unwrap() > 0, "{best}");
    assert_eq!(best["commit"], first.as_str());
    assert!(
        best["tests"][0]["goals"]
            .as_array()
            .is_some_and(|g| !g.is_empty()),
        "{best}"
    );

    // Download it into the repository and run it.
    let out =
        run(frugal(&cfg, &repo).args(["suite", "best", "--out", "tests/frugal_generated.rs"]))
            .unwrap();
    assert!(out.contains("wrote tests/frugal_generated.rs"), "{out}");
    let out = run(
        Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .current_dir(&repo)
            .env("CARGO_TARGET_DIR", tmp.path().join("user-target"))
            .args(["test", "--test", "frugal_generated"]),
    )
    .unwrap();
    assert!(
        out.contains("test result: ok.") && !out.contains(" 0 passed"),
        "{out}"
    );
    let status = run(frugal(&cfg, &repo).arg("status")).unwrap();
    assert!(status.contains("1 repositories"), "{status}");

    // kill -9 while a job runs; after a restart the job runs again and nothing stored is lost.
    run(git(&repo).args(["add", "tests/frugal_generated.rs"])).unwrap();
    let before = suites(&d);
    let second = commit_change(&repo, "second change");
    let interrupted = wait_for(
        "the second run to start",
        JOB_LIMIT,
        Duration::from_millis(50),
        || run_of(&d, &second, &["running"]),
    )
    .unwrap();
    d.kill9().unwrap();
    let d = Daemon::start(&bins.frugald, &cfg, &state).unwrap();
    let rerun = wait_for(
        "the re-run to succeed",
        JOB_LIMIT,
        Duration::from_millis(500),
        || run_of(&d, &second, &["succeeded"]),
    )
    .unwrap();
    assert_ne!(rerun["id"], interrupted["id"]);
    assert_eq!(rerun["job"], interrupted["job"], "the same job runs again");
    let old = d
        .get(&format!("/v1/runs/{}", interrupted["id"]))
        .unwrap()
        .json();
    assert_eq!(old["status"], "failed", "{old}");
    assert!(
        old["error"].as_str().unwrap().starts_with("interrupted"),
        "{old}"
    );
    let after = suites(&d);
    for (id, src) in &before {
        assert_eq!(
            after.get(id),
            Some(src),
            "suite {id} changed or vanished after kill -9"
        );
    }
    assert!(after.len() > before.len(), "the re-run stored a suite");
    drop(d);

    // SIGTERM while a job runs: a clean exit within the timeout (1 s here), the job checkpointed
    // and run again at the next start.
    let mut d = Daemon::start_with(
        &bins.frugald,
        &cfg,
        &state,
        &["--shutdown-timeout", "1"],
        &[],
    )
    .unwrap();
    let third = commit_change(&repo, "third change");
    let stopped = wait_for(
        "the third run to start",
        JOB_LIMIT,
        Duration::from_millis(50),
        || run_of(&d, &third, &["running"]),
    )
    .unwrap();
    let (code, took) = d.terminate(Duration::from_secs(15)).unwrap();
    let log = d.log_text();
    assert_eq!(code, Some(0), "{log}");
    assert!(took < Duration::from_secs(3), "{took:?}\n{log}");
    let d = Daemon::start(&bins.frugald, &cfg, &state).unwrap();
    let old = d
        .get(&format!("/v1/runs/{}", stopped["id"]))
        .unwrap()
        .json();
    if old["status"] == "failed" {
        let e = old["error"].as_str().unwrap();
        assert!(
            e.starts_with("interrupted by a daemon shutdown"),
            "{old}\n{log}"
        );
    } else {
        // It may have finished within the grace period; then it must have stored its suite.
        assert_eq!(old["status"], "succeeded", "{old}\n{log}");
    }
    wait_for(
        "the third commit's suite",
        JOB_LIMIT,
        Duration::from_millis(500),
        || run_of(&d, &third, &["succeeded"]),
    )
    .unwrap();
    eprintln!(
        "--- daemon log of the SIGTERM ---\n{log}\n--- after the restart ---\n{}",
        d.log_text()
    );
}

/// `search.mutants = "strong"`: the job's search has frugal's own mutants as goals until killed,
/// and the stored suite carries its mutation score, which the API and the suite's page show.
#[test]
fn with_strong_mutants_the_stored_suite_carries_its_mutation_score() {
    let bins = binaries();
    let tmp = tempfile::tempdir().unwrap();
    let cfg = frugal_testkit::daemon_config(
        tmp.path(),
        "[search]\nbudget = \"3000\"\nmutants = \"strong\"\n\n[executor]\nworkers = 2\n",
    );
    let repo = tmp.path().join("numeric");
    example_repo("numeric", &repo).unwrap();
    let d = Daemon::start(&bins.frugald, &cfg, &tmp.path().join("state")).unwrap();
    let out = run(frugal(&cfg, tmp.path()).args(["repo", "add"]).arg(&repo)).unwrap();
    assert!(out.contains("registered repository 1"), "{out}");
    let commit = commit_change(&repo, "a change");
    wait_for(
        "the hook's run to succeed",
        JOB_LIMIT,
        Duration::from_millis(500),
        || run_of(&d, &commit, &["succeeded"]),
    )
    .unwrap();
    let best = d.get("/v1/repos/1/suites/best").unwrap();
    assert_eq!(best.status, 200, "{}", best.body);
    let best = best.json();
    let m = &best["mutation"];
    let (mutants, killed) = (
        m["mutants"].as_u64().unwrap(),
        m["killed"].as_u64().unwrap(),
    );
    assert!(mutants > 50 && killed > 0 && killed <= mutants, "{best}");
    assert_eq!(
        killed + m["survived"].as_u64().unwrap() + m["not_infected"].as_u64().unwrap(),
        mutants,
        "{best}"
    );
    let page = d
        .get(&format!("/ui/suites/{}", best["id"].as_u64().unwrap()))
        .unwrap();
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains("id=\"mutation\"")
            && page.body.contains(&format!("{killed} of {mutants}")),
        "{}",
        page.body
    );
}

/// `mutation.survivors = true`: the job runs cargo-mutants on the crate's own suite (confined),
/// and the mutant that suite misses (`x * 2` as `x + 2` agrees at 2) becomes a target of the
/// search; the run's summary says how many there were and that the new suite kills it.
#[test]
fn the_own_suites_survivors_become_the_jobs_targets() {
    assert!(
        cargo_mutants_installed(),
        "cargo-mutants is not installed: `cargo install --locked cargo-mutants` (./test does)"
    );
    let bins = binaries();
    let tmp = tempfile::tempdir().unwrap();
    let cfg = frugal_testkit::daemon_config(
        tmp.path(),
        "[search]\nbudget = \"3000\"\n\n[mutation]\nsurvivors = true\n",
    );
    let repo = tmp.path().join("doubler");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(
        repo.join("Cargo.toml"),
        "[package]\nname = \"doubler\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
    )
    .unwrap();
    std::fs::write(
        repo.join("src/lib.rs"),
        "pub fn double(x: u32) -> u32 {\n    x * 2\n}\n\n#[cfg(test)]\nmod tests {\n    \
         #[test]\n    fn two() {\n        assert_eq!(super::double(2), 4);\n    }\n}\n",
    )
    .unwrap();
    run(git(&repo).args(["init", "-q", "-b", "main"])).unwrap();
    run(git(&repo).args(["add", "-A"])).unwrap();
    run(git(&repo).args(["commit", "-q", "-m", "initial"])).unwrap();
    let d = Daemon::start(&bins.frugald, &cfg, &tmp.path().join("state")).unwrap();
    let record = registered_run(&d, &cfg, tmp.path(), &repo);
    let summary = &record["summary"];
    assert_eq!(summary["own_mutants"]["survivors"], 1, "{summary:#}");
    let verdicts = &summary["pipeline"]["survivors"];
    assert_eq!(verdicts["survivors"], 1, "{verdicts:#}");
    assert_eq!(verdicts["killed"], 1, "{verdicts:#}");
    let first = &verdicts["verdicts"][0];
    assert!(
        first["name"]
            .as_str()
            .unwrap_or("")
            .contains("replace * with + in double"),
        "{first:#}"
    );
}

/// `jobs.ci_cost = true`: the job measures what CI pays for its suite and the crate's own
/// tests; the run's summary carries the figures and the suite's page shows them side by side.
#[test]
fn with_ci_cost_the_run_and_the_suite_page_say_what_ci_pays() {
    let bins = binaries();
    let tmp = tempfile::tempdir().unwrap();
    let cfg = frugal_testkit::daemon_config(
        tmp.path(),
        "[search]\nbudget = \"3000\"\n\n[executor]\nworkers = 2\n\n[jobs]\nci_cost = true\n",
    );
    let repo = tmp.path().join("numeric");
    example_repo("numeric", &repo).unwrap();
    let d = Daemon::start(&bins.frugald, &cfg, &tmp.path().join("state")).unwrap();
    let record = registered_run(&d, &cfg, tmp.path(), &repo);
    let ci = &record["summary"]["pipeline"]["ci_cost"];
    for side in ["generated", "own"] {
        let c = &ci[side];
        assert!(
            c["build_clean_seconds"].as_f64().unwrap_or(0.0) > 0.0,
            "{ci:#}"
        );
        assert_eq!(c["cargo_test"]["passed"], true, "{ci:#}");
    }
    let suite = record["suite"].as_u64().expect("the run stored a suite");
    let page = d.get(&format!("/ui/suites/{suite}")).unwrap();
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains("id=\"ci-cost\"")
            && page.body.contains("What CI pays")
            && page.body.contains("own tests"),
        "{}",
        page.body
    );
}

/// Registers `repo` (the daemon's first), commits a change, and returns the record of the run
/// its hook triggered, once it succeeded.
fn registered_run(d: &Daemon, cfg: &Path, cwd: &Path, repo: &Path) -> Value {
    let out = run(frugal(cfg, cwd).args(["repo", "add"]).arg(repo)).unwrap();
    assert!(out.contains("registered repository 1"), "{out}");
    let commit = commit_change(repo, "a change");
    let listed = wait_for(
        "the hook's run to succeed",
        JOB_LIMIT,
        Duration::from_millis(500),
        || run_of(d, &commit, &["succeeded"]),
    )
    .unwrap();
    d.get(&format!("/v1/runs/{}", listed["id"].as_u64().unwrap()))
        .unwrap()
        .json()
}

fn cargo_mutants_installed() -> bool {
    Command::new("cargo")
        .args(["mutants", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
}
