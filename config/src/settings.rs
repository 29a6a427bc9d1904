//! The resolved settings: what the daemon and the CLI read, one struct per section, every
//! value already parsed, defaulted and made absolute.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::{Budget, CronExpr, Origin};

/// Output format of the daemon's logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines (`text`, the default).
    Text,
    /// One JSON object per line, for log collectors (`json`).
    Json,
}

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
    /// How the daemon writes its log (`daemon.log_format`).
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
    /// One of [`ALGORITHMS`](crate::ALGORITHMS).
    pub algorithm: String,
    /// Seed of the search's random generator, as `frugal run --seed`.
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
    /// Jobs running at once, over all repositories; at least 1.
    pub max_concurrent_jobs: usize,
    /// Queued jobs one token may have at once.
    pub max_queued_per_token: usize,
    /// How often repositories are polled for new commits; `None` when polling is off.
    pub poll_interval: Option<Duration>,
    /// Schedule for repositories without their own.
    pub default_schedule: Option<CronExpr>,
    /// How long a running job's lease lasts without a heartbeat renewing it; once it ends, any
    /// node may claim the job again.
    pub lease: Duration,
}

/// Where the store and the queue live (`store.backend`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreBackend {
    /// sled in the state directory: one frugald.
    Sled,
    /// PostgreSQL at `store.url`: any number of frugald nodes.
    Postgres,
}

/// `[store]`
#[derive(Clone, Debug, PartialEq)]
pub struct StoreConfig {
    /// sled (the default) or PostgreSQL.
    pub backend: StoreBackend,
    /// PostgreSQL's URL or key=value connection string (required by the PostgreSQL backend,
    /// unused by sled).
    pub url: Option<String>,
    /// Connections to PostgreSQL kept at most.
    pub pool_size: u32,
    /// This node's id in the fleet; `None`: the host name and a hash of the state directory.
    pub node_id: Option<String>,
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
    /// The name it is configured by (`record`, `hold`).
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
    /// What a job does when that check finds behaviour changes.
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
    /// Whether each job also measures what CI pays for the stored suite and, beside it, for
    /// the crate's own tests: `cargo test --no-run` from an empty target dir and after a
    /// one-line change, wall and CPU time under `cargo test` and `cargo nextest run`. The
    /// figures go into the run's summary (`ci_cost`) and the suite's page.
    pub ci_cost: bool,
    /// The uids (first and last, inclusive) jobs and replacement computations run as where no
    /// job cgroup can be had, one of its own each, so none can signal frugald or another; its gid is the same
    /// number. Used only where frugald may set uids (root) and has no cgroup for its jobs.
    /// `None`: jobs run as frugald's uid.
    pub uid_range: Option<(u32, u32)>,
    /// The hosts a committed git dependency may name (lower case, no port), compared exactly
    /// with the host of its URL. frugald's `cargo fetch` runs confined but with the network,
    /// so a dependency's URL decides which host the daemon's machine contacts: an internal one
    /// (`http://10.0.0.5/x`, `http://localhost:8080/x`) as well as any other. Empty (the
    /// default): every git dependency is refused, and confined code cannot read
    /// `$CARGO_HOME/git` (the checkouts of whatever other crates were fetched).
    pub git_hosts: Vec<String>,
    /// Directories `file://` repository URLs may point into (absolute, made so against the
    /// config file's directory); empty: `file://` registrations are refused.
    pub repo_roots: Vec<PathBuf>,
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
    /// The package name, as in its `Cargo.toml`; never empty.
    pub name: String,
    /// Directory relative to the repository root; `None`: the daemon finds it with cargo.
    pub dir: Option<String>,
}

/// A repository's own `schedule`.
#[derive(Clone, Debug, PartialEq)]
pub enum RepoSchedule {
    /// Regenerate on this cron schedule (boxed: an expression is large, `Off` is nothing).
    Cron(Box<CronExpr>),
    /// `off` (or `none`): no scheduled regeneration, whatever `scheduler.default_schedule` says.
    Off,
}

impl RepoSchedule {
    /// The word a repository record and the API use for [`RepoSchedule::Off`].
    pub const OFF: &'static str = "off";

    /// How the repository record stores it: the cron expression as written, or `off`.
    pub fn source(&self) -> &str {
        match self {
            RepoSchedule::Cron(c) => c.source(),
            RepoSchedule::Off => RepoSchedule::OFF,
        }
    }
}

/// `[[repo]]`
#[derive(Clone, Debug, PartialEq)]
pub struct RepoConfig {
    /// The repository's directory, made absolute against the config file's directory; no
    /// two repos share one.
    pub path: PathBuf,
    /// Empty: every library crate of the workspace.
    pub crates: Vec<CrateConfig>,
    /// When the repository's suites are regenerated; `None` (unset): it follows
    /// `scheduler.default_schedule`.
    pub schedule: Option<RepoSchedule>,
    /// Budget of this repository's jobs in place of `search.budget`; `None`: that one.
    pub budget: Option<Budget>,
}

/// The resolved configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The file it was read from, if any.
    pub file: Option<PathBuf>,
    /// `[daemon]`: where the API listens, the state dir, logging.
    pub daemon: DaemonConfig,
    /// `[search]`: budget, algorithm and parameters of test generation.
    pub search: SearchConfig,
    /// `[executor]`: how candidate tests are run.
    pub executor: ExecutorConfig,
    /// `[scheduler]`: job concurrency, queue limits, polling and schedules.
    pub scheduler: SchedulerConfig,
    /// `[sandbox]`: whether jobs need filesystem confinement.
    pub sandbox: SandboxConfig,
    /// `[regressions]`: the check against the previous suite.
    pub regressions: RegressionsConfig,
    /// `[mutation]`: cargo-mutants survivors as targets.
    pub mutation: MutationConfig,
    /// `[http]`: timeouts and connection limits of the API.
    pub http: HttpConfig,
    /// `[jobs]`: each job's time, memory, process and disk limits.
    pub jobs: JobsConfig,
    /// `[retention]`: what garbage collection keeps.
    pub retention: RetentionConfig,
    /// `[store]`: sled or a PostgreSQL shared by a fleet of nodes.
    pub store: StoreConfig,
    /// `[[repo]]`: repositories the daemon serves from the start, in file order.
    pub repos: Vec<RepoConfig>,
    /// Where each scalar setting came from, by dotted key.
    pub origins: BTreeMap<String, Origin>,
}

impl Default for Config {
    fn default() -> Self {
        Config::from_toml("", None, std::iter::empty::<(String, String)>())
            .expect("the defaults are valid")
    }
}
