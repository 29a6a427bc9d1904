//! The raw layer (ripgrep's lowargs): what the user typed, with spans, checked for shape only
//! (known keys, TOML types). Nothing here touches the system.

use serde::Deserialize;
use toml::Spanned;

/// An integer or a string (budgets: `20000` or `"5m"`).
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum StrOrInt {
    Int(i64),
    Str(String),
}

impl StrOrInt {
    pub(crate) fn text(&self) -> String {
        match self {
            StrOrInt::Int(n) => n.to_string(),
            StrOrInt::Str(s) => s.clone(),
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawConfig {
    #[serde(default)]
    pub daemon: RawDaemon,
    #[serde(default)]
    pub search: RawSearch,
    #[serde(default)]
    pub executor: RawExecutor,
    #[serde(default)]
    pub scheduler: RawScheduler,
    #[serde(default)]
    pub sandbox: RawSandbox,
    #[serde(default)]
    pub regressions: RawRegressions,
    #[serde(default)]
    pub mutation: RawMutation,
    #[serde(default)]
    pub http: RawHttp,
    #[serde(default)]
    pub jobs: RawJobs,
    #[serde(default)]
    pub retention: RawRetention,
    #[serde(default)]
    pub store: RawStore,
    #[serde(default)]
    pub repo: Vec<RawRepo>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawDaemon {
    pub listen: Option<Spanned<String>>,
    pub unix_socket: Option<Spanned<String>>,
    pub state_dir: Option<Spanned<String>>,
    pub token_file: Option<Spanned<String>>,
    pub workers: Option<Spanned<i64>>,
    pub log_format: Option<Spanned<String>>,
    pub auth_reads: Option<Spanned<bool>>,
    pub allowed_hosts: Option<Spanned<Vec<String>>>,
    pub max_replacements: Option<Spanned<i64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawHttp {
    pub header_timeout: Option<Spanned<String>>,
    pub idle_timeout: Option<Spanned<String>>,
    pub request_timeout: Option<Spanned<String>>,
    pub max_connections: Option<Spanned<i64>>,
    pub max_connections_per_client: Option<Spanned<i64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSearch {
    pub budget: Option<Spanned<StrOrInt>>,
    pub algorithm: Option<Spanned<String>>,
    pub seed: Option<Spanned<i64>>,
    pub population: Option<Spanned<i64>>,
    pub tournament_size: Option<Spanned<i64>>,
    pub goal_selection: Option<Spanned<String>>,
    pub mutants: Option<Spanned<String>>,
    pub stall_generations: Option<Spanned<i64>>,
    pub testability: Option<Spanned<bool>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawExecutor {
    pub timeout_ms: Option<Spanned<i64>>,
    pub workers: Option<Spanned<i64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawScheduler {
    pub max_concurrent_jobs: Option<Spanned<i64>>,
    pub max_queued_per_token: Option<Spanned<i64>>,
    pub poll_interval: Option<Spanned<String>>,
    pub default_schedule: Option<Spanned<String>>,
    pub lease: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawStore {
    pub backend: Option<Spanned<String>>,
    pub url: Option<Spanned<String>>,
    pub pool_size: Option<Spanned<i64>>,
    pub node_id: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSandbox {
    pub require: Option<Spanned<bool>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawMutation {
    pub survivors: Option<Spanned<bool>>,
    pub survivors_max_seconds: Option<Spanned<i64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRegressions {
    pub check: Option<Spanned<bool>>,
    pub policy: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawJobs {
    pub max_seconds: Option<Spanned<i64>>,
    pub max_memory: Option<Spanned<StrOrInt>>,
    pub max_processes: Option<Spanned<i64>>,
    pub max_disk: Option<Spanned<StrOrInt>>,
    pub max_files: Option<Spanned<i64>>,
    pub keep_builds: Option<Spanned<bool>>,
    pub ci_cost: Option<Spanned<bool>>,
    pub uid_range: Option<Spanned<String>>,
    pub git_hosts: Option<Spanned<Vec<String>>>,
    pub repo_roots: Option<Spanned<Vec<String>>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRetention {
    pub suites_per_crate: Option<Spanned<i64>>,
    pub reports: Option<Spanned<i64>>,
    pub runs: Option<Spanned<i64>>,
    pub jobs: Option<Spanned<i64>>,
    pub disk_budget: Option<Spanned<StrOrInt>>,
    pub gc_interval: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRepo {
    pub path: Spanned<String>,
    #[serde(default)]
    pub crates: Vec<Spanned<RawCrate>>,
    pub schedule: Option<Spanned<String>>,
    pub budget: Option<Spanned<StrOrInt>>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum RawCrate {
    Name(String),
    Table(RawCrateTable),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawCrateTable {
    pub name: String,
    pub dir: Option<String>,
}

/// 1-based line and column of a byte offset.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(offset, |nl| offset - nl - 1) + 1;
    (line, col)
}

/// The dotted key at a byte offset, from the text: the nearest table header above (counting
/// `[[repo]]` occurrences for the index) plus the key the line assigns. Good for configs written
/// one key per line, which is what the error needs to point at.
pub(crate) fn key_at(text: &str, offset: usize) -> Option<String> {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = &text[line_start..line_end];
    let mut header: Option<String> = None;
    let mut counts: std::collections::HashMap<String, usize> = Default::default();
    for l in text[..line_start].lines() {
        let t = l.trim();
        if let Some(name) = t.strip_prefix("[[").and_then(|r| r.split_once("]]")) {
            let name = name.0.trim().to_string();
            let n = counts.entry(name.clone()).or_insert(0);
            header = Some(format!("{name}[{n}]"));
            *n += 1;
        } else if let Some(name) = t.strip_prefix('[').and_then(|r| r.split_once(']')) {
            header = Some(name.0.trim().to_string());
        }
    }
    let t = line.trim();
    if let Some(name) = t.strip_prefix("[[").and_then(|r| r.split_once("]]")) {
        return Some(name.0.trim().to_string());
    }
    if let Some(name) = t.strip_prefix('[').and_then(|r| r.split_once(']')) {
        return Some(name.0.trim().to_string());
    }
    let key = t
        .split_once('=')
        .map(|(k, _)| k.trim().trim_matches('"').to_string())
        .filter(|k| !k.is_empty());
    match (header, key) {
        (Some(h), Some(k)) => Some(format!("{h}.{k}")),
        (None, Some(k)) => Some(k),
        (Some(h), None) => Some(h),
        (None, None) => None,
    }
}
