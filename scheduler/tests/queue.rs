//! The persisted queue on a real sled store.

use frugal_scheduler::*;
use frugal_storage::{RepoId, Store};

fn open(max: usize) -> (tempfile::TempDir, Scheduler) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let opts = SchedulerOptions {
        max_concurrent: max,
        ..SchedulerOptions::default()
    };
    (dir, Scheduler::new(store, opts))
}

const R: RepoId = RepoId(1);

#[test]
fn a_burst_of_ten_triggers_yields_at_most_two_jobs() {
    let (_dir, s) = open(4);
    let mut outcomes = Vec::new();
    for i in 0..10 {
        outcomes.push(
            s.enqueue(R, "demo", Reason::Hook, Some(&format!("c{i}")))
                .unwrap(),
        );
        if i == 3 {
            // A worker picks up the first job mid-burst.
            assert!(s.claim().unwrap().is_some());
        }
    }
    let active = s.active().unwrap();
    assert_eq!(active.len(), 2, "{active:#?}");
    assert_eq!(
        outcomes
            .iter()
            .filter(|o| matches!(o, EnqueueOutcome::Enqueued(_)))
            .count(),
        2
    );
    let queued = active.iter().find(|j| j.state == JobState::Queued).unwrap();
    assert_eq!(
        queued.commit.as_deref(),
        Some("c9"),
        "the queued job builds the newest commit"
    );
    assert_eq!(queued.triggers, 6);
    // Other crates are not deduped against this one.
    assert!(matches!(
        s.enqueue(R, "other", Reason::Poll, None).unwrap(),
        EnqueueOutcome::Enqueued(_)
    ));
}

#[test]
fn dedupe_keeps_the_highest_priority_and_budget() {
    let (_dir, s) = open(1);
    let a = s.enqueue(R, "demo", Reason::Cron, None).unwrap();
    let mut spec = JobSpec::new(R, "demo", Reason::Api, Some("c2"));
    spec.budget_factor = 1.5;
    assert_eq!(
        s.enqueue_spec(spec).unwrap(),
        EnqueueOutcome::Deduped(a.job())
    );
    let job = s.store().job(a.job()).unwrap().unwrap();
    assert_eq!(
        (job.priority, job.budget_factor),
        (Reason::Api.priority(), 1.5)
    );
    assert_eq!(job.reason, "api");
}

#[test]
fn claim_and_finish() {
    let (_dir, s) = open(1);
    let id = s
        .enqueue(R, "demo", Reason::Hook, Some("c1"))
        .unwrap()
        .job();
    let job = s.claim().unwrap().unwrap();
    assert_eq!(job.id, id);
    assert_eq!((job.state, job.attempts), (JobState::Running, 1));
    assert!(job.lease_until.unwrap() > job.started.unwrap());
    assert!(s.claim().unwrap().is_none(), "nothing else queued");
    s.renew(id).unwrap();
    let done = s
        .finish(
            id,
            JobOutcome::Succeeded {
                run: Some(frugal_storage::RunId(9)),
            },
        )
        .unwrap();
    assert_eq!(done.state, JobState::Succeeded);
    assert_eq!(done.run, Some(frugal_storage::RunId(9)));
    assert!(matches!(
        s.finish(id, JobOutcome::Cancelled),
        Err(SchedulerError::NotRunning { .. })
    ));
    let id2 = s.enqueue(R, "demo", Reason::Hook, None).unwrap().job();
    assert_ne!(id, id2, "a finished job is not a dedupe target");
    s.claim().unwrap().unwrap();
    let failed = s
        .finish(
            id2,
            JobOutcome::Failed {
                error: "build failed".into(),
                run: None,
            },
        )
        .unwrap();
    assert_eq!(failed.outcome.as_deref(), Some("build failed"));
    assert_eq!(s.prune_finished(1).unwrap(), 1);
    assert_eq!(s.jobs().unwrap().len(), 1);
}

