//! Whole test suite generation with a memetic local search: EvoSuite's GA over suites
//! (\[memetic\] §3 and Alg. 1; Fraser and Arcuri, TSE 2013, \[wholesuite\]) extended by local
//! search on the best suites (\[memetic\] §4).
//!
//! It owns the suite individual and its fitness, suite crossover and mutation, linear rank
//! selection, elitism with monotonic (offspring only if not worse) replacement, the memetic
//! schedule (every `ls_rate` generations with probability `p`, best suites first, a budget per
//! phase, adaptive `p`), and the suite-level refinements of §4.2 (restore coverage, ensure double
//! execution, primitive value expansion). The value-level searches live in `local_search`.
//!
//! Each test carries its last execution (§4.1 "partial re-evaluation"): only tests changed by
//! mutation or local search run again, so crossover is free and a local-search probe costs one
//! execution. Every execution goes through `Context::evaluate`, so the archive still collects
//! the best test per goal and the output stays per-goal tests.
//!
//! Fitness (§3.2, minimised): `Σ_goals d(g, T)`, where `d` is 0 when some test covers `g`, the
//! smallest normalised distance over the suite when `g` was reached "at least twice", and 1
//! otherwise. Function goals play the role of the paper's `|M| − |M_T|` term. Decision: our
//! executor reports one minimum distance per goal and test, not how often a predicate ran, so
//! "executed at least twice" is read as "reached by at least two tests of the suite" (a lower
//! bound on the executions). The rule matters for the same reason as in the paper: with a
//! single execution, covering one outcome of a predicate loses the other and the search
//! oscillates. The "ensure double execution" refinement duplicates a sole reaching test, which
//! gives the local search a copy it may move without losing the other outcome.

use std::rc::Rc;

use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::algorithm::{Algorithm, Context, Evaluated};
use crate::local_search::{self, EPS};
use crate::{Budget, OpKind, Schema, Stmt, TestCase};

/// Parameters of the whole-suite GA and its memetic local search. Defaults are the paper's
/// best configuration (§6 RQ2: population 100, local search every 100 generations, 25 s of a
/// 10 min budget per phase) and EvoSuite's where the paper gives none (marked EvoSuite below; \[evosuite\]).
#[derive(Debug, Clone)]
pub struct WholeSuiteParams {
    /// Suites in the population (RQ2 best: 100).
    pub population: usize,
    /// Best suites copied unchanged into the next generation (EvoSuite: 1).
    pub elite: usize,
    /// Bias of linear rank selection (EvoSuite: 1.7).
    pub rank_bias: f64,
    /// Probability of suite crossover (EvoSuite: 0.75).
    pub crossover_rate: f64,
    /// σ: probability of inserting a new test, then σ², σ³, ... (EvoSuite: 0.1).
    pub insert_test: f64,
    /// Tests in a random initial suite are drawn from `1..=init_tests` (EvoSuite: 2).
    pub init_tests: usize,
    /// Most tests a suite may hold (EvoSuite: 100); longer offspring are replaced by a parent.
    pub max_tests: usize,
    /// Local search is considered every `ls_rate` generations; 0 turns it off (the plain GA).
    pub ls_rate: u64,
    /// Probability of a local-search phase when one is due (fixed schedule: 1).
    pub ls_probability: f64,
    /// Adaptation rate `a`: `p ← min(p·a, 1)` after a successful local search, `p/a` after a
    /// failed one (§4.3, Eq. 1–2); 1 keeps `p` fixed.
    pub ls_adaptation: f64,
    /// Share of the whole budget one phase may spend (RQ2: 25 s of 600 s).
    pub ls_budget_share: f64,
    /// Random probes deciding whether a string matters (§4.1.2; EvoSuite: 10).
    pub string_probes: usize,
}

