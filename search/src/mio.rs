//! The Many Independent Objective algorithm (MIO; Arcuri, \[mio\]), as described in
//! \[hypermutation\] §2.4 and Alg. 1 (Zhang and Arcuri, TOSEM 2021), with that paper's adaptive weight-based
//! hypermutation (MIO-WH*, §5–6, its best configuration) from `hypermutation`.
//!
//! It owns the per-target populations (at most `n` tests each, for reached and uncovered
//! targets), the feedback-directed sampling counters, the deterministic parameter control
//! (`dpc`) of `P_r`, `n` and `m` with focused search from `F`, and the (1+1)-style inner loop
//! that applies up to `m` mutations to a sampled test, keeping each mutant that reaches a new
//! target or is not subsumed by its parent. Covered targets leave the populations; their best
//! (shortest) test is `Context`'s archive, which is MIO's archive.
//!
//! Heuristics: the executor reports a normalised distance `d` in [0, 1) for reached goals
//! (0 = covered), so MIO's `h = 1 − d` for reached goals and 0 for the rest.
//!
//! Details the paper leaves open follow EvoMaster's source
//! (\[evomaster\]): `n` goes 10 → 1 and `m` 1 → 10 under `dpc`; a mutation is structural (EvoSuite's
//! delete/change/insert, \[evosuite\]) with probability 0.5, else a gene mutation; the sampling counter of a
//! target resets when its population is created or gains a test better than its worst.

use std::rc::Rc;

use rand::RngExt;

use crate::algorithm::{Algorithm, Context, Evaluated};
use crate::hypermutation::{self, Clock, Gene, Genes};
use crate::{Status, TestCase};

/// MIO and MIO-WH* parameters; defaults are the paper's recommended configuration (§7:
/// `P_r = 0.5`, `F = 0.5`, `d = 0.8`, `ρ = 0.5`, `P_A = 0.5`, weights and adaptive mutation on)
/// and EvoMaster's where the paper gives none.
#[derive(Debug, Clone)]
pub struct MioParams {
    /// `P_r`: probability of sampling a random test, decreasing to 0 at `focused_start`.
    pub random_sampling: f64,
    /// `F`: share of the budget after which focused search starts.
    pub focused_start: f64,
    /// `n`: tests per target population at the start; 1 in focused search (EvoMaster: 10).
    pub population: usize,
    /// `m`: mutations of a sampled test in focused search; 1 at the start (EvoMaster: 10).
    pub mutations: usize,
    /// Probability that a mutation is structural rather than of values (EvoMaster: 0.5).
    pub structural: f64,
    /// Weight-based hypermutation (MIO-WH); off gives base MIO's one gene at a time.
    pub weighted: bool,
    /// `ρ`: share of the genes mutated on average at the start (ℓ = max(1, ρ·n)).
    pub rho: f64,
    /// `d`: share of the mutation rate spread evenly over the genes (Eq. 1).
    pub d: f64,
    /// `P_A`: probability of impact-based weights, and of adaptive value mutation (WH*).
    pub adaptive: f64,
    /// Sampling decisions run in lockstep, one executor call per step (see [`Mio`]'s docs);
    /// 1 is the sequential algorithm.
    pub batch: usize,
}

impl Default for MioParams {
    fn default() -> Self {
        MioParams {
            random_sampling: 0.5,
            focused_start: 0.5,
            population: 10,
            mutations: 10,
            structural: 0.5,
            weighted: true,
            rho: 0.5,
            d: 0.8,
            adaptive: 0.5,
            batch: 16,
        }
    }
}

/// Deterministic parameter control: from `start` at `f = 0` linearly to `end` at `f = focus`,
/// then `end`.
pub(crate) fn dpc(start: f64, end: f64, f: f64, focus: f64) -> f64 {
    if focus <= 0.0 || f >= focus {
        end
    } else {
        start + (f / focus) * (end - start)
    }
}

