//! frugald nodes sharing one PostgreSQL (`[store] backend = "postgres"`): a real server from
//! Debian's `postgresql`, started in a temp dir (`frugal_testkit::postgres`), real daemons on
//! loopback, real git repositories and real jobs. Without PostgreSQL these tests fail and say
//! how to install it.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use frugal_testkit::postgres::Postgres;
use frugal_testkit::{Daemon, binaries, git, run, wait_for};
use serde_json::Value;

/// Long enough for every job of a test on a loaded 2-core host.
const ALL_JOBS: Duration = Duration::from_secs(900);

/// A node's config: the shared database, a short lease, tiny jobs, no polling.
fn node_config(
    dir: &Path,
    url: &str,
    node: &str,
    budget: &str,
    lease: &str,
    extra: &str,
) -> PathBuf {
    let path = dir.join("frugal.toml");
    let text = format!(
        "[daemon]\nlisten = \"127.0.0.1:0\"\nstate_dir = \"state\"\n\n\
         [store]\nbackend = \"postgres\"\nurl = \"{url}\"\nnode_id = \"{node}\"\npool_size = 6\n\n\
         {extra}[search]\nbudget = \"{budget}\"\n\n[executor]\nworkers = 1\n\n\
         [scheduler]\npoll_interval = \"off\"\nlease = \"{lease}\"\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// A node of the fleet: its dir (config, state) and the daemon.
struct Node {
    dir: PathBuf,
    daemon: Daemon,
}

fn start_node(root: &Path, url: &str, name: &str, budget: &str) -> Node {
    start_node_with(root, url, name, budget, "6s", "")
}

fn start_node_with(
    root: &Path,
    url: &str,
    name: &str,
    budget: &str,
    lease: &str,
    extra: &str,
) -> Node {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = node_config(&dir, url, name, budget, lease, extra);
    let daemon = Daemon::start(&binaries().frugald, &cfg, &dir.join("state"))
        .unwrap_or_else(|e| panic!("{e:#}"));
    Node { dir, daemon }
}

/// A git repository holding one tiny crate `name` whose `level` function has `variant` in it.
fn crate_repo(root: &Path, name: &str) -> PathBuf {
    let repo = root.join(format!("repo-{name}"));
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::write(
        repo.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"
        ),
    )
    .unwrap();
    write_lib(&repo, 0);
    run(git(&repo).args(["init", "-q", "-b", "main"])).unwrap();
    commit_all(&repo, "first");
    repo
}

fn write_lib(repo: &Path, variant: u32) {
    std::fs::write(
        repo.join("src/lib.rs"),
        format!(
            "/// The level of `x`.\npub fn level(x: i32) -> &'static str {{\n    \
             if x > {variant} {{ \"high\" }} else if x < -{variant} {{ \"low\" }} else {{ \"mid\" }}\n}}\n"
        ),
    )
    .unwrap();
}

/// Commits everything; the new commit's hash.
fn commit_all(repo: &Path, message: &str) -> String {
    run(git(repo).args(["add", "-A"])).unwrap();
    run(git(repo).args(["commit", "-q", "-m", message])).unwrap();
    run(git(repo).args(["rev-parse", "HEAD"]))
        .unwrap()
        .trim()
        .to_string()
}

fn json(d: &Daemon, path: &str) -> Value {
    let r = d.get_with(path, &d.token).unwrap();
    assert_eq!(r.status, 200, "{path}: {}", r.body);
    r.json()
}

/// Every job, from the jobs API of `d` (all pages).
fn jobs(d: &Daemon) -> Vec<Value> {
    let mut all = Vec::new();
    let mut before: Option<u64> = None;
    loop {
        let path = match before {
            Some(b) => format!("/v1/jobs?limit=100&after={b}"),
            None => "/v1/jobs?limit=100".to_string(),
        };
        let page = json(d, &path);
        let page = page.as_array().cloned().unwrap_or_default();
        if page.is_empty() {
            return all;
        }
        before = page.last().and_then(|j| j["id"].as_u64());
        all.extend(page);
    }
}

/// Waits until no job is queued or running (as `d` sees the fleet's queue).
fn wait_idle(d: &Daemon, limit: Duration, logs: &dyn Fn() -> String) {
    wait_for(
        "the fleet's queue to drain",
        limit,
        Duration::from_millis(500),
        || {
            let s = json(d, "/v1/status");
            Ok((s["jobs_queued"] == 0 && s["jobs_running"] == 0).then_some(()))
        },
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", logs()));
}

/// `kill -9` of a node, as a host dying does, then of what its job left running: the job's
/// processes (builds, harnesses) outlive a killed frugald, and would go on competing for the
/// cores and ending in the middle of later tests. They are found by working under the node's
/// dir.
fn kill_node(node: &mut Node) {
    node.daemon.child.kill().unwrap();
    let _ = node.daemon.child.wait();
    for _ in 0..3 {
        let mut left = 0;
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
                continue;
            };
            let cwd = std::fs::read_link(entry.path().join("cwd")).unwrap_or_default();
            if cwd.starts_with(&node.dir) {
                // SAFETY: a signal to a process of this test's node.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                left += 1;
            }
        }
        if left == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn all_logs(nodes: &[&Node]) -> String {
    nodes
        .iter()
        .map(|n| format!("--- {} ---\n{}", n.dir.display(), n.daemon.log_text()))
        .collect()
}

#[test]
fn three_nodes_share_the_queue_and_answer_alike() {
    let pg = Postgres::start().unwrap_or_else(|e| panic!("{e:#}"));
    pg.create_db("fleet").unwrap();
    let url = pg.url("fleet");
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    let nodes: Vec<Node> = ["n1", "n2", "n3"]
        .iter()
        .map(|n| start_node(tmp.path(), &url, n, "200"))
        .collect();
    let refs: Vec<&Node> = nodes.iter().collect();
    let logs = || all_logs(&refs);

    // Every node lists the fleet.
    wait_for(
        "three nodes alive",
        Duration::from_secs(20),
        Duration::from_millis(300),
        || {
            let s = json(&nodes[2].daemon, "/v1/status");
            let alive = s["nodes"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|n| n["alive"] == true)
                .count();
            Ok((alive == 3).then_some(()))
        },
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", logs()));

    // Three repositories, registered through different nodes, seen by all.
    let repos: Vec<(PathBuf, u64)> = ["alpha", "beta", "gamma"]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let repo = crate_repo(tmp.path(), name);
            let id = common::register(&nodes[i].daemon, &repo, name);
            (repo, id)
        })
        .collect();
    for n in &nodes {
        assert_eq!(json(&n.daemon, "/v1/repos").as_array().unwrap().len(), 3);
    }

    // A token made on one node works on the others (they reload tokens every second).
    let made = nodes[0]
        .daemon
        .post(
            "/v1/tokens",
            Some(&nodes[0].daemon.token),
            r#"{"name": "ci", "scope": "trigger"}"#,
        )
        .unwrap();
    assert_eq!(made.status, 201, "{}", made.body);
    let ci_token = made.json()["token"].as_str().unwrap().to_string();

    // 30 commits, 10 per repository, each pushed to a node in turn; triggers that find the
    // crate's job still queued merge into it.
    let mut triggers = 0;
    let mut heads = BTreeMap::new();
    for round in 1..=10u32 {
        for (i, (repo, id)) in repos.iter().enumerate() {
            write_lib(repo, round);
            let sha = commit_all(repo, &format!("round {round}"));
            let node = &nodes[(round as usize + i) % 3].daemon;
            let token = if round == 1 { &node.token } else { &ci_token };
            let body = serde_json::json!({"commit": sha}).to_string();
            let mut r = node
                .post(&format!("/v1/repos/{id}/trigger"), Some(token), &body)
                .unwrap();
            if r.status == 401 {
                // The token may not have reached this node yet: one reload later it has.
                std::thread::sleep(Duration::from_millis(1500));
                r = node
                    .post(&format!("/v1/repos/{id}/trigger"), Some(token), &body)
                    .unwrap();
            }
            assert!(r.status == 200 || r.status == 202, "{}\n{}", r.body, logs());
            triggers += 1;
            heads.insert(*id, sha);
        }
        std::thread::sleep(Duration::from_millis(700));
    }
    assert_eq!(triggers, 30);
    wait_idle(&nodes[1].daemon, ALL_JOBS, &logs);

    // Every trigger is in exactly one job, each job ran once (one run), and every job ended
    // well: none lost, none run twice.
    let all = jobs(&nodes[0].daemon);
    let merged: u64 = all.iter().map(|j| j["triggers"].as_u64().unwrap()).sum();
    assert_eq!(merged, 30, "{all:#?}");
    let mut runners = BTreeSet::new();
    for j in &all {
        assert_eq!(j["state"], "succeeded", "{j}\n{}", logs());
        assert_eq!(j["attempts"], 1, "{j}");
        runners.insert(j["node"].as_str().unwrap_or("?").to_string());
    }
    let mut runs_per_job: BTreeMap<u64, usize> = BTreeMap::new();
    for (_, id) in &repos {
        for r in json(&nodes[2].daemon, &format!("/v1/runs?repo={id}&limit=200"))
            .as_array()
            .unwrap()
        {
            *runs_per_job.entry(r["job"].as_u64().unwrap()).or_default() += 1;
        }
    }
    assert_eq!(runs_per_job.len(), all.len(), "{runs_per_job:?}");
    assert!(runs_per_job.values().all(|n| *n == 1), "{runs_per_job:?}");
    assert!(
        runners.len() >= 2,
        "the work spread over nodes: {runners:?}"
    );

    // Every node gives the same best suites and reports, and the newest suite is the last
    // commit's (the best one may be older: a newer suite replaces it only when it is better).
    for (repo_path, id) in &repos {
        let name = repo_path.file_name().unwrap().to_str().unwrap();
        let krate = name.trim_start_matches("repo-");
        let path = format!("/v1/repos/{id}/suites/best?crate={krate}");
        let answers: Vec<Value> = nodes.iter().map(|n| json(&n.daemon, &path)).collect();
        assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:#?}");
        let history = json(
            &nodes[0].daemon,
            &format!("/v1/repos/{id}/suites?crate={krate}"),
        );
        assert_eq!(
            history[0]["commit"].as_str(),
            Some(heads[id].as_str()),
            "{history:#}"
        );
        let check = format!("/v1/repos/{id}/commits/{}/report", heads[id]);
        let reports: Vec<String> = nodes
            .iter()
            .map(|n| n.daemon.get_with(&check, &n.daemon.token).unwrap().body)
            .collect();
        assert!(reports.windows(2).all(|w| w[0] == w[1]), "{reports:#?}");
    }
    // A web session opened on one node holds on the others, and a logout on one ends it on all.
    let login = common::ui_login(&nodes[0].daemon, &nodes[0].daemon.token);
    let cookie = common::session_cookie(&login);
    let page = common::http(&nodes[2].daemon, "GET", "/ui", Some(&cookie), None);
    assert!(
        page.contains("Log out"),
        "not logged in on another node:\n{page}"
    );
    let csrf = page
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|v| v.split('"').next())
        .unwrap_or_else(|| panic!("no CSRF token on the page:\n{page}"))
        .to_string();
    let out = common::http(
        &nodes[1].daemon,
        "POST",
        "/ui/logout",
        Some(&cookie),
        Some(&format!("csrf={csrf}")),
    );
    assert!(out.starts_with("HTTP/1.1 303"), "{out}");
    let page = common::http(&nodes[0].daemon, "GET", "/ui", Some(&cookie), None);
    assert!(
        !page.contains("Log out"),
        "the session outlived its logout:\n{page}"
    );

    // The pages too: a crate's page is the same from every node.
    let (_, id) = &repos[0];
    let page = format!("/ui/repos/{id}/crates/alpha");
    let html: Vec<u16> = nodes
        .iter()
        .map(|n| n.daemon.get(&page).unwrap().status)
        .collect();
    assert!(html.iter().all(|s| *s == html[0]), "{html:?}");
}

