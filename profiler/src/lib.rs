//! frugal-profiler: measures what each test of a crate really costs, one process per test.
//!
//! It owns building a crate's test binaries (`cargo test --no-run`), listing their tests
//! (libtest `--list --format terse`), running each test as its own process
//! (`<bin> <name> --exact --test-threads 1`, cwd = crate dir, `CARGO_MANIFEST_DIR` and
//! `CARGO_PKG_*` set, like nextest, \[nextest\]) under perf_event counters, `wait4` and a wall clock,
//! optionally under valgrind (cachegrind instructions, dhat heap), and the [`report`] types. It
//! must know nothing about search, instrumentation, storage or HTTP: callers hand it a crate
//! directory and get a [`report::Report`] back. [`measure_suite`] is the one measurement of an
//! emitted suite, for `frugal run` and frugald alike.
//!
//! Decisions, so readers need not rediscover them:
//! - **Launcher.** Tests are started by a small launcher process ([`launcher`]), because a
//!   child's `ru_maxrss` starts from the RSS of the process it was forked from. The launcher
//!   forks the test, holds it on a pipe before exec, and the profiler opens its counters on that
//!   pid with `enable_on_exec` (and `inherit`, so libtest's test thread counts) before releasing
//!   it. [`find_launcher`] looks at [`ProfileConfig::launcher`], then `$FRUGAL_LAUNCH`, then for
//!   the `frugal-launch` binary next to the running executable and one directory up
//!   (`target/*/deps` for tests), then falls back to the running executable itself when it
//!   serves the launcher ([`launcher::serve_if_asked`]: `frugal`, `frugald`). Tests of this crate
//!   pass `env!("CARGO_BIN_EXE_frugal-launch")`.
//! - **Sources.** Hardware events (instructions, cycles, branch and cache misses) where the
//!   kernel exposes a PMU; software events (task-clock, page faults, context switches) otherwise
//!   too; wait4 for CPU times and max RSS (and page faults / context switches if the software
//!   counters are missing); the launcher's clock for wall time. Missing counters are
//!   [`report::Reading::Unavailable`] with the errno explained, never 0. Each figure names its
//!   [`report::Source`]; [`report::Report::cost_basis`] says which one ranks tests.
//! - **Baseline.** Per test binary, the same binary run with an exact filter that matches no
//!   test, under the same launcher and counters, interleaved with the tests: process start,
//!   dynamic loading and libtest start-up of *that* binary (a separate empty-test fixture would
//!   have another size and test table). Its median is subtracted from additive figures
//!   (`net_median`); peaks (max RSS, heap peak) are not subtracted. The residue in a net figure
//!   is libtest's per-test work (a thread and output capture): tens of microseconds.
//! - **Repetitions.** One unmeasured warm-up start per binary, then rounds over all tests (test 1..n, then again), so drift hits all tests
//!   alike; only passes enter the statistics (median, min, max, MAD). Valgrind runs once per
//!   test, and only for tests that passed natively: its counts are deterministic. Valgrind
//!   swaps memset/memcpy for simple loops, so memory-heavy tests count more instructions under
//!   cachegrind than the hardware retires.
//! - **Overhead.** Per process, the profiler's wall time minus the test's own wall time, and the
//!   set-up part of it, are reported in [`report::Overhead`].

pub mod report;

mod aggregate;
mod build;
mod ci_cost;
mod counters;
mod error;
mod launch;
pub mod launcher;
mod list;
mod measure;
mod single;
mod stats;
mod table;
mod valgrind;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use build::GENERATED_TARGET;
pub use ci_cost::{CiCost, CiCostConfig, NameFilter, RunTimes, measure_ci_cost};
pub use counters::{CounterBackend, CounterValue, OpenCounter, PerfEvent, PerfEventBackend};
pub use error::ProfileError;
pub use launch::{LAUNCHER_NAME, Launcher, find_launcher};
pub use measure::{SuiteMeasurement, measure_suite};
pub use report::{CostBasis, Metric, Report, Source, Suite, SuiteCost};
pub use single::{SingleRun, TestRunner, TestUnit};
pub use table::render_table;
pub use valgrind::{VALGRIND_ENV, resolve_valgrind};

use aggregate::{Measured, Unit};
use launch::RunSpec;

