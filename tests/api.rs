//! `frugald`'s API as a client sees it, without running jobs: health and metrics, auth on state
//! changes and scoped tokens, the `Host` check, the error answers (400 with the parser's reason,
//! 404, 409), repository registration and removal, replacements started only by an
//! authenticated POST, paginated lists, connection limits and timeouts, the unix socket, a clean
//! SIGTERM, and a bad config naming the file, line and key.

mod seed;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use frugal_testkit::{Daemon, binaries, example_repo};

fn frugald() -> &'static Path {
    &binaries().frugald
}

fn config(dir: &Path, extra: &str) -> PathBuf {
    frugal_testkit::daemon_config(dir, extra)
}

/// A git repository made from `examples/numeric` under `dir`, registered; its path and id.
fn register_numeric(d: &Daemon, dir: &Path) -> (PathBuf, u64) {
    let repo = dir.join("numeric");
    example_repo("numeric", &repo).unwrap();
    let r = d
        .post(
            "/v1/repos",
            Some(&d.token),
            &format!("{{\"path\": \"{}\"}}", repo.display()),
        )
        .unwrap();
    assert_eq!(r.status, 201, "{}", r.body);
    (repo, r.json()["id"].as_u64().unwrap())
}

fn start(dir: &Path, extra: &str) -> Daemon {
    let cfg = config(dir, extra);
    Daemon::start(frugald(), &cfg, &dir.join("state")).unwrap()
}

#[test]
fn health_and_metrics_answer_without_a_token() {
    let tmp = tempfile::tempdir().unwrap();
    let d = start(tmp.path(), "");
    let h = d.get("/healthz").unwrap();
    assert_eq!(h.status, 200);
    assert_eq!(h.json()["status"], "ok");
    let _ = d.get("/v1/repos").unwrap();
    let m = d.get("/metrics").unwrap();
    assert_eq!(m.status, 200);
    assert!(
        m.body.contains("# TYPE frugal_http_requests_total counter"),
        "{}",
        m.body
    );
    assert!(
        m.body.contains(
            "frugal_http_requests_total{route=\"/v1/repos\",method=\"GET\",status=\"200\"} 1"
        ),
        "{}",
        m.body
    );
    assert!(m.body.contains("frugal_jobs{state=\"queued\"} 0"));
}

#[test]
fn state_changes_need_the_token_and_errors_say_why() {
    let tmp = tempfile::tempdir().unwrap();
    let d = start(tmp.path(), "");
    let repo = tmp.path().join("numeric");
    example_repo("numeric", &repo).unwrap();
    let body = format!("{{\"path\": \"{}\"}}", repo.display());

    let r = d.post("/v1/repos", None, &body).unwrap();
    assert_eq!(r.status, 401);
    let r = d.delete("/v1/repos/1", Some("not-the-token")).unwrap();
    assert_eq!(r.status, 401);

    let r = d
        .post("/v1/repos", Some(&d.token), "{\"path\": 3}")
        .unwrap();
    assert_eq!(r.status, 400);
    assert!(
        r.json()["error"].as_str().unwrap().contains("invalid type"),
        "{}",
        r.body
    );
    let r = d
        .post(
            "/v1/repos",
            Some(&d.token),
            "{\"path\": \"/\", \"crate\": \"x\"}",
        )
        .unwrap();
    assert_eq!(r.status, 400);
    assert!(r.body.contains("unknown field `crate`"), "{}", r.body);
    let r = d
        .post("/v1/repos", Some(&d.token), "{\"path\": \"relative\"}")
        .unwrap();
    assert_eq!(r.status, 400);
    assert!(r.body.contains("must be absolute"), "{}", r.body);
    let not_git = tmp.path().join("plain");
    std::fs::create_dir_all(&not_git).unwrap();
    let r = d
        .post(
            "/v1/repos",
            Some(&d.token),
            &format!("{{\"path\": \"{}\"}}", not_git.display()),
        )
        .unwrap();
    assert_eq!(r.status, 400);
    assert!(r.body.contains("not a git repository"), "{}", r.body);

    // Registration finds the crate with cargo; a second one is a conflict.
    let r = d.post("/v1/repos", Some(&d.token), &body).unwrap();
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["id"].as_u64().unwrap();
    assert_eq!(r.json()["crates"][0]["name"], "numeric");
    let r = d.post("/v1/repos", Some(&d.token), &body).unwrap();
    assert_eq!(r.status, 409, "{}", r.body);

    let r = d.get(&format!("/v1/repos/{id}")).unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["best"][0]["suite"], serde_json::Value::Null);
    let r = d.get(&format!("/v1/repos/{id}/suites/best")).unwrap();
    assert_eq!(r.status, 404);
    assert!(
        r.body.contains("no suite for crate `numeric` yet"),
        "{}",
        r.body
    );
    let r = d
        .get(&format!("/v1/repos/{id}/suites/best?crate=nope"))
        .unwrap();
    assert_eq!(r.status, 404);
    let r = d.get("/v1/repos/abc").unwrap();
    assert_eq!(r.status, 400);
    let r = d.get("/v1/runs/77").unwrap();
    assert_eq!(r.status, 404);
    let r = d
        .post(
            &format!("/v1/repos/{id}/trigger"),
            Some(&d.token),
            "{\"reason\": \"cron\"}",
        )
        .unwrap();
    assert_eq!(r.status, 400, "{}", r.body);
    let r = d.get("/v1/nothing-here").unwrap();
    assert_eq!(r.status, 404);

    let r = d
        .delete(&format!("/v1/repos/{id}"), Some(&d.token))
        .unwrap();
    assert_eq!(r.status, 204);
    let r = d.get(&format!("/v1/repos/{id}")).unwrap();
    assert_eq!(r.status, 404);
}

