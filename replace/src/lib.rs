//! frugal-replace: cheaper replacement suites. Given a crate's own tests and a generated test
//! file, find the cheapest combination of both that covers every goal the own suite covers (or
//! every goal either covers), measure cost before and after, and prove the result on the
//! instrumented build.
//!
//! It owns the flow of one replacement ([`replace`]): costs from profiling an uninstrumented
//! standalone copy (own tests and the generated file, one process per test, `frugal-profiler`);
//! per-test goal sets from running every test of an instrumented copy alone with the probe
//! runtime's coverage dump (`coverage`); the weighted set cover (`cover`); the outputs (a cut
//! generated file, a nextest filterset, a plain list; `generated`, `filter`); and the
//! verification run. It must know nothing about HTTP, storage or the daemon: callers hand it
//! directories and get a [`Replacement`] back.
//!
//! Decisions:
//! - Goals are the instrumenter's manifest goals (branch, line, function) of one instrumented
//!   copy that runs own and generated tests alike, so both goal sets share one id space.
//! - A test's cost is its baseline-subtracted median on the chosen metric, clamped at 0; the
//!   solver charges at least one unit per test, so a free test is never kept without need.
//!   Tests that did not pass (profile or coverage run) are not candidates and are listed.
//! - Verification always runs: the kept own tests and the cut generated file are run again on
//!   the instrumented build; a goal of the required set that they miss is an error.

pub mod cover;
pub mod coverage;
pub mod filter;
pub mod generated;
mod report;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use frugal_profiler::report::{Metric, Report, Source, TestReport};
use frugal_profiler::{ProfileConfig, ProfileError, Suite};
use frugal_subject::instrument::{self, InstrumentError};
use frugal_subject::manifest::Manifest;
use serde::{Deserialize, Serialize};

use coverage::TestCoverage;
use generated::GeneratedFile;
pub use report::{Replacement, SolverFigures, SuiteFigures, TestEntry, Verification};

/// Target name of the generated suite the replacement is cut from.
pub const GENERATED_TARGET: &str = frugal_profiler::GENERATED_TARGET;
/// Target name (file `tests/<name>.rs`) of the cut generated file.
pub const REPLACEMENT_TARGET: &str = "frugal_replacement";

/// Which measured figure a test's cost is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CostMetric {
    /// CPU time: task-clock, else user + system time from `wait4`.
    Cpu,
    /// Retired instructions: hardware counter, else cachegrind (valgrind runs for this metric).
    Instructions,
    /// Wall time of the test process.
    Wall,
    /// Peak RSS of the test process (a peak: not baseline-subtracted).
    Memory,
}

impl CostMetric {
    /// The metric's name as the command line and `replacement.json` spell it (`cpu`,
    /// `instructions`, `wall`, `memory`).
    pub fn name(self) -> &'static str {
        match self {
            CostMetric::Cpu => "cpu",
            CostMetric::Instructions => "instructions",
            CostMetric::Wall => "wall",
            CostMetric::Memory => "memory",
        }
    }
}

impl std::str::FromStr for CostMetric {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "cpu" => Ok(CostMetric::Cpu),
            "instructions" => Ok(CostMetric::Instructions),
            "wall" => Ok(CostMetric::Wall),
            "memory" => Ok(CostMetric::Memory),
            _ => Err(format!(
                "unknown metric `{s}`: cpu, instructions, wall or memory"
            )),
        }
    }
}

/// Which goals the replacement must cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CoverTarget {
    /// Every goal the own suite covers.
    Own,
    /// Every goal the own suite or the generated tests cover.
    All,
}

impl std::str::FromStr for CoverTarget {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "own" => Ok(CoverTarget::Own),
            "all" => Ok(CoverTarget::All),
            _ => Err(format!("unknown cover target `{s}`: own or all")),
        }
    }
}