/// Environment variable naming the launcher binary.
pub const LAUNCHER_ENV: &str = "FRUGAL_LAUNCH";

/// A filter no test has: the baseline run executes no test.
const NO_SUCH_TEST: &str = "__frugal_profiler_baseline_no_such_test__";

/// What to profile and how.
#[derive(Clone, Debug)]
pub struct ProfileConfig {
    /// Directory of the crate (holding its `Cargo.toml`).
    pub crate_dir: PathBuf,
    /// Which tests of the crate are profiled.
    pub suite: Suite,
    /// Runs per test under counters; at least 1.
    pub repeat: u32,
    /// A test still running after this is killed (with its process group) and reported as a
    /// timeout.
    pub timeout: Duration,
    /// Also run each test under valgrind (cachegrind and dhat).
    pub valgrind: bool,
    /// Valgrind binary; `None`: `$FRUGAL_VALGRIND`, else `valgrind` on PATH.
    pub valgrind_path: Option<PathBuf>,
    /// Timeout of one valgrind run (valgrind is 10-50 times slower than native).
    pub valgrind_timeout: Duration,
    /// Launcher binary; `None`: see [`find_launcher`].
    pub launcher: Option<PathBuf>,
    /// Cargo target directory; `None`: the crate's own.
    pub target_dir: Option<PathBuf>,
    /// Build the tests with `--release`.
    pub release: bool,
    /// Only tests whose name contains this.
    pub filter: Option<String>,
    /// Extra arguments for `cargo test --no-run`, such as `--features x` or `--all-features`.
    pub cargo_args: Vec<String>,
    /// Confinement of everything that runs the crate's code: the build (its build scripts and
    /// proc macros; dependencies are fetched unconfined first, then the build is offline), the
    /// listings, the launcher with each test, valgrind. It must let the crate dir and the target
    /// dir be written; the profiler adds its own scratch dir and reading the launcher. `None`:
    /// nothing is confined (a user profiling their own crate).
    pub sandbox: Option<frugal_sandbox::Policy>,
}

impl ProfileConfig {
    /// The `frugal-launch` helper: the configured one, `$FRUGAL_LAUNCH`, or the one next to the
    /// running executable.
    pub(crate) fn find_launcher(&self) -> Result<Launcher, ProfileError> {
        find_launcher(
            self.launcher.as_deref(),
            std::env::var_os(LAUNCHER_ENV),
            std::env::current_exe().ok(),
            launcher::this_exe_serves(),
        )
    }

    /// The policy of the processes that run tests: the configured one, with the scratch dir
    /// (their output files) writable and the launcher readable.
    fn confinement(
        &self,
        scratch: &Scratch,
        launcher: &Launcher,
    ) -> Option<frugal_sandbox::Policy> {
        self.sandbox
            .as_ref()
            .map(|p| p.clone().writable(&scratch.0).readable(&launcher.program))
    }

    /// How the crate's test binaries are built for this profile.
    fn build_options(&self) -> build::BuildOptions<'_> {
        build::BuildOptions {
            suite: self.suite,
            release: self.release,
            target_dir: self.target_dir.as_deref(),
            cargo_args: &self.cargo_args,
            sandbox: self.sandbox.as_ref(),
        }
    }

    /// Defaults: existing suite, 5 repetitions, 60 s timeout, no valgrind, dev build.
    pub fn new(crate_dir: impl Into<PathBuf>) -> ProfileConfig {
        ProfileConfig {
            crate_dir: crate_dir.into(),
            suite: Suite::Existing,
            repeat: 5,
            timeout: Duration::from_secs(60),
            valgrind: false,
            valgrind_path: None,
            valgrind_timeout: Duration::from_secs(600),
            launcher: None,
            target_dir: None,
            release: false,
            filter: None,
            cargo_args: Vec::new(),
            sandbox: None,
        }
    }
}

