//! One regeneration job: snapshot the commit, check it with the previous suite
//! (`regression.rs`), run the whole pipeline (analyse, instrument, search, emit, verify),
//! measure the emitted suite (`frugal_profiler::measure_suite`), and store it with per-test
//! figures and per-test goal coverage, with the run's typed summary (`frugal_api::summary`).
//!
//! Owns the use of the job's directories (named by `layout.rs`: the crate's work dir for the
//! snapshot and build caches, the run's output dir), the mapping from engine results to
//! storage records and to the run summary, and the budget arithmetic. Knows nothing of HTTP or of the queue: the runner
//! hands it a claimed job and records how it ended.
//!
//! Decisions:
//! - The pipeline runs on a snapshot of the job's commit (`frugal_scheduler::snapshot`,
//!   which runs nothing the repository's config names), never on the user's work
//!   tree: the suite belongs to a commit, uncommitted edits are not the daemon's business, and
//!   the pipeline may write `tests/frugal_generated.rs` into the snapshot for the profiler.
//! - Goals are interned by `file:line:kind:label`, not by the manifest's dense ids, which shift
//!   whenever a goal is added above another: keys keep goal sets of suites from nearby commits
//!   comparable, which is what the best-suite rule needs. The labels come from the pipeline's
//!   memory (`RunSummary::goal_info`), never from a file in a dir the crate's code can write.
//! - A suite that cannot be profiled (a profiler error) is still stored,
//!   without measured cost: it was verified, and the proxy cost still ranks it.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use frugal_api::summary::{
    BestVerdict, CostBasis, NotProfiled, OwnMutants, PipelineSummary, ProfileDigest, Regressions,
    RunSummary, SUMMARY_VERSION,
};
use frugal_config::{Budget as ConfigBudget, RegressionPolicy};
use frugal_profiler::report::Report;
use frugal_profiler::{Suite, SuiteMeasurement};
use frugal_search::{AlgorithmKind, Budget, Generation, MAX_EXECUTIONS, MAX_TIME, SearchParams};
use frugal_storage::{
    Cost, GoalSet, JobRecord, MutationFigures, NewSuite, NewTest, RepoRecord, RunId, RunProgress,
    Store, StoreOutcome, SuiteRecord,
};
use frugal_subject::analyze::AnalyzeOptions;
use frugal_subject::criteria::GoalInfo;
use frugal_subject::executor::ExecConfig;
use frugal_subject::pipeline::{self, Phase, RunOptions, RunSummary as EngineSummary};
use frugal_subject::suite_model::SuiteModel;

use crate::layout::{self, CrateDirs};
use crate::live::Live;
use crate::regression;

/// What every job shares: resolved settings and where things go.
#[derive(Clone, Debug)]
pub struct JobEnv {
    /// `daemon.state_dir`: work dirs, run outputs and the store live under it.
    pub state_dir: PathBuf,
    /// `search.algorithm`, parsed.
    pub algorithm: AlgorithmKind,
    /// `search.seed`: the search's random seed, the same for every job.
    pub seed: u64,
    /// `search.population`: individuals per generation.
    pub population: usize,
    /// `search.tournament_size`: individuals per tournament of parent selection.
    pub tournament: usize,
    /// `search.goal_selection`, parsed: every goal at once, or smart goal selection.
    pub goal_selection: frugal_search::GoalSelection,
    /// The criteria, with frugal's own mutants as `search.mutants` says.
    pub criteria: frugal_subject::criteria::Criteria,
    /// `search.testability`: observers on std's flag calls.
    pub testability: bool,
    /// The configured budget of one crate, before the job's factor.
    pub budget: ConfigBudget,
    /// Per-repository budgets from the config, by path.
    pub repo_budgets: HashMap<String, ConfigBudget>,
    /// `executor.timeout`: wall-clock limit of one test execution.
    pub exec_timeout: Duration,
    /// `executor.workers`: harness processes per job (0 is taken as 1).
    pub exec_workers: usize,
    /// Repetitions per test when profiling.
    pub profile_repeat: u32,
    /// `sandbox.require`: refuse jobs the host cannot confine.
    pub sandbox_required: bool,
    /// What the host lacks to confine a job's files (`Capabilities::fs_confined` false), as the
    /// capability report words it; `None` when it can.
    pub sandbox_missing: Option<String>,
    /// `[regressions]`: whether jobs check the previous suite first, and what a change does.
    pub regressions: frugal_config::RegressionsConfig,
    /// `search.stall_generations`: a search seeded from the previous suite stops after this
    /// many generations without a new goal.
    pub stall_generations: Option<u32>,
    /// `mutation.survivors`: cargo-mutants runs on the crate's own suite before the search, at
    /// most this long, and the mutants it misses become targets; `None` when off.
    pub own_survivors: Option<Duration>,
    /// `jobs.keep_builds`: a crate's build dirs are kept from one job to the next; otherwise
    /// each job starts from an empty work dir ([`fresh_work_dir`]).
    pub keep_builds: bool,
    /// `jobs.ci_cost`: each job also measures what CI pays for its suite and the crate's own
    /// tests ([`ci_cost`]).
    pub ci_cost: bool,
    /// `jobs.git_hosts`: the hosts a committed git dependency may name ([`crate::deps`]); none
    /// also keeps `$CARGO_HOME/git` from the jobs' confined code (see `runner.rs`).
    pub git_hosts: Vec<String>,
    /// This node's mirrors of repositories registered by URL.
    pub mirrors: frugal_scheduler::Mirrors,
}

