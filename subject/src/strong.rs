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

use frugal_search::{ExecResult, Executor, Observation, Status};
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
) -> Kills {
    let mut executions = 0;
    // Per test: for each mutant only its state observations see, which of them do.
    let mut by_state: Vec<Vec<Vec<usize>>> = vec![Vec::new(); kept.len()];
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
            match seen(&baseline[i], mutated) {
                Seen::Nothing => continue,
                Seen::Always => {}
                Seen::State(which) => by_state[i].push(which),
            }
            kept[i].kills.insert(search);
        }
    }
    pool.switch_mutant(None);
    if plan.mutants().next().is_none() {
        // Nothing to judge assertions by: every state observation stays.
        return Kills::default();
    }
    let mut state = (0, 0);
    for (k, (by_state, base)) in kept.iter_mut().zip(by_state.iter().zip(baseline)) {
        let before = k.result.observed.len();
        // A run that went another way than the kept one is not the one rendered.
        if k.result.observed == base.observed {
            k.result.observed = needed(&base.observed, by_state);
        }
        state.0 += before;
        state.1 += k.result.observed.len();
    }
    Kills {
        executions,
        state_observed: state.0,
        state_kept: state.1,
    }
}

/// What the strong-mutation runs took, and what they left of the state assertions.
#[derive(Debug, Clone, Copy, Default)]
pub struct Kills {
    pub executions: u64,
    /// State observations of the kept tests before minimisation, and kept after.
    pub state_observed: usize,
    pub state_kept: usize,
}

/// How a mutant's run differed from the original's, as far as an emitted test would see.
#[derive(Debug, PartialEq)]
enum Seen {
    Nothing,
    /// In how the test ended or a returned value: asserted whatever else is kept.
    Always,
    /// Only in these state observations (indices into the original's).
    State(Vec<usize>),
}

fn seen(original: &ExecResult, mutated: &ExecResult) -> Seen {
    if !observed_differently(original, mutated) {
        return Seen::Nothing;
    }
    if ended_differently(original, mutated) || original.summaries != mutated.summaries {
        return Seen::Always;
    }
    let which: Vec<usize> = original
        .observed
        .iter()
        .enumerate()
        .filter(|(_, o)| !mutated.observed.contains(o))
        .map(|(j, _)| j)
        .collect();
    if which.is_empty() {
        // The mutant observed something the original did not: only its ending tells.
        Seen::Always
    } else {
        Seen::State(which)
    }
}

/// The state observations worth asserting (EvoSuite's assertion minimisation, per test):
/// greedily, the one that alone tells apart the most mutants not yet told apart, until every
/// mutant only state shows is; the others would kill nothing the kept ones do not.
fn needed(observed: &[Observation], by_state: &[Vec<usize>]) -> Vec<Observation> {
    let mut left: Vec<&Vec<usize>> = by_state.iter().collect();
    let mut keep = BTreeSet::new();
    while !left.is_empty() {
        let best = (0..observed.len()).max_by_key(|j| {
            (
                left.iter().filter(|w| w.contains(j)).count(),
                usize::MAX - j,
            )
        });
        let Some(best) = best else { break };
        keep.insert(best);
        left.retain(|w| !w.contains(&best));
    }
    observed
        .iter()
        .enumerate()
        .filter(|(j, _)| keep.contains(j))
        .map(|(_, o)| o.clone())
        .collect()
}

/// Whether a test observes something else: how it ended, a returned value, a state left behind.
pub fn observed_differently(original: &ExecResult, mutated: &ExecResult) -> bool {
    ended_differently(original, mutated)
        || original.summaries != mutated.summaries
        || original.observed != mutated.observed
}

/// Whether a test ends another way: its status, a panic's message or place, its last statement.
fn ended_differently(original: &ExecResult, mutated: &ExecResult) -> bool {
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
    ended || original.completed != mutated.completed
}

/// The mutation figures of the emitted suite.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MutationScore {
    /// frugal's own mutants (ROR, AOR and FBR schemata) in the crate.
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
    /// State observations (what `&mut` calls left behind) of the kept tests, and how many of
    /// them are asserted after minimisation: those that kill a mutant nothing else kept in
    /// their test kills.
    pub state_observed: usize,
    pub state_asserted: usize,
}

impl MutationScore {
    /// The figures over the emitted tests: `killed` and `covered` are the union of their kills
    /// and of their covered goals; `runs` what the strong-mutation runs took and left,
    /// `seconds` their wall time.
    pub fn new(
        plan: &Plan,
        found: &Discovered,
        (killed, covered): (&BTreeSet<u32>, &BTreeSet<u32>),
        runs: Kills,
        seconds: f64,
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
            executions: runs.executions,
            seconds,
            state_observed: runs.state_observed,
            state_asserted: runs.state_kept,
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
                    look: frugal_search::Look::Debug,
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

    /// A mutant seen in a returned value needs no state assertion; one seen only in state
    /// names the observations that show it; the fewest observations that show every such
    /// mutant are kept, the first of equals.
    #[test]
    fn state_assertions_are_kept_for_the_mutants_only_they_kill() {
        let original = result(Status::Completed, &["1"], &["a", "b", "c", "d"]);
        let returned = result(Status::Completed, &["2"], &["x", "b", "c", "d"]);
        assert_eq!(seen(&original, &returned), Seen::Always);
        let in_b_and_c = result(Status::Completed, &["1"], &["a", "x", "y", "d"]);
        assert_eq!(seen(&original, &in_b_and_c), Seen::State(vec![1, 2]));
        assert_eq!(seen(&original, &original.clone()), Seen::Nothing);
        let in_c = result(Status::Completed, &["1"], &["a", "b", "y", "d"]);
        let in_a = result(Status::Completed, &["1"], &["x", "b", "c", "d"]);
        let by_state: Vec<Vec<usize>> = [&in_b_and_c, &in_c, &in_a]
            .iter()
            .map(|m| match seen(&original, m) {
                Seen::State(w) => w,
                other => panic!("{other:?}"),
            })
            .collect();
        let kept = needed(&original.observed, &by_state);
        let kept: Vec<&str> = kept.iter().map(|o| o.summary.as_str()).collect();
        // `c` shows two mutants, `a` the third; `b` and `d` would add no kill.
        assert_eq!(kept, ["a", "c"]);
        assert!(needed(&original.observed, &[]).is_empty());
    }
}
