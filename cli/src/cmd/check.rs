//! `frugal check`: run a stored suite against a crate and report what behaviour changed
//! (`frugal_subject::regress`). The one-shot form, `frugal check <crate> --suite FILE`, checks
//! the crate's working tree; progress goes to stderr, the report (or JSON) to stdout, JUnit XML
//! to `--junit`.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use frugal_subject::pipeline;
use frugal_subject::regress::{self, CheckEvent, CheckOptions};

/// Arguments of `frugal check`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit status: 0 when every test of the suite passes (a test that \
    passes only on a re-run counts as passing, flagged flaky); 1 when a behaviour changed or a \
    test no longer compiles, crashed or timed out; 2 on an error (the crate does not build, the \
    suite cannot be read, bad arguments)."
)]
pub struct CheckArgs {
    /// The crate to check (the directory holding its Cargo.toml; default: the current
    /// directory).
    #[arg(value_name = "CRATE")]
    pub target: Option<PathBuf>,
    /// The stored suite to run (a `frugal_generated.rs` from `frugal run`): checks CRATE's
    /// working tree against it, one-shot.
    #[arg(long, value_name = "FILE")]
    pub suite: Option<PathBuf>,
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
pub fn run(args: CheckArgs) -> anyhow::Result<i32> {
    let Some(suite_file) = &args.suite else {
        anyhow::bail!(
            "`frugal check` without --suite is the daemon form (`frugal check [<repo>] \
             [--commit SHA]`), which is not available yet: pass --suite FILE to check a \
             crate's working tree against a stored suite"
        );
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
    opts.cargo_args = pipeline::cargo_feature_args(&args.features.analyze_options());
    opts.placement = args
        .placement
        .unwrap_or_else(|| regress::detect_placement(&source));
    opts.reruns = args.reruns;
    opts.test_timeout = Duration::from_millis(args.test_timeout_ms.max(1));
    if !args.no_sandbox {
        opts.sandbox = Some(pipeline::job_policy(&crate_dir, &work)?);
        let caps = frugal_sandbox::Capabilities::probe();
        if !caps.fs_confined() {
            let missing = caps.report().join("; ");
            eprintln!("warning: the crate's code runs WITHOUT filesystem confinement ({missing})");
        }
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
    Ok(if report.failures() > 0 { 1 } else { 0 })
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
