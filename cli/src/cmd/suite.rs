//! `frugal suite best|history`: stored suites from frugald.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use frugal_api::v1;

use super::{cost_text, print_json, short_commit};
use crate::client::{Conn, TIMEOUT};

#[derive(Debug, clap::Subcommand)]
pub enum SuiteCmd {
    /// Download the best suite of a crate.
    Best(SuiteBest),
    /// List the stored suites of a repository, newest first.
    History {
        /// Id or path (default: the repository of the current directory).
        #[arg(long)]
        repo: Option<String>,
        #[arg(long = "crate")]
        krate: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, clap::Args)]
pub struct SuiteBest {
    /// Id or path (default: the repository of the current directory).
    #[arg(long)]
    pub repo: Option<String>,
    /// Crate (needed when the repository has several).
    #[arg(long = "crate")]
    pub krate: Option<String>,
    /// Write the Rust file here (e.g. tests/frugal_generated.rs); default: stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the suite's figures as JSON instead of its source.
    #[arg(long)]
    pub json: bool,
}

fn crate_query(krate: &Option<String>) -> String {
    match krate {
        Some(k) => format!("?crate={k}"),
        None => String::new(),
    }
}

pub fn run(conn: &Conn, cmd: SuiteCmd) -> anyhow::Result<()> {
    let client = conn.client(TIMEOUT)?;
    match cmd {
        SuiteCmd::Best(b) => {
            let r = client.resolve_repo(b.repo.as_deref())?;
            let q = crate_query(&b.krate);
            if b.json {
                let s: v1::Suite = client.get(&format!("/v1/repos/{}/suites/best{q}", r.id))?;
                return print_json(&s);
            }
            let source = client.get_text(&format!("/v1/repos/{}/suites/best/source{q}", r.id))?;
            write_out(b.out.as_deref(), &source)
        }
        SuiteCmd::History { repo, krate, json } => {
            let r = client.resolve_repo(repo.as_deref())?;
            let suites: Vec<v1::Suite> =
                client.get(&format!("/v1/repos/{}/suites{}", r.id, crate_query(&krate)))?;
            if json {
                return print_json(&suites);
            }
            for s in suites {
                println!("{}", history_line(&s));
            }
            Ok(())
        }
    }
}

/// One line of `frugal suite history`.
fn history_line(s: &v1::Suite) -> String {
    format!(
        "{} suite {:>5}  {}  {}  {} tests, {}/{} goals{}",
        if s.is_best { "*" } else { " " },
        s.id,
        s.krate,
        short_commit(s.commit.as_deref()),
        s.test_count,
        s.goals_covered,
        s.goals_total,
        cost_text(s)
    )
}

/// Writes to a file, or to stdout where a closed pipe (`| head`) ends quietly.
fn write_out(out: Option<&Path>, text: &str) -> anyhow::Result<()> {
    match out {
        Some(p) => {
            if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("create {}", dir.display()))?;
            }
            std::fs::write(p, text).with_context(|| format!("write {}", p.display()))?;
            eprintln!("wrote {}", p.display());
            Ok(())
        }
        None => match std::io::stdout().lock().write_all(text.as_bytes()) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            other => other.context("write to stdout"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_line_shortens_any_commit_string_without_panicking() {
        let suite: v1::Suite = serde_json::from_value(serde_json::json!({
            "id": 3, "repo": 1, "crate": "k", "commit": "abcdefghié-and-more", "created_ms": 0,
            "goals_total": 10, "goals_covered": 4, "total_cost": null, "proxy_cost": 1.0,
            "test_count": 2, "run": null, "is_best": true,
        }))
        .unwrap();
        let line = history_line(&suite);
        assert!(
            line.contains("  k  abcdefghié  2 tests, 4/10 goals"),
            "{line}"
        );
    }
}
