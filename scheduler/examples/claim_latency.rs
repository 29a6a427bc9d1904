//! Claim latency of the queue on PostgreSQL with many nodes contending: a real server in a
//! temp dir, `--jobs` queued jobs (one per crate, so none waits on another), `--nodes`
//! schedulers with a connection pool each claiming and finishing until the queue is empty.
//! Prints p50, p99 and max claim latency and claims per second, and with `--json` a JSON line
//! (`bench/fleet.py claims` runs it and writes `bench/FLEET.md`'s row).
//!
//! ```sh
//! cargo run --release -p frugal-scheduler --example claim_latency -- --nodes 8 --jobs 10000
//! ```

use std::sync::Mutex;
use std::time::{Duration, Instant};

use frugal_scheduler::{JobOutcome, Reason, Scheduler, SchedulerOptions};
use frugal_storage::{PgOptions, RepoId, Store};
use frugal_testkit::postgres::Postgres;

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn main() -> anyhow::Result<()> {
    let nodes = arg("--nodes", 8);
    let jobs = arg("--jobs", 10_000);
    let json = std::env::args().any(|a| a == "--json");
    let pg = Postgres::start()?;
    pg.create_db("claims")?;
    let url = pg.url("claims");
    let opts = |node: usize| SchedulerOptions {
        max_concurrent: 1,
        lease: Duration::from_secs(60),
        max_attempts: 3,
        max_queued_per_token: 16,
        node: format!("n{node}"),
        mirrors: Default::default(),
    };
    let store = Store::open_postgres(&PgOptions::new(&url, 4))?;
    let queue = Scheduler::new(store, opts(0));
    let t = Instant::now();
    for i in 0..jobs {
        queue.enqueue(RepoId(1), &format!("c{i}"), Reason::Api, None)?;
    }
    eprintln!("queued {jobs} jobs in {:.1}s", t.elapsed().as_secs_f64());
    let latencies = Mutex::new(Vec::with_capacity(jobs));
    let started = Instant::now();
    std::thread::scope(|s| -> anyhow::Result<()> {
        let mut handles = Vec::new();
        for n in 1..=nodes {
            let url = &url;
            let latencies = &latencies;
            handles.push(s.spawn(move || -> anyhow::Result<()> {
                let sched = Scheduler::new(Store::open_postgres(&PgOptions::new(url, 2))?, opts(n));
                let mut mine = Vec::new();
                loop {
                    let t = Instant::now();
                    let Some(job) = sched.claim()? else { break };
                    mine.push(t.elapsed());
                    sched.finish(job.id, JobOutcome::Succeeded { run: None })?;
                }
                latencies
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend(mine);
                Ok(())
            }));
        }
        for h in handles {
            h.join()
                .map_err(|_| anyhow::anyhow!("a node thread panicked"))??;
        }
        Ok(())
    })?;
    let wall = started.elapsed();
    let mut l = latencies.into_inner().unwrap_or_else(|e| e.into_inner());
    l.sort();
    anyhow::ensure!(l.len() == jobs, "{} claims for {jobs} jobs", l.len());
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let (p50, p99, max) = (percentile(&l, 0.5), percentile(&l, 0.99), l[l.len() - 1]);
    let rate = jobs as f64 / wall.as_secs_f64();
    println!(
        "{nodes} nodes, {jobs} jobs: claim p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; {rate:.0} claims/s (claim + finish)",
        ms(p50),
        ms(p99),
        ms(max)
    );
    if json {
        println!(
            "{}",
            serde_json::json!({
                "nodes": nodes, "jobs": jobs, "p50_ms": ms(p50), "p99_ms": ms(p99),
                "max_ms": ms(max), "claims_per_s": rate, "wall_s": wall.as_secs_f64(),
            })
        );
    }
    Ok(())
}