impl JobEnv {
    /// Why no registered crate's code may run here: `sandbox.require` on a host that cannot
    /// confine files. Every path that runs it asks first, before any snapshot: a job (its
    /// generation, check and profile) and a replacement.
    pub fn refusal(&self) -> Option<String> {
        let missing = self
            .sandbox_missing
            .as_ref()
            .filter(|_| self.sandbox_required)?;
        Some(format!(
            "refused: this host cannot confine the crate's files ({missing}); frugald runs \
             registered crates' code only when the filesystem is confined (set \
             `sandbox.require = false` to run it unconfined)"
        ))
    }
}

/// How a job that ran to the end went.
#[derive(Debug)]
pub struct Finished {
    /// What storing the new suite did: its id, and whether it became the best.
    pub outcome: StoreOutcome,
    /// The run's summary as stored with the run and served by the API.
    pub summary: RunSummary,
}

/// Scales a configured budget by a job's factor (change-aware budgets), within the search's
/// bounds ([`MAX_TIME`], [`MAX_EXECUTIONS`]) whatever the budget and the factor.
pub fn scaled_budget(b: ConfigBudget, factor: f64) -> Budget {
    let f = if factor.is_finite() && factor > 0.0 {
        factor
    } else {
        1.0
    };
    match b {
        ConfigBudget::Executions(n) => {
            // `as` saturates, and the bound keeps the count far below it.
            let n = (n as f64 * f).round() as u64;
            Budget::Executions(n.clamp(1, MAX_EXECUTIONS))
        }
        ConfigBudget::Time(d) => {
            let d = Duration::try_from_secs_f64(d.as_secs_f64() * f).unwrap_or(MAX_TIME);
            Budget::Time(d.clamp(Duration::from_millis(1), MAX_TIME))
        }
    }
}

/// Directories of one job: its crate's work dir ([`layout::CrateDirs`]) and the run's output
/// dir.
struct Dirs {
    krate: CrateDirs,
    out: PathBuf,
}

/// Every directory the job's processes work in: the crate's work dir (snapshot, builds,
/// check, profile) and the run's output dir. The runner finds a stopped job's processes by them.
pub fn job_dirs(env: &JobEnv, job: &JobRecord, run: RunId) -> Vec<PathBuf> {
    let d = Dirs::new(env, job, run);
    vec![d.krate.base, d.out]
}

/// What a job thread unwinds with when the runner stopped it (`jobs.max_seconds`): the runner
/// has recorded the failure already, so the thread just ends.
#[derive(Debug)]
pub struct Stopped;

/// Why a crate dir (relative to the repository root) is refused before any extraction: it must
/// stay inside the repository.
pub(crate) fn check_crate_dir(dir: &str) -> Result<(), String> {
    let path = Path::new(dir);
    if path.is_absolute() {
        return Err(format!(
            "crate dir `{dir}` is absolute: it must be relative to the repository root"
        ));
    }
    if path
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return Err(format!(
            "crate dir `{dir}` contains `..`: it must stay inside the repository"
        ));
    }
    Ok(())
}

