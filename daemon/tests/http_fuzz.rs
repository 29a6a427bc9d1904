//! Property test of the HTTP API against the real router (every layer: metrics, JSON errors,
//! the `Host` check, tokens, the request timeout), in process over a seeded store: random
//! methods, paths built from the routes with hostile segments, query strings, `Host` and
//! `Authorization` headers, JSON bodies shaped like the API's and arbitrary ones. Every answer
//! must come back (no panic), never be a 500, and every error must be the API's JSON
//! `{"error": "..."}`. A second test holds a request past `http.request_timeout`.
//!
//! `cargo test -p frugald --test http_fuzz` runs a short batch; for a long run set the seconds:
//!
//! ```sh
//! FRUGAL_FUZZ_SECS=600 cargo test --release -p frugald --test http_fuzz -- --nocapture
//! ```

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use frugal_scheduler::{Scheduler, SchedulerOptions};
use frugal_storage::{CrateEntry, GoalSet, NewSuite, NewTest, Store};
use frugald::api::AppState;
use frugald::auth::{Auth, Hosts, Scope};
use frugald::http::router;
use frugald::live::Live;
use frugald::metrics::Metrics;
use frugald::replacement::Replacer;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::Value;
use tower::ServiceExt;

const ADMIN: &str = "fuzz-admin-token";

/// A daemon's state over a fresh store holding one repository (whose path does not exist, so
/// nothing a request starts can build anything) with a best suite; the tokens of each scope.
struct Fixture {
    _dir: tempfile::TempDir,
    state: Arc<AppState>,
    trigger: String,
    read: String,
}

fn fixture() -> Fixture {
    fixture_with(Duration::from_secs(20))
}

fn fixture_with(request_timeout: Duration) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("store")).unwrap();
    let repo = store
        .add_repo(
            "/nonexistent/fuzz-repo",
            vec![CrateEntry {
                name: "numeric".into(),
                dir: String::new(),
            }],
            None,
        )
        .unwrap();
    store
        .store_suite(NewSuite {
            commit: Some("0".repeat(40)),
            source: "#[test]\nfn t() {}\n".into(),
            goals_total: 3,
            proxy_cost: 1.0,
            ..NewSuite::new(
                repo.id,
                "numeric",
                vec![NewTest::new("t", GoalSet::from(vec![1, 2]))],
            )
        })
        .unwrap();
    store.create_run(repo.id, "numeric", None, None).unwrap();
    let auth = Auth::load(ADMIN.into(), &store, false).unwrap();
    let trigger = auth.create(&store, "t", Scope::Trigger).unwrap().token;
    let read = auth.create(&store, "r", Scope::Read).unwrap().token;
    let (wake, _rx) = std::sync::mpsc::sync_channel(1);
    let state = Arc::new(AppState {
        sched: Arc::new(Scheduler::new(
            store,
            SchedulerOptions {
                max_concurrent: 1,
                lease: Duration::from_secs(120),
                max_attempts: 3,
                max_queued_per_token: 16,
                node: "fuzz".to_string(),
                mirrors: Default::default(),
            },
        )),
        auth,
        hosts: Hosts::new("127.0.0.1:7878".parse().unwrap(), &[]),
        replacer: Replacer::start(1).unwrap(),
        request_timeout,
        live: Live::default(),
        metrics: Arc::new(Metrics::default()),
        wake,
        stopping: Arc::new(AtomicBool::new(false)),
        sandbox: Vec::new(),
        sandbox_required: true,
        job_limits: Default::default(),
        git_hosts: Vec::new().into(),
        job_uids: Default::default(),
        refusal: None,
        gc: Arc::new(frugald::gc::Gc::new(
            frugal_config::Config::from_toml("", None, Vec::new())
                .unwrap()
                .retention,
            dir.path().join("state"),
        )),
    });
    Fixture {
        _dir: dir,
        state,
        trigger,
        read,
    }
}

/// One generated request, before tokens are filled in.
#[derive(Clone, Debug)]
struct Case {
    method: String,
    path: String,
    host: Option<String>,
    /// 0 none, 1 admin, 2 trigger, 3 read, else the literal header value.
    auth: (u8, String),
    content_type: Option<String>,
    body: Vec<u8>,
}

