//! frugal-config: the configuration of `frugald` and `frugal`.
//!
//! Owns the TOML model, its defaults, `FRUGAL_*` environment overrides and validation whose errors
//! name the file, line and key (`/etc/frugal/frugal.toml:7:10: key `daemon.listen`: ...`) or the
//! environment variable. Knows nothing else of frugal: no storage, no scheduler, no search types
//! (budgets and algorithm names are checked here by their documented syntax and the daemon maps
//! them); `config/frugal.example.toml` documents every key.
//!
//! Decision: two layers, as ripgrep's lowargs/hiargs. `raw` deserializes what the user typed with
//! `toml::Spanned` values and `deny_unknown_fields`, touching nothing; [`Config`] is the resolved
//! form (environment applied, defaults filled, paths made absolute against the file's directory,
//! `0` workers turned into the core count). Every value is validated once, at the boundary, so the
//! daemon never sees a string it must parse again.

mod cron_expr;
mod raw;

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use cron_expr::CronExpr;
use raw::{
    RawConfig, RawCrate, RawDaemon, RawExecutor, RawHttp, RawJobs, RawMutation, RawRegressions,
    RawRepo, RawRetention, RawSandbox, RawScheduler, RawSearch, StrOrInt, key_at, line_col,
};
use toml::Spanned;

/// Where a setting came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Built-in default.
    Default,
    /// A config file; line and column are 1-based.
    File {
        path: PathBuf,
        line: usize,
        column: usize,
    },
    /// An environment variable.
    Env { var: String },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Default => write!(f, "built-in default"),
            Origin::File { path, line, column } => {
                write!(f, "{}:{line}:{column}", path.display())
            }
            Origin::Env { var } => write!(f, "environment variable {var}"),
        }
    }
}

/// A configuration error. Messages fit after "failed to load the configuration: ".
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{origin}: {}{message}", key.as_ref().map(|k| format!("key `{k}`: ")).unwrap_or_default())]
    Invalid {
        origin: Origin,
        /// Dotted key (`daemon.listen`, `repo[1].schedule`), when known.
        key: Option<String>,
        message: String,
    },
}

impl ConfigError {
    /// The line in the config file, if the error is in one.
    pub fn line(&self) -> Option<usize> {
        match self {
            ConfigError::Invalid {
                origin: Origin::File { line, .. },
                ..
            } => Some(*line),
            _ => None,
        }
    }

    /// The dotted key, if known.
    pub fn key(&self) -> Option<&str> {
        match self {
            ConfigError::Invalid { key, .. } => key.as_deref(),
            ConfigError::Read { .. } => None,
        }
    }
}

/// Output format of the daemon's logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

/// A search budget: wall time or executions (the syntax of `frugal run --budget`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    Time(Duration),
    Executions(u64),
}

/// Longest time budget (the search's `MAX_TIME`; this crate knows no engine crate).
pub const MAX_BUDGET_TIME: Duration = Duration::from_secs(24 * 3600);
/// Largest execution budget (the search's `MAX_EXECUTIONS`).
pub const MAX_BUDGET_EXECUTIONS: u64 = 1_000_000_000_000;

impl Budget {
    /// `30s`, `5m`, `1h`, `250ms`, or a plain number of executions; at most
    /// [`MAX_BUDGET_TIME`] or [`MAX_BUDGET_EXECUTIONS`].
    pub fn parse(s: &str) -> Result<Budget, String> {
        let s = s.trim();
        let (n, unit) = number_and_unit(s);
        let n: u64 =
            n.map_err(|_| format!("`{s}` must start with a number, e.g. 30s, 5m or 20000"))?;
        if n == 0 {
            return Err(format!("`{s}` is zero"));
        }
        let too_long = || format!("`{s}` is too long: a budget is at most 24 h (86400s)");
        match unit.trim() {
            "" if n > MAX_BUDGET_EXECUTIONS => Err(format!(
                "`{s}` is too large: a budget is at most {MAX_BUDGET_EXECUTIONS} executions"
            )),
            "" => Ok(Budget::Executions(n)),
            other => match duration_of(n, other) {
                None => Err(format!(
                    "unknown unit `{other}` in `{s}`: use ms, s, m, h or none"
                )),
                Some(Some(d)) if d <= MAX_BUDGET_TIME => Ok(Budget::Time(d)),
                Some(_) => Err(too_long()),
            },
        }
    }

