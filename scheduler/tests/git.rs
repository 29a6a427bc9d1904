//! Polling, change detection and budgets against real git repositories made in temp dirs.

use std::path::Path;

use frugal_scheduler::*;
use frugal_storage::{CrateEntry, Store};

fn git(dir: &Path, args: &[&str]) -> String {
    let out = frugal_testkit::git(dir).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn write(dir: &Path, file: &str, text: &str) {
    let p = dir.join(file);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn commit(dir: &Path, msg: &str) -> String {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", msg]);
    git(dir, &["rev-parse", "HEAD"])
}

/// A workspace with crates `core` (crates/core) and `cli` (crates/cli).
fn repo() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    write(
        dir.path(),
        "Cargo.toml",
        "[workspace]\nmembers = [\"crates/*\"]\n",
    );
    write(dir.path(), "crates/core/src/lib.rs", "pub fn a() {}\n");
    write(dir.path(), "crates/cli/src/lib.rs", "pub fn b() {}\n");
    write(dir.path(), "README.md", "hi\n");
    let c1 = commit(dir.path(), "one");
    (dir, c1)
}

fn crates() -> Vec<CrateEntry> {
    vec![
        CrateEntry {
            name: "core".into(),
            dir: "crates/core".into(),
        },
        CrateEntry {
            name: "cli".into(),
            dir: "crates/cli/".into(),
        },
    ]
}

#[test]
fn poll_head_sees_a_new_commit_and_the_changed_files() {
    let (dir, c1) = repo();
    let head = poll_head(dir.path(), None).unwrap();
    assert_eq!(
        head,
        Head {
            commit: c1.clone(),
            changed: true
        }
    );
    assert!(!poll_head(dir.path(), Some(&c1)).unwrap().changed);

    write(
        dir.path(),
        "crates/core/src/lib.rs",
        "pub fn a() { let _ = 1; }\n",
    );
    write(dir.path(), "README.md", "hello\n");
    let c2 = commit(dir.path(), "two");
    let head = poll_head(dir.path(), Some(&c1)).unwrap();
    assert_eq!(
        head,
        Head {
            commit: c2.clone(),
            changed: true
        }
    );
    let mut files = changed_files(dir.path(), &c1, &c2).unwrap();
    files.sort();
    assert_eq!(files, ["README.md", "crates/core/src/lib.rs"]);
    assert_eq!(ancestors(dir.path(), &c2, 10).unwrap(), vec![c1.clone()]);
    assert!(ancestors(dir.path(), &c1, 10).unwrap().is_empty());
    assert!(
        ancestors(dir.path(), "--all", 10).is_err(),
        "options are not commits"
    );

    let err = poll_head(&dir.path().join("nope"), None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("git rev-parse"), "{err}");
}

#[test]
fn budgets_favour_changed_crates_and_skip_unchanged_ones() {
    let changed = vec![
        "crates/core/src/lib.rs".to_string(),
        "README.md".to_string(),
    ];
    let plan = plan_budgets(&crates(), Some(&changed), |_| false);
    assert_eq!(
        plan[0].decision,
        BudgetDecision::Run {
            budget_factor: 1.0,
            changed: true
        }
    );
    assert_eq!(plan[1].decision, BudgetDecision::Skip);

    // The schedule forces cli: core gets 3x cli's share, the total stays 2 budgets.
    let plan = plan_budgets(&crates(), Some(&changed), |k| k == "cli");
    assert_eq!(
        plan[0].decision,
        BudgetDecision::Run {
            budget_factor: 1.5,
            changed: true
        }
    );
    assert_eq!(
        plan[1].decision,
        BudgetDecision::Run {
            budget_factor: 0.5,
            changed: false
        }
    );

    // Cargo.lock changes every crate; unknown history too; a README alone changes none.
    for changed in [Some(vec!["Cargo.lock".to_string()]), None] {
        let plan = plan_budgets(&crates(), changed.as_deref(), |_| false);
        assert!(plan.iter().all(|c| c.decision
            == BudgetDecision::Run {
                budget_factor: 1.0,
                changed: true
            }));
    }
    let readme = vec!["README.md".to_string()];
    assert!(
        plan_budgets(&crates(), Some(&readme), |_| false)
            .iter()
            .all(|c| c.decision == BudgetDecision::Skip)
    );

    // A root crate owns what nested crates do not; the longest prefix wins.
    let nested = vec![
        CrateEntry {
            name: "root".into(),
            dir: "".into(),
        },
        CrateEntry {
            name: "inner".into(),
            dir: "inner".into(),
        },
    ];
    let plan = plan_budgets(&nested, Some(&["inner/src/x.rs".to_string()]), |_| false);
    assert_eq!(plan[0].decision, BudgetDecision::Skip);
    assert!(matches!(
        plan[1].decision,
        BudgetDecision::Run { changed: true, .. }
    ));
    let plan = plan_budgets(&nested, Some(&["src/lib.rs".to_string()]), |_| false);
    assert!(matches!(
        plan[0].decision,
        BudgetDecision::Run { changed: true, .. }
    ));
    assert_eq!(plan[1].decision, BudgetDecision::Skip);
}

#[test]
fn polling_a_registered_repo_queues_only_what_changed() {
    let (dir, c1) = repo();
    let state = tempfile::tempdir().unwrap();
    let s = Scheduler::new(
        Store::open(state.path()).unwrap(),
        SchedulerOptions::default(),
    );
    let repo = s
        .store()
        .add_repo(dir.path().to_str().unwrap(), crates(), None)
        .unwrap();

    // First sighting: history unknown, every crate runs.
    let first = s.poll_repo(repo.id).unwrap();
    assert_eq!(first.commit.as_deref(), Some(c1.as_str()));
    assert_eq!(first.jobs.len(), 2);
    while let Some(j) = s.claim().unwrap() {
        s.finish(j.id, JobOutcome::Succeeded { run: None }).unwrap();
    }
    assert!(
        !s.poll_repo(repo.id).unwrap().new_commit,
        "same HEAD: nothing to do"
    );

    write(
        dir.path(),
        "crates/cli/src/lib.rs",
        "pub fn b() { let _ = 2; }\n",
    );
    let c2 = commit(dir.path(), "two");
    let second = s.poll_repo(repo.id).unwrap();
    assert!(second.new_commit);
    assert_eq!(second.jobs.len(), 1);
    assert_eq!(second.jobs[0].0, "cli");
    let job = s.store().job(second.jobs[0].1.job()).unwrap().unwrap();
    assert_eq!(
        (job.reason.as_str(), job.commit.as_deref()),
        ("poll", Some(c2.as_str()))
    );
    assert_eq!(
        s.store()
            .repo(repo.id)
            .unwrap()
            .unwrap()
            .last_seen_commit
            .as_deref(),
        Some(c2.as_str())
    );

    // A schedule firing with nothing new regenerates every crate at the plain budget.
    let cron = s.on_cron(repo.id).unwrap();
    assert_eq!(cron.jobs.len(), 2);
    assert!(cron.plan.iter().all(|c| c.decision
        == BudgetDecision::Run {
            budget_factor: 1.0,
            changed: false
        }));
}

#[test]
fn user_commits_resolve_to_full_hashes_and_never_reach_git_as_options() {
    let (dir, c1) = repo();
    assert_eq!(resolve_commit(dir.path(), &c1[..8]).unwrap(), c1);
    assert_eq!(resolve_commit(dir.path(), "HEAD").unwrap(), c1);
    let out = dir.path().join("written");
    for bad in [
        format!("--output={}", out.display()),
        "HEAD~999".into(),
        "nonexistent".into(),
        String::new(),
        "a\nb".into(),
        "x".repeat(300),
    ] {
        match resolve_commit(dir.path(), &bad) {
            Err(SchedulerError::BadCommit { commit, .. }) => assert_eq!(commit, bad),
            other => panic!("{bad:?}: {other:?}"),
        }
    }
    assert!(!out.exists());
    // A tree is not a commit.
    let tree = git(dir.path(), &["rev-parse", "HEAD^{tree}"]);
    assert!(resolve_commit(dir.path(), &tree).is_err());
}