#[test]
fn the_api_also_answers_on_a_unix_socket_and_sigterm_stops_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let sock = tmp.path().join("frugald.sock");
    let mut d = start(tmp.path(), &format!("unix_socket = \"{}\"", sock.display()));
    let mut s = std::os::unix::net::UnixStream::connect(&sock).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: frugald\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"status\":\"ok\""), "{answer}");

    let (code, took) = d.terminate(Duration::from_secs(15)).unwrap();
    assert_eq!(code, Some(0), "{}", d.log_text());
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert!(!tmp.path().join("state/frugald.addr").exists());
    assert!(!sock.exists());
}

#[test]
fn a_bad_config_names_the_file_line_and_key() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("frugal.toml");
    std::fs::write(
        &cfg,
        "[daemon]\nstate_dir = \"state\"\nlisten = \"nowhere\"\n",
    )
    .unwrap();
    let err = refused_config(&cfg);
    assert!(err.contains("key `daemon.listen`"), "{err}");

    std::fs::write(&cfg, "[search]\nbudget = \"5m\"\nbugdet = 3\n").unwrap();
    let err = refused_config(&cfg);
    assert!(err.contains("bugdet"), "{err}");
}

/// Starts frugald on a bad config and returns its error, which must name line 3 of the file.
fn refused_config(cfg: &Path) -> String {
    let out = Command::new(frugald())
        .arg("--config")
        .arg(cfg)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("{}:3:", cfg.display())), "{err}");
    err
}

#[test]
fn systemd_hears_ready_watchdog_pings_and_stopping() {
    let tmp = tempfile::tempdir().unwrap();
    let sock_path = tmp.path().join("notify.sock");
    let sock = std::os::unix::net::UnixDatagram::bind(&sock_path).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let cfg = config(tmp.path(), "");
    let notify = sock_path.to_string_lossy().into_owned();
    let mut d = Daemon::start_with(
        frugald(),
        &cfg,
        &tmp.path().join("state"),
        &[],
        // A 200 ms watchdog: frugald must ping every 100 ms.
        &[("NOTIFY_SOCKET", &notify), ("WATCHDOG_USEC", "200000")],
    )
    .unwrap();
    let mut seen = String::new();
    let mut buf = [0u8; 4096];
    while seen.matches("WATCHDOG=1").count() < 3 {
        let n = sock.recv(&mut buf).expect("frugald stopped notifying");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    assert!(seen.contains("READY=1"), "{seen}");
    let (code, _) = d.terminate(Duration::from_secs(15)).unwrap();
    assert_eq!(code, Some(0));
    loop {
        let n = sock.recv(&mut buf).expect("no STOPPING=1 before the exit");
        if String::from_utf8_lossy(&buf[..n]).contains("STOPPING=1") {
            break;
        }
    }
}

#[test]
fn crate_dirs_that_leave_the_repository_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let d = start(tmp.path(), "");
    let repo = tmp.path().join("numeric");
    example_repo("numeric", &repo).unwrap();
    std::os::unix::fs::symlink(tmp.path().join("state"), repo.join("out")).unwrap();
    for (dir, says) in [
        ("/etc", "is absolute"),
        ("../state", "contains `..`"),
        ("src/../../state", "contains `..`"),
        ("out", "outside the repository"),
    ] {
        let body = format!(
            "{{\"path\": \"{}\", \"crates\": [{{\"name\": \"numeric\", \"dir\": \"{dir}\"}}]}}",
            repo.display()
        );
        let r = d.post("/v1/repos", Some(&d.token), &body).unwrap();
        assert_eq!(r.status, 400, "{dir}: {}", r.body);
        let error = r.json()["error"].as_str().unwrap().to_string();
        assert!(
            error.contains(says) && error.contains("crate `numeric`"),
            "{dir}: {error}"
        );
    }
    let r = d.get("/v1/repos").unwrap();
    assert_eq!(r.json().as_array().map(Vec::len), Some(0), "{}", r.body);
    // The status names what the host confines.
    let s = d.get("/v1/status").unwrap();
    let lines = s.json()["sandbox"].as_array().cloned().unwrap_or_default();
    assert!(
        lines
            .iter()
            .any(|l| l.as_str().is_some_and(|l| l.contains("filesystem"))),
        "{}",
        s.body
    );
}

