//! `frugal check`: what behaviour changed (`frugal_subject::regress`). The one-shot form,
//! `frugal check <crate> --suite FILE`, runs a stored suite against the crate's working tree;
//! the daemon form, `frugal check [<repo>] [--commit SHA]`, reads the report frugald stored
//! for a commit (waiting while its jobs run). Progress goes to stderr, the report (or JSON) to
//! stdout, JUnit XML to `--junit`.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use frugal_api::{exit, v1};
use frugal_subject::pipeline;
use frugal_subject::regress::{self, CheckEvent, CheckOptions};

use crate::client::{Conn, TIMEOUT};

/// Arguments of `frugal check`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit status: 0 when every test of the suite passes (a test that \
    passes only on a re-run counts as passing, flagged flaky); 1 when a behaviour changed or a \
    test no longer compiles, crashed or timed out; 2 on an error (the crate does not build, the \
    suite cannot be read, bad arguments)."
)]
pub struct CheckArgs {
    /// With --suite: the crate to check (the directory holding its Cargo.toml). Without: the
    /// repository frugald watches, by id or path. Default: the current directory.
    #[arg(value_name = "CRATE|REPO")]
    pub target: Option<PathBuf>,
    /// The stored suite to run (a `frugal_generated.rs` from `frugal run`): checks CRATE's
    /// working tree against it, one-shot. Without it, frugald's report for a commit is read.
    #[arg(long, value_name = "FILE")]
    pub suite: Option<PathBuf>,
    /// Daemon form: the commit whose report is read (a full id, an abbreviation or a ref).
    #[arg(long, default_value = "HEAD", conflicts_with = "suite")]
    pub commit: String,
    /// Daemon form: seconds to wait while the commit's jobs are queued or running.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 1800,
        conflicts_with = "suite"
    )]
    pub wait: u64,
    /// Also write the report as JUnit XML to this file.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub features: super::Features,
    /// Where the suite goes: `tests` or `in-crate` (default: read from the suite, whose
    /// in-crate form names the crate with `use crate as ..`).
    #[arg(long)]
    pub placement: Option<frugal_subject::emit::Placement>,
    /// Extra runs of a failing test before it counts as changed.
    #[arg(long, default_value_t = regress::DEFAULT_RERUNS)]
    pub reruns: u32,
    /// Limit of one test run alone, in milliseconds.
    #[arg(long, default_value_t = regress::DEFAULT_TEST_TIMEOUT.as_millis() as u64)]
    pub test_timeout_ms: u64,
    /// Scratch directory for the crate's copy and build cache (default: the one `frugal run`
    /// uses for this crate, under ~/.cache/frugal).
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
    /// Build and run the crate's code WITHOUT the sandbox, with this user's rights: only on
    /// code you trust.
    #[arg(long)]
    pub no_sandbox: bool,
}

/// Runs `frugal check`; the process's exit status (0: nothing changed, 1: something did).
pub fn run(conn: &Conn, args: CheckArgs) -> anyhow::Result<i32> {
    let Some(suite_file) = &args.suite else {
        return from_daemon(conn, &args);
    };
    let crate_dir = args.target.clone().unwrap_or_else(|| PathBuf::from("."));
    if !crate_dir.join("Cargo.toml").is_file() {
        anyhow::bail!(
            "{} has no Cargo.toml: pass the directory of a Rust crate",
            crate_dir.display()
        );
    }
    let source = std::fs::read_to_string(suite_file)
        .with_context(|| format!("failed to read the suite {}", suite_file.display()))?;
    let krate = regress::crate_name(&crate_dir)?;
    let work = args
        .work_dir
        .clone()
        .unwrap_or_else(|| pipeline::default_work_dir(&crate_dir, &krate));
    std::fs::create_dir_all(&work)
        .with_context(|| format!("failed to create the work dir {}", work.display()))?;
    let work = work.canonicalize()?;
    let mut opts = CheckOptions::new(&work);
    opts.cargo_args = args.features.analyze_options().cargo_args();
    opts.placement = args
        .placement
        .unwrap_or_else(|| regress::detect_placement(&source));
    opts.reruns = args.reruns;
    opts.test_timeout = Duration::from_millis(args.test_timeout_ms.max(1));
    super::require_confinement(args.no_sandbox)?;
    if !args.no_sandbox {
        opts.sandbox = Some(pipeline::job_policy(&crate_dir, &work)?);
    }
    let report = regress::check_with_progress(&crate_dir, &source, &opts, &mut progress)
        .with_context(|| format!("frugal check {}", crate_dir.display()))?;
    if let Some(path) = &args.junit {
        std::fs::write(path, report.junit())
            .with_context(|| format!("failed to write {}", path.display()))?;
    }
    if args.json {
        super::print_json(&report)?;
    } else {
        print!("{}", report.human("the working tree"));
    }
    std::io::stdout().flush()?;
    Ok(if report.failures() > 0 {
        exit::CHANGED
    } else {
        exit::OK
    })
}

