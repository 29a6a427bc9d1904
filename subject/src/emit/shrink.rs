//! Cost shrinking: after minimisation, the kept tests are made cheaper one move at a time, most
//! expensive first. A move (an integer toward zero, a shorter string or collection, a dropped
//! statement, an argument replaced by another value of its type from the same test) is kept
//! when the re-executed test still covers the goals it answers for, ends the same way, and its
//! estimated instructions ([`INSTRUCTIONS`]) fall. The moves are property-testing shrinkers'
//! (proptest's binary search toward zero, Hypothesis's shortening), judged by cost instead of a
//! failure.
//!
//! The suite's coverage never changes: every goal some kept test covers is owned by exactly one
//! test (the cheapest covering it), and that test must keep covering it. It must not know how a
//! test is rendered or verified.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Instant;

use frugal_search::{
    Builder, ExecResult, Executor, INSTRUCTIONS, OpKind, Schema, Status, TestCase, Value, ValueKind,
};
use rand::SeedableRng;
use serde::Serialize;

use super::minimise::Kept;

/// When the phase stops: a deadline (a share of a time budget) and a number of rounds (one
/// batch of candidates each), whichever comes first.
#[derive(Debug, Clone, Copy)]
pub struct ShrinkLimits {
    /// Stop starting rounds after this instant.
    pub deadline: Option<Instant>,
    /// Stop after this many rounds.
    pub max_rounds: usize,
}

impl Default for ShrinkLimits {
    fn default() -> Self {
        ShrinkLimits {
            deadline: None,
            max_rounds: MAX_ROUNDS,
        }
    }
}

/// Rounds of the phase when no deadline stops it first: enough for a literal of 10^9 to reach
/// 1 by halving and a test of 100 statements to lose every one.
pub const MAX_ROUNDS: usize = 400;

/// Candidates in one round (one batch): from the most expensive tests not yet done, so a
/// deadline cuts the cheap ones, whose saving is at most what they pay above libtest's fixed
/// cost.
const ROUND_WIDTH: usize = 64;

/// Arguments tried in place of one argument: the nearest earlier values of its type.
const REPLACEMENTS_PER_ARG: usize = 3;

/// What the phase did, for the run summary.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ShrinkReport {
    /// Kept tests the phase looked at.
    pub tests: usize,
    /// Of those, tests at least one move made cheaper.
    pub tests_shrunk: usize,
    /// Candidate tests executed.
    pub moves_tried: u64,
    /// Candidates kept.
    pub moves_kept: u64,
    /// Estimated instructions of the kept tests before the phase, fixed cost included.
    pub estimate_before: f64,
    /// The same after the phase.
    pub estimate_after: f64,
    /// Goals the kept tests cover together before the phase.
    pub goals_before: usize,
    /// The same after the phase: always `goals_before`, by construction (see the module doc).
    pub goals_after: usize,
    /// Wall time of the phase.
    pub seconds: f64,
    /// The deadline or the round limit ended the phase with moves left to try.
    pub cut: bool,
}

impl ShrinkReport {
    /// The estimated instructions the phase saved, as a share of what the tests cost before.
    pub fn saved_share(&self) -> f64 {
        if self.estimate_before <= 0.0 {
            return 0.0;
        }
        1.0 - self.estimate_after / self.estimate_before
    }
}

/// The estimated instructions of one test: libtest's fixed cost plus its proxies.
pub fn estimate(test: &TestCase, result: &ExecResult, schema: &Schema) -> f64 {
    INSTRUCTIONS.estimate(&frugal_search::proxies(test, result, schema))
}

/// One test under work: the goals it must keep, its cost, the moves left to try.
struct Work {
    required: BTreeSet<u32>,
    cost: f64,
    moves: VecDeque<TestCase>,
    shrunk: bool,
}