#[test]
fn claim_order_is_priority_then_age() {
    let (_dir, s) = open(3);
    let cron = s.enqueue(R, "a", Reason::Cron, None).unwrap().job();
    let poll = s.enqueue(R, "b", Reason::Poll, None).unwrap().job();
    let api = s.enqueue(R, "c", Reason::Api, None).unwrap().job();
    let order: Vec<_> = (0..3).map(|_| s.claim().unwrap().unwrap().id).collect();
    assert_eq!(order, vec![api, poll, cron]);
}

#[test]
fn the_concurrency_limit_holds_and_a_running_crate_is_not_claimed_twice() {
    let (_dir, s) = open(2);
    for k in ["a", "b", "c"] {
        s.enqueue(R, k, Reason::Hook, None).unwrap();
    }
    let first = s.claim().unwrap().unwrap();
    let second = s.claim().unwrap().unwrap();
    assert!(s.claim().unwrap().is_none(), "limit of 2 running");
    s.finish(first.id, JobOutcome::Succeeded { run: None })
        .unwrap();
    // A new job for the crate still running must wait even though a slot is free.
    s.enqueue(R, &second.krate, Reason::Api, None).unwrap();
    let third = s.claim().unwrap().unwrap();
    assert_eq!(third.krate, "c");
    assert!(s.claim().unwrap().is_none());
    s.finish(second.id, JobOutcome::Succeeded { run: None })
        .unwrap();
    assert_eq!(s.claim().unwrap().unwrap().krate, second.krate);
}

#[test]
fn recover_requeues_jobs_in_flight_after_a_simulated_crash() {
    let dir = tempfile::tempdir().unwrap();
    let (running, other) = {
        let s = Scheduler::new(
            Store::open(dir.path()).unwrap(),
            SchedulerOptions::default(),
        );
        s.enqueue(R, "demo", Reason::Hook, Some("c1")).unwrap();
        let running = s.claim().unwrap().unwrap();
        let other = s.enqueue(R, "other", Reason::Hook, None).unwrap().job();
        // The process "dies": dropped without finishing.
        (running.id, other)
    };
    let s = Scheduler::new(
        Store::open(dir.path()).unwrap(),
        SchedulerOptions::default(),
    );
    let rec = s.recover().unwrap();
    assert_eq!(rec.requeued, vec![running]);
    let job = s.store().job(running).unwrap().unwrap();
    assert_eq!(job.state, JobState::Queued);
    assert_eq!(job.commit.as_deref(), Some("c1"));
    // It runs again (before the younger job of the same priority).
    let again = s.claim().unwrap().unwrap();
    assert_eq!((again.id, again.attempts), (running, 2));
    assert_eq!(
        s.store().job(other).unwrap().unwrap().state,
        JobState::Queued
    );
}

#[test]
fn recover_merges_into_a_queued_job_and_gives_up_after_max_attempts() {
    let dir = tempfile::tempdir().unwrap();
    let opts = SchedulerOptions {
        max_attempts: 2,
        ..SchedulerOptions::default()
    };
    let s = Scheduler::new(Store::open(dir.path()).unwrap(), opts);
    let first = s
        .enqueue(R, "demo", Reason::Hook, Some("c1"))
        .unwrap()
        .job();
    s.claim().unwrap().unwrap();
    let queued = s
        .enqueue(R, "demo", Reason::Poll, Some("c2"))
        .unwrap()
        .job();
    let rec = s.recover().unwrap();
    assert_eq!(rec.merged, vec![(first, queued)]);
    let q = s.store().job(queued).unwrap().unwrap();
    assert_eq!(
        (q.commit.as_deref(), q.priority),
        (Some("c2"), Reason::Hook.priority())
    );

    // The merged job dies twice: then it is failed, not retried forever.
    s.claim().unwrap().unwrap();
    assert_eq!(s.recover().unwrap().requeued, vec![queued]);
    s.claim().unwrap().unwrap();
    assert_eq!(s.recover().unwrap().failed, vec![queued]);
    assert_eq!(
        s.store().job(queued).unwrap().unwrap().state,
        JobState::Failed
    );
    assert!(s.claim().unwrap().is_none());
}