/// What to replace and how.
#[derive(Clone, Debug)]
pub struct ReplaceConfig {
    /// The crate (never written).
    pub crate_dir: PathBuf,
    /// Scratch space: `plain/` and `inst/` copies, their target dirs, coverage dumps.
    pub work_dir: PathBuf,
    /// Receives `frugal_replacement.rs`, `replacement.json`, `kept_tests.txt`, `filter.txt`.
    pub out_dir: PathBuf,
    /// A generated test file (`frugal_generated.rs`); `None`: own tests only.
    pub generated: Option<PathBuf>,
    /// Which measured figure is a test's cost.
    pub metric: CostMetric,
    /// Which goals the replacement must cover.
    pub cover: CoverTarget,
    /// Profile repetitions per test.
    pub repeat: u32,
    /// A test running longer is killed.
    pub timeout: Duration,
    /// `frugal-launch`; `None`: the profiler's search.
    pub launcher: Option<PathBuf>,
    /// The crate's features for every build (cargo's `--features x`, `--all-features`).
    pub features: frugal_subject::analyze::AnalyzeOptions,
    /// When the set cover is searched exactly, and for how long.
    pub limits: cover::Limits,
    /// Confine every build and test run (`frugal-sandbox`): they may write only under
    /// `work_dir` and read the system, the toolchain and the crate's workspace.
    pub sandbox: bool,
    /// With `sandbox`: refuse to spawn anything where files cannot be confined (no Landlock),
    /// rather than run it with what the host gives (`sandbox.require` under frugald).
    pub require_confinement: bool,
}

impl ReplaceConfig {
    /// Defaults: cpu, cover own, 3 repetitions, 60 s per test.
    pub fn new(crate_dir: impl Into<PathBuf>, work_dir: impl Into<PathBuf>) -> ReplaceConfig {
        let work_dir = work_dir.into();
        ReplaceConfig {
            crate_dir: crate_dir.into(),
            out_dir: work_dir.join("out"),
            work_dir,
            generated: None,
            metric: CostMetric::Cpu,
            cover: CoverTarget::Own,
            repeat: 3,
            timeout: Duration::from_secs(60),
            launcher: None,
            features: Default::default(),
            limits: cover::Limits::default(),
            sandbox: true,
            require_confinement: false,
        }
    }
}

/// Where a replacement is, for progress displays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Building the uninstrumented copy and measuring the cost of every test.
    Profile,
    /// Instrumenting the crate and building the instrumented copy.
    Instrument,
    /// Running every test of the instrumented copy alone for its goals.
    Coverage {
        /// Tests run so far.
        done: usize,
        /// Tests to run.
        total: usize,
    },
    /// Choosing the cheapest covering set.
    Solve,
    /// Running the replacement on the instrumented build; first reported as `0` of `0`,
    /// before its tests are built and listed.
    Verify {
        /// Tests run so far.
        done: usize,
        /// Tests to run (0 until they are listed).
        total: usize,
    },
}

/// Why a replacement failed.
#[derive(Debug, thiserror::Error)]
pub enum ReplaceError {
    /// Building, listing, profiling or running the tests failed.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// The confinement of the builds and test runs could not be set up.
    #[error("sandbox: {0}")]
    Sandbox(#[from] frugal_sandbox::Error),
    /// Copying the crate standalone, or instrumenting and building it, failed.
    #[error(transparent)]
    Instrument(#[from] InstrumentError),
    /// Reading or writing a file or directory failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error of the operation.
        source: std::io::Error,
    },
    /// A test's coverage dump does not end with the end mark (or holds a line that is not a
    /// goal id), so its goal set is unknown.
    #[error("the coverage dump of `{test}` ({}) is cut short: did the test exit abnormally?", file.display())]
    Dump {
        /// Full libtest name of the test.
        test: String,
        /// The dump file.
        file: PathBuf,
    },
    /// The chosen metric has no figure on this host (instructions without a hardware counter or
    /// cachegrind).
    #[error("{metric} is not measured on this machine: {reason}")]
    NotMeasured {
        /// The metric's name.
        metric: String,
        /// Why the profiler could not measure it.
        reason: String,
    },
    /// No own test passed on both builds with a measured cost, so there is no suite to replace.
    #[error("`{krate}` has no own test that passes (nothing to replace)")]
    NoOwnTests {
        /// The crate's package name.
        krate: String,
    },
    /// The verification run did not reach every required goal.
    #[error(
        "the replacement loses {} goal(s) of the own suite on the instrumented build: {}",
        lost.len(),
        lost.join(", ")
    )]
    LostGoals {
        /// The required goals missed, as `file:line kind label`.
        lost: Vec<String>,
    },
    /// Tests of the replacement did not pass in the verification run; each is
    /// `kind:target name (outcome)`.
    #[error("tests of the replacement fail on the instrumented build: {}", .0.join(", "))]
    ReplacementFails(Vec<String>),
}

