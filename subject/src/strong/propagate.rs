//! Strong-mutation goals (`--criteria ...,strong-mutation`): a mutant is covered only by a test
//! that *kills* it, so the search keeps pursuing a mutant its tests infect but never show.
//!
//! [`Propagate`] wraps the executor pool, below the goal derivation. After each batch it looks at
//! the mutant goals the probes report:
//! - not infected (the weak distance `d > 0`): `0.5 + d / 2`, so every infecting test is closer;
//! - infected (`d == 0`): the test runs again with the mutant on ([`ExecutorPool::judge`]). If
//!   what it observes differs (its ending, a returned value, the state a call left: the same
//!   judgement as the final kills, `super::seen`), the distance stays 0; otherwise it becomes
//!   [`INFECTED`]. The fitness is thus the infection distance first, then whether the infection
//!   reaches what the test observes (EvoSuite's strong mutation, \[evosuite\]).
//!
//! Cost is bounded: a mutant is judged on at most one test per batch, at most
//! [`ATTEMPTS`] times without a kill (after that it is likely equivalent, and its infecting
//! tests stay at [`INFECTED`]). Past that, a test is still judged for it when it holds a
//! boundary integer (`±2^k`, `±10^k`, or one less; [`frugal_search::is_boundary_int`]) not
//! judged for that mutant before, up to [`BOUNDARY_ATTEMPTS`] more times: some mutants show
//! only at such a value, and random tests rarely draw one among the first attempts (itoa's
//! `u128_mulhi` carries change the quotient only at exact multiples of `10^19`). Once killed,
//! later tests are not judged for it, so the archive keeps the judged killer. Verdicts are remembered per test, so the minimiser's re-runs of the
//! same tests are not judged again. The minimiser's shortened tests are judged for every
//! mutant they infect ([`Propagate::thorough_switch`]), except mutants that kill by crashing
//! or hanging the test: any infecting test counts as killing those.

use std::collections::{BTreeSet, HashMap};
use std::time::Instant;

use frugal_search::{ExecResult, Executor, Status, TestCase};

use super::Seen;
use crate::executor::{ExecutorPool, test_key};

/// The distance of a mutant goal for a test that infects the mutant but does not kill it
/// (normalised distances lie in `[0, 1)`; non-infecting tests are mapped above 0.5).
pub const INFECTED: f64 = 0.25;

/// Judgements of one mutant without a kill, after which it is no longer judged.
pub const ATTEMPTS: u16 = 12;

/// Judgements of one mutant past [`ATTEMPTS`], each on a test holding a boundary integer not
/// judged for it before.
pub const BOUNDARY_ATTEMPTS: u16 = 24;

/// Boundary integers up to this magnitude are among the values random draws give most often
/// (`-10..=100`), so the first [`ATTEMPTS`] have most likely tried them.
const COMMON: u128 = 100;

/// Mutants judged per batch at most: the first batches infect many at once.
const PER_BATCH: usize = 96;

/// What the strong-mutation judgements of a search cost and found.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PropagateStats {
    /// Judgements of one mutant on one test.
    pub judged: u64,
    /// Of which killed.
    pub killed: u64,
    /// Executions they took (unmutated and mutated runs).
    pub executions: u64,
    /// Wall time of the judgements, in seconds.
    pub seconds: f64,
}

/// The executor wrapper; see the module doc.
pub struct Propagate<'a> {
    pool: &'a mut ExecutorPool,
    /// Per manifest goal id: whether it is a mutant goal, killed by a judged test, judged
    /// without a kill how often.
    mutant: Vec<bool>,
    killed: Vec<bool>,
    /// Killed by making the test crash or time out: every test that infects such a mutant
    /// most likely does the same, so the minimiser's tests are not judged for it (each judged
    /// crash costs a harness restart).
    ends_run: Vec<bool>,
    attempts: Vec<u16>,
    /// Per mutant: the boundary integers of the tests judged for it.
    boundaries: HashMap<u32, BTreeSet<i128>>,
    /// Whether any goal is a mutant goal (else this wrapper only passes results through).
    any: bool,
    /// Judge every infecting test, also for mutants killed or given up on: set for the
    /// minimiser, whose shortened tests must show their kills again to keep them.
    thorough: std::rc::Rc<std::cell::Cell<bool>>,
    /// Manifest ids of the mutants some test infected.
    infected: BTreeSet<u32>,
    verdicts: Verdicts,
    /// What the judgements cost and found so far.
    pub stats: PropagateStats,
}

