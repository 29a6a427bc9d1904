//! Cost of spawning through the policy versus a plain `Command`. Ignored by default:
//! `cargo test -p frugal-sandbox --release --test overhead -- --ignored --nocapture`.
mod common;

use std::time::{Duration, Instant};

use common::Job;

const RUNS: u32 = 200;

#[test]
#[ignore]
fn spawn_overhead() {
    let job = Job::new();
    let plain = time(|| {
        let status = std::process::Command::new("/bin/true").status().unwrap();
        assert!(status.success());
    });
    let confined = time(|| run_true(&job.policy));
    let no_netns_policy = job.policy.clone().network_namespace(false);
    let no_netns = time(|| run_true(&no_netns_policy));
    let no_namespaces_policy = no_netns_policy.clone().hide_sockets(false);
    let no_namespaces = time(|| run_true(&no_namespaces_policy));
    let per = |d: Duration| d / RUNS;
    eprintln!(
        "{RUNS} x /bin/true: plain {:?} ({:?}/run), confined {:?} ({:?}/run, ratio {:.1}), \
         confined without netns {:?} ({:?}/run, ratio {:.1}), without netns and the mount \
         namespace that hides socket dirs {:?} ({:?}/run, ratio {:.1})",
        plain,
        per(plain),
        confined,
        per(confined),
        confined.as_secs_f64() / plain.as_secs_f64(),
        no_netns,
        per(no_netns),
        no_netns.as_secs_f64() / plain.as_secs_f64(),
        no_namespaces,
        per(no_namespaces),
        no_namespaces.as_secs_f64() / plain.as_secs_f64(),
    );
}

fn time(mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    for _ in 0..RUNS {
        f();
    }
    start.elapsed()
}

/// Spawns `/bin/true` confined by `policy` and waits for it.
fn run_true(policy: &frugal_sandbox::Policy) {
    let f = policy
        .command("/bin/true")
        .unwrap()
        .spawn()
        .unwrap()
        .wait()
        .unwrap();
    assert!(f.status.success());
}