impl ReplaceError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> ReplaceError {
        ReplaceError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Computes, writes and verifies the replacement of the crate's own suite.
pub fn replace(
    cfg: &ReplaceConfig,
    progress: &mut dyn FnMut(Stage),
) -> Result<Replacement, ReplaceError> {
    let work = absolute(&cfg.work_dir)?;
    let generated_text = match &cfg.generated {
        Some(p) => Some(std::fs::read_to_string(p).map_err(|e| ReplaceError::io(p, e))?),
        None => None,
    };

    let policy = sandbox_policy(cfg, &work)?;
    let policy = policy.as_ref();
    progress(Stage::Profile);
    let plain = work.join("plain");
    fresh_dir(&plain)?;
    instrument::standalone_copy(&cfg.crate_dir, &plain)?;
    place_generated(&plain, generated_text.as_deref())?;
    let report =
        frugal_profiler::profile(&profile_config(cfg, &plain, &work, "target-plain", policy))?;
    let basis = Basis::choose(&report, cfg.metric)?;

    progress(Stage::Instrument);
    let inst_dir = work.join("inst");
    fresh_dir(&inst_dir.join("crate"))?;
    let opts = instrument::Options {
        features: cfg.features.clone(),
        sandbox: policy.cloned(),
        ..instrument::Options::default()
    };
    let inst = instrument::instrument_and_build(
        &cfg.crate_dir,
        &inst_dir,
        &work.join("target-inst"),
        &opts,
    )?;
    place_generated(&inst.root, generated_text.as_deref())?;
    let inst_cfg = profile_config(cfg, &inst.root, &work, "target-inst", policy);
    let coverage = coverage::collect(
        &inst_cfg,
        &inst.manifest,
        &work.join("dumps"),
        &|_| true,
        &mut |done, total| progress(Stage::Coverage { done, total }),
    )?;

    progress(Stage::Solve);
    let mut plan = Plan::new(&report, &basis, coverage, cfg.cover);
    if plan.own_goals_tests == 0 {
        return Err(ReplaceError::NoOwnTests {
            krate: report.crate_name.clone(),
        });
    }
    let solution = plan.solve(cfg.limits);
    let file = GeneratedFile::parse(generated_text.as_deref().unwrap_or_default());
    let needed: Vec<String> = plan
        .kept()
        .filter(|t| t.origin == "generated")
        .map(|t| t.name.clone())
        .collect();
    std::fs::create_dir_all(&cfg.out_dir).map_err(|e| ReplaceError::io(&cfg.out_dir, e))?;
    let replacement_text = (!needed.is_empty()).then(|| {
        file.render(
            &needed,
            &format!(
                "Generated tests a cheaper replacement of `{}`'s own suite needs (frugal replace).\n\
                 Run them with the kept own tests: see replacement.json.",
                report.crate_name
            ),
        )
    });

    progress(Stage::Verify { done: 0, total: 0 });
    let verification = verify(
        cfg,
        &inst,
        &work,
        &plan,
        replacement_text.as_deref(),
        policy,
        progress,
    )?;
    let out = assemble(
        cfg,
        &report,
        &basis,
        &inst.manifest,
        &mut plan,
        &solution,
        verification,
        replacement_text.is_some(),
    );
    write_outputs(cfg, &out, replacement_text.as_deref())?;
    Ok(out)
}

fn absolute(dir: &Path) -> Result<PathBuf, ReplaceError> {
    std::fs::create_dir_all(dir).map_err(|e| ReplaceError::io(dir, e))?;
    dir.canonicalize().map_err(|e| ReplaceError::io(dir, e))
}

/// Empties `dir`: copies are rebuilt from the crate, so no stale test file survives.
fn fresh_dir(dir: &Path) -> Result<(), ReplaceError> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| ReplaceError::io(dir, e))?;
    }
    Ok(())
}

