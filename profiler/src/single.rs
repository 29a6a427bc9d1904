//! Running tests one at a time without counters, for callers that need what a test *does*
//! rather than what it costs (the coverage dumps of `frugal replace`): the same build, listing,
//! environment and launcher as a profile, plus environment variables of the caller's.

use std::ffi::OsString;

use crate::aggregate::Unit;
use crate::error::ProfileError;
use crate::report::{NotProfiled, Outcome, TestBinary};
use crate::{ProfileConfig, Scratch, build, collect_units, launch};

/// One test of a built crate, ready to run as its own process.
#[derive(Clone, Debug)]
pub struct TestUnit {
    /// The test binary holding the test.
    pub binary: TestBinary,
    /// Full libtest name, as `--exact` takes it.
    pub name: String,
    unit: Unit,
}

/// How one run ended, with the tail of its output when it did not pass.
#[derive(Clone, Debug)]
pub struct SingleRun {
    /// How the run ended.
    pub outcome: Outcome,
    /// The last bytes (up to 4 KiB, lossily decoded) of the test's stdout and stderr when it did
    /// not pass.
    pub output_tail: Option<String>,
}

/// The tests of a crate, built and listed as [`crate::profile`] would, and a way to run each.
pub struct TestRunner {
    launcher: crate::Launcher,
    scratch: Scratch,
    sandbox: Option<frugal_sandbox::Policy>,
    timeout: std::time::Duration,
    /// Tests in the order the profiler would run them.
    pub tests: Vec<TestUnit>,
    /// Ignored tests, benchmarks, doc tests and binaries that could not be listed.
    pub not_run: Vec<NotProfiled>,
}

impl TestRunner {
    /// Builds the tests of `config.suite` (honouring target dir, release, cargo args and the
    /// name filter) and lists them. Valgrind and repetitions are ignored.
    pub fn build(config: &ProfileConfig) -> Result<TestRunner, ProfileError> {
        let launcher = config.find_launcher()?;
        let info = build::crate_info(&config.crate_dir)?;
        let binaries = build::build_tests(&info, &config.build_options())?;
        let scratch = Scratch::new()?;
        let sandbox = config.confinement(&scratch, &launcher);
        let (units, not_run) = collect_units(config, &info, &binaries, sandbox.as_ref(), &scratch)?;
        let tests = units
            .into_iter()
            .filter_map(|unit| {
                Some(TestUnit {
                    binary: unit.binary.clone(),
                    name: unit.name.clone()?,
                    unit,
                })
            })
            .collect();
        Ok(TestRunner {
            launcher,
            scratch,
            sandbox,
            timeout: config.timeout,
            tests,
            not_run,
        })
    }

    /// Runs one test alone (`--exact <name> --test-threads 1`) with `extra_env` added.
    pub fn run(
        &self,
        test: &TestUnit,
        extra_env: &[(OsString, OsString)],
    ) -> Result<SingleRun, ProfileError> {
        let mut spec = crate::run_spec(
            &test.unit,
            self.timeout,
            self.scratch.path("single-out"),
            self.sandbox.clone(),
        );
        spec.env.extend(extra_env.iter().cloned());
        let sample = launch::run_once(&self.launcher, &spec, &crate::PerfEventBackend, &[])?;
        Ok(SingleRun {
            outcome: sample.outcome,
            output_tail: sample.output_tail,
        })
    }
}