/// The job `id` as `d` lists it.
fn job(d: &Daemon, id: u64) -> Value {
    jobs(d)
        .into_iter()
        .find(|j| j["id"] == id)
        .unwrap_or_else(|| panic!("job {id} is not listed"))
}

#[test]
fn a_killed_node_s_job_is_finished_by_another() {
    let pg = Postgres::start().unwrap_or_else(|e| panic!("{e:#}"));
    pg.create_db("fleet").unwrap();
    let url = pg.url("fleet");
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    // A budget long enough that the kill lands inside the job.
    let mut nodes = vec![
        start_node(tmp.path(), &url, "k1", "20s"),
        start_node(tmp.path(), &url, "k2", "20s"),
    ];
    let repo = crate_repo(tmp.path(), "delta");
    let id = common::register(&nodes[0].daemon, &repo, "delta");
    let d = &nodes[0].daemon;
    let r = d
        .post(&format!("/v1/repos/{id}/trigger"), Some(&d.token), "{}")
        .unwrap();
    assert!(r.status == 200 || r.status == 202, "{}", r.body);
    let job_id = r.json()["jobs"][0]["job"].as_u64().unwrap();
    let holder = wait_for(
        "the job to run",
        Duration::from_secs(60),
        Duration::from_millis(200),
        || {
            let j = job(&nodes[1].daemon, job_id);
            Ok((j["state"] == "running").then(|| j["node"].as_str().unwrap_or("").to_string()))
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let at = if holder == "k1" { 0 } else { 1 };
    let mut victim = nodes.remove(at);
    let survivor = nodes.pop().unwrap();
    // Well into the job: its run exists and the search is under way.
    std::thread::sleep(Duration::from_secs(5));
    kill_node(&mut victim);
    let killed_at = Instant::now();
    let done = wait_for(
        "another node to finish the job",
        Duration::from_secs(300),
        Duration::from_millis(300),
        || {
            let j = job(&survivor.daemon, job_id);
            Ok(matches!(j["state"].as_str(), Some("succeeded" | "failed")).then_some(j))
        },
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", survivor.daemon.log_text()));
    let took = killed_at.elapsed();
    let log = survivor.daemon.log_text();
    assert_eq!(done["state"], "succeeded", "{done}\n{log}");
    assert_eq!(done["attempts"], 2, "{done}");
    assert_eq!(done["node"], survivor_id(&holder), "{done}");
    // One lease (6 s) and the expiry check, then one job (20 s of search and the builds).
    assert!(took < Duration::from_secs(240), "{took:?}");
    // The killed node's run says what happened; the job's second run succeeded.
    let runs = json(&survivor.daemon, &format!("/v1/runs?repo={id}"));
    let runs = runs.as_array().unwrap();
    assert_eq!(runs.len(), 2, "{runs:#?}");
    assert!(runs.iter().any(|r| r["status"] == "succeeded"), "{runs:#?}");
    assert!(
        runs.iter()
            .any(|r| r["error"].as_str().is_some_and(|e| e.contains("lease"))),
        "{runs:#?}"
    );
}

/// The other node of the two.
fn survivor_id(victim: &str) -> &'static str {
    if victim == "k1" { "k2" } else { "k1" }
}

#[test]
fn a_sled_installation_moves_to_postgres_and_serves_the_same_suites() {
    let pg = Postgres::start().unwrap_or_else(|e| panic!("{e:#}"));
    pg.create_db("moved").unwrap();
    let url = pg.url("moved");
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    // A single sled frugald with one finished job.
    let sled_dir = tmp.path().join("sled-node");
    std::fs::create_dir_all(&sled_dir).unwrap();
    let cfg = frugal_testkit::daemon_config(&sled_dir, "[search]\nbudget = \"200\"\n");
    let state = sled_dir.join("state");
    let d = Daemon::start(&binaries().frugald, &cfg, &state).unwrap_or_else(|e| panic!("{e:#}"));
    let repo = crate_repo(tmp.path(), "epsilon");
    let id = common::register(&d, &repo, "epsilon");
    let r = d
        .post(&format!("/v1/repos/{id}/trigger"), Some(&d.token), "{}")
        .unwrap();
    let job = r.json()["jobs"][0]["job"].as_u64().unwrap();
    let run = common::ended_run(&d, ALL_JOBS, id, job);
    assert_eq!(run["status"], "succeeded", "{run}\n{}", d.log_text());
    let best_path = format!("/v1/repos/{id}/suites/best?crate=epsilon");
    let best = json(&d, &best_path);
    let source_path = format!("/v1/repos/{id}/suites/best/source?crate=epsilon");
    let source = d.get_with(&source_path, &d.token).unwrap();
    assert_eq!(source.status, 200, "{}", source.body);
    drop(d);

    let migrate = |extra: &[&str]| {
        std::process::Command::new(&binaries().frugal)
            .args(["store", "migrate", "--from"])
            .arg(format!("sled:{}", state.display()))
            .args(["--to", &format!("postgres:{url}")])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = migrate(&[]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("every count and checksum is equal"), "{text}");
    assert!(!text.contains("DIFFERS"), "{text}");
    // A second copy would mix two installations: refused unless forced.
    let again = migrate(&[]);
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already holds records"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    // A node on the result serves the same best suite.
    let node = start_node(tmp.path(), &url, "moved", "200");
    assert_eq!(json(&node.daemon, &best_path), best);
    let moved = node
        .daemon
        .get_with(&source_path, &node.daemon.token)
        .unwrap();
    assert_eq!(moved.status, 200, "{}", moved.body);
    assert_eq!(moved.body, source.body);
}

#[test]
fn a_database_outage_answers_503_and_loses_nothing() {
    let pg = Postgres::start().unwrap_or_else(|e| panic!("{e:#}"));
    pg.create_db("fleet").unwrap();
    let url = pg.url("fleet");
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    // Leases outlive the outage: the nodes keep their jobs through it.
    let nodes: Vec<Node> = ["o1", "o2"]
        .iter()
        .map(|n| start_node_with(tmp.path(), &url, n, "10s", "60s", ""))
        .collect();
    let refs: Vec<&Node> = nodes.iter().collect();
    let logs = || all_logs(&refs);
    let repos: Vec<u64> = ["zeta", "eta"]
        .iter()
        .map(|name| {
            let repo = crate_repo(tmp.path(), name);
            common::register(&nodes[0].daemon, &repo, name)
        })
        .collect();
    let d = &nodes[0].daemon;
    for id in &repos {
        let r = d
            .post(&format!("/v1/repos/{id}/trigger"), Some(&d.token), "{}")
            .unwrap();
        assert!(r.status == 200 || r.status == 202, "{}", r.body);
    }
    wait_for(
        "a job to run",
        Duration::from_secs(60),
        Duration::from_millis(200),
        || {
            Ok(jobs(d)
                .iter()
                .any(|j| j["state"] == "running")
                .then_some(()))
        },
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", logs()));

    pg.stop().unwrap();
    let down = Instant::now();
    let mut unavailable = 0;
    while down.elapsed() < Duration::from_secs(20) {
        let n = &nodes[1].daemon;
        let r = n.get_with("/v1/repos", &n.token).unwrap();
        if r.status == 503 {
            let body: Value =
                serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("{e}: {}", r.body));
            let msg = body["error"].as_str().unwrap_or_default();
            assert!(msg.contains("unavailable"), "{}", r.body);
            unavailable += 1;
        } else {
            panic!(
                "the API answered {} while PostgreSQL was down: {}",
                r.status, r.body
            );
        }
        assert_eq!(n.get("/healthz").unwrap().status, 200);
        std::thread::sleep(Duration::from_millis(500));
    }
    assert!(unavailable > 0);
    pg.start_server().unwrap();
    wait_idle(&nodes[0].daemon, ALL_JOBS, &logs);

    // Nothing lost, nothing run or stored twice.
    let all = jobs(&nodes[1].daemon);
    assert_eq!(all.len(), 2, "{all:#?}");
    for j in &all {
        assert_eq!(j["state"], "succeeded", "{j}\n{}", logs());
    }
    for id in &repos {
        let runs = json(&nodes[1].daemon, &format!("/v1/runs?repo={id}"));
        let runs = runs.as_array().unwrap();
        let ok = runs.iter().filter(|r| r["status"] == "succeeded").count();
        assert_eq!(ok, 1, "{runs:#?}");
        let suites = json(&nodes[1].daemon, &format!("/v1/repos/{id}/suites"));
        assert_eq!(suites.as_array().unwrap().len(), 1, "{suites:#}");
    }
}

#[test]
fn a_job_whose_node_dies_every_time_ends_failed_after_three_attempts() {
    let pg = Postgres::start().unwrap_or_else(|e| panic!("{e:#}"));
    pg.create_db("fleet").unwrap();
    let url = pg.url("fleet");
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    let mut nodes: Vec<Node> = ["a1", "a2"]
        .iter()
        .map(|n| start_node(tmp.path(), &url, n, "20s"))
        .collect();
    let repo = crate_repo(tmp.path(), "theta");
    let id = common::register(&nodes[0].daemon, &repo, "theta");
    let d = &nodes[0].daemon;
    let r = d
        .post(&format!("/v1/repos/{id}/trigger"), Some(&d.token), "{}")
        .unwrap();
    let job_id = r.json()["jobs"][0]["job"].as_u64().unwrap();
    for attempt in 1..=3u64 {
        // Whichever node claims the job dies with it, then comes back.
        let holder = wait_for(
            "the job to run",
            Duration::from_secs(120),
            Duration::from_millis(200),
            || {
                let d = &nodes
                    .iter()
                    .find(|n| n.daemon.child.id() > 0)
                    .unwrap()
                    .daemon;
                let j = job(d, job_id);
                Ok((j["state"] == "running" && j["attempts"] == attempt)
                    .then(|| j["node"].as_str().unwrap_or("").to_string()))
            },
        )
        .unwrap_or_else(|e| panic!("attempt {attempt}: {e}"));
        let at = nodes
            .iter()
            .position(|n| n.dir.ends_with(&holder))
            .unwrap_or_else(|| panic!("no node {holder}"));
        let victim = &mut nodes[at];
        kill_node(victim);
        let cfg = victim.dir.join("frugal.toml");
        victim.daemon = Daemon::start(&binaries().frugald, &cfg, &victim.dir.join("state"))
            .unwrap_or_else(|e| panic!("{e:#}"));
    }
    let d = &nodes[1].daemon;
    let done = wait_for(
        "the job to end",
        Duration::from_secs(120),
        Duration::from_millis(300),
        || {
            let j = job(d, job_id);
            Ok(matches!(j["state"].as_str(), Some("succeeded" | "failed")).then_some(j))
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(done["state"], "failed", "{done}");
    assert_eq!(done["attempts"], 3, "{done}");
    let why = done["outcome"].as_str().unwrap_or_default();
    assert!(why.contains("3 time(s); giving up"), "{done}");
}

/// The figure of `bench/FLEET.md`: jobs per hour with 1, 2 and 3 nodes, each job sleeping
/// 2 s instead of searching (`FRUGALD_BENCH_SLEEP_JOBS_MS`), 30 jobs over 30 repositories.
/// Prints one JSON line per node count. Run by `python3 bench/fleet.py`.
#[test]
#[ignore = "a benchmark: python3 bench/fleet.py runs it"]
fn jobs_per_hour_with_one_two_and_three_nodes() {
    const JOBS: usize = 30;
    const NAP_MS: u64 = 2000;
    for count in 1..=3usize {
        let pg = Postgres::start().unwrap_or_else(|e| panic!("{e:#}"));
        pg.create_db("bench").unwrap();
        let url = pg.url("bench");
        let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
        let nodes: Vec<Node> = (1..=count)
            .map(|i| {
                let name = format!("b{i}");
                let dir = tmp.path().join(&name);
                std::fs::create_dir_all(&dir).unwrap();
                let cfg = node_config(&dir, &url, &name, "200", "60s", "");
                let daemon = Daemon::start_with(
                    &binaries().frugald,
                    &cfg,
                    &dir.join("state"),
                    &[],
                    &[("FRUGALD_BENCH_SLEEP_JOBS_MS", &NAP_MS.to_string())],
                )
                .unwrap_or_else(|e| panic!("{e:#}"));
                Node { dir, daemon }
            })
            .collect();
        let ids: Vec<u64> = (0..JOBS)
            .map(|i| {
                let name = format!("bench{i}");
                let repo = crate_repo(tmp.path(), &name);
                common::register(&nodes[i % count].daemon, &repo, &name)
            })
            .collect();
        let refs: Vec<&Node> = nodes.iter().collect();
        let logs = || all_logs(&refs);
        let t = Instant::now();
        for (i, id) in ids.iter().enumerate() {
            let d = &nodes[i % count].daemon;
            let r = d
                .post(&format!("/v1/repos/{id}/trigger"), Some(&d.token), "{}")
                .unwrap();
            assert!(r.status == 200 || r.status == 202, "{}", r.body);
        }
        wait_idle(&nodes[0].daemon, ALL_JOBS, &logs);
        let wall = t.elapsed().as_secs_f64();
        let all = jobs(&nodes[0].daemon);
        assert_eq!(all.len(), JOBS);
        assert!(
            all.iter()
                .all(|j| j["state"] == "succeeded" && j["attempts"] == 1)
        );
        let per_hour = JOBS as f64 / wall * 3600.0;
        let ideal = 3600.0 * 1000.0 / NAP_MS as f64 * count as f64;
        println!(
            "{}",
            serde_json::json!({
                "nodes": count, "jobs": JOBS, "job_ms": NAP_MS, "wall_s": wall,
                "jobs_per_hour": per_hour, "ideal_per_hour": ideal,
                "efficiency": per_hour / ideal,
            })
        );
    }
}

#[test]
fn a_repository_registered_by_url_is_mirrored_by_the_node_that_needs_it() {
    let pg = Postgres::start().unwrap_or_else(|e| panic!("{e:#}"));
    pg.create_db("fleet").unwrap();
    let url = pg.url("fleet");
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    let origin_root = tmp.path().join("origin");
    std::fs::create_dir_all(&origin_root).unwrap();
    let roots = format!("[jobs]\nrepo_roots = [\"{}\"]\n\n", origin_root.display());
    let nodes: Vec<Node> = ["u1", "u2"]
        .iter()
        .map(|n| start_node_with(tmp.path(), &url, n, "200", "6s", &roots))
        .collect();
    let refs: Vec<&Node> = nodes.iter().collect();
    let logs = || all_logs(&refs);
    let repo = crate_repo(&origin_root, "iota");
    let repo_url = format!("file://{}", repo.canonicalize().unwrap().display());

    // Outside the roots: refused with the reason.
    let elsewhere = crate_repo(tmp.path(), "kappa");
    let d = &nodes[0].daemon;
    let body = serde_json::json!({"path": format!("file://{}", elsewhere.display())});
    let r = d
        .post("/v1/repos", Some(&d.token), &body.to_string())
        .unwrap();
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains("repo_roots"), "{}", r.body);

    // Registered on one node, crates found in its HEAD.
    let body = serde_json::json!({"path": repo_url});
    let r = d
        .post("/v1/repos", Some(&d.token), &body.to_string())
        .unwrap();
    assert_eq!(r.status, 201, "{}\n{}", r.body, logs());
    let id = r.json()["id"].as_u64().unwrap();
    assert_eq!(r.json()["crates"][0]["name"], "iota", "{}", r.body);

    // Two commits, each triggered on a different node: each job builds its commit from the
    // mirror of the node that runs it.
    for (round, n) in [(1u32, 1usize), (2, 0)] {
        write_lib(&repo, round);
        let sha = commit_all(&repo, &format!("round {round}"));
        let d = &nodes[n].daemon;
        let body = serde_json::json!({"commit": sha}).to_string();
        let r = d
            .post(&format!("/v1/repos/{id}/trigger"), Some(&d.token), &body)
            .unwrap();
        assert!(r.status == 200 || r.status == 202, "{}\n{}", r.body, logs());
        wait_idle(d, ALL_JOBS, &logs);
        let suites = json(d, &format!("/v1/repos/{id}/suites"));
        assert_eq!(
            suites[0]["commit"].as_str(),
            Some(sha.as_str()),
            "{suites:#}"
        );
    }
    let all = jobs(&nodes[0].daemon);
    assert!(
        all.iter().all(|j| j["state"] == "succeeded"),
        "{all:#?}\n{}",
        logs()
    );
    let mirrored = nodes
        .iter()
        .filter(|n| {
            std::fs::read_dir(n.dir.join("state/mirrors"))
                .into_iter()
                .flatten()
                .flatten()
                .any(|e| e.file_name().to_string_lossy().ends_with(".git"))
        })
        .count();
    assert!(mirrored >= 1, "no node mirrored the repository");
}

/// The migration figure of `bench/FLEET.md`: the state dir of a real sled installation (the
/// soak test's, `FRUGAL_MIGRATE_STATE`) moves to PostgreSQL; prints the per-tree comparison,
/// then checks that a node on the result serves the same repositories and best suites as a
/// node on (a copy of) the original. Run by `python3 bench/fleet.py --only migrate`.
#[test]
#[ignore = "a benchmark: python3 bench/fleet.py --only migrate runs it"]
fn a_soak_installation_moves_to_postgres() {
    let source = PathBuf::from(
        std::env::var("FRUGAL_MIGRATE_STATE").expect("FRUGAL_MIGRATE_STATE names a state dir"),
    );
    let pg = Postgres::start().unwrap_or_else(|e| panic!("{e:#}"));
    pg.create_db("moved").unwrap();
    let url = pg.url("moved");
    let tmp = common::daemon_dir(tempfile::tempdir().unwrap());
    // A copy: the soak's own state stays as it was.
    let state = tmp.path().join("sled-node/state");
    std::fs::create_dir_all(&state).unwrap();
    run(std::process::Command::new("cp")
        .arg("-a")
        .arg(source.join("store"))
        .arg(&state))
    .unwrap();
    let t = Instant::now();
    let out = std::process::Command::new(&binaries().frugal)
        .args(["store", "migrate", "--json", "--from"])
        .arg(format!("sled:{}", state.display()))
        .args(["--to", &format!("postgres:{url}")])
        .output()
        .unwrap();
    let took = t.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let trees: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sled_node = {
        let cfg = frugal_testkit::daemon_config(&tmp.path().join("sled-node"), "");
        Daemon::start(&binaries().frugald, &cfg, &state).unwrap_or_else(|e| panic!("{e:#}"))
    };
    let pg_node = start_node(tmp.path(), &url, "moved", "200");
    let repos = json(&sled_node, "/v1/repos");
    assert_eq!(repos, json(&pg_node.daemon, "/v1/repos"));
    let mut compared = 0;
    for r in repos.as_array().unwrap() {
        let id = r["id"].as_u64().unwrap();
        for c in r["crates"].as_array().unwrap() {
            let path = format!(
                "/v1/repos/{id}/suites/best?crate={}",
                c["name"].as_str().unwrap()
            );
            let a = sled_node.get_with(&path, &sled_node.token).unwrap();
            let b = pg_node
                .daemon
                .get_with(&path, &pg_node.daemon.token)
                .unwrap();
            assert_eq!((a.status, &a.body), (b.status, &b.body), "{path}");
            compared += 1;
        }
        let runs = format!("/v1/runs?repo={id}&limit=500");
        assert_eq!(json(&sled_node, &runs), json(&pg_node.daemon, &runs));
    }
    let records: u64 = trees
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["source_count"].as_u64().unwrap())
        .sum();
    let all_equal = trees.as_array().unwrap().iter().all(|t| {
        t["source_count"] == t["target_count"] && t["source_checksum"] == t["target_checksum"]
    });
    assert!(all_equal, "{trees:#}");
    println!(
        "{}",
        serde_json::json!({
            "migrate": trees, "records": records, "seconds": took,
            "best_suites_compared": compared, "all_equal": all_equal,
        })
    );
}
