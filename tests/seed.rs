//! A store filled with realistic history for API tests and the load test, written through the
//! store's JSON-lines import (one flush), so 10,000 runs take a second rather than 10,000 fsyncs.

use std::path::Path;

use frugal_storage::{
    Cost, CrateEntry, ExportLine, GoalSet, RepoId, RepoRecord, RunId, RunProgress, RunRecord,
    RunStatus, SCHEMA_VERSION, Store, SuiteId, SuiteRecord, TestRecord, TestRecordId,
};

/// What [`history`] stored.
pub struct Seeded {
    pub repo: u64,
    pub best_suite: u64,
}

/// A store in `<state>/store` with one repository at `repo_path` (crate `numeric`), `runs`
/// finished runs and `suites` suites (60 tests each, a 40 KB source), the newest the best.
pub fn history(state: &Path, repo_path: &str, runs: u64, suites: u64) -> Seeded {
    let store = Store::open(state.join("store")).expect("open the store to seed");
    history_into(&store, repo_path, runs, suites)
}

/// [`history`] into an empty `store` of any backend.
pub fn history_into(store: &Store, repo_path: &str, runs: u64, suites: u64) -> Seeded {
    let repo = RepoId(1);
    let mut lines = vec![
        ExportLine::Meta {
            schema_version: SCHEMA_VERSION,
        },
        ExportLine::Repo(RepoRecord {
            id: repo,
            path: repo_path.to_string(),
            crates: vec![CrateEntry {
                name: "numeric".into(),
                dir: String::new(),
            }],
            schedule: None,
            hooks_installed: false,
            added_at: 1,
            last_seen_commit: None,
        }),
    ];
    let mut next = 10u64;
    let mut id = || {
        next += 1;
        next
    };
    let tests: Vec<TestRecordId> = (0..60).map(|_| TestRecordId(id())).collect();
    let source = "#[test]\nfn t() { assert_eq!(numeric::gcd(4, 6), 2); }\n".repeat(800);
    let mut best = SuiteId(0);
    for i in 0..suites.max(1) {
        best = SuiteId(id());
        if i == 0 {
            for (k, t) in tests.iter().enumerate() {
                lines.push(ExportLine::Test(TestRecord {
                    id: *t,
                    suite: best,
                    name: format!("test_{k}"),
                    goals: (k as u32 * 3..k as u32 * 3 + 20).collect::<GoalSet>(),
                    cost: Some(Cost::new("instructions/hardware-perf", 1e6 + k as f64)),
                    proxies: Default::default(),
                }));
            }
        }
        lines.push(ExportLine::Suite(SuiteRecord {
            id: best,
            repo,
            krate: "numeric".into(),
            commit: Some(format!("{i:040x}")),
            created: 1000 + i,
            source: source.clone(),
            goals_total: 300,
            goals_covered: (0..200).collect::<GoalSet>(),
            total_cost: None,
            proxy_cost: 60.0,
            tests: tests.clone(),
            run: None,
            model: None,
            mutation: None,
        }));
    }
    lines.push(ExportLine::Best {
        repo,
        krate: "numeric".into(),
        suite: best,
    });
    for i in 0..runs {
        lines.push(ExportLine::Run(RunRecord {
            id: RunId(id()),
            repo,
            krate: "numeric".into(),
            commit: Some(format!("{i:040x}")),
            status: RunStatus::Succeeded,
            started: 1000 + i,
            finished: Some(2000 + i),
            progress: RunProgress::default(),
            summary_json: Some(serde_json::json!({"goals": 300, "covered": 200})),
            job: None,
            suite: None,
        }));
    }
    let mut text = Vec::new();
    for l in &lines {
        serde_json::to_writer(&mut text, l).expect("records serialize");
        text.push(b'\n');
    }
    store.import_jsonl(&text[..]).expect("import the seed");
    Seeded {
        repo: repo.0,
        best_suite: best.0,
    }
}
