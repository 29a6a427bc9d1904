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

mod propagate;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use frugal_search::{ExecResult, Executor, Observation, Status};
use serde::Serialize;

use crate::criteria::{Discovered, Plan};
use crate::emit::minimise::Kept;
use crate::executor::{ExecutorPool, mutated_timeout};
pub use propagate::{INFECTED, Propagate, PropagateStats, Verdicts};

/// Survivors listed in the summary at most; the count covers them all.
const SURVIVORS_LISTED: usize = 50;

/// Runs each mutant some kept test infects with those tests, the mutant switched on, and
/// compares what they observe with `baseline` (the same tests, every mutant off, observing;
/// `baseline_time` is what those runs took, which bounds a mutated run's time, see
/// [`mutated_timeout`]; `known` the search's verdicts, whose kills are not run again). Fills in
/// each test's `kills` (see [`judge_mutant`] for which tests are judged); returns the
/// executions that took.
/// Mutants left when `deadline` passes are not judged (counted in [`Kills::unjudged`]): the
/// phase stays within the run's budget.
pub fn kills(
    pool: &mut ExecutorPool,
    plan: &Plan,
    kept: &mut [Kept],
    (baseline, baseline_time): (&[ExecResult], Duration),
    known: &Verdicts,
    deadline: Option<Instant>,
) -> Kills {
    let mut runs = Kills::default();
    let cap = pool.set_timeout(Duration::ZERO);
    pool.set_timeout(mutated_timeout(baseline_time, kept.len(), cap));
    // Per test: for each mutant only its state observations see, which of them do.
    let mut by_state: Vec<Vec<Vec<usize>>> = vec![Vec::new(); kept.len()];
    for (manifest, search) in plan.mutants() {
        let infecting: Vec<usize> = (0..kept.len())
            .filter(|&i| infects(plan, &kept[i].result, search))
            .collect();
        // A test the search judged a killer of this mutant (the same statements) kills it
        // without running again: a crash or hang always, a difference in what it observes
        // unless the test has state observations, which are minimised by what they kill.
        let stateful: Vec<bool> = kept.iter().map(|k| !k.result.observed.is_empty()).collect();
        let stateful = |i: usize| stateful[i];
        let (known_killers, infecting): (Vec<usize>, Vec<usize>) =
            infecting.into_iter().partition(|&i| {
                known.ended_run(&kept[i].test, manifest)
                    || (!stateful(i) && known.killed(&kept[i].test, manifest))
            });
        for &i in &known_killers {
            kept[i].kills.insert(search);
        }
        let ended = known_killers
            .iter()
            .any(|&i| known.ended_run(&kept[i].test, manifest));
        let infecting: Vec<usize> = if known_killers.is_empty() {
            infecting
        } else {
            infecting.into_iter().filter(|&i| stateful(i)).collect()
        };
        if infecting.is_empty() || ended {
            continue;
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            runs.unjudged += 1;
            continue;
        }
        pool.switch_mutant(Some(manifest));
        let results = judge_mutant(pool, kept, &infecting, baseline);
        runs.executions += results.len() as u64;
        for (i, mutated) in &results {
            let i = *i;
            match seen(&baseline[i], mutated) {
                Seen::Nothing => continue,
                Seen::Always => {}
                Seen::State(which) => by_state[i].push(which),
            }
            kept[i].kills.insert(search);
        }
    }
    pool.switch_mutant(None);
    pool.set_timeout(cap);
    if plan.mutants().next().is_none() {
        // Nothing to judge assertions by: every state observation stays.
        return runs;
    }
    for (k, (by_state, base)) in kept.iter_mut().zip(by_state.iter().zip(baseline)) {
        let before = k.result.observed.len();
        // A run that went another way than the kept one is not the one rendered.
        if k.result.observed == base.observed {
            k.result.observed = needed(&base.observed, by_state);
        }
        runs.state_observed += before;
        runs.state_kept += k.result.observed.len();
    }
    runs
}

/// The runs of the `infecting` tests with the mutant switched on, as `(test, run)`. Tests with
/// state observations all run (their observations are minimised by what each kills); the
/// others only until one kills the mutant: one killer is what the score and the survivors'
/// verdicts need. Runs go a few at a time and stop after the first the mutant makes crash or
/// hang where the unmutated one did not: each further crash would cost a harness restart
/// (mutants of unsafe code can crash every test).
fn judge_mutant(
    pool: &mut ExecutorPool,
    kept: &[Kept],
    infecting: &[usize],
    baseline: &[ExecResult],
) -> Vec<(usize, ExecResult)> {
    let (stateful, plain): (Vec<usize>, Vec<usize>) = infecting
        .iter()
        .partition(|&&i| !kept[i].result.observed.is_empty());
    let mut out = Vec::new();
    if run_chunks(pool, kept, &stateful, baseline, false, &mut out) {
        return out;
    }
    if !out
        .iter()
        .any(|(i, r)| seen(&baseline[*i], r) != Seen::Nothing)
    {
        run_chunks(pool, kept, &plain, baseline, true, &mut out);
    }
    out
}

