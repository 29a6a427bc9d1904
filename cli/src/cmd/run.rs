//! `frugal run`: the one-shot pipeline with a progress bar and a summary.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context as _;
use frugal_search::{AlgorithmKind, Budget, Generation, SearchParams};
use frugal_subject::criteria::Criteria;
use frugal_subject::executor::ExecConfig;
use frugal_subject::pipeline::{self, Phase, Progress, RunOptions, RunSummary};
use frugal_subject::suite_model::SuiteModel;
use indicatif::{ProgressBar, ProgressStyle};

/// Arguments of `frugal run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Path to the crate (the directory holding its Cargo.toml).
    pub krate: PathBuf,
    /// Search budget: a duration (`30s`, `5m`) or a number of executions (`20000`).
    #[arg(long, default_value = "30s")]
    pub budget: Budget,
    /// Seed of the search; the same seed and an execution budget give the same suite.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Search algorithm: random, mosa, dynamosa, adynamosa, wholesuite or mio.
    #[arg(long, default_value = "adynamosa")]
    pub algorithm: AlgorithmKind,
    /// Which test keeps a goal two tests cover: `shorter` (MOSA, DynaMOSA), `score` (Eq. 1 of
    /// aDynaMOSA) or `estimate` (fewer estimated instructions). Default: the algorithm's own.
    #[arg(long)]
    pub archive: Option<frugal_search::ArchivePolicy>,
    /// Directory for the generated file and summary.json.
    #[arg(long, default_value = "frugal.out")]
    pub out: PathBuf,
    /// Also write the suite to tests/frugal_generated.rs in the crate.
    #[arg(long)]
    pub write: bool,
    /// Harness processes running tests in parallel (default: one per core).
    #[arg(long)]
    pub workers: Option<usize>,
    /// Wall-clock limit per test execution, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub timeout_ms: u64,
    /// Scratch directory for the instrumented copy and build cache (default: ~/.cache/frugal).
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
    #[command(flatten)]
    pub features: super::Features,
    /// Coverage criteria, comma separated: branch, line, function, function-no-panic, panic,
    /// output, input (or `all`), and the opt-in weak-mutation and strong-mutation
    /// (`all,strong-mutation`: frugal's mutants are goals until a test kills them).
    #[arg(long, default_value = "all")]
    pub criteria: Criteria,
    /// Which goals to search for: `all`, or `smart` ([smart-goals]: line goals subsumed by their
    /// block's last line are left to the branch goals and only measured at the end).
    #[arg(long, default_value = "all")]
    pub goal_selection: frugal_search::GoalSelection,
    /// Where the suite goes: `tests` (tests/frugal_generated.rs, public API) or `in-crate` (a
    /// `#[cfg(test)]` module declared at the crate root, which may call crate-private items;
    /// needed for binary crates).
    #[arg(long, default_value = "tests")]
    pub placement: frugal_subject::emit::Placement,
    /// Run the crate's code (build scripts, harness, tests) WITHOUT the sandbox, with this
    /// user's rights: only to measure what confinement costs, on code you trust.
    #[arg(long)]
    pub no_sandbox: bool,
    /// Start from an earlier suite's test model (`frugal_generated.model.json`): its tests that
    /// still apply are executed first and seed the search, which then pursues only the goals
    /// they leave uncovered.
    #[arg(long, value_name = "FILE")]
    pub from_model: Option<PathBuf>,
    /// Stop the search after N generations in a row without a newly covered goal (default:
    /// only the budget or full coverage stop it).
    #[arg(long, value_name = "N")]
    pub stall: Option<u32>,
    /// Leave std's flag calls (`starts_with`, `parse`, `contains_key`, `try_from`, ...)
    /// unobserved: no distances and no goals of their own (testability transformations off).
    #[arg(long)]
    pub no_testability: bool,
    /// Do not seed string values with what the crate compared a test's values against at run
    /// time (a prefix built with `format!`, a word looked for again): only the crate's
    /// literals and random strings. Only to measure what dynamic seeding brings.
    #[arg(long)]
    pub no_dynamic_seeding: bool,
    /// How the archive becomes a suite: `shrink` (a set cover weighted by estimated cost, then
    /// each kept test made cheaper: smaller integers, shorter strings and collections, fewer
    /// statements), `cost` (the weighted cover alone) or `plain` (a cover by goal count, as
    /// other tools minimise). The last two only to measure what each piece brings.
    #[arg(long, default_value = "shrink")]
    pub minimiser: frugal_subject::emit::minimise::Minimiser,
    /// cargo-mutants' `outcomes.json` of a run on the crate's own suite
    /// (`mutants.out/outcomes.json`): the mutants it missed become targets (their counterparts
    /// among frugal's own mutants; strong mutation is switched on) and the summary gives each a
    /// verdict: killed by which test, possibly equivalent, not reached, or no counterpart.
    #[arg(long, value_name = "OUTCOMES_JSON")]
    pub kill_survivors: Option<PathBuf>,
    /// Do not measure what the emitted suite costs to run. By default each verified test runs
    /// three more times under the profiler's counters (confined), and the summary shows the
    /// measured total beside the proxies' estimate.
    #[arg(long)]
    pub no_measure: bool,
    /// Also measure what CI pays for the emitted suite and, beside it, for the crate's own
    /// tests: `cargo test --no-run` from an empty target dir and after a one-line change, and
    /// wall and CPU time under `cargo test` and `cargo nextest run` (three runs each, medians),
    /// each suite on its own confined copy of the verified crate. Off by default: it builds
    /// the crate and its dependencies twice from scratch. An in-crate suite shares the own
    /// tests' binaries: each side runs only its tests (by the `frugal_generated::` module),
    /// and both builds include both.
    #[arg(long)]
    pub ci_cost: bool,
    /// Print the summary as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Runs `frugal run`.