/// `snapshot/dir`, refused when `dir` is absolute, contains `..`, or resolves (symlinks
/// followed) outside the snapshot.
fn crate_dir_in(snapshot: &Path, dir: &str) -> anyhow::Result<PathBuf> {
    check_crate_dir(dir).map_err(anyhow::Error::msg)?;
    let root = snapshot
        .canonicalize()
        .with_context(|| format!("resolve {}", snapshot.display()))?;
    let joined = root.join(dir);
    let real = joined
        .canonicalize()
        .with_context(|| format!("crate dir `{dir}` is not in the commit"))?;
    if !real.starts_with(&root) {
        bail!(
            "crate dir `{dir}` resolves to {} outside the repository snapshot",
            real.display()
        );
    }
    Ok(real)
}

impl Dirs {
    fn new(env: &JobEnv, job: &JobRecord, run: RunId) -> Dirs {
        Dirs {
            krate: CrateDirs::new(&env.state_dir, job.repo, &job.krate),
            out: layout::run_dir(&env.state_dir, run),
        }
    }
}

/// Empties a crate's work dir before its job: the build dirs of the pipeline, the check and
/// the profile, and everything else the last job left. The crate's code of that job (build
/// scripts, proc macros, the harness, tests) could write anywhere in them: an artifact or a
/// fingerprint dated in the future makes cargo take a unit for fresh, so this commit would be
/// built and tested with what the last one planted. Which of their files cargo wrote and which
/// the crate's code did cannot be told apart afterwards, so none is reused
/// (`jobs.keep_builds = true` keeps them where every committer is trusted).
pub fn fresh_work_dir(base: &Path) -> anyhow::Result<()> {
    // A few tries: the processes of a job stopped a moment ago (a daemon killed and restarted)
    // may still be writing there while they die, and a removal then meets a new entry.
    let mut tries = 0;
    loop {
        match std::fs::remove_dir_all(base) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) if tries < 20 => {
                tries += 1;
                tracing::debug!(dir = %base.display(), error = %e, "emptying the work dir again");
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => {
                return Err(e)
                    .with_context(|| format!("empty the crate's work dir {}", base.display()));
            }
            Ok(()) => return Ok(()),
        }
    }
}