/// Writes the generated file as `tests/frugal_generated.rs` of a copy.
fn place_generated(copy: &Path, text: Option<&str>) -> Result<(), ReplaceError> {
    let Some(text) = text else { return Ok(()) };
    let tests = copy.join("tests");
    std::fs::create_dir_all(&tests).map_err(|e| ReplaceError::io(&tests, e))?;
    let file = tests.join(format!("{GENERATED_TARGET}.rs"));
    std::fs::write(&file, text).map_err(|e| ReplaceError::io(&file, e))
}

/// The confinement of every build and test run: the work dir (copies, target dirs, dumps)
/// writable, with a private `HOME` and `TMPDIR` under it; the crate's workspace readable (path
/// dependencies), never above the work dir; the system and toolchain readable (the policy's defaults).
fn sandbox_policy(
    cfg: &ReplaceConfig,
    work: &Path,
) -> Result<Option<frugal_sandbox::Policy>, ReplaceError> {
    if !cfg.sandbox {
        return Ok(None);
    }
    cfg.crate_dir
        .canonicalize()
        .map_err(|e| ReplaceError::io(&cfg.crate_dir, e))?;
    Ok(Some(
        frugal_sandbox::Policy::for_job(work.join("job"), work, work)?
            .crate_workspace_readable(&cfg.crate_dir, work)
            .require_fs_confinement(cfg.require_confinement),
    ))
}

fn profile_config(
    cfg: &ReplaceConfig,
    dir: &Path,
    work: &Path,
    target: &str,
    policy: Option<&frugal_sandbox::Policy>,
) -> ProfileConfig {
    let mut p = ProfileConfig::new(dir);
    p.sandbox = policy.cloned();
    p.suite = Suite::Both;
    p.repeat = cfg.repeat.max(1);
    p.timeout = cfg.timeout;
    p.launcher = cfg.launcher.clone();
    p.target_dir = Some(work.join(target));
    p.cargo_args = cfg.features.cargo_args();
    // Instruction counts need valgrind where no PMU is exposed; cachegrind is deterministic.
    p.valgrind = cfg.metric == CostMetric::Instructions;
    p
}

/// The figures summed into a test's cost.
struct Basis {
    parts: Vec<(Metric, Source)>,
    unit: &'static str,
}

impl Basis {
    fn choose(report: &Report, metric: CostMetric) -> Result<Basis, ReplaceError> {
        let measured = |m: Metric, s: Source| {
            report
                .tests
                .iter()
                .any(|t| t.figure(m, s).and_then(|f| f.stats()).is_some())
        };
        let (parts, unit) = match metric {
            CostMetric::Cpu if measured(Metric::TaskClockNs, Source::SoftwarePerf) => {
                (vec![(Metric::TaskClockNs, Source::SoftwarePerf)], "ns")
            }
            CostMetric::Cpu => (
                vec![
                    (Metric::UserCpuNs, Source::Wait4),
                    (Metric::SystemCpuNs, Source::Wait4),
                ],
                "ns",
            ),
            CostMetric::Instructions if measured(Metric::Instructions, Source::HardwarePerf) => {
                (vec![(Metric::Instructions, Source::HardwarePerf)], "count")
            }
            CostMetric::Instructions if measured(Metric::Instructions, Source::Cachegrind) => {
                (vec![(Metric::Instructions, Source::Cachegrind)], "count")
            }
            CostMetric::Instructions => {
                return Err(ReplaceError::NotMeasured {
                    metric: "instructions".into(),
                    reason: report.hardware_unavailable.clone().unwrap_or_else(|| {
                        "neither the hardware counter nor cachegrind gave a figure".into()
                    }),
                });
            }
            CostMetric::Wall => (vec![(Metric::WallNs, Source::WallClock)], "ns"),
            CostMetric::Memory => (vec![(Metric::MaxRssBytes, Source::Wait4)], "bytes"),
        };
        Ok(Basis { parts, unit })
    }

