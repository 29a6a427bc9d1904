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
use raw::{RawConfig, RawCrate, StrOrInt, key_at, line_col};
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

impl Budget {
    /// `30s`, `5m`, `1h`, `250ms`, or a plain number of executions.
    pub fn parse(s: &str) -> Result<Budget, String> {
        let s = s.trim();
        let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let (num, unit) = s.split_at(digits);
        let n: u64 = num
            .parse()
            .map_err(|_| format!("`{s}` must start with a number, e.g. 30s, 5m or 20000"))?;
        if n == 0 {
            return Err(format!("`{s}` is zero"));
        }
        match unit.trim() {
            "" => Ok(Budget::Executions(n)),
            other => parse_duration_unit(n, other)
                .map(Budget::Time)
                .ok_or_else(|| format!("unknown unit `{other}` in `{s}`: use ms, s, m, h or none")),
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

fn parse_duration_unit(n: u64, unit: &str) -> Option<Duration> {
    match unit {
        "ms" => Some(Duration::from_millis(n)),
        "s" => Some(Duration::from_secs(n)),
        "m" | "min" => Some(Duration::from_secs(n * 60)),
        "h" => Some(Duration::from_secs(n * 3600)),
        _ => None,
    }
}

/// `90s`, `5m`, `1h`, `500ms`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(digits);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a duration such as 30s, 5m or 1h"))?;
    parse_duration_unit(n, unit.trim())
        .ok_or_else(|| format!("`{s}` needs a unit: ms, s, m or h (e.g. 60s)"))
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
    /// How often repositories are polled for new commits; `None` when polling is off.
    pub poll_interval: Option<Duration>,
    /// Schedule for repositories without their own.
    pub default_schedule: Option<CronExpr>,
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
    "search.budget",
    "search.algorithm",
    "search.seed",
    "search.population",
    "search.tournament_size",
    "search.goal_selection",
    "executor.timeout_ms",
    "executor.workers",
    "scheduler.max_concurrent_jobs",
    "scheduler.poll_interval",
    "scheduler.default_schedule",
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

impl Config {
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
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            ConfigError::Invalid {
                origin: r.origin(span.clone()),
                key: key_at(text, span.start),
                message: e.message().trim().to_string(),
            }
        })?;
        if let Some(var) = r
            .env
            .keys()
            .find(|v| !KEYS.iter().any(|k| env_var(k) == **v))
        {
            return Err(ConfigError::Invalid {
                origin: Origin::Env { var: var.clone() },
                key: None,
                message: format!(
                    "no such setting; the overridable ones are {}",
                    KEYS.iter()
                        .map(|k| env_var(k))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }

        // [daemon]
        let s = r.string("daemon.listen", &raw.daemon.listen);
        let listen = r
            .parsed("daemon.listen", s, |v| {
                v.trim().parse::<SocketAddr>().map_err(|e| {
                    format!(
                        "`{v}` is not a socket address ({e}); use host:port such as 127.0.0.1:7878"
                    )
                })
            })?
            .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 7878)));
        let s = r.string("daemon.unix_socket", &raw.daemon.unix_socket);
        let unix_socket = r
            .parsed("daemon.unix_socket", s, |v| Ok(v.trim().to_string()))?
            .filter(|v| !v.is_empty())
            .map(|v| r.path(&v));
        let s = r.string("daemon.state_dir", &raw.daemon.state_dir);
        let state_dir = r
            .parsed("daemon.state_dir", s, |v| {
                if v.trim().is_empty() {
                    Err("must not be empty".to_string())
                } else {
                    Ok(v.trim().to_string())
                }
            })?
            .map(|v| r.path(&v))
            .unwrap_or_else(|| PathBuf::from("/var/lib/frugal"));
        let s = r.string("daemon.token_file", &raw.daemon.token_file);
        let token_file = r
            .parsed("daemon.token_file", s, |v| Ok(v.trim().to_string()))?
            .filter(|v| !v.is_empty())
            .map(|v| r.path(&v))
            .unwrap_or_else(|| state_dir.join("token"));
        let workers = r
            .int("daemon.workers", &raw.daemon.workers, 1)?
            .map_or(2, |(n, _)| n as usize);
        let s = r.string("daemon.log_format", &raw.daemon.log_format);
        let log_format = r
            .parsed("daemon.log_format", s, |v| match v.trim() {
                "text" => Ok(LogFormat::Text),
                "json" => Ok(LogFormat::Json),
                other => Err(format!("`{other}` is not a log format: use text or json")),
            })?
            .unwrap_or(LogFormat::Text);

        // [search]
        let s = r.pick("search.budget", &raw.search.budget, StrOrInt::text);
        let budget = r
            .parsed("search.budget", s, Budget::parse)?
            .unwrap_or(Budget::Time(Duration::from_secs(300)));
        let s = r.string("search.algorithm", &raw.search.algorithm);
        let algorithm = r
            .parsed("search.algorithm", s, |v| {
                let v = v.trim();
                if ALGORITHMS.contains(&v) {
                    Ok(v.to_string())
                } else {
                    Err(format!(
                        "`{v}` is not an algorithm: use one of {}",
                        ALGORITHMS.join(", ")
                    ))
                }
            })?
            .unwrap_or_else(|| "adynamosa".to_string());
        let seed = r
            .int("search.seed", &raw.search.seed, 0)?
            .map_or(1, |(n, _)| n);
        let population = r
            .int("search.population", &raw.search.population, 2)?
            .map_or(50, |(n, _)| n as usize);
        let tournament_size = r
            .int("search.tournament_size", &raw.search.tournament_size, 1)?
            .map_or(10, |(n, _)| n as usize);
        let s = r.string("search.goal_selection", &raw.search.goal_selection);
        let goal_selection = r
            .parsed("search.goal_selection", s, |v| match v.trim() {
                v @ ("all" | "smart") => Ok(v.to_string()),
                v => Err(format!("`{v}` is not a goal selection: use all or smart")),
            })?
            .unwrap_or_else(|| "all".to_string());

        // [executor]
        let timeout = r
            .int("executor.timeout_ms", &raw.executor.timeout_ms, 1)?
            .map_or(Duration::from_millis(1000), |(n, _)| {
                Duration::from_millis(n)
            });
        let exec_workers = match r.int("executor.workers", &raw.executor.workers, 0)? {
            None | Some((0, _)) => cores(),
            Some((n, _)) => n as usize,
        };

        // [scheduler]
        let max_concurrent_jobs = r
            .int(
                "scheduler.max_concurrent_jobs",
                &raw.scheduler.max_concurrent_jobs,
                1,
            )?
            .map_or(1, |(n, _)| n as usize);
        let s = r.string("scheduler.poll_interval", &raw.scheduler.poll_interval);
        let poll_interval = match r.parsed("scheduler.poll_interval", s, |v| match v.trim() {
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
        })? {
            Some(p) => p,
            None => Some(Duration::from_secs(60)),
        };
        let s = r.string(
            "scheduler.default_schedule",
            &raw.scheduler.default_schedule,
        );
        let default_schedule = r.parsed("scheduler.default_schedule", s, cron)?.flatten();

        // [[repo]]
        let mut repos: Vec<RepoConfig> = Vec::new();
        for (i, rr) in raw.repo.iter().enumerate() {
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
            if let Some(j) = repos.iter().position(|o| o.path == path) {
                return Err(Resolver::error(
                    r.origin(rr.path.span()),
                    &key("path"),
                    format!("`{p}` is already configured as repo[{j}]"),
                ));
            }
            let mut crates = Vec::new();
            for c in &rr.crates {
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
                        &key("crates"),
                        "a crate name must not be empty",
                    ));
                }
                crates.push(cc);
            }
            let schedule = match &rr.schedule {
                None => None,
                Some(s) => cron(s.get_ref())
                    .map_err(|m| Resolver::error(r.origin(s.span()), &key("schedule"), m))?,
            };
            let budget = match &rr.budget {
                None => None,
                Some(b) => Some(
                    Budget::parse(&b.get_ref().text())
                        .map_err(|m| Resolver::error(r.origin(b.span()), &key("budget"), m))?,
                ),
            };
            repos.push(RepoConfig {
                path,
                crates,
                schedule,
                budget,
            });
        }

        Ok(Config {
            file: file.map(Path::to_path_buf),
            daemon: DaemonConfig {
                listen,
                unix_socket,
                state_dir,
                token_file,
                workers,
                log_format,
            },
            search: SearchConfig {
                budget,
                algorithm,
                seed,
                population,
                tournament_size,
                goal_selection,
            },
            executor: ExecutorConfig {
                timeout,
                workers: exec_workers,
            },
            scheduler: SchedulerConfig {
                max_concurrent_jobs,
                poll_interval,
                default_schedule,
            },
            repos,
            origins: r.origins,
        })
    }

    /// Where a scalar setting came from (the default when neither file nor environment set it).
    pub fn origin(&self, key: &str) -> Origin {
        self.origins.get(key).cloned().unwrap_or(Origin::Default)
    }
}
