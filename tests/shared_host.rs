//! frugald on a shared CI host that runs for months (issue 15, the operations half): a job
//! that hangs is stopped at `jobs.max_seconds` with its processes and its slot freed; a stuck
//! runner stops the systemd watchdog pings; a repository owned by another user is usable
//! (`safe.directory`); garbage collection deletes what retention no longer keeps and reports it
//! in `/metrics`; removing a repository removes its data.

mod common;

use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use frugal_testkit::{Daemon, binaries, daemon_config, example_repo, git, run, wait_for};
use serde_json::Value;

const JOB_LIMIT: Duration = Duration::from_secs(300);

fn trigger(d: &Daemon, repo: u64) -> Value {
    let r = d
        .post(&format!("/v1/repos/{repo}/trigger"), Some(&d.token), "{}")
        .unwrap();
    assert_eq!(r.status, 202, "{}", r.body);
    r.json()
}

/// The runs of a repository, newest first.
fn runs(d: &Daemon, repo: u64) -> Vec<Value> {
    let r = d.get(&format!("/v1/runs?repo={repo}")).unwrap();
    r.json().as_array().cloned().unwrap_or_default()
}

fn run_in(d: &Daemon, repo: u64, states: &[&str]) -> anyhow::Result<Option<Value>> {
    Ok(runs(d, repo)
        .into_iter()
        .find(|r| states.contains(&r["status"].as_str().unwrap_or(""))))
}

/// Live processes with an argument under `dir`.
fn processes_under(dir: &Path) -> Vec<u32> {
    let needle = dir.as_os_str().as_encoded_bytes().to_vec();
    frugal_testkit::processes(|argv| {
        argv.iter()
            .any(|a| a.windows(needle.len()).any(|w| w == needle.as_slice()))
    })
}

#[test]
fn a_hanging_job_is_stopped_at_max_seconds_with_its_processes_and_its_slot_freed() {
    let Some(tmp) = common::hostile_scratch("max_seconds") else {
        return;
    };
    let cfg = daemon_config(
        tmp.path(),
        "[jobs]\nmax_seconds = 8\n\n[regressions]\ncheck = false\n",
    );
    let state = tmp.path().join("state");
    let (a, b) = (tmp.path().join("hang-a"), tmp.path().join("hang-b"));
    example_repo("hostile-hang", &a).unwrap();
    example_repo("hostile-hang", &b).unwrap();
    let d = Daemon::start(&binaries().frugald, &cfg, &state).unwrap();
    let (ra, rb) = (
        common::register(&d, &a, "hostile-hang"),
        common::register(&d, &b, "hostile-hang"),
    );
    trigger(&d, ra);
    trigger(&d, rb);
    // One job at a time: a's runs (its build script never ends), b waits for the slot.
    let started = Instant::now();
    let failed = wait_for(
        "a's job to be stopped",
        Duration::from_secs(60),
        Duration::from_millis(200),
        || run_in(&d, ra, &["failed"]),
    )
    .unwrap_or_else(|e| panic!("{e}\n--- daemon log ---\n{}", d.log_text()));
    let took = started.elapsed();
    let error = failed["error"].as_str().unwrap_or("");
    assert!(error.contains("jobs.max_seconds (8 s)"), "{failed}");
    assert!(took < Duration::from_secs(30), "stopped after {took:?}");
    let work_a = state.join("work").join(format!("repo-{ra}"));
    wait_for(
        "a's processes to be gone",
        Duration::from_secs(10),
        Duration::from_millis(200),
        || Ok(processes_under(&work_a).is_empty().then_some(())),
    )
    .unwrap_or_else(|e| panic!("{e}: {:?}", processes_under(&work_a)));
    // The slot went to b's job, which is stopped the same way.
    let b_run = wait_for(
        "b's job to start",
        Duration::from_secs(20),
        Duration::from_millis(200),
        || run_in(&d, rb, &["running", "failed"]),
    )
    .unwrap();
    assert_ne!(b_run["id"], failed["id"]);
    let jobs = d.get("/v1/jobs").unwrap().json();
    let a_job = jobs
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["repo"] == ra)
        .cloned()
        .unwrap();
    assert_eq!(a_job["state"], "failed", "{a_job}");
    let metrics = d.get("/metrics").unwrap().body;
    assert!(
        metrics.contains("frugal_jobs_finished_total{outcome=\"timed-out\"}"),
        "{metrics}"
    );
}