    fn name(&self) -> String {
        let kebab = |v: serde_json::Value| v.as_str().unwrap_or("unknown").to_string();
        self.parts
            .iter()
            .map(|(m, s)| {
                format!(
                    "{}/{}",
                    kebab(serde_json::to_value(m).unwrap_or_default()),
                    kebab(serde_json::to_value(s).unwrap_or_default())
                )
            })
            .collect::<Vec<_>>()
            .join("+")
    }

    /// The test's cost, or `None` if it never passed or a figure is missing.
    fn cost(&self, t: &TestReport) -> Option<f64> {
        if t.passes() == 0 {
            return None;
        }
        let mut sum = 0.0;
        for (m, s) in &self.parts {
            sum += t.figure(*m, *s)?.net_or_raw_median()?;
        }
        Some(sum.max(0.0))
    }
}

/// Tests joined with their costs and goals, and the cover chosen over them.
struct Plan {
    package: String,
    tests: Vec<TestEntry>,
    required: BTreeSet<u32>,
    own_goals: BTreeSet<u32>,
    generated_goals: BTreeSet<u32>,
    own_goals_tests: usize,
}

impl Plan {
    fn new(
        report: &Report,
        basis: &Basis,
        coverage: Vec<TestCoverage>,
        target: CoverTarget,
    ) -> Plan {
        let package = report.crate_name.clone();
        let mut tests = Vec::new();
        for c in coverage {
            let origin = if c.target == GENERATED_TARGET && c.kind == "test" {
                "generated"
            } else {
                "own"
            };
            let profiled = report
                .tests
                .iter()
                .find(|t| t.binary.label() == c.binary && t.name == c.name);
            let cost = profiled.and_then(|t| basis.cost(t));
            let excluded = if !c.outcome.is_pass() {
                Some(format!("{} on the instrumented build", c.outcome.label()))
            } else if profiled.is_none() {
                Some("not profiled".into())
            } else if cost.is_none() {
                Some("no passing measured run".into())
            } else {
                None
            };
            tests.push(TestEntry {
                binary_id: filter::binary_id(&package, &c.kind, &c.target),
                binary: c.binary,
                name: c.name,
                origin: origin.into(),
                cost,
                goals: c.goals.into_iter().collect(),
                kept: false,
                excluded,
            });
        }
        let union = |origin: &str| -> BTreeSet<u32> {
            tests
                .iter()
                .filter(|t| t.origin == origin && t.excluded.is_none())
                .flat_map(|t| t.goals.iter().copied())
                .collect()
        };
        let own_goals = union("own");
        let generated_goals = union("generated");
        let required = match target {
            CoverTarget::Own => own_goals.clone(),
            CoverTarget::All => own_goals.union(&generated_goals).copied().collect(),
        };
        let own_goals_tests = tests
            .iter()
            .filter(|t| t.origin == "own" && t.excluded.is_none())
            .count();
        Plan {
            package,
            tests,
            required,
            own_goals,
            generated_goals,
            own_goals_tests,
        }
    }

    fn candidates(&self) -> Vec<usize> {
        (0..self.tests.len())
            .filter(|&i| self.tests[i].excluded.is_none())
            .collect()
    }

    fn solve(&mut self, limits: cover::Limits) -> cover::Solution {
        let idx = self.candidates();
        let cands: Vec<cover::Candidate> = idx
            .iter()
            .map(|&i| cover::Candidate {
                // At least one unit: a free test is still a test to run.
                cost: self.tests[i].cost.unwrap_or(0.0).max(1.0),
                goals: self.tests[i].goals.clone(),
            })
            .collect();
        let solution = cover::solve(&cands, &self.required, limits);
        for &k in &solution.chosen {
            self.tests[idx[k]].kept = true;
        }
        solution
    }

    fn kept(&self) -> impl Iterator<Item = &TestEntry> {
        self.tests.iter().filter(|t| t.kept)
    }