impl Default for WholeSuiteParams {
    fn default() -> Self {
        WholeSuiteParams {
            population: 100,
            elite: 1,
            rank_bias: 1.7,
            crossover_rate: 0.75,
            insert_test: 0.1,
            init_tests: 2,
            max_tests: 100,
            ls_rate: 100,
            ls_probability: 1.0,
            ls_adaptation: 1.0,
            ls_budget_share: 25.0 / 600.0,
            string_probes: 10,
        }
    }
}

/// A test's last execution: what the fitness needs of it.
#[derive(Debug, Clone)]
struct Run {
    goals: Rc<[(u32, f64)]>,
    completed: usize,
    /// The strings the run was compared against (dynamic seeding).
    seen: Rc<[String]>,
}

impl Run {
    fn of(e: &Evaluated) -> Run {
        Run {
            goals: e.result.goals.as_slice().into(),
            completed: e.result.completed,
            seen: e.result.seen.as_slice().into(),
        }
    }
}

/// A test of a suite; `run` is `None` until it is executed (after a change). Tests are shared
/// between suites (crossover and copies clone suites every generation) and copied on write.
#[derive(Debug, Clone)]
struct Member {
    test: Rc<TestCase>,
    run: Option<Run>,
}

/// An individual: a test suite with its fitness and total length (valid once every member
/// has run and `rescore` was called).
#[derive(Debug, Clone)]
struct Suite {
    members: Vec<Member>,
    fitness: f64,
    length: usize,
}

impl Suite {
    fn new(members: Vec<Member>) -> Suite {
        Suite {
            members,
            fitness: f64::INFINITY,
            length: usize::MAX,
        }
    }

    fn pending(&self) -> bool {
        self.members.iter().any(|m| m.run.is_none())
    }

    /// Sort key: fitness, then total length (EvoSuite's secondary objective against bloat).
    fn key(&self) -> (f64, usize) {
        (self.fitness, self.length)
    }

    fn rescore(&mut self, goals: usize) {
        self.fitness = Tally::of(&self.members, goals, None).fitness();
        self.length = self.members.iter().map(|m| m.test.len()).sum();
    }
}

fn better_or_equal(a: (f64, usize), b: (f64, usize)) -> bool {
    a.0 < b.0 - EPS || (a.0 <= b.0 + EPS && a.1 <= b.1)
}

fn cmp_key(a: &(f64, usize), b: &(f64, usize)) -> std::cmp::Ordering {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
}

/// Per goal: the smallest distance over a set of tests, how many of them reached it, and the
/// first that did.
struct Tally {
    best: Vec<f64>,
    count: Vec<u32>,
    first: Vec<u32>,
}

impl Tally {
    /// Over `members` (those that ran), leaving out `skip`.
    fn of(members: &[Member], goals: usize, skip: Option<usize>) -> Tally {
        let mut t = Tally {
            best: vec![f64::INFINITY; goals],
            count: vec![0; goals],
            first: vec![u32::MAX; goals],
        };
        for (i, m) in members.iter().enumerate() {
            if Some(i) == skip {
                continue;
            }
            if let Some(r) = &m.run {
                t.add(&r.goals, i as u32);
            }
        }
        t
    }

    fn add(&mut self, goals: &[(u32, f64)], who: u32) {
        for &(g, d) in goals {
            let g = g as usize;
            if g < self.best.len() {
                self.best[g] = self.best[g].min(d);
                self.count[g] += 1;
                if self.first[g] == u32::MAX {
                    self.first[g] = who;
                }
            }
        }
    }

    fn fitness(&self) -> f64 {
        self.best
            .iter()
            .zip(&self.count)
            .map(|(&b, &c)| goal_term(b, c))
            .sum()
    }

    /// The fitness of these tests plus one more that reported `goals`, in O(|goals|):
    /// `base` is `self.fitness()`.
    fn fitness_with(&self, base: f64, goals: &[(u32, f64)]) -> f64 {
        let mut f = base;
        for &(g, d) in goals {
            let g = g as usize;
            if g < self.best.len() {
                let (b, c) = (self.best[g], self.count[g]);
                f += goal_term(b.min(d), c + 1) - goal_term(b, c);
            }
        }
        f
    }
}

