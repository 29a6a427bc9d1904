//! Resolution: the raw TOML (`raw`) and the `FRUGAL_*` environment turned into [`Config`],
//! one resolver per section, each value parsed by `values` and defaulted from `defaults`, each
//! error placed at its file, line and key ([`ConfigError`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::Spanned;

use crate::defaults::{self, cores};
use crate::raw::{
    RawConfig, RawCrate, RawDaemon, RawExecutor, RawHttp, RawJobs, RawMutation, RawRegressions,
    RawRepo, RawRetention, RawSandbox, RawScheduler, RawSearch, RawStore, StrOrInt, key_at,
    line_col,
};
use crate::values::{
    Budget, algorithm, boolean, cron, git_host_list, goal_selection, host_list, log_format,
    mutants_mode, non_empty, parse_duration, parse_size, poll_interval, positive_duration,
    regression_policy, socket_addr, uid_range,
};
use crate::{
    Config, ConfigError, CrateConfig, DaemonConfig, ExecutorConfig, HttpConfig, JobsConfig,
    MutationConfig, Origin, RegressionsConfig, RepoConfig, RepoSchedule, RetentionConfig,
    SandboxConfig, SchedulerConfig, SearchConfig, StoreBackend, StoreConfig,
};

/// Every scalar key, in file order; `FRUGAL_<KEY with . as _, upper case>` overrides it.
pub const KEYS: &[&str] = &[
    "daemon.listen",
    "daemon.unix_socket",
    "daemon.state_dir",
    "daemon.token_file",
    "daemon.workers",
    "daemon.log_format",
    "daemon.auth_reads",
    "daemon.allowed_hosts",
    "daemon.max_replacements",
    "search.budget",
    "search.algorithm",
    "search.seed",
    "search.population",
    "search.tournament_size",
    "search.goal_selection",
    "search.mutants",
    "search.stall_generations",
    "search.testability",
    "executor.timeout_ms",
    "executor.workers",
    "scheduler.max_concurrent_jobs",
    "scheduler.max_queued_per_token",
    "scheduler.poll_interval",
    "scheduler.default_schedule",
    "sandbox.require",
    "regressions.check",
    "regressions.policy",
    "mutation.survivors",
    "mutation.survivors_max_seconds",
    "http.header_timeout",
    "http.idle_timeout",
    "http.request_timeout",
    "http.max_connections",
    "http.max_connections_per_client",
    "jobs.max_seconds",
    "jobs.max_memory",
    "jobs.max_processes",
    "jobs.max_disk",
    "jobs.max_files",
    "jobs.keep_builds",
    "jobs.ci_cost",
    "jobs.uid_range",
    "jobs.git_hosts",
    "jobs.repo_roots",
    "retention.suites_per_crate",
    "retention.reports",
    "retention.runs",
    "retention.jobs",
    "retention.disk_budget",
    "retention.gc_interval",
    "scheduler.lease",
    "store.backend",
    "store.url",
    "store.pool_size",
    "store.node_id",
];

/// The environment variable overriding a key.
pub fn env_var(key: &str) -> String {
    format!("FRUGAL_{}", key.replace('.', "_").to_uppercase())
}

pub(crate) const ENV_SECTIONS: &[&str] = &[
    "FRUGAL_DAEMON_",
    "FRUGAL_SEARCH_",
    "FRUGAL_EXECUTOR_",
    "FRUGAL_SCHEDULER_",
    "FRUGAL_SANDBOX_",
    "FRUGAL_REGRESSIONS_",
    "FRUGAL_MUTATION_",
    "FRUGAL_HTTP_",
    "FRUGAL_JOBS_",
    "FRUGAL_RETENTION_",
    "FRUGAL_STORE_",
];

/// A value with where it came from.
pub(crate) struct Setting {
    text: String,
    origin: Origin,
}

pub(crate) struct Resolver<'a> {
    file: Option<&'a Path>,
    text: &'a str,
    env: BTreeMap<String, String>,
    origins: BTreeMap<String, Origin>,
}