/// A `git` on PATH that hangs on the poll (`rev-parse --verify HEAD`) and is the real git
/// otherwise: the runner gets stuck in its poll, as on a hung network file system.
fn hanging_git(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let real = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let script = format!(
        "#!/bin/sh\ncase \"$*\" in *\"rev-parse --verify HEAD\"*) [ -e {flag} ] && sleep 600;; esac\nexec {real} \"$@\"\n",
        // In the wrapper's own dir: git runs confined, and a file elsewhere under /tmp is not
        // there for it (the sandbox hides /tmp but for the paths its policy names).
        flag = dir.join("bin/hang").display(),
        real = real.trim()
    );
    let git = bin.join("git");
    std::fs::write(&git, script).unwrap();
    run(std::process::Command::new("chmod").arg("+x").arg(&git)).unwrap();
    bin
}

/// Watchdog pings received on `sock` within `window` (those queued before it are dropped).
fn pings(sock: &UnixDatagram, window: Duration) -> usize {
    let mut buf = [0u8; 512];
    sock.set_nonblocking(true).unwrap();
    while sock.recv(&mut buf).is_ok() {}
    sock.set_nonblocking(false).unwrap();
    let mut n = 0;
    let end = Instant::now() + window;
    while Instant::now() < end {
        if let Ok(len) = sock.recv(&mut buf) {
            n += String::from_utf8_lossy(&buf[..len]).contains("WATCHDOG=1") as usize;
        }
    }
    n
}

#[test]
fn a_stuck_runner_stops_the_watchdog_pings() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("frugal.toml");
    std::fs::write(
        &cfg,
        "[daemon]\nlisten = \"127.0.0.1:0\"\nstate_dir = \"state\"\n\n\
         [scheduler]\npoll_interval = \"1s\"\n",
    )
    .unwrap();
    let state = tmp.path().join("state");
    let repo = tmp.path().join("numeric");
    example_repo("numeric", &repo).unwrap();
    let sock_path = tmp.path().join("notify.sock");
    let sock = UnixDatagram::bind(&sock_path).unwrap();
    sock.set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let path = format!(
        "{}:{}",
        hanging_git(tmp.path()).display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let env = [
        ("NOTIFY_SOCKET", sock_path.to_str().unwrap()),
        ("WATCHDOG_USEC", "2000000"),
        ("PATH", path.as_str()),
    ];
    let d = Daemon::start_with(&binaries().frugald, &cfg, &state, &[], &env).unwrap();
    common::register(&d, &repo, "numeric");
    assert!(
        pings(&sock, Duration::from_secs(3)) >= 2,
        "pings while healthy"
    );
    // From now on the runner's next poll hangs in git.
    std::fs::write(tmp.path().join("bin/hang"), "").unwrap();
    std::thread::sleep(Duration::from_secs(4));
    let stuck = pings(&sock, Duration::from_secs(4));
    assert_eq!(
        stuck,
        0,
        "pings while the runner is stuck\n{}",
        d.log_text()
    );
    assert!(
        d.get("/healthz").unwrap().status == 200,
        "HTTP still answers"
    );
    assert!(
        d.log_text().contains("has not gone round"),
        "{}",
        d.log_text()
    );
}

#[test]
fn a_repository_owned_by_another_user_registers_and_triggers() {
    // SAFETY: geteuid only reads the caller's id.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED: needs root to give the repository to another user");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cfg = daemon_config(tmp.path(), "");
    let state = tmp.path().join("state");
    let repo = tmp.path().join("numeric");
    example_repo("numeric", &repo).unwrap();
    run(std::process::Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(&repo))
    .unwrap();
    let d = Daemon::start(&binaries().frugald, &cfg, &state).unwrap();
    // git refuses a repository another user owns ("dubious ownership") unless trusted.
    let id = common::register(&d, &repo, "numeric");
    let t = trigger(&d, id);
    assert_eq!(t["commit"].as_str().map(str::len), Some(40), "{t}");
    let r = d
        .delete(&format!("/v1/repos/{id}"), Some(&d.token))
        .unwrap();
    assert_eq!(r.status, 204, "{}", r.body);
}

