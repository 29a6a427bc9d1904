//! The algorithm interface and the driver loop shared by all algorithms.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::archive::ArchivePolicy;
use crate::dynamosa::ManyObjective;
use crate::mio::MioParams;
use crate::operators::OperatorParams;
use crate::wholesuite::WholeSuiteParams;
use crate::{Archive, Budget, BudgetClock, Builder, ExecResult, Executor, Goals, Schema, TestCase};

/// Algorithms selectable by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlgorithmKind {
    /// Random search with an archive: random tests in batches of `population`, the baseline.
    Random,
    /// MOSA (\[mosa\]): one objective per uncovered goal, preference sorting, fronts; the archive
    /// keeps the shorter test.
    Mosa,
    /// DynaMOSA (\[dynamosa\]): MOSA whose targets are activated along the control dependencies
    /// ([`Goals::parents`]).
    DynaMosa,
    /// aDynaMOSA (\[adynamosa\]), the default: DynaMOSA whose archive keeps the cheaper test (Eq. 1)
    /// and whose survivors within a front are picked by the performance heuristic or the crowding
    /// distance, switched on stagnation.
    ADynaMosa,
    /// Whole test suite generation with memetic local search (\[memetic\]).
    WholeSuite,
    /// MIO with adaptive weight-based hypermutation (\[hypermutation\]).
    Mio,
}

/// Parses the canonical names of [`AlgorithmKind::name`], plus `memetic`.
impl std::str::FromStr for AlgorithmKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // `memetic` is the whole-suite GA with local search on, as [memetic] names it.
        if s == "memetic" {
            return Ok(AlgorithmKind::WholeSuite);
        }
        AlgorithmKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = AlgorithmKind::ALL.iter().map(|k| k.name()).collect();
                format!(
                    "unknown algorithm `{s}`: expected one of {}",
                    names.join(", ")
                )
            })
    }
}

impl std::fmt::Display for AlgorithmKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl AlgorithmKind {
    /// Every algorithm, in the order their names are listed in messages.
    pub const ALL: [AlgorithmKind; 6] = [
        AlgorithmKind::Random,
        AlgorithmKind::Mosa,
        AlgorithmKind::DynaMosa,
        AlgorithmKind::ADynaMosa,
        AlgorithmKind::WholeSuite,
        AlgorithmKind::Mio,
    ];

    /// The canonical name, which [`FromStr`](std::str::FromStr) parses back and the
    /// configuration accepts.
    pub fn name(self) -> &'static str {
        match self {
            AlgorithmKind::Random => "random",
            AlgorithmKind::Mosa => "mosa",
            AlgorithmKind::DynaMosa => "dynamosa",
            AlgorithmKind::ADynaMosa => "adynamosa",
            AlgorithmKind::WholeSuite => "wholesuite",
            AlgorithmKind::Mio => "mio",
        }
    }

    fn archive_policy(self) -> ArchivePolicy {
        match self {
            AlgorithmKind::ADynaMosa => ArchivePolicy::Cheaper,
            _ => ArchivePolicy::Shorter,
        }
    }
}

/// Parameters of a search (defaults from EvoSuite and the DynaMOSA paper: \[evosuite\],
/// \[dynamosa\]).
#[derive(Debug, Clone)]
pub struct SearchParams {
    /// Which algorithm runs.
    pub algorithm: AlgorithmKind,
    /// Seed of the search's random number generator: with an execution budget, the same seed,
    /// subject and parameters give the same run.
    pub seed: u64,
    /// What bounds the search: wall time or executions.
    pub budget: Budget,
    /// Tests per generation of the many-objective family, and per batch of random search; MIO
    /// reports a generation every this many executions. Whole-suite has its own
    /// ([`WholeSuiteParams`]).
    pub population: usize,
    /// Probability that two parents selected by the many-objective family are crossed over before
    /// mutation, in `[0, 1]`.
    pub crossover_rate: f64,
    /// Individuals drawn per tournament selection in the many-objective family (at least 1 is
    /// drawn); the lowest rank wins, then the largest crowding distance.
    pub tournament: usize,
    /// Tuning of the operators that build and mutate tests.
    pub operators: OperatorParams,
    /// Whole-suite GA and memetic local search (`wholesuite`).
    pub wholesuite: WholeSuiteParams,
    /// MIO and its hypermutation (`mio`).
    pub mio: MioParams,
    /// Tests to start from, valid for the schema ([`TestCase::check`]; invalid ones are
    /// skipped): typically a stored suite resolved against a new build. They are executed
    /// first, against the budget, and enter the archive, so the goals they cover are covered
    /// before the first generation. The many-objective family (MOSA, DynaMOSA, aDynaMOSA) also
    /// puts them in its first population, filled up with random tests; whole-suite, MIO and
    /// random search only take their archive entries and start from random tests as usual.
    pub seeds: Vec<TestCase>,
    /// Stop after this many generations in a row without a newly covered goal (`None`: only
    /// the budget or full coverage stop the search). For MIO a generation is one report, every
    /// `population` executions.
    pub stall_generations: Option<u32>,
    /// Which test keeps a goal two tests cover, instead of the algorithm's own rule (shorter
    /// for MOSA and DynaMOSA, Eq. 1 for aDynaMOSA).
    pub archive: Option<ArchivePolicy>,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            algorithm: AlgorithmKind::ADynaMosa,
            seed: 0,
            budget: Budget::Executions(10_000),
            population: 50,
            crossover_rate: 0.75,
            tournament: 10,
            operators: OperatorParams::default(),
            wholesuite: WholeSuiteParams::default(),
            mio: MioParams::default(),
            seeds: Vec::new(),
            stall_generations: None,
            archive: None,
        }
    }
}