/// Runs one claimed job to the end. `abandoned` is checked (and held) around the final writes,
/// so a job the daemon gave up on at shutdown never stores anything afterwards.
pub fn run(
    env: &JobEnv,
    store: &Store,
    live: &Live,
    job: &JobRecord,
    run: RunId,
    abandoned: &Mutex<bool>,
    cancel: &AtomicBool,
) -> anyhow::Result<Option<Finished>> {
    if let Some(refusal) = env.refusal() {
        bail!(refusal);
    }
    let repo = store
        .repo(job.repo)?
        .with_context(|| format!("repository {} is no longer registered", job.repo))?;
    let commit = job
        .commit
        .clone()
        .context("the job has no commit (the scheduler always resolves one)")?;
    let krate = repo
        .crates
        .iter()
        .find(|c| c.name == job.krate)
        .with_context(|| {
            format!(
                "crate `{}` is not registered in repository {}",
                job.krate, repo.id
            )
        })?
        .clone();
    let dirs = Dirs::new(env, job, run);
    if !env.keep_builds {
        fresh_work_dir(&dirs.krate.base)?;
    }
    set_phase(store, live, run, "snapshot");
    let git_dir = env.mirrors.git_dir(&repo.path)?;
    frugal_scheduler::snapshot(&git_dir, &commit, &dirs.krate.snapshot)?;
    // Before any cargo command: cargo fetches and reads what the manifests name unconfined.
    crate::deps::check_snapshot(&dirs.krate.snapshot, &env.git_hosts)
        .map_err(anyhow::Error::msg)?;
    let crate_dir = crate_dir_in(&dirs.krate.snapshot, &krate.dir)?;
    if cancel.load(Ordering::SeqCst) {
        return Ok(None);
    }
    let policy = env.regressions.policy;
    let mut check = None;
    let previous = if env.regressions.check {
        set_phase(store, live, run, "check");
        let (rec, previous) = regression::check(
            store,
            &repo,
            job,
            &commit,
            regression::CheckPaths {
                git_dir: &git_dir,
                crate_dir: &crate_dir,
                work: &dirs.krate.check,
            },
            policy,
        )
        .with_context(|| format!("check `{}` at {commit}", job.krate))?;
        check = Some(rec);
        previous
    } else {
        regression::baseline(store, &git_dir, &repo, &job.krate, &commit, policy)?
    };
    if cancel.load(Ordering::SeqCst) {
        return Ok(None);
    }
    let hold = policy == RegressionPolicy::Hold && check.as_ref().is_some_and(|r| r.changed > 0);
    let mut opts = run_options(env, &repo, job, &crate_dir, &dirs);
    seed_from(&mut opts, previous.as_ref(), env.stall_generations);
    let own_mutants = env.own_survivors.map(|limit| {
        set_phase(store, live, run, "survivors");
        aim_at_own_survivors(&mut opts, env, &dirs.krate, limit)
    });
    if cancel.load(Ordering::SeqCst) {
        return Ok(None);
    }
    let mut progress = JobProgress::new(store, live, run, cancel);
    let summary = pipeline::run(&opts, &mut progress)
        .with_context(|| format!("generate a suite for `{}` at {commit}", job.krate))?;
    // Before anything is stored: a summary the API cannot carry fails the job, not its answer.
    let mut pipeline = pipeline_summary(&summary)?;
    set_phase(store, live, run, "profile");
    let profile = profile_suite(env, &crate_dir, &dirs.krate);
    if env.ci_cost {
        set_phase(store, live, run, "ci-cost");
        pipeline.ci_cost = Some(ci_cost(env, &crate_dir, &dirs.krate));
    }
    set_phase(store, live, run, "store");
    let source = std::fs::read_to_string(&summary.output)
        .with_context(|| format!("read the emitted suite {}", summary.output.display()))?;
    // From the pipeline's memory, never from `goals.json` in the work dir: the crate's code
    // (harness, verification, survivors) can write there, and the keys decide the best suite.
    let keys = goal_keys(&summary.goal_info);
    let guard = abandoned.lock().unwrap_or_else(|e| e.into_inner());
    if *guard {
        return Ok(None);
    }
    if store.repo(job.repo)?.is_none() {
        bail!("repository {} was removed while the job ran", job.repo);
    }
    let mut new = new_suite(
        store,
        job,
        &summary,
        source,
        &keys,
        profile.as_ref().ok(),
        run,
    )?;
    new.hold = hold;
    // The model lets the next job start from these tests; a suite without one still stores.
    new.model = std::fs::read_to_string(&summary.model).ok();
    let outcome = store.store_suite_for_job(job.id, new)?;
    if let Some(rec) = &mut check {
        regression::attach_suite(store, rec, outcome.suite, hold)?;
    }
    let regressions = check.as_ref().map(|r| Regressions {
        changed: r.changed,
        baseline_commit: r.baseline_commit.clone(),
        baseline_suite: r.baseline.map(|s| s.0),
        note: r.note.clone(),
        held: hold,
    });
    let summary = RunSummary {
        version: SUMMARY_VERSION,
        pipeline,
        profile: Some(profile_digest(&profile)),
        best: Some(BestVerdict {
            replaced: outcome.replaced_best,
            reason: outcome.reason.to_string(),
            previous: outcome.previous_best.map(|s| s.0),
        }),
        outputs: Some(dirs.out.clone()),
        regressions,
        own_mutants,
        survivors: None,
        extra: Default::default(),
    };
    if let Ok(r) = &profile {
        let _ = std::fs::write(
            dirs.out.join("profile.json"),
            serde_json::to_string_pretty(r).unwrap_or_default(),
        );
    }
    Ok(Some(Finished { outcome, summary }))
}

fn run_options(
    env: &JobEnv,
    repo: &RepoRecord,
    job: &JobRecord,
    crate_dir: &Path,
    dirs: &Dirs,
) -> RunOptions {
    let base = env
        .repo_budgets
        .get(&repo.path)
        .copied()
        .unwrap_or(env.budget);
    RunOptions {
        crate_dir: crate_dir.to_path_buf(),
        out_dir: dirs.out.clone(),
        // Into the snapshot, which is ours: the profiler measures `tests/frugal_generated.rs`.
        write: true,
        search: SearchParams {
            algorithm: env.algorithm,
            seed: env.seed,
            budget: scaled_budget(base, job.budget_factor),
            population: env.population,
            tournament: env.tournament,
            ..SearchParams::default()
        },
        exec: ExecConfig {
            workers: env.exec_workers.max(1),
            timeout: env.exec_timeout,
            ..ExecConfig::default()
        },
        work_dir: Some(dirs.krate.pipeline.clone()),
        analyze: AnalyzeOptions::default(),
        criteria: env.criteria.clone(),
        goal_selection: env.goal_selection,
        placement: Default::default(),
        unconfined: false,
        seed_model: None,
        testability: env.testability,
        survivors: Vec::new(),
        minimiser: Default::default(),
    }
}