/// `d(b, T)` of §3.2 for one goal: 0 if covered, the normalised distance if reached at least
/// twice (by two tests, see the module docs), else 1. Distances arrive normalised.
fn goal_term(best: f64, count: u32) -> f64 {
    if best == 0.0 {
        0.0
    } else if count >= 2 {
        best
    } else {
        1.0
    }
}

/// Linear rank selection (Whitley; EvoSuite's `RankSelection`): with `r` uniform in `[0, 1)`
/// the index `⌊n · (b − √(b² − 4(b − 1)r)) / (2(b − 1))⌋` of a population sorted best first.
/// `b = 1.7` gives the best suite 1.7 times the average chance, the worst 0.3 times.
fn rank_index(r: f64, n: usize, bias: f64) -> usize {
    if bias <= 1.0 {
        return ((r * n as f64) as usize).min(n - 1);
    }
    let d = (bias - (bias * bias - 4.0 * (bias - 1.0) * r).sqrt()) / (2.0 * (bias - 1.0));
    ((n as f64 * d) as usize).min(n - 1)
}

/// Whether local search is considered at loop iteration `iteration` (Alg. 1 line 5; the
/// iteration counter starts at 1 and counts generations).
fn ls_due(iteration: u64, rate: u64) -> bool {
    rate > 0 && iteration.is_multiple_of(rate)
}

/// §4.3 Eq. 1–2: `p ← min(p·a, 1)` on success, `p/a` otherwise (never exactly 0).
fn adapt(p: f64, a: f64, success: bool) -> f64 {
    if success {
        (p * a).min(1.0)
    } else {
        (p / a).max(f64::MIN_POSITIVE)
    }
}

/// Executions one local-search phase may use: `share` of the whole budget; for a time budget
/// the total is projected from the rate so far.
fn phase_budget(budget: Budget, executions: u64, progress: f64, share: f64) -> u64 {
    let total = match budget {
        Budget::Executions(n) => n as f64,
        Budget::Time(_) if progress > 0.0 => executions as f64 / progress,
        Budget::Time(_) => executions as f64,
    };
    ((total * share).round() as u64).max(1)
}

/// The whole-suite memetic algorithm.
pub struct WholeSuite {
    /// Current local-search probability (adapted when `ls_adaptation != 1`).
    ls_probability: f64,
}

impl WholeSuite {
    pub fn new() -> Self {
        WholeSuite {
            ls_probability: 1.0,
        }
    }
}

impl Default for WholeSuite {
    fn default() -> Self {
        Self::new()
    }
}

impl Algorithm for WholeSuite {
    fn run(&mut self, cx: &mut Context<'_>) {
        let p = cx.params.wholesuite.clone();
        self.ls_probability = p.ls_probability.clamp(0.0, 1.0);
        let n = p.population.max(2);
        let mut pop: Vec<Suite> = (0..n).map(|_| random_suite(cx, &p)).collect();
        execute_pending(cx, &mut pop);
        pop.retain(|s| !s.pending() && !s.members.is_empty());
        rescore_and_sort(cx, &mut pop);
        cx.report();
        let mut iteration = 1u64;
        while !cx.done() && !pop.is_empty() {
            let draw = self.ls_probability;
            if ls_due(iteration, p.ls_rate) && cx.rng.random_bool(draw) {
                self.local_search_phase(cx, &mut pop, &p);
                sort(&mut pop);
                if cx.done() {
                    break;
                }
            }
            pop = next_generation(cx, &pop, n, &p);
            iteration += 1;
            cx.report();
        }
    }
}

fn sort(pop: &mut [Suite]) {
    pop.sort_by(|a, b| cmp_key(&a.key(), &b.key()));
}

fn rescore_and_sort(cx: &Context<'_>, pop: &mut [Suite]) {
    for s in pop.iter_mut() {
        s.rescore(cx.goals.len());
    }
    sort(pop);
}

