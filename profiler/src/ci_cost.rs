//! What a CI job pays for a suite, beside what its tests cost one by one: building the test
//! targets from a clean target dir and again after a one-line change in the crate, and running
//! them under `cargo test` (a thread per test) and under `cargo nextest run` (a process per
//! test), each in wall and CPU time.
//!
//! The one-line change goes into the crate's library (or binary) root, so the caller hands a
//! copy it may edit ([`CiCostConfig::crate_dir`]); the target dir is emptied first. CPU time is
//! the growth of this process's `RUSAGE_CHILDREN` over the command: cargo, rustc and the test
//! processes, all waited for. Doc tests are not run: `cargo nextest` cannot run them, and the
//! generated suite has none.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use frugal_cargo::Cargo;
use serde::{Deserialize, Serialize};

use crate::build::{GENERATED_TARGET, crate_info_of, read_package};
use crate::error::ProfileError;
use crate::report::Suite;

/// The longest `cargo fetch` may take before the confined builds.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// The longest one run of a suite may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// The line appended to the crate's root for the incremental build.
const CHANGED_LINE: &str = "\n// frugal ci-cost: a one-line change for the incremental build\n";

/// What to measure.
#[derive(Clone, Debug)]
pub struct CiCostConfig {
    /// A copy of the crate that may be edited: the incremental build appends a line to its root.
    pub crate_dir: PathBuf,
    /// `Generated` (the `frugal_generated` test target) or `Existing` (every other test of the
    /// library, binaries and integration tests). `Both` measures the two as one selection.
    pub suite: Suite,
    /// A target dir of the measurement's own; emptied before the clean build.
    pub target_dir: PathBuf,
    /// Extra cargo arguments (`--all-features`).
    pub cargo_args: Vec<String>,
    /// Runs of each runner; medians are reported.
    pub runs: u32,
    /// Confinement of the builds and runs (they run the crate's code), as for a profile.
    pub sandbox: Option<frugal_sandbox::Policy>,
    /// Which tests of the selected targets run: a suite placed inside the crate
    /// (`frugal_generated::`) shares the crate's own test binaries, so it is told apart by name.
    pub names: NameFilter,
}

/// Test names handed to both runners after `--`, as libtest reads them (`cargo nextest run`
/// accepts the same): run only names containing `only`, skip names containing `skip`. The
/// build is not filtered: an in-crate suite is built with the tests it shares a binary with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameFilter {
    /// Run only tests whose name contains this.
    pub only: Option<String>,
    /// Skip tests whose name contains this.
    pub skip: Option<String>,
}

impl NameFilter {
    /// The arguments after `--`: none when nothing is filtered.
    fn run_args(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(skip) = &self.skip {
            out.extend(["--skip".to_string(), skip.clone()]);
        }
        out.extend(self.only.iter().cloned());
        if !out.is_empty() {
            out.insert(0, "--".into());
        }
        out
    }
}

/// Wall and CPU time of running a suite, medians over the runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunTimes {
    /// Median wall seconds of the command.
    pub wall_seconds: f64,
    /// Median CPU seconds (user and system) of the command and every process it waited for.
    pub cpu_seconds: f64,
    /// Runs measured.
    pub runs: u32,
    /// Every run exited 0 (all tests passed).
    pub passed: bool,
}

/// What CI pays for one suite of one crate.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CiCost {
    /// Which tests: `generated`, `existing` or `both`.
    pub suite: String,
    /// The test targets measured (`--test frugal_generated`, `--lib`, ...).
    pub targets: Vec<String>,
    /// `cargo test --no-run` from an empty target dir, dependencies included: wall seconds.
    pub build_clean_seconds: f64,
    /// The same after a one-line change in the crate's root: wall seconds.
    pub build_incremental_seconds: f64,
    /// CPU seconds of the clean build.
    pub build_clean_cpu_seconds: f64,
    /// `cargo test` on the built targets.
    pub cargo_test: Option<RunTimes>,
    /// `cargo nextest run` on the built targets; `None` with the reason in `notes` when
    /// cargo-nextest is not installed or failed to run.
    pub nextest: Option<RunTimes>,
    /// What could not be measured, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Measures what CI pays for `config.suite` of the crate at `config.crate_dir`.