    /// The form [`Budget::parse`] reads (what the search's and CLI's budget parsers read too).
    pub fn to_arg(&self) -> String {
        match self {
            Budget::Time(d) if d.subsec_millis() != 0 => format!("{}ms", d.as_millis()),
            Budget::Time(d) => format!("{}s", d.as_secs()),
            Budget::Executions(n) => n.to_string(),
        }
    }
}

/// `s` split into its leading whole number (parsed) and the rest: `5m` -> (5, "m").
fn number_and_unit(s: &str) -> (Result<u64, std::num::ParseIntError>, &str) {
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(digits);
    (num.parse(), unit)
}

/// `n` of `unit`: `None` for an unknown unit, `Some(None)` when it overflows.
fn duration_of(n: u64, unit: &str) -> Option<Option<Duration>> {
    let ms_per_unit: u64 = match unit {
        "ms" => 1,
        "s" => 1000,
        "m" | "min" => 60_000,
        "h" => 3_600_000,
        _ => return None,
    };
    Some(n.checked_mul(ms_per_unit).map(Duration::from_millis))
}

/// `90s`, `5m`, `1h`, `500ms`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (n, unit) = number_and_unit(s);
    let n: u64 = n.map_err(|_| format!("`{s}` is not a duration such as 30s, 5m or 1h"))?;
    match duration_of(n, unit.trim()) {
        None => Err(format!("`{s}` needs a unit: ms, s, m or h (e.g. 60s)")),
        Some(None) => Err(format!("`{s}` is too long")),
        Some(Some(d)) => Ok(d),
    }
}

/// Algorithms the configuration accepts, one name per search algorithm of the design (the
/// README's `--algorithm` lists them); the daemon rejects those its search does not implement
/// yet.
pub const ALGORITHMS: &[&str] = &[
    "random",
    "wholesuite",
    "memetic",
    "mosa",
    "dynamosa",
    "adynamosa",
    "mio",
];

/// `[daemon]`
#[derive(Clone, Debug, PartialEq)]
pub struct DaemonConfig {
    /// TCP address of the HTTP API; loopback by default.
    pub listen: SocketAddr,
    /// Also serve the API on this unix socket.
    pub unix_socket: Option<PathBuf>,
    /// Where the sled store and job logs live.
    pub state_dir: PathBuf,
    /// File holding the bearer token for state-changing requests.
    pub token_file: PathBuf,
    /// Threads serving the HTTP API.
    pub workers: usize,
    pub log_format: LogFormat,
    /// Whether reads (every GET but `/healthz`) need a token too (any scope).
    pub auth_reads: bool,
    /// Host names (or addresses) requests may name in their `Host` header besides loopback
    /// names and the listen address, which are always allowed; `*` turns the check off.
    pub allowed_hosts: Vec<String>,
    /// Replacement computations (`POST /v1/repos/{id}/replacement`) running at once.
    pub max_replacements: usize,
}

/// `[http]`: how long and how many connections the API serves.
#[derive(Clone, Debug, PartialEq)]
pub struct HttpConfig {
    /// A request's headers must arrive within this, counted from the moment the connection is
    /// ready for one (so a keep-alive connection idle that long is closed too).
    pub header_timeout: Duration,
    /// A connection with a read or write stalled this long is closed.
    pub idle_timeout: Duration,
    /// A request (body included) must be answered within this, else 503.
    pub request_timeout: Duration,
    /// Connections served at once; more wait in the listen backlog.
    pub max_connections: usize,
    /// Connections one client (IP address, or the unix socket) may have open at once; more
    /// are answered 503 and closed.
    pub max_connections_per_client: usize,
}