/// Where a profile is, for progress displays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Progress {
    /// The crate's tests are being built.
    Building {
        /// The crate's package name.
        krate: String,
    },
    /// The tests are built and listed.
    Listed {
        /// Test binaries built.
        binaries: usize,
        /// Tests found in them (baseline runs not counted).
        tests: usize,
    },
    /// One more run under counters finished.
    Measured {
        /// Runs finished so far, baseline runs included.
        done: usize,
        /// Runs to make: every test and baseline, times `repeat`.
        total: usize,
    },
    /// One more test was run under valgrind (tests that never passed are skipped silently).
    Valgrind {
        /// Position of the test just run among the tests and baselines.
        done: usize,
        /// Number of tests and baselines.
        total: usize,
    },
}

/// Profiles a crate with the machine's perf_event counters.
pub fn profile(config: &ProfileConfig) -> Result<Report, ProfileError> {
    profile_with(config, &PerfEventBackend, &mut |_| {})
}

/// Profiles a crate with the given counter backend, telling `progress` how far it got.
pub fn profile_with(
    config: &ProfileConfig,
    backend: &dyn CounterBackend,
    progress: &mut dyn FnMut(Progress),
) -> Result<Report, ProfileError> {
    if config.repeat == 0 {
        return Err(ProfileError::Config("repeat must be at least 1".into()));
    }
    // Fail on missing tools before a long build.
    let valgrind = match config.valgrind {
        true => {
            let path = resolve_valgrind(
                config.valgrind_path.as_deref(),
                std::env::var_os(VALGRIND_ENV),
            );
            let version = valgrind::check(&path)?;
            Some((path, version))
        }
        false => None,
    };
    let launcher = config.find_launcher()?;
    let info = build::crate_info(&config.crate_dir)?;
    progress(Progress::Building {
        krate: info.name.clone(),
    });
    let binaries = build::build_tests(&info, &config.build_options())?;
    let scratch = Scratch::new()?;
    // The scratch dir receives the output files; the launcher must be executable.
    let sandbox = config.confinement(&scratch, &launcher);
    let (units, not_profiled) =
        collect_units(config, &info, &binaries, sandbox.as_ref(), &scratch)?;
    progress(Progress::Listed {
        binaries: binaries.len(),
        tests: units.iter().filter(|u| u.name.is_some()).count(),
    });

    let plan = counters::plan(&counters::probe(backend), valgrind.is_some());
    let run_spec = |unit: &Unit, timeout: Duration, output: PathBuf| {
        run_spec(unit, timeout, output, sandbox.clone())
    };
    let mut measured: Vec<Measured> = units.iter().map(|_| Measured::default()).collect();
    // One unmeasured start per binary first, so the first measured run does not pay for a cold
    // page cache (that would inflate the baseline, which runs first in every round).
    for unit in units.iter().filter(|u| u.name.is_none()) {
        let spec = run_spec(unit, config.timeout, scratch.path("out"));
        launch::run_once(&launcher, &spec, backend, &[])?;
    }
    let total = units.len() * config.repeat as usize;
    for round in 0..config.repeat as usize {
        for (i, unit) in units.iter().enumerate() {
            let spec = run_spec(unit, config.timeout, scratch.path("out"));
            measured[i]
                .samples
                .push(launch::run_once(&launcher, &spec, backend, &plan.events)?);
            progress(Progress::Measured {
                done: round * units.len() + i + 1,
                total,
            });
        }
    }
    if let Some((path, _)) = &valgrind {
        for (i, unit) in units.iter().enumerate() {
            // A test that never passed natively would only fail (or hang) slower under valgrind.
            if !measured[i].samples.iter().any(|s| s.outcome.is_pass()) {
                continue;
            }
            let spec = run_spec(unit, config.valgrind_timeout, scratch.path("vg-out"));
            let cg = valgrind::cachegrind(path, &spec, &scratch.path("cachegrind.out"))?;
            let dh = valgrind::dhat(path, &spec, &scratch.path("dhat.json"))?;
            measured[i].valgrind = Some((cg, dh));
            progress(Progress::Valgrind {
                done: i + 1,
                total: units.len(),
            });
        }
    }
    let context = aggregate::Context {
        crate_name: info.name.clone(),
        crate_dir: info.dir.display().to_string(),
        config,
        plan: &plan,
        valgrind_version: valgrind.map(|(_, v)| v),
    };
    Ok(aggregate::report(&context, &units, measured, not_profiled))
}