fn random_suite(cx: &mut Context<'_>, p: &WholeSuiteParams) -> Suite {
    let k = cx.rng.random_range(1..=p.init_tests.max(1));
    let members = (0..k)
        .map(|_| Member {
            test: Rc::new(cx.builder.random_test(&mut cx.rng)),
            run: None,
        })
        .filter(|m| !m.test.is_empty())
        .collect();
    Suite::new(members)
}

/// Runs every changed test of every suite in one batch (executors may run it in parallel).
/// Tests the budget cut off stay pending.
fn execute_pending(cx: &mut Context<'_>, suites: &mut [Suite]) {
    let mut slots = Vec::new();
    let mut batch = Vec::new();
    for (s, suite) in suites.iter().enumerate() {
        for (m, member) in suite.members.iter().enumerate() {
            if member.run.is_none() {
                slots.push((s, m));
                batch.push((*member.test).clone());
            }
        }
    }
    if batch.is_empty() {
        return;
    }
    for ((s, m), e) in slots.into_iter().zip(cx.evaluate(batch)) {
        suites[s].members[m].run = Some(Run::of(&e));
    }
}

/// Suite crossover (§3.1): with α uniform in [0, 1], O1 takes the first α|P1| tests of P1 and
/// the rest of P2 after its first α|P2|; O2 the mirror. Tests move whole, with their runs.
fn crossover(a: &Suite, b: &Suite, alpha: f64) -> (Suite, Suite) {
    let ca = (alpha * a.members.len() as f64).round() as usize;
    let cb = (alpha * b.members.len() as f64).round() as usize;
    let join = |h: &[Member], t: &[Member]| Suite::new(h.iter().chain(t).cloned().collect());
    (
        join(&a.members[..ca], &b.members[cb..]),
        join(&b.members[..cb], &a.members[ca..]),
    )
}

/// Suite mutation (§3.1): each test changes with probability 1/|T| (EvoSuite's delete, change
/// and insert, each with probability 1/3), then a new random test is added with probability σ,
/// another with σ², and so on, up to `max_tests`.
fn mutate_suite(cx: &mut Context<'_>, s: &mut Suite, p: &WholeSuiteParams) {
    let rate = 1.0 / s.members.len().max(1) as f64;
    for m in &mut s.members {
        if cx.rng.random_bool(rate) {
            let mut t = (*m.test).clone();
            let seen = m.run.as_ref().map(|r| r.seen.clone()).unwrap_or_default();
            if cx.builder.mutate_seeded(&mut t, &seen, &mut cx.rng) {
                m.test = Rc::new(t);
                m.run = None;
            }
        }
    }
    s.members.retain(|m| !m.test.is_empty());
    let mut k = 1;
    while s.members.len() < p.max_tests && cx.rng.random_bool(p.insert_test.powi(k)) {
        let test = cx.builder.random_test(&mut cx.rng);
        if !test.is_empty() {
            s.members.push(Member {
                test: Rc::new(test),
                run: None,
            });
        }
        k += 1;
    }
}

