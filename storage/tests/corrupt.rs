//! Hand-corrupted records (written straight into the sled trees) are errors, never panics.

use frugal_storage::*;

fn crates() -> Vec<CrateEntry> {
    vec![CrateEntry {
        name: "demo".into(),
        dir: "".into(),
    }]
}

fn suite(repo: RepoId) -> NewSuite {
    NewSuite {
        commit: Some("abc".into()),
        source: "#[test]\nfn t() {}\n".into(),
        goals_total: 2,
        proxy_cost: 1.0,
        ..NewSuite::new(
            repo,
            "demo",
            vec![NewTest::new("t", GoalSet::from(vec![0]))],
        )
    }
}

/// Overwrites (or adds) raw entries of the store's trees while no `Store` holds the database.
fn poke(dir: &std::path::Path, entries: &[(&str, Vec<u8>, &[u8])]) {
    let db = frugal_storage::open_raw(dir).unwrap();
    for (tree, key, value) in entries {
        db.open_tree(tree).unwrap().insert(key, *value).unwrap();
    }
    db.flush().unwrap();
}

fn best_key(repo: RepoId, krate: &str) -> Vec<u8> {
    let mut k = repo.0.to_be_bytes().to_vec();
    k.extend_from_slice(krate.as_bytes());
    k
}

#[test]
fn short_best_goal_and_sequence_values_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let repo = {
        let store = Store::open(dir.path()).unwrap();
        let repo = store.add_repo("/srv/demo", crates(), None).unwrap().id;
        store.store_suite(suite(repo)).unwrap();
        store.intern_goals(repo, "demo", &["a", "b"]).unwrap();
        store.flush().unwrap();
        repo
    };
    let mut goal_key = best_key(repo, "demo");
    goal_key.push(0);
    goal_key.extend_from_slice(b"a");
    let mut seq_key = b"goalseq/".to_vec();
    seq_key.extend_from_slice(&best_key(repo, "demo"));
    seq_key.push(0);
    poke(
        dir.path(),
        &[
            ("best", best_key(repo, "demo"), &[1, 2, 3]),
            ("goals", goal_key, &[9]),
            ("meta", seq_key, &[]),
        ],
    );

    let store = Store::open(dir.path()).unwrap();
    let e = store.best_id(repo, "demo").unwrap_err();
    assert!(
        matches!(e, StoreError::BadValue { tree: "best", .. }),
        "{e}"
    );
    assert!(e.to_string().contains("3 bytes"), "{e}");
    assert!(store.best(repo, "demo").is_err());
    assert!(store.store_suite(suite(repo)).is_err());
    let e = store.intern_goals(repo, "demo", &["a", "c"]).unwrap_err();
    assert!(matches!(e, StoreError::BadValue { .. }), "{e}");
    assert!(store.export_jsonl(Vec::new()).is_err());
}

#[test]
fn a_short_schema_version_or_best_key_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    drop(Store::open(dir.path()).unwrap());
    poke(dir.path(), &[("meta", b"schema_version".to_vec(), &[1])]);
    let e = Store::open(dir.path())
        .err()
        .expect("a corrupt schema version opens");
    assert!(
        matches!(e, StoreError::BadValue { tree: "meta", .. }),
        "{e}"
    );

    let dir = tempfile::tempdir().unwrap();
    drop(Store::open(dir.path()).unwrap());
    // A best key too short to hold a repository id.
    poke(
        dir.path(),
        &[("best", b"abc".to_vec(), &7u64.to_be_bytes())],
    );
    let store = Store::open(dir.path()).unwrap();
    let e = store.export_jsonl(Vec::new()).unwrap_err();
    assert!(
        matches!(e, StoreError::BadValue { tree: "best", .. }),
        "{e}"
    );
}
