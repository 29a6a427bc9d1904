//! A job's cgroup (`JobScope`): every command of the job lands in it, whatever session it
//! made, and it bounds the job's processes and memory as a whole.

mod common;

use std::time::{Duration, Instant};

use frugal_sandbox::{JobLimits, JobScope};

fn scope_or_skip(test: &str, limits: JobLimits) -> Option<JobScope> {
    let scope = JobScope::new(limits);
    if scope.contained() {
        Some(scope)
    } else {
        common::skip(test, "no writable cgroup here");
        None
    }
}

/// A command escapes its session and its parent (`setsid`, double fork) and its own command's
/// cgroup is gone with it: the job's cgroup still holds it, counts it and kills it.
#[test]
fn the_scope_holds_a_commands_escaped_descendants_and_kills_them() {
    let Some(scope) = scope_or_skip("scope_kill", JobLimits::default()) else {
        return;
    };
    let entered = scope.enter();
    let job = common::Job::new();
    drop(entered);
    let marker = "987701";
    // The escapee's command is never waited for by the sandbox: it is spawned and let go.
    let mut policy_cmd = job.policy.command("/bin/sh").unwrap();
    policy_cmd.args([
        "-c",
        &format!("(setsid sh -c 'exec sleep {marker}' >/dev/null 2>&1 &) ; sleep {marker}"),
    ]);
    let child = policy_cmd.spawn().unwrap();
    let t = Instant::now();
    // The outer shell, its sleep and the escaped sleep all name the marker.
    while common::processes_with(marker) < 3 && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(common::processes_with(marker), 3);
    assert!(scope.members().len() >= 3, "{:?}", scope.members());
    assert!(scope.kill() >= 3);
    assert_eq!(
        common::processes_with(marker),
        0,
        "the scope's kill left one"
    );
    assert!(scope.members().is_empty());
    drop(child);
}

/// `pids.max` of the job binds all its commands together: 40 sleeps under a limit of 16.
#[test]
fn the_scope_bounds_the_jobs_processes_as_a_whole() {
    let limits = JobLimits {
        pids_max: Some(16),
        ..JobLimits::default()
    };
    let Some(scope) = scope_or_skip("scope_pids", limits) else {
        return;
    };
    if !scope.pids_limited() {
        common::skip("scope_pids", "no pids controller for our cgroups");
        return;
    }
    let entered = scope.enter();
    let job = common::Job::new();
    drop(entered);
    let marker = "987702";
    let out = job.sh(
        &format!("for i in $(seq 40); do sleep {marker} 2>/dev/null & done; echo started"),
        &[],
    );
    // The sleeps that did start died with the command's tree; the shell says fork failed for
    // the rest.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("fork") || stderr.contains("Resource temporarily unavailable"),
        "40 processes started under pids.max 16: {stderr}"
    );
    assert_eq!(common::processes_with(marker), 0);
}

/// `memory.max` of the job: a command holding 200 MB in a job allowed 64 MiB is killed by the
/// kernel, and the scope counts the OOM kill.
#[test]
fn the_scope_bounds_the_jobs_memory_as_a_whole() {
    let limits = JobLimits {
        memory_max: Some(64 << 20),
        ..JobLimits::default()
    };
    let Some(scope) = scope_or_skip("scope_memory", limits) else {
        return;
    };
    if !scope.memory_limited() {
        common::skip("scope_memory", "no memory controller for our cgroups");
        return;
    }
    let entered = scope.enter();
    let job = common::Job::new();
    drop(entered);
    let out = job.sh(
        "x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo ${#x}",
        &[],
    );
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("200000000"),
        "200 MB held under a 64 MiB job limit"
    );
    assert!(scope.oom_kills() >= 1, "no OOM kill counted");
}

/// A command whose root exits while a `setsid` child lives on: the command's own cgroup kills
/// the child, and the scope counts it as an escapee; a command that leaves nothing adds nothing.
#[test]
fn the_scope_counts_what_outlived_its_command() {
    let Some(scope) = scope_or_skip("scope_escaped", JobLimits::default()) else {
        return;
    };
    let entered = scope.enter();
    let job = common::Job::new();
    drop(entered);
    let out = job.sh("echo plain", &[]);
    assert!(out.finished.status.success());
    assert_eq!(scope.escaped(), 0, "a plain command counted an escapee");
    let marker = "987703";
    let out = job.sh(
        &format!("setsid sleep {marker} >/dev/null 2>&1 & echo started"),
        &[],
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "started\n");
    assert_eq!(out.finished.survivors, 0);
    assert_eq!(common::processes_with(marker), 0);
    assert_eq!(scope.escaped(), 1);
}

/// A scope run as a uid of its own (`JobScope::run_as`, frugald's fallback where no cgroup
/// holds a job): its commands run as that uid and gid with no other group, and can still write
/// what their policy makes writable, files root made there included (handed to the uid before
/// the spawn). Needs root.
#[test]
fn a_scope_run_as_a_uid_runs_its_commands_as_it_and_hands_it_their_dirs() {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        common::skip("scope_uid", "not root: no uid can be set");
        return;
    }
    let scope = JobScope::new(JobLimits::default()).run_as(200_123, 200_124);
    let entered = scope.enter();
    let job = common::Job::new();
    drop(entered);
    let made = job.scratch().join("made-by-root");
    std::fs::write(&made, "root\n").unwrap();
    // What a job could leave to make root hand it someone else's file: a link to a file
    // outside, and a second name of one.
    let elsewhere = job.outside().join("root-only");
    std::fs::write(&elsewhere, "root's\n").unwrap();
    std::os::unix::fs::symlink(&elsewhere, job.scratch().join("link")).unwrap();
    std::fs::hard_link(&elsewhere, job.scratch().join("second-name")).unwrap();
    let mut cmd = job.policy.command("/bin/sh").unwrap();
    cmd.args([
        "-c",
        "id -u; id -g; id -G; echo job >> \"$1\" && echo wrote",
        "sh",
    ])
    .arg(&made);
    let out = cmd.output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        said.lines().collect::<Vec<_>>(),
        ["200123", "200124", "200124", "wrote"],
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&made).unwrap(), "root\njob\n");
    use std::os::unix::fs::MetadataExt;
    assert_eq!(
        std::fs::metadata(&elsewhere).unwrap().uid(),
        0,
        "a file outside was handed over"
    );
}