/// Why a search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The budget ran out (or the algorithm had nothing left to evolve).
    Budget,
    /// Every goal the search pursues is covered.
    AllCovered,
    /// [`SearchParams::stall_generations`] generations passed without a newly covered goal.
    Stalled,
}

impl StopReason {
    /// The name summaries use: `budget`, `all-covered`, `stalled`.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Budget => "budget",
            StopReason::AllCovered => "all-covered",
            StopReason::Stalled => "stalled",
        }
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What [`run_search`] found and spent.
#[derive(Debug, Clone)]
pub struct SearchOutcome {
    /// The best test per covered goal, deferred goals included.
    pub archive: Archive,
    /// Executions used, the seeds' included.
    pub executions: u64,
    /// Why the search ended.
    pub stop: StopReason,
    /// Seeds executed (the budget may cut them short) and the searched goals they covered
    /// before the first generation.
    pub seeds_executed: usize,
    /// Searched goals the seeds covered before the first generation (the archive's size then).
    pub seed_covered: usize,
}

/// Progress after each generation (or batch, for random search).
#[derive(Debug, Clone)]
pub struct Generation {
    /// The generation's number, from 1.
    pub number: u64,
    /// Executions so far, the seeds' included.
    pub executions: u64,
    /// Goals covered so far (the archive's size; deferred goals are not archived while searching).
    pub covered: usize,
    /// Every goal of the subject, deferred ones included.
    pub goals: usize,
    /// Share of the budget used.
    pub progress: f64,
}

/// Receives progress; the CLI draws a bar with it, the daemon stores it.
pub trait Observer {
    /// Called after each generation with the progress so far.
    fn generation(&mut self, g: &Generation);
}

impl Observer for () {
    fn generation(&mut self, _: &Generation) {}
}

/// An executed test with its performance proxies.
pub struct Evaluated {
    /// The test as executed.
    pub test: TestCase,
    /// What its execution reported.
    pub result: ExecResult,
    /// The performance proxies computed from the test and its result.
    pub proxies: frugal_proxies::Proxies,
}

/// What an algorithm needs from the run: the executor, the archive and the budget.
pub struct Context<'a> {
    pub schema: &'a Schema,
    pub goals: &'a Goals,
    pub builder: Builder<'a>,
    pub executor: &'a mut dyn Executor,
    pub archive: Archive,
    pub clock: BudgetClock,
    pub rng: ChaCha8Rng,
    pub params: SearchParams,
    generation: u64,
    observer: &'a mut dyn Observer,
    /// The executed seeds, until the algorithm takes them ([`Context::take_seeded`]).
    seeded: Vec<Evaluated>,
    /// Generation of the last newly covered goal, and the archive's size then.
    last_gain: (u64, usize),
    stalled: bool,
    quarantine: Quarantine,
}

/// Per operation: executions that crashed or hung with it in the test, and that ran it.
struct Quarantine {
    crashed_with: Vec<u32>,
    ran_ok: Vec<u32>,
}