impl<'a> Propagate<'a> {
    /// `mutants`: the manifest goal ids of the selected mutant goals; `goals`: how many
    /// manifest goals there are.
    pub fn new(
        pool: &'a mut ExecutorPool,
        mutants: impl Iterator<Item = u32>,
        goals: usize,
    ) -> Self {
        let mut mutant = vec![false; goals];
        for m in mutants {
            if let Some(slot) = mutant.get_mut(m as usize) {
                *slot = true;
            }
        }
        Propagate {
            pool,
            any: mutant.contains(&true),
            thorough: Default::default(),
            mutant,
            killed: vec![false; goals],
            ends_run: vec![false; goals],
            attempts: vec![0; goals],
            boundaries: HashMap::new(),
            infected: BTreeSet::new(),
            verdicts: Verdicts::default(),
            stats: PropagateStats::default(),
        }
    }

    /// A switch that makes every infecting test be judged (for the minimiser; see the field).
    pub fn thorough_switch(&self) -> std::rc::Rc<std::cell::Cell<bool>> {
        self.thorough.clone()
    }

    /// Manifest ids of the mutants some test the search ran infected.
    pub fn infected(&self) -> &BTreeSet<u32> {
        &self.infected
    }

    /// The verdicts, for judging the emitted tests without running again what crashed.
    pub fn into_verdicts(self) -> Verdicts {
        self.verdicts
    }

    fn is_mutant(&self, g: u32) -> bool {
        self.mutant.get(g as usize).copied().unwrap_or(false)
    }

    /// Rewrites the mutant goals' distances of `results` (see the module doc), judging what it
    /// must first.
    fn propagate(&mut self, tests: &[TestCase], results: &mut [ExecResult]) {
        if !self.any {
            return;
        }
        let keys: Vec<u64> = tests.iter().map(test_key).collect();
        let wanted = self.wanted(tests, &keys, results);
        if !wanted.is_empty() {
            self.judge(tests, &keys, wanted);
        }
        for (key, r) in keys.iter().zip(results.iter_mut()) {
            let verdicts = self.verdicts.0.get(key);
            for (g, d) in r.goals.iter_mut() {
                if !self.is_mutant(*g) {
                    continue;
                }
                if *d > 0.0 {
                    *d = 0.5 + *d / 2.0;
                    continue;
                }
                self.infected.insert(*g);
                let kills = verdicts.is_some_and(|v| v.iter().any(|&(m, k)| m == *g && k.kills()))
                    || (self.thorough.get() && self.ends_run[*g as usize]);
                if !kills {
                    *d = INFECTED;
                }
            }
        }
    }

    /// Whether mutant `g` is open for `test`: not killed, and within its [`ATTEMPTS`], or
    /// within its [`BOUNDARY_ATTEMPTS`] and `test` holds a boundary integer not judged for it.
    fn open_for(&self, g: u32, test: &TestCase) -> bool {
        let attempts = self.attempts[g as usize];
        if self.killed[g as usize] || attempts >= ATTEMPTS + BOUNDARY_ATTEMPTS {
            return false;
        }
        attempts < ATTEMPTS || {
            let tried = self.boundaries.get(&g);
            boundary_ints(test).any(|v| !tried.is_some_and(|t| t.contains(&v)))
        }
    }

    /// The (mutant, test index) pairs to judge in this batch: per infected mutant not killed
    /// yet and not given up on, its shortest infecting test not judged for it before.
    fn wanted(
        &self,
        tests: &[TestCase],
        keys: &[u64],
        results: &[ExecResult],
    ) -> Vec<(u32, usize)> {
        let mut best: HashMap<u32, usize> = HashMap::new();
        for (i, r) in results.iter().enumerate() {
            let judged = self.verdicts.0.get(&keys[i]);
            for &(g, d) in &r.goals {
                if !self.is_mutant(g) || d != 0.0 {
                    continue;
                }
                let open = ((self.thorough.get() && !self.ends_run[g as usize])
                    || self.open_for(g, &tests[i]))
                    && !judged.is_some_and(|v| v.iter().any(|&(m, _)| m == g));
                if !open {
                    continue;
                }
                let e = best.entry(g).or_insert(i);
                if results[i].completed < results[*e].completed {
                    *e = i;
                }
            }
        }
        let mut wanted: Vec<(u32, usize)> = best.into_iter().collect();
        wanted.sort_unstable();
        if !self.thorough.get() {
            wanted.truncate(PER_BATCH);
        }
        wanted
    }

