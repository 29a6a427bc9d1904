//! Retention: pruning keeps what it must (the best suite, suites a report names, active jobs,
//! running runs) and deletes the rest with everything hanging off it; removing a repository
//! leaves nothing of it behind and nothing of another repository touched.

use frugal_storage::*;

fn suite(repo: RepoId, krate: &str, n: u32) -> NewSuite {
    let tests = vec![NewTest::new(format!("t{n}"), GoalSet::from(vec![1]))];
    NewSuite {
        commit: Some(format!("c{n}")),
        source: format!("// suite {n}\n"),
        goals_total: 10,
        // Each newer suite is cheaper, so each becomes the best one.
        proxy_cost: 100.0 - n as f64,
        ..NewSuite::new(repo, krate, tests)
    }
}

fn job(store: &Store, repo: RepoId, state: JobState, finished: Option<u64>) -> JobRecord {
    let j = JobRecord {
        state,
        enqueued_at: 1,
        finished,
        ..JobRecord::new(store.next_job_id().unwrap(), repo, "k", "api", 3)
    };
    store.put_job(&j).unwrap();
    j
}

fn report(repo: RepoId, commit: &str, baseline: SuiteId) -> ReportRecord {
    ReportRecord {
        repo,
        krate: "k".into(),
        commit: commit.into(),
        created: 1,
        baseline: Some(baseline),
        baseline_commit: None,
        changed: 1,
        report: None,
        note: None,
        suite: None,
        held: false,
        accepted: None,
    }
}

#[test]
fn suites_beyond_the_newest_n_go_but_the_best_and_report_baselines_stay() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let repo = RepoId(1);
    let ids: Vec<SuiteId> = (0..6)
        .map(|n| {
            // Distinct creation times: retention orders by them.
            std::thread::sleep(std::time::Duration::from_millis(2));
            store.store_suite(suite(repo, "k", n)).unwrap().suite
        })
        .collect();
    // The oldest suite is a report's baseline; make the second oldest the best.
    store.put_report(&report(repo, "x", ids[0])).unwrap();
    store.set_best(repo, "k", ids[1]).unwrap();
    store
        .put_replacement(&ReplacementRecord {
            repo,
            krate: "k".into(),
            suite: ids[2],
            metric: "cpu".into(),
            cover: "own".into(),
            created: 1,
            replacement: None,
            error: Some("x".into()),
        })
        .unwrap();
    let dry = store.prune_suites(2, true).unwrap();
    assert_eq!(dry.suites, vec![ids[3], ids[2]]);
    assert_eq!((dry.tests, dry.replacements), (2, 1));
    assert_eq!(
        store.suites(repo, None).unwrap().len(),
        6,
        "dry run deletes"
    );

    let done = store.prune_suites(2, false).unwrap();
    assert_eq!(done, dry);
    let left: Vec<SuiteId> = store
        .suites(repo, None)
        .unwrap()
        .iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(left, vec![ids[0], ids[1], ids[4], ids[5]]);
    let gone = store.suite(ids[0]).unwrap().unwrap().tests[0];
    assert!(store.test(gone).unwrap().is_some());
    assert!(
        store
            .replacement(repo, "k", ids[2], "cpu", "own")
            .unwrap()
            .is_none()
    );
    assert_eq!(store.prune_suites(2, false).unwrap().records(), 0);
}

#[test]
fn finished_jobs_and_runs_beyond_m_go_but_active_ones_stay() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let repo = RepoId(1);
    let queued = job(&store, repo, JobState::Queued, None);
    let done: Vec<JobRecord> = (0..4)
        .map(|n| job(&store, repo, JobState::Succeeded, Some(10 + n)))
        .collect();
    let p = store.prune_jobs(1, false).unwrap();
    assert_eq!(p.jobs, vec![done[2].id, done[1].id, done[0].id]);
    let left: Vec<JobId> = store.jobs().unwrap().iter().map(|j| j.id).collect();
    assert_eq!(left, vec![queued.id, done[3].id]);

    let running = store.create_run(repo, "k", None, None).unwrap();
    let finished: Vec<RunId> = (0..3)
        .map(|_| {
            let r = store.create_run(repo, "k", None, None).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(2));
            store
                .finish_run(r.id, RunStatus::Succeeded, None, None)
                .unwrap()
                .id
        })
        .collect();
    let p = store.prune_runs(1, false).unwrap();
    assert_eq!(p.runs, vec![finished[1], finished[0]]);
    assert!(store.run(running.id).unwrap().is_some());
    assert!(store.run(finished[2]).unwrap().is_some());
}