/// `[search]`
#[derive(Clone, Debug, PartialEq)]
pub struct SearchConfig {
    /// Budget of one job for one crate, before change-aware scaling.
    pub budget: Budget,
    /// One of [`ALGORITHMS`].
    pub algorithm: String,
    pub seed: u64,
    /// Individuals per generation of the genetic algorithms (\[evosuite\]: 50).
    pub population: usize,
    /// Tournament size of parent selection (EvoSuite: 10).
    pub tournament_size: usize,
    /// `all`, or `smart` for smart goal selection (\[smart-goals\]).
    pub goal_selection: String,
    /// frugal's own mutants as goals: `off`, `weak` (covered when infected) or `strong`
    /// (covered when a test kills them; the stored suite then carries its mutation score, and
    /// a suite that kills fewer never replaces the best at equal coverage).
    pub mutants: String,
    /// A search seeded from the previous suite's tests stops after this many generations in a
    /// row without a newly covered goal; `None` (configured as 0): only the budget stops it.
    pub stall_generations: Option<u32>,
    /// Testability transformations (\[testability\]): std's flag calls (`starts_with`,
    /// `parse`, `contains_key`, ...) report distances and get goals of their own.
    pub testability: bool,
}

/// `[executor]`
#[derive(Clone, Debug, PartialEq)]
pub struct ExecutorConfig {
    /// Wall-clock limit of one test execution.
    pub timeout: Duration,
    /// Harness processes per job (the configured 0 resolves to the core count).
    pub workers: usize,
}

/// `[scheduler]`
#[derive(Clone, Debug, PartialEq)]
pub struct SchedulerConfig {
    pub max_concurrent_jobs: usize,
    /// Queued jobs one token may have at once.
    pub max_queued_per_token: usize,
    /// How often repositories are polled for new commits; `None` when polling is off.
    pub poll_interval: Option<Duration>,
    /// Schedule for repositories without their own.
    pub default_schedule: Option<CronExpr>,
}

/// `[sandbox]`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandboxConfig {
    /// Refuse to run jobs when the host cannot confine the filesystem (no working Landlock).
    pub require: bool,
}

/// What a job does when the previous suite reports behaviour changes (`regressions.policy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegressionPolicy {
    /// The new suite records the new behaviour (and may become the best suite); the report stays
    /// attached to the commit.
    Record,
    /// The previous best suite stays the best one until `frugal accept <commit>`.
    Hold,
}

impl RegressionPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            RegressionPolicy::Record => "record",
            RegressionPolicy::Hold => "hold",
        }
    }
}

/// `[regressions]`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegressionsConfig {
    /// Run the previous suite against each new commit before generating (the regression check).
    pub check: bool,
    pub policy: RegressionPolicy,
}

/// `[mutation]`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MutationConfig {
    /// Before each job, run cargo-mutants on the crate's own suite (confined, like every run
    /// of the crate's code) and make the mutants it misses the search's targets, as
    /// `frugal run --kill-survivors` does; strong-mutation goals are switched on.
    pub survivors: bool,
    /// The longest that cargo-mutants run may take; the job then goes on without survivors.
    pub survivors_max_seconds: u64,
}

/// `[jobs]`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobsConfig {
    /// Wall-clock cap of one job, from its claim; `None` (configured as 0): no cap.
    pub max_time: Option<Duration>,
    /// Memory of all of a job's processes together, bytes (its cgroup's `memory.max`);
    /// `None` (0): unbounded.
    pub max_memory: Option<u64>,
    /// Processes and threads of a job together (its cgroup's `pids.max`); `None` (0): unbounded.
    pub max_processes: Option<u64>,
    /// Bytes on disk under a job's dirs (its crate's work dir, kept builds included, and its
    /// run's output dir); `None` (0): unbounded.
    pub max_disk: Option<u64>,
    /// Files and directories under a job's dirs; `None` (0): unbounded.
    pub max_files: Option<u64>,
    /// Whether a crate's build dirs are kept from one job to the next (faster: its
    /// dependencies are not compiled again). Off by default: the crate's code of one job can
    /// write there (artifacts, fingerprints), and the next job of another commit would build
    /// and test with what it planted.
    pub keep_builds: bool,
    /// The uids (first and last, inclusive) jobs run as where no job cgroup can be had, one of
    /// its own each, so a job cannot signal frugald or another job; its gid is the same
    /// number. Used only where frugald may set uids (root) and has no cgroup for its jobs.
    /// `None`: jobs run as frugald's uid.
    pub uid_range: Option<(u32, u32)>,
}

