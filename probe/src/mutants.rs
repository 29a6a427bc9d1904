//! Weak mutation: mutants evaluated inside the probes as mutant schemata.
//!
//! The instrumented program always computes the original expression; a probe computes, from
//! the same operand values, what each mutant would have computed and records per mutant goal
//! whether the mutant's state differs (weakly killed, distance 0) or else how far the test is
//! from making it differ (the infection distance of \[smart-goals\], Eq. 14).
//!
//! - ROR (relational operator replacement), at every instrumented comparison: only the
//!   subsuming mutants of \[smart-goals\] ([`ror_mutants`]), two per comparison. Outcomes come from
//!   one `partial_cmp` of the borrowed operands, chosen by autoref specialisation
//!   ([`Order`]); operands without an order report nothing. The `true`/`false` mutants are
//!   left out: their kill conditions are exactly the comparison's own branch goals.
//! - AOR (arithmetic operator replacement), at binary `+ - * / %` in instrumented fns: the
//!   mutants not subsumed by another of the same site over non-negative operands
//!   ([`aor_mutants`]), computed with checked arithmetic (an overflow or a division by zero is
//!   a state of its own, which differs from any value), so a mutant never panics. Operands
//!   that are not primitive numbers of one type (strings, user types, mixed types) report
//!   nothing ([`Arith`]).
//!
//! - FBR (function body replacement): [`body`] at a function's entry covers its mutants (the
//!   function ran) and, with one of them on, makes the function return that mutant's value.
//! - AOR also at compound assignments (`+=`, `-=`, ...), through the same [`Arith`] probe.
//! - NOT deletion: [`negation`] around a `!` expression covers its mutant when evaluated (the
//!   value always differs) and, with it on, undoes the `!`.
//! - LOR: [`logical`] and [`logical_rhs`] evaluate a lazy `&&`/`||` (the other operator with
//!   the mutant on); match arms: [`arm_kept`] as an arm's added guard, [`guard`] around a
//!   guard.
//!
//! - Strong mutation: one mutant at a time can be switched on ([`activate`], by goal id); its
//!   site then computes the mutant's outcome instead of the original's ([`ror_strong`] for a
//!   comparison, [`Arith::aor`]'s [`Mutated`] for arithmetic: an overflow or a division by zero
//!   panics as the mutated program's debug build would). The engine runs a test that weakly
//!   kills a mutant again with it on and compares what the test observes.
//!
//! Decision: every function here that decides an outcome or a distance is pure, so the rules
//! are unit-tested without the global tables; the probe calls only add the table writes.

use std::cmp::Ordering;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU32, AtomicU64};

use crate::distance::Probe;
use crate::op;
use crate::tables::{goal_slots, normalise};

/// Arithmetic operators of AOR sites, in wire order.
pub mod aop {
    /// `+`.
    pub const ADD: u8 = 0;
    /// `-`.
    pub const SUB: u8 = 1;
    /// `*`.
    pub const MUL: u8 = 2;
    /// `/`.
    pub const DIV: u8 = 3;
    /// `%`.
    pub const REM: u8 = 4;
}

/// The ROR mutants of a comparison: the subsuming set of \[smart-goals\] (from
/// \[mutant-subsumption\], in source-operator terms). Each is killed only where a subsumed alternative is killed too, so
/// killing these two kills all five alternatives.
#[inline]
pub const fn ror_mutants(opcode: u8) -> [u8; 2] {
    match opcode {
        op::LT => [op::LE, op::NE],
        op::LE => [op::LT, op::EQ],
        op::GT => [op::GE, op::NE],
        op::GE => [op::GT, op::EQ],
        op::EQ => [op::LE, op::GE],
        _ => [op::LT, op::GT],
    }
}

/// The AOR mutants of an arithmetic operator: those no other alternative subsumes when the
/// operands range over non-negative integers (checked by exhaustive comparison of kill sets on
/// `0..7 × 0..7`; most Rust arithmetic is on lengths, indices and counts).
#[inline]
pub const fn aor_mutants(aop: u8) -> &'static [u8] {
    match aop {
        aop::ADD => &[aop::SUB, aop::MUL],
        aop::SUB => &[aop::ADD, aop::DIV, aop::REM],
        aop::MUL => &[aop::ADD, aop::DIV],
        aop::DIV => &[aop::SUB, aop::MUL, aop::REM],
        _ => &[aop::SUB, aop::DIV],
    }
}