impl Resolver<'_> {
    fn origin(&self, span: std::ops::Range<usize>) -> Origin {
        match self.file {
            Some(path) => {
                let (line, column) = line_col(self.text, span.start);
                Origin::File {
                    path: path.to_path_buf(),
                    line,
                    column,
                }
            }
            None => {
                let (line, column) = line_col(self.text, span.start);
                Origin::File {
                    path: PathBuf::from("<config>"),
                    line,
                    column,
                }
            }
        }
    }

    fn error(origin: Origin, key: &str, message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            origin,
            key: Some(key.to_string()),
            message: message.into(),
        }
    }

    /// The environment's value, else the file's, else none; records the origin.
    fn pick<T>(
        &mut self,
        key: &str,
        file: &Option<Spanned<T>>,
        text: impl Fn(&T) -> String,
    ) -> Option<Setting> {
        let var = env_var(key);
        let s = if let Some(v) = self.env.remove(&var) {
            Setting {
                text: v,
                origin: Origin::Env { var },
            }
        } else {
            let v = file.as_ref()?;
            Setting {
                text: text(v.get_ref()),
                origin: self.origin(v.span()),
            }
        };
        self.origins.insert(key.to_string(), s.origin.clone());
        Some(s)
    }

    fn string(&mut self, key: &str, file: &Option<Spanned<String>>) -> Option<Setting> {
        self.pick(key, file, Clone::clone)
    }

    fn int(
        &mut self,
        key: &str,
        file: &Option<Spanned<i64>>,
        min: i64,
    ) -> Result<Option<(u64, Origin)>, ConfigError> {
        let Some(s) = self.pick(key, file, i64::to_string) else {
            return Ok(None);
        };
        match s.text.trim().parse::<i64>() {
            Ok(n) if n >= min => Ok(Some((n as u64, s.origin))),
            Ok(n) => Err(Self::error(
                s.origin,
                key,
                format!("{n} is too small: the least allowed is {min}"),
            )),
            Err(_) => Err(Self::error(
                s.origin,
                key,
                format!("`{}` is not a whole number", s.text),
            )),
        }
    }

    fn parsed<T>(
        &mut self,
        key: &str,
        setting: Option<Setting>,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, ConfigError> {
        match setting {
            None => Ok(None),
            Some(s) => parse(&s.text)
                .map(Some)
                .map_err(|m| Self::error(s.origin, key, m)),
        }
    }

    fn path(&self, p: &str) -> PathBuf {
        let p = PathBuf::from(p);
        match self.file.and_then(Path::parent) {
            Some(dir) if p.is_relative() => dir.join(p),
            _ => p,
        }
    }
}