/// Seeds the search with the previous suite's tests (its stored model) and lets it stop once it
/// stalls: an incremental regeneration. Without a previous suite, or with a model this frugal
/// cannot read (logged), the search starts from scratch with its whole budget.
fn seed_from(opts: &mut RunOptions, previous: Option<&SuiteRecord>, stall: Option<u32>) {
    let Some((suite, text)) = previous.and_then(|s| Some((s, s.model.as_deref()?))) else {
        return;
    };
    match SuiteModel::from_json(text, &format!("the model of suite {}", suite.id)) {
        Ok(model) => {
            opts.seed_model = Some(model);
            opts.search.stall_generations = stall;
        }
        Err(e) => tracing::warn!(suite = %suite.id, error = %e, "searching from scratch"),
    }
}

/// `mutation.survivors`: runs cargo-mutants on the crate's own suite in the snapshot (confined
/// like the pipeline's processes, in a scratch dir of its own) and makes the mutants it misses
/// the search's targets, with strong-mutation goals. Where that fails (cargo-mutants missing,
/// its time bound, a crate whose own tests fail) the job goes on without them; the returned
/// digest, stored in the run's summary, says which.
fn aim_at_own_survivors(
    opts: &mut RunOptions,
    env: &JobEnv,
    dirs: &CrateDirs,
    limit: Duration,
) -> OwnMutants {
    let started = Instant::now();
    let scratch = &dirs.own_mutants;
    // A fresh scratch per job: cargo-mutants' copy and output are the job's own.
    let _ = std::fs::remove_dir_all(scratch);
    let found = frugal_sandbox::Policy::for_job(
        scratch.join("job"),
        &dirs.own_mutants_target,
        &dirs.snapshot,
    )
    .map_err(|e| e.to_string())
    .and_then(|policy| {
        let run = frugal_subject::own_mutants::OwnMutantsRun {
            crate_dir: &opts.crate_dir,
            scratch,
            target_dir: &dirs.own_mutants_target,
            policy: policy.require_fs_confinement(env.sandbox_required),
            timeout: limit,
        };
        frugal_subject::own_mutants::own_survivors(&run).map_err(|e| e.to_string())
    });
    let seconds = (started.elapsed().as_secs_f64() * 10.0).round() / 10.0;
    match found {
        Ok(survivors) => {
            let n = survivors.len();
            opts.survivors = survivors;
            opts.criteria
                .0
                .insert(frugal_search::GoalKind::StrongMutation);
            OwnMutants {
                survivors: Some(n as u64),
                error: None,
                seconds,
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, "searching without the own suite's survivors");
            OwnMutants {
                survivors: None,
                error: Some(e),
                seconds,
            }
        }
    }
}

/// Profiles the generated suite in the snapshot (`frugal_profiler::measure_suite`, the
/// measurement `frugal run` makes too); an error says why there is no measured cost.
///
/// Confined like the pipeline's processes: the snapshot (the tests write there), the profile's
/// target dir and a private scratch dir writable; nothing else of the state dir is reachable.
fn profile_suite(env: &JobEnv, crate_dir: &Path, dirs: &CrateDirs) -> anyhow::Result<Report> {
    std::fs::create_dir_all(&dirs.profile_target)
        .with_context(|| format!("create {}", dirs.profile_target.display()))?;
    let policy =
        frugal_sandbox::Policy::for_job(&dirs.profile_job, &dirs.profile_target, &dirs.snapshot)
            .context("prepare the profile's sandbox")?;
    let measurement = SuiteMeasurement {
        crate_dir: crate_dir.to_path_buf(),
        target_dir: dirs.profile_target.clone(),
        repeat: env.profile_repeat,
        cargo_args: Vec::new(),
        sandbox: policy.require_fs_confinement(env.sandbox_required),
    };
    frugal_profiler::measure_suite(&measurement).map_err(|e| {
        tracing::warn!(error = %e, "storing the suite without measured cost: profiling failed");
        anyhow::Error::from(e).context("profile the generated suite")
    })
}