/// No mutant is on.
pub const NO_MUTANT: u32 = u32::MAX;

/// The goal id of the mutant switched on, or [`NO_MUTANT`].
static ACTIVE: AtomicU32 = AtomicU32::new(NO_MUTANT);

/// Switches the mutant with goal id `goal` on (strong mutation), or all off with [`NO_MUTANT`].
pub fn activate(goal: u32) {
    ACTIVE.store(goal, Relaxed);
}

/// Which of the `n` mutants with goals `goal..goal + n` is on, if one is.
#[inline(always)]
fn active_among(goal: u32, n: usize) -> Option<usize> {
    let k = ACTIVE.load(Relaxed).wrapping_sub(goal) as usize;
    (k < n).then_some(k)
}

/// A comparison's outcome `c`, or its ROR mutant's when one of the site's two is on (goals
/// `goal`, `goal + 1`, in [`ror_mutants`] order). The operands' order is asked for only then.
#[inline(always)]
pub fn ror_strong(
    goal: u32,
    opcode: u8,
    c: bool,
    ord: impl FnOnce() -> Option<Option<Ordering>>,
) -> bool {
    match active_among(goal, 2) {
        None => c,
        Some(k) => match ord() {
            Some(o) => ror_outcome(ror_mutants(opcode)[k], o),
            None => c,
        },
    }
}

/// The constant a comparison's value is replaced by in the third mutant of its subsuming set
/// (`<`, `>`, `==`: `false`; `<=`, `>=`, `!=`: `true`), which a condition's branch goals
/// stand in for and a comparison whose value is returned or stored (`return v.patch > p`)
/// needs of its own.
pub const fn ror_constant_of(opcode: u8) -> bool {
    matches!(opcode, op::LE | op::GE | op::NE)
}

/// A comparison's value `c` replaced by `constant` (mutant `goal`): covers it where the
/// comparison gives the other value, and with it on, gives the constant.
#[inline(always)]
pub fn ror_constant(goal: u32, c: bool, constant: bool) -> bool {
    if c != constant {
        crate::tables::hit(goal);
    }
    match active_among(goal, 1) {
        Some(_) => constant,
        None => c,
    }
}

/// A function body's FBR mutant `goal`: covers it (entering the function infects it) and
/// says whether it is on, in which case the function returns the mutant's value at once.
#[inline(always)]
pub fn body(goal: u32) -> bool {
    crate::tables::hit(goal);
    active_among(goal, 1).is_some()
}

/// A `!` expression's NOT-deletion mutant `goal` (cargo-mutants' `delete !`): covers it (the
/// deleted `!` would always change the value) and, with it on, gives the operand back.
#[inline(always)]
pub fn negation<T: core::ops::Not<Output = T>>(goal: u32, negated: T) -> T {
    crate::tables::hit(goal);
    match active_among(goal, 1) {
        Some(_) => !negated,
        None => negated,
    }
}

/// A lazy `&&` (`and`) or `||` node's LOR mutant `goal` (cargo-mutants' `replace && with ||`),
/// told the left operand: `Some(value)` when the operator in force (the other one with the
/// mutant on) decides without the right operand, `None` when the right operand must be
/// evaluated ([`logical_rhs`] then). Deciding without it is where the other operator would
/// have evaluated it, and may differ: covered.
#[inline(always)]
pub fn logical(goal: u32, and: bool, left: bool) -> Option<bool> {
    let and = and != active_among(goal, 1).is_some();
    if and == left {
        None
    } else {
        crate::tables::hit(goal);
        Some(left)
    }
}

/// The right operand of a lazy node whose left operand did not decide ([`logical`]): the other
/// operator would have decided `!and` (true for `&&` swapped to `||` after a true left
/// operand, false for `||` swapped after a false one), so the mutant is covered when the right
/// operand says otherwise.
#[inline(always)]
pub fn logical_rhs(goal: u32, and: bool, right: bool) -> bool {
    if right != and {
        crate::tables::hit(goal);
    }
    right
}

