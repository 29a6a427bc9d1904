//! One run over one crate: analyse, instrument, build the harness, search, minimise, emit and
//! verify. `frugal run` and the daemon's regeneration jobs both call [`run`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use frugal_search::{Generation, Observer, SearchParams, run_search};
use serde::Serialize;

use crate::analyze::{self, AnalyzeOptions};
use crate::criteria::{self, Criteria, Discovered, Plan};
use crate::emit::{self, Placement, verify};
use crate::executor::{ExecConfig, ExecutorPool};
use crate::harness::{self, registry::Registry};
use crate::instrument;

/// What to run and where to put the result.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub crate_dir: PathBuf,
    /// Directory for `frugal_generated.rs` and `summary.json`.
    pub out_dir: PathBuf,
    /// Also write the suite to `tests/frugal_generated.rs` in the crate.
    pub write: bool,
    pub search: SearchParams,
    pub exec: ExecConfig,
    /// Scratch space (instrumented copy, harness, build cache); defaults to the user cache.
    pub work_dir: Option<PathBuf>,
    pub analyze: AnalyzeOptions,
    /// Coverage criteria to search for (default: all).
    pub criteria: Criteria,
    /// Which of their goals the search pursues (smart selection defers subsumed line goals).
    pub goal_selection: frugal_search::GoalSelection,
    /// Where the suite goes: an integration test, or a module inside the crate. In-crate
    /// placement also analyses with [`AnalyzeOptions::in_crate`], whatever that field says.
    pub placement: Placement,
}

/// Phases a run goes through, for progress displays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Phase {
    Analyse,
    Instrument,
    BuildHarness,
    Search,
    Minimise,
    Verify,
}

/// Receives progress of a run.
pub trait Progress {
    fn phase(&mut self, phase: Phase);
    fn generation(&mut self, g: &Generation);
}

struct SearchObserver<'a>(&'a mut dyn Progress);

impl Observer for SearchObserver<'_> {
    fn generation(&mut self, g: &Generation) {
        self.0.generation(g);
    }
}

/// Covered and total goals of one kind.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GoalCount {
    pub covered: usize,
    pub total: usize,
}

/// The share of public callables the harness drives, and why the rest are left out.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CallableSupport {
    pub supported: usize,
    pub total: usize,
    /// Reason -> number of callables.
    pub reasons: BTreeMap<String, usize>,
}

/// Everything a run reports.
#[derive(Debug, Clone, Serialize)]
pub struct RunSummary {
    pub krate: String,
    pub algorithm: String,
    pub seed: u64,
    pub budget: String,
    pub goals: BTreeMap<String, GoalCount>,
    /// Goals covered by the emitted suite (after minimisation), by kind.
    pub callables: CallableSupport,
    pub executions: u64,
    pub executions_per_second: f64,
    pub crashes: u64,
    pub timeouts: u64,
    pub tests_emitted: usize,
    /// Sums over the emitted tests of the proxies I1..I7 (loop cycles, covered calls, test
    /// calls, allocations, covered statements, test statements, test length).
    pub suite_proxies: [u64; 7],
    /// The sum of `suite_proxies`: the estimated cost aDynaMOSA minimises (\[adynamosa\]).
    pub suite_proxy_total: u64,
    pub tests_dropped: Vec<DroppedTest>,
    pub uninstrumented: usize,
    pub seconds: Timings,
    pub output: PathBuf,
    pub written_to_crate: Option<PathBuf>,
    /// Goals each emitted test covers, in the suite's order (ids index `goals.json` in the work
    /// dir): the daemon stores them per test.
    pub tests: Vec<TestGoals>,
}

/// The goals one emitted test covers.
#[derive(Debug, Clone, Serialize)]
pub struct TestGoals {
    pub name: String,
    pub goals: Vec<u32>,
    /// The test's performance proxies I1..I7, by name.
    pub proxies: BTreeMap<String, u64>,
}

/// Names of the proxies I1..I7, in order.
pub const PROXY_NAMES: [&str; 7] = [
    "loop_cycles",
    "covered_calls",
    "test_calls",
    "allocations",
    "covered_statements",
    "test_statements",
    "test_length",
];