impl Resolver<'_> {
    /// The file's TOML as typed, with a syntax or type error placed at its line and key.
    fn parse_raw(&self) -> Result<RawConfig, ConfigError> {
        toml::from_str(self.text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            ConfigError::Invalid {
                origin: self.origin(span.clone()),
                key: key_at(self.text, span.start),
                message: e.message().trim().to_string(),
            }
        })
    }

    /// A `FRUGAL_<SECTION>_*` variable naming no key is a typo the user wants to hear about.
    fn reject_unknown_env(&self) -> Result<(), ConfigError> {
        let Some(var) = self
            .env
            .keys()
            .find(|v| !KEYS.iter().any(|k| env_var(k) == **v))
        else {
            return Ok(());
        };
        Err(ConfigError::Invalid {
            origin: Origin::Env { var: var.clone() },
            key: None,
            message: format!(
                "no such setting; the overridable ones are {}",
                KEYS.iter()
                    .map(|k| env_var(k))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
    }

    /// A string setting run through `parse`, `None` when neither environment nor file sets it.
    fn string_parsed<T>(
        &mut self,
        key: &str,
        file: &Option<Spanned<String>>,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, ConfigError> {
        let s = self.string(key, file);
        self.parsed(key, s, parse)
    }

    /// A whole number of at least `min`, or `default`.
    fn count(
        &mut self,
        key: &str,
        file: &Option<Spanned<i64>>,
        min: i64,
        default: u64,
    ) -> Result<u64, ConfigError> {
        Ok(self.int(key, file, min)?.map_or(default, |(n, _)| n))
    }

    /// A path setting made absolute against the file's directory; empty means unset.
    fn optional_path(
        &mut self,
        key: &str,
        file: &Option<Spanned<String>>,
    ) -> Result<Option<PathBuf>, ConfigError> {
        Ok(self
            .string_parsed(key, file, |v| Ok(v.trim().to_string()))?
            .filter(|v| !v.is_empty())
            .map(|v| self.path(&v)))
    }
}

/// `[daemon]`
pub(crate) fn resolve_daemon(
    r: &mut Resolver,
    raw: &RawDaemon,
) -> Result<DaemonConfig, ConfigError> {
    use defaults::daemon as d;
    let listen = r
        .string_parsed("daemon.listen", &raw.listen, socket_addr)?
        .unwrap_or(d::LISTEN);
    let unix_socket = r.optional_path("daemon.unix_socket", &raw.unix_socket)?;
    let state_dir = r
        .string_parsed("daemon.state_dir", &raw.state_dir, non_empty)?
        .map(|v| r.path(&v))
        .unwrap_or_else(|| PathBuf::from(d::STATE_DIR));
    let token_file = r
        .optional_path("daemon.token_file", &raw.token_file)?
        .unwrap_or_else(|| state_dir.join(d::TOKEN_FILE_NAME));
    let workers = r.count("daemon.workers", &raw.workers, 1, d::WORKERS as u64)? as usize;
    let log_format = r
        .string_parsed("daemon.log_format", &raw.log_format, log_format)?
        .unwrap_or(d::LOG_FORMAT);
    let s = r.pick("daemon.auth_reads", &raw.auth_reads, bool::to_string);
    let auth_reads = r
        .parsed("daemon.auth_reads", s, boolean)?
        .unwrap_or(d::AUTH_READS);
    let s = r.pick("daemon.allowed_hosts", &raw.allowed_hosts, |v| v.join(","));
    let allowed_hosts = r
        .parsed("daemon.allowed_hosts", s, host_list)?
        .unwrap_or_default();
    let max_replacements = r.count(
        "daemon.max_replacements",
        &raw.max_replacements,
        1,
        d::MAX_REPLACEMENTS as u64,
    )? as usize;
    Ok(DaemonConfig {
        listen,
        unix_socket,
        state_dir,
        token_file,
        workers,
        log_format,
        auth_reads,
        allowed_hosts,
        max_replacements,
    })
}

/// `[http]`
pub(crate) fn resolve_http(r: &mut Resolver, raw: &RawHttp) -> Result<HttpConfig, ConfigError> {
    use defaults::http as d;
    let mut timeout = |key: &str, file: &Option<Spanned<String>>, default: Duration| {
        r.string_parsed(key, file, positive_duration)
            .map(|v| v.unwrap_or(default))
    };
    let header_timeout = timeout(
        "http.header_timeout",
        &raw.header_timeout,
        d::HEADER_TIMEOUT,
    )?;
    let idle_timeout = timeout("http.idle_timeout", &raw.idle_timeout, d::IDLE_TIMEOUT)?;
    let request_timeout = timeout(
        "http.request_timeout",
        &raw.request_timeout,
        d::REQUEST_TIMEOUT,
    )?;
    let max_connections = r.count(
        "http.max_connections",
        &raw.max_connections,
        1,
        d::MAX_CONNECTIONS as u64,
    )? as usize;
    let max_connections_per_client = r.count(
        "http.max_connections_per_client",
        &raw.max_connections_per_client,
        1,
        d::MAX_CONNECTIONS_PER_CLIENT as u64,
    )? as usize;
    Ok(HttpConfig {
        header_timeout,
        idle_timeout,
        request_timeout,
        max_connections,
        max_connections_per_client,
    })
}

/// `[search]`
pub(crate) fn resolve_search(
    r: &mut Resolver,
    raw: &RawSearch,
) -> Result<SearchConfig, ConfigError> {
    use defaults::search as d;
    let s = r.pick("search.budget", &raw.budget, StrOrInt::text);
    let budget = r
        .parsed("search.budget", s, Budget::parse)?
        .unwrap_or(d::BUDGET);
    let algorithm = r
        .string_parsed("search.algorithm", &raw.algorithm, algorithm)?
        .unwrap_or_else(|| d::ALGORITHM.to_string());
    let seed = r.count("search.seed", &raw.seed, 0, d::SEED)?;
    let population = r.count(
        "search.population",
        &raw.population,
        2,
        d::POPULATION as u64,
    )?;
    let tournament_size = r.count(
        "search.tournament_size",
        &raw.tournament_size,
        1,
        d::TOURNAMENT_SIZE as u64,
    )?;
    let goal_selection = r
        .string_parsed("search.goal_selection", &raw.goal_selection, goal_selection)?
        .unwrap_or_else(|| d::GOAL_SELECTION.to_string());
    let mutants = r
        .string_parsed("search.mutants", &raw.mutants, mutants_mode)?
        .unwrap_or_else(|| d::MUTANTS.to_string());
    let stall_key = "search.stall_generations";
    let stall = match r.int(stall_key, &raw.stall_generations, 0)? {
        None => d::STALL_GENERATIONS,
        Some((n, origin)) => u32::try_from(n).map_err(|_| {
            Resolver::error(
                origin,
                stall_key,
                format!("{n} is too large: at most {}", u32::MAX),
            )
        })?,
    };
    let s = r.pick("search.testability", &raw.testability, bool::to_string);
    let testability = r
        .parsed("search.testability", s, boolean)?
        .unwrap_or(d::TESTABILITY);
    Ok(SearchConfig {
        budget,
        algorithm,
        seed,
        population: population as usize,
        tournament_size: tournament_size as usize,
        goal_selection,
        mutants,
        stall_generations: (stall > 0).then_some(stall),
        testability,
    })
}

/// `[executor]`
pub(crate) fn resolve_executor(
    r: &mut Resolver,
    raw: &RawExecutor,
) -> Result<ExecutorConfig, ConfigError> {
    use defaults::executor as d;
    let timeout = r
        .int("executor.timeout_ms", &raw.timeout_ms, 1)?
        .map_or(d::TIMEOUT, |(n, _)| Duration::from_millis(n));
    let workers = match r.count("executor.workers", &raw.workers, 0, d::WORKERS)? {
        0 => cores(),
        n => n as usize,
    };
    Ok(ExecutorConfig { timeout, workers })
}

/// `[scheduler]`
pub(crate) fn resolve_scheduler(
    r: &mut Resolver,
    raw: &RawScheduler,
) -> Result<SchedulerConfig, ConfigError> {
    use defaults::scheduler as d;
    let max_concurrent_jobs = r.count(
        "scheduler.max_concurrent_jobs",
        &raw.max_concurrent_jobs,
        1,
        d::MAX_CONCURRENT_JOBS as u64,
    )? as usize;
    let max_queued_per_token = r.count(
        "scheduler.max_queued_per_token",
        &raw.max_queued_per_token,
        1,
        d::MAX_QUEUED_PER_TOKEN as u64,
    )? as usize;
    let poll_interval = r
        .string_parsed("scheduler.poll_interval", &raw.poll_interval, poll_interval)?
        .unwrap_or(d::POLL_INTERVAL);
    let default_schedule = r
        .string_parsed("scheduler.default_schedule", &raw.default_schedule, cron)?
        .flatten();
    let lease = r
        .string_parsed("scheduler.lease", &raw.lease, lease)?
        .unwrap_or(d::LEASE);
    Ok(SchedulerConfig {
        max_concurrent_jobs,
        max_queued_per_token,
        poll_interval,
        default_schedule,
        lease,
    })
}

/// A lease of at least 5 seconds (nodes renew every 2 s).
fn lease(v: &str) -> Result<Duration, String> {
    let d = parse_duration(v.trim())?;
    if d < Duration::from_secs(5) {
        return Err(format!("`{v}` is below the 5s minimum"));
    }
    Ok(d)
}

/// `[store]`
pub(crate) fn resolve_store(r: &mut Resolver, raw: &RawStore) -> Result<StoreConfig, ConfigError> {
    use defaults::store as d;
    let backend = r
        .string_parsed("store.backend", &raw.backend, |v| match v.trim() {
            "sled" => Ok(StoreBackend::Sled),
            "postgres" | "postgresql" => Ok(StoreBackend::Postgres),
            other => Err(format!(
                "`{other}` is not a backend: use \"sled\" or \"postgres\""
            )),
        })?
        .unwrap_or(StoreBackend::Sled);
    let url = r.string_parsed("store.url", &raw.url, non_empty)?;
    // A URL with the sled backend is kept but unused (frugald says so at start).
    if backend == StoreBackend::Postgres && url.is_none() {
        return Err(Resolver::error(
            r.origins
                .get("store.backend")
                .cloned()
                .unwrap_or(Origin::Default),
            "store.backend",
            "\"postgres\" needs `store.url` (FRUGAL_STORE_URL), such as \
             \"postgres://frugal@db.example/frugal\"",
        ));
    }
    let pool_size = r.count("store.pool_size", &raw.pool_size, 1, d::POOL_SIZE)?;
    let node_id = r.string_parsed("store.node_id", &raw.node_id, node_id)?;
    Ok(StoreConfig {
        backend,
        url,
        pool_size: pool_size.min(u64::from(u32::MAX)) as u32,
        node_id,
    })
}

/// A node id: 1 to 64 letters, digits, `-`, `_`, `.` or `:`.
fn node_id(v: &str) -> Result<String, String> {
    let v = v.trim();
    let ok = !v.is_empty()
        && v.len() <= 64
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'));
    if ok {
        Ok(v.to_string())
    } else {
        Err(format!(
            "`{v}` is not a node id: 1 to 64 letters, digits, `-`, `_`, `.` or `:`"
        ))
    }
}

/// `[sandbox]`
pub(crate) fn resolve_sandbox(
    r: &mut Resolver,
    raw: &RawSandbox,
) -> Result<SandboxConfig, ConfigError> {
    use defaults::sandbox as d;
    let s = r.pick("sandbox.require", &raw.require, bool::to_string);
    let require = r
        .parsed("sandbox.require", s, boolean)?
        .unwrap_or(d::REQUIRE);
    Ok(SandboxConfig { require })
}

/// `[regressions]`
pub(crate) fn resolve_regressions(
    r: &mut Resolver,
    raw: &RawRegressions,
) -> Result<RegressionsConfig, ConfigError> {
    use defaults::regressions as d;
    let s = r.pick("regressions.check", &raw.check, bool::to_string);
    let check = r
        .parsed("regressions.check", s, boolean)?
        .unwrap_or(d::CHECK);
    let policy = r
        .string_parsed("regressions.policy", &raw.policy, regression_policy)?
        .unwrap_or(d::POLICY);
    Ok(RegressionsConfig { check, policy })
}

/// `[mutation]`
pub(crate) fn resolve_mutation(
    r: &mut Resolver,
    raw: &RawMutation,
) -> Result<MutationConfig, ConfigError> {
    use defaults::mutation as d;
    let s = r.pick("mutation.survivors", &raw.survivors, bool::to_string);
    let survivors = r
        .parsed("mutation.survivors", s, boolean)?
        .unwrap_or(d::SURVIVORS);
    let survivors_max_seconds = r.count(
        "mutation.survivors_max_seconds",
        &raw.survivors_max_seconds,
        1,
        d::SURVIVORS_MAX_SECONDS,
    )?;
    Ok(MutationConfig {
        survivors,
        survivors_max_seconds,
    })
}

/// `[jobs]`
pub(crate) fn resolve_jobs(r: &mut Resolver, raw: &RawJobs) -> Result<JobsConfig, ConfigError> {
    use defaults::jobs as d;
    let secs = r.count("jobs.max_seconds", &raw.max_seconds, 0, d::MAX_SECONDS)?;
    let s = r.pick("jobs.max_memory", &raw.max_memory, StrOrInt::text);
    let memory = r
        .parsed("jobs.max_memory", s, parse_size)?
        .unwrap_or(d::MAX_MEMORY);
    let processes = r.count(
        "jobs.max_processes",
        &raw.max_processes,
        0,
        d::MAX_PROCESSES,
    )?;
    let s = r.pick("jobs.max_disk", &raw.max_disk, StrOrInt::text);
    let disk = r
        .parsed("jobs.max_disk", s, parse_size)?
        .unwrap_or(d::MAX_DISK);
    let files = r.count("jobs.max_files", &raw.max_files, 0, d::MAX_FILES)?;
    let s = r.pick("jobs.keep_builds", &raw.keep_builds, bool::to_string);
    let keep_builds = r
        .parsed("jobs.keep_builds", s, boolean)?
        .unwrap_or(d::KEEP_BUILDS);
    let s = r.pick("jobs.ci_cost", &raw.ci_cost, bool::to_string);
    let ci_cost = r.parsed("jobs.ci_cost", s, boolean)?.unwrap_or(d::CI_COST);
    let uid_range = r.string_parsed("jobs.uid_range", &raw.uid_range, uid_range)?;
    let s = r.pick("jobs.git_hosts", &raw.git_hosts, |v| v.join(","));
    let git_hosts = r
        .parsed("jobs.git_hosts", s, git_host_list)?
        .unwrap_or_default();
    let s = r.pick("jobs.repo_roots", &raw.repo_roots, |v| v.join(","));
    let repo_roots = r
        .parsed("jobs.repo_roots", s, |v| {
            Ok(v.split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(PathBuf::from)
                .collect::<Vec<_>>())
        })?
        .unwrap_or_default()
        .into_iter()
        .map(|p| r.path(&p.to_string_lossy()))
        .collect();
    let positive = |n: u64| (n > 0).then_some(n);
    Ok(JobsConfig {
        max_time: (secs > 0).then(|| Duration::from_secs(secs)),
        max_memory: positive(memory),
        max_processes: positive(processes),
        max_disk: positive(disk),
        max_files: positive(files),
        keep_builds,
        ci_cost,
        uid_range,
        git_hosts,
        repo_roots,
    })
}

/// `[retention]`
pub(crate) fn resolve_retention(
    r: &mut Resolver,
    raw: &RawRetention,
) -> Result<RetentionConfig, ConfigError> {
    use defaults::retention as d;
    let suites_per_crate = r.count(
        "retention.suites_per_crate",
        &raw.suites_per_crate,
        1,
        d::SUITES_PER_CRATE,
    )?;
    let reports = r.count("retention.reports", &raw.reports, 1, d::REPORTS)?;
    let runs = r.count("retention.runs", &raw.runs, 1, d::RUNS)?;
    let jobs = r.count("retention.jobs", &raw.jobs, 1, d::JOBS)?;
    let s = r.pick("retention.disk_budget", &raw.disk_budget, StrOrInt::text);
    let disk_budget = r
        .parsed("retention.disk_budget", s, parse_size)?
        .unwrap_or(d::DISK_BUDGET);
    let gc_interval = r
        .string_parsed("retention.gc_interval", &raw.gc_interval, poll_interval)?
        .unwrap_or(d::GC_INTERVAL);
    Ok(RetentionConfig {
        suites_per_crate: suites_per_crate as usize,
        reports: reports as usize,
        runs: runs as usize,
        jobs: jobs as usize,
        disk_budget: (disk_budget > 0).then_some(disk_budget),
        gc_interval,
    })
}

/// `[[repo]]`: no defaults and no environment overrides, only validation.
pub(crate) fn resolve_repos(r: &Resolver, raw: &[RawRepo]) -> Result<Vec<RepoConfig>, ConfigError> {
    let mut repos: Vec<RepoConfig> = Vec::new();
    for (i, rr) in raw.iter().enumerate() {
        let repo = resolve_repo(r, i, rr, &repos)?;
        repos.push(repo);
    }
    Ok(repos)
}

/// `repo[i]`; `earlier` are the repos before it, for the duplicate check.
pub(crate) fn resolve_repo(
    r: &Resolver,
    i: usize,
    rr: &RawRepo,
    earlier: &[RepoConfig],
) -> Result<RepoConfig, ConfigError> {
    let key = |k: &str| format!("repo[{i}].{k}");
    let p = rr.path.get_ref().trim();
    if p.is_empty() {
        return Err(Resolver::error(
            r.origin(rr.path.span()),
            &key("path"),
            "must not be empty",
        ));
    }
    let path = r.path(p);
    if let Some(j) = earlier.iter().position(|o| o.path == path) {
        return Err(Resolver::error(
            r.origin(rr.path.span()),
            &key("path"),
            format!("`{p}` is already configured as repo[{j}]"),
        ));
    }
    let crates = rr
        .crates
        .iter()
        .map(|c| resolve_crate(r, c, &key("crates")))
        .collect::<Result<Vec<_>, _>>()?;
    // `off` exempts this repository from `scheduler.default_schedule`; an empty value is unset.
    let schedule = match &rr.schedule {
        None => None,
        Some(s) if matches!(s.get_ref().trim(), "off" | "none") => Some(RepoSchedule::Off),
        Some(s) => cron(s.get_ref())
            .map_err(|m| Resolver::error(r.origin(s.span()), &key("schedule"), m))?
            .map(|c| RepoSchedule::Cron(Box::new(c))),
    };
    let budget = rr
        .budget
        .as_ref()
        .map(|b| {
            Budget::parse(&b.get_ref().text())
                .map_err(|m| Resolver::error(r.origin(b.span()), &key("budget"), m))
        })
        .transpose()?;
    Ok(RepoConfig {
        path,
        crates,
        schedule,
        budget,
    })
}

/// One entry of `repo[i].crates`: a name, or a table with the directory too.
pub(crate) fn resolve_crate(
    r: &Resolver,
    c: &Spanned<RawCrate>,
    key: &str,
) -> Result<CrateConfig, ConfigError> {
    let cc = match c.get_ref() {
        RawCrate::Name(n) => CrateConfig {
            name: n.trim().to_string(),
            dir: None,
        },
        RawCrate::Table(t) => CrateConfig {
            name: t.name.trim().to_string(),
            dir: t.dir.as_ref().map(|d| {
                d.trim()
                    .trim_start_matches("./")
                    .trim_end_matches('/')
                    .to_string()
            }),
        },
    };
    if cc.name.is_empty() {
        return Err(Resolver::error(
            r.origin(c.span()),
            key,
            "a crate name must not be empty",
        ));
    }
    Ok(cc)
}

/// Default system-wide configuration file.
pub const SYSTEM_CONFIG: &str = "/etc/frugal/frugal.toml";

impl Config {
    /// Loads the configuration the way both binaries do: `explicit` (`--config`), else
    /// `$FRUGAL_CONFIG`, else [`SYSTEM_CONFIG`] when it exists, else defaults; the process
    /// environment's `FRUGAL_*` overrides apply in every case.
    pub fn discover(explicit: Option<&Path>) -> Result<Config, ConfigError> {
        let path = explicit
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os("FRUGAL_CONFIG").map(PathBuf::from))
            .or_else(|| Some(PathBuf::from(SYSTEM_CONFIG)).filter(|p| p.is_file()));
        match path {
            Some(p) => Config::load(&p),
            None => Config::from_env(std::env::vars()),
        }
    }

    /// Reads `path` and applies the process environment's `FRUGAL_*` overrides.
    pub fn load(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        Self::load_with_env(path, std::env::vars())
    }

    /// Reads `path` with the given environment (for tests and tools).
    pub fn load_with_env(
        path: impl AsRef<Path>,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Config, ConfigError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_toml(&text, Some(path), env)
    }

    /// Defaults plus the given environment, without a file.
    pub fn from_env(
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Config, ConfigError> {
        Self::from_toml("", None, env)
    }

    /// Parses TOML text; `file` names it in errors and anchors relative paths.
    ///
    /// Sections resolve in file order, so the first bad value reported is the first in the file's
    /// layout (daemon, search, executor, scheduler, then each repo).
    pub fn from_toml(
        text: &str,
        file: Option<&Path>,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Config, ConfigError> {
        let mut r = Resolver {
            file,
            text,
            env: env
                .into_iter()
                .filter(|(k, _)| ENV_SECTIONS.iter().any(|p| k.starts_with(p)))
                .collect(),
            origins: BTreeMap::new(),
        };
        let raw = r.parse_raw()?;
        r.reject_unknown_env()?;
        let daemon = resolve_daemon(&mut r, &raw.daemon)?;
        let search = resolve_search(&mut r, &raw.search)?;
        let executor = resolve_executor(&mut r, &raw.executor)?;
        let scheduler = resolve_scheduler(&mut r, &raw.scheduler)?;
        let sandbox = resolve_sandbox(&mut r, &raw.sandbox)?;
        let regressions = resolve_regressions(&mut r, &raw.regressions)?;
        let mutation = resolve_mutation(&mut r, &raw.mutation)?;
        let http = resolve_http(&mut r, &raw.http)?;
        let jobs = resolve_jobs(&mut r, &raw.jobs)?;
        let retention = resolve_retention(&mut r, &raw.retention)?;
        let store = resolve_store(&mut r, &raw.store)?;
        let repos = resolve_repos(&r, &raw.repo)?;
        Ok(Config {
            file: file.map(Path::to_path_buf),
            daemon,
            search,
            executor,
            scheduler,
            sandbox,
            regressions,
            mutation,
            http,
            jobs,
            retention,
            store,
            repos,
            origins: r.origins,
        })
    }

    /// Where a scalar setting came from (the default when neither file nor environment set it).
    pub fn origin(&self, key: &str) -> Origin {
        self.origins.get(key).cloned().unwrap_or(Origin::Default)
    }
}
