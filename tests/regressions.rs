//! The regression service end to end: the real `frugald` watches a git repository made from
//! `examples/numeric`; a first commit gets a suite; a second commit changes what `grade`
//! returns and renames `collatz_steps`. The second job's first phase runs the first suite
//! against it, and the change shows up the same in the API's report, in `frugal check` (exit 1,
//! the value diff, the test body) and in its JUnit file. Under `regressions.policy = "hold"` the
//! first suite stays the best one until `frugal accept`, after which `frugal check` passes. The
//! second job's search starts from the first suite's tests that still apply.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use frugal_testkit::{Daemon, binaries, example_repo, git, run};
use serde_json::Value;

const JOB_LIMIT: Duration = Duration::from_secs(400);

fn frugal(cfg: &Path, cwd: &Path) -> Command {
    let mut c = Command::new(&binaries().frugal);
    c.arg("--config").arg(cfg).current_dir(cwd);
    c
}

fn head(repo: &Path) -> String {
    run(git(repo).args(["rev-parse", "HEAD"]))
        .unwrap()
        .trim()
        .to_string()
}

/// Triggers `commit`, waits until its run succeeded (panics with the daemon's log if it
/// failed) and returns the run with its summary.
fn generate(d: &Daemon, cfg: &Path, repo: &Path, commit: &str) -> Value {
    run(frugal(cfg, repo).args(["trigger", "--commit", commit])).unwrap();
    d.wait_run(1, commit, JOB_LIMIT).unwrap()
}

fn best_commit(d: &Daemon) -> Value {
    d.get("/v1/repos/1/suites/best").unwrap().json()["commit"].clone()
}

#[test]
fn a_behaviour_change_is_reported_by_the_api_the_cli_and_junit_and_held_until_accepted() {
    if !common::sandbox_holds("regressions") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cfg = frugal_testkit::daemon_config(
        tmp.path(),
        "[search]\nbudget = \"3000\"\n\n[executor]\nworkers = 2\n\n\
         [regressions]\npolicy = \"hold\"\n",
    );
    let repo = tmp.path().join("numeric");
    example_repo("numeric", &repo).unwrap();
    let d = Daemon::start(&binaries().frugald, &cfg, &tmp.path().join("state")).unwrap();
    run(frugal(&cfg, tmp.path())
        .args(["repo", "add", "--no-hooks"])
        .arg(&repo))
    .unwrap();

    let first = head(&repo);
    generate(&d, &cfg, &repo, &first);
    let report = d
        .get(&format!("/v1/repos/1/commits/{first}/report"))
        .unwrap()
        .json();
    assert_eq!(report["changed"], 0, "{report}");
    assert!(
        report["crates"][0]["note"]
            .as_str()
            .is_some_and(|n| n.contains("no earlier suite")),
        "{report}"
    );

    // `grade` now answers 'E' where it answered 'F', and `collatz_steps` is renamed.
    let lib = repo.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    let changed = text
        .replacen("        'F'\n", "        'E'\n", 1)
        .replace("collatz_steps", "collatz_len");
    assert_ne!(changed, text);
    std::fs::write(&lib, changed).unwrap();
    run(git(&repo).args(["commit", "-q", "-am", "grade E, rename collatz"])).unwrap();
    let second = head(&repo);
    let second_run = generate(&d, &cfg, &repo, &second);

    // The search started from the first suite's tests: those calling the renamed function are
    // dropped with the reason, the others seed it.
    let seeding = &second_run["summary"]["pipeline"]["seeding"];
    assert!(seeding["resolved"].as_u64().unwrap() > 0, "{second_run}");
    assert!(
        seeding["dropped"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t.to_string().contains("collatz_steps")),
        "{second_run}"
    );

    // The API.
    let report = d
        .get(&format!("/v1/repos/1/commits/{}/report", &second[..8]))
        .unwrap()
        .json();
    assert_eq!(report["commit"], second.as_str());
    assert_eq!(report["gates"], true, "{report}");
    let krate = &report["crates"][0];
    assert_eq!(krate["baseline_commit"], first.as_str(), "{report}");
    assert_eq!(krate["held"], true, "{report}");
    let tests = krate["report"]["tests"].as_array().unwrap();
    let outcome = |kind: &str| {
        tests
            .iter()
            .filter(|t| t["outcome"]["kind"] == kind)
            .collect::<Vec<_>>()
    };
    let changed = outcome("changed");
    assert!(
        changed
            .iter()
            .any(|t| t["body"].as_str().unwrap().contains("grade(")),
        "a test of grade reports the change: {report}"
    );
    assert!(
        outcome("no_longer_compiles")
            .iter()
            .any(|t| t.to_string().contains("collatz_steps")),
        "the renamed function is named: {report}"
    );
    assert!(!outcome("passed").is_empty(), "{report}");
    // Held: the first suite is still the best one.
    assert_eq!(best_commit(&d), first.as_str());

    // The CLI gates and writes JUnit.
    let junit = tmp.path().join("junit.xml");
    let out = frugal(&cfg, &repo)
        .args(["check", "--commit", &second, "--junit"])
        .arg(&junit)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("'F'") && stdout.contains("'E'"), "{stdout}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    let failures = xml.matches("<failure").count();
    assert!(failures >= changed.len(), "{xml}");
    assert!(xml.contains("grade"), "{xml}");

    // Accepting makes the held suite the best one and CI passes.
    let out = run(frugal(&cfg, &repo).args(["accept", &second[..10]])).unwrap();
    assert!(out.contains("is now the best one"), "{out}");
    assert_eq!(best_commit(&d), second.as_str());
    let out = frugal(&cfg, &repo)
        .args(["check", "--commit", &second])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
