//! `frugal store migrate`: moves frugald's store between sled and PostgreSQL. The CLI links no
//! store, so this runs `frugald store-migrate` (the `frugald` beside this executable, else the
//! one on PATH) with the same arguments.

use std::path::PathBuf;
use std::process::Command;

use anyhow::Context;
use clap::Subcommand;

/// `frugal store ...`
#[derive(Debug, Subcommand)]
pub enum StoreCmd {
    /// Copy frugald's whole store into another backend (`--from sled:/var/lib/frugal --to
    /// postgres:postgres://frugal@db/frugal`), then compare every tree's count and checksum.
    /// Stop frugald first.
    Migrate {
        /// The source: `sled:<state_dir>` or `postgres:<url>`.
        #[arg(long)]
        from: String,
        /// The target, in the same forms.
        #[arg(long)]
        to: String,
        /// Write into a target that already holds records.
        #[arg(long)]
        force: bool,
        /// Print the comparison as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `frugald` beside the running executable, else the name for PATH to find.
fn frugald() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|d| d.join("frugald")))
        .filter(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("frugald"))
}

pub fn run(cmd: StoreCmd) -> anyhow::Result<i32> {
    let StoreCmd::Migrate {
        from,
        to,
        force,
        json,
    } = cmd;
    let bin = frugald();
    let mut c = Command::new(&bin);
    c.args(["store-migrate", "--from", &from, "--to", &to]);
    if force {
        c.arg("--force");
    }
    if json {
        c.arg("--json");
    }
    let status = c
        .status()
        .with_context(|| format!("run {} (install frugald beside frugal)", bin.display()))?;
    Ok(status.code().unwrap_or(frugal_api::exit::ERROR))
}