pub fn measure_ci_cost(config: &CiCostConfig) -> Result<CiCost, ProfileError> {
    if config.runs == 0 {
        return Err(ProfileError::Config("runs must be at least 1".into()));
    }
    let read = read_package(&config.crate_dir)?;
    let info = crate_info_of(&read);
    let package = package_targets(&read, &info.dir, &config.cargo_args);
    let targets = match (config.suite, &config.names.only) {
        // No `frugal_generated` target, but a name: the suite lives in the crate's own test
        // binaries (in-crate placement).
        (Suite::Generated, Some(_)) if selection(Suite::Generated, &package).is_empty() => {
            selection(Suite::Existing, &package)
        }
        (suite, _) => selection(suite, &package),
    };
    if targets.is_empty() {
        return Err(ProfileError::Config(format!(
            "{} has no {} tests to measure",
            info.name,
            suite_name(config.suite)
        )));
    }
    empty_dir(&config.target_dir)?;
    let mut cargo = Cargo::new().target_dir(&config.target_dir);
    if let Some(policy) = &config.sandbox {
        cargo = cargo.fetch_then_sandbox(&info.dir.join("Cargo.toml"), policy, FETCH_TIMEOUT);
    }
    let args = |first: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = first.iter().map(|s| s.to_string()).collect();
        a.extend(targets.iter().cloned());
        a.extend(config.cargo_args.iter().cloned());
        a
    };
    let build = args(&["test", "--no-run"]);
    let clean = timed(&cargo, &info.dir, &build, frugal_cargo::build_timeout())?;
    if !clean.success {
        return Err(ProfileError::Build {
            krate: info.name.clone(),
            dir: info.dir.clone(),
            first_errors: first_errors(&clean.stderr),
        });
    }
    change_one_line(&package.root)?;
    let incremental = timed(&cargo, &info.dir, &build, frugal_cargo::build_timeout())?;
    let mut notes = names_note(&config.names);
    let run_args = |first: &[&str]| -> Vec<String> {
        let mut a = args(first);
        a.extend(config.names.run_args());
        a
    };
    let (cargo_test, _) = runs(
        &cargo,
        &info.dir,
        &run_args(&["test", "--no-fail-fast"]),
        config.runs,
    )?;
    let test_failed = !cargo_test.passed;
    let nextest_args = run_args(&["nextest", "run", "--no-fail-fast", "--no-tests", "pass"]);
    let nextest = match runs(&cargo, &info.dir, &nextest_args, config.runs) {
        Ok((t, _)) if t.passed || test_failed => Some(t),
        Ok((_, stderr)) => {
            notes.push(format!(
                "`cargo nextest run` failed where `cargo test` passed: {}",
                nextest_failure(&stderr)
            ));
            None
        }
        Err(e) => {
            notes.push(format!("`cargo nextest run` could not run: {e}"));
            None
        }
    };
    Ok(CiCost {
        suite: suite_name(config.suite).into(),
        targets,
        build_clean_seconds: clean.wall,
        build_incremental_seconds: incremental.wall,
        build_clean_cpu_seconds: clean.cpu,
        cargo_test: Some(cargo_test),
        nextest,
        notes,
    })
}

/// What a name filter means for the figures, said beside them.
fn names_note(names: &NameFilter) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(only) = &names.only {
        out.push(format!(
            "only tests named `{only}` ran; the builds include every test of their targets"
        ));
    }
    if let Some(skip) = &names.skip {
        out.push(format!(
            "tests named `{skip}` were skipped; the builds include them"
        ));
    }
    out
}

/// The suite's name in reports.
fn suite_name(suite: Suite) -> &'static str {
    match suite {
        Suite::Generated => "generated",
        Suite::Existing => "existing",
        Suite::Both => "both",
    }
}

/// The package's targets and the file the one-line change goes into.
struct PackageTargets {
    lib: bool,
    bins: Vec<String>,
    tests: Vec<String>,
    root: PathBuf,
}

/// The package's targets that build with `cargo_args`' features: a target whose
/// `required-features` are not all on is left out, as cargo leaves it out of `cargo test`.
fn package_targets(
    package: &frugal_cargo::Package,
    dir: &Path,
    cargo_args: &[String],
) -> PackageTargets {
    let enabled = enabled_features(cargo_args);
    let builds = |t: &frugal_cargo::Target| match &enabled {
        None => true,
        Some(on) => t.required_features.iter().all(|f| on.contains(f)),
    };
    let of_kind = |kind: &str| -> Vec<String> {
        package
            .targets
            .iter()
            .filter(|t| t.kinds.iter().any(|k| k == kind) && builds(t))
            .map(|t| t.name.clone())
            .collect()
    };
    let lib = package.is_lib();
    PackageTargets {
        lib,
        bins: of_kind("bin"),
        tests: of_kind("test"),
        root: dir.join(if lib { "src/lib.rs" } else { "src/main.rs" }),
    }
}

