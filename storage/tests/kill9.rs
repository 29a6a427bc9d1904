//! A `kill -9` at any moment loses nothing that was acknowledged.
//!
//! The test re-runs its own binary as a child (the `store_suites_forever` entry point) that stores suites in a
//! loop and prints `ACK <suite id> <n>` after each `store_suite` returns. The parent SIGKILLs it
//! mid-stream, reopens the store and checks every acknowledged suite, with its tests and the best
//! pointer, is intact.

use std::io::{BufRead, BufReader};
use std::time::Duration;

use frugal_storage::*;
use frugal_testkit::child;

fn new_suite(n: u64) -> NewSuite {
    // Every suite gains a goal, so each one replaces the best.
    let tests = (0..5)
        .map(|i| NewTest {
            cost: Some(Cost::new("wall-ns/wall-clock", (n * 10 + i as u64) as f64)),
            ..NewTest::new(
                format!("t{n}_{i}"),
                (0..=n as u32).chain([100 + i]).collect(),
            )
        })
        .collect();
    NewSuite {
        commit: Some(format!("commit{n}")),
        source: format!("// suite {n}\n{}", "#[test] fn t() {}\n".repeat(50)),
        goals_total: 100_000,
        proxy_cost: n as f64,
        ..NewSuite::new(RepoId(1), "demo", tests)
    }
}

fn store_suites_forever(dir: &str) {
    let store = Store::open(dir).unwrap();
    for n in 0.. {
        let out = store.store_suite(new_suite(n)).unwrap();
        println!("ACK {} {n}", out.suite.0);
    }
}

fn acknowledged_suites_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = child::spawn("store_suites_forever", dir.path()).unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut acked = Vec::new();
    while acked.len() < 25 {
        let line = lines.next().expect("child ended early").unwrap();
        if let Some((_, rest)) = line.split_once("ACK ") {
            let (id, n) = rest.split_once(' ').unwrap();
            acked.push((SuiteId(id.parse().unwrap()), n.parse::<u64>().unwrap()));
        }
    }
    std::thread::sleep(Duration::from_millis(7));
    child.kill().unwrap(); // SIGKILL on Unix.
    // Lines the child printed before it died were acknowledged too.
    for line in lines {
        let line = line.unwrap();
        if let Some((_, rest)) = line.split_once("ACK ") {
            let (id, n) = rest.split_once(' ').unwrap();
            acked.push((SuiteId(id.parse().unwrap()), n.parse::<u64>().unwrap()));
        }
    }
    let status = child.wait().unwrap();
    assert!(!status.success(), "the child must have been killed");

    let store = Store::open(dir.path()).unwrap();
    for (id, n) in &acked {
        let s = store
            .suite(*id)
            .unwrap()
            .unwrap_or_else(|| panic!("acknowledged suite {id} lost"));
        let want = new_suite(*n);
        assert_eq!(s.source, want.source);
        assert_eq!(s.commit, want.commit);
        let tests = store.suite_tests(&s).unwrap();
        assert_eq!(tests.len(), 5);
        for (t, w) in tests.iter().zip(&want.tests) {
            assert_eq!((&t.name, &t.goals, &t.cost), (&w.name, &w.goals, &w.cost));
        }
    }
    // The best pointer names a complete suite at least as new as the last acknowledged one.
    let best = store.best(RepoId(1), "demo").unwrap().unwrap();
    assert!(best.id >= acked.last().unwrap().0);
    assert_eq!(store.suite_tests(&best).unwrap().len(), 5);
    // And the store keeps working.
    assert!(store.store_suite(new_suite(10_000)).unwrap().replaced_best);
}

fn main() {
    child::main(
        vec![(
            "acknowledged_suites_survive_kill_9",
            acknowledged_suites_survive_kill_9,
        )],
        &[("store_suites_forever", store_suites_forever)],
    )
}