impl Quarantine {
    /// Bans calls that take the harness down every time: each crash costs a process restart
    /// (or a whole timeout), and hostile code must not eat the budget.
    fn tally(&mut self, banned: &mut [bool], t: &TestCase, r: &ExecResult) {
        let calls = |upto: usize| t.stmts[..upto.min(t.len())].iter().map(|s| s.op as usize);
        match r.status {
            crate::Status::Crashed { .. } | crate::Status::Timeout => {
                for op in calls(t.len()) {
                    self.crashed_with[op] += 1;
                    if self.crashed_with[op] >= QUARANTINE_AFTER && self.ran_ok[op] == 0 {
                        banned[op] = true;
                    }
                }
            }
            _ => calls(r.completed).for_each(|op| self.ran_ok[op] += 1),
        }
    }
}

/// Crashes or hangs, with no clean run, after which an operation is no longer inserted.
const QUARANTINE_AFTER: u32 = 3;

/// Takes in one executed test: its proxies, the archive's offer, the quarantine's tally.
fn take_in(
    schema: &Schema,
    archive: &mut Archive,
    quarantine: &mut Quarantine,
    banned: &mut [bool],
    test: &TestCase,
    result: &ExecResult,
) -> frugal_proxies::Proxies {
    let proxies = crate::perf::proxies(test, result, schema);
    archive.update(test, result, &proxies);
    quarantine.tally(banned, test, result);
    proxies
}

impl Context<'_> {
    /// Runs tests (cut to the remaining execution budget), updating archive and clock.
    pub fn evaluate(&mut self, tests: Vec<TestCase>) -> Vec<Evaluated> {
        let allowed = self.clock.remaining_executions().min(tests.len() as u64) as usize;
        let tests: Vec<TestCase> = tests.into_iter().take(allowed).collect();
        if tests.is_empty() {
            return Vec::new();
        }
        let results = self.executor.execute(&tests);
        self.record(tests, results)
    }

    /// [`Context::evaluate`] for `n` tests that `make` produces a few at a time: each few start
    /// running while the next are made, so the harnesses and the search work side by side.
    /// The tests, their order and so the results are those of making all `n` first.
    pub fn evaluate_made(
        &mut self,
        n: usize,
        mut make: impl FnMut(&mut Self) -> Vec<TestCase>,
    ) -> Vec<Evaluated> {
        let allowed = self.clock.remaining_executions().min(n as u64) as usize;
        // Small enough that every harness gets work early, large enough to keep messages few.
        let chunk = (n / 8).max(2);
        let mut tests: Vec<TestCase> = Vec::with_capacity(n + 1);
        let (mut started, mut streaming) = (0, true);
        while tests.len() < n {
            let made = make(self);
            if made.is_empty() {
                break;
            }
            tests.extend(made);
            let ready = tests.len().min(allowed);
            while streaming && ready - started >= chunk {
                streaming = self.executor.start(&tests[started..started + chunk]);
                started += chunk;
            }
        }
        // `make` may overshoot `n`; `allowed` is at most `n`.
        tests.truncate(allowed);
        if tests.is_empty() {
            return Vec::new();
        }
        // `started` counts a refused first part too; then nothing runs in the background.
        if !streaming {
            let results = self.executor.execute(&tests);
            return self.record(tests, results);
        }
        let rest = &tests[started.min(tests.len())..];
        if !rest.is_empty() {
            self.executor.start(rest);
        }
        // Each result is taken in as it comes, in order, while later tests still run.
        let mut taken = Vec::with_capacity(tests.len());
        let schema = self.schema;
        let (archive, quarantine) = (&mut self.archive, &mut self.quarantine);
        let banned = &mut self.builder.banned;
        self.executor.finish_each(&tests, &mut |i, result| {
            let test = &tests[i];
            let proxies = take_in(schema, archive, quarantine, banned, test, &result);
            taken.push((result, proxies));
        });
        self.counted(tests, taken)
    }

    /// Counts executed tests and offers them to the archive.
    fn record(&mut self, tests: Vec<TestCase>, results: Vec<ExecResult>) -> Vec<Evaluated> {
        let mut taken = Vec::with_capacity(results.len());
        for (test, result) in tests.iter().zip(results) {
            let (archive, quarantine) = (&mut self.archive, &mut self.quarantine);
            let banned = &mut self.builder.banned;
            let proxies = take_in(self.schema, archive, quarantine, banned, test, &result);
            taken.push((result, proxies));
        }
        self.counted(tests, taken)
    }

    /// Counts tests taken in and pairs them with their results.
    fn counted(
        &mut self,
        tests: Vec<TestCase>,
        taken: Vec<(ExecResult, frugal_proxies::Proxies)>,
    ) -> Vec<Evaluated> {
        self.clock.executions += taken.len() as u64;
        let out = tests
            .into_iter()
            .zip(taken)
            .map(|(test, (result, proxies))| Evaluated {
                test,
                result,
                proxies,
            })
            .collect();
        for op in self.executor.environment_ops() {
            if let Some(banned) = self.builder.banned.get_mut(op as usize) {
                *banned = true;
            }
        }
        out
    }

    /// The budget is spent, every goal is covered, or the search stalled.
    pub fn done(&self) -> bool {
        self.clock.spent() || self.all_covered() || self.stalled
    }

    fn all_covered(&self) -> bool {
        self.archive.len() >= self.goals.searched_len()
    }

    /// The executed seeds ([`SearchParams::seeds`]), for an algorithm's first population;
    /// empty after the first call.
    pub fn take_seeded(&mut self) -> Vec<Evaluated> {
        std::mem::take(&mut self.seeded)
    }

    /// Reports a finished generation, and notes a stall.
    pub fn report(&mut self) {
        self.generation += 1;
        if self.archive.len() > self.last_gain.1 {
            self.last_gain = (self.generation, self.archive.len());
        } else if let Some(n) = self.params.stall_generations {
            self.stalled |= self.generation - self.last_gain.0 >= u64::from(n);
        }
        let g = Generation {
            number: self.generation,
            executions: self.clock.executions,
            covered: self.archive.len(),
            goals: self.goals.len(),
            progress: self.clock.progress(),
        };
        self.observer.generation(&g);
    }
}

