//! Store tests on a real PostgreSQL (Debian's `postgresql`, started in a temp dir by
//! `frugal_testkit::postgres`): the cases of `cases/store.rs`, which `store.rs` runs on sled,
//! then what only a shared database has (nodes opening it at once, concurrent claims).

mod backend {
    //! Stores in databases of one PostgreSQL server started for this test binary.
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use frugal_storage::{PgOptions, Store};
    use frugal_testkit::postgres::Postgres;

    /// A database of the shared server.
    pub struct Place {
        pub url: String,
    }

    pub fn server() -> &'static Postgres {
        static PG: OnceLock<Postgres> = OnceLock::new();
        PG.get_or_init(|| Postgres::start().unwrap_or_else(|e| panic!("{e:#}")))
    }

    pub fn place() -> Place {
        static N: AtomicUsize = AtomicUsize::new(0);
        let db = format!(
            "t{}_{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        );
        server().create_db(&db).unwrap();
        Place {
            url: server().url(&db),
        }
    }

    pub fn open_at(p: &Place) -> Store {
        Store::open_postgres(&PgOptions::new(&p.url, 8)).unwrap()
    }

    pub fn open() -> (Place, Store) {
        let p = place();
        let s = open_at(&p);
        (p, s)
    }
}

include!("cases/store.rs");

#[test]
fn nodes_that_open_one_database_at_once_migrate_it_once() {
    let place = backend::place();
    let stores: Vec<Store> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| backend::open_at(&place)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for s in &stores {
        assert_eq!(s.schema_version().unwrap(), Some(SCHEMA_VERSION));
    }
    let db = place.url.rsplit("dbname=").next().unwrap();
    let steps = backend::server()
        .psql(db, "SELECT count(*) FROM frugal_schema")
        .unwrap();
    assert_eq!(steps, "2", "each SQL step applied once");
    let repo = stores[0].add_repo("/r", vec![], None).unwrap();
    assert_eq!(stores[3].repo(repo.id).unwrap(), Some(repo));
}

#[test]
fn concurrent_claims_take_each_job_once_and_one_per_crate() {
    let (_p, store) = backend::open();
    let repo = store.add_repo("/r", vec![], None).unwrap().id;
    // 40 crates, one queued job each.
    for i in 0..40 {
        let id = store.next_job_id().unwrap();
        store
            .put_job(&JobRecord::new(id, repo, format!("c{i}"), "api", 1))
            .unwrap();
    }
    let claimed = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for n in 0..6 {
            let store = store.clone();
            let claimed = &claimed;
            s.spawn(move || {
                loop {
                    let got = store
                        .jobs_tx(|tx| {
                            let Some(mut j) = tx.claimable(4)?.into_iter().next() else {
                                return Ok(Ok::<_, ()>(None));
                            };
                            j.state = JobState::Running;
                            j.node = Some(format!("n{n}"));
                            tx.put(&j)?;
                            Ok(Ok(Some(j)))
                        })
                        .unwrap()
                        .unwrap();
                    match got {
                        Some(j) => claimed.lock().unwrap().push(j.id),
                        None => break,
                    }
                }
            });
        }
    });
    let mut ids = claimed.into_inner().unwrap();
    ids.sort();
    let before = ids.len();
    ids.dedup();
    assert_eq!(before, 40, "every job claimed");
    assert_eq!(ids.len(), 40, "no job claimed twice");

    // A second queued job of a running crate is not claimable, and the database refuses a
    // second running job of one crate whatever a caller does.
    let id = store.next_job_id().unwrap();
    store
        .put_job(&JobRecord::new(id, repo, "c0", "api", 9))
        .unwrap();
    let none = store
        .jobs_tx(|tx| Ok(Ok::<_, ()>(tx.claimable(10)?)))
        .unwrap()
        .unwrap();
    assert!(none.is_empty(), "{none:?}");
    let mut twin = store.job(id).unwrap().unwrap();
    twin.state = JobState::Running;
    let err = store.put_job(&twin).unwrap_err();
    assert!(err.to_string().contains("frugal_jobs_one_running"), "{err}");
}

#[test]
fn a_stopped_database_is_reported_unavailable() {
    // A server of its own: stopping the shared one would fail the other tests.
    let pg = frugal_testkit::postgres::Postgres::start().unwrap();
    let mut opts = PgOptions::new(pg.url("postgres"), 2);
    opts.connect_timeout = std::time::Duration::from_secs(1);
    let store = Store::open_postgres(&opts).unwrap();
    let repo = store.add_repo("/r", vec![], None).unwrap();
    pg.stop().unwrap();
    let err = store.repo(repo.id).unwrap_err();
    assert!(err.is_unavailable(), "{err}");
    pg.start_server().unwrap();
    let mut back = None;
    for _ in 0..50 {
        match store.repo(repo.id) {
            Ok(r) => {
                back = r;
                break;
            }
            Err(e) => assert!(e.is_unavailable(), "{e}"),
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(
        back,
        Some(repo),
        "the pool reconnects once the server is back"
    );
}

#[test]
fn nodes_taking_cron_windows_at_once_cover_time_once() {
    let place = backend::place();
    let stores: Vec<Store> = (0..4).map(|_| backend::open_at(&place)).collect();
    stores[0].take_cron_window(1_000, u64::MAX).unwrap();
    let windows = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for store in &stores {
            let windows = &windows;
            s.spawn(move || {
                for now in (2_000..=40_000).step_by(1_000) {
                    if let Some(from) = store.take_cron_window(now, u64::MAX).unwrap() {
                        windows.lock().unwrap().push((from, now));
                    }
                }
            });
        }
    });
    let mut w = windows.into_inner().unwrap();
    w.sort();
    // Back to back from the first clock to the last: no window twice, no gap.
    assert_eq!(w.first().map(|x| x.0), Some(1_000), "{w:?}");
    assert_eq!(w.last().map(|x| x.1), Some(40_000), "{w:?}");
    assert!(w.windows(2).all(|p| p[0].1 == p[1].0), "{w:?}");
}
