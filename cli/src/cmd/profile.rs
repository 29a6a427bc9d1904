//! `frugal profile`: measure the real cost of a crate's tests (see the `frugal-profiler` crate).
//!
//! Thin: arguments to a [`frugal_profiler::ProfileConfig`], run, print the table (or JSON with
//! `--json`) on stdout and progress on stderr. The build and every test process run confined
//! (`frugal-sandbox`): they may write only the crate's workspace, the target dir and a private
//! scratch dir. The launcher `frugal-launch` must sit next to the
//! `frugal` binary, or `FRUGAL_LAUNCH` must name it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use frugal_profiler::{ProfileConfig, Progress, Suite};

/// Which tests `frugal profile` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SuiteArg {
    /// `tests/frugal_generated.rs`.
    Generated,
    /// Every other test of the crate.
    Existing,
    /// Both.
    Both,
}

/// Arguments of `frugal profile`.
#[derive(Debug, clap::Args)]
pub struct ProfileArgs {
    /// Path to the crate whose tests are profiled.
    pub krate: std::path::PathBuf,
    /// Which tests to profile.
    #[arg(long, value_enum, default_value = "existing")]
    pub suite: SuiteArg,
    /// Runs per test; medians and spread are over the passing ones.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Also measure instructions (cachegrind) and heap (dhat) under valgrind, once per test.
    /// The valgrind binary is `$FRUGAL_VALGRIND`, else `valgrind` on PATH.
    #[arg(long)]
    pub valgrind: bool,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Seconds after which a test is killed and reported as a timeout.
    #[arg(long, default_value_t = 60)]
    pub timeout: u64,
    /// Build the tests with `--release`.
    #[arg(long)]
    pub release: bool,
    /// Cargo target directory for the build (default: the crate's own).
    #[arg(long)]
    pub target_dir: Option<std::path::PathBuf>,
    /// Only tests whose name contains this.
    #[arg(long)]
    pub filter: Option<String>,
    /// With `--ci-cost`: skip tests whose name contains this (the crate's own tests beside a
    /// suite placed inside the crate: `--suite existing --skip frugal_generated::`).
    #[arg(long, requires = "ci_cost")]
    pub skip: Option<String>,
    /// Measure what CI pays instead of each test: build time from a clean target dir and after
    /// a one-line change, and wall and CPU time under `cargo test` and `cargo nextest run`
    /// (`--repeat` runs each, medians). Measured on a copy of the crate; with `--suite both`,
    /// the generated suite and the crate's own tests side by side.
    #[arg(long)]
    pub ci_cost: bool,
    #[command(flatten)]
    pub features: super::Features,
}

/// Runs `frugal profile`.
pub fn run(mut args: ProfileArgs) -> anyhow::Result<()> {
    // Absolute: cargo runs confined, from another directory (before: a relative path failed
    // with "manifest path does not exist").
    args.krate = args
        .krate
        .canonicalize()
        .with_context(|| format!("no crate at `{}`", args.krate.display()))?;
    if args.ci_cost {
        return ci_cost(&args);
    }
    let mut config = ProfileConfig::new(&args.krate);
    config.suite = match args.suite {
        SuiteArg::Generated => Suite::Generated,
        SuiteArg::Existing => Suite::Existing,
        SuiteArg::Both => Suite::Both,
    };
    config.repeat = args.repeat;
    config.valgrind = args.valgrind;
    config.timeout = Duration::from_secs(args.timeout);
    config.release = args.release;
    config.target_dir = args.target_dir;
    config.filter = args.filter;
    config.cargo_args = args.features.cargo_args();
    let scratch = std::env::temp_dir().join(format!("frugal-profile-job-{}", std::process::id()));
    config.sandbox = Some(sandbox_policy(
        &args.krate,
        config.target_dir.as_deref(),
        &scratch,
    )?);
    let result = profile(&config, &args.krate, args.json);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// The confinement of the build and the tests: the crate's workspace (its `Cargo.lock`, the
/// files its tests write), the target dir and a private scratch dir (`HOME`, `TMPDIR`)
/// writable; the system and the toolchain readable; nothing else.
pub(crate) fn sandbox_policy(
    krate: &Path,
    target_dir: Option<&Path>,
    scratch: &Path,
) -> anyhow::Result<frugal_sandbox::Policy> {
    let dir = krate
        .canonicalize()
        .with_context(|| format!("no crate at `{}`", krate.display()))?;
    let workspace = dir
        .ancestors()
        .filter(|d| d.parent().is_some() && d.join("Cargo.toml").is_file())
        .last()
        .unwrap_or(&dir)
        .to_path_buf();
    let target = match target_dir {
        Some(t) => t.to_path_buf(),
        None => std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| workspace.join("target")),
    };
    std::fs::create_dir_all(&target)
        .with_context(|| format!("cannot create the target dir `{}`", target.display()))?;
    frugal_sandbox::Policy::for_job(scratch, &target, &workspace)
        .context("cannot prepare the sandbox")
}

