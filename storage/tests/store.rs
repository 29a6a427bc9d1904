//! Store tests on real sled databases in temp dirs.

mod backend {
    //! Stores on sled in temp dirs.
    use frugal_storage::Store;

    pub type Place = tempfile::TempDir;

    pub fn place() -> Place {
        tempfile::tempdir().unwrap()
    }

    pub fn open_at(p: &Place) -> Store {
        Store::open(p.path()).unwrap()
    }

    pub fn open() -> (Place, Store) {
        let p = place();
        let s = open_at(&p);
        (p, s)
    }
}

include!("cases/store.rs");

#[test]
fn a_newer_schema_is_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    drop(Store::open_with_migrations(dir.path(), SCHEMA_VERSION + 1, &[]).unwrap());
    let err = Store::open(dir.path())
        .err()
        .expect("newer schema must be refused");
    let msg = err.to_string();
    assert!(matches!(err, StoreError::NewerSchema { .. }), "{msg}");
    assert!(
        msg.contains(&format!("schema version is {}", SCHEMA_VERSION + 1)),
        "{msg}"
    );
    assert!(msg.contains(&dir.path().display().to_string()), "{msg}");
}

#[test]
fn migrations_run_at_open_and_a_missing_one_is_an_error() {
    fn add_hooks(store: &Store) -> Result<()> {
        for mut r in store.repos()? {
            r.hooks_installed = true;
            store.put_repo(&r)?;
        }
        Ok(())
    }
    let dir = tempfile::tempdir().unwrap();
    let id = {
        let store = Store::open_with_migrations(dir.path(), 1, &[]).unwrap();
        store.add_repo("/r", vec![], None).unwrap().id
    };
    let err = Store::open_with_migrations(dir.path(), 2, &[])
        .err()
        .unwrap();
    assert!(
        matches!(
            err,
            StoreError::NoMigration {
                found: 1,
                target: 2,
                ..
            }
        ),
        "{err}"
    );
    let table = [Migration {
        from: 1,
        to: 2,
        description: "hooks on",
        apply: add_hooks,
    }];
    let store = Store::open_with_migrations(dir.path(), 2, &table).unwrap();
    assert_eq!(store.schema_version().unwrap(), Some(2));
    assert!(store.repo(id).unwrap().unwrap().hooks_installed);
}