/// `[retention]`: what the daemon's garbage collection keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetentionConfig {
    /// Suites kept per repository and crate, newest first; the best suite and suites a
    /// regression report names are kept beyond it.
    pub suites_per_crate: usize,
    /// Regression reports kept, newest first (a held suite's report awaiting `frugal accept`
    /// stays beyond it).
    pub reports: usize,
    /// Finished runs kept (with their output dirs), newest first.
    pub runs: usize,
    /// Finished jobs kept, newest first.
    pub jobs: usize,
    /// Bytes the work dirs (snapshots, build and target dirs, one per crate) may take; the
    /// least recently used go first. `None` (configured as 0): no budget.
    pub disk_budget: Option<u64>,
    /// How often the collection runs; `None` when only `frugal gc` runs it.
    pub gc_interval: Option<Duration>,
}

/// One crate of a `[[repo]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrateConfig {
    pub name: String,
    /// Directory relative to the repository root; `None`: the daemon finds it with cargo.
    pub dir: Option<String>,
}

/// `[[repo]]`
#[derive(Clone, Debug, PartialEq)]
pub struct RepoConfig {
    pub path: PathBuf,
    /// Empty: every library crate of the workspace.
    pub crates: Vec<CrateConfig>,
    pub schedule: Option<CronExpr>,
    pub budget: Option<Budget>,
}

/// The resolved configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The file it was read from, if any.
    pub file: Option<PathBuf>,
    pub daemon: DaemonConfig,
    pub search: SearchConfig,
    pub executor: ExecutorConfig,
    pub scheduler: SchedulerConfig,
    pub sandbox: SandboxConfig,
    pub regressions: RegressionsConfig,
    pub mutation: MutationConfig,
    pub http: HttpConfig,
    pub jobs: JobsConfig,
    pub retention: RetentionConfig,
    pub repos: Vec<RepoConfig>,
    /// Where each scalar setting came from, by dotted key.
    pub origins: BTreeMap<String, Origin>,
}

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
    "jobs.uid_range",
    "retention.suites_per_crate",
    "retention.reports",
    "retention.runs",
    "retention.jobs",
    "retention.disk_budget",
    "retention.gc_interval",
];

/// The environment variable overriding a key.
pub fn env_var(key: &str) -> String {
    format!("FRUGAL_{}", key.replace('.', "_").to_uppercase())
}

const ENV_SECTIONS: &[&str] = &[
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
];

impl Default for Config {
    fn default() -> Self {
        Config::from_toml("", None, std::iter::empty::<(String, String)>())
            .expect("the defaults are valid")
    }
}

/// A value with where it came from.
struct Setting {
    text: String,
    origin: Origin,
}

struct Resolver<'a> {
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