/// What CI pays for the generated suite in the snapshot and for the crate's own tests
/// (`jobs.ci_cost`), each on its own copy (the incremental build changes a line of it),
/// confined as the profile is; a side that cannot be measured says why in the notes.
fn ci_cost(env: &JobEnv, crate_dir: &Path, dirs: &CrateDirs) -> frugal_api::summary::CiCostReport {
    let started = std::time::Instant::now();
    let mut report = frugal_api::summary::CiCostReport::default();
    for (suite, name) in [(Suite::Generated, "generated"), (Suite::Existing, "own")] {
        match ci_cost_of(env, crate_dir, &dirs.ci_cost.join(name), suite) {
            Ok(cost) if suite == Suite::Generated => report.generated = Some(cost),
            Ok(cost) => report.own = Some(cost),
            Err(e) => {
                tracing::warn!(error = %format!("{e:#}"), suite = name, "no CI cost");
                report
                    .notes
                    .push(format!("{name} tests not measured: {e:#}"));
            }
        }
    }
    // Two target dirs with the dependencies built: not kept for the next job.
    let _ = std::fs::remove_dir_all(&dirs.ci_cost);
    report.seconds = (started.elapsed().as_secs_f64() * 10.0).round() / 10.0;
    report
}

fn ci_cost_of(
    env: &JobEnv,
    crate_dir: &Path,
    dir: &Path,
    suite: Suite,
) -> anyhow::Result<frugal_api::summary::CiCost> {
    let (copy, target, scratch) = (dir.join("crate"), dir.join("target"), dir.join("job"));
    let _ = std::fs::remove_dir_all(dir);
    frugal_subject::instrument::standalone_copy(crate_dir, &copy)
        .with_context(|| format!("copy {}", crate_dir.display()))?;
    for d in [&target, &scratch] {
        std::fs::create_dir_all(d).with_context(|| format!("create {}", d.display()))?;
    }
    let policy = frugal_sandbox::Policy::for_job(&scratch, &target, &copy)
        .context("prepare the CI cost's sandbox")?;
    let cost = frugal_profiler::measure_ci_cost(&frugal_profiler::CiCostConfig {
        crate_dir: copy,
        suite,
        target_dir: target,
        cargo_args: Vec::new(),
        runs: env.profile_repeat.clamp(1, 3),
        sandbox: Some(policy.require_fs_confinement(env.sandbox_required)),
        // Jobs place their suite in `tests/`: its own target, no names to tell apart.
        names: Default::default(),
    })?;
    // The profiler's figures in the API's shape, field for field.
    Ok(serde_json::from_value(serde_json::to_value(cost)?)?)
}

fn profile_digest(p: &anyhow::Result<Report>) -> ProfileDigest {
    match p {
        Ok(r) => ProfileDigest::Measured {
            cost_basis: CostBasis {
                metric: r.cost_basis.metric.name(),
                source: r.cost_basis.source.name(),
            },
            hardware_unavailable: r.hardware_unavailable.clone(),
            tests: r.tests.len() as u64,
            not_profiled: r
                .not_profiled
                .iter()
                .map(|n| NotProfiled {
                    binary: n.binary.clone(),
                    name: n.name.clone(),
                    reason: n.reason.clone(),
                })
                .collect(),
            notes: r.notes.clone(),
        },
        Err(e) => ProfileDigest::Failed {
            error: format!("{e:#}"),
        },
    }
}

/// The engine's summary as the API's: through its JSON, the engine's one serialised form, so a
/// field the engine adds reaches the API (kept in `extra`) without this crate changing.
fn pipeline_summary(summary: &EngineSummary) -> anyhow::Result<PipelineSummary> {
    serde_json::to_value(summary)
        .and_then(serde_json::from_value)
        .context("read the pipeline's summary as the API's run summary")
}

