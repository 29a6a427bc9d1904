//! `frugald store-migrate` (and `frugal store migrate`, which runs it): moving an installation
//! between backends. Opens both stores, copies every record (`Store::copy_into`), prints each
//! tree's counts and checksums on both sides, and fails when any differ.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use frugal_storage::{PgOptions, Store};

/// Where the records come from and go to.
#[derive(Debug, clap::Args)]
pub struct MigrateArgs {
    /// The source: `sled:<state_dir>` (or the sled directory itself) or `postgres:<url>`.
    #[arg(long)]
    pub from: String,
    /// The target, in the same forms; created where it does not exist.
    #[arg(long)]
    pub to: String,
    /// Write into a target that already holds records (same keys are replaced).
    #[arg(long)]
    pub force: bool,
    /// Print the per-tree comparison as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The sled directory of `dir`: itself when it holds a sled database, else its `store/`.
fn sled_dir(dir: &Path) -> PathBuf {
    if dir.join("db").exists() || dir.join("conf").exists() {
        dir.to_path_buf()
    } else {
        crate::layout::store_dir(dir)
    }
}

/// Opens `sled:<dir>` or `postgres:<url>`.
fn open(spec: &str, what: &str) -> anyhow::Result<Store> {
    if let Some(dir) = spec.strip_prefix("sled:") {
        let dir = sled_dir(Path::new(dir));
        if what == "source" && !dir.exists() {
            bail!("the {what} {} does not exist", dir.display());
        }
        return Store::open(&dir)
            .with_context(|| format!("open the {what} sled store {}", dir.display()));
    }
    if let Some(url) = spec
        .strip_prefix("postgres:")
        .or_else(|| spec.strip_prefix("postgresql:"))
    {
        // `postgres:postgres://...` and `postgres:host=... dbname=...` both work.
        return Store::open_postgres(&PgOptions::new(url, 4))
            .with_context(|| format!("open the {what} PostgreSQL store"));
    }
    bail!("`{spec}` names no store: use sled:<state_dir> or postgres:<url>")
}

/// Runs the copy and prints the comparison; an error when any tree differs.
pub fn run(a: &MigrateArgs) -> anyhow::Result<()> {
    let source = open(&a.from, "source")?;
    let target = open(&a.to, "target")?;
    eprintln!(
        "copying {} into {}",
        source.path().display(),
        target.path().display()
    );
    let report = source.copy_into(&target, a.force)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "{:<16} {:>9} {:>9}  {:<16} {:<16}",
            "tree", "source", "target", "source sum", "target sum"
        );
        for t in &report {
            println!(
                "{:<16} {:>9} {:>9}  {:<16} {:<16}{}",
                t.name,
                t.source_count,
                t.target_count,
                t.source_checksum,
                t.target_checksum,
                if t.matches() { "" } else { "  DIFFERS" }
            );
        }
    }
    let bad: Vec<&str> = report
        .iter()
        .filter(|t| !t.matches())
        .map(|t| t.name)
        .collect();
    if !bad.is_empty() {
        bail!("the target differs from the source in: {}", bad.join(", "));
    }
    let records: usize = report.iter().map(|t| t.source_count).sum();
    eprintln!("copied {records} records; every count and checksum is equal");
    Ok(())
}