/// Shrinks every kept test's cost while the suite covers the same goals (see the module doc).
pub fn shrink(
    kept: &mut [Kept],
    builder: &Builder<'_>,
    exec: &mut dyn Executor,
    limits: ShrinkLimits,
) -> ShrinkReport {
    let started = Instant::now();
    let schema = builder.schema;
    let owned = owners(kept, schema);
    let mut work: Vec<Work> = kept
        .iter()
        .zip(owned)
        .map(|(k, owned)| {
            let cost = estimate(&k.test, &k.result, schema);
            let moves = if shrinkable(&k.result.status) {
                moves(&k.test, builder)
            } else {
                VecDeque::new()
            };
            Work {
                required: owned.union(&k.goals).copied().collect(),
                cost,
                moves,
                shrunk: false,
            }
        })
        .collect();
    let mut report = ShrinkReport {
        tests: kept.len(),
        estimate_before: work.iter().map(|w| w.cost).sum(),
        goals_before: suite_goals(kept).len(),
        ..ShrinkReport::default()
    };
    let mut rounds = 0;
    loop {
        let mut who: Vec<usize> = (0..work.len())
            .filter(|&i| !work[i].moves.is_empty())
            .collect();
        if who.is_empty() {
            break;
        }
        if rounds >= limits.max_rounds || limits.deadline.is_some_and(|d| Instant::now() >= d) {
            report.cut = true;
            break;
        }
        rounds += 1;
        who.sort_by(|&a, &b| work[b].cost.total_cmp(&work[a].cost).then(a.cmp(&b)));
        who.truncate(ROUND_WIDTH);
        // A round is as wide as ROUND_WIDTH whatever the number of tests left: a test alone
        // tries many of its moves at once, and the first one kept wins.
        let per_test = ROUND_WIDTH.div_ceil(who.len());
        let mut owner = Vec::new();
        let mut candidates = Vec::new();
        for &i in &who {
            let n = per_test.min(work[i].moves.len());
            candidates.extend(work[i].moves.drain(..n));
            owner.extend(std::iter::repeat_n(i, n));
        }
        let results = exec.execute(&candidates);
        report.moves_tried += candidates.len() as u64;
        let mut taken = BTreeSet::new();
        for ((i, mut c), r) in owner.into_iter().zip(candidates).zip(results) {
            let w = &mut work[i];
            let k = &mut kept[i];
            if taken.contains(&i)
                || !same_outcome(&k.result.status, &r.status)
                || !w.required.iter().all(|&g| r.covers(g))
            {
                continue;
            }
            let cost = estimate(&c, &r, schema);
            if cost >= w.cost {
                continue;
            }
            // Statements after a panic never ran.
            if matches!(r.status, Status::Panicked { .. }) {
                c.stmts.truncate(r.completed + 1);
            }
            taken.insert(i);
            report.moves_kept += 1;
            w.cost = cost;
            w.shrunk = true;
            w.moves = moves(&c, builder);
            k.test = c;
            k.result = r;
        }
    }
    report.tests_shrunk = work.iter().filter(|w| w.shrunk).count();
    report.estimate_after = work.iter().map(|w| w.cost).sum();
    report.goals_after = suite_goals(kept).len();
    report.seconds = started.elapsed().as_secs_f64();
    report
}

/// Every goal some kept test covers.
fn suite_goals(kept: &[Kept]) -> BTreeSet<u32> {
    kept.iter().flat_map(|k| k.result.covered()).collect()
}

/// Tests that timed out or crashed are left as they are: every move would cost a timeout.
fn shrinkable(status: &Status) -> bool {
    matches!(status, Status::Completed | Status::Panicked { .. })
}

/// A test ends the same way: completed, or panicked (the test then expects a panic).
fn same_outcome(before: &Status, after: &Status) -> bool {
    std::mem::discriminant(before) == std::mem::discriminant(after)
}

