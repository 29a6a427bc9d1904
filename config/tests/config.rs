//! Config loading: defaults, environment, validation errors naming file, line and key.

use std::path::{Path, PathBuf};
use std::time::Duration;

use frugal_config::*;

fn no_env() -> Vec<(String, String)> {
    Vec::new()
}

/// Writes `text` to `frugal.toml` in a temp dir and loads it.
fn load(text: &str) -> (tempfile::TempDir, PathBuf, Result<Config, ConfigError>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("frugal.toml");
    std::fs::write(&path, text).unwrap();
    let r = Config::load_with_env(&path, no_env());
    (dir, path, r)
}

/// Asserts the error names the file, the line and the key.
fn assert_names(text: &str, line: usize, key: &str, also: &str) {
    let (_dir, path, r) = load(text);
    let err = r.expect_err("config must be rejected");
    let msg = err.to_string();
    assert!(
        msg.contains(&format!("{}:{line}:", path.display())),
        "file and line {line} missing: {msg}"
    );
    assert!(
        msg.contains(&format!("key `{key}`")),
        "key `{key}` missing: {msg}"
    );
    assert!(msg.contains(also), "`{also}` missing: {msg}");
    assert_eq!(err.line(), Some(line));
    assert_eq!(err.key(), Some(key));
}

#[test]
fn an_empty_file_gives_the_defaults() {
    let (_dir, _path, r) = load("");
    let c = r.unwrap();
    assert_eq!(c.daemon.listen.to_string(), "127.0.0.1:7878");
    assert_eq!(c.daemon.state_dir, Path::new("/var/lib/frugal"));
    assert_eq!(c.daemon.token_file, Path::new("/var/lib/frugal/token"));
    assert_eq!(c.daemon.unix_socket, None);
    assert_eq!(c.daemon.log_format, LogFormat::Text);
    assert_eq!(c.search.budget, Budget::Time(Duration::from_secs(300)));
    assert_eq!(c.search.algorithm, "adynamosa");
    assert_eq!(c.search.seed, 1);
    assert_eq!(c.search.population, 50);
    assert_eq!(c.search.tournament_size, 10);
    assert_eq!(c.search.goal_selection, "all");
    assert_eq!(c.search.mutants, "off");
    assert_eq!(c.search.stall_generations, Some(50));
    assert_eq!(c.executor.timeout, Duration::from_millis(1000));
    assert!(c.executor.workers >= 1);
    assert_eq!(c.scheduler.max_concurrent_jobs, 1);
    assert_eq!(c.scheduler.poll_interval, Some(Duration::from_secs(60)));
    assert_eq!(c.scheduler.default_schedule, None);
    assert!(c.repos.is_empty());
    assert_eq!(c.origin("daemon.listen"), Origin::Default);
    assert_eq!(Config::default().daemon, c.daemon);
}

#[test]
fn values_from_the_file_resolve() {
    let (dir, path, r) = load(
        r#"
[daemon]
listen = "0.0.0.0:9000"
state_dir = "state"
unix_socket = "/run/frugal.sock"
log_format = "json"

[search]
budget = 20000
algorithm = "random"
stall_generations = 0

[scheduler]
poll_interval = "off"
default_schedule = "0 3 * * 1-5"

[[repo]]
path = "/srv/git/a"
crates = ["a", { name = "b", dir = "./crates/b/" }]
schedule = "0 0 4 * * * *"
budget = "10m"

[[repo]]
path = "/srv/git/b"
schedule = "off"
"#,
    );
    let c = r.unwrap();
    assert_eq!(c.daemon.listen.port(), 9000);
    assert_eq!(c.daemon.state_dir, dir.path().join("state"));
    assert_eq!(c.daemon.token_file, dir.path().join("state/token"));
    assert_eq!(c.daemon.log_format, LogFormat::Json);
    assert_eq!(c.search.budget, Budget::Executions(20000));
    assert_eq!(
        c.search.stall_generations, None,
        "0 turns the stall stop off"
    );
    assert_eq!(c.scheduler.poll_interval, None);
    assert_eq!(
        c.scheduler.default_schedule.as_ref().unwrap().normalized(),
        "0 0 3 * * MON,TUE,WED,THU,FRI"
    );
    assert_eq!(c.repos.len(), 2);
    assert_eq!(
        c.repos[0].crates,
        vec![
            CrateConfig {
                name: "a".into(),
                dir: None
            },
            CrateConfig {
                name: "b".into(),
                dir: Some("crates/b".into())
            }
        ]
    );
    assert_eq!(
        c.repos[0].budget,
        Some(Budget::Time(Duration::from_secs(600)))
    );
    assert!(c.repos[1].crates.is_empty());
    // `off` exempts the repository from the default schedule; it is not the same as unset.
    assert_eq!(c.repos[1].schedule, Some(RepoSchedule::Off));
    assert_eq!(
        c.repos[0].schedule.as_ref().map(RepoSchedule::source),
        Some("0 0 4 * * * *")
    );
    assert_eq!(
        c.origin("daemon.listen"),
        Origin::File {
            path,
            line: 3,
            column: 10
        }
    );
}