/// One generation of Alg. 1 (lines 18–37, EvoSuite's monotonic GA): elites, then pairs of
/// rank-selected parents whose offspring (crossover with `crossover_rate`, then mutation)
/// replace them only if the better offspring is not worse than the better parent. Offspring
/// that are empty, too large, or were cut off by the budget count as worse.
fn next_generation(
    cx: &mut Context<'_>,
    pop: &[Suite],
    n: usize,
    p: &WholeSuiteParams,
) -> Vec<Suite> {
    let elite = p.elite.min(pop.len());
    let mut next: Vec<Suite> = pop[..elite].to_vec();
    let mut parents = Vec::new();
    let mut offspring = Vec::new();
    while next.len() + offspring.len() < n {
        let i = rank_index(cx.rng.random_range(0.0..1.0), pop.len(), p.rank_bias);
        let j = rank_index(cx.rng.random_range(0.0..1.0), pop.len(), p.rank_bias);
        let (mut x, mut y) = if cx.rng.random_bool(p.crossover_rate) {
            let alpha = cx.rng.random_range(0.0..1.0);
            crossover(&pop[i], &pop[j], alpha)
        } else {
            (pop[i].clone(), pop[j].clone())
        };
        mutate_suite(cx, &mut x, p);
        mutate_suite(cx, &mut y, p);
        parents.push((i, j));
        offspring.push(x);
        offspring.push(y);
    }
    execute_pending(cx, &mut offspring);
    let ok = |o: &Suite| !o.pending() && !o.members.is_empty() && o.members.len() <= p.max_tests;
    for (pair, (i, j)) in offspring.chunks_mut(2).zip(parents) {
        for o in pair.iter_mut() {
            o.rescore(cx.goals.len());
        }
        let best_o = pair.iter().map(Suite::key).min_by(cmp_key);
        let best_p = [pop[i].key(), pop[j].key()].into_iter().min_by(cmp_key);
        let take = pair.iter().all(ok)
            && matches!((best_o, best_p), (Some(o), Some(q)) if better_or_equal(o, q));
        if take {
            next.extend(pair.iter().cloned());
        } else {
            next.push(pop[i].clone());
            next.push(pop[j].clone());
        }
    }
    sort(&mut next);
    next.truncate(n);
    next
}

impl WholeSuite {
    /// One local-search phase (Alg. 1 lines 5–17): suites best first until the phase budget is
    /// used up, each improved in place (Lamarckian); `p` adapts after each suite.
    fn local_search_phase(
        &mut self,
        cx: &mut Context<'_>,
        pop: &mut [Suite],
        p: &WholeSuiteParams,
    ) {
        let limit = phase_budget(
            cx.clock.budget,
            cx.clock.executions,
            cx.clock.progress(),
            p.ls_budget_share,
        );
        let phase = Phase {
            start: cx.clock.executions,
            limit,
        };
        for suite in pop.iter_mut() {
            if phase.over(cx) {
                break;
            }
            let before = suite.fitness;
            improve_suite(cx, suite, p, &phase);
            let success = suite.fitness < before - EPS;
            self.ls_probability = adapt(self.ls_probability, p.ls_adaptation, success);
        }
    }
}

/// The execution window of one local-search phase.
struct Phase {
    start: u64,
    limit: u64,
}

impl Phase {
    fn over(&self, cx: &Context<'_>) -> bool {
        cx.done() || cx.clock.executions - self.start >= self.limit
    }
}

/// Local search on one suite (§4.2 then §4.1): the free refinements, then the value searches on
/// each test in a random order (EvoSuite shuffles so that a short budget reaches different
/// tests in different phases).
fn improve_suite(cx: &mut Context<'_>, suite: &mut Suite, p: &WholeSuiteParams, phase: &Phase) {
    let goals = cx.goals.len();
    restore_coverage(cx, suite, p.max_tests);
    ensure_double_execution(suite, goals, p.max_tests);
    let max_len = cx.builder.params.max_len;
    for m in &mut suite.members {
        expand_primitives(cx.schema, m, max_len);
    }
    suite.rescore(goals);
    let mut order: Vec<usize> = (0..suite.members.len()).collect();
    order.shuffle(&mut cx.rng);
    let mut rng = ChaCha8Rng::seed_from_u64(cx.rng.random());
    for i in order {
        if phase.over(cx) {
            break;
        }
        search_member(cx, suite, i, p.string_probes, phase, &mut rng);
    }
    suite.rescore(goals);
}

