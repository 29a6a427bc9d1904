//! Unit tests that need the store's private trees.

use super::*;

fn suite(repo: RepoId, n: &str, goals: &[u32]) -> NewSuite {
    let tests = goals
        .iter()
        .map(|g| NewTest::new(format!("t_{n}_{g}"), GoalSet::from(vec![*g])))
        .collect();
    NewSuite {
        commit: Some("c1".into()),
        source: format!("// suite {n}"),
        goals_total: 10,
        proxy_cost: 1.0,
        ..NewSuite::new(repo, "k", tests)
    }
}

/// At equal coverage, frugal's own mutants decide before cost: a suite that kills fewer never
/// replaces the best, however cheap; one that kills more does, however dear.
#[test]
fn kills_decide_before_cost_at_equal_coverage() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let repo = RepoId(3);
    let with = |n: &str, killed: u32, proxy_cost: f64| NewSuite {
        proxy_cost,
        mutation: Some(MutationFigures {
            mutants: 10,
            killed,
            survived: 10 - killed,
            not_infected: 0,
        }),
        ..suite(repo, n, &[1, 2])
    };
    let first = store.store_suite(with("a", 6, 5.0)).unwrap();
    let cheaper = store.store_suite(with("b", 5, 1.0)).unwrap();
    assert_eq!(cheaper.reason, BestReason::FewerKills { old: 6, new: 5 });
    assert_eq!(store.best_id(repo, "k").unwrap(), Some(first.suite));
    let dearer = store.store_suite(with("c", 7, 9.0)).unwrap();
    assert_eq!(dearer.reason, BestReason::MoreKills { old: 6, new: 7 });
    assert_eq!(store.best_id(repo, "k").unwrap(), Some(dearer.suite));
    // Without figures on one side, cost decides as before.
    let plain = store.store_suite(suite(repo, "d", &[1, 2])).unwrap();
    assert_eq!(
        plain.reason,
        BestReason::CheaperProxy { old: 9.0, new: 1.0 }
    );
}

#[test]
fn a_failed_transaction_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let repo = RepoId(7);
    let first = store.store_suite(suite(repo, "a", &[1, 2])).unwrap();
    // Corrupt the current best suite: the rule cannot read it, so the transaction aborts after
    // it has already written the new tests and suite.
    store
        .suites
        .insert(key(first.suite.0), b"not json")
        .unwrap();
    let (suites_before, tests_before) = (store.suites.len().unwrap(), store.tests.len().unwrap());

    let err = store.store_suite(suite(repo, "b", &[1, 2, 3])).unwrap_err();
    assert!(
        matches!(err, StoreError::Corrupt { tree: "suites", .. }),
        "{err}"
    );
    assert_eq!(store.suites.len().unwrap(), suites_before);
    assert_eq!(store.tests.len().unwrap(), tests_before);
    assert_eq!(store.best_id(repo, "k").unwrap(), Some(first.suite));
}

#[test]
fn duplicate_test_names_are_refused_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let mut s = suite(RepoId(1), "a", &[1, 2]);
    s.tests[1].name = s.tests[0].name.clone();
    let err = store.store_suite(s).unwrap_err();
    assert!(err.to_string().contains("appears twice"), "{err}");
    assert!(store.suites.is_empty().unwrap() && store.tests.is_empty().unwrap());
}

/// Every reader (and the pruning and export that decode whole trees) over the store, the ids
/// taken from `k`: each must answer a value or an error.
fn read_everything(store: &Store, k: &[u8]) {
    let id = k
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .map_or(1, u64::from_be_bytes);
    let (repo, krate) = (RepoId(id), "k");
    let _ = store.schema_version();
    let _ = (store.repos(), store.repo(repo), store.repo_by_path("/r"));
    let _ = (store.runs(repo, None), store.run(RunId(id)));
    let _ = (store.suites(repo, Some(krate)), store.suite(SuiteId(id)));
    let _ = (store.test(TestRecordId(id)), store.best(repo, krate));
    let _ = (store.jobs(), store.active_jobs(), store.job(JobId(id)));
    let _ = store.suite_of_job(JobId(id));
    let _ = (store.reports_of_repo(repo), store.report(repo, "c", krate));
    let _ = store.replacement(repo, krate, SuiteId(id), "cpu", "own");
    let _ = store.intern_goals(repo, krate, &["src/lib.rs:1:if"]);
    let _ = (store.prune_suites(1, true), store.prune_runs(1, true));
    let _ = (
        store.prune_jobs(1, true),
        store.remove_repo_data(repo, true),
    );
    let _ = store.export_jsonl(std::io::sink());
}

