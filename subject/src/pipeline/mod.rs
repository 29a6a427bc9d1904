//! One run over one crate: analyse, instrument, build the harness, search, minimise, emit and
//! verify. `frugal run` and the daemon's regeneration jobs both call [`run`].

mod suite;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use frugal_search::{Generation, Observer, SearchParams, run_search};
use serde::Serialize;

use crate::analyze::{self, AnalyzeOptions};
use crate::criteria::{self, Criteria, Discovered, Plan};
use crate::emit::{self, Placement, minimise::Kept, verify};
use crate::environment::{RunEnvironment, Watch};
use crate::executor::{ExecConfig, ExecutorPool};
use crate::harness::{self, registry::Registry};
use crate::instrument;
pub use crate::run_summary::{
    CallableSupport, DroppedTest, GoalCount, MeasuredCost, PROXY_NAMES, RunSummary, Seeding,
    TestGoals, Timings,
};
use crate::run_summary::{dropped_tests, goal_counts, proxy_sums, support};
use crate::strong::{self, MutationScore};
use crate::suite_model::{self, SuiteModel};
use suite::{Suite, Written, verify_suite, write_suite};

/// What to run and where to put the result.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The crate under test: the directory with its `Cargo.toml`.
    pub crate_dir: PathBuf,
    /// Directory for `frugal_generated.rs` and `summary.json`.
    pub out_dir: PathBuf,
    /// Also write the suite to `tests/frugal_generated.rs` in the crate.
    pub write: bool,
    /// Search algorithm, budget, seed and its other parameters.
    pub search: SearchParams,
    /// Harness pool sizes and per-test limits.
    pub exec: ExecConfig,
    /// Scratch space (instrumented copy, harness, build cache); defaults to the user cache.
    pub work_dir: Option<PathBuf>,
    /// How the crate is analysed (features, in-crate placement, ...).
    pub analyze: AnalyzeOptions,
    /// Coverage criteria to search for (default: all).
    pub criteria: Criteria,
    /// Which of their goals the search pursues (smart selection defers subsumed line goals).
    pub goal_selection: frugal_search::GoalSelection,
    /// Where the suite goes: an integration test, or a module inside the crate. In-crate
    /// placement also analyses with [`AnalyzeOptions::in_crate`], whatever that field says.
    pub placement: Placement,
    /// Run the crate's code without the sandbox: only to measure what confinement costs, or on a
    /// host that cannot confine and whose user accepts the risk (the summary says so).
    pub unconfined: bool,
    /// The test model of an earlier suite of this crate (`frugal_generated.model.json`): its
    /// tests that still apply to the new build are executed first and seed the search, which
    /// then pursues only the goals they leave uncovered. Pair it with
    /// [`SearchParams::stall_generations`] to stop once the search stops finding goals.
    pub seed_model: Option<SuiteModel>,
    /// Testability transformations (\[testability\]): known flag calls of std (`starts_with`,
    /// `parse`, `contains_key`, `try_from`, ...) report distances and get two branch goals
    /// each. Off only to measure what they bring (`--no-testability`).
    pub testability: bool,
    /// Mutants the crate's own suite misses (`--kill-survivors`, read from cargo-mutants'
    /// `outcomes.json` by [`crate::survivors::read_outcomes`]): the summary gives a verdict on
    /// each. Their counterparts are frugal's own mutants, so the criteria should include
    /// `weak-mutation`.
    pub survivors: Vec<crate::survivors::Survivor>,
    /// How the archive becomes a suite: the cost-weighted cover and shrinking by default;
    /// the others only to measure what each piece brings (`--minimiser`).
    pub minimiser: emit::minimise::Minimiser,
}

impl RunOptions {
    /// A run of the crate at `crate_dir` writing to `out_dir` with every default: the default
    /// search, executor, criteria, goal selection and placement, confined, testability on, the
    /// user cache as work dir, nothing written to the crate, no seed model, no survivors,
    /// the default minimiser (cost-weighted cover, then shrinking).
    /// Callers change what they need by struct update.
    pub fn new(crate_dir: impl Into<PathBuf>, out_dir: impl Into<PathBuf>) -> RunOptions {
        RunOptions {
            crate_dir: crate_dir.into(),
            out_dir: out_dir.into(),
            write: false,
            search: SearchParams::default(),
            exec: ExecConfig::default(),
            work_dir: None,
            analyze: AnalyzeOptions::default(),
            criteria: Criteria::default(),
            goal_selection: frugal_search::GoalSelection::default(),
            placement: Placement::default(),
            unconfined: false,
            seed_model: None,
            testability: true,
            survivors: Vec::new(),
            minimiser: Default::default(),
        }
    }
}

