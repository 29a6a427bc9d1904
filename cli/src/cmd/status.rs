//! `frugal status [<run>] [--wait]`: the daemon, its queue and the runs in flight, or one run.

use std::time::Duration;

use frugal_api::v1;

use super::{print_json, short_commit};
use crate::client::{Conn, TIMEOUT};

#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    /// A run id: show that run (default: the daemon, its queue and the runs in flight).
    pub run: Option<u64>,
    /// Wait until the run ends; exit 1 if it failed.
    #[arg(long, requires = "run")]
    pub wait: bool,
    #[arg(long)]
    pub json: bool,
}

fn run_line(r: &v1::Run) -> String {
    let p = &r.progress;
    let mut s = format!(
        "run {} {} {} @ {}: {}",
        r.id,
        r.krate,
        r.status,
        short_commit(r.commit.as_deref()),
        p.phase
    );
    if p.goals > 0 {
        s.push_str(&format!(
            ", {}/{} goals, {} executions",
            p.covered, p.goals, p.executions
        ));
    }
    if p.live {
        s.push_str(&format!(", {:.0}s", p.elapsed_s));
    }
    if let Some(e) = &r.error {
        s.push_str(&format!(": {e}"));
    }
    s
}

/// One node of the fleet: id (marked when it answered), address, heartbeat age and jobs.
fn node_line(n: &v1::Node, answering: &str) -> String {
    let me = if n.id == answering {
        " (this node)"
    } else {
        ""
    };
    let state = if n.alive { "alive" } else { "NOT RESPONDING" };
    let jobs = if n.jobs.is_empty() {
        "no jobs".to_string()
    } else {
        let ids: Vec<String> = n.jobs.iter().map(u64::to_string).collect();
        format!("jobs {}", ids.join(", "))
    };
    format!(
        "node {}{me} at {}: {state}, heartbeat {:.1}s ago, {jobs}",
        n.id,
        n.addr.as_deref().unwrap_or("?"),
        n.heartbeat_age_s
    )
}

pub fn run(conn: &Conn, a: StatusArgs) -> anyhow::Result<()> {
    let client = conn.client(TIMEOUT)?;
    let Some(id) = a.run else {
        let s: v1::Status = client.get("/v1/status")?;
        if a.json {
            return print_json(&s);
        }
        println!(
            "frugald {} at {}: up {:.0}s, {} repositories, {} jobs queued, {} running{}",
            s.version,
            client.base(),
            s.uptime_s,
            s.repos,
            s.jobs_queued,
            s.jobs_running,
            if s.stopping { " (stopping)" } else { "" }
        );
        for line in &s.sandbox {
            println!("sandbox: {line}");
        }
        // One node is the plain single-host case: listed only when a fleet shares the store.
        if s.nodes.len() > 1 {
            for n in &s.nodes {
                println!("{}", node_line(n, &s.node));
            }
        }
        for r in &s.running {
            println!("  {}", run_line(r));
        }
        return Ok(());
    };
    loop {
        let r: v1::Run = client.get(&format!("/v1/runs/{id}"))?;
        if !a.wait || r.status != "running" {
            if a.json {
                print_json(&r)?;
            } else {
                println!("{}", run_line(&r));
            }
            if a.wait && r.status != "succeeded" {
                std::process::exit(frugal_api::exit::CHANGED);
            }
            return Ok(());
        }
        eprintln!("{}", run_line(&r));
        std::thread::sleep(Duration::from_secs(2));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with_commit(commit: &str) -> v1::Run {
        serde_json::from_value(serde_json::json!({
            "id": 1, "repo": 1, "crate": "k", "commit": commit, "status": "running",
            "error": null, "started_ms": 0, "finished_ms": null, "job": null, "suite": null,
            "progress": { "phase": "search", "generation": 0, "executions": 0, "covered": 0,
                          "goals": 0, "search_fraction": 0.0, "elapsed_s": 0.0, "live": false },
        }))
        .unwrap()
    }

    #[test]
    fn a_run_line_shortens_any_commit_string_without_panicking() {
        let full = "0123456789abcdef0123456789abcdef01234567";
        assert!(run_line(&run_with_commit(full)).contains("@ 0123456789: search"));
        // A multi-byte character straddles byte 10.
        let odd = "abcdefghié-and-more";
        assert!(run_line(&run_with_commit(odd)).contains("@ abcdefghié: search"));
        assert!(run_line(&run_with_commit("ééééééééééééé")).contains("@ éééééééééé: search"));
        assert!(run_line(&run_with_commit("")).contains("@ : search"));
    }
}