/// A match arm's deletion mutant `goal` (cargo-mutants' `delete match arm`, for matches with a
/// `_` arm to fall back on), called as the arm's added guard: covers it (the arm was chosen)
/// and says whether the arm stays, false with the mutant on.
#[inline(always)]
pub fn arm_kept(goal: u32) -> bool {
    crate::tables::hit(goal);
    active_among(goal, 1).is_none()
}

/// A match guard's mutants (cargo-mutants' `replace match guard with true` and `with false`,
/// goals `goal` and `goal + 1`), told the guard's value: each is covered where it would
/// change the value, and with one on, its value is the guard's.
#[inline(always)]
pub fn guard(goal: u32, value: bool) -> bool {
    crate::tables::hit(if value { goal + 1 } else { goal });
    match active_among(goal, 2) {
        Some(0) => true,
        Some(_) => false,
        None => value,
    }
}

/// Source text of a comparison operator.
pub const fn cmp_symbol(opcode: u8) -> &'static str {
    match opcode {
        op::EQ => "==",
        op::NE => "!=",
        op::LT => "<",
        op::LE => "<=",
        op::GT => ">",
        _ => ">=",
    }
}

/// Source text of an arithmetic operator.
pub const fn aop_symbol(aop: u8) -> &'static str {
    match aop {
        aop::ADD => "+",
        aop::SUB => "-",
        aop::MUL => "*",
        aop::DIV => "/",
        _ => "%",
    }
}

/// The orderings (bit 0 `Less`, bit 1 `Equal`, bit 2 `Greater`) where comparison `opcode`
/// holds.
#[inline]
const fn holds(opcode: u8) -> u8 {
    match opcode {
        op::EQ => 0b010,
        op::NE => 0b101,
        op::LT => 0b001,
        op::LE => 0b011,
        op::GT => 0b100,
        _ => 0b110,
    }
}

#[inline]
const fn bit(o: Ordering) -> u8 {
    match o {
        Ordering::Less => 0b001,
        Ordering::Equal => 0b010,
        Ordering::Greater => 0b100,
    }
}

/// What comparison `opcode` yields for operands ordered `ord` (`None`: incomparable, as NaN).
#[inline]
pub fn ror_outcome(opcode: u8, ord: Option<Ordering>) -> bool {
    match ord {
        None => opcode == op::NE,
        Some(o) => holds(opcode) & bit(o) != 0,
    }
}

/// Raw infection distance of ROR mutant `mutant` of comparison `opcode`: 0 when the mutant's
/// outcome differs from the original's (weakly killed), else the fewest steps to an ordering
/// where they differ, for operands `k` apart (`k` = the comparison's magnitude): reaching
/// equality costs `k`, reaching a strict side `k + 1` (from equality: 1), the integer-style
/// convention of the branch distances. Without a magnitude (ordered but unmeasured types), 1.
#[inline]
pub fn ror_distance(opcode: u8, mutant: u8, ord: Option<Ordering>, mag: Option<f64>) -> f64 {
    if ror_outcome(opcode, ord) != ror_outcome(mutant, ord) {
        return 0.0;
    }
    if ord.is_none() {
        // Incomparable operands (NaN): as far from anything as the branch distances say.
        return f64::MAX;
    }
    let Some(k) = mag else { return 1.0 };
    let k = if k.is_nan() { f64::MAX } else { k.abs() };
    // The orderings where the two differ; the current one is not among them, so a strict
    // ordering in there is on the other side of equality.
    let kill = holds(opcode) ^ holds(mutant);
    if kill & bit(Ordering::Equal) != 0 {
        k
    } else if kill != 0 {
        k + 1.0
    } else {
        f64::MAX
    }
}

/// Raw distances of both ROR mutants of one comparison; `None` when the operands have no order.
#[inline]
pub fn ror_distances(
    opcode: u8,
    ord: Option<Option<Ordering>>,
    mag: Option<f64>,
) -> Option<[f64; 2]> {
    let ord = ord?;
    let [a, b] = ror_mutants(opcode);
    Some([
        ror_distance(opcode, a, ord, mag),
        ror_distance(opcode, b, ord, mag),
    ])
}