/// An executed test with what MIO keeps of it.
#[derive(Debug, Clone)]
struct Ind {
    test: TestCase,
    /// Reached goals with normalised distances, sorted by goal.
    goals: Vec<(u32, f64)>,
    genes: Genes,
    /// The strings its run was compared against (dynamic seeding).
    seen: Vec<String>,
}

impl Ind {
    /// `h_k` of MIO: 1 − d when reached, 0 otherwise.
    fn h(&self, goal: u32) -> f64 {
        self.goals
            .binary_search_by_key(&goal, |&(g, _)| g)
            .map_or(0.0, |i| 1.0 - self.goals[i].1)
    }
}

/// Per-target populations with their sampling counters, and which goals are covered (the
/// archive keeps their tests; MIO only needs to know that they left the search).
struct Populations {
    /// Per goal: (h, test), at most `n` once trimmed; empty for unreached and covered goals.
    pops: Vec<Vec<(f64, Rc<Ind>)>>,
    counter: Vec<u64>,
    covered: Vec<bool>,
    open: usize,
}

impl Populations {
    fn new(goals: usize) -> Self {
        Populations {
            pops: vec![Vec::new(); goals],
            counter: vec![0; goals],
            covered: vec![false; goals],
            open: goals,
        }
    }

    fn is_open(&self, g: u32) -> bool {
        !self.covered.get(g as usize).copied().unwrap_or(true)
    }

    /// Adds an evaluated test to the population of every uncovered target it reached
    /// (Alg. 1 lines 9–16, EvoMaster's `addIfNeeded`); targets it covers drop theirs.
    fn update(&mut self, ind: &Rc<Ind>, n: usize) {
        for &(g, d) in &ind.goals {
            let gi = g as usize;
            if gi >= self.pops.len() || self.covered[gi] {
                continue;
            }
            if d == 0.0 {
                self.covered[gi] = true;
                self.open -= 1;
                self.pops[gi] = Vec::new();
                continue;
            }
            if add(&mut self.pops[gi], 1.0 - d, ind, n) {
                self.counter[gi] = 0;
            }
        }
    }

    /// Whether `ind` covers an open target or reaches one that has no population yet.
    fn reaches_new(&self, ind: &Ind) -> bool {
        ind.goals
            .iter()
            .any(|&(g, d)| self.is_open(g) && (d == 0.0 || self.pops[g as usize].is_empty()))
    }

    /// Feedback-directed sampling: the open target with a population and the lowest counter
    /// (ties broken at random); `None` when no population is left.
    fn pick_target(&self, rng: &mut impl rand::Rng) -> Option<u32> {
        let mut best = u64::MAX;
        let mut ties = Vec::new();
        for (g, pop) in self.pops.iter().enumerate() {
            if pop.is_empty() || self.covered[g] {
                continue;
            }
            let c = self.counter[g];
            if c < best {
                best = c;
                ties.clear();
            }
            if c == best {
                ties.push(g as u32);
            }
        }
        (!ties.is_empty()).then(|| ties[rng.random_range(0..ties.len())])
    }

    /// A random member of target `k`'s population, after trimming it to `n`.
    fn pick(&mut self, k: u32, n: usize, rng: &mut impl rand::Rng) -> Rc<Ind> {
        let pop = &mut self.pops[k as usize];
        trim(pop, n);
        pop[rng.random_range(0..pop.len())].1.clone()
    }
}

/// Sorts worst first (lower `h`, then longer) and drops the worst beyond `n`.
fn trim(pop: &mut Vec<(f64, Rc<Ind>)>, n: usize) {
    pop.sort_by(|a, b| {
        a.0.total_cmp(&b.0)
            .then(b.1.test.len().cmp(&a.1.test.len()))
    });
    let excess = pop.len().saturating_sub(n.max(1));
    pop.drain(..excess);
}