const ROUTES: &[&str] = &[
    "/healthz",
    "/metrics",
    "/v1/status",
    "/v1/repos",
    "/v1/repos/{id}",
    "/v1/repos/{id}/trigger",
    "/v1/repos/{id}/suites",
    "/v1/repos/{id}/commits/{sha}/report",
    "/v1/repos/{id}/commits/{sha}/accept",
    "/v1/repos/{id}/suites/best",
    "/v1/repos/{id}/suites/best/source",
    "/v1/repos/{id}/replacement",
    "/v1/runs",
    "/v1/runs/{id}",
    "/v1/suites/{id}",
    "/v1/suites/{id}/source",
    "/v1/jobs",
    "/v1/tokens",
    "/v1/tokens/{id}",
    "/",
    "/v2/repos",
];

fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("1".to_string()),
        Just("2".to_string()),
        Just("0".to_string()),
        Just("18446744073709551615".to_string()),
        Just("18446744073709551616".to_string()),
        Just("-1".to_string()),
        Just("..".to_string()),
        Just("%2e%2e".to_string()),
        Just("%00".to_string()),
        Just("--output=x".to_string()),
        Just("HEAD".to_string()),
        Just("0".repeat(40)),
        "[a-zA-Z0-9%._~-]{0,16}",
    ]
}

fn query() -> impl Strategy<Value = String> {
    let key = prop_oneof![
        Just("limit"),
        Just("after"),
        Just("crate"),
        Just("repo"),
        Just("metric"),
        Just("cover"),
        "[a-z]{1,6}".prop_map(|s| Box::leak(s.into_boxed_str()) as &str),
    ];
    let value = prop_oneof![
        Just("1".to_string()),
        Just("500".to_string()),
        Just("501".to_string()),
        Just("0".to_string()),
        Just("-5".to_string()),
        Just("numeric".to_string()),
        Just("cpu".to_string()),
        Just("all".to_string()),
        "[a-zA-Z0-9%+&=]{0,12}",
    ];
    prop::collection::vec((key, value), 0..4).prop_map(|kv| {
        if kv.is_empty() {
            return String::new();
        }
        let parts: Vec<String> = kv.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("?{}", parts.join("&"))
    })
}