/// A stable key of every goal by id: `file:line:kind:label`, with `#n` appended for the n-th
/// repeat of the same key (two `if`s on one line). Derived goals (input, output, panic, ...)
/// carry the callable in their label, so they stay stable across commits too.
fn goal_keys(goals: &[GoalInfo]) -> Vec<String> {
    let mut keys = vec![String::new(); goals.len()];
    let mut seen: HashMap<String, usize> = HashMap::new();
    for g in goals {
        let base = format!(
            "{}:{}:{}:{}",
            g.file,
            g.line,
            frugal_subject::criteria::name(g.kind),
            g.label
        );
        let n = seen.entry(base.clone()).or_default();
        let key = if *n == 0 { base } else { format!("{base}#{n}") };
        *n += 1;
        if let Some(k) = keys.get_mut(g.id as usize) {
            *k = key;
        }
    }
    keys
}

fn key_of(keys: &[String], id: u32) -> String {
    match keys.get(id as usize) {
        Some(k) if !k.is_empty() => k.clone(),
        _ => format!("goal#{id}"),
    }
}

/// Basis name of a cost: `metric/source` in the report's kebab-case names.
fn basis(r: &Report) -> String {
    format!(
        "{}/{}",
        r.cost_basis.metric.name(),
        r.cost_basis.source.name()
    )
}

/// Measured cost of one test on the report's basis ([`frugal_profiler::report::TestReport::cost`]).
fn test_cost(r: &Report, name: &str) -> Option<Cost> {
    let t = r
        .tests
        .iter()
        .find(|t| t.name == name || t.name.ends_with(&format!("::{name}")))?;
    Some(Cost::new(basis(r), t.cost(r.cost_basis)?))
}

fn new_suite(
    store: &Store,
    job: &JobRecord,
    summary: &EngineSummary,
    source: String,
    keys: &[String],
    profile: Option<&Report>,
    run: RunId,
) -> anyhow::Result<NewSuite> {
    let mut all_ids: Vec<u32> = summary
        .tests
        .iter()
        .flat_map(|t| t.goals.iter().copied())
        .collect();
    all_ids.sort_unstable();
    all_ids.dedup();
    let all_keys: Vec<String> = all_ids.iter().map(|id| key_of(keys, *id)).collect();
    let refs: Vec<&str> = all_keys.iter().map(String::as_str).collect();
    let interned = store.intern_goals(job.repo, &job.krate, &refs)?;
    let map: BTreeMap<u32, u32> = all_ids.iter().copied().zip(interned).collect();
    let tests: Vec<NewTest> = summary
        .tests
        .iter()
        .map(|t| NewTest {
            name: t.name.clone(),
            goals: t
                .goals
                .iter()
                .filter_map(|g| map.get(g).copied())
                .collect::<GoalSet>(),
            cost: profile.and_then(|r| test_cost(r, &t.name)),
            proxies: t
                .proxies
                .iter()
                .map(|(k, v)| (k.clone(), *v as f64))
                .collect(),
        })
        .collect();
    let total_cost = match profile {
        Some(r) if !tests.is_empty() && tests.iter().all(|t| t.cost.is_some()) => Some(Cost::new(
            basis(r),
            tests
                .iter()
                .filter_map(|t| t.cost.as_ref())
                .map(|c| c.value)
                .sum(),
        )),
        _ => None,
    };
    let goals_total = summary.goals.values().map(|g| g.total as u32).sum();
    Ok(NewSuite {
        repo: job.repo,
        krate: job.krate.clone(),
        commit: job.commit.clone(),
        source,
        goals_total,
        total_cost,
        // aDynaMOSA's estimate ([adynamosa]; sum of the proxies I1..I7 over the tests): ranks suites covering
        // the same goals when they have no comparable measured cost.
        proxy_cost: summary.suite_proxy_total as f64,
        tests,
        run: Some(run),
        model: None,
        hold: false,
        mutation: summary.mutation.as_ref().map(|m| MutationFigures {
            mutants: m.mutants as u32,
            killed: m.killed as u32,
            survived: m.survived as u32,
            not_infected: m.not_infected as u32,
        }),
    })
}

fn set_phase(store: &Store, live: &Live, run: RunId, phase: &str) {
    live.update(run, |l| l.progress.phase = phase.to_string());
    let p = RunProgress {
        phase: phase.to_string(),
        ..RunProgress::default()
    };
    if let Err(e) = store.update_run_progress(run, p) {
        tracing::warn!(error = %e, run = %run, "could not record progress");
    }
}

/// Pipeline progress into the live map (every generation) and the store (at most once a second).
struct JobProgress<'a> {
    store: &'a Store,
    live: &'a Live,
    run: RunId,
    last_stored: Instant,
    phase: String,
    cancel: &'a AtomicBool,
}