/// The daemon form: the report frugald stored for a commit, waited for while jobs of the
/// commit are queued or running.
fn from_daemon(conn: &Conn, args: &CheckArgs) -> anyhow::Result<i32> {
    let client = conn.client(TIMEOUT)?;
    let spec = args
        .target
        .as_ref()
        .map(|p| p.to_string_lossy().into_owned());
    let repo = client.resolve_repo(spec.as_deref()).context(
        "without --suite, `frugal check` reads frugald's report of a commit (pass --suite FILE \
         to check a crate's working tree against a stored suite, one-shot)",
    )?;
    let path = super::accept::commit_path(repo.id, &args.commit, "report");
    let deadline = Instant::now() + Duration::from_secs(args.wait);
    let mut said = false;
    let answer = loop {
        let answer: Option<v1::CommitReport> = client.get_opt(&path)?;
        let waiting = answer.as_ref().is_some_and(|a| !a.pending.is_empty());
        if !waiting || Instant::now() >= deadline {
            break answer;
        }
        if !said {
            let pending = answer
                .as_ref()
                .map(|a| a.pending.join(", "))
                .unwrap_or_default();
            eprintln!(
                "frugal check: waiting for the jobs of {pending} at {}",
                args.commit
            );
            said = true;
        }
        std::thread::sleep(Duration::from_secs(2));
    };
    let Some(answer) = answer else {
        anyhow::bail!(
            "frugald has no report for {} in repository {}: no job checked that commit \
             (`frugal trigger --commit {}` queues one)",
            args.commit,
            repo.id,
            args.commit
        );
    };
    if !answer.pending.is_empty() {
        anyhow::bail!(
            "the jobs of {} at {} are still running after {} s (--wait)",
            answer.pending.join(", "),
            answer.commit,
            args.wait
        );
    }
    let reports = daemon_reports(&answer)?;
    if let Some(path) = &args.junit {
        let all: Vec<&regress::Report> = reports.iter().flatten().collect();
        std::fs::write(path, regress::Report::junit_of(&all))
            .with_context(|| format!("failed to write {}", path.display()))?;
    }
    if args.json {
        super::print_json(&answer)?;
    } else {
        print_daemon_answer(&answer, &reports);
    }
    std::io::stdout().flush()?;
    Ok(if answer.gates {
        exit::CHANGED
    } else {
        exit::OK
    })
}

/// The engine's report of each crate in frugald's answer, in the answer's order (`None` where
/// the crate has a note instead).
fn daemon_reports(answer: &v1::CommitReport) -> anyhow::Result<Vec<Option<regress::Report>>> {
    answer
        .crates
        .iter()
        .map(|c| {
            c.report
                .clone()
                .map(serde_json::from_value)
                .transpose()
                .context("read the report frugald stored")
        })
        .collect()
}

fn print_daemon_answer(answer: &v1::CommitReport, reports: &[Option<regress::Report>]) {
    let commit = super::short_commit(Some(&answer.commit));
    for (c, report) in answer.crates.iter().zip(reports) {
        match (report, &c.note) {
            (Some(r), _) => {
                print!("{}", r.human(commit));
                if let Some(base) = &c.baseline_commit {
                    let accepted = if c.accepted_ms.is_some() {
                        " (accepted)"
                    } else {
                        ""
                    };
                    println!(
                        "{}: checked with the suite of {}{accepted}",
                        c.krate,
                        super::short_commit(Some(base))
                    );
                }
            }
            (None, Some(note)) => println!("{}: {note}", c.krate),
            (None, None) => println!("{}: no report", c.krate),
        }
    }
}

/// Phases on stderr, so stdout holds only the report.
fn progress(event: &CheckEvent) {
    let line = match event {
        CheckEvent::Building { round: 1, tests } => {
            format!("building the suite ({tests} tests) against the crate")
        }
        CheckEvent::Building { tests, .. } => {
            format!("rebuilding without the tests that no longer compile ({tests} left)")
        }
        CheckEvent::Running { tests } => format!("running {tests} tests"),
        CheckEvent::OneByOne { tests, why } => {
            format!("the whole run ended early ({why}): running {tests} tests one at a time")
        }
        CheckEvent::Rerunning { failing } => format!("re-running {failing} failing tests"),
    };
    eprintln!("frugal check: {line}");
}