#[test]
fn trigger_commits_are_resolved_to_full_hashes_and_options_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    // A tiny budget: the one valid trigger below queues a real job.
    let d = start(tmp.path(), "[search]\nbudget = \"10\"\n");
    let (repo, id) = register_numeric(&d, tmp.path());
    let trigger = |commit: &str| {
        let body = serde_json::json!({ "commit": commit }).to_string();
        d.post(&format!("/v1/repos/{id}/trigger"), Some(&d.token), &body)
            .unwrap()
    };

    let written = tmp.path().join("written");
    for bad in [
        format!("--output={}", written.display()),
        "HEAD~999".to_string(),
        "nonexistent".to_string(),
        "-h".to_string(),
    ] {
        let r = trigger(&bad);
        assert_eq!(r.status, 400, "{bad}: {}", r.body);
        let error = r.json()["error"].as_str().unwrap().to_string();
        assert!(
            error.contains("is not a commit of the repository") && error.contains(&bad),
            "{bad}: {error}"
        );
    }
    // Nothing was queued, so no job ever handed the value to git.
    let jobs = d.get("/v1/jobs").unwrap();
    assert_eq!(
        jobs.json().as_array().map(Vec::len),
        Some(0),
        "{}",
        jobs.body
    );
    std::thread::sleep(Duration::from_millis(300));
    assert!(!written.exists(), "git wrote {}", written.display());
    let show = d.get(&format!("/v1/repos/{id}")).unwrap();
    assert_eq!(show.json()["last_seen_commit"], serde_json::Value::Null);

    // A short hash is stored as the full one, in the answer, the job and the repository.
    let full = frugal_testkit::run(frugal_testkit::git(&repo).args(["rev-parse", "HEAD"]))
        .unwrap()
        .trim()
        .to_string();
    let r = trigger(&full[..7]);
    assert_eq!(r.status, 202, "{}", r.body);
    assert_eq!(r.json()["commit"], full.as_str(), "{}", r.body);
    let jobs = d.get("/v1/jobs").unwrap().json();
    assert_eq!(jobs[0]["commit"], full.as_str(), "{jobs}");
    let show = d.get(&format!("/v1/repos/{id}")).unwrap();
    assert_eq!(show.json()["last_seen_commit"], full.as_str());
    // With a last commit seen, a bad value is refused before it reaches `git diff`.
    let r = trigger(&format!("--output={}", written.display()));
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(!written.exists());
    let _ = d.delete(&format!("/v1/repos/{id}"), Some(&d.token));
}

/// Distinct `method` labels of the request counter.
fn method_labels(metrics: &str) -> std::collections::BTreeSet<String> {
    metrics
        .lines()
        .filter(|l| l.starts_with("frugal_http_requests_total{"))
        .filter_map(|l| l.split("method=\"").nth(1)?.split('"').next())
        .map(str::to_string)
        .collect()
}

#[test]
fn custom_http_methods_share_one_metrics_label() {
    let tmp = tempfile::tempdir().unwrap();
    let d = start(tmp.path(), "");
    let addr = d.base.trim_start_matches("http://").to_string();
    let _ = d.get("/v1/repos").unwrap();
    let before = method_labels(&d.get("/metrics").unwrap().body);
    for i in 0..1000 {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        write!(
            s,
            "CUSTOM{i} /v1/repos HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 "), "{answer}");
    }
    let text = d.get("/metrics").unwrap().body;
    let after = method_labels(&text);
    let added: Vec<_> = after.difference(&before).collect();
    assert!(
        added.len() <= 1,
        "{} labels added: {:?}",
        added.len(),
        &added[..added.len().min(5)]
    );
    assert!(after.contains("other"), "{text}");
    assert!(after.contains("GET"), "{text}");
    assert!(
        text.contains(
            "frugal_http_requests_total{route=\"/v1/repos\",method=\"other\",status=\"401\"} 1000"
        ),
        "{text}"
    );
}