#[test]
fn arbitrary_bytes_in_any_tree_are_errors_not_panics() {
    use proptest::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    // Real records beside the fuzzed ones, so every reader has something to walk.
    let repo = store.add_repo("/r", vec![], None).unwrap().id;
    store.store_suite(suite(repo, "a", &[1, 2])).unwrap();
    store.create_run(repo, "k", Some("c"), None).unwrap();
    let trees: Vec<(&str, crate::kv::Tree)> = [
        ("repos", &store.repos),
        ("runs", &store.runs),
        ("suites", &store.suites),
        ("tests", &store.tests),
        ("best", &store.best),
        ("jobs", &store.jobs),
        ("jobs_active", &store.jobs_active),
        ("goals", &store.goals),
        ("meta", &store.meta),
        ("replacements", &store.replacements),
        ("job_suites", &store.job_suites),
        ("reports", &store.reports),
    ]
    .into_iter()
    .map(|(n, t)| (n, t.clone()))
    .collect();
    let key = prop_oneof![
        any::<u64>().prop_map(|id| id.to_be_bytes().to_vec()),
        (1u64..4).prop_map(|id| id.to_be_bytes().to_vec()),
        proptest::collection::vec(any::<u8>(), 0..24),
        Just(SCHEMA_KEY.to_vec()),
        Just({
            let mut k = b"goalseq/".to_vec();
            k.extend_from_slice(&goal_prefix(RepoId(1), "k"));
            k
        }),
    ];
    let value = prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..64),
        Just(u32::MAX.to_be_bytes().to_vec()),
        "\\{\"[a-z_]{1,8}\": ?(1|null|\"x\"|\\[\\]|\\{\\})\\}".prop_map(String::into_bytes),
    ];
    let case = (0..trees.len(), key, value);
    frugal_testkit::fuzz::fuzz("storage records", case, |(t, k, v)| {
        let (_, tree) = &trees[t];
        let old = tree.get(&k).unwrap();
        tree.insert(&k, v).unwrap();
        read_everything(&store, &k);
        match old {
            Some(o) => tree.insert(&k, o).unwrap(),
            None => drop(tree.remove(&k).unwrap()),
        };
        Ok(())
    });
}

#[test]
fn arbitrary_export_lines_import_or_fail_cleanly() {
    use proptest::prelude::*;
    let line = prop_oneof![
        any::<String>(),
        "\\{\"kind\": ?\"(meta|repo|run|suite|test|best|job|goal|report)\"(, ?\"[a-z_]{1,14}\": ?(1|null|\"x\"|\\[\\]|\\{\\}|4294967295|-1)){0,6}\\}",
        Just(r#"{"kind":"meta","schema_version":99}"#.to_string()),
        prop_oneof![Just(u32::MAX), any::<u32>()].prop_map(|id| format!(
            r#"{{"kind":"goal","repo":1,"krate":"k","key":"g","id":{id}}}"#
        )),
    ];
    frugal_testkit::fuzz::fuzz(
        "storage import",
        proptest::collection::vec(line, 0..4),
        |lines| {
            let dir = tempfile::tempdir().unwrap();
            let store = Store::open(dir.path()).unwrap();
            let _ = store.import_jsonl(lines.join("\n").as_bytes());
            read_everything(&store, &[]);
            Ok(())
        },
    );
}
