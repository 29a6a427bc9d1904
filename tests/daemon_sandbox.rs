//! frugald end to end with a hostile repository (`examples/hostile-daemon`): registered next to
//! `examples/numeric`, its job's code tries to read the daemon's API token, to write into the
//! state dir and to write into the other repository's checkout, snapshot and work dirs. The
//! sandbox must stop every attempt: the token's text appears in no answer, stored suite or file
//! the daemon wrote, nothing new appears where the writes aimed, the other repository's dirs are
//! unchanged, and the other repository's next job still succeeds.
//!
//! The daemon's config, state dir and both checkouts sit in one directory holding a `Cargo.toml`
//! (as when frugald is run from a project): the crate's readable workspace must still stop at
//! its own snapshot.
//!
//! Develop and rerun this test inside a throwaway mount namespace (`/` read-only, `/tmp` a
//! tmpfs, the target dir bound writable): should confinement ever break, the crate only reaches
//! the test's temp dir.

mod common;

use common::sandbox_holds;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use frugal_testkit::{Daemon, binaries, example_repo, git, run};
use serde_json::Value;

const JOB_LIMIT: Duration = Duration::from_secs(300);
/// `hostile_daemon::MARK`: the name of every file the crate's attacks create.
const MARK: &str = "hostile-daemon-was-here";

fn config(dir: &Path) -> PathBuf {
    // One job at a time: the hostile job runs after numeric's work dirs exist.
    let path = frugal_testkit::daemon_config(
        dir,
        "[search]\nbudget = \"1000\"\n\n[executor]\nworkers = 2\n",
    );
    let text = std::fs::read_to_string(&path).expect("read the config back");
    std::fs::write(&path, format!("{text}max_concurrent_jobs = 1\n")).expect("write the config");
    path
}

fn register(d: &Daemon, repo: &Path) -> u64 {
    let body = serde_json::json!({ "path": repo }).to_string();
    let r = d.post("/v1/repos", Some(&d.token), &body).unwrap();
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["id"].as_u64().unwrap()
}

/// Triggers a job for every crate of `repo` at HEAD; returns the job ids.
fn trigger(d: &Daemon, repo: u64) -> Vec<u64> {
    let r = d
        .post(&format!("/v1/repos/{repo}/trigger"), Some(&d.token), "{}")
        .unwrap();
    assert!(r.status == 200 || r.status == 202, "{}", r.body);
    let jobs: Vec<u64> = r.json()["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["job"].as_u64().unwrap())
        .collect();
    assert!(!jobs.is_empty(), "{}", r.body);
    jobs
}

fn assert_succeeded(d: &Daemon, run: &Value) {
    assert_eq!(
        run["status"],
        "succeeded",
        "{run}\n--- daemon log ---\n{}",
        d.log_text()
    );
}

/// Every file and dir under `dir` with its size and mtime.
fn manifest(dir: &Path) -> BTreeMap<PathBuf, (u64, SystemTime)> {
    let mut m = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let meta = e.metadata().unwrap();
            m.insert(e.path(), (meta.len(), meta.modified().unwrap()));
            if meta.is_dir() {
                stack.push(e.path());
            }
        }
    }
    m
}

/// Every file under `dir` (symlinks not followed).
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(t) if t.is_file() => out.push(e.path()),
                _ => {}
            }
        }
    }
    out
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    let first = needle[0];
    hay.iter()
        .enumerate()
        .filter(|(_, b)| **b == first)
        .any(|(i, _)| hay[i..].starts_with(needle))
}

