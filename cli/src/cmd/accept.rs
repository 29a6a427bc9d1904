//! `frugal accept`: someone reviewed the behaviour changes frugald reported for a commit. The
//! report stops failing CI (`frugal check` exits 0 for it), and a suite held back by
//! `regressions.policy = "hold"` becomes the best one.

use frugal_api::v1;

use super::{print_json, short_commit};
use crate::client::{Client, Conn, TIMEOUT};

#[derive(Debug, clap::Args)]
pub struct AcceptArgs {
    /// The commit whose reported changes are accepted: a full id, an abbreviation or a ref
    /// (`HEAD`, `main`), resolved in the repository.
    pub commit: String,
    /// Id or path of the repository (default: the repository of the current directory).
    #[arg(long)]
    pub repo: Option<String>,
    /// Accept only this crate's report (default: every crate checked at the commit).
    #[arg(long = "crate")]
    pub krate: Option<String>,
    #[arg(long)]
    pub json: bool,
}

/// `/v1/repos/{repo}/commits/{commit}/{what}`, with the commit percent-encoded (refs may hold
/// `/`).
pub(crate) fn commit_path(repo: u64, commit: &str, what: &str) -> String {
    let commit = percent_encoding::utf8_percent_encode(commit, percent_encoding::NON_ALPHANUMERIC);
    format!("/v1/repos/{repo}/commits/{commit}/{what}")
}

/// `?crate=<name>` (percent-encoded) or nothing.
pub(crate) fn crate_query(krate: Option<&str>) -> String {
    krate.map_or(String::new(), |k| {
        let k = percent_encoding::utf8_percent_encode(k, percent_encoding::NON_ALPHANUMERIC);
        format!("?crate={k}")
    })
}

pub fn run(conn: &Conn, a: AcceptArgs) -> anyhow::Result<()> {
    let client: Client = conn.client(TIMEOUT)?;
    let repo = client.resolve_repo(a.repo.as_deref())?;
    let path = format!(
        "{}{}",
        commit_path(repo.id, &a.commit, "accept"),
        crate_query(a.krate.as_deref())
    );
    let answer: v1::CommitReport = client.post(&path, &serde_json::json!({}))?;
    if a.json {
        return print_json(&answer);
    }
    for c in &answer.crates {
        let suite = match (c.held, c.suite) {
            (true, Some(s)) => format!("; suite {s} is now the best one"),
            _ => String::new(),
        };
        println!(
            "{}: accepted {} behaviour change(s) at {}{suite}",
            c.krate,
            c.changed,
            short_commit(Some(&answer.commit))
        );
    }
    Ok(())
}