/// Phases a run goes through, for progress displays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Phase {
    /// Analysing the crate's API.
    Analyse,
    /// Making and building the instrumented copy.
    Instrument,
    /// Building the harness.
    BuildHarness,
    /// Searching for tests.
    Search,
    /// Minimising the tests found.
    Minimise,
    /// Verifying the emitted suite.
    Verify,
}

impl Phase {
    /// The phase's name in run records and the API (`build-harness`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Analyse => "analyse",
            Phase::Instrument => "instrument",
            Phase::BuildHarness => "build-harness",
            Phase::Search => "search",
            Phase::Minimise => "minimise",
            Phase::Verify => "verify",
        }
    }
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Receives progress of a run.
pub trait Progress {
    /// Called when the run enters `phase`.
    fn phase(&mut self, phase: Phase);
    /// Called after each generation of the search.
    fn generation(&mut self, g: &Generation);
}

struct SearchObserver<'a>(&'a mut dyn Progress);

impl Observer for SearchObserver<'_> {
    fn generation(&mut self, g: &Generation) {
        self.0.generation(g);
    }
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The crate could not be analysed.
    #[error(transparent)]
    Analyze(#[from] analyze::AnalyzeError),
    /// The crate could not be instrumented, or its instrumented copy does not build.
    #[error(transparent)]
    Instrument(#[from] instrument::InstrumentError),
    /// The harness could not be generated or built.
    #[error(transparent)]
    Harness(#[from] harness::HarnessError),
    /// The verification preflight or the emitted suite's verification failed.
    #[error(transparent)]
    Verify(#[from] verify::VerifyError),
    /// A file or directory of the run could not be created or written.
    #[error("failed to write {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The sandbox policy could not be made.
    #[error("cannot confine the crate's code: {0}")]
    Sandbox(#[from] frugal_sandbox::Error),
    /// No public callable of the crate can be driven: there is nothing to test.
    #[error(
        "{krate} has no public callable the harness can drive ({reasons}); each callable left out, with the compiler's or analysis' detail, is in {}",
        details.display()
    )]
    NothingToCall {
        /// The crate's name.
        krate: String,
        /// Why callables were left out, for the message.
        reasons: String,
        /// The file listing each callable left out.
        details: PathBuf,
    },
    /// The seed model could not be read or written.
    #[error(transparent)]
    Model(#[from] suite_model::ModelError),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Runs the whole pipeline on one crate.
pub fn run(opts: &RunOptions, progress: &mut dyn Progress) -> Result<RunSummary, RunError> {
    let mut clock = Clock {
        progress,
        times: Timings::default(),
    };
    let mut model = clock.time(Phase::Analyse, |_| analyse(opts))?;
    let mut artifacts = Artifacts::new(work_dir(opts, &model)?, &opts.out_dir);
    let capabilities = frugal_sandbox::Capabilities::probe();
    let policy = match opts.unconfined {
        true => None,
        false => Some(sandbox_policy(opts, &artifacts.work)?),
    };
    let open_private = !model.homes.is_empty();
    let inst = clock.time(Phase::Instrument, |_| {
        let work = &artifacts.work;
        match instrument(opts, work, policy.as_ref(), open_private) {
            // Widened items can clash (two glob imports now both offering a name): private
            // items of submodules are then given up rather than the run.
            Err(e) if open_private => {
                artifacts.warnings.push(format!(
                    "private items of submodules are not tested: the copy with them made \
                     `pub(crate)` does not build ({e})"
                ));
                model.forget_homes();
                instrument(opts, work, policy.as_ref(), false)
            }
            built => built,
        }
    })?;
    let verify_opts = verify::VerifyOptions {
        placement: opts.placement,
        cargo_args: opts.analyze.cargo_args(),
        sandbox: policy.clone(),
    };
    let harness = clock.time(Phase::BuildHarness, |_| {
        let harness = build_harness(opts, &artifacts.work, &model, &inst, policy.as_ref())?;
        let header = header(&model.crate_name, opts);
        verify::preflight(&opts.crate_dir, &artifacts.work, &header, &verify_opts)?;
        Ok::<_, RunError>(harness)
    })?;
    // Dumped before the support check, so a crate with nothing callable leaves the details.
    dump_inputs(&mut artifacts, &model, &harness.registry, &inst.manifest);
    let (schema, callables) = drivable(&model, &harness.registry, &artifacts.work)?;
    let plan = Plan::new(&model, &harness.registry, &inst.manifest, &opts.criteria);
    let goals = search_goals(&plan, opts.goal_selection);

    let mut pool = executor_pool(opts, &inst, &harness);
    if let Some(policy) = &policy {
        pool = pool.sandbox(policy.clone());
    }
    let resolved = opts
        .seed_model
        .as_ref()
        .map(|m| m.resolve(&harness.registry, &model));
    let mut search = opts.search.clone();
    search.budget = search_budget(
        search.budget,
        opts.criteria.mutants(),
        opts.minimiser == emit::minimise::Minimiser::Shrink,
    );
    if let Some(r) = &resolved {
        search.seeds.extend(r.tests.iter().map(|(_, t)| t.clone()));
    }
    // Strong-mutation goals are judged below the derived goals, on the manifest's ids.
    let strong_goals = opts.criteria.strong();
    let mut propagate = strong::Propagate::new(
        &mut pool,
        plan.mutants()
            .filter(|_| strong_goals)
            .map(|(manifest, _)| manifest),
        inst.manifest.goals.len(),
    );
    let thorough = propagate.thorough_switch();
    // Everything runs through `DerivingExecutor`, so archive and minimiser see the derived goals too.
    let mut exec = criteria::DerivingExecutor::new(&mut propagate, &plan);
    let environment = RunEnvironment::new(&artifacts.work);
    let mut watch = Watch::new(&mut exec, &environment, &schema);
    let outcome = clock.time(Phase::Search, |p| {
        run_search(&schema, &goals, &mut watch, &search, &mut SearchObserver(p))
    });
    // Names, once each: operations may share a name.
    let from_environment: BTreeSet<&str> = watch
        .found()
        .iter()
        .map(|&op| schema.ops[op as usize].name.as_str())
        .collect();
    artifacts.dump("environment.json", &from_environment);
    thorough.set(true);
    let (mut kept, shrinking) = clock.time(Phase::Minimise, |_| {
        let (kept, shrinking) = minimise(opts, &schema, &outcome.archive, &mut exec);
        let kept = emit::split::split_conflicts(kept, &harness.registry, &model, &mut exec);
        (kept, shrinking)
    });
    let found = exec.discovered().clone();
    drop(exec);
    let search_strong = propagate.stats;
    let infected_in_search: BTreeSet<u32> = propagate
        .infected()
        .iter()
        .filter_map(|&m| plan.from_manifest.get(m as usize).copied().flatten())
        .collect();
    let verdicts = propagate.into_verdicts();
    // Goal ids in `tests` and `uncovered.txt` are these, not the manifest's (they agree on
    // manifest goals when every criterion is on).
    let goal_info = labelled(&plan, &found);
    artifacts.dump("goals.json", &goal_info);
    let started = Instant::now();
    let baseline = observe_state(&mut pool, &mut kept);
    let strong_runs = strong::kills(
        &mut pool,
        &plan,
        &mut kept,
        (&baseline, started.elapsed()),
        &verdicts,
        judging_deadline(&opts.search.budget, started),
    );
    let strong_seconds = started.elapsed().as_secs_f64();
    let stats = pool.stats.clone();
    drop(pool);

    let suite = clock.time(Phase::Verify, |_| {
        verify_suite(
            opts,
            &artifacts.work,
            &model,
            &harness.registry,
            &schema,
            &mut kept,
            &verify_opts,
        )
    })?;
    let written = write_suite(opts, &artifacts, &suite.verified)?;
    let model_path = artifacts.out.join(suite_model::MODEL_FILE);
    SuiteModel::from_tests(&harness.registry, &model, &suite.verified_tests())
        .write(&model_path)?;
    let covered = suite.covered();
    artifacts.output("uncovered.txt", &uncovered(&plan, &found, &covered))?;
    let infected: BTreeSet<u32> = covered.union(&infected_in_search).copied().collect();
    let mutation = plan.mutants().next().is_some().then(|| {
        MutationScore::new(
            &plan,
            &found,
            (&suite.killed(), &infected),
            strong::MutationCost {
                kills: strong_runs,
                seconds: strong_seconds,
                search: search_strong,
                all_executions: stats.executions,
            },
        )
    });
    let survivors = (!opts.survivors.is_empty()).then(|| {
        let compiled_out = |file: &str, line: usize| inst.manifest.is_compiled_out(file, line);
        let seen = crate::survivors::RunSeen {
            infected: &infected,
            compiled_out: &compiled_out,
        };
        suite.survivors(&opts.survivors, &goal_info, seen)
    });
    let facts = RunFacts {
        krate: model.crate_name.clone(),
        callables,
        goals: goal_counts(&plan, &opts.criteria, &found, &covered),
        executions: outcome.executions,
        stop: outcome.stop,
        seeding: resolved.map(|r| Seeding {
            resolved: r.tests.len(),
            dropped: dropped_tests(&r.dropped),
            executed: outcome.seeds_executed,
            goals_covered: outcome.seed_covered,
        }),
        stats,
        uninstrumented: inst.manifest.skipped.len(),
        times: clock.times,
        written,
        model: model_path,
        warnings: artifacts.warnings.clone(),
        sandbox: sandbox_report(&capabilities, opts.unconfined),
        sandbox_fs_confined: !opts.unconfined && capabilities.fs_confined(),
        mutation,
        survivors,
        shrinking,
        goal_info,
    };
    let summary = summarise(opts, facts, &suite);
    artifacts.output_json("summary.json", &summary)?;
    Ok(summary)
}

/// Announces each phase to the progress display and records its wall time.
struct Clock<'a> {
    progress: &'a mut dyn Progress,
    times: Timings,
}

impl Clock<'_> {
    fn time<T>(&mut self, phase: Phase, f: impl FnOnce(&mut dyn Progress) -> T) -> T {
        self.progress.phase(phase);
        let start = Instant::now();
        let out = f(&mut *self.progress);
        *self.times.slot(phase) = start.elapsed().as_secs_f64();
        out
    }
}

impl Timings {
    fn slot(&mut self, phase: Phase) -> &mut f64 {
        match phase {
            Phase::Analyse => &mut self.analyse,
            Phase::Instrument => &mut self.instrument,
            Phase::BuildHarness => &mut self.build_harness,
            Phase::Search => &mut self.search,
            Phase::Minimise => &mut self.minimise,
            Phase::Verify => &mut self.verify,
        }
    }
}

/// Where a run's files go, and what a failure to write one means.
///
/// Outputs in the out dir (`frugal_generated.rs`, `dropped.rs`, `uncovered.txt`,
/// `summary.json`) are what the user asked for: a failed write is fatal, and the error names the
/// file. Dumps in the work dir (`model.json`, `unsupported.json`, `manifest.json`, `goals.json`)
/// are for whoever debugs a run (the daemon keys goals by [`RunSummary::goal_info`], never by a
/// dump): the suite is good without them, so a failed dump becomes a warning in the summary
/// rather than costing the search.
pub(super) struct Artifacts {
    work: PathBuf,
    out: PathBuf,
    warnings: Vec<String>,
}

impl Artifacts {
    fn new(work: PathBuf, out: &Path) -> Self {
        Artifacts {
            work,
            out: out.to_path_buf(),
            warnings: Vec::new(),
        }
    }

    /// Writes a debugging dump to the work dir; a failure is kept as a warning.
    fn dump(&mut self, name: &str, value: &impl Serialize) {
        let path = self.work.join(name);
        let written = serde_json::to_string_pretty(value)
            .map_err(std::io::Error::from)
            .and_then(|text| std::fs::write(&path, text));
        if let Err(e) = written {
            self.warnings
                .push(format!("failed to write {}: {e}", path.display()));
        }
    }

    /// Creates the out dir; called once verification has a suite to put there.
    fn create_out_dir(&self) -> Result<(), RunError> {
        std::fs::create_dir_all(&self.out).map_err(io(&self.out))
    }

    /// Writes an output the user asked for; a failure is fatal.
    fn output(&self, name: &str, text: &str) -> Result<PathBuf, RunError> {
        let path = self.out.join(name);
        std::fs::write(&path, text).map_err(io(&path))?;
        Ok(path)
    }

    /// [`Artifacts::output`] of a value as pretty JSON.
    fn output_json(&self, name: &str, value: &impl Serialize) -> Result<PathBuf, RunError> {
        let text = serde_json::to_string_pretty(value).map_err(|e| RunError::Io {
            path: self.out.join(name),
            source: e.into(),
        })?;
        self.output(name, &text)
    }
}

/// Phase 1: the crate's API model.
fn analyse(opts: &RunOptions) -> Result<crate::model::ApiModel, RunError> {
    let mut analyze_opts = opts.analyze.clone();
    analyze_opts.in_crate |= opts.placement == Placement::InCrate;
    Ok(analyze::analyze(&opts.crate_dir, &analyze_opts)?)
}

/// The scratch directory, created and made absolute (the harness and executor run elsewhere).
fn work_dir(opts: &RunOptions, model: &crate::model::ApiModel) -> Result<PathBuf, RunError> {
    let work = opts
        .work_dir
        .clone()
        .unwrap_or_else(|| default_work_dir(&opts.crate_dir, &model.crate_name));
    std::fs::create_dir_all(&work).map_err(io(&work))?;
    work.canonicalize().map_err(io(&work))
}

/// The confinement of everything that runs the crate's code (its build scripts and proc macros,
/// the harness, the emitted tests): the work dir (instrumented copy, harness, both target dirs,
/// verification copy) writable; the system, the toolchain and cargo's registry readable (the
/// policy's defaults), and the original crate's workspace, for path dependencies.
fn sandbox_policy(opts: &RunOptions, work: &Path) -> Result<frugal_sandbox::Policy, RunError> {
    Ok(job_policy(&opts.crate_dir, work)?)
}

/// The policy of a run or check over the crate at `crate_dir` whose scratch space is `work`
/// (an absolute path): `work` writable (`work/target` the target dir), the crate's workspace
/// readable for path dependencies, but never a directory holding the work dir: above it lies
/// the caller's state (frugald's token, other repositories' snapshots).
pub fn job_policy(
    crate_dir: &Path,
    work: &Path,
) -> Result<frugal_sandbox::Policy, frugal_sandbox::Error> {
    Ok(
        frugal_sandbox::Policy::for_job(work, work.join("target"), work)?
            .crate_workspace_readable(crate_dir, work),
    )
}

/// What confined the crate's code in this run, for the summary.
fn sandbox_report(capabilities: &frugal_sandbox::Capabilities, unconfined: bool) -> Vec<String> {
    if unconfined {
        return vec![
            "sandbox off (--no-sandbox): the crate's code ran with this user's rights".into(),
        ];
    }
    capabilities.report()
}

/// Phase 2: an instrumented copy of the crate in the work dir, built.
fn instrument(
    opts: &RunOptions,
    work: &Path,
    policy: Option<&frugal_sandbox::Policy>,
    open_private: bool,
) -> Result<instrument::Instrumented, RunError> {
    let options = instrument::Options {
        features: opts.analyze.clone(),
        sandbox: policy.cloned(),
        mutants: opts.criteria.mutants(),
        testability: opts.testability,
        open_private,
        ..instrument::Options::default()
    };
    Ok(instrument::instrument_and_build(
        &opts.crate_dir,
        work,
        &work.join("target"),
        &options,
    )?)
}

/// Phase 3: the harness binary that runs generated tests against the instrumented copy.
fn build_harness(
    opts: &RunOptions,
    work: &Path,
    model: &crate::model::ApiModel,
    inst: &instrument::Instrumented,
    policy: Option<&frugal_sandbox::Policy>,
) -> Result<harness::Harness, RunError> {
    Ok(harness::build_with_features(
        work,
        &inst.root,
        &work.join("frugal-probe"),
        model,
        &inst.manifest,
        Registry::build(model),
        &harness::BuildOptions {
            features: enabled_features(&opts.crate_dir, &opts.analyze),
            sandbox: policy.cloned(),
        },
    )?)
}

/// The search schema and the callables' support, or an error when the harness can call
/// nothing (a search would only burn its budget).
fn drivable(
    model: &crate::model::ApiModel,
    registry: &Registry,
    work: &Path,
) -> Result<(frugal_search::Schema, CallableSupport), RunError> {
    let callables = support(model, registry);
    let schema = registry.schema(model);
    if !schema.calls().is_empty() {
        return Ok((schema, callables));
    }
    let reasons = callables
        .reasons
        .iter()
        .map(|(r, n)| format!("{n}× {r}"))
        .collect::<Vec<_>>()
        .join(", ");
    Err(RunError::NothingToCall {
        krate: model.crate_name.clone(),
        reasons,
        details: work.join("unsupported.json"),
    })
}

/// The goals the search pursues; smart selection defers line goals others subsume.
fn search_goals(plan: &Plan, selection: frugal_search::GoalSelection) -> frugal_search::Goals {
    match selection {
        frugal_search::GoalSelection::All => plan.search_goals(),
        frugal_search::GoalSelection::Smart => {
            plan.search_goals().with_deferred(plan.smart_deferred())
        }
    }
}

/// What the engine saw, for whoever wonders; cheap next to the build.
fn dump_inputs(
    artifacts: &mut Artifacts,
    model: &crate::model::ApiModel,
    registry: &Registry,
    manifest: &crate::manifest::Manifest,
) {
    artifacts.dump("model.json", model);
    // Every callable left out, with the detail behind its reason (the summary only counts).
    let left_out: Vec<&crate::model::Unsupported> =
        model.unsupported.iter().chain(&registry.dropped).collect();
    artifacts.dump("unsupported.json", &left_out);
    artifacts.dump("manifest.json", manifest);
}

/// Harness processes for search and minimisation (started lazily, on the first test).
fn executor_pool(
    opts: &RunOptions,
    inst: &instrument::Instrumented,
    harness: &harness::Harness,
) -> ExecutorPool {
    // Tests run inside the instrumented copy, as verification runs them inside its clean copy:
    // relative paths mean the same crate directory, and files the code writes stay in scratch.
    let mut exec_config = opts.exec.clone();
    exec_config.cwd.get_or_insert_with(|| inst.root.clone());
    ExecutorPool::new(harness.binary.clone(), exec_config)
}

/// Runs the kept tests once more, recording the state each statement leaves in the values it
/// borrows mutably, for the emitted tests' state assertions (the search does not record it:
/// nothing there reads it). The kept results take only the observations; the whole results
/// are returned as what each test observes unmutated, the baseline of strong mutation.
fn observe_state(pool: &mut ExecutorPool, kept: &mut [Kept]) -> Vec<frugal_search::ExecResult> {
    pool.observe_state(true);
    let tests: Vec<_> = kept.iter().map(|k| k.test.clone()).collect();
    let results = frugal_search::Executor::execute(pool, &tests);
    for (k, r) in kept.iter_mut().zip(&results) {
        // A run that went another way than the kept one observed another test.
        if std::mem::discriminant(&r.status) == std::mem::discriminant(&k.result.status)
            && r.completed == k.result.completed
        {
            k.result.observed = r.observed.clone();
        }
    }
    results
}

/// The share of a time budget kept from the search, with mutants on, for judging the emitted
/// tests against them: the run stays within its budget whatever the mutants do (with an
/// execution budget the search alone counts executions, and the judging is not cut).
const JUDGING_SHARE: u32 = 10;

/// The share of a time budget kept from the search for shrinking the kept tests' cost
/// (`emit::shrink`), which stops at its deadline.
const SHRINK_SHARE: u32 = 20;

/// The search's budget: a time budget less the judging's share when there are mutants, and
/// less the shrinking's share when it is on.
fn search_budget(
    budget: frugal_search::Budget,
    mutants: bool,
    shrink: bool,
) -> frugal_search::Budget {
    match budget {
        frugal_search::Budget::Time(t) => {
            let judging = if mutants {
                t / JUDGING_SHARE
            } else {
                Default::default()
            };
            let shrinking = if shrink {
                t / SHRINK_SHARE
            } else {
                Default::default()
            };
            frugal_search::Budget::Time(t - judging - shrinking)
        }
        other => other,
    }
}

/// When judging the emitted tests against frugal's mutants must stop (see [`JUDGING_SHARE`]).
fn judging_deadline(budget: &frugal_search::Budget, started: Instant) -> Option<Instant> {
    match budget {
        frugal_search::Budget::Time(t) => Some(started + *t / JUDGING_SHARE),
        frugal_search::Budget::Executions(_) => None,
    }
}

/// Phase 5: the archive cut down to a small suite and its tests made cheaper, then the
/// executor frozen. Shrinking stops at its share of a time budget (see [`SHRINK_SHARE`]).
fn minimise(
    opts: &RunOptions,
    schema: &frugal_search::Schema,
    archive: &frugal_search::Archive,
    exec: &mut criteria::DerivingExecutor<'_>,
) -> (Vec<Kept>, Option<emit::shrink::ShrinkReport>) {
    let mut builder = frugal_search::Builder::new(schema);
    builder.params = opts.search.operators.clone();
    exec.freeze();
    let limits = emit::shrink::ShrinkLimits {
        deadline: match opts.search.budget {
            frugal_search::Budget::Time(t) => Some(Instant::now() + t / SHRINK_SHARE),
            frugal_search::Budget::Executions(_) => None,
        },
        max_rounds: emit::shrink::MAX_ROUNDS,
    };
    emit::minimise::minimise(archive, &builder, exec, opts.minimiser, limits)
}

/// What the run learned besides the suite, for the summary.
struct RunFacts {
    krate: String,
    callables: CallableSupport,
    goals: BTreeMap<String, GoalCount>,
    executions: u64,
    stop: frugal_search::StopReason,
    seeding: Option<Seeding>,
    stats: crate::executor::ExecStats,
    uninstrumented: usize,
    times: Timings,
    written: Written,
    model: PathBuf,
    warnings: Vec<String>,
    sandbox: Vec<String>,
    sandbox_fs_confined: bool,
    mutation: Option<MutationScore>,
    survivors: Option<crate::survivors::SurvivorReport>,
    shrinking: Option<emit::shrink::ShrinkReport>,
    goal_info: Vec<criteria::GoalInfo>,
}

/// Phase 7: everything the run reports, as `summary.json` has it.
fn summarise(opts: &RunOptions, facts: RunFacts, suite: &Suite) -> RunSummary {
    let proxies = suite.proxies();
    RunSummary {
        krate: facts.krate,
        algorithm: opts.search.algorithm.name().to_string(),
        archive: opts.search.archive.map(|a| a.name().to_string()),
        minimiser: opts.minimiser.name().to_string(),
        seed: opts.search.seed,
        budget: opts.search.budget.to_string(),
        goals: facts.goals,
        callables: facts.callables,
        executions: facts.executions,
        executions_per_second: facts.executions as f64 / facts.times.search.max(1e-9),
        repeats: facts.stats.repeats,
        crashes: facts.stats.crashes,
        timeouts: facts.stats.timeouts,
        tests_emitted: suite.verified.kept.len(),
        suite_proxies: proxy_sums(&proxies),
        suite_proxy_total: frugal_search::suite_total(&proxies),
        tests_dropped: dropped_tests(&suite.verified.dropped),
        assertions_not_reproducible: suite.verified.loosened.clone(),
        uninstrumented: facts.uninstrumented,
        seconds: facts.times,
        output: facts.written.output,
        model: facts.model,
        written_to_crate: facts.written.into_crate,
        homes_written: facts.written.homes,
        search_stop: facts.stop.as_str().to_string(),
        seeding: facts.seeding,
        tests: suite.test_goals(),
        warnings: facts.warnings,
        sandbox: facts.sandbox,
        sandbox_fs_confined: facts.sandbox_fs_confined,
        measured_cost: None,
        ci_cost: None,
        mutation: facts.mutation,
        survivors: facts.survivors,
        shrinking: facts.shrinking,
        goal_info: facts.goal_info,
    }
}

/// `uncovered.txt`: one line per goal the suite misses, where to look first.
fn uncovered(plan: &Plan, found: &Discovered, covered: &BTreeSet<u32>) -> String {
    let mut text = String::new();
    for g in plan.counted(found).filter(|g| !covered.contains(&g.id)) {
        text.push_str(&format!(
            "{}:{}\t{}\t{}\n",
            g.file,
            g.line,
            criteria::name(g.kind),
            plan.label(g.id, found)
        ));
    }
    text
}

/// Every goal with the label of what was found for it (panic slots).
fn labelled(plan: &Plan, found: &Discovered) -> Vec<criteria::GoalInfo> {
    let mut goals = plan.goals.clone();
    for g in &mut goals {
        g.label = plan.label(g.id, found);
    }
    goals
}

pub(super) fn header(krate: &str, opts: &RunOptions) -> String {
    let placement = match opts.placement {
        Placement::Tests => "",
        Placement::InCrate => " --placement in-crate",
    };
    format!(
        "//! Regression tests for `{krate}`, generated by frugal {} ({} search, seed {}, budget {}).\n\
         //! Every test here compiled and passed twice against the crate when it was generated.\n\
         //! Regenerate with `frugal run <crate> --write{placement}`; edits are overwritten.\n{}",
        env!("CARGO_PKG_VERSION"),
        opts.search.algorithm.name(),
        opts.search.seed,
        opts.search.budget,
        opts.placement.prelude(krate),
    )
}

/// Feature names for the harness's dependency on the crate: the requested ones, or with
/// `all_features` every `[features]` key and every optional dependency not hidden by `dep:`.
fn enabled_features(crate_dir: &Path, a: &AnalyzeOptions) -> Vec<String> {
    if !a.all_features {
        return a.features.iter().cloned().collect();
    }
    let Some(doc) = crate::tree::read_crate_file(crate_dir, Path::new("Cargo.toml"))
        .ok()
        .and_then(|t| t.parse::<toml_edit::DocumentMut>().ok())
    else {
        return Vec::new();
    };
    let text = doc.to_string();
    let mut names: Vec<String> = doc
        .get("features")
        .and_then(|f| f.as_table_like())
        .map(|t| t.iter().map(|(k, _)| k.to_string()).collect())
        .unwrap_or_default();
    if let Some(deps) = doc.get("dependencies").and_then(|d| d.as_table_like()) {
        for (name, dep) in deps.iter() {
            let optional = dep.get("optional").and_then(|o| o.as_bool()) == Some(true);
            let hidden = text.contains(&format!("\"dep:{name}\""));
            if optional && !hidden && !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    names
}

/// `$XDG_CACHE_HOME/frugal/<crate>-<hash of its path>`, so each crate keeps its build cache.
pub fn default_work_dir(crate_dir: &Path, krate: &str) -> PathBuf {
    use sha2::Digest;
    let abs = crate_dir
        .canonicalize()
        .unwrap_or_else(|_| crate_dir.to_path_buf());
    let digest = sha2::Sha256::digest(abs.to_string_lossy().as_bytes());
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    cache_root().join(format!("{krate}-{hex}"))
}

/// Where the default work dirs live: `$XDG_CACHE_HOME/frugal`, else `~/.cache/frugal` (what
/// `frugal gc` cleans).
pub fn cache_root() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("frugal")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory that does not exist, so every write into it fails.
    fn missing() -> PathBuf {
        std::env::temp_dir().join("frugal-pipeline-test-missing/none")
    }

    #[test]
    fn the_summary_lists_each_callable_left_out_with_its_reason_and_detail() {
        let unsupported = |path: &str, reason: &str, detail: &str| crate::model::Unsupported {
            path: path.into(),
            reason: reason.into(),
            detail: detail.into(),
        };
        let model = crate::model::ApiModel {
            unsupported: vec![unsupported("k::raw", "unsafe fn", "unsafe fn raw()")],
            ..Default::default()
        };
        let mut reg = Registry::default();
        reg.dropped.push(unsupported(
            "k::now",
            harness::registry::NONDETERMINISTIC,
            "now",
        ));
        let s = support(&model, &reg);
        assert_eq!((s.supported, s.total), (0, 2));
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["left_out"][0]["path"], "k::raw");
        assert_eq!(json["left_out"][0]["detail"], "unsafe fn raw()");
        assert_eq!(
            json["left_out"][1]["reason"],
            harness::registry::NONDETERMINISTIC
        );
    }

    #[test]
    fn a_failed_dump_is_a_warning_naming_the_file() {
        let mut artifacts = Artifacts::new(missing(), &missing());
        artifacts.dump("goals.json", &[1, 2, 3]);
        assert_eq!(artifacts.warnings.len(), 1);
        assert!(
            artifacts.warnings[0].contains("goals.json"),
            "{:?}",
            artifacts.warnings
        );
    }

    #[test]
    fn a_failed_output_is_an_error_naming_the_file() {
        let artifacts = Artifacts::new(missing(), &missing());
        let err = artifacts
            .output_json("summary.json", &[1, 2, 3])
            .expect_err("the out dir does not exist");
        assert!(err.to_string().contains("summary.json"), "{err}");
        assert!(artifacts.warnings.is_empty());
    }
}