/// Lists every binary and turns tests into units (one baseline unit per binary with tests).
fn collect_units(
    config: &ProfileConfig,
    info: &build::CrateInfo,
    binaries: &[build::BuiltBinary],
    sandbox: Option<&frugal_sandbox::Policy>,
    scratch: &Scratch,
) -> Result<(Vec<Unit>, Vec<report::NotProfiled>), ProfileError> {
    let mut units = Vec::new();
    let mut not_profiled = Vec::new();
    if config.suite != Suite::Generated {
        for target in &info.doctest_targets {
            not_profiled.push(report::NotProfiled {
                binary: format!("doc:{target}"),
                name: None,
                reason: "doc tests are compiled and run by rustdoc, not a test binary".into(),
            });
        }
    }
    for built in binaries {
        let env = test_env(info, &built.executable);
        let label = built.binary.label();
        let run = list::ListRun {
            cwd: &info.dir,
            env: &env,
            sandbox,
            timeout: config.timeout,
            scratch: &scratch.0,
        };
        let listing = match list::list(&built.executable, &run)? {
            Ok(listing) => listing,
            Err(reason) => {
                not_profiled.push(report::NotProfiled {
                    binary: label,
                    name: None,
                    reason,
                });
                continue;
            }
        };
        let wanted = |name: &String| config.filter.as_ref().is_none_or(|f| name.contains(f));
        for (names, reason) in [
            (&listing.ignored, "#[ignore]d"),
            (&listing.benchmarks, "#[bench] (not run by frugal)"),
        ] {
            for name in names.iter().filter(|n| wanted(n)) {
                not_profiled.push(report::NotProfiled {
                    binary: label.clone(),
                    name: Some(name.clone()),
                    reason: reason.into(),
                });
            }
        }
        let tests: Vec<&String> = listing.tests.iter().filter(|n| wanted(n)).collect();
        if tests.is_empty() {
            continue;
        }
        let unit = |name: Option<String>| Unit {
            binary: built.binary.clone(),
            executable: built.executable.clone(),
            cwd: info.dir.clone(),
            env: env.clone(),
            name,
        };
        units.push(unit(None));
        units.extend(tests.into_iter().map(|name| unit(Some(name.clone()))));
    }
    Ok((units, not_profiled))
}

/// Environment cargo test gives a test binary (the parts tests read).
fn test_env(info: &build::CrateInfo, executable: &Path) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = vec![
        (
            "CARGO_MANIFEST_DIR".into(),
            info.dir.clone().into_os_string(),
        ),
        ("CARGO_PKG_NAME".into(), info.name.clone().into()),
        ("CARGO_PKG_VERSION".into(), info.version.clone().into()),
        (
            "CARGO_CRATE_NAME".into(),
            info.name.replace('-', "_").into(),
        ),
        // A backtrace costs a panicking test ~100 ms of symbolisation: with the caller's
        // `RUST_BACKTRACE=1` inherited, the cost of `#[should_panic]` tests would measure the
        // environment, not the test.
        ("RUST_BACKTRACE".into(), "0".into()),
    ];
    // Dylib dependencies (`prefer-dynamic`, proc-macro test helpers) live next to the binary.
    if let Some(deps) = executable.parent() {
        let mut path = deps.as_os_str().to_os_string();
        if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|o| !o.is_empty()) {
            path.push(":");
            path.push(old);
        }
        env.push(("LD_LIBRARY_PATH".into(), path));
    }
    env
}

/// The command line of a unit: one test, or no test for the baseline.
fn run_spec(
    unit: &Unit,
    timeout: Duration,
    output: PathBuf,
    sandbox: Option<frugal_sandbox::Policy>,
) -> RunSpec {
    let filter = unit.name.as_deref().unwrap_or(NO_SUCH_TEST);
    RunSpec {
        program: unit.executable.clone(),
        args: vec![
            "--exact".into(),
            filter.into(),
            "--test-threads".into(),
            "1".into(),
        ],
        cwd: unit.cwd.clone(),
        env: unit.env.clone(),
        output,
        timeout,
        sandbox,
    }
}

/// A private directory for output files, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch, ProfileError> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir =
            std::env::temp_dir().join(format!("frugal-profile-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .map_err(|e| ProfileError::io(format!("create `{}`", dir.display()), e))?;
        Ok(Scratch(dir))
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