#[test]
fn expired_leases_are_requeued() {
    let (_dir, s) = open(1);
    let id = s.enqueue(R, "demo", Reason::Hook, None).unwrap().job();
    let job = s.claim().unwrap().unwrap();
    let lease = job.lease_until.unwrap();
    assert!(s.requeue_expired(lease).unwrap().requeued.is_empty());
    assert_eq!(s.requeue_expired(lease + 1).unwrap().requeued, vec![id]);
    assert!(s.cancel(id).unwrap());
    assert!(s.claim().unwrap().is_none());
}

#[test]
fn cron_parses_five_six_and_seven_fields_and_finds_the_next_time() {
    // 2026-01-01T00:00:00Z is a Thursday.
    let t0 = 1_767_225_600_000u64;
    let hour = 3_600_000;
    let day = 24 * hour;
    let five = CronSchedule::parse("0 3 * * *").unwrap();
    assert_eq!(five.next_due(t0), Some(t0 + 3 * hour));
    let six = CronSchedule::parse("30 0 3 * * *").unwrap();
    assert_eq!(six.next_due(t0), Some(t0 + 3 * hour + 30_000));
    let seven = CronSchedule::parse("0 0 3 * * * 2027").unwrap();
    assert_eq!(seven.next_due(t0), Some(t0 + 365 * day + 3 * hour));
    assert_eq!(
        CronSchedule::parse("0 0 3 * * * 2020")
            .unwrap()
            .next_due(t0),
        None
    );
    // crontab weekday 1 is Monday: the first Monday after Thu 1 Jan is 5 Jan.
    let monday = CronSchedule::parse("0 3 * * 1").unwrap();
    assert_eq!(monday.next_due(t0), Some(t0 + 4 * day + 3 * hour));
    assert!(five.due_between(t0, t0 + 3 * hour));
    assert!(!five.due_between(t0, t0 + 3 * hour - 1));
    assert!(!five.due_between(t0 + 3 * hour, t0 + 4 * hour));
    assert!(CronSchedule::parse("0 3 * *").is_err());
    assert!(CronSchedule::parse("0 25 * * *").is_err());
}

#[test]
fn due_repos_uses_the_repo_schedule_or_the_default_unless_it_is_off() {
    let (_dir, s) = open(1);
    let t0 = 1_767_225_600_000u64;
    let hour = 3_600_000;
    let own = s
        .store()
        .add_repo("/a", vec![], Some("0 1 * * *".into()))
        .unwrap();
    let plain = s.store().add_repo("/b", vec![], None).unwrap();
    let default = CronSchedule::parse("0 2 * * *").unwrap();
    assert_eq!(
        s.due_repos(Some(&default), t0, t0 + hour).unwrap(),
        vec![own.id]
    );
    assert_eq!(
        s.due_repos(Some(&default), t0 + hour, t0 + 2 * hour)
            .unwrap(),
        vec![plain.id]
    );
    assert!(
        s.due_repos(None, t0 + hour, t0 + 2 * hour)
            .unwrap()
            .is_empty()
    );
    // `off`: not even the default's hour makes it due.
    let off = s
        .store()
        .add_repo("/c", vec![], Some("off".into()))
        .unwrap();
    let due = s
        .due_repos(Some(&default), t0 + hour, t0 + 2 * hour)
        .unwrap();
    assert!(!due.contains(&off.id) && due.contains(&plain.id), "{due:?}");
}