    fn figures<'a>(
        &self,
        tests: impl Iterator<Item = &'a TestEntry>,
        manifest: &Manifest,
    ) -> SuiteFigures {
        let mut n = 0;
        let mut cost = 0.0;
        let mut goals = BTreeSet::new();
        for t in tests {
            n += 1;
            cost += t.cost.unwrap_or(0.0);
            goals.extend(t.goals.iter().copied());
        }
        SuiteFigures {
            tests: n,
            cost,
            goals: goals.len(),
            by_kind: by_kind(&goals, manifest),
        }
    }
}

fn by_kind(goals: &BTreeSet<u32>, manifest: &Manifest) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for g in goals {
        if let Some(goal) = manifest.goals.get(*g as usize) {
            *out.entry(kind_name(goal.kind).to_string()).or_default() += 1;
        }
    }
    out
}

fn kind_name(kind: frugal_subject::manifest::GoalKind) -> &'static str {
    use frugal_subject::manifest::GoalKind;
    match kind {
        GoalKind::Branch => "branch",
        GoalKind::Line => "line",
        GoalKind::Function => "function",
        GoalKind::Mutant => "weak-mutation",
    }
}

fn goal_key(manifest: &Manifest, id: u32) -> String {
    match manifest.goals.get(id as usize) {
        Some(g) => format!("{}:{} {} {}", g.file, g.line, kind_name(g.kind), g.label),
        None => format!("goal#{id}"),
    }
}

/// Runs the kept own tests and the cut generated file on the instrumented copy, each test
/// alone, and checks their goals against the required set.
fn verify(
    cfg: &ReplaceConfig,
    inst: &instrument::Instrumented,
    work: &Path,
    plan: &Plan,
    replacement: Option<&str>,
    policy: Option<&frugal_sandbox::Policy>,
    progress: &mut dyn FnMut(Stage),
) -> Result<Verification, ReplaceError> {
    let (root, manifest) = (&inst.root, &inst.manifest);
    let tests_dir = root.join("tests");
    let _ = std::fs::remove_file(tests_dir.join(format!("{GENERATED_TARGET}.rs")));
    let file = tests_dir.join(format!("{REPLACEMENT_TARGET}.rs"));
    let _ = std::fs::remove_file(&file);
    if let Some(text) = replacement {
        std::fs::create_dir_all(&tests_dir).map_err(|e| ReplaceError::io(&tests_dir, e))?;
        std::fs::write(&file, text).map_err(|e| ReplaceError::io(&file, e))?;
    }
    let kept: BTreeSet<(String, String)> = plan
        .kept()
        .filter(|t| t.origin == "own")
        .map(|t| (t.binary.clone(), t.name.clone()))
        .collect();
    let wanted = |t: &frugal_profiler::TestUnit| {
        t.binary.target == REPLACEMENT_TARGET || kept.contains(&(t.binary.label(), t.name.clone()))
    };
    let mut config = profile_config(cfg, root, work, "target-inst", policy);
    config.suite = Suite::Existing;
    let ran = coverage::collect(
        &config,
        manifest,
        &work.join("verify-dumps"),
        &wanted,
        &mut |done, total| progress(Stage::Verify { done, total }),
    )?;
    let failing: Vec<String> = ran
        .iter()
        .filter(|t| !t.outcome.is_pass())
        .map(|t| format!("{} {} ({})", t.binary, t.name, t.outcome.label()))
        .collect();
    if !failing.is_empty() {
        return Err(ReplaceError::ReplacementFails(failing));
    }
    let reached: BTreeSet<u32> = ran.iter().flat_map(|t| t.goals.iter().copied()).collect();
    let lost: Vec<String> = plan
        .required
        .difference(&reached)
        .map(|&g| goal_key(manifest, g))
        .collect();
    if !lost.is_empty() {
        return Err(ReplaceError::LostGoals { lost });
    }
    Ok(Verification {
        tests_run: ran.len(),
        goals_required: plan.required.len(),
        goals_reached: reached.intersection(&plan.required).count(),
        lost,
    })
}