    /// Runs the judgements and records their verdicts.
    fn judge(&mut self, tests: &[TestCase], keys: &[u64], wanted: Vec<(u32, usize)>) {
        let began = Instant::now();
        // The judged tests, each once, and per mutant its one test among them.
        let mut picked: Vec<usize> = wanted.iter().map(|&(_, i)| i).collect();
        picked.sort_unstable();
        picked.dedup();
        let run: Vec<TestCase> = picked.iter().map(|&i| tests[i].clone()).collect();
        let per_mutant: Vec<(u32, Vec<usize>)> = wanted
            .iter()
            .map(|&(g, i)| (g, vec![picked.binary_search(&i).unwrap_or(0)]))
            .collect();
        let judged = self.pool.judge(&run, &per_mutant);
        for ((g, at), mutated) in per_mutant.iter().zip(&judged.mutated) {
            let (Some(&j), Some(m)) = (at.first(), mutated.first()) else {
                continue;
            };
            let base = &judged.baseline[j];
            let verdict = match super::seen(base, m) {
                Seen::Nothing => Verdict::Survived,
                _ if ends_run(m) && !ends_run(base) => Verdict::EndedRun,
                _ => Verdict::Killed,
            };
            self.stats.judged += 1;
            self.boundaries
                .entry(*g)
                .or_default()
                .extend(boundary_ints(&run[j]));
            if verdict.kills() {
                self.stats.killed += 1;
                self.killed[*g as usize] = true;
                self.ends_run[*g as usize] |= verdict == Verdict::EndedRun;
            } else {
                self.attempts[*g as usize] += 1;
            }
            self.verdicts
                .0
                .entry(keys[picked[j]])
                .or_default()
                .push((*g, verdict));
        }
        self.stats.executions += judged.executions;
        self.stats.seconds += began.elapsed().as_secs_f64();
    }
}

/// The boundary integers of `test` above the [`COMMON`] magnitudes.
fn boundary_ints(test: &TestCase) -> impl Iterator<Item = i128> + '_ {
    test.stmts.iter().filter_map(|s| match s.value {
        Some(frugal_search::Value::Int(v))
            if v.unsigned_abs() > COMMON && frugal_search::is_boundary_int(v) =>
        {
            Some(v)
        }
        _ => None,
    })
}

/// How a judged test fared against one mutant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Survived,
    Killed,
    /// Killed: with the mutant on the test crashed or timed out, and did not without it.
    EndedRun,
}

impl Verdict {
    fn kills(self) -> bool {
        self != Verdict::Survived
    }
}

/// Per test (by [`test_key`]): the mutants (manifest ids) judged on it, with the verdicts.
#[derive(Debug, Default)]
pub struct Verdicts(HashMap<u64, Vec<(u32, Verdict)>>);

impl Verdicts {
    /// Whether mutant `manifest` was judged killed by `test` (the same statements).
    pub fn killed(&self, test: &TestCase, manifest: u32) -> bool {
        self.0
            .get(&test_key(test))
            .is_some_and(|v| v.iter().any(|&(m, k)| m == manifest && k.kills()))
    }

    /// Whether mutant `manifest` was seen to crash or hang `test`: judging it again would
    /// only cost a harness restart or a timeout.
    pub fn ended_run(&self, test: &TestCase, manifest: u32) -> bool {
        self.0
            .get(&test_key(test))
            .is_some_and(|v| v.contains(&(manifest, Verdict::EndedRun)))
    }
}

/// Whether a mutated run crashed its harness or timed out.
pub(super) fn ends_run(r: &ExecResult) -> bool {
    matches!(r.status, Status::Crashed { .. } | Status::Timeout)
}

impl Executor for Propagate<'_> {
    fn execute(&mut self, tests: &[TestCase]) -> Vec<ExecResult> {
        let mut results = self.pool.execute(tests);
        self.propagate(tests, &mut results);
        results
    }

    fn start(&mut self, tests: &[TestCase]) -> bool {
        self.pool.start(tests)
    }

    fn finish(&mut self, tests: &[TestCase]) -> Vec<ExecResult> {
        let mut results = self.pool.finish(tests);
        self.propagate(tests, &mut results);
        results
    }

    fn environment_ops(&mut self) -> Vec<u32> {
        self.pool.environment_ops()
    }
}