fn profile(config: &ProfileConfig, krate: &Path, json: bool) -> anyhow::Result<()> {
    let report = frugal_profiler::profile_with(
        config,
        &frugal_profiler::PerfEventBackend,
        &mut show_progress,
    )
    .with_context(|| format!("failed to profile `{}`", krate.display()))?;
    let mut stdout = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut stdout, &report).context("failed to write JSON")?;
        writeln!(stdout)?;
    } else {
        write!(stdout, "{}", frugal_profiler::render_table(&report))?;
    }
    Ok(())
}

/// `frugal profile --ci-cost`: each suite measured on its own copy of the crate, confined.
fn ci_cost(args: &ProfileArgs) -> anyhow::Result<()> {
    let suites: &[Suite] = match args.suite {
        SuiteArg::Generated => &[Suite::Generated],
        SuiteArg::Existing => &[Suite::Existing],
        SuiteArg::Both => &[Suite::Generated, Suite::Existing],
    };
    let scratch = tempfile::Builder::new()
        .prefix("frugal-ci-cost-")
        .tempdir()
        .context("cannot make a scratch dir")?;
    let names = frugal_profiler::NameFilter {
        only: args.filter.clone(),
        skip: args.skip.clone(),
    };
    let mut costs = Vec::new();
    for &suite in suites {
        let cost = ci_cost_of(
            &args.krate,
            suite,
            args.features.cargo_args(),
            args.repeat,
            names.clone(),
            scratch.path(),
        )?;
        costs.push(cost);
    }
    let mut stdout = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut stdout, &costs).context("failed to write JSON")?;
        writeln!(stdout)?;
    } else {
        write!(stdout, "{}", ci_cost_table(&costs))?;
    }
    Ok(())
}

/// What CI pays for `suite` of the crate at `krate`, measured on a copy of it under `scratch`
/// (the incremental build changes a line of the copy), confined; `runs` of each runner, with
/// the tests `names` picks.
pub(crate) fn ci_cost_of(
    krate: &Path,
    suite: Suite,
    cargo_args: Vec<String>,
    runs: u32,
    names: frugal_profiler::NameFilter,
    scratch: &Path,
) -> anyhow::Result<frugal_profiler::CiCost> {
    let name = format!("{suite:?}").to_lowercase();
    let dir = scratch.join(&name);
    let copy = dir.join("crate");
    frugal_subject::instrument::standalone_copy(krate, &copy)
        .with_context(|| format!("cannot copy `{}`", krate.display()))?;
    let target = dir.join("target");
    let home = dir.join("home");
    std::fs::create_dir_all(&home)?;
    let policy = sandbox_policy(&copy, Some(&target), &home)?;
    eprintln!(
        "measuring what CI pays for the {name} tests (clean build, one-line change, cargo test, cargo nextest run)..."
    );
    frugal_profiler::measure_ci_cost(&frugal_profiler::CiCostConfig {
        crate_dir: copy,
        suite,
        target_dir: target,
        cargo_args,
        runs,
        sandbox: Some(policy),
        names,
    })
    .with_context(|| format!("failed to measure the CI cost of `{}`", krate.display()))
}

/// The CI cost figures, one row per suite.
fn ci_cost_table(costs: &[frugal_profiler::CiCost]) -> String {
    let times = |t: &Option<frugal_profiler::RunTimes>| match t {
        Some(t) => format!(
            "{:.2} / {:.2}{}",
            t.wall_seconds,
            t.cpu_seconds,
            if t.passed { "" } else { " (failures)" }
        ),
        None => "n/a".into(),
    };
    let mut out = format!(
        "{:<10} {:>12} {:>12} {:>24} {:>24}\n",
        "suite", "build clean", "build +1 line", "cargo test wall/CPU s", "nextest wall/CPU s"
    );
    for c in costs {
        out.push_str(&format!(
            "{:<10} {:>11.1}s {:>12.1}s {:>24} {:>24}\n",
            c.suite,
            c.build_clean_seconds,
            c.build_incremental_seconds,
            times(&c.cargo_test),
            times(&c.nextest)
        ));
        for n in &c.notes {
            out.push_str(&format!("  {}: {n}\n", c.suite));
        }
    }
    out
}

fn show_progress(progress: Progress) {
    match progress {
        Progress::Building { krate } => eprintln!("building the tests of `{krate}`..."),
        Progress::Listed { binaries, tests } => {
            eprintln!("{tests} test(s) in {binaries} binary(ies)")
        }
        // One line per round, not per process: enough to see it move.
        Progress::Measured { done, total } if done == total || done % 50 == 0 => {
            eprintln!("measured {done}/{total} runs")
        }
        Progress::Measured { .. } => {}
        Progress::Valgrind { done, total } => eprintln!("valgrind {done}/{total}"),
    }
}