#[test]
fn environment_overrides_the_file_and_is_named_in_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("frugal.toml");
    std::fs::write(&path, "[daemon]\nlisten = \"127.0.0.1:1\"\n").unwrap();
    let env = vec![
        (
            "FRUGAL_DAEMON_LISTEN".to_string(),
            "127.0.0.1:7000".to_string(),
        ),
        (
            "FRUGAL_SCHEDULER_MAX_CONCURRENT_JOBS".to_string(),
            "3".to_string(),
        ),
        ("FRUGAL_SEARCH_BUDGET".to_string(), "90s".to_string()),
        ("PATH".to_string(), "/bin".to_string()),
        ("FRUGAL_CONFIG".to_string(), "ignored".to_string()),
    ];
    let c = Config::load_with_env(&path, env).unwrap();
    assert_eq!(c.daemon.listen.port(), 7000);
    assert_eq!(c.scheduler.max_concurrent_jobs, 3);
    assert_eq!(c.search.budget, Budget::Time(Duration::from_secs(90)));
    assert_eq!(
        c.origin("daemon.listen"),
        Origin::Env {
            var: "FRUGAL_DAEMON_LISTEN".into()
        }
    );

    let bad = vec![("FRUGAL_EXECUTOR_TIMEOUT_MS".to_string(), "soon".to_string())];
    let msg = Config::load_with_env(&path, bad).unwrap_err().to_string();
    assert!(
        msg.contains("environment variable FRUGAL_EXECUTOR_TIMEOUT_MS"),
        "{msg}"
    );
    assert!(msg.contains("key `executor.timeout_ms`"), "{msg}");

    let typo = vec![("FRUGAL_DAEMON_LISTN".to_string(), "x".to_string())];
    let msg = Config::load_with_env(&path, typo).unwrap_err().to_string();
    assert!(
        msg.contains("FRUGAL_DAEMON_LISTN") && msg.contains("FRUGAL_DAEMON_LISTEN"),
        "{msg}"
    );
}

#[test]
fn an_unknown_key_names_file_line_and_key() {
    assert_names(
        "[daemon]\nlisten = \"127.0.0.1:7878\"\nlisen = 3\n",
        3,
        "daemon.lisen",
        "unknown field `lisen`",
    );
}

#[test]
fn an_unknown_table_names_file_line_and_key() {
    assert_names(
        "\n[deamon]\nlisten = \"x\"\n",
        2,
        "deamon",
        "unknown field `deamon`",
    );
}

#[test]
fn a_bad_socket_address_names_file_line_and_key() {
    assert_names(
        "# comment\n[daemon]\nworkers = 2\nlisten = \"localhost\"\n",
        4,
        "daemon.listen",
        "is not a socket address",
    );
}