/// Lowers one goal slot to `bits` (a normalised distance), reading first: a mutant killed
/// earlier in the test costs a load, not an atomic read-modify-write.
#[inline]
fn lower(slot: &AtomicU64, bits: u64) {
    if slot.load(Relaxed) > bits {
        slot.fetch_min(bits, Relaxed);
    }
}

/// Lowers one goal slot to the normalised raw distance `d`, without the division when it
/// would not lower it: `d/(d+1) < c` exactly when `d·(1−c) < c` (survivors in loops).
#[inline]
fn lower_raw(slot: &AtomicU64, d: f64) {
    let cur = slot.load(Relaxed);
    if cur != u64::MAX && d * (1.0 - f64::from_bits(cur)) >= f64::from_bits(cur) {
        return;
    }
    lower(slot, normalise(d).to_bits());
}

/// Whether every mutant of a site was killed already in this test: then there is nothing to
/// compute (the common case in loops).
#[inline]
fn all_killed(slots: &[AtomicU64]) -> bool {
    slots.iter().all(|s| s.load(Relaxed) == 0)
}

/// A comparison's ROR mutants (goals `goal` and `goal + 1`, in [`ror_mutants`] order): records
/// their distances and passes the magnitude on to `cmp`.
// Always inlined: the opcode is a constant at every call site, which folds the mutant table.
#[inline(always)]
pub fn ror(goal: u32, opcode: u8, ord: Option<Option<Ordering>>, mag: Option<f64>) -> Option<f64> {
    if let Some(slots) = goal_slots(goal, 2)
        && !all_killed(slots)
        && let Some(d) = ror_distances(opcode, ord, mag)
    {
        for (slot, d) in slots.iter().zip(d) {
            lower_raw(slot, d);
        }
    }
    mag
}

/// The order of a comparison's operands, by autoref specialisation like [`crate::Mag`]: any
/// `PartialOrd` pair (impl on `&&Probe`), string pairs that only compare for equality (impl on
/// `&Probe`, e.g. `String == &str`), else `None` (impl on `Probe`).
pub trait Order {
    /// `Some(l.partial_cmp(r))` when the operands have an order, `None` when they have none.
    fn ord(&self) -> Option<Option<Ordering>>;
}

impl<L, R> Order for Probe<L, R> {
    #[inline]
    fn ord(&self) -> Option<Option<Ordering>> {
        None
    }
}

impl<L: ?Sized + PartialOrd<R>, R: ?Sized> Order for &&Probe<&L, &R> {
    #[inline]
    fn ord(&self) -> Option<Option<Ordering>> {
        Some(self.0.partial_cmp(self.1))
    }
}

macro_rules! stringy_order {
    ($(($l:ty, $r:ty)),*) => {$(
        impl Order for &Probe<&$l, &$r> {
            #[inline]
            fn ord(&self) -> Option<Option<Ordering>> {
                let (l, r): (&str, &str) = (self.0.as_ref(), self.1.as_ref());
                Some(l.partial_cmp(r))
            }
        }
    )*};
}
stringy_order!(
    (String, &str),
    (&str, String),
    (String, &String),
    (&String, String),
    (&String, &str),
    (&str, &String),
    (&&str, &str),
    (&str, &&str)
);

/// Numbers AOR evaluates: one operation with the program's trap conditions turned into `None`.
pub trait Num: Copy {
    /// `a op b`, `None` where the original would panic (overflow, division by zero).
    fn apply(aop: u8, a: Self, b: Self) -> Option<Self>;
    /// Whether two results are the same state (NaN equals NaN).
    fn same(a: Self, b: Self) -> bool;
}

macro_rules! int_num {
    ($($t:ty),*) => {$(
        impl Num for $t {
            #[inline]
            fn apply(aop: u8, a: $t, b: $t) -> Option<$t> {
                match aop {
                    aop::ADD => a.checked_add(b),
                    aop::SUB => a.checked_sub(b),
                    aop::MUL => a.checked_mul(b),
                    aop::DIV => a.checked_div(b),
                    _ => a.checked_rem(b),
                }
            }
            #[inline]
            fn same(a: $t, b: $t) -> bool {
                a == b
            }
        }
    )*};
}
int_num!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

