//! Running test cases: the executor interface and what it reports.

use crate::TestCase;

/// How one execution ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Every statement ran and the test ended normally.
    Completed,
    /// A statement panicked with this message at `file:line:col`.
    Panicked {
        /// The panic message.
        message: String,
        /// Where the panic was raised, as `file:line:col`.
        location: String,
    },
    /// Stopped by fuel or depth limits, or by the wall-clock timeout.
    Timeout,
    /// The process running the test died (abort, stack overflow, out of memory, exit).
    Crashed {
        /// What is known of the death, for people: the signal or exit code, with the last line the
        /// harness printed, or why it could not start.
        reason: String,
    },
    /// The test did not fit the subject; an engine bug, never the subject's fault.
    Invalid {
        /// What did not fit, for people.
        reason: String,
    },
}

/// Counters behind the performance proxies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counters {
    /// Statements executed in the subject.
    pub statements: u64,
    /// Function entries per function id (non-zero only).
    pub calls: Vec<(u32, u32)>,
    /// Iterations per loop id (non-zero only).
    pub loops: Vec<(u32, u32)>,
    /// Heap allocations made while the test ran, the harness's own bookkeeping excluded (a
    /// growing reallocation counts as one).
    pub allocations: u64,
    /// Bytes those allocations requested, in total (not the peak of live bytes).
    pub alloc_bytes: u64,
}

/// What one execution of a test case reported.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecResult {
    /// How the execution ended.
    pub status: Status,
    /// Statements that ran to completion.
    pub completed: usize,
    /// Reached goals with normalised distance in `[0, 1)`, sorted by goal; 0 = covered.
    pub goals: Vec<(u32, f64)>,
    /// `Debug` summary per completed statement, when its result has one.
    pub summaries: Vec<Option<String>>,
    /// The state completed statements left in values they borrowed mutably, in statement order.
    pub observed: Vec<Observation>,
    /// The counters behind the performance proxies.
    pub counters: Counters,
    /// Strings the test's values were compared against and did not match (the probes'
    /// `seen.rs`): candidates for its next values (dynamic seeding).
    pub seen: Vec<String>,
}

/// What a statement left behind in a value it borrowed mutably (`&mut self` of a method that
/// changes its receiver): the value's `Debug` form after the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    /// The statement.
    pub stmt: u32,
    /// Its parameter that borrowed the value; the value is the statement's argument there
    /// ([`Observation::RESULT`]: the statement's own result).
    pub param: u32,
    /// What was looked at.
    pub look: Look,
    /// The `Debug` form of what was looked at.
    pub summary: String,
}

/// What an [`Observation`] looked at in the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Look {
    /// Its own `Debug` form.
    Debug,
    /// The `Debug` form of what iterating it by reference yields, collected into a `Vec`.
    Items,
    /// The `Debug` form of what its inspector `k` returned: a `&self` method of the crate
    /// without other arguments (the harness registry numbers them per type).
    Inspector(u8),
}

impl Observation {
    /// `param` of an observation of the statement's result.
    pub const RESULT: u32 = u32::MAX;
}

impl ExecResult {
    /// Distance to `goal` if the test reached it.
    pub fn distance(&self, goal: u32) -> Option<f64> {
        self.goals
            .binary_search_by_key(&goal, |&(g, _)| g)
            .ok()
            .map(|i| self.goals[i].1)
    }

    /// Whether this execution covered `goal` (reached it at distance 0).
    pub fn covers(&self, goal: u32) -> bool {
        self.distance(goal) == Some(0.0)
    }

    /// Goals covered by this execution.
    pub fn covered(&self) -> impl Iterator<Item = u32> + '_ {
        self.goals
            .iter()
            .filter(|(_, d)| *d == 0.0)
            .map(|&(g, _)| g)
    }
}

/// Runs test cases. Results come back in input order, which keeps searches reproducible
/// whatever the executor does in parallel.
pub trait Executor {
    /// Runs `tests` and returns one result per test, in the same order.
    fn execute(&mut self, tests: &[TestCase]) -> Vec<ExecResult>;

    /// Starts running `tests` in the background, after the ones started before; false when
    /// this executor cannot (then the caller runs everything with [`Executor::execute`]).
    /// The search starts tests while it still makes the rest of a generation.
    fn start(&mut self, _tests: &[TestCase]) -> bool {
        false
    }

    /// The results of every test started since the last `finish`, given again in the order
    /// started (`tests` is their concatenation), plus any further `tests`, which run now.
    fn finish(&mut self, tests: &[TestCase]) -> Vec<ExecResult> {
        self.execute(tests)
    }

    /// [`Executor::finish`], handing each result with its index to `each` as soon as it and
    /// every one before it are in: the search records results while later tests still run.
    fn finish_each(&mut self, tests: &[TestCase], each: &mut dyn FnMut(usize, ExecResult)) {
        for (i, r) in self.finish(tests).into_iter().enumerate() {
            each(i, r);
        }
    }

    /// Operations found since the last call whose results come from the run's environment
    /// (`$HOME`, the program's path): the search stops inserting them, as it does operations
    /// that crash every time.
    fn environment_ops(&mut self) -> Vec<u32> {
        Vec::new()
    }
}