fn cron(s: &str) -> Result<Option<CronExpr>, String> {
    match s.trim() {
        "" | "off" | "none" => Ok(None),
        s => CronExpr::parse(s).map(Some),
    }
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Every key's built-in default, by section: the one place they live. `frugal.example.toml`
/// shows the same values (a test loads it and compares), so change both together.
mod defaults {
    pub mod daemon {
        use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};

        use crate::LogFormat;

        /// Loopback: exposing the API is a deliberate act.
        pub const LISTEN: SocketAddr =
            SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::new(127, 0, 0, 1), 7878));
        /// systemd's `StateDirectory=frugal`.
        pub const STATE_DIR: &str = "/var/lib/frugal";
        /// `token_file` defaults to this name inside `state_dir`, wherever that is.
        pub const TOKEN_FILE_NAME: &str = "token";
        pub const WORKERS: usize = 2;
        pub const LOG_FORMAT: LogFormat = LogFormat::Text;
        /// Reads stay open on loopback, as before tokens had scopes.
        pub const AUTH_READS: bool = false;
        /// One replacement at a time: each builds the crate twice and runs every test.
        pub const MAX_REPLACEMENTS: usize = 1;
        // `unix_socket`: no socket unless asked for. `allowed_hosts`: none beyond loopback
        // names and the listen address.
    }

    pub mod http {
        use std::time::Duration;

        /// A client has 10 s to send a request's headers (slowloris gets nothing more).
        pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
        pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
        /// Registration runs `git` and `cargo metadata`; everything else is far quicker.
        pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
        pub const MAX_CONNECTIONS: usize = 256;
        /// A quarter of the whole: one client cannot hold every slot.
        pub const MAX_CONNECTIONS_PER_CLIENT: usize = 64;
    }

    pub mod search {
        use std::time::Duration;

        use crate::Budget;

        pub const BUDGET: Budget = Budget::Time(Duration::from_secs(300));
        pub const ALGORITHM: &str = "adynamosa";
        pub const SEED: u64 = 1;
        /// EvoSuite's defaults.
        pub const POPULATION: usize = 50;
        pub const TOURNAMENT_SIZE: usize = 10;
        pub const GOAL_SELECTION: &str = "all";
        /// Off: strong-mutation goals cost a share of the executions (README).
        pub const MUTANTS: &str = "off";
        /// Generations without a new goal before a seeded search stops (0 would be never). On
        /// humantime after an API change, 20 stopped 0.7 points of goals short of a from-scratch
        /// run; 50 matched it in under a second of search.
        pub const STALL_GENERATIONS: u32 = 50;
        pub const TESTABILITY: bool = true;
    }

    pub mod executor {
        use std::time::Duration;

        pub const TIMEOUT: Duration = Duration::from_millis(1000);
        /// 0 means one harness process per core, resolved when the config is loaded.
        pub const WORKERS: u64 = 0;
    }

    pub mod scheduler {
        use std::time::Duration;

        pub const MAX_CONCURRENT_JOBS: usize = 1;
        /// One token's share of the queue: a monorepo's crates, not the whole host's.
        pub const MAX_QUEUED_PER_TOKEN: usize = 16;
        pub const POLL_INTERVAL: Option<Duration> = Some(Duration::from_secs(60));
        // `default_schedule`: no scheduled regeneration unless asked for.
    }

    pub mod sandbox {
        /// A daemon runs untrusted code: without filesystem confinement it refuses jobs.
        pub const REQUIRE: bool = true;
    }

    pub mod regressions {
        use crate::RegressionPolicy;

        /// A regression service checks every commit against the previous suite.
        pub const CHECK: bool = true;
        /// Suites follow the code; the report says what changed.
        pub const POLICY: RegressionPolicy = RegressionPolicy::Record;
    }

    pub mod mutation {
        /// cargo-mutants on the own suite costs a build and a test run per mutant: opt-in.
        pub const SURVIVORS: bool = false;
        /// Half an hour: a crate of a few hundred mutants at a few seconds each.
        pub const SURVIVORS_MAX_SECONDS: u64 = 1800;
    }

    pub mod jobs {
        /// Two hours: a default 5-minute search plus builds, verification and profiling of a
        /// large crate fit many times over; a job still running then is stuck.
        pub const MAX_SECONDS: u64 = 7200;
        /// 8 GiB: cargo building a large crate with two jobs and a test harness fit; a third of
        /// a 24 GiB host, so two jobs at once leave the daemon its share.
        pub const MAX_MEMORY: u64 = 8 << 30;
        /// cargo, rustc's threads, build scripts, the harness's workers and the tests' own
        /// threads, with room; a fork bomb stops here.
        pub const MAX_PROCESSES: u64 = 2048;
        /// 16 GiB: a large crate's kept target dirs (build, instrumented copy, profile) fit.
        pub const MAX_DISK: u64 = 16 << 30;
        /// 500 000: a large crate's kept target dirs hold tens of thousands; millions of files
        /// would make every walk of the state dir slow.
        pub const MAX_FILES: u64 = 500_000;
        /// Each job builds from empty dirs: nothing one commit's code wrote is built or run
        /// by the next.
        pub const KEEP_BUILDS: bool = false;
    }

    pub mod retention {
        use std::time::Duration;

        /// Enough history to compare suites over weeks of commits.
        pub const SUITES_PER_CRATE: u64 = 20;
        pub const REPORTS: u64 = 1000;
        pub const RUNS: u64 = 1000;
        pub const JOBS: u64 = 1000;
        /// 20 GiB: a few dozen crates' target dirs.
        pub const DISK_BUDGET: u64 = 20 << 30;
        pub const GC_INTERVAL: Option<Duration> = Some(Duration::from_secs(3600));
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
fn resolve_daemon(r: &mut Resolver, raw: &RawDaemon) -> Result<DaemonConfig, ConfigError> {
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
fn resolve_http(r: &mut Resolver, raw: &RawHttp) -> Result<HttpConfig, ConfigError> {
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

/// A duration of at least a millisecond.
fn positive_duration(v: &str) -> Result<Duration, String> {
    match parse_duration(v)? {
        Duration::ZERO => Err(format!(
            "`{}` is zero: a timeout must be positive",
            v.trim()
        )),
        d => Ok(d),
    }
}

/// Comma-separated host names (from a TOML array joined, or an environment variable): lower
/// case, without a port; `*` allows any.
fn host_list(v: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for h in v.split(',').map(str::trim).filter(|h| !h.is_empty()) {
        let bare = h.trim_start_matches('[').trim_end_matches(']');
        // A colon is only allowed inside an IPv6 address: anything else carries a port.
        let with_port = bare.contains(':') && bare.parse::<std::net::Ipv6Addr>().is_err();
        if with_port || bare.contains(['/', ' ', '@']) {
            return Err(format!(
                "`{h}` is not a host name: give names or addresses without a scheme or port \
                 (e.g. \"ci.example.com\"), or \"*\" for any"
            ));
        }
        out.push(bare.to_ascii_lowercase());
    }
    Ok(out)
}

/// `[search]`
fn resolve_search(r: &mut Resolver, raw: &RawSearch) -> Result<SearchConfig, ConfigError> {
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
fn resolve_executor(r: &mut Resolver, raw: &RawExecutor) -> Result<ExecutorConfig, ConfigError> {
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
fn resolve_scheduler(r: &mut Resolver, raw: &RawScheduler) -> Result<SchedulerConfig, ConfigError> {
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
    Ok(SchedulerConfig {
        max_concurrent_jobs,
        max_queued_per_token,
        poll_interval,
        default_schedule,
    })
}

/// `[sandbox]`
fn resolve_sandbox(r: &mut Resolver, raw: &RawSandbox) -> Result<SandboxConfig, ConfigError> {
    use defaults::sandbox as d;
    let s = r.pick("sandbox.require", &raw.require, bool::to_string);
    let require = r
        .parsed("sandbox.require", s, boolean)?
        .unwrap_or(d::REQUIRE);
    Ok(SandboxConfig { require })
}

/// `[regressions]`
fn resolve_regressions(
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
fn resolve_mutation(r: &mut Resolver, raw: &RawMutation) -> Result<MutationConfig, ConfigError> {
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
fn resolve_jobs(r: &mut Resolver, raw: &RawJobs) -> Result<JobsConfig, ConfigError> {
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
    let uid_range = r.string_parsed("jobs.uid_range", &raw.uid_range, uid_range)?;
    let positive = |n: u64| (n > 0).then_some(n);
    Ok(JobsConfig {
        max_time: (secs > 0).then(|| Duration::from_secs(secs)),
        max_memory: positive(memory),
        max_processes: positive(processes),
        max_disk: positive(disk),
        max_files: positive(files),
        keep_builds,
        uid_range,
    })
}

/// `[retention]`
fn resolve_retention(r: &mut Resolver, raw: &RawRetention) -> Result<RetentionConfig, ConfigError> {
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

/// A size in bytes: a number with an optional `K`, `M`, `G` or `T` suffix (powers of 1024,
/// an optional `iB`/`B` after it), e.g. `500M`, `20G`, `1048576`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (n, unit) = number_and_unit(t);
    let n: u64 = n.map_err(|_| format!("`{t}` is not a size such as 500M, 20G or 1048576"))?;
    let unit = unit.trim();
    let unit = unit
        .strip_suffix("iB")
        .or_else(|| unit.strip_suffix('B'))
        .unwrap_or(unit);
    let shift = match unit {
        "" => 0,
        "K" | "k" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        other => {
            return Err(format!(
                "unknown unit `{other}` in `{t}`: use K, M, G, T or none"
            ));
        }
    };
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("`{t}` is too large"))
}

/// `"FIRST-LAST"`: uids above 0 (root is never a job's), first at most last, last below the
/// kernel's `(uid_t) -1`.
fn uid_range(s: &str) -> Result<(u32, u32), String> {
    let form = || format!("`{s}` is not a uid range: use \"FIRST-LAST\", as \"200000-200999\"");
    let (first, last) = s.trim().split_once('-').ok_or_else(form)?;
    let (first, last) = match (first.trim().parse::<u32>(), last.trim().parse::<u32>()) {
        (Ok(f), Ok(l)) => (f, l),
        _ => return Err(form()),
    };
    if first == 0 || first > last || last == u32::MAX {
        return Err(format!(
            "`{s}`: the uids must lie between 1 and {}, the first not above the last",
            u32::MAX - 1
        ));
    }
    Ok((first, last))
}

fn regression_policy(s: &str) -> Result<RegressionPolicy, String> {
    match s.trim() {
        "record" => Ok(RegressionPolicy::Record),
        "hold" => Ok(RegressionPolicy::Hold),
        other => Err(format!(
            "`{other}` is not a policy: use \"record\" or \"hold\""
        )),
    }
}

fn boolean(s: &str) -> Result<bool, String> {
    match s.trim() {
        "true" => Ok(true),
        "false" => Ok(false),
        other => Err(format!("`{other}` is neither true nor false")),
    }
}

/// `[[repo]]`: no defaults and no environment overrides, only validation.
fn resolve_repos(r: &Resolver, raw: &[RawRepo]) -> Result<Vec<RepoConfig>, ConfigError> {
    let mut repos: Vec<RepoConfig> = Vec::new();
    for (i, rr) in raw.iter().enumerate() {
        let repo = resolve_repo(r, i, rr, &repos)?;
        repos.push(repo);
    }
    Ok(repos)
}

/// `repo[i]`; `earlier` are the repos before it, for the duplicate check.
fn resolve_repo(
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
    let schedule = match &rr.schedule {
        None => None,
        Some(s) => cron(s.get_ref())
            .map_err(|m| Resolver::error(r.origin(s.span()), &key("schedule"), m))?,
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
fn resolve_crate(
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

fn socket_addr(v: &str) -> Result<SocketAddr, String> {
    v.trim().parse::<SocketAddr>().map_err(|e| {
        format!("`{v}` is not a socket address ({e}); use host:port such as 127.0.0.1:7878")
    })
}

fn non_empty(v: &str) -> Result<String, String> {
    if v.trim().is_empty() {
        Err("must not be empty".to_string())
    } else {
        Ok(v.trim().to_string())
    }
}

fn log_format(v: &str) -> Result<LogFormat, String> {
    match v.trim() {
        "text" => Ok(LogFormat::Text),
        "json" => Ok(LogFormat::Json),
        other => Err(format!("`{other}` is not a log format: use text or json")),
    }
}

fn algorithm(v: &str) -> Result<String, String> {
    let v = v.trim();
    if ALGORITHMS.contains(&v) {
        Ok(v.to_string())
    } else {
        Err(format!(
            "`{v}` is not an algorithm: use one of {}",
            ALGORITHMS.join(", ")
        ))
    }
}

fn mutants_mode(v: &str) -> Result<String, String> {
    match v.trim() {
        v @ ("off" | "weak" | "strong") => Ok(v.to_string()),
        v => Err(format!(
            "`{v}` is not a mutants mode: use off, weak or strong"
        )),
    }
}

fn goal_selection(v: &str) -> Result<String, String> {
    match v.trim() {
        v @ ("all" | "smart") => Ok(v.to_string()),
        v => Err(format!("`{v}` is not a goal selection: use all or smart")),
    }
}

/// `off` (or `0`) turns polling (or a periodic task) off; otherwise a duration of at least a
/// second.
fn poll_interval(v: &str) -> Result<Option<Duration>, String> {
    match v.trim() {
        "off" | "0" => Ok(None),
        v => parse_duration(v).and_then(|d| {
            if d < Duration::from_secs(1) {
                Err(format!(
                    "`{v}` is below the 1s minimum (use `off` to disable polling)"
                ))
            } else {
                Ok(Some(d))
            }
        }),
    }
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
            repos,
            origins: r.origins,
        })
    }

    /// Where a scalar setting came from (the default when neither file nor environment set it).
    pub fn origin(&self, key: &str) -> Origin {
        self.origins.get(key).cloned().unwrap_or(Origin::Default)
    }
}