/// Runs `tests` (the mutant on) [`JUDGED_AT_ONCE`] at a time into `out`, stopping after a
/// run that ended differently (then true) or, with `until_killed`, after a chunk that killed.
fn run_chunks(
    pool: &mut ExecutorPool,
    kept: &[Kept],
    tests: &[usize],
    baseline: &[ExecResult],
    until_killed: bool,
    out: &mut Vec<(usize, ExecResult)>,
) -> bool {
    for chunk in tests.chunks(JUDGED_AT_ONCE) {
        let run: Vec<_> = chunk.iter().map(|&i| kept[i].test.clone()).collect();
        let mut killed = false;
        for (&i, r) in chunk.iter().zip(pool.execute(&run)) {
            let ended = propagate::ends_run(&r) && !propagate::ends_run(&baseline[i]);
            killed |= seen(&baseline[i], &r) != Seen::Nothing;
            out.push((i, r));
            if ended {
                return true;
            }
        }
        if until_killed && killed {
            break;
        }
    }
    false
}

/// Tests of one mutant run at once when judging the emitted tests: few, so that a mutant that
/// crashes every test costs few harness restarts, and more than one, so both workers run.
const JUDGED_AT_ONCE: usize = 4;

/// Whether a test's run infected mutant goal `search`: covered it (weak mutation), or with
/// strong-mutation goals came within [`INFECTED`] of it (infected, maybe not killed).
pub fn infects(plan: &Plan, r: &ExecResult, search: u32) -> bool {
    match r.distance(search) {
        Some(d) if plan.goals[search as usize].kind == frugal_search::GoalKind::StrongMutation => {
            d <= INFECTED
        }
        Some(d) => d == 0.0,
        None => false,
    }
}

/// What the strong-mutation runs took, and what they left of the state assertions.
#[derive(Debug, Clone, Copy, Default)]
pub struct Kills {
    /// Executions the judgements took.
    pub executions: u64,
    /// Mutants some kept test infects that were not judged: the phase's deadline came first.
    pub unjudged: usize,
    /// State observations of the kept tests before minimisation, and kept after.
    pub state_observed: usize,
    /// Of `state_observed`, those kept after minimisation.
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
    /// Infected, killed by no emitted test: by some emitted test (weak-mutation goals), or by
    /// some test the search ran (strong-mutation goals, whose infecting tests are not kept for
    /// an infection alone).
    pub survived: usize,
    /// Infected by no such test.
    pub not_infected: usize,
    /// Infected by an emitted test but not judged: the phase's share of the budget ran out.
    pub unjudged: usize,
    /// `killed / mutants`.
    pub score: f64,
    /// Survivors, `file:line label` (the first [`SURVIVORS_LISTED`]).
    pub survivors: Vec<String>,
    /// Executions the strong-mutation runs took: those judging the search's tests
    /// (strong-mutation goals) and those judging the emitted ones.
    pub executions: u64,
    /// Their share of all the run's executions (search included).
    pub share_of_executions: f64,
    /// Their wall time, with the run that records what the unmutated tests observe.
    pub seconds: f64,
    /// `executions` per second of `seconds`.
    pub executions_per_second: f64,
    /// With strong-mutation goals: one mutant judged on one test during the search, and how
    /// many of those judgements killed.
    pub search_judged: u64,
    /// Of `search_judged`, the judgements that killed.
    pub search_killed: u64,
    /// State observations (what `&mut` calls left behind) of the kept tests, and how many of
    /// them are asserted after minimisation: those that kill a mutant nothing else kept in
    /// their test kills.
    pub state_observed: usize,
    /// Of `state_observed`, those asserted.
    pub state_asserted: usize,
}

/// What the strong-mutation work of a run took, for [`MutationScore::new`].
#[derive(Debug, Clone, Copy, Default)]
pub struct MutationCost {
    /// The judgement of the emitted tests, and its wall time.
    pub kills: Kills,
    /// Wall time of that judgement, in seconds.
    pub seconds: f64,
    /// The judgements during the search (strong-mutation goals).
    pub search: PropagateStats,
    /// Every execution of the run (search, minimiser and judgements).
    pub all_executions: u64,
}

impl MutationScore {
    /// The figures over the emitted tests: `killed` is the union of their kills, `infected`
    /// the mutants infected (see [`MutationScore::survived`]).
    pub fn new(
        plan: &Plan,
        found: &Discovered,
        (killed, infected): (&BTreeSet<u32>, &BTreeSet<u32>),
        cost: MutationCost,
    ) -> MutationScore {
        let mutants: Vec<u32> = plan.mutants().map(|(_, search)| search).collect();
        let survivors: Vec<u32> = mutants
            .iter()
            .copied()
            .filter(|g| infected.contains(g) && !killed.contains(g))
            .collect();
        let killed_n = mutants.iter().filter(|g| killed.contains(g)).count();
        let infected_n = mutants
            .iter()
            .filter(|g| infected.contains(g) || killed.contains(g))
            .count();
        let executions = cost.kills.executions + cost.search.executions;
        let seconds = cost.seconds + cost.search.seconds;
        MutationScore {
            mutants: mutants.len(),
            killed: killed_n,
            survived: survivors.len(),
            not_infected: mutants.len() - infected_n,
            unjudged: cost.kills.unjudged,
            score: ratio(killed_n as f64, mutants.len() as f64),
            survivors: survivors
                .iter()
                .take(SURVIVORS_LISTED)
                .map(|&g| {
                    let info = &plan.goals[g as usize];
                    format!("{}:{} {}", info.file, info.line, plan.label(g, found))
                })
                .collect(),
            executions,
            share_of_executions: ratio(executions as f64, cost.all_executions as f64),
            seconds,
            executions_per_second: ratio(executions as f64, seconds),
            search_judged: cost.search.judged,
            search_killed: cost.search.killed,
            state_observed: cost.kills.state_observed,
            state_asserted: cost.kills.state_kept,
        }
    }
}

/// `a / b`, 0 when `b` is 0.
fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
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
            seen: Vec::new(),
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