/// The features `cargo_args` turn on (`--features a,b`, `--features=a`), or `None` for
/// `--all-features`. Default features are not known here: a target requiring one is kept only
/// when it is named.
fn enabled_features(cargo_args: &[String]) -> Option<Vec<String>> {
    if cargo_args.iter().any(|a| a == "--all-features") {
        return None;
    }
    let mut on = Vec::new();
    let mut args = cargo_args.iter();
    while let Some(a) = args.next() {
        let list = match a.strip_prefix("--features=") {
            Some(list) => Some(list.to_string()),
            None if a == "--features" || a == "-F" => args.next().cloned(),
            None => None,
        };
        on.extend(
            list.iter()
                .flat_map(|l| l.split([',', ' ']))
                .filter(|f| !f.is_empty())
                .map(str::to_string),
        );
    }
    Some(on)
}

/// Cargo's target flags for a suite: the generated target alone, or every other test target.
fn selection(suite: Suite, p: &PackageTargets) -> Vec<String> {
    let generated = p.tests.iter().any(|t| t == GENERATED_TARGET);
    let existing = || {
        let mut out = Vec::new();
        if p.lib {
            out.push("--lib".to_string());
        }
        for b in &p.bins {
            out.extend(["--bin".to_string(), b.clone()]);
        }
        for t in p.tests.iter().filter(|t| *t != GENERATED_TARGET) {
            out.extend(["--test".to_string(), t.clone()]);
        }
        out
    };
    let generated_flags = || vec!["--test".to_string(), GENERATED_TARGET.to_string()];
    match suite {
        Suite::Generated if generated => generated_flags(),
        Suite::Generated => Vec::new(),
        Suite::Existing => existing(),
        Suite::Both => {
            let mut out = existing();
            if generated {
                out.extend(generated_flags());
            }
            out
        }
    }
}

/// Removes what `dir` holds, keeping `dir` itself (the sandbox lets the build write inside it,
/// not beside it).
fn empty_dir(dir: &Path) -> Result<(), ProfileError> {
    let io = |e| ProfileError::io(format!("empty {}", dir.display()), e);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return std::fs::create_dir_all(dir).map_err(io);
    };
    for entry in entries {
        let path = entry.map_err(io)?.path();
        match path.is_dir() && !path.is_symlink() {
            true => std::fs::remove_dir_all(&path),
            false => std::fs::remove_file(&path),
        }
        .map_err(io)?;
    }
    Ok(())
}

/// Appends [`CHANGED_LINE`] to the crate's root file, unconfined: no link may lie on its path
/// (a copy keeps the crate's symlinks, and one could name any file of the host), and the file
/// is opened without following one.
fn change_one_line(root: &Path) -> Result<(), ProfileError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let io = |e| ProfileError::io(format!("change one line of {}", root.display()), e);
    // `root` is the canonical crate dir joined with `src/...`: it canonicalizes to itself only
    // when no link lies on the way.
    if !root.canonicalize().is_ok_and(|r| r == root) {
        return Err(ProfileError::Config(format!(
            "{} is not a file of the crate itself (a symlink?): no one-line change is made through it",
            root.display()
        )));
    }
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(root)
        .map_err(io)?;
    f.write_all(CHANGED_LINE.as_bytes()).map_err(io)
}

/// One command's outcome with its wall and CPU seconds.
struct Timed {
    success: bool,
    wall: f64,
    cpu: f64,
    stderr: String,
}

fn timed(
    cargo: &Cargo,
    dir: &Path,
    args: &[String],
    timeout: Duration,
) -> Result<Timed, ProfileError> {
    let mut command = cargo.command(dir);
    command.args(args);
    let cpu_before = children_cpu_seconds();
    let started = Instant::now();
    let output = cargo
        .output(command, timeout)
        .map_err(|e| ProfileError::Cargo(e.to_string()))?;
    Ok(Timed {
        success: output.success,
        wall: started.elapsed().as_secs_f64(),
        cpu: children_cpu_seconds() - cpu_before,
        stderr: output.stderr,
    })
}

/// cargo's error lines (`error[E0583]: file not found ...`), the first five, else the end of
/// its stderr.
fn first_errors(stderr: &str) -> String {
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("error"))
        .take(5)
        .collect();
    if errors.is_empty() {
        let tail: Vec<&str> = stderr.lines().rev().take(10).collect();
        return tail.into_iter().rev().collect::<Vec<_>>().join("\n");
    }
    errors.join("\n")
}

/// `runs` runs of a built suite, medians of wall and CPU time, and the stderr of the last run
/// that failed (empty when none did).
fn runs(
    cargo: &Cargo,
    dir: &Path,
    args: &[String],
    runs: u32,
) -> Result<(RunTimes, String), ProfileError> {
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    let mut passed = true;
    let mut failure = String::new();
    for _ in 0..runs {
        let t = timed(cargo, dir, args, RUN_TIMEOUT)?;
        passed &= t.success;
        if !t.success {
            failure = t.stderr;
        }
        walls.push(t.wall);
        cpus.push(t.cpu);
    }
    let times = RunTimes {
        wall_seconds: median(&mut walls),
        cpu_seconds: median(&mut cpus),
        runs,
        passed,
    };
    Ok((times, failure))
}