/// Offers a test with heuristic `h` to one target's population. Returns whether the sampling
/// counter resets: the population was empty, or the test beats its worst member (higher `h`,
/// or equal and shorter). It joins if there is room, or replaces the worst when not worse.
fn add(pop: &mut Vec<(f64, Rc<Ind>)>, h: f64, ind: &Rc<Ind>, n: usize) -> bool {
    if pop.is_empty() {
        pop.push((h, ind.clone()));
        return true;
    }
    trim(pop, n);
    let (wh, wlen) = (pop[0].0, pop[0].1.test.len());
    let len = ind.test.len();
    let better = h > wh || (h == wh && len < wlen);
    if pop.len() < n.max(1) {
        pop.push((h, ind.clone()));
    } else if better || (h == wh && len == wlen) {
        pop[0] = (h, ind.clone());
    }
    better
}

/// `a` subsumes `b` on the open targets: at least as good on each, and better on one or, if
/// equal everywhere, shorter. A mutant its parent does not subsume is kept (neutral moves of
/// equal length are accepted).
fn subsumes(a: &Ind, b: &Ind, pops: &Populations) -> bool {
    let mut strictly = false;
    let (mut i, mut j) = (0, 0);
    while i < a.goals.len() || j < b.goals.len() {
        let ga = a.goals.get(i).map_or(u32::MAX, |x| x.0);
        let gb = b.goals.get(j).map_or(u32::MAX, |x| x.0);
        let g = ga.min(gb);
        let ha = if ga == g { 1.0 - a.goals[i].1 } else { 0.0 };
        let hb = if gb == g { 1.0 - b.goals[j].1 } else { 0.0 };
        i += usize::from(ga == g);
        j += usize::from(gb == g);
        if !pops.is_open(g) {
            continue;
        }
        if ha < hb {
            return false;
        }
        strictly |= ha > hb;
    }
    strictly || a.test.len() < b.test.len()
}

/// Open targets whose heuristic differs between two runs (Alg. 2's "fitness changed").
fn changed_targets(a: &Ind, b: &Ind, pops: &Populations) -> Vec<u32> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.goals.len() || j < b.goals.len() {
        let ga = a.goals.get(i).map_or(u32::MAX, |x| x.0);
        let gb = b.goals.get(j).map_or(u32::MAX, |x| x.0);
        let g = ga.min(gb);
        let differs = ga != gb || a.goals[i].1 != b.goals[j].1;
        i += usize::from(ga == g);
        j += usize::from(gb == g);
        if differs && pops.is_open(g) {
            out.push(g);
        }
    }
    out
}

/// MIO with the (optional) weight-based hypermutation.
///
/// Decision: MIO is sequential (one execution, then the next decision), but each call into the
/// process-pool executor costs about a millisecond of latency however few tests it carries. So
/// `batch` lanes run in lockstep: each lane is one sampling decision of Alg. 1 (a random test,
/// or a chain of up to `m` mutations from a sampled target's population), every step of all
/// lanes is one `evaluate` call, and results are applied lane by lane in order, so a later lane
/// sees what an earlier one changed. A lane that ends is replaced by a fresh decision at once.
/// With `batch = 1` this is the paper's loop exactly.
pub struct Mio {
    pops: Populations,
    last_report: u64,
}

/// One sampling decision in progress.
enum Lane {
    Random,
    /// Mutating `current`, sampled for target `k`, with `left` mutations to go.
    Chain {
        k: u32,
        current: Ind,
        left: usize,
    },
}

impl Mio {
    pub fn new() -> Self {
        Mio {
            pops: Populations::new(0),
            last_report: 0,
        }
    }
}

impl Default for Mio {
    fn default() -> Self {
        Self::new()
    }
}

/// The current `P_r`, `n` and `m` (§2.4; EvoMaster's source for `n` and `m`).
fn schedule(p: &crate::MioParams, clock: Clock) -> (f64, usize, usize) {
    let pr = clock.dpc(p.random_sampling, 0.0);
    let n = clock.dpc(p.population as f64, 1.0).round().max(1.0) as usize;
    let m = clock.dpc(1.0, p.mutations as f64).round().max(1.0) as usize;
    (pr, n, m)
}

