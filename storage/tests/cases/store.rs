// The store's behaviours, the same on every backend: included by `store.rs` (sled) and
// `store_postgres.rs` (PostgreSQL), each with its `backend` module.

use std::collections::BTreeMap;

use frugal_storage::*;

fn test(name: &str, goals: &[u32], cost: Option<f64>) -> NewTest {
    NewTest {
        name: name.to_string(),
        goals: goals.iter().copied().collect(),
        cost: cost.map(|c| Cost::new("task-clock-ns/software-perf", c)),
        proxies: BTreeMap::from([("I7".to_string(), goals.len() as f64)]),
    }
}

fn suite(repo: RepoId, goals: &[u32], cost: Option<f64>, proxy: f64) -> NewSuite {
    NewSuite {
        repo,
        krate: "demo".into(),
        commit: Some("abc".into()),
        source: format!("// goals {goals:?} cost {cost:?} proxy {proxy}\n#[test]\nfn t() {{}}\n"),
        goals_total: 20,
        total_cost: cost.map(|c| Cost::new("task-clock-ns/software-perf", c)),
        proxy_cost: proxy,
        tests: goals
            .iter()
            .map(|g| {
                test(
                    &format!("covers_{g}"),
                    &[*g],
                    cost.map(|c| c / goals.len() as f64),
                )
            })
            .collect(),
        run: None,
        model: None,
        hold: false,
        mutation: None,
    }
}

#[test]
fn repos_runs_suites_and_jobs_round_trip() {
    let (_dir, store) = backend::open();
    let crates = vec![CrateEntry {
        name: "demo".into(),
        dir: "".into(),
    }];
    let repo = store
        .add_repo("/srv/git/demo", crates.clone(), Some("0 3 * * *".into()))
        .unwrap();
    assert_eq!(store.repo(repo.id).unwrap().unwrap(), repo);
    assert_eq!(store.repo_by_path("/srv/git/demo").unwrap().unwrap(), repo);
    assert!(
        store
            .add_repo("/srv/git/demo", crates, None)
            .unwrap_err()
            .to_string()
            .contains("already registered")
    );

    let run = store
        .create_run(repo.id, "demo", Some("abc"), None)
        .unwrap();
    let progress = RunProgress {
        phase: "search".into(),
        executions: 100,
        covered: 5,
        goals: 20,
    };
    assert_eq!(
        store
            .update_run_progress(run.id, progress.clone())
            .unwrap()
            .progress,
        progress
    );
    let out = store
        .store_suite(suite(repo.id, &[1, 2, 3], Some(30.0), 3.0))
        .unwrap();
    let done = store
        .finish_run(
            run.id,
            RunStatus::Succeeded,
            Some(serde_json::json!({"tests": 3})),
            Some(out.suite),
        )
        .unwrap();
    assert_eq!(store.run(run.id).unwrap().unwrap(), done);
    assert_eq!(store.runs(repo.id, Some("demo")).unwrap(), vec![done]);

    let s = store.suite(out.suite).unwrap().unwrap();
    assert_eq!(s.goals_covered.as_slice(), &[1, 2, 3]);
    assert_eq!(s.tests, out.tests);
    let tests = store.suite_tests(&s).unwrap();
    assert_eq!(
        tests.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        ["covers_1", "covers_2", "covers_3"]
    );
    assert_eq!(tests[0].cost.as_ref().unwrap().value, 10.0);
    assert_eq!(store.best(repo.id, "demo").unwrap().unwrap(), s);

    let job = JobRecord {
        commit: Some("abc".into()),
        budget_factor: 1.5,
        ..JobRecord::new(store.next_job_id().unwrap(), repo.id, "demo", "hook", 2)
    };
    store.put_job(&job).unwrap();
    assert_eq!(store.job(job.id).unwrap().unwrap(), job);
    assert_eq!(store.jobs().unwrap(), vec![job.clone()]);
    assert!(store.remove_job(job.id).unwrap());
    assert!(store.jobs().unwrap().is_empty());
}

