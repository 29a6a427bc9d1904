//! Load test of frugald's read endpoints on loopback with real data: a store of 10,000 runs and
//! 2,000 suites (60 tests and a 40 KB source each), and a job running (a real generation job on
//! `examples/numeric`, so cargo competes for the cores). Requests go at a fixed 500 per second
//! to `/healthz` and every read endpoint (lists, pages, the best suite, status, metrics); it
//! prints p50/p99 overall and per path, and checks that frugald kept pinging systemd's watchdog
//! throughout (no gap as long as its 2 s limit). The target is p99 under 10 ms, judged on the
//! full run; this smoke version (3 s) asserts no errors and no stall (p99 under 1 s), so a loaded
//! CI host cannot make it flake. The full run, bounded to 30 s of load:
//!
//! ```sh
//! FRUGAL_LOAD_SECS=30 cargo test --release -p frugal-e2e --test load -- --nocapture
//! ```
//!
//! `FRUGAL_LOAD_RUNS` and `FRUGAL_LOAD_SUITES` change the amount of history;
//! `FRUGAL_LOAD_STORE=postgres` runs the same load against a node whose store is a real
//! PostgreSQL started in a temp dir (`bench/fleet.py` runs both and compares them).

mod seed;

use std::collections::BTreeMap;
use std::os::unix::net::UnixDatagram;
use std::time::{Duration, Instant};

use frugal_storage::{Cost, CrateEntry, GoalSet, NewSuite, NewTest, Store};
use frugal_testkit::load::{self, LoadSpec};
use frugal_testkit::{Daemon, binaries, example_repo, wait_for};

/// The daemon's store in `state`, with the repository `/srv/git/numeric` (crate `numeric`).
fn store_with_repo(state: &std::path::Path) -> (Store, frugal_storage::RepoRecord) {
    let store = Store::open(state.join("store")).unwrap();
    let repo = store
        .add_repo(
            "/srv/git/numeric",
            vec![CrateEntry {
                name: "numeric".into(),
                dir: String::new(),
            }],
            None,
        )
        .unwrap();
    (store, repo)
}