macro_rules! float_num {
    ($($t:ty),*) => {$(
        impl Num for $t {
            #[inline]
            fn apply(aop: u8, a: $t, b: $t) -> Option<$t> {
                Some(match aop {
                    aop::ADD => a + b,
                    aop::SUB => a - b,
                    aop::MUL => a * b,
                    aop::DIV => a / b,
                    _ => a % b,
                })
            }
            #[inline]
            fn same(a: $t, b: $t) -> bool {
                a == b || (a.is_nan() && b.is_nan())
            }
        }
    )*};
}
float_num!(f32, f64);

/// Raw infection distance of AOR mutant `mutant` of `a aop b`: 0 when its result differs from
/// the original's (a trap on one side only counts as different), else 1. Where the two agree
/// the operands sit on an isolated point (`b == 0` for `+`→`-`, `a == b == 2` for `+`→`*`, ...)
/// one step from a kill, so a flat 1 is the honest measure.
#[inline]
pub fn aor_distance<T: Num>(aop: u8, mutant: u8, a: T, b: T) -> f64 {
    if same_state(T::apply(aop, a, b), T::apply(mutant, a, b)) {
        1.0
    } else {
        0.0
    }
}

#[inline]
fn same_state<T: Num>(x: Option<T>, y: Option<T>) -> bool {
    match (x, y) {
        (Some(x), Some(y)) => T::same(x, y),
        (None, None) => true,
        _ => false,
    }
}

/// An arithmetic site's AOR mutants, by autoref specialisation: operands that are primitive
/// numbers of one type (impls on `&&Probe`) record goals `goal..goal + n` in [`aor_mutants`]
/// order; anything else (impl on `Probe`) records nothing. The result is the switched-on
/// mutant's value when one of the site's is on ([`activate`]): the rewritten site uses it
/// instead of the original operation.
pub trait Arith {
    /// What the rewritten site gets back: [`Mutated`] for primitive numbers, the uninhabited
    /// [`NoMutant`] otherwise.
    type Mutant;
    /// Records the site's AOR mutant goals from `goal` on, for the operator `aop` ([`aop`]); the
    /// switched-on mutant's result if it is one of this site's, else `None` (the site runs the
    /// original operation).
    fn aor(&self, goal: u32, aop: u8) -> Option<Self::Mutant>;
}

/// What a site whose operands AOR does not evaluate offers instead of a mutant: nothing.
pub enum NoMutant {}

impl NoMutant {
    /// Never called (no value exists); types the rewritten site's `match` arm as the original.
    pub fn value<V>(self) -> V {
        match self {}
    }
}

/// A switched-on AOR mutant's result: `None` where the mutated operation traps.
pub struct Mutated<T>(Option<T>);

impl<T> Mutated<T> {
    /// The mutant's value; an overflow or a division by zero panics, as the mutated program's
    /// debug build would.
    pub fn value(self) -> T {
        match self.0 {
            Some(v) => v,
            None => panic!("attempt to compute with overflow or divide by zero (mutant)"),
        }
    }
}

impl<L, R> Arith for Probe<L, R> {
    type Mutant = NoMutant;
    #[inline]
    fn aor(&self, _goal: u32, _aop: u8) -> Option<NoMutant> {
        None
    }
}

macro_rules! arith_num {
    ($($t:ty),*) => {$(
        impl Arith for &&Probe<&$t, &$t> {
            type Mutant = Mutated<$t>;
            #[inline(always)]
            fn aor(&self, goal: u32, aop: u8) -> Option<Mutated<$t>> {
                record_aor(goal, aop, *self.0, *self.1);
                let mutants = aor_mutants(aop);
                let k = active_among(goal, mutants.len())?;
                Some(Mutated(<$t as Num>::apply(mutants[k], *self.0, *self.1)))
            }
        }
    )*};
}
arith_num!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
);