/// For each test, the goals it owns: every goal any kept test covers goes to the cheapest test
/// covering it (the earlier on ties), so tests shrunk side by side cannot lose a goal together.
fn owners(kept: &[Kept], schema: &Schema) -> Vec<BTreeSet<u32>> {
    let cost: Vec<f64> = kept
        .iter()
        .map(|k| estimate(&k.test, &k.result, schema))
        .collect();
    let mut owner: BTreeMap<u32, usize> = BTreeMap::new();
    for (i, k) in kept.iter().enumerate() {
        for g in k.result.covered() {
            let o = owner.entry(g).or_insert(i);
            if cost[i] < cost[*o] {
                *o = i;
            }
        }
    }
    let mut owned = vec![BTreeSet::new(); kept.len()];
    for (g, i) in owner {
        owned[i].insert(g);
    }
    owned
}

/// The candidates one step smaller than `t`, the likeliest savings first: large integers toward
/// zero by big steps, shorter strings and collections, other arguments, dropped statements,
/// and last the small steps of integers. Small steps come last because a literal another one
/// bounds (a row below a height) would otherwise creep down by ones, each step a little
/// cheaper, before the bounding literal got its big step.
fn moves(t: &TestCase, builder: &Builder<'_>) -> VecDeque<TestCase> {
    let mut out = VecDeque::new();
    let mut ints: Vec<(usize, i128)> = t
        .stmts
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s.value {
            Some(Value::Int(v)) if v != 0 => Some((i, v)),
            _ => None,
        })
        .collect();
    ints.sort_by_key(|&(i, v)| (std::cmp::Reverse(v.unsigned_abs()), i));
    let int_moves = |steps: fn(i128) -> Vec<i128>, out: &mut VecDeque<TestCase>| {
        for &(i, v) in &ints {
            for smaller in smaller_ints(v, &steps(v), int_range(t, i, builder.schema)) {
                out.push_back(with_value(t, i, Value::Int(smaller)));
            }
        }
    };
    int_moves(big_steps, &mut out);
    for (i, s) in t.stmts.iter().enumerate() {
        match &s.value {
            Some(Value::Str(text)) => {
                for shorter in shorter_strings(text) {
                    out.push_back(with_value(t, i, Value::Str(shorter)));
                }
            }
            Some(Value::Float(f)) if *f != 0.0 => {
                for simpler in [0.0, f.trunc()] {
                    if simpler != *f {
                        out.push_back(with_value(t, i, Value::Float(simpler)));
                    }
                }
            }
            _ => {}
        }
    }
    for (i, s) in t.stmts.iter().enumerate() {
        if builder.schema.op(s.op).variadic && !s.args.is_empty() {
            for keep in fewer_elements(s.args.len()) {
                let mut c = t.clone();
                c.stmts[i].args = keep.map(|j| s.args[j]).collect();
                out.extend(valid(c, builder));
            }
        }
    }
    for c in replaced_args(t, builder.schema) {
        out.extend(valid(c, builder));
    }
    for i in (0..t.len()).rev() {
        let mut c = t.clone();
        c.remove(i);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(i as u64);
        builder.repair(&mut c, &mut rng);
        if !c.is_empty() && c.len() < t.len() {
            out.push_back(c);
        }
    }
    int_moves(small_steps, &mut out);
    out
}

/// An integer's big steps toward zero: to zero, a tenth, a half.
fn big_steps(v: i128) -> Vec<i128> {
    vec![0, v / 10, v / 2]
}

/// An integer's small steps toward zero: a quarter less, one less.
fn small_steps(v: i128) -> Vec<i128> {
    vec![v - v / 4, v - v.signum()]
}

/// `t` with statement `i`'s literal replaced.
fn with_value(t: &TestCase, i: usize, v: Value) -> TestCase {
    let mut c = t.clone();
    c.stmts[i].value = Some(v);
    c
}

/// The candidate when it is a valid test as it stands (no argument rebound at random).
fn valid(c: TestCase, builder: &Builder<'_>) -> Option<TestCase> {
    let mut repaired = c.clone();
    builder.repair(
        &mut repaired,
        &mut rand_chacha::ChaCha8Rng::seed_from_u64(0),
    );
    (repaired == c).then_some(c)
}