fn env_or(var: &str, default: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

#[test]
fn read_endpoints_hold_500_requests_per_second_with_history_and_a_job_running() {
    let secs = env_or("FRUGAL_LOAD_SECS", 3).clamp(1, 30);
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    let repo_dir = tmp.path().join("numeric");
    example_repo("numeric", &repo_dir).unwrap();
    let t = std::time::Instant::now();
    let on_postgres = std::env::var("FRUGAL_LOAD_STORE").is_ok_and(|v| v == "postgres");
    let pg = on_postgres.then(|| {
        let pg = frugal_testkit::postgres::Postgres::start().unwrap_or_else(|e| panic!("{e:#}"));
        pg.create_db("load").unwrap();
        pg
    });
    let url = pg.as_ref().map(|pg| pg.url("load"));
    let repo_path = repo_dir
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let (runs, suites) = (
        env_or("FRUGAL_LOAD_RUNS", 10_000),
        env_or("FRUGAL_LOAD_SUITES", 2_000),
    );
    let seeded = match &url {
        Some(url) => {
            let store = Store::open_postgres(&frugal_storage::PgOptions::new(url, 4)).unwrap();
            seed::history_into(&store, &repo_path, runs, suites)
        }
        None => seed::history(&state, &repo_path, runs, suites),
    };
    let backend = if on_postgres { "postgres" } else { "sled" };
    println!(
        "seeded the {backend} store in {:.1}s",
        t.elapsed().as_secs_f64()
    );
    // A search long enough to outlast the load; the job is killed with the daemon.
    let store_section = url.map_or(String::new(), |u| {
        format!("[store]\nbackend = \"postgres\"\nurl = \"{u}\"\npool_size = 16\n\n")
    });
    let cfg = frugal_testkit::daemon_config(
        tmp.path(),
        &format!("{store_section}[search]\nbudget = \"120s\"\n\n[executor]\nworkers = 1\n"),
    );
    // systemd's watchdog protocol: the daemon pings this socket while its runner is alive.
    let sock_path = tmp.path().join("notify.sock");
    let sock = UnixDatagram::bind(&sock_path).unwrap();
    let env = [
        ("NOTIFY_SOCKET", sock_path.to_str().unwrap()),
        ("WATCHDOG_USEC", "2000000"),
    ];
    let d = Daemon::start_with(&binaries().frugald, &cfg, &state, &[], &env).unwrap();
    let repo = seeded.repo;
    let r = d
        .post(&format!("/v1/repos/{repo}/trigger"), Some(&d.token), "")
        .unwrap();
    assert_eq!(r.status, 202, "{}", r.body);
    wait_for(
        "the job to run",
        Duration::from_secs(60),
        Duration::from_millis(100),
        || Ok((d.get("/v1/status")?.json()["jobs_running"] == 1).then_some(())),
    )
    .unwrap();
    let spec = LoadSpec {
        base: d.base.clone(),
        paths: vec![
            "/healthz".to_string(),
            "/v1/repos".to_string(),
            format!("/v1/repos/{repo}"),
            format!("/v1/repos/{repo}/suites/best"),
            format!("/v1/repos/{repo}/suites"),
            format!("/v1/suites/{}", seeded.best_suite),
            "/v1/runs".to_string(),
            format!("/v1/runs?repo={repo}&limit=20"),
            "/v1/jobs".to_string(),
            "/v1/status".to_string(),
            "/metrics".to_string(),
        ],
        rate: 500,
        duration: Duration::from_secs(secs),
        threads: 16,
    };
    let watching = std::thread::spawn(move || ping_gaps(&sock, spec.duration));
    let report = load::run(&spec).unwrap();
    let (pings, longest_gap) = watching.join().unwrap();
    println!(
        "load ({secs}s at 500 req/s, 10 read endpoints and /healthz, a job running, {backend} \
         store): {report}"
    );
    let status = d.get("/v1/status").unwrap().json();
    assert_eq!(
        status["jobs_running"], 1,
        "the job ended before the load did: {status}"
    );
    assert_eq!(report.errors, 0, "{report}\n{}", d.log_text());
    println!("watchdog: {pings} pings, longest gap {longest_gap:?} (systemd fires after 2 s)");
    assert!(
        pings > 0 && longest_gap < Duration::from_secs(2),
        "the watchdog would have fired: {pings} pings, longest gap {longest_gap:?}\n{}",
        d.log_text()
    );
    // Latency targets are judged by the full run (`FRUGAL_LOAD_SECS=30`, release, quiet
    // machine); a timed assertion here would fail on a loaded CI host. This bound only catches
    // a server that stalls.
    assert!(report.p99 < Duration::from_secs(1), "{report}");
}

/// Watchdog pings (`WATCHDOG=1` datagrams) received during `window`, and the longest time
/// without one (from the start of the window to its end).
fn ping_gaps(sock: &UnixDatagram, window: Duration) -> (usize, Duration) {
    sock.set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let mut buf = [0u8; 512];
    let (start, mut last, mut longest, mut n) = (Instant::now(), Instant::now(), Duration::ZERO, 0);
    while start.elapsed() < window {
        if let Ok(len) = sock.recv(&mut buf)
            && String::from_utf8_lossy(&buf[..len]).contains("WATCHDOG=1")
        {
            longest = longest.max(last.elapsed());
            last = Instant::now();
            n += 1;
        }
    }
    (n, longest.max(last.elapsed()))
}

/// 500 suites of one crate, each with its run and the run's summary (goals by kind), as jobs
/// store them: 60 tests, a 16 KB source, a measured cost.
fn seed_history(state: &std::path::Path, suites: u64) -> u64 {
    let (store, repo) = store_with_repo(state);
    let source = "#[test]\nfn t() { assert_eq!(numeric::gcd(4, 6), 2); }\n".repeat(320);
    for i in 0..suites {
        let commit = format!("{i:040x}");
        let run = store
            .create_run(repo.id, "numeric", Some(&commit), None)
            .unwrap();
        let tests: Vec<NewTest> = (0..60)
            .map(|t| NewTest {
                name: format!("test_{t}"),
                goals: (t * 3..t * 3 + 20 + (i as u32 % 7)).collect::<GoalSet>(),
                cost: Some(Cost::new(
                    "instructions/hardware-perf",
                    1e6 + f64::from(t) * i as f64,
                )),
                proxies: BTreeMap::from([("test_calls".to_string(), 3.0)]),
            })
            .collect();
        let out = store
            .store_suite(NewSuite {
                repo: repo.id,
                krate: "numeric".into(),
                commit: Some(commit),
                source: source.clone(),
                goals_total: 300,
                total_cost: Some(Cost::new(
                    "instructions/hardware-perf",
                    6e7 + i as f64 * 1e5,
                )),
                proxy_cost: 60.0,
                tests,
                run: Some(run.id),
                model: None,
                hold: false,
                mutation: None,
            })
            .unwrap();
        let kinds = serde_json::json!({
            "branch": {"covered": 80 + i % 20, "total": 120},
            "line": {"covered": 90 + i % 10, "total": 110},
            "function": {"covered": 30, "total": 32},
            "output": {"covered": 20 + i % 5, "total": 38},
        });
        let tests_json: Vec<_> = (0..60)
            .map(|t| serde_json::json!({"name": format!("test_{t}"), "goals": (t * 3..t * 3 + 20).collect::<Vec<u32>>()}))
            .collect();
        store
            .finish_run(
                run.id,
                frugal_storage::RunStatus::Succeeded,
                Some(serde_json::json!({"pipeline": {"goals": kinds, "tests": tests_json}})),
                Some(out.suite),
            )
            .unwrap();
    }
    repo.id.0
}

/// Server-side render time of one page, from its `Server-Timing: render;dur=<ms>` header.
fn render_ms(base: &str, path: &str) -> f64 {
    let agent = frugal_testkit::agent();
    let r = agent.get(format!("{base}{path}")).call().unwrap();
    assert_eq!(r.status().as_u16(), 200, "{path}");
    let timing = r
        .headers()
        .get("server-timing")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    timing
        .strip_prefix("render;dur=")
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("no render time in `{timing}`"))
}

