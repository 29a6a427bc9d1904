//! Adaptive weight-based hypermutation (MIO-WH*, \[hypermutation\]: Zhang and Arcuri, "Adaptive
//! Hypermutation for Search-Based System Test Generation", TOSEM 2021, §5–6).
//!
//! It owns the gene view of a test (one gene per literal statement that a later statement
//! uses), the per-gene impact history (Alg. 2) and the weights derived from it (Eq. 2–3), the
//! weighted selection of genes with a decaying hypermutation rate (Eq. 1, Alg. 6, §5.3), the
//! standard value mutation, and the adaptive value mutation with per-(gene, target) derived
//! bounds (Alg. 3) and bisection probability φ (Eq. 4).
//!
//! Cost (the paper warns about it for cheap unit-test evaluations): impacts are stored sparsely
//! per gene as (target, impactful mutations, credit), and the non-impactful count `n_t` is
//! derived as "mutations of the gene minus impactful ones" (every mutation updates every open
//! target, and targets only ever close), so one mutation costs O(|S| · changed targets), not
//! O(|S| · targets).

use rand::{Rng, RngExt};

use crate::mio::dpc;
use crate::{Builder, Schema, TestCase, Value, ValueKind};

/// `c` of Eq. 3: favours impact over its absence.
pub(crate) const IMPACT_C: f64 = 1.5;
/// φ levels of Eq. 4: high, medium, low.
const P_HIGH: f64 = 0.8;
const P_MEDIUM: f64 = 0.5;
const P_LOW: f64 = 0.1;

/// Where the search is on its schedule: used share `f` of the budget and focused-search start
/// `focus` (MIO's `F`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Clock {
    pub f: f64,
    pub focus: f64,
}

impl Clock {
    pub fn dpc(self, start: f64, end: f64) -> f64 {
        dpc(start, end, self.f, self.focus)
    }
}

/// Impact of a gene on one target (Alg. 2): how many of its mutations changed the target's
/// fitness, and the credit `m_t` (each such mutation adds `1/|S|`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Impact {
    pub target: u32,
    pub hits: u32,
    pub credit: f64,
}

/// Derived bounds of a value for one target (Alg. 3): `[min, max]`, `u` updates and `r`
/// consecutive non-improvements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub min: i128,
    pub max: i128,
    pub updates: u32,
    pub fails: u32,
}

impl Bounds {
    pub fn full(min: i128, max: i128) -> Bounds {
        Bounds {
            min,
            max,
            updates: 0,
            fails: 0,
        }
    }

    /// Alg. 3 after mutating `l` to `m`: a better `m` outside the bounds proves them wrong
    /// (reset to the type's range); otherwise the half of the range the move argues against
    /// is cut off at the midpoint. Unlike the printed algorithm a cut never widens the bounds
    /// (the paper instead forgets all but the ~10 latest moves), so they stay well-formed.
    pub fn update(&mut self, l: i128, m: i128, better: bool, lo: i128, hi: i128) {
        self.updates += 1;
        self.fails = if better { 0 } else { self.fails + 1 };
        if m == l {
            return;
        }
        let mid = (m >> 1) + (l >> 1) + (m & l & 1);
        if better && (m < self.min || m > self.max) {
            (self.min, self.max) = (lo, hi);
        } else if (better && m > l) || (!better && m < l) {
            self.min = mid.max(self.min);
        } else {
            self.max = mid.min(self.max);
        }
    }
}

/// What the search knows about one statement's value: mutations tried, impacts per target
/// (sorted by target) and derived bounds per target.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Gene {
    pub tried: u32,
    pub impacts: Vec<Impact>,
    pub bounds: Vec<(u32, Bounds)>,
}