/// A test verification dropped.
#[derive(Debug, Clone, Serialize)]
pub struct DroppedTest {
    pub name: String,
    pub reason: String,
}

/// Wall time per phase, in seconds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timings {
    pub analyse: f64,
    pub instrument: f64,
    pub build_harness: f64,
    pub search: f64,
    pub minimise: f64,
    pub verify: f64,
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Analyze(#[from] analyze::AnalyzeError),
    #[error(transparent)]
    Instrument(#[from] instrument::InstrumentError),
    #[error(transparent)]
    Harness(#[from] harness::HarnessError),
    #[error(transparent)]
    Verify(#[from] verify::VerifyError),
    #[error("failed to write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{krate} has no public callable the harness can drive ({reasons})")]
    NothingToCall { krate: String, reasons: String },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Runs the whole pipeline on one crate.
pub fn run(opts: &RunOptions, progress: &mut dyn Progress) -> Result<RunSummary, RunError> {
    let mut times = Timings::default();
    progress.phase(Phase::Analyse);
    let t = Instant::now();
    let mut analyze_opts = opts.analyze.clone();
    analyze_opts.in_crate |= opts.placement == Placement::InCrate;
    let model = analyze::analyze(&opts.crate_dir, &analyze_opts)?;
    let cargo_args = cargo_feature_args(&opts.analyze);
    times.analyse = t.elapsed().as_secs_f64();

    let work = opts
        .work_dir
        .clone()
        .unwrap_or_else(|| default_work_dir(&opts.crate_dir, &model.crate_name));
    std::fs::create_dir_all(&work).map_err(io(&work))?;
    let work = work.canonicalize().map_err(io(&work))?;
    progress.phase(Phase::Instrument);
    let t = Instant::now();
    let target = work.join("target");
    let inst = instrument::instrument_and_build(
        &opts.crate_dir,
        &work,
        &target,
        &instrument::Options {
            cargo_args: cargo_args.clone(),
            mutants: opts.criteria.mutants(),
            ..instrument::Options::default()
        },
    )?;
    times.instrument = t.elapsed().as_secs_f64();

    progress.phase(Phase::BuildHarness);
    let t = Instant::now();
    let registry = Registry::build(&model);
    let probe = work.join("frugal-probe");
    let features = enabled_features(&opts.crate_dir, &opts.analyze);
    let harness = harness::build_with_features(
        &work,
        &inst.root,
        &probe,
        &model,
        &inst.manifest,
        registry,
        &features,
    )?;
    times.build_harness = t.elapsed().as_secs_f64();
    let callables = support(&model, &harness.registry);
    let schema = harness.registry.schema(&model);
    if schema.calls().is_empty() {
        let reasons = callables
            .reasons
            .iter()
            .map(|(r, n)| format!("{n}× {r}"))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(RunError::NothingToCall {
            krate: model.crate_name.clone(),
            reasons,
        });
    }
    let plan = Plan::new(&model, &harness.registry, &inst.manifest, &opts.criteria);
    let goals = match opts.goal_selection {
        frugal_search::GoalSelection::All => plan.search_goals(),
        frugal_search::GoalSelection::Smart => {
            plan.search_goals().with_deferred(plan.smart_deferred())
        }
    };
    // Kept for whoever wonders what the engine saw; cheap next to the build.
    let _ = std::fs::write(
        work.join("model.json"),
        serde_json::to_string_pretty(&model).unwrap_or_default(),
    );
    // Every callable left out, with the detail behind its reason (the summary only counts).
    let left_out: Vec<&crate::model::Unsupported> = model
        .unsupported
        .iter()
        .chain(&harness.registry.dropped)
        .collect();
    let _ = std::fs::write(
        work.join("unsupported.json"),
        serde_json::to_string_pretty(&left_out).unwrap_or_default(),
    );
    let _ = std::fs::write(
        work.join("manifest.json"),
        serde_json::to_string_pretty(&inst.manifest).unwrap_or_default(),
    );

    progress.phase(Phase::Search);
    let t = Instant::now();
    // Tests run inside the instrumented copy, as verification runs them inside its clean copy:
    // relative paths mean the same crate directory, and files the code writes stay in scratch.
    let mut exec_config = opts.exec.clone();
    exec_config.cwd.get_or_insert_with(|| inst.root.clone());
    let mut pool = ExecutorPool::new(harness.binary.clone(), exec_config);
    // Everything runs through `Derive`, so archive and minimiser see the derived goals too.
    let mut exec = criteria::Derive::new(&mut pool, &plan);
    let (archive, executions) = run_search(
        &schema,
        &goals,
        &mut exec,
        &opts.search,
        &mut SearchObserver(progress),
    );
    let search_secs = t.elapsed().as_secs_f64();
    times.search = search_secs;

    progress.phase(Phase::Minimise);
    let t = Instant::now();
    let mut builder = frugal_search::Builder::new(&schema);
    builder.params = opts.search.operators.clone();
    exec.freeze();
    let kept = emit::minimise::minimise(&archive, &builder, &mut exec);
    let found = exec.discovered().clone();
    drop(exec);
    times.minimise = t.elapsed().as_secs_f64();
    // Goal ids in `tests` and `uncovered.txt` are these, not the manifest's (they agree on
    // manifest goals when every criterion is on).
    let _ = std::fs::write(
        work.join("goals.json"),
        serde_json::to_string_pretty(&labelled(&plan, &found)).unwrap_or_default(),
    );
    let stats = pool.stats.clone();
    drop(pool);

    progress.phase(Phase::Verify);
    let t = Instant::now();
    let header = header(&model.crate_name, opts);
    let (_, rendered) = emit::file(&kept, &harness.registry, &model, &header);
    let proxies_by_name: BTreeMap<String, frugal_search::Proxies> = rendered
        .iter()
        .zip(&kept)
        .map(|(r, k)| {
            (
                r.name.clone(),
                frugal_search::proxies(&k.test, &k.result, &schema),
            )
        })
        .collect();
    let goals_by_name: BTreeMap<String, Vec<u32>> = rendered
        .iter()
        .zip(&kept)
        .map(|(r, k)| (r.name.clone(), k.result.covered().collect()))
        .collect();
    let verify_opts = verify::VerifyOptions {
        placement: opts.placement,
        cargo_args,
    };
    let verified = verify::verify(&opts.crate_dir, &work, &header, rendered, &verify_opts)?;
    times.verify = t.elapsed().as_secs_f64();

    std::fs::create_dir_all(&opts.out_dir).map_err(io(&opts.out_dir))?;
    let output = opts.out_dir.join(format!("{}.rs", verify::TEST_TARGET));
    std::fs::write(&output, &verified.text).map_err(io(&output))?;
    let dropped = opts.out_dir.join("dropped.rs");
    std::fs::write(&dropped, &verified.dropped_text).map_err(io(&dropped))?;
    let written_to_crate = if opts.write {
        Some(verify::write_into(
            &opts.crate_dir,
            opts.placement,
            &verified.text,
        )?)
    } else {
        None
    };

    let covered: std::collections::BTreeSet<u32> = verified
        .kept
        .iter()
        .filter_map(|n| goals_by_name.get(n))
        .flatten()
        .copied()
        .collect();
    write_uncovered(&opts.out_dir, &plan, &found, &covered)?;
    let suite_proxies: Vec<frugal_search::Proxies> = verified
        .kept
        .iter()
        .filter_map(|n| proxies_by_name.get(n))
        .copied()
        .collect();
    let mut proxy_sums = [0u64; 7];
    for p in &suite_proxies {
        for (sum, v) in proxy_sums.iter_mut().zip(p.values()) {
            *sum += v;
        }
    }
    let summary = RunSummary {
        krate: model.crate_name.clone(),
        algorithm: opts.search.algorithm.name().to_string(),
        seed: opts.search.seed,
        budget: opts.search.budget.to_string(),
        goals: goal_counts(&plan, &opts.criteria, &found, &covered),
        callables,
        executions,
        executions_per_second: executions as f64 / search_secs.max(1e-9),
        crashes: stats.crashes,
        timeouts: stats.timeouts,
        tests_emitted: verified.kept.len(),
        suite_proxies: proxy_sums,
        suite_proxy_total: frugal_search::suite_total(&suite_proxies),
        tests_dropped: verified
            .dropped
            .iter()
            .map(|(n, r)| DroppedTest {
                name: n.clone(),
                reason: r.clone(),
            })
            .collect(),
        uninstrumented: inst.manifest.skipped.len(),
        seconds: times,
        output,
        written_to_crate,
        tests: verified
            .kept
            .iter()
            .map(|n| TestGoals {
                name: n.clone(),
                goals: goals_by_name.get(n).cloned().unwrap_or_default(),
                proxies: proxies_by_name
                    .get(n)
                    .map(|p| {
                        PROXY_NAMES
                            .iter()
                            .map(|k| k.to_string())
                            .zip(p.values())
                            .collect()
                    })
                    .unwrap_or_default(),
            })
            .collect(),
    };
    let json = opts.out_dir.join("summary.json");
    let text = serde_json::to_string_pretty(&summary).unwrap_or_default();
    std::fs::write(&json, text).map_err(io(&json))?;
    Ok(summary)
}

/// `uncovered.txt`: one line per goal the suite misses, where to look first.
fn write_uncovered(
    out: &Path,
    plan: &Plan,
    found: &Discovered,
    covered: &std::collections::BTreeSet<u32>,
) -> Result<(), RunError> {
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
    let path = out.join("uncovered.txt");
    std::fs::write(&path, text).map_err(io(&path))
}

/// Every goal with the label of what was found for it (panic slots).
fn labelled(plan: &Plan, found: &Discovered) -> Vec<criteria::GoalInfo> {
    let mut goals = plan.goals.clone();
    for g in &mut goals {
        g.label = plan.label(g.id, found);
    }
    goals
}

fn header(krate: &str, opts: &RunOptions) -> String {
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

/// `cargo build`/`cargo test` flags for the features analysis treats as enabled.
fn cargo_feature_args(a: &AnalyzeOptions) -> Vec<String> {
    let mut args = Vec::new();
    if a.all_features {
        args.push("--all-features".to_string());
    } else if !a.features.is_empty() {
        args.push("--features".to_string());
        args.push(a.features.iter().cloned().collect::<Vec<_>>().join(","));
    }
    if a.no_default_features {
        args.push("--no-default-features".to_string());
    }
    args
}

/// Feature names for the harness's dependency on the crate: the requested ones, or with
/// `all_features` every `[features]` key and every optional dependency not hidden by `dep:`.
fn enabled_features(crate_dir: &Path, a: &AnalyzeOptions) -> Vec<String> {
    if !a.all_features {
        return a.features.iter().cloned().collect();
    }
    let Some(doc) = std::fs::read_to_string(crate_dir.join("Cargo.toml"))
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
fn default_work_dir(crate_dir: &Path, krate: &str) -> PathBuf {
    use sha2::Digest;
    let abs = crate_dir
        .canonicalize()
        .unwrap_or_else(|_| crate_dir.to_path_buf());
    let digest = sha2::Sha256::digest(abs.to_string_lossy().as_bytes());
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("frugal").join(format!("{krate}-{hex}"))
}

fn goal_counts(
    plan: &Plan,
    criteria: &Criteria,
    found: &Discovered,
    covered: &std::collections::BTreeSet<u32>,
) -> BTreeMap<String, GoalCount> {
    plan.counts(criteria, found, covered)
        .into_iter()
        .map(|(k, (covered, total))| (k, GoalCount { covered, total }))
        .collect()
}

fn support(model: &crate::model::ApiModel, reg: &Registry) -> CallableSupport {
    let supported = reg
        .ops
        .iter()
        .filter(|o| matches!(o.code, harness::registry::OpCode::Call(_)))
        .count();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for u in model.unsupported.iter().chain(&reg.dropped) {
        *reasons.entry(u.reason.clone()).or_default() += 1;
    }
    CallableSupport {
        supported,
        total: supported + model.unsupported.len() + reg.dropped.len(),
        reasons,
    }
}