fn clock_of(cx: &Context<'_>, p: &crate::MioParams) -> Clock {
    Clock {
        f: cx.clock.progress(),
        focus: p.focused_start,
    }
}

impl Algorithm for Mio {
    fn run(&mut self, cx: &mut Context<'_>) {
        self.pops = Populations::new(cx.goals.len());
        let p = cx.params.mio.clone();
        let mut lanes: Vec<Lane> = Vec::new();
        while !cx.done() {
            let (_, n, _) = schedule(&p, clock_of(cx, &p));
            while lanes.len() < p.batch.max(1) {
                lanes.push(self.decide(cx, &p));
            }
            let clock = clock_of(cx, &p);
            let steps: Vec<(TestCase, Option<Touched>)> = lanes
                .iter()
                .map(|lane| match lane {
                    Lane::Random => (cx.builder.random_test(&mut cx.rng), None),
                    Lane::Chain { k, current, .. } => {
                        let (t, touched) = mutate(cx, &self.pops, current, *k, &p, clock);
                        (t, Some(touched))
                    }
                })
                .collect();
            let (tests, touched): (Vec<_>, Vec<_>) = steps.into_iter().unzip();
            let results = cx.evaluate(tests);
            let ran = results.len();
            let mut next = Vec::with_capacity(lanes.len());
            for ((lane, touched), e) in lanes.into_iter().zip(touched).zip(results) {
                let child = keep(e);
                if let Some(lane) = self.apply(cx, lane, child, touched, n) {
                    next.push(lane);
                }
            }
            // Lanes the budget cut off (beyond `ran`) ended with the zip.
            debug_assert!(next.len() <= ran);
            lanes = next;
            if cx.clock.executions - self.last_report >= cx.params.population.max(1) as u64 {
                self.last_report = cx.clock.executions;
                cx.report();
            }
        }
        cx.report();
    }
}

impl Mio {
    /// A new sampling decision (Alg. 1 lines 4–7): a random test with probability `P_r` (or
    /// when no population is left), else a copy of a member of the population of the target
    /// with the lowest sampling counter, whose counter goes up.
    fn decide(&mut self, cx: &mut Context<'_>, p: &crate::MioParams) -> Lane {
        let (pr, n, m) = schedule(p, clock_of(cx, p));
        if cx.rng.random_bool(pr.clamp(0.0, 1.0)) {
            return Lane::Random;
        }
        let Some(k) = self.pops.pick_target(&mut cx.rng) else {
            return Lane::Random;
        };
        self.pops.counter[k as usize] += 1;
        let current = (*self.pops.pick(k, n, &mut cx.rng)).clone();
        Lane::Chain {
            k,
            current,
            left: m,
        }
    }

    /// Applies one lane's executed test; returns the lane if it goes on. A mutant replaces the
    /// current test (and joins the populations) if it reaches a new target or its parent does
    /// not subsume it.
    fn apply(
        &mut self,
        cx: &Context<'_>,
        lane: Lane,
        child: Option<Ind>,
        touched: Option<Touched>,
        n: usize,
    ) -> Option<Lane> {
        let mut child = child?;
        match (lane, touched) {
            (
                Lane::Chain {
                    k,
                    mut current,
                    left,
                },
                Some(touched),
            ) => {
                learn(cx, &self.pops, &mut current, &mut child, &touched, k);
                if self.pops.reaches_new(&child) || !subsumes(&current, &child, &self.pops) {
                    let rc = Rc::new(child);
                    self.pops.update(&rc, n);
                    current = (*rc).clone();
                }
                (left > 1).then_some(Lane::Chain {
                    k,
                    current,
                    left: left - 1,
                })
            }
            _ => {
                self.pops.update(&Rc::new(child), n);
                None
            }
        }
    }
}

/// What a mutation changed: gene mutations list the statements and their old values;
/// structural ones carry the genes re-aligned to the new test.
enum Touched {
    Genes(Vec<(usize, crate::Value)>),
    Structure(Genes),
}

