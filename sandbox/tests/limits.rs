//! Resource limits: a fork bomb stops at the process limit, a write at the file-size limit,
//! and core dumps are off.

mod common;

use std::time::Duration;

use common::{Job, caps, processes_with, skip};
use frugal_sandbox::Limits;

#[test]
fn fork_bomb_is_bounded() {
    if caps().root && !caps().pids_limit {
        return skip(
            "fork_bomb_is_bounded",
            "root without a pids cgroup: RLIMIT_NPROC does not bind root",
        );
    }
    let job = Job::new();
    let marker = "987605";
    let policy = limited(
        &job,
        Limits {
            nproc: Some(64),
            ..Limits::default()
        },
    );
    let count = job.scratch().join("count");
    // Bounded on purpose: 300 sleepers at most, counted in a file as they start. Each
    // sleeper is one process that lives until the job is killed (a plain background
    // command is exec'd in the forked child), so the count is the live processes: a
    // sleeper that could die on its own (`sleep || exit 1` forks twice and exits when its
    // inner fork fails) would free its slot and let the count pass the limit by a race.
    let script = format!(
        "n=0; while [ $n -lt 300 ]; do sleep {marker} & n=$((n+1)); echo $n > \"$1\"; done; sleep 1"
    );
    let out = common::sh_with(&policy, &script, &[&count]);
    let started: u32 = std::fs::read_to_string(&count)
        .unwrap_or_default()
        .trim()
        .parse()
        .unwrap_or(0);
    assert!(started < 300, "all 300 forks succeeded: no bound");
    assert!(started <= 64, "{started} forks under a limit of 64");
    assert_eq!(out.finished.survivors, 0);
    assert_eq!(processes_with(marker), 0);
}

#[test]
fn unbounded_write_stops_at_fsize() {
    let job = Job::new();
    let policy = limited(
        &job,
        Limits {
            fsize: Some(1 << 20),
            ..Limits::default()
        },
    );
    let big = job.scratch().join("big");
    let out = common::sh_with(&policy, "yes 0123456789 > \"$1\"", &[&big]);
    assert!(!out.finished.timed_out);
    assert!(!out.finished.status.success());
    let len = std::fs::metadata(&big).unwrap().len();
    assert_eq!(len, 1 << 20);
}

#[test]
fn core_dumps_are_off() {
    let job = Job::new();
    let out = job.sh("ulimit -c", &[]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0");
}

/// The job's policy with `limits` and a 20 s timeout.
fn limited(job: &Job, limits: Limits) -> frugal_sandbox::Policy {
    job.policy
        .clone()
        .limits(limits)
        .timeout(Duration::from_secs(20))
}