#[test]
fn a_bad_cron_expression_names_file_line_and_key() {
    assert_names(
        "[scheduler]\ndefault_schedule = \"61 * * * *\"\n",
        2,
        "scheduler.default_schedule",
        "not a valid cron expression",
    );
    assert_names(
        "[[repo]]\npath = \"/a\"\n\n[[repo]]\npath = \"/b\"\nschedule = \"* * *\"\n",
        6,
        "repo[1].schedule",
        "has 3 field(s)",
    );
}

#[test]
fn a_wrong_type_names_file_line_and_key() {
    assert_names(
        "[executor]\ntimeout_ms = \"fast\"\n",
        2,
        "executor.timeout_ms",
        "invalid type",
    );
}

#[test]
fn out_of_range_and_unknown_values_name_file_line_and_key() {
    assert_names(
        "[scheduler]\nmax_concurrent_jobs = 0\n",
        2,
        "scheduler.max_concurrent_jobs",
        "too small",
    );
    assert_names(
        "[search]\nalgorithm = \"genetic\"\n",
        2,
        "search.algorithm",
        "dynamosa",
    );
    assert_names(
        "[search]\npopulation = 1\n",
        2,
        "search.population",
        "too small",
    );
    assert_names(
        "[regressions]\npolicy = \"ignore\"\n",
        2,
        "regressions.policy",
        "\"hold\"",
    );
    assert_names(
        "[search]\nstall_generations = 4294967296\n",
        2,
        "search.stall_generations",
        "at most 4294967295",
    );
    assert_names(
        "[search]\nstall_generations = -1\n",
        2,
        "search.stall_generations",
        "too small",
    );
    assert_names(
        "[search]\ngoal_selection = \"clever\"\n",
        2,
        "search.goal_selection",
        "smart",
    );
    assert_names(
        "[search]\nmutants = \"sometimes\"\n",
        2,
        "search.mutants",
        "off, weak or strong",
    );
    assert_names(
        "[search]\nbudget = \"18446744073709551615h\"\n",
        2,
        "search.budget",
        "at most 24 h",
    );
    assert_names(
        "[search]\nbudget = 1000000000001\n",
        2,
        "search.budget",
        "at most 1000000000000 executions",
    );
    assert_names(
        "[search]\nbudget = \"1000000000001\"\n",
        2,
        "search.budget",
        "at most 1000000000000 executions",
    );
    assert_names(
        "[[repo]]\npath = \"/a\"\nbudget = \"5124095576030432h\"\n",
        3,
        "repo[0].budget",
        "at most 24 h",
    );
    assert_names(
        "[scheduler]\npoll_interval = \"18446744073709551615h\"\n",
        2,
        "scheduler.poll_interval",
        "too long",
    );
    assert_names(
        "[search]\nbudget = \"5 fortnights\"\n",
        2,
        "search.budget",
        "unit",
    );
    assert_names(
        "[scheduler]\npoll_interval = \"10\"\n",
        2,
        "scheduler.poll_interval",
        "needs a unit",
    );
    assert_names(
        "[[repo]]\npath = \"/a\"\n[[repo]]\npath = \"/a\"\n",
        4,
        "repo[1].path",
        "already configured",
    );
    assert_names(
        "[[repo]]\npath = \"/a\"\ncolour = \"red\"\n",
        3,
        "repo[0].colour",
        "unknown field",
    );
}

#[test]
fn a_syntax_error_names_file_and_line() {
    let (_dir, path, r) = load("[daemon]\nlisten = \"127.0.0.1:7878\n");
    let msg = r.unwrap_err().to_string();
    assert!(msg.contains(&format!("{}:2:", path.display())), "{msg}");
}

#[test]
fn a_missing_file_names_the_path() {
    let err = Config::load_with_env("/nonexistent/frugal.toml", no_env()).unwrap_err();
    assert!(
        err.to_string().contains("/nonexistent/frugal.toml"),
        "{err}"
    );
}