/// [`Arith::aor`] for a site whose operands' type is still being inferred where it stands
/// (`let mut n = 0; .. n += 1;`, a loop counter whose type a later `v[n]` decides): the
/// method call on `Probe` needs the type known there (E0282), a generic fn leaves it open
/// until the crate's later uses, or the literal's fallback, decide it.
#[inline(always)]
pub fn aor_inferred<T: Num>(goal: u32, aop: u8, a: T, b: T) -> Option<Mutated<T>> {
    record_aor(goal, aop, a, b);
    let mutants = aor_mutants(aop);
    let k = active_among(goal, mutants.len())?;
    Some(Mutated(T::apply(mutants[k], a, b)))
}

/// Bits of the normalised distance of a mutant reached but not infected (raw 1).
const SURVIVED: u64 = 0x3FE0_0000_0000_0000; // 0.5f64

#[inline(always)]
fn record_aor<T: Num>(goal: u32, aop: u8, a: T, b: T) {
    let mutants = aor_mutants(aop);
    let Some(slots) = goal_slots(goal, mutants.len()) else {
        return;
    };
    if all_killed(slots) {
        return;
    }
    let original = T::apply(aop, a, b);
    for (slot, &m) in slots.iter().zip(mutants) {
        if slot.load(Relaxed) != 0 {
            let killed = !same_state(original, T::apply(m, a, b));
            lower(slot, if killed { 0 } else { SURVIVED });
        }
    }
}

/// Identity around a rewritten arithmetic site, so the rewrite is a call expression wherever
/// the original stood (a `match` at the start of a statement would end the statement).
#[inline(always)]
pub fn arith<T>(v: T) -> T {
    v
}

#[cfg(test)]
// The extra borrows are the point: they are how the instrumenter calls the probes.
#[expect(clippy::needless_borrow)]
mod tests {
    use super::*;
    use Ordering::{Equal, Greater, Less};

    /// `a && b` and `a || b` as the LOR rewrite evaluates them.
    fn lazy(goal: u32, and: bool, a: bool, b: bool) -> bool {
        match logical(goal, and, a) {
            Some(v) => v,
            None => logical_rhs(goal, and, b),
        }
    }

    /// With its mutant off, a LOR site is the original operator; on, the other one. A guard's
    /// mutants give true and false; an arm is kept unless its mutant is on. (The only test that
    /// switches mutants on: `ACTIVE` is global; an inferred AOR site's too.)
    #[test]
    fn lor_guard_and_arm_mutants_take_the_other_value_only_when_on() {
        let g = 7_000_000;
        for (a, b) in [(false, false), (false, true), (true, false), (true, true)] {
            assert_eq!(lazy(g, true, a, b), a && b);
            assert_eq!(lazy(g, false, a, b), a || b);
            assert_eq!(guard(g, a), a);
        }
        assert!(arm_kept(g));
        activate(g);
        for (a, b) in [(false, false), (false, true), (true, false), (true, true)] {
            assert_eq!(lazy(g, true, a, b), a || b);
            assert_eq!(lazy(g, false, a, b), a && b);
            assert!(guard(g, a));
        }
        assert!(!arm_kept(g));
        activate(g + 1);
        assert!(!guard(g, true));
        // An AOR site whose operands' type a later use decides (`v[sum]` makes them `usize`):
        // with mutant `g + 1` on (`+ -> *`), `n + 3` computes `n * 3`.
        let v = [10u8, 20, 30, 40, 50, 60, 70];
        let inferred = |n| match aor_inferred(g, aop::ADD, n, 3) {
            Some(m) => m.value(),
            None => n + 3,
        };
        assert_eq!(v[inferred(2)], 70);
        // A value comparison's constant mutant gives its constant only when on.
        assert!(ror_constant(g + 2, true, false));
        activate(g + 2);
        assert!(!ror_constant(g + 2, true, false));
        activate(NO_MUTANT);
        assert_eq!(v[inferred(2)], 60);
    }

    #[test]
    fn value_comparisons_take_the_constant_of_their_subsuming_set() {
        let constants = [op::LT, op::LE, op::GT, op::GE, op::EQ, op::NE].map(ror_constant_of);
        assert_eq!(constants, [false, true, false, true, false, true]);
    }