/// Stores `old` then `new` and returns what happened to the best pointer.
fn rule(old: NewSuite, new: NewSuite) -> StoreOutcome {
    let (_dir, store) = backend::open();
    let first = store.store_suite(old).unwrap();
    assert!(first.replaced_best && first.reason == BestReason::First);
    let out = store.store_suite(new).unwrap();
    let best = store.best_id(RepoId(1), "demo").unwrap().unwrap();
    assert_eq!(best == out.suite, out.replaced_best);
    assert_eq!(out.previous_best, Some(first.suite));
    out
}

#[test]
fn best_rule_replaces_when_a_new_goal_is_covered() {
    let out = rule(
        suite(RepoId(1), &[1, 2], Some(10.0), 1.0),
        suite(RepoId(1), &[1, 2, 3], Some(50.0), 9.0),
    );
    assert!(out.replaced_best);
    assert_eq!(out.reason, BestReason::GainsGoals { gained: 1, lost: 0 });
}

#[test]
fn best_rule_replaces_when_goals_are_gained_even_if_others_are_lost() {
    let out = rule(
        suite(RepoId(1), &[1, 2], None, 1.0),
        suite(RepoId(1), &[2, 3], None, 1.0),
    );
    assert_eq!(out.reason, BestReason::GainsGoals { gained: 1, lost: 1 });
}

#[test]
fn best_rule_keeps_the_old_suite_when_goals_are_lost() {
    let out = rule(
        suite(RepoId(1), &[1, 2, 3], Some(50.0), 9.0),
        suite(RepoId(1), &[1, 2], Some(1.0), 0.1),
    );
    assert!(!out.replaced_best);
    assert_eq!(out.reason, BestReason::MissesGoals { lost: 1 });
}

#[test]
fn best_rule_same_goals_lower_measured_cost_replaces_and_higher_keeps() {
    let cheaper = rule(
        suite(RepoId(1), &[1, 2], Some(10.0), 1.0),
        suite(RepoId(1), &[1, 2], Some(8.0), 5.0),
    );
    assert!(cheaper.replaced_best);
    assert!(matches!(cheaper.reason, BestReason::CheaperMeasured { .. }));
    let dearer = rule(
        suite(RepoId(1), &[1, 2], Some(10.0), 5.0),
        suite(RepoId(1), &[1, 2], Some(12.0), 1.0),
    );
    assert!(!dearer.replaced_best);
    assert!(matches!(
        dearer.reason,
        BestReason::NotCheaperMeasured { .. }
    ));
    let tie = rule(
        suite(RepoId(1), &[1, 2], Some(10.0), 1.0),
        suite(RepoId(1), &[1, 2], Some(10.0), 1.0),
    );
    assert!(!tie.replaced_best, "a tie keeps the old suite");
}

#[test]
fn best_rule_falls_back_to_proxies_without_a_comparable_profile() {
    let none = rule(
        suite(RepoId(1), &[1], None, 3.0),
        suite(RepoId(1), &[1], None, 2.0),
    );
    assert_eq!(none.reason, BestReason::CheaperProxy { old: 3.0, new: 2.0 });
    let one_side = rule(
        suite(RepoId(1), &[1], Some(1.0), 1.0),
        suite(RepoId(1), &[1], None, 2.0),
    );
    assert_eq!(
        one_side.reason,
        BestReason::NotCheaperProxy { old: 1.0, new: 2.0 }
    );
    let mut other_basis = suite(RepoId(1), &[1], Some(100.0), 0.5);
    other_basis.total_cost = Some(Cost::new("instructions/cachegrind", 100.0));
    let bases = rule(suite(RepoId(1), &[1], Some(1.0), 1.0), other_basis);
    assert_eq!(
        bases.reason,
        BestReason::CheaperProxy { old: 1.0, new: 0.5 }
    );
}

#[test]
fn best_rule_superset_with_equal_cost_replaces() {
    let out = rule(
        suite(RepoId(1), &[1], Some(10.0), 1.0),
        suite(RepoId(1), &[1, 2], Some(10.0), 1.0),
    );
    assert!(out.replaced_best);
}