impl Gene {
    /// Eq. 2–3: `1 + 100 · Σ_{t open} w(t)`, `w(t) = 1` for a target never tried, else
    /// `c·m_t / (n_t + c·m_t)`. A gene never mutated has every open target untried.
    pub fn weight(&self, open: usize, is_open: &dyn Fn(u32) -> bool) -> f64 {
        if self.tried == 0 {
            return 1.0 + 100.0 * open as f64;
        }
        let sum: f64 = self
            .impacts
            .iter()
            .filter(|i| is_open(i.target))
            .map(|i| {
                let n = (self.tried - i.hits) as f64;
                IMPACT_C * i.credit / (n + IMPACT_C * i.credit)
            })
            .sum();
        1.0 + 100.0 * sum
    }

    /// Alg. 2 for a gene that was one of `selected` mutated together: `changed` are the open
    /// targets whose fitness changed (better or worse).
    pub fn record(&mut self, selected: usize, changed: &[u32]) {
        self.tried += 1;
        let credit = 1.0 / selected.max(1) as f64;
        for &t in changed {
            match self.impacts.binary_search_by_key(&t, |i| i.target) {
                Ok(k) => {
                    self.impacts[k].hits += 1;
                    self.impacts[k].credit += credit;
                }
                Err(k) => self.impacts.insert(
                    k,
                    Impact {
                        target: t,
                        hits: 1,
                        credit,
                    },
                ),
            }
        }
    }

    pub fn bounds_for(&self, target: u32, lo: i128, hi: i128) -> Bounds {
        self.bounds
            .iter()
            .find(|(t, _)| *t == target)
            .map_or(Bounds::full(lo, hi), |&(_, b)| b)
    }

    pub fn set_bounds(&mut self, target: u32, b: Bounds) {
        match self.bounds.iter_mut().find(|(t, _)| *t == target) {
            Some(slot) => slot.1 = b,
            None => self.bounds.push((target, b)),
        }
    }
}

/// The genes of a test: one per statement (only literal statements use theirs).
pub(crate) type Genes = Vec<Gene>;

/// Carries genes over a structural change: each literal of the new test takes the history of
/// the next identical literal of the old test (a monotone greedy match), others start fresh.
pub(crate) fn align(old: &TestCase, genes: &Genes, new: &TestCase) -> Genes {
    let mut out = Vec::with_capacity(new.len());
    let mut j = 0;
    for s in &new.stmts {
        let found = (j..old.len()).find(|&k| {
            let o = &old.stmts[k];
            s.value.is_some() && o.op == s.op && o.value == s.value
        });
        match found {
            Some(k) => {
                out.push(genes.get(k).cloned().unwrap_or_default());
                j = k + 1;
            }
            None => out.push(Gene::default()),
        }
    }
    out
}

/// Statements whose values are genes: literals that some later statement uses.
pub(crate) fn gene_sites(schema: &Schema, t: &TestCase) -> Vec<usize> {
    (0..t.len())
        .filter(|&i| crate::local_search::tunable(schema, t, i))
        .collect()
}

/// ℓ, the mean number of genes mutated (§5.3): `max(1, ρ·n)` at the start, decreasing
/// linearly to 1 when focused search starts.
pub(crate) fn mean_mutated(n: usize, rho: f64, clock: Clock) -> f64 {
    clock.dpc((rho * n as f64).max(1.0), 1.0)
}

/// Eq. 1: the mutation probability of each gene, `ℓ · (d/n + (1−d) · w_i / Σw)`.
pub(crate) fn rates(weights: &[f64], ell: f64, d: f64) -> Vec<f64> {
    let n = weights.len() as f64;
    let total: f64 = weights.iter().sum();
    weights
        .iter()
        .map(|w| ell * (d / n + (1.0 - d) * w / total))
        .collect()
}

/// Bernoulli selection with Eq. 1's rates, repeated until at least one gene is chosen
/// (Alg. 5–6).
pub(crate) fn select(rates: &[f64], rng: &mut impl Rng) -> Vec<usize> {
    for _ in 0..64 {
        let s: Vec<usize> = (0..rates.len())
            .filter(|&i| rng.random_bool(rates[i].clamp(0.0, 1.0)))
            .collect();
        if !s.is_empty() {
            return s;
        }
    }
    vec![rng.random_range(0..rates.len())]
}

