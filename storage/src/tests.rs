//! Unit tests that need the store's private trees.

use super::*;

fn suite(repo: RepoId, n: &str, goals: &[u32]) -> NewSuite {
    NewSuite {
        repo,
        krate: "k".into(),
        commit: Some("c1".into()),
        source: format!("// suite {n}"),
        goals_total: 10,
        total_cost: None,
        proxy_cost: 1.0,
        tests: goals
            .iter()
            .map(|g| NewTest {
                name: format!("t_{n}_{g}"),
                goals: GoalSet::from(vec![*g]),
                cost: None,
                proxies: Default::default(),
            })
            .collect(),
        run: None,
        model: None,
        hold: false,
    }
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
        .insert(key(first.suite.0), b"not json".to_vec())
        .unwrap();
    let (suites_before, tests_before) = (store.suites.len(), store.tests.len());

    let err = store.store_suite(suite(repo, "b", &[1, 2, 3])).unwrap_err();
    assert!(
        matches!(err, StoreError::Corrupt { tree: "suites", .. }),
        "{err}"
    );
    assert_eq!(store.suites.len(), suites_before);
    assert_eq!(store.tests.len(), tests_before);
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
    assert!(store.suites.is_empty() && store.tests.is_empty());
}