#[test]
fn forced_best_and_set_best() {
    let (_dir, store) = backend::open();
    let a = store
        .store_suite(suite(RepoId(1), &[1, 2], None, 1.0))
        .unwrap();
    let b = store
        .store_suite_as_best(suite(RepoId(1), &[1], None, 9.0))
        .unwrap();
    assert_eq!(b.reason, BestReason::Forced);
    assert_eq!(store.best_id(RepoId(1), "demo").unwrap(), Some(b.suite));
    store.set_best(RepoId(1), "demo", a.suite).unwrap();
    assert_eq!(store.best_id(RepoId(1), "demo").unwrap(), Some(a.suite));
    assert!(store.set_best(RepoId(2), "demo", a.suite).is_err());
}

#[test]
fn reopening_after_drop_keeps_everything() {
    let dir = backend::place();
    let (repo, out, ids) = {
        let store = backend::open_at(&dir);
        let repo = store.add_repo("/r", vec![], None).unwrap();
        let out = store
            .store_suite(suite(repo.id, &[4, 5], Some(2.0), 1.0))
            .unwrap();
        let ids = store.intern_goals(repo.id, "demo", &["a", "b"]).unwrap();
        (repo, out, ids)
    };
    let store = backend::open_at(&dir);
    assert_eq!(store.repo(repo.id).unwrap().unwrap(), repo);
    let s = store.best(repo.id, "demo").unwrap().unwrap();
    assert_eq!(s.id, out.suite);
    assert_eq!(store.suite_tests(&s).unwrap().len(), 2);
    assert_eq!(store.schema_version().unwrap(), Some(SCHEMA_VERSION));
    // Interned goal ids survive and new keys continue the sequence.
    assert_eq!(
        store
            .intern_goals(repo.id, "demo", &["b", "c", "a"])
            .unwrap(),
        vec![ids[1], 2, ids[0]]
    );
    // Fresh ids never collide with old ones.
    let again = store.store_suite(suite(repo.id, &[9], None, 1.0)).unwrap();
    assert!(again.suite > out.suite);
}

#[test]
fn export_then_import_reproduces_the_store() {
    let (_dir, store) = backend::open();
    let repo = store.add_repo("/r", vec![], None).unwrap();
    let a = store.store_suite(suite(repo.id, &[1], None, 1.0)).unwrap();
    store.intern_goals(repo.id, "demo", &["g0", "g1"]).unwrap();
    store.create_run(repo.id, "demo", None, None).unwrap();
    let report = ReportRecord {
        repo: repo.id,
        krate: "demo".into(),
        commit: "abc".into(),
        created: 1,
        baseline: None,
        baseline_commit: None,
        changed: 1,
        report: None,
        note: Some("no earlier suite".into()),
        suite: Some(a.suite),
        held: false,
        accepted: None,
    };
    store.put_report(&report).unwrap();
    store.accept_report(repo.id, "abc", "demo").unwrap();
    let mut buf = Vec::new();
    let lines = store.export_jsonl(&mut buf).unwrap();
    assert!(lines >= 6, "{lines}");

    let (_dir2, other) = backend::open();
    assert_eq!(other.import_jsonl(buf.as_slice()).unwrap(), lines);
    assert_eq!(other.best_id(repo.id, "demo").unwrap(), Some(a.suite));
    assert_eq!(other.repos().unwrap(), store.repos().unwrap());
    assert_eq!(
        other.reports_of_commit(repo.id, "abc").unwrap(),
        store.reports_of_commit(repo.id, "abc").unwrap(),
        "reports and their acceptance survive export"
    );
    assert_eq!(
        other.intern_goals(repo.id, "demo", &["g1", "g2"]).unwrap(),
        vec![1, 2]
    );
    let next = other
        .store_suite(suite(repo.id, &[1, 2], None, 1.0))
        .unwrap();
    assert!(next.suite > a.suite && next.replaced_best);
    assert!(
        other.import_jsonl(buf.as_slice()).is_err(),
        "import needs an empty store"
    );
}