#[test]
fn commit_reports_need_a_checked_commit_and_accepting_needs_the_token() {
    let tmp = tempfile::tempdir().unwrap();
    let d = start(tmp.path(), "");
    let (repo, id) = register_numeric(&d, tmp.path());
    let full = frugal_testkit::run(frugal_testkit::git(&repo).args(["rev-parse", "HEAD"]))
        .unwrap()
        .trim()
        .to_string();

    // Nothing checked the commit yet: 404 naming the full commit, whether given short or whole.
    for given in [&full[..8], full.as_str(), "HEAD"] {
        let r = d
            .get(&format!("/v1/repos/{id}/commits/{given}/report"))
            .unwrap();
        assert_eq!(r.status, 404, "{given}: {}", r.body);
        let error = r.json()["error"].as_str().unwrap().to_string();
        assert!(
            error.contains(&full) && error.contains("frugal trigger"),
            "{error}"
        );
    }
    // Not a commit: 400 with git's reason, never an option handed to git.
    let r = d
        .get(&format!("/v1/repos/{id}/commits/--all/report"))
        .unwrap();
    assert_eq!(r.status, 400, "{}", r.body);

    let accept = format!("/v1/repos/{id}/commits/{full}/accept");
    let r = d.post(&accept, None, "").unwrap();
    assert_eq!(r.status, 401, "{}", r.body);
    let r = d.post(&accept, Some(&d.token), "").unwrap();
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(r.body.contains("nothing to accept"), "{}", r.body);
    let r = d
        .post(&format!("{accept}?crate=nope"), Some(&d.token), "")
        .unwrap();
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(r.body.contains("has no crate `nope`"), "{}", r.body);
}

/// Makes a token of `scope` with the admin token; its secret.
fn token(d: &Daemon, scope: &str) -> String {
    let body = format!("{{\"name\": \"{scope}-holder\", \"scope\": \"{scope}\"}}");
    let r = d.post("/v1/tokens", Some(&d.token), &body).unwrap();
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["token"].as_str().unwrap().to_string()
}