/// Eq. 4: the probability of a bisection step, high while the value has few updates or keeps
/// failing, low once it has history and recent success.
pub(crate) fn phi(b: &Bounds, clock: Clock) -> f64 {
    if b.updates < 3 || b.fails > 3 {
        clock.dpc(P_HIGH, P_MEDIUM)
    } else if (3..=5).contains(&b.updates) || b.fails > 1 {
        clock.dpc(P_MEDIUM, P_LOW)
    } else {
        P_LOW
    }
}

/// The integer range of a literal type the adaptive mutation works on (chars as code points).
pub(crate) fn int_range(kind: &Option<ValueKind>, v: &Value) -> Option<(i128, i128)> {
    match (v, kind) {
        (Value::Int(_), Some(ValueKind::Int { min, max })) => Some((*min, *max)),
        (Value::Char(_), _) => Some((0, 0x10FFFF)),
        _ => None,
    }
}

pub(crate) fn as_int(v: &Value) -> Option<i128> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Char(c) => Some(*c as i128),
        _ => None,
    }
}

fn from_int(like: &Value, x: i128) -> Option<Value> {
    match like {
        Value::Int(_) => Some(Value::Int(x)),
        Value::Char(_) => char::from_u32(x as u32).map(Value::Char),
        _ => None,
    }
}

/// Adaptive value mutation of an integer or char (§6.2): with probability φ the midpoint of
/// the derived bounds (a bisection step), else a ±2^i step that stays inside them.
pub(crate) fn adaptive_int(v: i128, b: &Bounds, clock: Clock, rng: &mut impl Rng) -> Option<i128> {
    let (lo, hi) = (b.min.min(v), b.max.max(v));
    if rng.random_bool(phi(b, clock).clamp(0.0, 1.0)) {
        let mid = (lo >> 1) + (hi >> 1) + (lo & hi & 1);
        if mid != v {
            return Some(mid);
        }
    }
    let span = (hi - v).max(v - lo);
    if span <= 0 {
        return None;
    }
    let top = 127 - span.leading_zeros();
    let step = 1i128 << rng.random_range(0..=top);
    let up = v.checked_add(step).is_some_and(|x| x <= hi);
    let down = v.checked_sub(step).is_some_and(|x| x >= lo);
    match (up, down) {
        (true, true) if rng.random_bool(0.5) => Some(v + step),
        (true, _) => Some(v + step),
        (_, true) => Some(v - step),
        _ => None,
    }
}

/// Standard value mutation (§6.2): integers `v ± 2^i` with `i` uniform in `[0, MAX_δ]` and
/// `MAX_δ` decreasing 30 → 10, clamped to the type; floats `v ± 2^i · g` with `g` Gaussian;
/// chars like integers over code points; booleans flipped; strings by the §3.3 edits of seed
/// 003. With probability 0.1 a fresh literal instead (the builder's, which draws from the
/// crate's constants): our stand-in for EvoMaster's "copy another gene's value".
pub(crate) fn standard(
    builder: &Builder<'_>,
    ty: u32,
    v: &Value,
    clock: Clock,
    rng: &mut impl Rng,
) -> Value {
    if rng.random_bool(0.1) {
        return builder.new_value(ty, rng);
    }
    let max_exp = clock.dpc(30.0, 10.0).round() as u32;
    let sign = |rng: &mut _| if RngExt::random_bool(rng, 0.5) { 1 } else { -1 };
    match (v, builder.schema.ty(ty).literal.clone()) {
        (Value::Int(i), Some(ValueKind::Int { min, max })) => {
            let step = 1i128 << rng.random_range(0..=max_exp);
            Value::Int(i.saturating_add(sign(rng) * step).clamp(min, max))
        }
        (Value::Float(x), _) => {
            let g = gaussian(rng);
            let step = 2f64.powi(rng.random_range(0..=max_exp.min(10)) as i32);
            Value::Float(x + sign(rng) as f64 * step * g)
        }
        (Value::Char(c), _) => {
            let step = 1i64 << rng.random_range(0..=max_exp.min(16));
            let code = (*c as i64 + sign(rng) as i64 * step).clamp(0, 0x10FFFF);
            Value::Char(char::from_u32(code as u32).unwrap_or(*c))
        }
        (Value::Bool(b), _) => Value::Bool(!b),
        (Value::Str(s), _) => Value::Str(crate::local_search::mutate_string(s, rng)),
        (other, _) => other.clone(),
    }
}