#[test]
fn removing_a_repository_deletes_all_of_it_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let gone = store.add_repo("/gone", vec![], None).unwrap().id;
    let kept = store.add_repo("/kept", vec![], None).unwrap().id;
    for repo in [gone, kept] {
        store.intern_goals(repo, "k", &["a", "b"]).unwrap();
        let s = store.store_suite(suite(repo, "k", 1)).unwrap().suite;
        store.put_report(&report(repo, "c1", s)).unwrap();
        let j = job(&store, repo, JobState::Queued, None);
        store.create_run(repo, "k", None, Some(j.id)).unwrap();
    }
    let before = store.prune_suites(0, true).unwrap();
    assert!(before.suites.is_empty(), "best and baselines are pinned");

    let dry = store.remove_repo_data(gone, true).unwrap();
    assert!(store.repo(gone).unwrap().is_some(), "dry run deletes");
    let p = store.remove_repo_data(gone, false).unwrap();
    assert_eq!(p, dry);
    assert_eq!(
        (
            p.suites.len(),
            p.tests,
            p.runs.len(),
            p.jobs.len(),
            p.reports
        ),
        (1, 1, 1, 1, 1)
    );
    assert!(store.repo(gone).unwrap().is_none());
    assert!(store.suites(gone, None).unwrap().is_empty());
    assert!(store.runs(gone, None).unwrap().is_empty());
    assert!(store.best_id(gone, "k").unwrap().is_none());
    assert!(store.reports_of_repo(gone).unwrap().is_empty());
    assert!(store.active_jobs().unwrap().iter().all(|j| j.repo != gone));
    // Goal ids start over for a repository registered again under the same id.
    assert_eq!(store.intern_goals(gone, "k", &["b"]).unwrap(), vec![0]);

    assert!(store.repo(kept).unwrap().is_some());
    assert_eq!(store.suites(kept, None).unwrap().len(), 1);
    assert_eq!(store.runs(kept, None).unwrap().len(), 1);
    assert_eq!(store.reports_of_repo(kept).unwrap().len(), 1);
    assert_eq!(store.intern_goals(kept, "k", &["b"]).unwrap(), vec![1]);
}

#[test]
fn the_active_jobs_index_follows_every_state_change() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let mut j = job(&store, RepoId(1), JobState::Queued, None);
    assert_eq!(store.active_jobs().unwrap(), vec![j.clone()]);
    j.state = JobState::Running;
    store.put_job(&j).unwrap();
    assert_eq!(store.active_jobs().unwrap(), vec![j.clone()]);
    j.state = JobState::Failed;
    store.put_job(&j).unwrap();
    assert!(store.active_jobs().unwrap().is_empty());
    assert_eq!(store.jobs().unwrap().len(), 1);
}

#[test]
fn old_reports_go_unless_their_held_suite_awaits_acceptance_and_then_free_their_suites() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let repo = RepoId(1);
    let ids: Vec<SuiteId> = (0..4)
        .map(|n| {
            std::thread::sleep(std::time::Duration::from_millis(2));
            store.store_suite(suite(repo, "k", n)).unwrap().suite
        })
        .collect();
    for (n, commit) in ["a", "b", "c"].iter().enumerate() {
        let mut r = report(repo, commit, ids[n]);
        r.created = n as u64;
        r.held = *commit == "a";
        store.put_report(&r).unwrap();
    }
    // Suites 0..2 are pinned by reports, 3 is the best: nothing goes.
    assert!(store.prune_suites(1, true).unwrap().suites.is_empty());
    let p = store.prune_reports(1, false).unwrap();
    assert_eq!(
        p.reports, 1,
        "b goes; a waits for frugal accept; c is the newest"
    );
    let left: Vec<String> = store
        .reports_of_repo(repo)
        .unwrap()
        .into_iter()
        .map(|r| r.commit)
        .collect();
    assert_eq!(left, ["a", "c"]);
    assert_eq!(store.prune_suites(1, false).unwrap().suites, vec![ids[1]]);
}