impl<'a> JobProgress<'a> {
    fn new(store: &'a Store, live: &'a Live, run: RunId, cancel: &'a AtomicBool) -> Self {
        JobProgress {
            store,
            live,
            run,
            last_stored: Instant::now(),
            phase: String::new(),
            cancel,
        }
    }

    /// Unwinds out of the pipeline once the runner stopped the job: dropping the pipeline's
    /// state kills its harness processes, and nothing after this point runs. `resume_unwind`
    /// skips the panic hook: this is no bug to report.
    fn stop_if_cancelled(&self) {
        if self.cancel.load(Ordering::SeqCst) {
            std::panic::resume_unwind(Box::new(Stopped));
        }
    }
}

impl pipeline::Progress for JobProgress<'_> {
    fn phase(&mut self, phase: Phase) {
        self.stop_if_cancelled();
        self.phase = phase.as_str().to_string();
        set_phase(self.store, self.live, self.run, &self.phase);
        self.last_stored = Instant::now();
    }

    fn generation(&mut self, g: &Generation) {
        self.stop_if_cancelled();
        self.live.update(self.run, |l| {
            let p = &mut l.progress;
            p.generation = g.number;
            p.executions = g.executions;
            p.covered = g.covered as u32;
            p.goals = g.goals as u32;
            p.search_fraction = g.progress;
        });
        if self.last_stored.elapsed() >= Duration::from_secs(1) {
            self.last_stored = Instant::now();
            let p = RunProgress {
                phase: self.phase.clone(),
                executions: g.executions,
                covered: g.covered as u32,
                goals: g.goals as u32,
            };
            let _ = self.store.update_run_progress(self.run, p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_scale_by_the_job_factor() {
        assert_eq!(
            scaled_budget(ConfigBudget::Executions(3000), 1.5),
            Budget::Executions(4500)
        );
        assert_eq!(
            scaled_budget(ConfigBudget::Executions(1), 0.1),
            Budget::Executions(1)
        );
        assert_eq!(
            scaled_budget(ConfigBudget::Time(Duration::from_secs(60)), 0.5),
            Budget::Time(Duration::from_secs(30))
        );
        assert_eq!(
            scaled_budget(ConfigBudget::Executions(10), f64::NAN),
            Budget::Executions(10)
        );
    }

    #[test]
    fn huge_budgets_and_factors_stay_bounded_without_overflow() {
        let day = Duration::from_secs(24 * 3600);
        assert_eq!(
            scaled_budget(ConfigBudget::Time(Duration::from_secs(u64::MAX)), 3.0),
            Budget::Time(day)
        );
        assert_eq!(
            scaled_budget(ConfigBudget::Time(Duration::MAX), f64::MAX),
            Budget::Time(day)
        );
        assert_eq!(
            scaled_budget(ConfigBudget::Executions(u64::MAX), 3.0),
            Budget::Executions(1_000_000_000_000)
        );
        assert_eq!(
            scaled_budget(ConfigBudget::Time(Duration::from_secs(60)), f64::INFINITY),
            Budget::Time(Duration::from_secs(60))
        );
        // The config's bounds are the search's.
        assert_eq!(frugal_config::MAX_BUDGET_TIME, MAX_TIME);
        assert_eq!(frugal_config::MAX_BUDGET_EXECUTIONS, MAX_EXECUTIONS);
    }

    #[test]
    fn goal_keys_come_from_the_goal_list_with_repeats_numbered() {
        let goal = |id, line| GoalInfo {
            id,
            kind: frugal_search::GoalKind::Branch,
            parent: None,
            file: "src/lib.rs".into(),
            line,
            label: "if true".into(),
            manifest: None,
        };
        let keys = goal_keys(&[goal(0, 3), goal(2, 3), goal(1, 5)]);
        assert_eq!(
            keys,
            [
                "src/lib.rs:3:branch:if true",
                "src/lib.rs:5:branch:if true",
                "src/lib.rs:3:branch:if true#1",
            ]
        );
    }

    #[test]
    fn unknown_goal_ids_get_a_stable_fallback_key() {
        let keys = vec!["src/lib.rs:3:if true".to_string()];
        assert_eq!(key_of(&keys, 0), "src/lib.rs:3:if true");
        assert_eq!(key_of(&keys, 7), "goal#7");
    }
}