    #[test]
    fn subsuming_ror_sets_follow_seed_002() {
        assert_eq!(ror_mutants(op::LT), [op::LE, op::NE]);
        assert_eq!(ror_mutants(op::LE), [op::LT, op::EQ]);
        assert_eq!(ror_mutants(op::GT), [op::GE, op::NE]);
        assert_eq!(ror_mutants(op::GE), [op::GT, op::EQ]);
        assert_eq!(ror_mutants(op::EQ), [op::LE, op::GE]);
        assert_eq!(ror_mutants(op::NE), [op::LT, op::GT]);
    }

    #[test]
    fn outcomes_of_every_operator() {
        let table = [
            (op::EQ, [false, true, false]),
            (op::NE, [true, false, true]),
            (op::LT, [true, false, false]),
            (op::LE, [true, true, false]),
            (op::GT, [false, false, true]),
            (op::GE, [false, true, true]),
        ];
        for (o, want) in table {
            let got = [Less, Equal, Greater].map(|ord| ror_outcome(o, Some(ord)));
            assert_eq!(got, want, "{}", cmp_symbol(o));
        }
        // NaN: only `!=` holds.
        assert!(ror_outcome(op::NE, None));
        assert!(!ror_outcome(op::LE, None));
    }

    #[test]
    fn lt_mutants_by_hand() {
        // 3 < 7: `<=` differs only at equality (4 away); `!=` only when l > r (4 + 1 away).
        assert_eq!(
            ror_distances(op::LT, Some(Some(Less)), Some(4.0)),
            Some([4.0, 5.0])
        );
        // 5 < 5: `<=` is true, the original false: killed; `!=` agrees (false), one step.
        assert_eq!(
            ror_distances(op::LT, Some(Some(Equal)), Some(0.0)),
            Some([0.0, 1.0])
        );
        // 9 < 2: `!=` is true: killed; `<=` needs equality, 7 away.
        assert_eq!(
            ror_distances(op::LT, Some(Some(Greater)), Some(7.0)),
            Some([7.0, 0.0])
        );
    }

    #[test]
    fn eq_and_ne_mutants_by_hand() {
        // 2 == 2: `<=` and `>=` agree; each needs one strict step.
        assert_eq!(
            ror_distances(op::EQ, Some(Some(Equal)), Some(0.0)),
            Some([1.0, 1.0])
        );
        // 1 == 4: `<=` is true: killed; `>=` needs l > r: 3 + 1.
        assert_eq!(
            ror_distances(op::EQ, Some(Some(Less)), Some(3.0)),
            Some([0.0, 4.0])
        );
        // 1 != 4: `<` agrees (true), `>` differs.
        assert_eq!(
            ror_distances(op::NE, Some(Some(Less)), Some(3.0)),
            Some([4.0, 0.0])
        );
        // 6 >= 6: `>` differs; `==` agrees and needs l > r: 1.
        assert_eq!(
            ror_distances(op::GE, Some(Some(Equal)), Some(0.0)),
            Some([0.0, 1.0])
        );
        // 8 <= 3: `<` agrees (false), needs equality (5); `==` agrees, needs l < r (6).
        assert_eq!(
            ror_distances(op::LE, Some(Some(Greater)), Some(5.0)),
            Some([5.0, 6.0])
        );
    }

    #[test]
    fn unmeasured_unordered_and_incomparable_operands() {
        // Ordered without a magnitude: 0/1.
        assert_eq!(
            ror_distances(op::GT, Some(Some(Less)), None),
            Some([1.0, 0.0])
        );
        // No order: no mutant is evaluated.
        assert_eq!(ror_distances(op::EQ, None, None), None);
        // NaN: `<` and `<=` are both false, `!=` true vs `<` false: killed.
        assert_eq!(
            ror_distances(op::LT, Some(None), Some(f64::MAX)),
            Some([f64::MAX, 0.0])
        );
    }