/// The range statement `i`'s integer literal must stay in (its type's).
fn int_range(t: &TestCase, i: usize, schema: &Schema) -> (i128, i128) {
    schema
        .op(t.stmts[i].op)
        .ret
        .and_then(|ty| schema.types.get(ty as usize))
        .and_then(|info| match info.literal {
            Some(ValueKind::Int { min, max }) => Some((min, max)),
            _ => None,
        })
        .unwrap_or((i128::MIN, i128::MAX))
}

/// The steps of `v` that are other integers in its type's range, without repeats.
fn smaller_ints(v: i128, steps: &[i128], (min, max): (i128, i128)) -> Vec<i128> {
    let mut out: Vec<i128> = Vec::new();
    for &c in steps {
        if c != v && (min..=max).contains(&c) && !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// Shorter strings: empty, the first half, all but the last character.
fn shorter_strings(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out: Vec<String> = Vec::new();
    for n in [0, chars.len() / 2, chars.len().saturating_sub(1)] {
        let c: String = chars[..n].iter().collect();
        if n < chars.len() && !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// Which elements of a collection of `n` to keep: none, the first half, all but the last, all
/// but the first.
fn fewer_elements(n: usize) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    for r in [0..0, 0..n / 2, 0..n - 1, 1..n] {
        let r = if r.is_empty() { 0..0 } else { r };
        if r.len() < n && !out.contains(&r) {
            out.push(r);
        }
    }
    out
}

/// Each call's argument replaced by one of the nearest earlier values of the same type, so a
/// call on an expensive value may move to a cheap one (the expensive one then goes unused, and
/// a later move drops it).
fn replaced_args(t: &TestCase, schema: &Schema) -> Vec<TestCase> {
    let ret = |j: u32| schema.op(t.stmts[j as usize].op).ret;
    let mut out = Vec::new();
    for (i, s) in t.stmts.iter().enumerate() {
        if schema.op(s.op).kind != OpKind::Call {
            continue;
        }
        for (k, &a) in s.args.iter().enumerate() {
            let Some(ty) = ret(a) else { continue };
            let others = (0..i as u32)
                .rev()
                .filter(|&j| j != a && ret(j) == Some(ty))
                .take(REPLACEMENTS_PER_ARG);
            for j in others {
                let mut c = t.clone();
                c.stmts[i].args[k] = j;
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_fall_toward_zero_within_their_type() {
        let steps = |v| [big_steps(v), small_steps(v)].concat();
        assert_eq!(
            smaller_ints(1014, &steps(1014), (0, 65535)),
            vec![0, 101, 507, 761, 1013]
        );
        assert_eq!(smaller_ints(-7, &steps(-7), (-128, 127)), vec![0, -3, -6]);
        assert_eq!(smaller_ints(1, &steps(1), (0, 255)), vec![0]);
        // A type without 0 in range (a literal kind with a positive minimum) keeps only steps
        // inside it.
        assert_eq!(smaller_ints(9, &steps(9), (5, 10)), vec![7, 8]);
    }

    #[test]
    fn strings_and_collections_get_shorter() {
        assert_eq!(shorter_strings("abcd"), vec!["", "ab", "abc"]);
        assert_eq!(shorter_strings("é"), vec![""]);
        assert!(shorter_strings("").is_empty());
        assert_eq!(fewer_elements(3), vec![0..0, 0..1, 0..2, 1..3]);
        assert_eq!(fewer_elements(1), vec![0..0]);
    }

    #[test]
    fn a_report_says_what_share_was_saved() {
        let r = ShrinkReport {
            estimate_before: 200.0,
            estimate_after: 50.0,
            ..ShrinkReport::default()
        };
        assert!((r.saved_share() - 0.75).abs() < 1e-12);
        assert_eq!(ShrinkReport::default().saved_share(), 0.0);
    }
}