/// One mutation of `current` (MIO-WH*: hypermutation of genes, or a structural change).
fn mutate(
    cx: &mut Context<'_>,
    pops: &Populations,
    current: &Ind,
    k: u32,
    p: &crate::MioParams,
    clock: Clock,
) -> (TestCase, Touched) {
    let mut t = current.test.clone();
    if !cx.rng.random_bool(p.structural.clamp(0.0, 1.0)) {
        let open = pops.open;
        let is_open = |g: u32| pops.is_open(g);
        let weight = |g: &Gene| g.weight(open, &is_open);
        let params = if p.weighted {
            p.clone()
        } else {
            // Base MIO: uniform 1/n, one gene on average, standard value mutation.
            crate::MioParams {
                rho: 0.0,
                d: 1.0,
                adaptive: 0.0,
                ..p.clone()
            }
        };
        let touched = hypermutation::mutate_genes(
            &cx.builder,
            &mut t,
            &current.genes,
            k,
            &weight,
            &params,
            clock,
            &mut cx.rng,
        );
        if let Some(touched) = touched {
            return (t, Touched::Genes(touched));
        }
    }
    for _ in 0..3 {
        if cx.builder.mutate_seeded(&mut t, &current.seen, &mut cx.rng) {
            break;
        }
    }
    let genes = hypermutation::align(&current.test, &current.genes, &t);
    (t, Touched::Structure(genes))
}

/// What MIO keeps of an executed test; `None` for crashes and timeouts, which never join a
/// population.
fn keep(e: Evaluated) -> Option<Ind> {
    if !matches!(e.result.status, Status::Completed | Status::Panicked { .. }) {
        return None;
    }
    Some(Ind {
        goals: e.result.goals,
        genes: vec![Gene::default(); e.test.len()],
        test: e.test,
        seen: e.result.seen,
    })
}

/// Impact collection (Alg. 2) and the derived bounds for the sampled target `k` (Alg. 3)
/// after a gene mutation; the child inherits the updated history. A structural mutation
/// passes on the re-aligned genes and teaches nothing (the paper adapts values only).
fn learn(
    cx: &Context<'_>,
    pops: &Populations,
    current: &mut Ind,
    child: &mut Ind,
    touched: &Touched,
    k: u32,
) {
    match touched {
        Touched::Structure(genes) if genes.len() == child.test.len() => {
            child.genes = genes.clone();
        }
        Touched::Structure(_) => {}
        Touched::Genes(changed_values) => {
            let changed = changed_targets(current, child, pops);
            let better = child.h(k) > current.h(k);
            for (i, old) in changed_values {
                let gene = &mut current.genes[*i];
                gene.record(changed_values.len(), &changed);
                update_bounds(cx, gene, &child.test, *i, old, k, better);
            }
            child.genes = current.genes.clone();
        }
    }
}