/// Value local search on member `i`, judged by the whole suite's fitness: the rest of the
/// suite is tallied once, so each probe costs one execution and O(goals it reached).
fn search_member(
    cx: &mut Context<'_>,
    suite: &mut Suite,
    i: usize,
    probes: usize,
    phase: &Phase,
    rng: &mut ChaCha8Rng,
) {
    let Some(mut run) = suite.members[i].run.clone() else {
        return;
    };
    let rest = Tally::of(&suite.members, cx.goals.len(), Some(i));
    let base = rest.fitness();
    let mut fit = rest.fitness_with(base, &run.goals);
    let mut test = (*suite.members[i].test).clone();
    let schema = cx.schema;
    let completed = run.completed;
    let mut eval = |t: &TestCase| -> Option<(f64, Run)> {
        if phase.over(cx) {
            return None;
        }
        let e = cx.evaluate(vec![t.clone()]).pop()?;
        let r = Run::of(&e);
        Some((rest.fitness_with(base, &r.goals), r))
    };
    let improved = local_search::search_test(
        schema, &mut test, &mut fit, &mut run, completed, probes, rng, &mut eval,
    );
    if improved {
        suite.members[i] = Member {
            test: Rc::new(test),
            run: Some(run),
        };
    }
}

/// §4.2.3: tests of the archive that cover goals this suite no longer covers go back in (the
/// scalar fitness does not record which goals a suite covers, so a suite can lose them).
fn restore_coverage(cx: &Context<'_>, suite: &mut Suite, max_tests: usize) {
    let mut tally = Tally::of(&suite.members, cx.goals.len(), None);
    for e in cx.archive.tests() {
        if suite.members.len() >= max_tests {
            return;
        }
        let lost = e
            .result
            .covered()
            .any(|g| tally.best.get(g as usize).is_some_and(|&b| b != 0.0));
        if lost {
            let run = Run {
                goals: e.result.goals.as_slice().into(),
                completed: e.result.completed,
                seen: e.result.seen.as_slice().into(),
            };
            tally.add(&run.goals, suite.members.len() as u32);
            suite.members.push(Member {
                test: Rc::new(e.test.clone()),
                run: Some(run),
            });
        }
    }
}

/// §4.2.2: a test that alone reaches an uncovered goal is duplicated, so that the goal counts
/// with its distance and local search can move one copy without losing what the other covers.
/// The copy needs no execution: it behaves as the original.
fn ensure_double_execution(suite: &mut Suite, goals: usize, max_tests: usize) {
    let tally = Tally::of(&suite.members, goals, None);
    let mut sole: Vec<u32> = (0..goals)
        .filter(|&g| tally.count[g] == 1 && tally.best[g] > 0.0)
        .map(|g| tally.first[g])
        .collect();
    sole.sort_unstable();
    sole.dedup();
    for i in sole {
        if suite.members.len() >= max_tests {
            return;
        }
        let copy = suite.members[i as usize].clone();
        suite.members.push(copy);
    }
}

/// §4.2.1: every further use of a literal gets its own copy of the statement, so local search
/// can move each use independently (`f(a, a)` becomes `f(a, b)` with `b = a`). Literals used by
/// `&mut` stay shared (the uses share state); the test stays within `max_len`. Behaviour is
/// unchanged, so the cached run stays valid.
fn expand_primitives(schema: &Schema, m: &mut Member, max_len: usize) {
    if !shares_literal(schema, &m.test) || m.test.len() >= max_len {
        return;
    }
    let t = Rc::make_mut(&mut m.test);
    let mut used = vec![false; t.len()];
    let mut j = 0;
    while j < t.len() {
        for k in 0..t.stmts[j].args.len() {
            let a = t.stmts[j].args[k] as usize;
            if a >= j || !shareable_literal(schema, t, a) {
                continue;
            }
            if !used[a] {
                used[a] = true;
                continue;
            }
            if t.len() >= max_len {
                return;
            }
            let copy = Stmt {
                op: t.stmts[a].op,
                args: Vec::new(),
                value: t.stmts[a].value.clone(),
            };
            t.insert(j, copy);
            used.insert(j, true);
            j += 1;
            t.stmts[j].args[k] = (j - 1) as u32;
            if let Some(r) = &mut m.run
                && r.completed >= j - 1
            {
                r.completed += 1;
            }
        }
        j += 1;
    }
}

