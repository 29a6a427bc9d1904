//! `frugal hooks install`: the git hooks that tell frugald about new commits (the files
//! themselves are written by [`crate::hooks`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::client::Conn;
use crate::hooks::{self, HookSpec};

#[derive(Debug, clap::Subcommand)]
pub enum HooksCmd {
    /// Write post-commit, post-merge and post-receive hooks that call `frugal trigger`.
    Install {
        /// Path of the repository.
        repo: PathBuf,
    },
}

fn hook_spec(conn: &Conn, repo: &Path) -> anyhow::Result<HookSpec> {
    let frugal = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .context("find the path of this frugal binary for the hooks")?;
    let config = match &conn.config {
        Some(c) => Some(
            c.canonicalize()
                .with_context(|| format!("find {}", c.display()))?,
        ),
        None => std::env::var_os("FRUGAL_CONFIG").map(PathBuf::from),
    };
    Ok(HookSpec {
        frugal,
        repo: repo.to_path_buf(),
        config,
        url: conn.url.clone(),
    })
}

pub(crate) fn install_hooks(conn: &Conn, repo: &Path) -> anyhow::Result<()> {
    let written = hooks::install(&hook_spec(conn, repo)?)?;
    for p in written {
        println!("installed {}", p.display());
    }
    Ok(())
}

pub fn run(conn: &Conn, cmd: HooksCmd) -> anyhow::Result<()> {
    match cmd {
        HooksCmd::Install { repo } => {
            let path = repo
                .canonicalize()
                .with_context(|| format!("find the repository {}", repo.display()))?;
            if !path.is_dir() {
                bail!("{} is not a directory", path.display());
            }
            install_hooks(conn, &path)
        }
    }
}