fn update_bounds(
    cx: &Context<'_>,
    gene: &mut Gene,
    test: &TestCase,
    i: usize,
    old: &crate::Value,
    k: u32,
    better: bool,
) {
    let Some(new) = test.stmts[i].value.as_ref() else {
        return;
    };
    let Some(ty) = cx.schema.op(test.stmts[i].op).ret else {
        return;
    };
    let kind = cx.schema.ty(ty).literal.clone();
    let range = hypermutation::int_range(&kind, old);
    let (l, m) = (hypermutation::as_int(old), hypermutation::as_int(new));
    if let (Some((lo, hi)), Some(l), Some(m)) = (range, l, m) {
        let mut b = gene.bounds_for(k, lo, hi);
        b.update(l, m, better, lo, hi);
        gene.set_bounds(k, b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ind(goals: Vec<(u32, f64)>, len: usize) -> Rc<Ind> {
        let stmt = crate::Stmt {
            op: 0,
            args: vec![],
            value: Some(crate::Value::Int(0)),
        };
        Rc::new(Ind {
            test: TestCase {
                stmts: vec![stmt; len],
            },
            goals,
            genes: vec![Gene::default(); len],
            seen: Vec::new(),
        })
    }

    #[test]
    fn dpc_moves_linearly_until_focused_search() {
        let at = |f| dpc(0.5, 0.0, f, 0.5);
        assert_eq!([at(0.0), at(0.25), at(0.5), at(1.0)], [0.5, 0.25, 0.0, 0.0]);
        let p = crate::MioParams::default();
        let s = |f| schedule(&p, Clock { f, focus: 0.5 });
        // P_r 0.5 → 0; n 10 → 1 (5.5 rounds to 6); m 1 → 10 (5.5 rounds to 6).
        assert_eq!(s(0.0), (0.5, 10, 1));
        assert_eq!(s(0.25), (0.25, 6, 6));
        assert_eq!(s(0.5), (0.0, 1, 10));
        assert_eq!(s(1.0), (0.0, 1, 10));
    }

    #[test]
    fn sampling_counter_resets_only_on_improvement() {
        let mut pops = Populations::new(2);
        // First test reaching goal 1: new population, counter reset.
        pops.counter[1] = 7;
        pops.update(&ind(vec![(1, 0.5)], 3), 2);
        assert_eq!(pops.counter[1], 0);
        // Sampling raises it; a worse test joins (room for 2) but does not reset it.
        pops.counter[1] = 4;
        pops.update(&ind(vec![(1, 0.75)], 3), 2);
        assert_eq!((pops.counter[1], pops.pops[1].len()), (4, 2));
        // Better than the worst (h 0.4 < 0.6): replaces it and resets.
        pops.update(&ind(vec![(1, 0.4)], 3), 2);
        assert_eq!(pops.counter[1], 0);
        let hs: Vec<f64> = pops.pops[1].iter().map(|x| x.0).collect();
        assert_eq!(hs, vec![0.6, 0.5]);
        // Equal h to the worst but shorter counts as better.
        pops.counter[1] = 2;
        pops.update(&ind(vec![(1, 0.5)], 1), 2);
        assert_eq!(pops.counter[1], 0);
        // The lowest counter is sampled.
        pops.pops[0] = pops.pops[1].clone();
        pops.counter[0] = 1;
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
        assert_eq!(pops.pick_target(&mut rng), Some(1));
    }

    #[test]
    fn covering_a_target_retires_its_population() {
        let mut pops = Populations::new(3);
        pops.update(&ind(vec![(0, 0.5), (1, 0.5)], 2), 10);
        assert!(pops.reaches_new(&ind(vec![(2, 0.9)], 1)));
        assert!(pops.reaches_new(&ind(vec![(1, 0.0)], 1)));
        assert!(!pops.reaches_new(&ind(vec![(0, 0.2)], 1)));
        pops.update(&ind(vec![(1, 0.0)], 2), 10);
        assert!(pops.pops[1].is_empty() && !pops.is_open(1) && pops.open == 2);
        // Covered targets are never sampled again, nor count as changed.
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
        assert_eq!(pops.pick_target(&mut rng), Some(0));
        let a = ind(vec![(1, 0.5)], 1);
        assert!(changed_targets(&a, &ind(vec![], 1), &pops).is_empty());
    }

    #[test]
    fn parents_subsume_mutants_that_are_no_better() {
        let pops = Populations::new(3);
        let p = ind(vec![(0, 0.5), (1, 0.2)], 3);
        assert!(subsumes(&p, &ind(vec![(0, 0.5)], 3), &pops));
        assert!(!subsumes(&p, &ind(vec![(0, 0.4)], 3), &pops));
        // Equal everywhere: a neutral move is kept unless the parent is shorter.
        assert!(!subsumes(&p, &ind(vec![(0, 0.5), (1, 0.2)], 3), &pops));
        assert!(subsumes(&p, &ind(vec![(0, 0.5), (1, 0.2)], 4), &pops));
        assert_eq!(
            changed_targets(&p, &ind(vec![(0, 0.5), (2, 0.9)], 3), &pops),
            vec![1, 2]
        );
    }
}