#[test]
fn scoped_tokens_do_what_their_scope_allows_and_no_more() {
    let tmp = tempfile::tempdir().unwrap();
    let d = start(tmp.path(), "[search]\nbudget = \"10\"\n");
    let (repo, id) = register_numeric(&d, tmp.path());
    let trigger = token(&d, "trigger");
    let read = token(&d, "read");

    // A trigger token queues jobs, and nothing an admin does.
    let t = format!("/v1/repos/{id}/trigger");
    let r = d.post(&t, Some(&trigger), "").unwrap();
    assert_eq!(r.status, 202, "{}", r.body);
    let other = tmp.path().join("other");
    example_repo("numeric", &other).unwrap();
    let add = format!("{{\"path\": \"{}\"}}", other.display());
    let r = d.post("/v1/repos", Some(&trigger), &add).unwrap();
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(
        r.json()["error"].as_str().unwrap().contains("needs admin"),
        "{}",
        r.body
    );
    assert_eq!(
        d.delete(&format!("/v1/repos/{id}"), Some(&trigger))
            .unwrap()
            .status,
        403
    );
    assert_eq!(
        d.post("/v1/tokens", Some(&trigger), "{}").unwrap().status,
        403
    );
    // A read token does not even trigger.
    assert_eq!(d.post(&t, Some(&read), "").unwrap().status, 403);

    // Listed without secrets; a revoked token is refused from then on.
    let list = d.get_with("/v1/tokens", &d.token).unwrap();
    assert_eq!(list.status, 200, "{}", list.body);
    assert!(
        !list.body.contains(&trigger) && !list.body.contains(&read),
        "{}",
        list.body
    );
    assert_eq!(d.get_with("/v1/tokens", &trigger).unwrap().status, 403);
    let tid = list.json().as_array().unwrap()[0]["id"].as_u64().unwrap();
    assert_eq!(
        d.delete(&format!("/v1/tokens/{tid}"), Some(&d.token))
            .unwrap()
            .status,
        204
    );
    let r = d.post(&t, Some(&trigger), "").unwrap();
    assert_eq!(r.status, 401, "{}", r.body);

    // The CLI: `frugal token create`, then `frugal trigger` with a trigger token in FRUGAL_TOKEN;
    // `frugal repo add` with it is refused.
    let cfg = tmp.path().join("frugal.toml");
    let frugal = |token: &str, args: &[&str]| {
        Command::new(&binaries().frugal)
            .arg("--config")
            .arg(&cfg)
            .args(args)
            .env("FRUGAL_TOKEN", token)
            .env_remove("FRUGAL_URL")
            .output()
            .unwrap()
    };
    let out = frugal(
        &d.token,
        &["token", "create", "--scope", "trigger", "--name", "hooks"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hooks = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let out = frugal(&hooks, &["trigger", &repo.to_string_lossy()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = frugal(
        &hooks,
        &["repo", "add", &other.to_string_lossy(), "--no-hooks"],
    );
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("403"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = frugal(&d.token, &["token", "list"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("hooks"));
    let _ = d.delete(&format!("/v1/repos/{id}"), Some(&d.token));
}

#[test]
fn reads_need_a_token_with_auth_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let d = start(tmp.path(), "auth_reads = true\n");
    let read = token(&d, "read");
    for path in ["/v1/repos", "/v1/status", "/metrics", "/v1/runs"] {
        let r = d.get(path).unwrap();
        assert_eq!(r.status, 401, "{path}: {}", r.body);
        assert!(r.json()["error"].as_str().is_some());
        assert_eq!(d.get_with(path, &read).unwrap().status, 200, "{path}");
        assert_eq!(d.get_with(path, "wrong").unwrap().status, 401, "{path}");
    }
    assert_eq!(d.get("/healthz").unwrap().status, 200);
    // The web pages follow the same key: without a session, a read page is refused.
    let page = d.get("/ui").unwrap();
    assert_eq!(page.status, 401, "{}", page.body);
    assert!(page.body.contains("auth_reads"), "{}", page.body);
}

#[test]
fn a_request_naming_another_host_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let d = start(tmp.path(), "");
    let port = d.base.rsplit(':').next().unwrap().to_string();
    let ask = |host: &str| {
        d.raw(&format!(
            "GET /v1/repos HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        ))
        .unwrap()
    };
    // DNS rebinding: the page's own name, now resolving to 127.0.0.1, is what the browser sends.
    for bad in [
        format!("evil.example:{port}"),
        "localhost.evil.example".to_string(),
    ] {
        let a = ask(&bad);
        assert!(a.starts_with("HTTP/1.1 403"), "{bad}: {a}");
        assert!(
            a.contains("{\"error\":") && a.contains("allowed_hosts"),
            "{a}"
        );
    }
    for good in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        "[::1]".to_string(),
    ] {
        let a = ask(&good);
        assert!(a.starts_with("HTTP/1.1 200"), "{good}: {a}");
    }
    let a = d
        .raw("GET /v1/repos HTTP/1.0\r\nConnection: close\r\n\r\n")
        .unwrap();
    assert!(
        a.starts_with("HTTP/1.0 400") || a.starts_with("HTTP/1.1 400"),
        "{a}"
    );
}

/// A daemon over a store seeded with `runs` runs and `suites` suites of a repository at
/// `repo_path`.
fn start_seeded(
    repo_path: &str,
    runs: u64,
    suites: u64,
) -> (tempfile::TempDir, Daemon, seed::Seeded) {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    let seeded = seed::history(&state, repo_path, runs, suites);
    let d = start(tmp.path(), "");
    (tmp, d, seeded)
}

/// Waits until the replacement at `url` reads `failed`; its answer.
fn wait_failed(d: &Daemon, url: &str) -> frugal_testkit::Answer {
    frugal_testkit::wait_for(
        "the computation to fail",
        Duration::from_secs(30),
        Duration::from_millis(100),
        || {
            let r = d.get(url)?;
            Ok((r.json()["status"] == "failed").then_some(r))
        },
    )
    .unwrap()
}

#[test]
fn a_replacement_get_never_starts_work_and_a_failure_can_be_retried() {
    // The repository path does not exist, so a computation fails at once (no build).
    let (tmp, d, seeded) = start_seeded("/nonexistent/numeric", 1, 1);
    let url = format!("/v1/repos/{}/replacement", seeded.repo);
    // Any page could GET this (an <img> tag): it reads, and says how to start it.
    let r = d.get(&url).unwrap();
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(r.body.contains("POST"), "{}", r.body);
    std::thread::sleep(Duration::from_millis(300));
    let m = d.get("/metrics").unwrap().body;
    assert!(m.contains("frugal_replacements_in_flight 0"), "{m}");
    assert!(!tmp.path().join("state/work").exists());
    // Starting it needs a token (trigger scope).
    assert_eq!(d.post(&url, None, "").unwrap().status, 401);
    let trigger = token(&d, "trigger");
    let r = d.post(&url, Some(&trigger), "").unwrap();
    assert_eq!(r.status, 202, "{}", r.body);
    let failed = wait_failed(&d, &url);
    assert!(failed.json()["error"].as_str().is_some(), "{}", failed.body);
    // The failure is not final: a POST computes again.
    let r = d.post(&url, Some(&trigger), "").unwrap();
    assert_eq!(r.status, 202, "{}", r.body);
    assert_eq!(r.json()["status"], "computing");
    // Each computation had a work dir of its own, removed when it ended.
    wait_failed(&d, &url);
    let left: Vec<_> = std::fs::read_dir(tmp.path().join("state/work/replace"))
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn lists_come_in_pages_read_through_the_indexes() {
    let (_tmp, d, seeded) = start_seeded("/srv/git/numeric", 120, 60);
    // The ids of a page of runs.
    let page_ids = |path: &str| -> Vec<u64> {
        let page = d.get(path).unwrap().json();
        let items = page.as_array().cloned().unwrap_or_default();
        items.iter().map(|r| r["id"].as_u64().unwrap()).collect()
    };
    let ids = page_ids("/v1/runs");
    assert_eq!(ids.len(), 50);
    assert!(ids.windows(2).all(|w| w[0] > w[1]), "newest first: {ids:?}");
    let mut seen = ids.clone();
    let mut after = *ids.last().unwrap();
    loop {
        let page = page_ids(&format!(
            "/v1/runs?repo={}&limit=50&after={after}",
            seeded.repo
        ));
        if page.is_empty() {
            break;
        }
        // Each page starts below the last: a server that ignored `after` would repeat itself.
        assert!(page[0] < after, "page after {after} starts at {}", page[0]);
        after = *page.last().unwrap();
        seen.extend(page);
    }
    assert_eq!(seen.len(), 120);
    let r = d
        .get(&format!("/v1/repos/{}/suites?limit=7", seeded.repo))
        .unwrap();
    assert_eq!(r.json().as_array().unwrap().len(), 7, "{}", r.body);
    assert_eq!(r.json()[0]["id"].as_u64(), Some(seeded.best_suite));
    assert_eq!(r.json()[0]["is_best"], true);
    for bad in [
        "/v1/runs?limit=100000",
        "/v1/runs?limit=0",
        "/v1/jobs?limit=-1",
    ] {
        let r = d.get(bad).unwrap();
        assert_eq!(r.status, 400, "{bad}: {}", r.body);
    }
}

#[test]
fn silent_clients_are_cut_off_and_connections_are_capped() {
    let tmp = tempfile::tempdir().unwrap();
    let d = start(
        tmp.path(),
        "[http]\nheader_timeout = \"1s\"\nidle_timeout = \"2s\"\nmax_connections = 2\n",
    );
    let addr = d.base.trim_start_matches("http://").to_string();
    // Slowloris: half a request, then nothing. The daemon closes it after the header timeout.
    let t = std::time::Instant::now();
    let mut slow = std::net::TcpStream::connect(&addr).unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(8))).unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .unwrap();
    let mut buf = Vec::new();
    let closed = slow.read_to_end(&mut buf);
    assert!(
        closed.is_ok(),
        "still open after {:?}: {closed:?}",
        t.elapsed()
    );
    assert!(t.elapsed() < Duration::from_secs(4), "{:?}", t.elapsed());

    // Two silent connections take both slots: a third client waits until they are cut off.
    let silent: Vec<_> = (0..2)
        .map(|_| std::net::TcpStream::connect(&addr).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let t = std::time::Instant::now();
    let h = d.get("/healthz").unwrap();
    assert_eq!(h.status, 200);
    assert!(
        t.elapsed() >= Duration::from_millis(500),
        "served at once: {:?}",
        t.elapsed()
    );
    drop(silent);
    let t = std::time::Instant::now();
    assert_eq!(d.get("/healthz").unwrap().status, 200);
    assert!(
        t.elapsed() < Duration::from_millis(500),
        "{:?}",
        t.elapsed()
    );
}