#[test]
fn a_hostile_repository_can_neither_read_the_token_nor_write_outside_its_job() {
    if !sandbox_holds("a_hostile_repository_can_neither_read_the_token_nor_write_outside_its_job") {
        return;
    }
    let bins = binaries();
    let tmp = tempfile::Builder::new()
        .prefix("frugal-daemon-sandbox")
        .tempdir()
        .unwrap();
    let top = tmp.path().canonicalize().unwrap();
    // A project around the daemon: its `Cargo.toml` is an ancestor of every snapshot.
    std::fs::write(
        top.join("Cargo.toml"),
        "[package]\nname = \"host-project\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::create_dir(top.join("src")).unwrap();
    std::fs::write(top.join("src/lib.rs"), "").unwrap();
    let cfg = config(&top);
    let state = top.join("state");
    let numeric = top.join("numeric");
    let hostile = top.join("hostile");
    example_repo("numeric", &numeric).unwrap();
    example_repo("hostile-daemon", &hostile).unwrap();
    let d = Daemon::start(&bins.frugald, &cfg, &state).unwrap();
    let token_file = state.join("token");
    assert!(d.token.len() >= 16, "token `{}`", d.token);

    let num_id = register(&d, &numeric);
    let host_id = register(&d, &hostile);
    assert_ne!(num_id, host_id);
    let num_work = state.join("work").join(format!("repo-{num_id}"));

    // The other repository's job first, so its snapshot and work dirs exist.
    let first = common::ended_run(&d, JOB_LIMIT, num_id, trigger(&d, num_id)[0]);
    assert_succeeded(&d, &first);
    assert!(num_work.join("numeric/src/Cargo.toml").is_file());

    // The hostile crate learns its targets from `paths.txt`, committed.
    let paths = format!(
        "token={}\nstate={}\nother={}\nother={}\nother={}\nother={}\n",
        token_file.display(),
        state.display(),
        numeric.display(),
        num_work.display(),
        num_work.join("numeric/src").display(),
        num_work.join("numeric/pipeline").display(),
    );
    std::fs::write(hostile.join("paths.txt"), paths).unwrap();
    run(git(&hostile).args(["commit", "-q", "-am", "aim at this daemon"])).unwrap();

    let numeric_before = manifest(&numeric);
    let num_work_before = manifest(&num_work);
    let token_before = std::fs::read(&token_file).unwrap();

    let host_run = common::ended_run(&d, JOB_LIMIT, host_id, trigger(&d, host_id)[0]);
    assert_succeeded(&d, &host_run);
    let run_id = host_run["id"].as_u64().unwrap();

    // Nothing written where the crate aimed.
    assert_eq!(
        manifest(&numeric),
        numeric_before,
        "the other checkout changed"
    );
    assert_eq!(
        manifest(&num_work),
        num_work_before,
        "the other repository's work dir changed"
    );
    assert_eq!(std::fs::read(&token_file).unwrap(), token_before);
    let marks: Vec<PathBuf> = files(&top)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == MARK))
        .collect();
    assert!(marks.is_empty(), "the crate wrote {marks:?}");

    // The suite called every attack; none of what it saw is the token.
    let source = d
        .get(&format!("/v1/repos/{host_id}/suites/best/source"))
        .unwrap();
    assert_eq!(source.status, 200, "{}", source.body);
    for f in ["read_token", "write_state", "write_other_repo"] {
        assert!(
            source.body.contains(f),
            "the search never called {f}:\n{}",
            source.body
        );
    }
    assert!(
        source.body.contains("\"error: "),
        "read_token did not fail:\n{}",
        source.body
    );
    let token = d.token.as_bytes();
    let mut answers = Vec::new();
    for path in [
        format!("/v1/repos/{host_id}"),
        format!("/v1/repos/{host_id}/suites"),
        format!("/v1/repos/{host_id}/suites/best"),
        format!("/v1/repos/{host_id}/suites/best/source"),
        format!("/v1/runs?repo={host_id}"),
        format!("/v1/runs/{run_id}"),
        format!("/v1/suites/{}/source", host_run["suite"]),
        format!("/v1/suites/{}", host_run["suite"]),
        "/v1/jobs".to_string(),
        "/v1/status".to_string(),
        "/metrics".to_string(),
    ] {
        let a = d.get(&path).unwrap();
        assert!(
            !contains(a.body.as_bytes(), token),
            "the token is in the answer to {path}"
        );
        answers.push((path, a.status));
    }
    let mut scanned = 0;
    for f in files(&top) {
        if f == token_file {
            continue;
        }
        let bytes = std::fs::read(&f).unwrap_or_default();
        assert!(!contains(&bytes, token), "the token is in {}", f.display());
        scanned += 1;
    }
    assert!(
        !contains(d.log_text().as_bytes(), token),
        "the token is logged"
    );

    // The other repository's next job still runs to the end.
    let lib = numeric.join("src/lib.rs");
    let mut text = std::fs::read_to_string(&lib).unwrap();
    text.push_str("// after the hostile job\n");
    std::fs::write(&lib, text).unwrap();
    run(git(&numeric).args(["commit", "-q", "-am", "after the hostile job"])).unwrap();
    let second = common::ended_run(&d, JOB_LIMIT, num_id, trigger(&d, num_id)[0]);
    assert_succeeded(&d, &second);
    let best = d
        .get(&format!("/v1/repos/{num_id}/suites/best"))
        .unwrap()
        .json();
    assert!(best["test_count"].as_u64().unwrap() > 0, "{best}");

    eprintln!(
        "hostile suite:\n{}\nanswers: {answers:?}\nscanned {scanned} files",
        source.body
    );
}