    #[test]
    fn aor_sets_and_kills_by_hand() {
        assert_eq!(aor_mutants(aop::ADD), &[aop::SUB, aop::MUL]);
        // 3 + 0 == 3 - 0: survives; 3 + 0 != 3 * 0: killed.
        assert_eq!(aor_distance(aop::ADD, aop::SUB, 3u32, 0), 1.0);
        assert_eq!(aor_distance(aop::ADD, aop::MUL, 3u32, 0), 0.0);
        // 2 + 2 == 2 * 2.
        assert_eq!(aor_distance(aop::ADD, aop::MUL, 2i64, 2), 1.0);
        // 7 - 0: `/ 0` traps where the original does not: killed, and no panic.
        assert_eq!(aor_distance(aop::SUB, aop::DIV, 7u8, 0), 0.0);
        // 0 - 5 on u8 traps in the original, and 0 % 5 does not: killed.
        assert_eq!(aor_distance(aop::SUB, aop::REM, 0u8, 5), 0.0);
        // 200 + 100 on u8 and 200 * 100 both overflow: the same state.
        assert_eq!(aor_distance(aop::ADD, aop::MUL, 200u8, 100), 1.0);
        // 6 / 1 == 6 * 1; 6 / 0 and 6 % 0 both trap.
        assert_eq!(aor_distance(aop::DIV, aop::MUL, 6i32, 1), 1.0);
        assert_eq!(aor_distance(aop::DIV, aop::REM, 6i32, 0), 1.0);
        // i32::MIN / -1 overflows; i32::MIN * -1 too; i32::MIN - -1 does not.
        assert_eq!(aor_distance(aop::DIV, aop::MUL, i32::MIN, -1), 1.0);
        assert_eq!(aor_distance(aop::DIV, aop::SUB, i32::MIN, -1), 0.0);
        // Floats: 0.0 / 0.0 and 0.0 % 0.0 are both NaN.
        assert_eq!(aor_distance(aop::DIV, aop::REM, 0.0f64, 0.0), 1.0);
        assert_eq!(aor_distance(aop::MUL, aop::ADD, 1.5f32, 2.0), 0.0);
    }

    #[test]
    fn slots_only_ever_go_down() {
        let slot = AtomicU64::new(u64::MAX);
        lower_raw(&slot, 3.0);
        assert_eq!(slot.load(Relaxed), 0.75f64.to_bits());
        lower_raw(&slot, 5.0);
        assert_eq!(slot.load(Relaxed), 0.75f64.to_bits());
        lower_raw(&slot, 1.0);
        assert_eq!(slot.load(Relaxed), 0.5f64.to_bits());
        lower_raw(&slot, f64::MAX);
        assert_eq!(slot.load(Relaxed), 0.5f64.to_bits());
        lower_raw(&slot, 0.0);
        assert_eq!(slot.load(Relaxed), 0);
        lower(&slot, SURVIVED);
        assert_eq!(slot.load(Relaxed), 0);
    }

    #[test]
    fn survivors_are_recorded_at_the_normalised_unit_distance() {
        assert_eq!(SURVIVED, normalise(1.0).to_bits());
    }

    #[test]
    fn order_is_specialised_by_operand_type() {
        let (a, b) = (3u8, 9u8);
        assert_eq!((&&&Probe(&a, &b)).ord(), Some(Some(Less)));
        let (x, y) = (f64::NAN, 1.0);
        assert_eq!((&&&Probe(&x, &y)).ord(), Some(None));
        let s = String::from("b");
        let t: &str = "a";
        assert_eq!((&&&Probe(&s, &t)).ord(), Some(Some(Greater)));
        #[derive(PartialEq)]
        struct Opaque(u8);
        assert_eq!((&&&Probe(&Opaque(1), &Opaque(1))).ord(), None);
        let (o, p) = (Some(2), None);
        assert_eq!((&&&Probe(&o, &p)).ord(), Some(Some(Greater)));
    }

    #[test]
    fn arith_compiles_for_any_operands_and_never_panics() {
        // Uninitialised tables: the probes are no-ops, but every impl must resolve.
        let (a, b) = (u64::MAX, 0u64);
        (&&&Probe(&a, &b)).aor(0, aop::DIV);
        let (s, t) = (String::from("a"), "b");
        (&&&Probe(&s, &t)).aor(0, aop::ADD);
        let n = 2;
        let m = 3;
        (&&&Probe(&n, &m)).aor(0, aop::MUL);
        assert_eq!(arith(n * m), 6);
    }
}