#[test]
fn claim_never_decodes_finished_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let finished = {
        let s = Scheduler::new(
            Store::open(dir.path()).unwrap(),
            SchedulerOptions::default(),
        );
        let done = s.enqueue(R, "old", Reason::Api, None).unwrap().job();
        assert_eq!(s.claim().unwrap().unwrap().id, done);
        s.finish(done, JobOutcome::Succeeded { run: None }).unwrap();
        s.enqueue(R, "new", Reason::Api, None).unwrap();
        done
    };
    // The finished job's record becomes unreadable: only a reader that decodes it fails.
    let db = frugal_storage::open_raw(dir.path()).unwrap();
    db.open_tree("jobs")
        .unwrap()
        .insert(finished.0.to_be_bytes(), b"not json".to_vec())
        .unwrap();
    db.flush().unwrap();
    drop(db);
    let s = Scheduler::new(
        Store::open(dir.path()).unwrap(),
        SchedulerOptions::default(),
    );
    let job = s.claim().unwrap().expect("the queued job is claimed");
    assert_eq!(job.krate, "new");
    assert_eq!(s.active().unwrap().len(), 1);
    assert!(
        s.jobs().is_err(),
        "the full listing still decodes everything"
    );
}

/// Figures, not a check (`cargo test --release -p frugal-scheduler --test queue -- --ignored
/// --nocapture`): how long a claim takes beside 10 and 5000 finished jobs.
#[test]
#[ignore]
fn claim_time_beside_finished_jobs() {
    for finished in [10usize, 5000] {
        let (_dir, s) = open(1);
        for i in 0..finished {
            let id = s
                .enqueue(R, &format!("c{i}"), Reason::Api, None)
                .unwrap()
                .job();
            s.claim().unwrap();
            s.finish(id, JobOutcome::Succeeded { run: None }).unwrap();
        }
        let rounds = 50;
        let t = std::time::Instant::now();
        for _ in 0..rounds {
            let id = s.enqueue(R, "k", Reason::Api, None).unwrap().job();
            s.claim().unwrap();
            s.finish(id, JobOutcome::Succeeded { run: None }).unwrap();
        }
        let per = t.elapsed() / rounds;
        println!("{finished} finished jobs: enqueue + claim + finish in {per:?}");
    }
}

#[test]
fn one_token_queues_at_most_its_share_and_merges_cost_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let opts = SchedulerOptions {
        max_queued_per_token: 2,
        ..SchedulerOptions::default()
    };
    let s = Scheduler::new(Store::open(dir.path()).unwrap(), opts);
    let by = |krate: &str, who: Option<&str>| {
        let mut spec = JobSpec::new(R, krate, Reason::Api, Some("c1"));
        spec.by = who.map(str::to_string);
        s.enqueue_spec(spec)
    };
    assert!(matches!(
        by("a", Some("token 1")),
        Ok(EnqueueOutcome::Enqueued(_))
    ));
    assert!(matches!(
        by("b", Some("token 1")),
        Ok(EnqueueOutcome::Enqueued(_))
    ));
    // Into a queued job: nothing new, so within the share.
    assert!(matches!(
        by("a", Some("token 1")),
        Ok(EnqueueOutcome::Deduped(_))
    ));
    match by("c", Some("token 1")) {
        Err(SchedulerError::QueueFull { queued, limit, .. }) => {
            assert_eq!((queued, limit), (2, 2));
        }
        other => panic!("a third crate was queued: {other:?}"),
    }
    // Another token, and polls and schedules (no token), are not held back by it.
    assert!(matches!(
        by("c", Some("token 2")),
        Ok(EnqueueOutcome::Enqueued(_))
    ));
    assert!(matches!(by("d", None), Ok(EnqueueOutcome::Enqueued(_))));
    // Once one of its jobs runs, the token has room again.
    let claimed = s.claim().unwrap().unwrap();
    assert_eq!(claimed.krate, "a");
    assert!(matches!(
        by("e", Some("token 1")),
        Ok(EnqueueOutcome::Enqueued(_))
    ));
}
