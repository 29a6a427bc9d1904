//! `frugal trigger`: ask frugald to regenerate the suites of a repository (also what hooks call).

use std::time::Duration;

use frugal_api::v1;

use super::print_json;
use crate::client::{Conn, TIMEOUT};

#[derive(Debug, clap::Args)]
pub struct TriggerArgs {
    /// Id or path of the repository (default: the repository of the current directory).
    pub repo: Option<String>,
    /// Commit to build (default: HEAD).
    #[arg(long)]
    pub commit: Option<String>,
    /// Called from a git hook: regenerate only what the commit changed, print nothing.
    #[arg(long)]
    pub hook: bool,
    #[arg(long)]
    pub json: bool,
}

pub fn run(conn: &Conn, a: TriggerArgs) -> anyhow::Result<()> {
    // A hook must give up quickly: git already finished, nobody waits for the answer.
    let client = conn.client(if a.hook {
        Duration::from_secs(5)
    } else {
        TIMEOUT
    })?;
    let r = client.resolve_repo(a.repo.as_deref())?;
    let req = v1::Trigger {
        commit: a.commit,
        reason: Some(if a.hook { "hook" } else { "api" }.to_string()),
    };
    let t: v1::Triggered = client.post(&format!("/v1/repos/{}/trigger", r.id), &req)?;
    if a.hook {
        return Ok(());
    }
    if a.json {
        return print_json(&t);
    }
    let commit = t.commit.as_deref().unwrap_or("HEAD");
    if t.jobs.is_empty() {
        println!("nothing to do at {commit}: no crate changed");
    }
    for j in &t.jobs {
        let how = if j.deduped {
            "merged into queued job"
        } else {
            "queued job"
        };
        println!("{}: {how} {} at {commit}", j.krate, j.job);
    }
    Ok(())
}
