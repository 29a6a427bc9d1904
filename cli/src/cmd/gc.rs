//! `frugal gc`: garbage collection of frugald's state (through `POST /v1/gc`, which applies the
//! daemon's `[retention]` settings) and of this user's cache of `frugal run` work dirs
//! (directly: least recently used first down to `--cache-budget`, and any unused for
//! `--max-age-days`; a dir written in the last 10 minutes is never touched, it may be in use).

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::Duration;

use frugal_api::v1::{FreedDir, GcReport};
use frugal_storage::disk::{dir_use, evict};

use super::print_json;
use crate::client::{Conn, TIMEOUT};

#[derive(Debug, clap::Args)]
pub struct GcArgs {
    /// Say what would be deleted, delete nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Only the daemon's state (not the local cache).
    #[arg(long, conflicts_with = "local")]
    pub daemon: bool,
    /// Only the local cache (no daemon needed).
    #[arg(long)]
    pub local: bool,
    /// The cache of `frugal run` work dirs (default: $XDG_CACHE_HOME/frugal or ~/.cache/frugal).
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    /// Bytes the cache may keep, with K, M, G or T (powers of 1024); 0: no budget.
    #[arg(long, default_value = "10G", value_parser = frugal_config::parse_size)]
    pub cache_budget: u64,
    /// Delete cache dirs unused for this many days; 0: never for age alone.
    #[arg(long, default_value_t = 30)]
    pub max_age_days: u64,
    /// Print the reports as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What `frugal gc` did, per side.
#[derive(serde::Serialize)]
struct Both {
    daemon: Option<GcReport>,
    cache: Option<GcReport>,
}

pub fn run(conn: &Conn, a: GcArgs) -> anyhow::Result<()> {
    let daemon = if a.local {
        None
    } else {
        let client = conn.client(TIMEOUT)?;
        let path = format!("/v1/gc?dry_run={}", a.dry_run);
        Some(client.post::<_, GcReport>(&path, &serde_json::json!({}))?)
    };
    let cache = (!a.daemon).then(|| local(&a));
    if a.json {
        return print_json(&Both { daemon, cache });
    }
    if let Some(r) = &daemon {
        print_report("frugald", r);
    }
    if let Some(r) = &cache {
        print_report("cache", r);
    }
    Ok(())
}

/// The local cache's pass.
fn local(a: &GcArgs) -> GcReport {
    let t = std::time::Instant::now();
    let root = a
        .cache_dir
        .clone()
        .unwrap_or_else(frugal_subject::pipeline::cache_root);
    let dirs = std::fs::read_dir(&root)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| dir_use(&e.path()))
                .collect()
        })
        .unwrap_or_default();
    let budget = (a.cache_budget > 0).then_some(a.cache_budget);
    let max_age = (a.max_age_days > 0).then(|| Duration::from_secs(a.max_age_days * 86_400));
    let (freed, kept) = evict(dirs, budget, max_age, &HashSet::new(), a.dry_run);
    let freed: Vec<FreedDir> = freed
        .into_iter()
        .map(|f| FreedDir {
            path: f.path.display().to_string(),
            bytes: f.bytes,
            reason: f.reason,
        })
        .collect();
    GcReport {
        dry_run: a.dry_run,
        records: Default::default(),
        bytes_freed: freed.iter().map(|d| d.bytes).sum(),
        dirs: freed,
        bytes_kept: kept,
        budget,
        took_ms: t.elapsed().as_millis() as u64,
    }
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
}

fn print_report(side: &str, r: &GcReport) {
    let verb = if r.dry_run { "would free" } else { "freed" };
    let records: Vec<String> = r
        .records
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    println!(
        "{side}: {verb} {} in {} dirs{}; {} kept{}",
        mib(r.bytes_freed),
        r.dirs.len(),
        if records.is_empty() {
            String::new()
        } else {
            format!(" and {} records ({})", r.record_count(), records.join(", "))
        },
        mib(r.bytes_kept),
        r.budget
            .map(|b| format!(" (budget {})", mib(b)))
            .unwrap_or_default()
    );
    for d in &r.dirs {
        println!("  {} {} ({})", mib(d.bytes), d.path, d.reason);
    }
}