/// A standard normal draw (Box–Muller).
fn gaussian(rng: &mut impl Rng) -> f64 {
    let u1: f64 = rng.random_range(f64::EPSILON..1.0);
    let u2: f64 = rng.random_range(0.0..1.0);
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// One gene mutation of the test (Alg. 4–7 at the root, no SQL split): weights from impacts
/// with probability `P_A` (else the static weight 1 of a leaf), genes chosen by Eq. 1, and each
/// chosen value mutated adaptively (again with probability `P_A`, for integers and chars) or in
/// the standard way. Returns the chosen statements with their old values, or `None` when the
/// test has no genes.
#[expect(clippy::too_many_arguments)]
pub(crate) fn mutate_genes(
    builder: &Builder<'_>,
    t: &mut TestCase,
    genes: &Genes,
    target: u32,
    weights: &dyn Fn(&Gene) -> f64,
    params: &crate::MioParams,
    clock: Clock,
    rng: &mut impl Rng,
) -> Option<Vec<(usize, Value)>> {
    let sites = gene_sites(builder.schema, t);
    if sites.is_empty() {
        return None;
    }
    let impact = rng.random_bool(params.adaptive.clamp(0.0, 1.0));
    let w: Vec<f64> = sites
        .iter()
        .map(|&i| if impact { weights(&genes[i]) } else { 1.0 })
        .collect();
    let ell = mean_mutated(sites.len(), params.rho, clock);
    let chosen = select(&rates(&w, ell, params.d), rng);
    let mut out = Vec::with_capacity(chosen.len());
    for k in chosen {
        let i = sites[k];
        let old = t.stmts[i].value.clone()?;
        let ty = builder.schema.op(t.stmts[i].op).ret?;
        let kind = builder.schema.ty(ty).literal.clone();
        let adaptive = rng.random_bool(params.adaptive.clamp(0.0, 1.0));
        let adapted = match (adaptive, int_range(&kind, &old), as_int(&old)) {
            (true, Some((lo, hi)), Some(v)) => {
                let b = genes[i].bounds_for(target, lo, hi);
                adaptive_int(v, &b, clock, rng).and_then(|x| from_int(&old, x))
            }
            _ => None,
        };
        let new = adapted.unwrap_or_else(|| standard(builder, ty, &old, clock, rng));
        t.stmts[i].value = Some(new);
        out.push((i, old));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(f: f64) -> Clock {
        Clock { f, focus: 0.5 }
    }

    #[test]
    fn weights_follow_the_papers_example() {
        // One open target. x mutated twice without effect, y once with effect: w_x = 1,
        // w_y = 1 + 100 · 1.5·1/(0 + 1.5·1) = 101 (§6.1).
        let open = |_: u32| true;
        let (mut x, mut y) = (Gene::default(), Gene::default());
        assert_eq!(
            x.weight(1, &open),
            101.0,
            "untried genes count every target"
        );
        x.record(1, &[]);
        x.record(1, &[]);
        y.record(1, &[7]);
        assert_eq!(x.weight(1, &open), 1.0);
        assert_eq!(y.weight(1, &open), 101.0);
    }

    #[test]
    fn impact_credit_is_shared_within_a_mutated_set() {
        let open = |_: u32| true;
        let mut x = Gene::default();
        // Mutated together with another gene, target 3 changed: m = 1/2, n = 0 → w(t) = 1.
        x.record(2, &[3]);
        assert_eq!(
            x.impacts,
            vec![Impact {
                target: 3,
                hits: 1,
                credit: 0.5
            }]
        );
        assert_eq!(x.weight(1, &open), 101.0);
        // Then alone without effect: n = 1, m = 0.5 → 0.75 / 1.75 → 1 + 42.857...
        x.record(1, &[]);
        assert!((x.weight(1, &open) - (1.0 + 100.0 * 0.75 / 1.75)).abs() < 1e-12);
        // Once target 3 is covered it no longer counts.
        assert_eq!(x.weight(1, &|t| t != 3), 1.0);
    }

    #[test]
    fn hypermutation_rate_decreases_linearly_to_one() {
        // n = 10 genes, ρ = 0.5: ℓ = 5 at the start, 3 at a quarter, 1 from F = 0.5 on.
        let ell: Vec<f64> = [0.0, 0.25, 0.5, 1.0]
            .iter()
            .map(|&f| mean_mutated(10, 0.5, clock(f)))
            .collect();
        assert_eq!(ell, vec![5.0, 3.0, 1.0, 1.0]);
        // Few genes: never below one.
        assert_eq!(mean_mutated(1, 0.5, clock(0.0)), 1.0);
        // Eq. 1 rates sum to ℓ: weights 1 and 3, d = 0.8, ℓ = 2 → 2·(0.4 + 0.05), 2·(0.4 + 0.15).
        let r = rates(&[1.0, 3.0], 2.0, 0.8);
        assert!((r[0] - 0.9).abs() < 1e-12 && (r[1] - 1.1).abs() < 1e-12);
    }

    #[test]
    fn derived_bounds_follow_the_worked_example() {
        // x == 111 on [0, 122]: 0 → 64 better gives [32, 122]; 64 → 48 worse gives [56, 122].
        let mut b = Bounds::full(0, 122);
        b.update(0, 64, true, 0, 122);
        assert_eq!((b.min, b.max), (32, 122));
        b.update(64, 48, false, 0, 122);
        assert_eq!((b.min, b.max), (56, 122));
        // 64 → 100 worse: the target is below the midpoint 82.
        b.update(64, 100, false, 0, 122);
        assert_eq!((b.min, b.max, b.updates, b.fails), (56, 82, 3, 2));
        // A better value outside the bounds resets them.
        b.update(64, 20, true, 0, 122);
        assert_eq!((b.min, b.max, b.fails), (0, 122, 0));
    }

    #[test]
    fn bisection_probability_has_three_levels() {
        let b = |updates, fails| Bounds {
            min: 0,
            max: 9,
            updates,
            fails,
        };
        assert_eq!(phi(&b(0, 0), clock(0.0)), 0.8);
        assert_eq!(phi(&b(0, 0), clock(0.5)), 0.5);
        assert!((phi(&b(9, 4), clock(0.25)) - 0.65).abs() < 1e-12);
        assert_eq!(phi(&b(4, 0), clock(0.0)), 0.5);
        assert_eq!(phi(&b(9, 2), clock(0.5)), 0.1);
        assert_eq!(phi(&b(9, 0), clock(0.0)), 0.1);
    }

    #[test]
    fn adaptive_steps_stay_inside_the_bounds() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let b = Bounds {
            min: 56,
            max: 122,
            updates: 9,
            fails: 0,
        };
        for _ in 0..500 {
            let x = adaptive_int(64, &b, clock(1.0), &mut rng).unwrap();
            assert!((56..=122).contains(&x) && x != 64, "{x}");
        }
    }

    #[test]
    fn genes_follow_their_literals_across_structural_changes() {
        let lit = |v: i128| crate::Stmt {
            op: 0,
            args: vec![],
            value: Some(Value::Int(v)),
        };
        let call = |a: u32| crate::Stmt {
            op: 1,
            args: vec![a],
            value: None,
        };
        let old = TestCase {
            stmts: vec![lit(1), lit(2), call(1)],
        };
        let mut g = vec![Gene::default(); 3];
        g[1].tried = 4;
        let new = TestCase {
            stmts: vec![lit(2), call(0), lit(9)],
        };
        let aligned = align(&old, &g, &new);
        assert_eq!(
            aligned.iter().map(|g| g.tried).collect::<Vec<_>>(),
            vec![4, 0, 0]
        );
    }
}