#[test]
fn the_example_file_parses_and_documents_every_key() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("frugal.example.toml");
    let c = Config::load_with_env(&path, no_env()).unwrap();
    assert_eq!(c.daemon, Config::default().daemon);
    assert_eq!(c.search, Config::default().search);
    let text = std::fs::read_to_string(&path).unwrap();
    for key in KEYS {
        let leaf = key.rsplit('.').next().unwrap();
        assert!(
            text.contains(&format!("{leaf} = ")),
            "{key} is not documented"
        );
    }
    // The commented-out repo block is valid too.
    let uncommented: String = text
        .lines()
        .map(|l| {
            l.strip_prefix("# ")
                .filter(|r| r.starts_with("[[repo]]") || r.contains(" = ") && !r.starts_with('#'))
                .unwrap_or(l)
        })
        .collect::<Vec<_>>()
        .join("\n");
    let c = Config::from_toml(&uncommented, Some(&path), no_env())
        .unwrap_or_else(|e| panic!("{e}\n{uncommented}"));
    assert_eq!(c.repos.len(), 1);
    assert_eq!(c.repos[0].crates.len(), 2);
    assert!(c.scheduler.default_schedule.is_some());
}

#[test]
fn cron_accepts_five_six_and_seven_fields() {
    assert_eq!(
        CronExpr::parse("*/5 * * * *").unwrap().normalized(),
        "0 */5 * * * *"
    );
    assert_eq!(
        CronExpr::parse("0 0 3 * * *").unwrap().normalized(),
        "0 0 3 * * *"
    );
    assert!(CronExpr::parse("0 0 3 * * * 2030").is_ok());
    assert!(CronExpr::parse("@daily").is_ok());
    // crontab Sunday is 0 or 7; the cron crate's 1 is Sunday: names keep the meaning.
    assert_eq!(
        CronExpr::parse("0 3 * * 0").unwrap().normalized(),
        "0 0 3 * * SUN"
    );
    assert_eq!(
        CronExpr::parse("0 3 * * 5-7").unwrap().normalized(),
        "0 0 3 * * FRI,SAT,SUN"
    );
    assert!(CronExpr::parse("0 3 * * 8").is_err());
    assert!(CronExpr::parse("* * * *").is_err());
}

#[test]
fn allowed_hosts_and_http_limits_read_from_file_and_environment() {
    let (_dir, _, r) = load(
        "[daemon]\nallowed_hosts = [\"CI.example.com\", \"[::1]\"]\nauth_reads = true\n\
         [http]\nheader_timeout = \"2s\"\nmax_connections = 8\n",
    );
    let c = r.unwrap();
    assert_eq!(c.daemon.allowed_hosts, ["ci.example.com", "::1"]);
    assert!(c.daemon.auth_reads);
    assert_eq!(c.http.header_timeout, Duration::from_secs(2));
    assert_eq!(c.http.idle_timeout, Duration::from_secs(60));
    assert_eq!(c.http.max_connections, 8);
    let env = [
        (
            "FRUGAL_DAEMON_ALLOWED_HOSTS".to_string(),
            "a.example, b".to_string(),
        ),
        ("FRUGAL_HTTP_REQUEST_TIMEOUT".to_string(), "5s".to_string()),
    ];
    let c = Config::from_env(env).unwrap();
    assert_eq!(c.daemon.allowed_hosts, ["a.example", "b"]);
    assert_eq!(c.http.request_timeout, Duration::from_secs(5));
    assert_names(
        "[daemon]\nworkers = 1\nallowed_hosts = [\"ci.example.com:7878\"]\n",
        3,
        "daemon.allowed_hosts",
        "without a scheme or port",
    );
    assert_names(
        "[http]\n\nidle_timeout = \"0s\"\n",
        3,
        "http.idle_timeout",
        "is zero",
    );
}

