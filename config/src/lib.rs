//! frugal-config: the configuration of `frugald` and `frugal`.
//!
//! Owns the TOML model, its defaults, `FRUGAL_*` environment overrides and validation whose errors
//! name the file, line and key (`/etc/frugal/frugal.toml:7:10: key `daemon.listen`: ...`) or the
//! environment variable. Knows nothing else of frugal: no storage, no scheduler, no search types
//! (budgets and algorithm names are checked here by their documented syntax and the daemon maps
//! them); `config/frugal.example.toml` documents every key.
//!
//! Modules: `raw` (what the user typed), `values` (the parsers of each kind of value),
//! `settings` (the resolved [`Config`]), `defaults` (every built-in default), `resolve` (file and
//! environment to settings), `error` ([`ConfigError`], [`Origin`]).
//!
//! Decision: two layers, as ripgrep's lowargs/hiargs. `raw` deserializes what the user typed with
//! `toml::Spanned` values and `deny_unknown_fields`, touching nothing; [`Config`] is the resolved
//! form (environment applied, defaults filled, paths made absolute against the file's directory,
//! `0` workers turned into the core count). Every value is validated once, at the boundary, so the
//! daemon never sees a string it must parse again.

mod cron_expr;
mod defaults;
mod error;
mod raw;
mod resolve;
mod settings;
mod values;

pub use cron_expr::CronExpr;
pub use error::{ConfigError, Origin};
pub use resolve::{KEYS, SYSTEM_CONFIG, env_var};
pub use settings::{
    Config, CrateConfig, DaemonConfig, ExecutorConfig, HttpConfig, JobsConfig, LogFormat,
    MutationConfig, RegressionPolicy, RegressionsConfig, RepoConfig, RepoSchedule, RetentionConfig,
    SandboxConfig, SchedulerConfig, SearchConfig, StoreBackend, StoreConfig,
};
pub use values::{
    ALGORITHMS, Budget, MAX_BUDGET_EXECUTIONS, MAX_BUDGET_TIME, parse_duration, parse_size,
};