/// Issue 18: with 500 stored suites of one crate, the history page renders in under 200 ms on
/// the server, asserted in a release build (`cargo test --release -p frugal-e2e --test load`).
/// A debug build decodes the store ten times slower and shares the host with the rest of the
/// suite, so there the bound only catches a stall (10 s). Prints the median of 5 renders.
#[test]
fn the_history_of_500_suites_renders_in_under_200_ms() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    let repo = seed_history(&state, 500);
    let cfg = frugal_testkit::daemon_config(tmp.path(), "");
    let d = Daemon::start(&binaries().frugald, &cfg, &state).unwrap();
    let path = format!("/ui/repos/{repo}/crates/numeric");
    let mut times: Vec<f64> = (0..5).map(|_| render_ms(&d.base, &path)).collect();
    times.sort_by(f64::total_cmp);
    let median = times[2];
    let page = d.get(&path).unwrap().body;
    assert_eq!(
        page.matches("class=\"point\"").count(),
        1000,
        "500 points per chart"
    );
    let metrics = d.get("/metrics").unwrap().body;
    assert!(
        metrics.contains("/ui/repos/{id}/crates/{krate}"),
        "pages count by route in /metrics"
    );
    let release = !cfg!(debug_assertions);
    println!(
        "history page, 500 suites: median server render {median:.1} ms over 5 ({} build; all: {times:?})",
        if release { "release" } else { "debug" }
    );
    let limit = if release { 200.0 } else { 10_000.0 };
    assert!(median < limit, "{median} ms over {limit} ms");
}