#[test]
fn a_second_store_for_the_same_job_returns_the_first_suite() {
    let dir = backend::place();
    let repo = {
        let store = backend::open_at(&dir);
        let repo = store.add_repo("/srv/demo", Vec::new(), None).unwrap().id;
        let first = store
            .store_suite_for_job(JobId(7), suite(repo, &[1, 2], None, 2.0))
            .unwrap();
        assert_eq!(first.reason, BestReason::First);
        repo
        // The daemon dies here, before the job is finished: it runs again after the restart.
    };
    let store = backend::open_at(&dir);
    let first = store.suites(repo, None).unwrap()[0].clone();
    let again = store
        .store_suite_for_job(JobId(7), suite(repo, &[1, 2, 3], None, 1.0))
        .unwrap();
    assert_eq!(again.suite, first.id);
    assert_eq!(again.tests, first.tests);
    assert_eq!(again.reason, BestReason::AlreadyStored);
    assert!(!again.replaced_best);
    assert_eq!(store.suites(repo, None).unwrap(), vec![first.clone()]);
    assert_eq!(store.best_id(repo, "demo").unwrap(), Some(first.id));
    assert_eq!(store.suite_of_job(JobId(7)).unwrap(), Some(first.id));

    // Another job, or the same job at another commit (a requeued job a trigger moved on), stores
    // a suite of its own.
    let other = store
        .store_suite_for_job(JobId(8), suite(repo, &[1, 2], None, 2.0))
        .unwrap();
    assert_ne!(other.suite, first.id);
    let mut moved = suite(repo, &[1, 2], None, 2.0);
    moved.commit = Some("def".into());
    let moved = store.store_suite_for_job(JobId(7), moved).unwrap();
    assert_ne!(moved.suite, first.id);
    assert_eq!(store.suites(repo, None).unwrap().len(), 3);
}

#[test]
fn a_held_suite_never_replaces_the_best_until_set_explicitly() {
    let (_dir, store) = backend::open();
    let repo = store.add_repo("/r", vec![], None).unwrap().id;
    let first = store.store_suite(suite(repo, &[1], None, 1.0)).unwrap();
    let mut held = suite(repo, &[1, 2, 3], None, 1.0);
    held.hold = true;
    let held = store.store_suite(held).unwrap();
    assert_eq!(held.reason, BestReason::Held);
    assert!(!held.replaced_best);
    assert_eq!(store.best_id(repo, "demo").unwrap(), Some(first.suite));
    store.set_best(repo, "demo", held.suite).unwrap();
    assert_eq!(store.best_id(repo, "demo").unwrap(), Some(held.suite));
}

/// A job thread writes progress while the daemon marks its run interrupted at shutdown: the
/// finished status must win whatever the interleaving, or the next start reports a crash.
#[test]
fn progress_written_beside_finishing_never_brings_a_run_back_to_running() {
    let (_dir, store) = backend::open();
    let repo = store.add_repo("/srv/git/demo", vec![], None).unwrap();
    let store = std::sync::Arc::new(store);
    for round in 0..20 {
        let run = store.create_run(repo.id, "demo", None, None).unwrap();
        let writer = {
            let store = std::sync::Arc::clone(&store);
            std::thread::spawn(move || {
                for n in 0..2_000 {
                    let p = RunProgress {
                        phase: "analyse".into(),
                        executions: n,
                        ..RunProgress::default()
                    };
                    store.update_run_progress(run.id, p).unwrap();
                }
            })
        };
        // Finish while the writer is in full flow.
        while store.run(run.id).unwrap().unwrap().progress.executions < 200 {
            std::hint::spin_loop();
        }
        let status = RunStatus::Failed {
            error: "interrupted by a daemon shutdown".into(),
        };
        store
            .finish_run(run.id, status.clone(), None, None)
            .unwrap();
        writer.join().unwrap();
        let rec = store.run(run.id).unwrap().unwrap();
        assert_eq!(rec.status, status, "round {round}: {rec:?}");
    }
}

#[test]
fn each_cron_window_is_handed_out_once() {
    let (_dir, store) = backend::open();
    assert_eq!(store.take_cron_window(1_000, 60_000).unwrap(), None, "the first call sets the clock");
    assert_eq!(store.take_cron_window(1_000, 60_000).unwrap(), None, "nothing new");
    assert_eq!(store.take_cron_window(2_000, 60_000).unwrap(), Some(1_000));
    assert_eq!(store.take_cron_window(2_000, 60_000).unwrap(), None);
    // After a long stop the window reaches back only `catch_up`.
    assert_eq!(store.take_cron_window(1_000_000, 60_000).unwrap(), Some(940_000));
}
