//! Jobs in flight at a `kill -9` are re-run after restart, and every stored suite is intact.
//!
//! The test re-runs its own binary as a child (the `work_through_jobs` entry point) that works through jobs:
//! claim, store a suite, finish. At the last one it stops mid-job (a long pipeline) and the
//! parent SIGKILLs it, reopens the store, runs `recover` and checks.

use std::io::{BufRead, BufReader};

use frugal_scheduler::*;
use frugal_storage::{NewSuite, NewTest, RepoId, Store, SuiteId};
use frugal_testkit::child;

const JOBS: u64 = 12;

fn suite(n: u64) -> NewSuite {
    let tests = vec![NewTest::new(format!("t{n}"), (0..=n as u32).collect())];
    NewSuite {
        commit: Some(format!("c{n}")),
        source: format!("// suite {n}\n"),
        goals_total: 10,
        proxy_cost: 1.0,
        ..NewSuite::new(RepoId(1), format!("crate{}", n % 3), tests)
    }
}

fn work_through_jobs(dir: &str) {
    let s = Scheduler::new(Store::open(dir).unwrap(), SchedulerOptions::default());
    for n in 0..JOBS {
        s.enqueue(
            RepoId(1),
            &format!("crate{}", n % 3),
            Reason::Hook,
            Some(&format!("c{n}")),
        )
        .unwrap();
        let job = s.claim().unwrap().unwrap();
        if n == JOBS - 1 {
            println!("HOLD {}", job.id);
            std::thread::sleep(std::time::Duration::from_secs(60));
        }
        let out = s.store().store_suite(suite(n)).unwrap();
        println!("ACK {} {n}", out.suite.0);
        s.finish(job.id, JobOutcome::Succeeded { run: None })
            .unwrap();
    }
}

fn jobs_in_flight_at_kill_9_are_rerun_and_suites_are_intact() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = child::spawn("work_through_jobs", dir.path()).unwrap();
    let mut acked = Vec::new();
    let mut held = None;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        if let Some((_, rest)) = line.split_once("ACK ") {
            let (id, n) = rest.split_once(' ').unwrap();
            acked.push((SuiteId(id.parse().unwrap()), n.parse::<u64>().unwrap()));
        } else if let Some((_, id)) = line.split_once("HOLD ") {
            held = Some(JobId(id.parse().unwrap()));
            break;
        }
    }
    child.kill().unwrap(); // SIGKILL on Unix.
    child.wait().unwrap();
    let held = held.expect("the child reached the last job");
    assert_eq!(acked.len() as u64, JOBS - 1);

    let s = Scheduler::new(
        Store::open(dir.path()).unwrap(),
        SchedulerOptions::default(),
    );
    let rec = s.recover().unwrap();
    assert_eq!(rec.requeued, vec![held]);
    let again = s.claim().unwrap().expect("the interrupted job runs again");
    assert_eq!((again.id, again.attempts), (held, 2));
    assert_eq!(
        again.commit.as_deref(),
        Some(format!("c{}", JOBS - 1).as_str())
    );
    // Every other job finished and nothing else is queued or running.
    let active = s.active().unwrap();
    assert_eq!(active.len(), 1, "{active:#?}");

    for (id, n) in acked {
        let stored = s
            .store()
            .suite(id)
            .unwrap()
            .expect("acknowledged suite lost");
        let want = suite(n);
        assert_eq!((&stored.source, &stored.krate), (&want.source, &want.krate));
        let tests = s.store().suite_tests(&stored).unwrap();
        assert_eq!(tests[0].goals, want.tests[0].goals);
    }
    for k in 0..3 {
        assert!(
            s.store()
                .best(RepoId(1), &format!("crate{k}"))
                .unwrap()
                .is_some()
        );
    }
}

fn main() {
    child::main(
        vec![(
            "jobs_in_flight_at_kill_9_are_rerun_and_suites_are_intact",
            jobs_in_flight_at_kill_9_are_rerun_and_suites_are_intact,
        )],
        &[("work_through_jobs", work_through_jobs)],
    )
}
