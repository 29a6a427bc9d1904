//! `frugal repo add|list|show|remove`: the repositories frugald watches.

use std::path::PathBuf;

use anyhow::Context;
use frugal_api::v1;

use super::{cost_text, hooks::install_hooks, print_json};
use crate::client::{Conn, TIMEOUT};

#[derive(Debug, clap::Subcommand)]
pub enum RepoCmd {
    /// Register a repository with frugald and install its git hooks.
    Add(RepoAdd),
    /// List the registered repositories.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Show a repository: crates, best suites, active jobs.
    Show {
        /// Id or path (default: the repository of the current directory).
        repo: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Unregister a repository (its suites stay in the history).
    Remove {
        /// Id or path.
        repo: String,
    },
}

#[derive(Debug, clap::Args)]
pub struct RepoAdd {
    /// Path of the repository (work tree or bare), or its URL (`https://`, `ssh://`, or
    /// `file://` under the daemon's `jobs.repo_roots`): each frugald node then keeps a mirror
    /// of its own, and triggers come through the API (no hooks are installed).
    pub path: PathBuf,
    /// A crate to generate suites for: `name` (at the root) or `name=dir`; repeatable.
    /// Default: every library crate of the workspace.
    #[arg(long = "crate", value_name = "NAME[=DIR]")]
    pub crates: Vec<String>,
    /// Cron schedule regenerating even without new commits (e.g. "0 3 * * *"), or "off" for
    /// none at all (without it the repository follows `scheduler.default_schedule`).
    #[arg(long)]
    pub schedule: Option<String>,
    /// Do not install git hooks (rely on polling and schedules).
    #[arg(long)]
    pub no_hooks: bool,
}

fn parse_crate(s: &str) -> v1::CrateSpec {
    match s.split_once('=') {
        Some((n, d)) => v1::CrateSpec {
            name: n.trim().to_string(),
            dir: d.trim().to_string(),
        },
        None => v1::CrateSpec {
            name: s.trim().to_string(),
            dir: String::new(),
        },
    }
}

pub fn run(conn: &Conn, cmd: RepoCmd) -> anyhow::Result<()> {
    let client = conn.client(TIMEOUT)?;
    match cmd {
        RepoCmd::Add(a) => {
            let given = a.path.to_string_lossy().into_owned();
            let is_url = ["https://", "ssh://", "file://"]
                .iter()
                .any(|s| given.starts_with(s));
            let (path, hooks) = if is_url {
                (given, false)
            } else {
                let path = a
                    .path
                    .canonicalize()
                    .with_context(|| format!("find the repository {}", a.path.display()))?;
                if !a.no_hooks {
                    install_hooks(conn, &path)?;
                }
                (path.to_string_lossy().into_owned(), !a.no_hooks)
            };
            let req = v1::AddRepo {
                path,
                crates: a.crates.iter().map(|c| parse_crate(c)).collect(),
                schedule: a.schedule,
                hooks_installed: hooks,
            };
            let r: v1::Repo = client.post("/v1/repos", &req)?;
            let names: Vec<&str> = r.crates.iter().map(|c| c.name.as_str()).collect();
            println!(
                "registered repository {} ({}) with crates: {}",
                r.id,
                r.path,
                names.join(", ")
            );
        }
        RepoCmd::List { json } => {
            let repos = client.repos()?;
            if json {
                return print_json(&repos);
            }
            for r in repos {
                let names: Vec<&str> = r.crates.iter().map(|c| c.name.as_str()).collect();
                println!("{:>4}  {}  [{}]", r.id, r.path, names.join(", "));
            }
        }
        RepoCmd::Show { repo, json } => {
            let r = client.resolve_repo(repo.as_deref())?;
            let d: v1::RepoDetail = client.get(&format!("/v1/repos/{}", r.id))?;
            if json {
                return print_json(&d);
            }
            println!("repository {}: {}", d.repo.id, d.repo.path);
            println!("  hooks installed: {}", d.repo.hooks_installed);
            println!(
                "  last commit seen: {}",
                d.repo.last_seen_commit.as_deref().unwrap_or("-")
            );
            for b in &d.best {
                match &b.suite {
                    Some(s) => println!(
                        "  {}: best suite {} ({} tests, {}/{} goals{})",
                        b.krate,
                        s.id,
                        s.test_count,
                        s.goals_covered,
                        s.goals_total,
                        cost_text(s)
                    ),
                    None => println!("  {}: no suite yet", b.krate),
                }
            }
            for j in &d.jobs {
                println!("  job {} {} ({}, {})", j.id, j.state, j.krate, j.reason);
            }
        }
        RepoCmd::Remove { repo } => {
            let r = client.resolve_repo(Some(&repo))?;
            client.delete(&format!("/v1/repos/{}", r.id))?;
            println!("removed repository {} ({})", r.id, r.path);
        }
    }
    Ok(())
}