fn path() -> impl Strategy<Value = String> {
    let templated = (prop::sample::select(ROUTES), segment(), segment(), query())
        .prop_map(|(r, a, b, q)| format!("{}{q}", r.replace("{id}", &a).replace("{sha}", &b)));
    prop_oneof![8 => templated, 1 => "/[ -~]{0,40}", 1 => "[ -~]{0,20}"]
}

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "[ -~]{0,20}".prop_map(Value::String),
        prop::sample::select(
            &[
                "/",
                "relative",
                "/nonexistent",
                "",
                "read",
                "trigger",
                "admin",
                "api",
                "hook",
                "HEAD",
                "--all"
            ][..]
        )
        .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(
                    &[
                        "path",
                        "crates",
                        "schedule",
                        "hooks_installed",
                        "commit",
                        "reason",
                        "name",
                        "scope",
                        "dir",
                        "x"
                    ][..]
                )
                .prop_map(str::to_string),
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => json().prop_map(|v| v.to_string().into_bytes()),
        1 => prop::collection::vec(any::<u8>(), 0..64),
        1 => Just(Vec::new()),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    let method = prop_oneof![
        6 => prop::sample::select(&["GET", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"][..]).prop_map(str::to_string),
        1 => "[A-Z]{1,10}",
    ];
    let host = prop_oneof![
        6 => Just(Some("127.0.0.1:7878".to_string())),
        1 => Just(Some("localhost".to_string())),
        1 => Just(Some("evil.example:7878".to_string())),
        1 => Just(None),
        1 => "[ -~]{0,20}".prop_map(Some),
    ];
    let auth = prop_oneof![
        (0u8..4).prop_map(|k| (k, String::new())),
        "[ -~]{0,30}".prop_map(|v| (9u8, v)),
        Just((9u8, "Bearer wrong".to_string())),
    ];
    let content_type = prop_oneof![
        Just(Some("application/json".to_string())),
        Just(None),
        Just(Some("text/plain".to_string())),
    ];
    (method, path(), host, auth, content_type, body()).prop_map(
        |(method, path, host, auth, content_type, body)| Case {
            method,
            path,
            host,
            auth,
            content_type,
            body,
        },
    )
}

/// Builds the request (`None` when the generated method or path is not valid HTTP, which a
/// server never sees either: its parser refuses it first).
fn request(f: &Fixture, c: &Case) -> Option<Request<Body>> {
    let mut b = Request::builder()
        .method(c.method.as_str())
        .uri(c.path.as_str());
    if let Some(h) = &c.host {
        b = b.header("host", h.as_str());
    }
    let auth = match c.auth.0 {
        0 => None,
        1 => Some(format!("Bearer {ADMIN}")),
        2 => Some(format!("Bearer {}", f.trigger)),
        3 => Some(format!("Bearer {}", f.read)),
        _ => Some(c.auth.1.clone()),
    };
    if let Some(a) = auth {
        b = b.header("authorization", a);
    }
    if let Some(ct) = &c.content_type {
        b = b.header("content-type", ct.as_str());
    }
    b.body(Body::from(c.body.clone())).ok()
}

/// Answers seen, by status, for the summary line.
static SEEN: std::sync::Mutex<std::collections::BTreeMap<u16, u32>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

fn check(rt: &tokio::runtime::Runtime, f: &Fixture, c: &Case) -> Result<(), TestCaseError> {
    let Some(req) = request(f, c) else {
        return Ok(());
    };
    let app = router(f.state.clone());
    let (status, text) = rt.block_on(async {
        let resp = app.oneshot(req).await.expect("the router is infallible");
        let status = resp.status();
        let bytes = axum::body::to_bytes(resp.into_body(), 64 << 20)
            .await
            .unwrap_or_default();
        (status, String::from_utf8_lossy(&bytes).into_owned())
    });
    *SEEN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(status.as_u16())
        .or_default() += 1;
    prop_assert_ne!(
        status,
        StatusCode::INTERNAL_SERVER_ERROR,
        "{:?} answered 500: {}",
        c,
        text
    );
    if (status.is_client_error() || status.is_server_error()) && c.method != "HEAD" {
        let v: Value = serde_json::from_str(&text)
            .map_err(|e| TestCaseError::fail(format!("{c:?}: {status} not JSON ({e}): {text}")))?;
        prop_assert!(
            v["error"].is_string(),
            "{:?}: {} without an error: {}",
            c,
            status,
            text
        );
    }
    Ok(())
}

#[test]
fn the_api_answers_any_request_without_panicking_and_errors_are_json() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let secs: u64 = std::env::var("FRUGAL_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut total = 0u32;
    loop {
        // A fresh store each batch: requests delete and register things.
        let f = fixture();
        let mut runner = TestRunner::new(Config {
            cases: 256,
            failure_persistence: None,
            ..Config::default()
        });
        let result = runner.run(&case(), |c| check(&rt, &f, &c));
        if let Err(e) = result {
            panic!("{e}");
        }
        total += 256;
        if Instant::now() >= deadline {
            break;
        }
    }
    let seen = SEEN.lock().unwrap_or_else(|e| e.into_inner()).clone();
    println!(
        "http_fuzz: {total} cases, no panic, no 500, every error JSON; answers by status: {seen:?}"
    );
}

#[test]
fn a_request_past_the_request_timeout_answers_503_in_json() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // Registration runs git (milliseconds): far past a 1 ms budget.
    let f = fixture_with(Duration::from_millis(1));
    let repo = tempfile::tempdir().unwrap();
    let init = std::process::Command::new("git")
        .arg("-C")
        .arg(repo.path())
        .args(["init", "-q"])
        .status()
        .unwrap();
    assert!(init.success());
    let req = Request::builder()
        .method("POST")
        .uri("/v1/repos")
        .header("host", "127.0.0.1:7878")
        .header("authorization", format!("Bearer {ADMIN}"))
        .body(Body::from(
            serde_json::json!({ "path": repo.path() }).to_string(),
        ))
        .unwrap();
    let (status, text) = rt.block_on(async {
        let resp = router(f.state.clone()).oneshot(req).await.unwrap();
        let status = resp.status();
        let bytes = axum::body::to_bytes(resp.into_body(), 1 << 20)
            .await
            .unwrap();
        (status, String::from_utf8_lossy(&bytes).into_owned())
    });
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("http.request_timeout"),
        "{text}"
    );
}