#[expect(clippy::too_many_arguments)]
fn assemble(
    cfg: &ReplaceConfig,
    report: &Report,
    basis: &Basis,
    manifest: &Manifest,
    plan: &mut Plan,
    solution: &cover::Solution,
    verification: Verification,
    has_file: bool,
) -> Replacement {
    let usable =
        |origin: &'static str| move |t: &&TestEntry| t.origin == origin && t.excluded.is_none();
    let before = plan.figures(plan.tests.iter().filter(usable("own")), manifest);
    let generated = plan.figures(plan.tests.iter().filter(usable("generated")), manifest);
    let after = plan.figures(plan.kept(), manifest);
    let kept_pairs: Vec<(String, String)> = plan
        .kept()
        .filter(|t| t.origin == "own")
        .map(|t| (t.binary_id.clone(), t.name.clone()))
        .collect();
    let replacement_binary = vec![filter::binary_id(&plan.package, "test", REPLACEMENT_TARGET)];
    let whole: &[String] = if has_file { &replacement_binary } else { &[] };
    let after_goals: BTreeSet<u32> = plan.kept().flat_map(|t| t.goals.iter().copied()).collect();
    let generated_only: BTreeSet<u32> = plan
        .generated_goals
        .difference(&plan.own_goals)
        .copied()
        .collect();
    let mut goal_keys = BTreeMap::new();
    for t in &plan.tests {
        for &g in &t.goals {
            goal_keys.entry(g).or_insert_with(|| goal_key(manifest, g));
        }
    }
    let mut notes = vec![format!(
        "costs are medians over {} run(s) per test, one process per test, minus the empty-test \
         baseline of the test's binary ({})",
        cfg.repeat.max(1),
        basis.name()
    )];
    notes.extend(report.notes.iter().skip(2).cloned());
    for np in &report.not_profiled {
        notes.push(format!(
            "not part of either suite: {} {} ({})",
            np.binary,
            np.name.as_deref().unwrap_or("*"),
            np.reason
        ));
    }
    Replacement {
        krate: plan.package.clone(),
        metric: cfg.metric,
        basis: basis.name(),
        unit: basis.unit.into(),
        cover: cfg.cover,
        goals_total: manifest.goals.len(),
        totals_by_kind: by_kind(&(0..manifest.goals.len() as u32).collect(), manifest),
        cost_ratio: if before.cost > 0.0 {
            after.cost / before.cost
        } else {
            1.0
        },
        before,
        after,
        generated,
        goals_required: plan.required.len(),
        generated_only_goals: generated_only.len(),
        added_goals: generated_only.intersection(&after_goals).count(),
        filter: filter::expression(&kept_pairs, &[]),
        filter_with_generated: filter::expression(&kept_pairs, whole),
        kept_own: kept_pairs.iter().map(|(b, n)| format!("{b} {n}")).collect(),
        generated_needed: plan
            .kept()
            .filter(|t| t.origin == "generated")
            .map(|t| t.name.clone())
            .collect(),
        generated_file: has_file.then(|| cfg.out_dir.join(format!("{REPLACEMENT_TARGET}.rs"))),
        solver: SolverFigures {
            method: solution.method,
            candidates: plan.candidates().len(),
            reduced: solution.reduced,
            greedy_cost: solution.greedy_cost,
            cost: solution.cost,
            lower_bound: solution.lower_bound,
            gap: solution.gap(),
        },
        verification,
        tests: std::mem::take(&mut plan.tests),
        goal_keys,
        notes,
    }
}

fn write_outputs(
    cfg: &ReplaceConfig,
    out: &Replacement,
    replacement: Option<&str>,
) -> Result<(), ReplaceError> {
    let dir = &cfg.out_dir;
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| ReplaceError::io(&path, e))
    };
    let file = format!("{REPLACEMENT_TARGET}.rs");
    match replacement {
        Some(text) => write(&file, text)?,
        None => {
            let _ = std::fs::remove_file(dir.join(&file));
        }
    }
    write("filter.txt", &format!("{}\n", out.filter_with_generated))?;
    let list: String = out.kept_own.iter().map(|l| format!("{l}\n")).collect();
    write("kept_tests.txt", &list)?;
    write(
        "replacement.json",
        &serde_json::to_string_pretty(out).unwrap_or_default(),
    )
}