/// Whether some literal is used more than once (most tests: no, and then they stay shared).
fn shares_literal(schema: &Schema, t: &TestCase) -> bool {
    let mut uses = vec![0u8; t.len()];
    for s in &t.stmts {
        for &a in &s.args {
            if let Some(u) = uses.get_mut(a as usize) {
                *u = u.saturating_add(1);
            }
        }
    }
    (0..t.len()).any(|a| uses[a] > 1 && shareable_literal(schema, t, a))
}

/// A literal no statement takes by `&mut`.
fn shareable_literal(schema: &Schema, t: &TestCase, a: usize) -> bool {
    if schema.op(t.stmts[a].op).kind != OpKind::Literal {
        return false;
    }
    t.stmts[a + 1..].iter().all(|s| {
        let info = schema.op(s.op);
        s.args.iter().enumerate().all(|(k, &x)| {
            x as usize != a || !info.params[if info.variadic { 0 } else { k }].1.is_mut()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goal_terms_follow_the_executed_twice_rule() {
        assert_eq!(goal_term(0.0, 1), 0.0);
        assert_eq!(goal_term(0.25, 2), 0.25);
        assert_eq!(goal_term(0.25, 1), 1.0);
        assert_eq!(goal_term(f64::INFINITY, 0), 1.0);
    }

    #[test]
    fn fitness_with_one_more_test_matches_a_full_tally() {
        let a = Member {
            test: Rc::new(TestCase::default()),
            run: Some(Run {
                goals: vec![(0, 0.0), (1, 0.5), (2, 0.5)].into(),
                completed: 0,
                seen: Rc::from([]),
            }),
        };
        let b = Member {
            run: Some(Run {
                goals: vec![(0, 0.0), (1, 0.25)].into(),
                completed: 0,
                seen: Rc::from([]),
            }),
            ..a.clone()
        };
        // Goals: 0 covered (0); 1 reached twice, best 0.25; 2 reached once (1); 3 unreached (1).
        let full = Tally::of(&[a.clone(), b.clone()], 4, None).fitness();
        assert!((full - 2.25).abs() < 1e-12);
        let rest = Tally::of(&[a], 4, None);
        let base = rest.fitness();
        assert!((base - 3.0).abs() < 1e-12);
        let goals = b.run.as_ref().unwrap().goals.clone();
        assert!((rest.fitness_with(base, &goals) - full).abs() < 1e-12);
    }

    #[test]
    fn rank_selection_favours_the_front_with_bias_one_point_seven() {
        assert_eq!(rank_index(0.0, 100, 1.7), 0);
        // r = 0.5: (1.7 − √(2.89 − 1.4)) / 1.4 = 0.34239 → index 34 of 100.
        assert_eq!(rank_index(0.5, 100, 1.7), 34);
        assert_eq!(rank_index(0.999_999, 100, 1.7), 99);
        // No bias: uniform.
        assert_eq!(rank_index(0.5, 100, 1.0), 50);
    }

    #[test]
    fn memetic_schedule_runs_every_rate_generations_and_adapts_p() {
        let due: Vec<u64> = (1..=300).filter(|&g| ls_due(g, 100)).collect();
        assert_eq!(due, vec![100, 200, 300]);
        assert!((1..=5).all(|g| ls_due(g, 1)));
        assert!(!(1..=1000).any(|g| ls_due(g, 0)));
        // RQ6's best: p0 = 0.01, a = 10.
        let p = adapt(0.01, 10.0, true);
        assert!((p - 0.1).abs() < 1e-15);
        assert_eq!(adapt(p, 10.0, true), 1.0);
        assert_eq!(adapt(1.0, 10.0, true), 1.0);
        assert!((adapt(1.0, 10.0, false) - 0.1).abs() < 1e-15);
        // a = 1 is the fixed schedule.
        assert_eq!(adapt(0.3, 1.0, false), 0.3);
    }

    #[test]
    fn a_phase_spends_a_share_of_the_budget() {
        // 25 s of 600 s of a 24 000-execution budget: 1 000 executions.
        assert_eq!(
            phase_budget(Budget::Executions(24_000), 5_000, 0.2, 25.0 / 600.0),
            1_000
        );
        // A time budget projects the total: 3 000 executions at 25% → 12 000 → 500.
        let t = Budget::Time(std::time::Duration::from_secs(60));
        assert_eq!(phase_budget(t, 3_000, 0.25, 25.0 / 600.0), 500);
    }

    fn toy_member(stmts: Vec<Stmt>, goals: Vec<(u32, f64)>) -> Member {
        Member {
            test: Rc::new(TestCase { stmts }),
            run: Some(Run {
                goals: goals.into(),
                completed: 3,
                seen: Rc::from([]),
            }),
        }
    }

    #[test]
    fn expansion_gives_each_use_of_a_literal_its_own_copy() {
        let schema = crate::toy::schema();
        let lit = Stmt {
            op: 0,
            args: vec![],
            value: Some(crate::Value::Int(7)),
        };
        let call = |a, b| Stmt {
            op: 1,
            args: vec![a, b],
            value: None,
        };
        // f(a, a); f(a, a) → a, b = a, f(a, b), c = a, d = a, f(c, d).
        let mut m = toy_member(vec![lit.clone(), call(0, 0), call(0, 0)], vec![]);
        expand_primitives(&schema, &mut m, 40);
        let args: Vec<Vec<u32>> = m.test.stmts.iter().map(|s| s.args.clone()).collect();
        assert_eq!(
            args,
            vec![vec![], vec![], vec![0, 1], vec![], vec![], vec![3, 4]]
        );
        assert!(
            m.test
                .stmts
                .iter()
                .filter(|s| s.op == 0)
                .all(|s| s.value == lit.value)
        );
        assert_eq!(m.run.unwrap().completed, 6);
        // The length cap stops it.
        let mut m = toy_member(vec![lit, call(0, 0)], vec![]);
        expand_primitives(&schema, &mut m, 2);
        assert_eq!(m.test.len(), 2);
    }

    #[test]
    fn a_sole_reaching_test_is_duplicated() {
        let lit = Stmt {
            op: 0,
            args: vec![],
            value: Some(crate::Value::Int(7)),
        };
        let mut s = Suite::new(vec![
            toy_member(vec![lit.clone()], vec![(0, 0.0), (1, 0.5)]),
            toy_member(vec![lit], vec![(0, 0.0), (2, 0.0)]),
        ]);
        // Goal 1 is reached only by test 0, uncovered: one copy of test 0 joins.
        ensure_double_execution(&mut s, 3, 100);
        assert_eq!(s.members.len(), 3);
        s.rescore(3);
        assert!((s.fitness - 0.5).abs() < 1e-12);
        ensure_double_execution(&mut s, 3, 100);
        assert_eq!(s.members.len(), 3);
    }

    #[test]
    fn suite_crossover_exchanges_whole_tests_at_alpha() {
        let suite = |n: usize, tag: u32| {
            Suite::new(
                (0..n)
                    .map(|i| Member {
                        test: Rc::new(TestCase {
                            stmts: vec![Stmt {
                                op: tag,
                                args: vec![],
                                value: Some(crate::Value::Int(i as i128)),
                            }],
                        }),
                        run: None,
                    })
                    .collect(),
            )
        };
        let (a, b) = (suite(4, 0), suite(2, 1));
        // α = 0.5: O1 = first 2 of A + last 1 of B; O2 = first 1 of B + last 2 of A.
        let (x, y) = crossover(&a, &b, 0.5);
        let tags =
            |s: &Suite| -> Vec<u32> { s.members.iter().map(|m| m.test.stmts[0].op).collect() };
        assert_eq!(tags(&x), vec![0, 0, 1]);
        assert_eq!(tags(&y), vec![1, 0, 0]);
    }
}