/// Why `cargo nextest run` failed where `cargo test` passed, from its stderr: a missing
/// cargo-nextest, else the lines naming failed tests and errors (the first five), else its
/// last lines.
fn nextest_failure(stderr: &str) -> String {
    if stderr.contains("no such command") {
        return "cargo-nextest is not installed (`cargo install cargo-nextest`)".into();
    }
    let named: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| {
            ["FAIL", "SIGSEGV", "SIGABRT", "TIMEOUT", "LEAK", "error"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .take(5)
        .collect();
    match named.is_empty() {
        true => {
            let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
            tail.into_iter().rev().collect::<Vec<_>>().join(" / ")
        }
        false => named.join(" / "),
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// User and system CPU seconds of every child this process has waited for.
fn children_cpu_seconds() -> f64 {
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut u);
        u
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(tests: &[&str]) -> PackageTargets {
        PackageTargets {
            lib: true,
            bins: vec!["tool".into()],
            tests: tests.iter().map(|t| t.to_string()).collect(),
            root: PathBuf::from("src/lib.rs"),
        }
    }

    #[test]
    fn the_generated_suite_and_the_own_tests_are_separate_selections() {
        let p = package(&["api", GENERATED_TARGET]);
        assert_eq!(
            selection(Suite::Generated, &p),
            ["--test", GENERATED_TARGET]
        );
        assert_eq!(
            selection(Suite::Existing, &p),
            ["--lib", "--bin", "tool", "--test", "api"]
        );
        assert_eq!(selection(Suite::Both, &p).len(), 7);
        assert!(selection(Suite::Generated, &package(&["api"])).is_empty());
    }

    #[test]
    fn features_named_on_the_command_line_are_the_enabled_ones() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(enabled_features(&args(&["--all-features"])), None);
        assert_eq!(
            enabled_features(&args(&["--features", "a,b", "--features=c"])),
            Some(vec!["a".into(), "b".into(), "c".into()])
        );
        assert_eq!(enabled_features(&[]), Some(vec![]));
    }

    #[test]
    fn a_root_that_is_a_link_is_not_written_through() {
        let tmp = std::env::temp_dir().join(format!("frugal-ci-cost-link-{}", std::process::id()));
        let src = tmp.join("crate/src");
        std::fs::create_dir_all(&src).unwrap();
        let outside = tmp.join("outside.rs");
        std::fs::write(&outside, "fn secret() {}\n").unwrap();
        let dir = tmp.join("crate").canonicalize().unwrap();
        std::os::unix::fs::symlink(&outside, src.join("lib.rs")).unwrap();
        assert!(change_one_line(&dir.join("src/lib.rs")).is_err());
        assert_eq!(
            std::fs::read_to_string(&outside).unwrap(),
            "fn secret() {}\n"
        );
        std::fs::remove_file(src.join("lib.rs")).unwrap();
        std::fs::write(src.join("lib.rs"), "").unwrap();
        change_one_line(&dir.join("src/lib.rs")).unwrap();
        assert_eq!(
            std::fs::read_to_string(src.join("lib.rs")).unwrap(),
            CHANGED_LINE
        );
        std::fs::remove_dir_all(&tmp).unwrap();
    }

    #[test]
    fn name_filters_go_after_the_separator_as_libtest_reads_them() {
        assert!(NameFilter::default().run_args().is_empty());
        let in_crate = NameFilter {
            only: Some("frugal_generated::".into()),
            skip: None,
        };
        assert_eq!(in_crate.run_args(), ["--", "frugal_generated::"]);
        let own = NameFilter {
            only: None,
            skip: Some("frugal_generated::".into()),
        };
        assert_eq!(own.run_args(), ["--", "--skip", "frugal_generated::"]);
    }

    #[test]
    fn a_nextest_failure_is_told_by_its_failed_tests_or_a_missing_command() {
        assert!(nextest_failure("error: no such command: `nextest`\n").contains("not installed"));
        let run = "    Starting 3 tests\n        PASS [0.01s] a\n        FAIL [0.02s] lsd tests::b\n\
                   error: test run failed\n";
        assert_eq!(
            nextest_failure(run),
            "FAIL [0.02s] lsd tests::b / error: test run failed"
        );
        assert_eq!(nextest_failure("one\ntwo\n"), "one / two");
    }

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