fn commit_change(repo: &Path, line: &str) {
    let lib = repo.join("src/lib.rs");
    let mut text = std::fs::read_to_string(&lib).unwrap();
    text.push_str(&format!("// {line}\n"));
    std::fs::write(&lib, text).unwrap();
    run(git(repo).args(["commit", "-q", "-am", line])).unwrap();
}

fn wait_succeeded(d: &Daemon, repo: u64, n: usize) {
    wait_for(
        "the runs to succeed",
        JOB_LIMIT,
        Duration::from_millis(500),
        || {
            let rs = runs(d, repo);
            if let Some(f) = rs.iter().find(|r| r["status"] == "failed") {
                panic!("run failed: {f}\n{}", d.log_text());
            }
            Ok((rs.iter().filter(|r| r["status"] == "succeeded").count() >= n).then_some(()))
        },
    )
    .unwrap();
}

fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in\n{text}"))
}

#[test]
fn gc_prunes_by_retention_and_removing_a_repository_removes_its_data() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = daemon_config(
        tmp.path(),
        "[search]\nbudget = \"2000\"\n\n[executor]\nworkers = 2\n\n\
         [retention]\nruns = 1\njobs = 1\ngc_interval = \"off\"\n",
    );
    let state = tmp.path().join("state");
    let repo = tmp.path().join("numeric");
    example_repo("numeric", &repo).unwrap();
    let d = Daemon::start(&binaries().frugald, &cfg, &state).unwrap();
    let id = common::register(&d, &repo, "numeric");
    trigger(&d, id);
    wait_succeeded(&d, id, 1);
    commit_change(&repo, "second");
    trigger(&d, id);
    wait_succeeded(&d, id, 2);
    let before = runs(&d, id);
    let old_run = before.last().unwrap()["id"].as_u64().unwrap();
    assert!(state.join("runs").join(old_run.to_string()).is_dir());

    let dry = d.post("/v1/gc?dry_run=true", Some(&d.token), "").unwrap();
    assert_eq!(dry.status, 200, "{}", dry.body);
    let dry = dry.json();
    assert_eq!(dry["records"]["runs"], 1, "{dry}");
    assert_eq!(dry["records"]["jobs"], 1, "{dry}");
    assert_eq!(runs(&d, id).len(), 2, "a dry run deletes nothing");
    let unauthorized = d.post("/v1/gc", None, "").unwrap();
    assert_eq!(unauthorized.status, 401);

    let done = d.post("/v1/gc", Some(&d.token), "").unwrap().json();
    assert_eq!(done["records"], dry["records"], "{done}");
    assert!(done["bytes_freed"].as_u64().unwrap() > 0, "{done}");
    assert_eq!(runs(&d, id).len(), 1);
    assert!(!state.join("runs").join(old_run.to_string()).exists());
    let m = d.get("/metrics").unwrap().body;
    assert_eq!(metric(&m, "frugal_gc_runs_total"), 1.0);
    assert!(metric(&m, "frugal_gc_freed_bytes_total") > 0.0, "{m}");
    assert_eq!(
        metric(&m, "frugal_gc_removed_records_total{kind=\"runs\"}"),
        1.0
    );

    // The CLI's view of the same.
    let out = run(std::process::Command::new(&binaries().frugal)
        .arg("--config")
        .arg(&cfg)
        .args(["gc", "--daemon", "--dry-run"]))
    .unwrap();
    assert!(out.contains("frugald: would free"), "{out}");

    let suites = d.get(&format!("/v1/repos/{id}/suites")).unwrap().json();
    let suite = suites[0]["id"].as_u64().unwrap();
    let r = d
        .delete(&format!("/v1/repos/{id}"), Some(&d.token))
        .unwrap();
    assert_eq!(r.status, 204, "{}", r.body);
    assert_eq!(d.get(&format!("/v1/suites/{suite}")).unwrap().status, 404);
    let last_run = runs(&d, id);
    assert!(last_run.is_empty(), "{last_run:?}");
    assert!(!state.join("work").join(format!("repo-{id}")).exists());
    let left = std::fs::read_dir(state.join("runs")).unwrap().count();
    assert_eq!(left, 0, "run output dirs of the removed repository");
}