pub fn run(args: RunArgs) -> anyhow::Result<()> {
    if !args.krate.join("Cargo.toml").is_file() {
        anyhow::bail!(
            "{} has no Cargo.toml: pass the directory of a Rust crate",
            args.krate.display()
        );
    }
    super::require_confinement(args.no_sandbox)?;
    let mut exec = ExecConfig {
        timeout: Duration::from_millis(args.timeout_ms.max(1)),
        ..ExecConfig::default()
    };
    if let Some(w) = args.workers {
        exec.workers = w.max(1);
    }
    let seed_model = args
        .from_model
        .as_deref()
        .map(SuiteModel::read)
        .transpose()?;
    let survivors = match &args.kill_survivors {
        Some(path) => frugal_subject::survivors::read_outcomes(path)?,
        None => Vec::new(),
    };
    let mut criteria = args.criteria.clone();
    if args.kill_survivors.is_some() {
        criteria.0.insert(frugal_search::GoalKind::StrongMutation);
    }
    let opts = RunOptions {
        crate_dir: args.krate.clone(),
        out_dir: args.out.clone(),
        write: args.write,
        search: SearchParams {
            algorithm: args.algorithm,
            seed: args.seed,
            budget: args.budget,
            stall_generations: args.stall,
            archive: args.archive,
            operators: frugal_search::OperatorParams {
                dynamic_seeding: !args.no_dynamic_seeding,
                ..Default::default()
            },
            ..SearchParams::default()
        },
        exec,
        work_dir: args.work_dir.clone(),
        analyze: args.features.analyze_options(),
        criteria,
        goal_selection: args.goal_selection,
        placement: args.placement,
        unconfined: args.no_sandbox,
        seed_model,
        testability: !args.no_testability,
        survivors,
        minimiser: args.minimiser,
    };
    let mut bar = Bar::new(!args.json);
    let mut summary = pipeline::run(&opts, &mut bar)
        .with_context(|| format!("frugal run {}", args.krate.display()))?;
    let work = args
        .work_dir
        .clone()
        .unwrap_or_else(|| pipeline::default_work_dir(&args.krate, &summary.krate));
    let measure = !args.no_measure && summary.tests_emitted > 0;
    if measure {
        bar.bar
            .set_message("measuring the emitted suite (--no-measure skips this)");
        summary.measured_cost = Some(super::measure::measured_cost(
            &work,
            args.placement,
            args.features.cargo_args(),
        ));
    }
    let ci_cost = args.ci_cost && summary.tests_emitted > 0;
    if ci_cost {
        bar.bar.set_message(
            "measuring what CI pays for the emitted suite and the crate's own tests (--ci-cost)",
        );
        let report = super::measure::ci_cost(&work, args.placement, args.features.cargo_args());
        summary.ci_cost = Some(serde_json::to_value(report)?);
    }
    if measure || ci_cost {
        let path = args.out.join("summary.json");
        std::fs::write(&path, serde_json::to_string_pretty(&summary)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    bar.finish();
    if !summary.sandbox_fs_confined {
        // Only with --no-sandbox (an unconfinable host is refused up front): say it again.
        let missing = summary.sandbox.first().map_or("unknown", String::as_str);
        eprintln!("warning: the crate's code ran WITHOUT filesystem confinement ({missing})");
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print_summary(&summary);
    }
    Ok(())
}

struct Bar {
    bar: ProgressBar,
}

impl Bar {
    fn new(visible: bool) -> Self {
        let bar = if visible {
            ProgressBar::new_spinner()
        } else {
            ProgressBar::hidden()
        };
        bar.enable_steady_tick(Duration::from_millis(120));
        Bar { bar }
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bar {
    fn phase(&mut self, phase: Phase) {
        let msg = match phase {
            Phase::Analyse => "analysing the public API",
            Phase::Instrument => "instrumenting a copy and building it",
            Phase::BuildHarness => "building the harness",
            Phase::Search => "searching",
            Phase::Minimise => "minimising the suite",
            Phase::Verify => "compiling and running the suite twice against the real crate",
        };
        if phase == Phase::Search {
            self.bar.set_style(
                ProgressStyle::with_template("{spinner} searching [{bar:30}] {percent:>3}% {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            self.bar.set_length(1000);
        } else {
            self.bar.set_style(ProgressStyle::default_spinner());
        }
        self.bar.set_message(msg);
    }

    fn generation(&mut self, g: &Generation) {
        self.bar.set_position((g.progress * 1000.0) as u64);
        self.bar.set_message(format!(
            "gen {} | {} executions | {}/{} goals",
            g.number, g.executions, g.covered, g.goals
        ));
    }
}

fn pct(a: usize, b: usize) -> f64 {
    if b == 0 {
        100.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

fn print_summary(s: &RunSummary) {
    println!(
        "frugal run: {} ({} search, seed {}, budget {})",
        s.krate, s.algorithm, s.seed, s.budget
    );
    println!("goals covered by the emitted suite:");
    for (kind, c) in &s.goals {
        println!(
            "  {kind:<17} {:>5}/{:<5} {:5.1}%",
            c.covered,
            c.total,
            pct(c.covered, c.total)
        );
    }
    println!(
        "tests: {} emitted, {} dropped by verification",
        s.tests_emitted,
        s.tests_dropped.len()
    );
    for d in &s.tests_dropped {
        println!("  dropped {}: {}", d.name, d.reason);
    }
    let loosened: usize = s.assertions_not_reproducible.values().sum();
    if loosened > 0 {
        println!(
            "  {loosened} assertions in {} tests not kept: their values differ between runs",
            s.assertions_not_reproducible.len()
        );
    }
    println!(
        "suite cost estimate (sum of proxies I1..I7): {} {:?}",
        s.suite_proxy_total, s.suite_proxies
    );
    if let Some(sh) = &s.shrinking {
        println!(
            "shrinking: estimated instructions {:.3e} -> {:.3e} ({:.1}% saved), {} of {} tests \
             cheaper, {} of {} moves kept, {:.1}s{}",
            sh.estimate_before,
            sh.estimate_after,
            100.0 * sh.saved_share(),
            sh.tests_shrunk,
            sh.tests,
            sh.moves_kept,
            sh.moves_tried,
            sh.seconds,
            if sh.cut {
                " (stopped at its budget share)"
            } else {
                ""
            }
        );
    }
    if let Some(m) = &s.measured_cost {
        match m.total {
            Some(total) => println!(
                "suite cost measured: {total:.3e} {} ({}), {} tests measured, {} not ({:.1}s)",
                m.unit, m.source, m.tests_measured, m.tests_unmeasured, m.seconds
            ),
            None => println!(
                "suite cost measured: none ({})",
                m.note.as_deref().unwrap_or("unknown reason")
            ),
        }
        if let Some(fallback) = &m.fallback {
            println!("  {fallback}");
        }
    }
    if let Some(report) = s
        .ci_cost
        .as_ref()
        .and_then(|v| serde_json::from_value::<frugal_api::summary::CiCostReport>(v.clone()).ok())
    {
        print_ci_cost(&report);
    }
    if let Some(m) = &s.mutation {
        println!(
            "mutants (frugal's own, strong): {} of {} killed ({:.1}%), {} infected but survived, \
             {} not infected{}",
            m.killed,
            m.mutants,
            100.0 * m.score,
            m.survived,
            m.not_infected,
            if m.unjudged > 0 {
                format!(", {} not judged (out of time)", m.unjudged)
            } else {
                String::new()
            }
        );
        println!(
            "  mutation cost: {} executions ({:.1}% of the run's), {:.1}s, {:.0} executions/s",
            m.executions,
            100.0 * m.share_of_executions,
            m.seconds,
            m.executions_per_second
        );
        if m.search_judged > 0 {
            println!(
                "  during the search: {} judgements of a mutant on a test, {} killed",
                m.search_judged, m.search_killed
            );
        }
        println!(
            "  state assertions: {} of {} observed kept, each killing a mutant nothing else in \
             its test kills",
            m.state_asserted, m.state_observed
        );
    }
    if let Some(r) = &s.survivors {
        print_survivors(r);
    }
    if let Some(seeding) = &s.seeding {
        println!(
            "seed model: {} tests resolved, {} dropped; {} executed first, covering {} goals",
            seeding.resolved,
            seeding.dropped.len(),
            seeding.executed,
            seeding.goals_covered
        );
        for d in &seeding.dropped {
            println!("  dropped {}: {}", d.name, d.reason);
        }
    }
    println!(
        "search: {} executions, {:.0} executions/s, {} crashes, {} timeouts, stopped: {}",
        s.executions, s.executions_per_second, s.crashes, s.timeouts, s.search_stop
    );
    println!(
        "callables: {}/{} supported ({:.0}%)",
        s.callables.supported,
        s.callables.total,
        pct(s.callables.supported, s.callables.total)
    );
    for (reason, n) in &s.callables.reasons {
        println!("  {n:>4} {reason}");
    }
    let t = &s.seconds;
    println!(
        "time: analyse {:.1}s, instrument+build {:.1}s, harness build {:.1}s, search {:.1}s, minimise {:.1}s, verify {:.1}s",
        t.analyse, t.instrument, t.build_harness, t.search, t.minimise, t.verify
    );
    if s.uninstrumented > 0 {
        println!(
            "uninstrumented spots: {} (see summary.json)",
            s.uninstrumented
        );
    }
    println!("sandbox:");
    for line in &s.sandbox {
        println!("  {line}");
    }
    for w in &s.warnings {
        println!("warning: {w}");
    }
    println!("suite: {}", s.output.display());
    println!("test model: {}", s.model.display());
    if let Some(p) = &s.written_to_crate {
        println!("written to: {}", p.display());
    }
    for p in &s.homes_written {
        println!(
            "  and a line at the end of {} (its private items' tests)",
            p.display()
        );
    }
}

/// The verdicts on the own suite's survivors: counts, then the killed ones with their test.
fn print_survivors(r: &frugal_subject::survivors::SurvivorReport) {
    use frugal_subject::survivors::Verdict;
    println!(
        "own suite's survivors: {} of {} killed, {} possibly equivalent, {} not reached, {} \
         without a counterpart among frugal's mutants, {} in code the features compile out",
        r.killed,
        r.survivors,
        r.possibly_equivalent,
        r.not_reached,
        r.no_counterpart,
        r.not_compiled
    );
    for v in &r.verdicts {
        if let Verdict::Killed { test } = &v.verdict {
            println!("  killed {} by {test}", v.name);
        }
    }
}

/// `what CI pays` lines: the generated suite, and the crate's own tests beside it.
fn print_ci_cost(report: &frugal_api::summary::CiCostReport) {
    let times = |t: &Option<frugal_api::summary::RunTimes>| {
        t.as_ref()
            .map_or_else(|| "not run".into(), frugal_api::summary::RunTimes::describe)
    };
    println!("what CI pays ({:.0}s to measure):", report.seconds);
    for (label, cost) in [("generated", &report.generated), ("own", &report.own)] {
        let Some(c) = cost else { continue };
        println!(
            "  {label:<9} build {:.1}s clean, {:.1}s after a one-line change; cargo test {}; nextest {}",
            c.build_clean_seconds,
            c.build_incremental_seconds,
            times(&c.cargo_test),
            times(&c.nextest)
        );
        for n in &c.notes {
            println!("    {n}");
        }
    }
    for n in &report.notes {
        println!("  {n}");
    }
}