#[test]
fn job_bounds_take_sizes_counts_environment_and_zero_for_none() {
    let d = Config::default().jobs;
    assert_eq!(
        (d.max_memory, d.max_processes, d.max_disk, d.max_files),
        (Some(8 << 30), Some(2048), Some(16 << 30), Some(500_000))
    );
    let (_dir, _path, r) = load(
        "[jobs]\nmax_memory = \"384M\"\nmax_processes = 0\nmax_disk = 1048576\nmax_files = 50000\n",
    );
    let j = r.unwrap().jobs;
    assert_eq!(
        (j.max_memory, j.max_processes, j.max_disk, j.max_files),
        (Some(384 << 20), None, Some(1 << 20), Some(50_000))
    );
    let env = vec![
        ("FRUGAL_JOBS_MAX_FILES".to_string(), "0".to_string()),
        ("FRUGAL_JOBS_MAX_MEMORY".to_string(), "2G".to_string()),
    ];
    let j = Config::from_env(env).unwrap().jobs;
    assert_eq!((j.max_files, j.max_memory), (None, Some(2 << 30)));
    assert_names(
        "[jobs]\nmax_memory = \"lots\"\n",
        2,
        "jobs.max_memory",
        "lots",
    );
    assert_names("[jobs]\nmax_files = -1\n", 2, "jobs.max_files", "");
}

#[test]
fn a_uid_range_for_jobs_is_two_uids_above_root() {
    assert_eq!(Config::default().jobs.uid_range, None);
    let (_dir, _path, r) = load("[jobs]\nuid_range = \"200000-200999\"\n");
    assert_eq!(r.unwrap().jobs.uid_range, Some((200_000, 200_999)));
    let env = vec![("FRUGAL_JOBS_UID_RANGE".to_string(), "5000-5000".to_string())];
    assert_eq!(
        Config::from_env(env).unwrap().jobs.uid_range,
        Some((5000, 5000))
    );
    assert_names(
        "[jobs]\nuid_range = \"0-10\"\n",
        2,
        "jobs.uid_range",
        "between 1",
    );
    assert_names(
        "[jobs]\nuid_range = \"20-10\"\n",
        2,
        "jobs.uid_range",
        "not above",
    );
    assert_names(
        "[jobs]\nuid_range = \"200000\"\n",
        2,
        "jobs.uid_range",
        "FIRST-LAST",
    );
}

#[test]
fn kept_builds_are_off_unless_the_admin_turns_them_on() {
    assert!(!Config::default().jobs.keep_builds);
    let (_dir, _path, r) = load("[jobs]\nkeep_builds = true\n");
    assert!(r.unwrap().jobs.keep_builds);
    let env = vec![("FRUGAL_JOBS_KEEP_BUILDS".to_string(), "true".to_string())];
    assert!(Config::from_env(env).unwrap().jobs.keep_builds);
    assert_names("[jobs]\nkeep_builds = \"yes\"\n", 2, "jobs.keep_builds", "");
}

#[test]
fn ci_cost_is_off_unless_the_admin_turns_it_on() {
    assert!(!Config::default().jobs.ci_cost);
    let (_dir, _path, r) = load("[jobs]\nci_cost = true\n");
    assert!(r.unwrap().jobs.ci_cost);
    let env = vec![("FRUGAL_JOBS_CI_COST".to_string(), "true".to_string())];
    assert!(Config::from_env(env).unwrap().jobs.ci_cost);
    assert_names("[jobs]\nci_cost = \"yes\"\n", 2, "jobs.ci_cost", "");
}

#[test]
fn git_hosts_are_none_unless_the_admin_names_them() {
    assert!(Config::default().jobs.git_hosts.is_empty());
    let (_dir, _path, r) = load("[jobs]\ngit_hosts = [\"GitHub.com\", \"10.0.0.5\", \"[::1]\"]\n");
    assert_eq!(r.unwrap().jobs.git_hosts, ["github.com", "10.0.0.5", "::1"]);
    let env = vec![(
        "FRUGAL_JOBS_GIT_HOSTS".to_string(),
        "github.com, gitlab.com".to_string(),
    )];
    let c = Config::from_env(env).unwrap();
    assert_eq!(c.jobs.git_hosts, ["github.com", "gitlab.com"]);
    // A wildcard would open every host, internal ones included; a URL is not a host.
    assert_names("[jobs]\ngit_hosts = [\"*\"]\n", 2, "jobs.git_hosts", "`*`");
    assert_names(
        "[jobs]\n\ngit_hosts = [\"https://github.com\"]\n",
        3,
        "jobs.git_hosts",
        "not a host name",
    );
}
