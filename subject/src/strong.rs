//! Strong mutation: which of frugal's own mutants (the weak-mutation schemata of
//! `instrument/mutants.rs`, run with `--criteria ...,weak-mutation`) the kept tests really kill.
//!
//! A test *infects* a mutant when the mutant's state differs from the original's at some
//! execution (the weak-mutation goal is covered). It *kills* it when what the test observes
//! differs with the mutant switched on (`frugal_probe::mutants::activate`): how it ends (a panic
//! and its message, a timeout), the value each statement returned (its `Debug` form) and the
//! state each call left in values it borrowed mutably. Only infecting tests can kill, so only
//! they run again, one batch per mutant. A mutant infected but never killed survives: no
//! emitted test would fail on it; one no test infects is not infected.
//!
//! It must not know how tests are rendered or verified: the pipeline maps kills to emitted tests.

use std::collections::BTreeSet;

use frugal_search::{ExecResult, Executor, Status};
use serde::Serialize;

use crate::criteria::{Discovered, Plan};
use crate::emit::minimise::Kept;
use crate::executor::ExecutorPool;

/// Survivors listed in the summary at most; the count covers them all.
const SURVIVORS_LISTED: usize = 50;

/// Runs each mutant some kept test infects with those tests, the mutant switched on, and
/// compares what they observe with `baseline` (the same tests, every mutant off, observing).
/// Fills in each test's `kills`; returns the executions that took.
pub fn kills(
    pool: &mut ExecutorPool,
    plan: &Plan,
    kept: &mut [Kept],
    baseline: &[ExecResult],
) -> u64 {
    let mut executions = 0;
    for (manifest, search) in plan.mutants() {
        let infecting: Vec<usize> = (0..kept.len())
            .filter(|&i| kept[i].result.covers(search))
            .collect();
        if infecting.is_empty() {
            continue;
        }
        pool.switch_mutant(Some(manifest));
        let tests: Vec<_> = infecting.iter().map(|&i| kept[i].test.clone()).collect();
        let results = pool.execute(&tests);
        executions += tests.len() as u64;
        for (&i, mutated) in infecting.iter().zip(&results) {
            if observed_differently(&baseline[i], mutated) {
                kept[i].kills.insert(search);
            }
        }
    }
    pool.switch_mutant(None);
    executions
}

/// Whether a test observes something else: how it ended, a returned value, a state left behind.
pub fn observed_differently(original: &ExecResult, mutated: &ExecResult) -> bool {
    let ended = match (&original.status, &mutated.status) {
        (
            Status::Panicked {
                message: a,
                location: la,
            },
            Status::Panicked {
                message: b,
                location: lb,
            },
        ) => a != b || la != lb,
        (a, b) => std::mem::discriminant(a) != std::mem::discriminant(b),
    };
    ended
        || original.completed != mutated.completed
        || original.summaries != mutated.summaries
        || original.observed != mutated.observed
}

/// The mutation figures of the emitted suite.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MutationScore {
    /// frugal's own mutants (ROR and AOR schemata) in the crate.
    pub mutants: usize,
    /// Killed by some emitted test: it would fail on the mutated crate.
    pub killed: usize,
    /// Infected by some emitted test, killed by none.
    pub survived: usize,
    /// Infected by no emitted test.
    pub not_infected: usize,
    /// `killed / mutants`.
    pub score: f64,
    /// Survivors, `file:line label` (the first [`SURVIVORS_LISTED`]).
    pub survivors: Vec<String>,
    /// Executions the strong-mutation runs took.
    pub executions: u64,
    /// Their wall time, with the run that records what the unmutated tests observe.
    pub seconds: f64,
}

impl MutationScore {
    /// The figures over the emitted tests: `killed` and `covered` are the union of their kills
    /// and of their covered goals; `runs` the executions and seconds the strong-mutation runs
    /// took.
    pub fn new(
        plan: &Plan,
        found: &Discovered,
        killed: &BTreeSet<u32>,
        covered: &BTreeSet<u32>,
        runs: (u64, f64),
    ) -> MutationScore {
        let mutants: Vec<u32> = plan.mutants().map(|(_, search)| search).collect();
        let survivors: Vec<u32> = mutants
            .iter()
            .copied()
            .filter(|g| covered.contains(g) && !killed.contains(g))
            .collect();
        let killed_n = mutants.iter().filter(|g| killed.contains(g)).count();
        let infected = mutants.iter().filter(|g| covered.contains(g)).count();
        MutationScore {
            mutants: mutants.len(),
            killed: killed_n,
            survived: survivors.len(),
            not_infected: mutants.len() - infected,
            score: if mutants.is_empty() {
                0.0
            } else {
                killed_n as f64 / mutants.len() as f64
            },
            survivors: survivors
                .iter()
                .take(SURVIVORS_LISTED)
                .map(|&g| {
                    let info = &plan.goals[g as usize];
                    format!("{}:{} {}", info.file, info.line, plan.label(g, found))
                })
                .collect(),
            executions: runs.0,
            seconds: runs.1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frugal_search::{Counters, Observation};

    fn result(status: Status, summaries: &[&str], observed: &[&str]) -> ExecResult {
        ExecResult {
            status,
            completed: summaries.len(),
            goals: Vec::new(),
            summaries: summaries.iter().map(|s| Some(s.to_string())).collect(),
            observed: observed
                .iter()
                .map(|s| Observation {
                    stmt: 0,
                    param: 0,
                    items: false,
                    summary: s.to_string(),
                })
                .collect(),
            counters: Counters::default(),
        }
    }

    #[test]
    fn a_mutant_is_killed_by_what_the_test_observes_only() {
        let original = result(Status::Completed, &["1", "2"], &["[3]"]);
        let same = result(Status::Completed, &["1", "2"], &["[3]"]);
        assert!(!observed_differently(&original, &same));
        let returned = result(Status::Completed, &["1", "3"], &["[3]"]);
        assert!(observed_differently(&original, &returned));
        let left = result(Status::Completed, &["1", "2"], &["[]"]);
        assert!(
            observed_differently(&original, &left),
            "the state a call left"
        );
        let panicked = result(
            Status::Panicked {
                message: "stack overflow".into(),
                location: "src/lib.rs:3:9".into(),
            },
            &["1", "2"],
            &["[3]"],
        );
        assert!(observed_differently(&original, &panicked));
        let elsewhere = result(
            Status::Panicked {
                message: "stack overflow".into(),
                location: "src/lib.rs:9:9".into(),
            },
            &["1", "2"],
            &["[3]"],
        );
        assert!(observed_differently(&panicked, &elsewhere));
        assert!(observed_differently(
            &original,
            &result(Status::Timeout, &["1", "2"], &["[3]"])
        ));
    }
}