/// A search algorithm: runs until the context says it is done.
pub trait Algorithm {
    /// Evolves tests through the context until [`Context::done`]; the context counts executions,
    /// keeps the archive and reports generations.
    fn run(&mut self, cx: &mut Context<'_>);
}

/// Runs the selected algorithm, from the seeds if there are any, until the budget is spent,
/// every goal is covered or the search stalls.
pub fn run_search(
    schema: &Schema,
    goals: &Goals,
    executor: &mut dyn Executor,
    params: &SearchParams,
    observer: &mut dyn Observer,
) -> SearchOutcome {
    let mut builder = Builder::new(schema);
    builder.params = params.operators.clone();
    let mut cx = Context {
        schema,
        goals,
        builder,
        executor,
        archive: {
            let policy = params.archive.unwrap_or(params.algorithm.archive_policy());
            let mut a = Archive::new(policy);
            a.ignore(goals.deferred());
            a
        },
        clock: BudgetClock::start(params.budget),
        rng: ChaCha8Rng::seed_from_u64(params.seed),
        params: params.clone(),
        generation: 0,
        observer,
        seeded: Vec::new(),
        last_gain: (0, 0),
        stalled: false,
        quarantine: Quarantine {
            crashed_with: vec![0; schema.ops.len()],
            ran_ok: vec![0; schema.ops.len()],
        },
    };
    let seeds: Vec<TestCase> = params
        .seeds
        .iter()
        .filter(|t| t.check(schema).is_ok())
        .cloned()
        .collect();
    let seeded = !seeds.is_empty();
    cx.seeded = cx.evaluate(seeds);
    let seeds_executed = cx.seeded.len();
    let seed_covered = cx.archive.len();
    cx.last_gain = (0, seed_covered);
    // Seeds that already cover everything leave nothing to search for; without seeds the
    // first population is always evaluated, as it always was.
    let search = !seeded || !cx.done();
    if search && !schema.calls().is_empty() {
        let mut algorithm: Box<dyn Algorithm> = match params.algorithm {
            AlgorithmKind::Random => Box::new(crate::random::RandomSearch),
            AlgorithmKind::Mosa => Box::new(ManyObjective::new(false, false)),
            AlgorithmKind::DynaMosa => Box::new(ManyObjective::new(true, false)),
            AlgorithmKind::ADynaMosa => Box::new(ManyObjective::new(true, true)),
            AlgorithmKind::WholeSuite => Box::new(crate::wholesuite::WholeSuite::new()),
            AlgorithmKind::Mio => Box::new(crate::mio::Mio::new()),
        };
        algorithm.run(&mut cx);
    }
    let stop = if cx.stalled {
        StopReason::Stalled
    } else if cx.all_covered() {
        StopReason::AllCovered
    } else {
        StopReason::Budget
    };
    cx.archive.include_deferred();
    SearchOutcome {
        archive: cx.archive,
        executions: cx.clock.executions,
        stop,
        seeds_executed,
        seed_covered,
    }
}
