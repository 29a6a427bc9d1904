//! Per-test tables and the probe calls that fill them.
//!
//! Goal entries hold the bit pattern of the best normalised distance seen in the current test
//! (`u64::MAX` = not reached). Non-negative `f64`s order like their bits, so comparing bits keeps
//! the minimum. Goals and counters use a plain load and store instead of an atomic
//! read-modify-write: tests run on one thread, a lost update under contention (threads the code
//! under test starts) only blurs a distance or a proxy, and it keeps the hot path to two moves.

use std::cell::{Cell, RefCell};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, Ordering::Relaxed};

use crate::{Stop, op};

const UNREACHED: u64 = u64::MAX;
/// A condition-stack entry that opens a short-circuit expression.
const MARK: (f64, f64) = (-1.0, -1.0);

struct Tables {
    goals: Box<[AtomicU64]>,
    calls: Box<[AtomicU32]>,
    loops: Box<[AtomicU32]>,
    statements: AtomicU64,
    fuel: AtomicI64,
    fuel_limit: AtomicI64,
    depth_limit: AtomicU32,
}

static TABLES: OnceLock<Tables> = OnceLock::new();

/// Set once the coverage environment was looked at (see [`crate::dump`]).
static ENV_CHECKED: OnceLock<()> = OnceLock::new();

/// The tables, initialising them from the coverage environment on first use. When the tables
/// are unset and the environment was already checked, this costs one extra atomic load.
#[inline]
fn tables() -> Option<&'static Tables> {
    match TABLES.get() {
        Some(t) => Some(t),
        None => from_env(),
    }
}

#[cold]
#[inline(never)]
fn from_env() -> Option<&'static Tables> {
    if ENV_CHECKED.get().is_some() {
        return None;
    }
    // `get_or_init` makes racing threads wait for the one reading the environment.
    ENV_CHECKED.get_or_init(crate::dump::init_from_env);
    TABLES.get()
}

/// Whether the tables are set up (probes record), for observers deciding whether to measure.
#[inline]
pub(crate) fn recording() -> bool {
    tables().is_some()
}

/// Ids of the goals covered (distance 0) so far, in increasing order.
pub fn covered_goals() -> Vec<u32> {
    let Some(t) = TABLES.get() else {
        return Vec::new();
    };
    t.goals
        .iter()
        .enumerate()
        .filter(|(_, g)| g.load(Relaxed) == 0)
        .map(|(i, _)| i as u32)
        .collect()
}

thread_local! {
    static CONDS: RefCell<Vec<(f64, f64)>> = const { RefCell::new(Vec::new()) };
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

fn atomics<T>(n: usize, make: impl Fn() -> T) -> Box<[T]> {
    (0..n).map(|_| make()).collect()
}

/// Gives this thread's condition stack room up front, so that its first growth is not
/// charged to whichever test happens to nest conditions first.
pub fn warm_up() {
    CONDS.with(|c| c.borrow_mut().reserve(256));
}

/// Sizes the tables. Probes are no-ops before this; later calls keep the first sizes.
pub fn init(goals: usize, functions: usize, loops: usize) {
    TABLES.get_or_init(|| Tables {
        goals: atomics(goals, || AtomicU64::new(UNREACHED)),
        calls: atomics(functions, || AtomicU32::new(0)),
        loops: atomics(loops, || AtomicU32::new(0)),
        statements: AtomicU64::new(0),
        fuel: AtomicI64::new(i64::MAX),
        fuel_limit: AtomicI64::new(i64::MAX),
        depth_limit: AtomicU32::new(u32::MAX),
    });
}

/// Sets the fuel every test starts with and the deepest nesting of instrumented calls.
pub fn set_fuel(fuel: i64, depth: u32) {
    if let Some(t) = TABLES.get() {
        t.fuel_limit.store(fuel, Relaxed);
        t.depth_limit.store(depth, Relaxed);
    }
}

/// Clears everything a test recorded and refills its fuel.
pub fn reset() {
    CONDS.with(|c| c.borrow_mut().clear());
    DEPTH.with(|d| d.set(0));
    let Some(t) = TABLES.get() else { return };
    t.goals.iter().for_each(|g| g.store(UNREACHED, Relaxed));
    t.calls.iter().for_each(|c| c.store(0, Relaxed));
    t.loops.iter().for_each(|c| c.store(0, Relaxed));
    t.statements.store(0, Relaxed);
    t.fuel.store(t.fuel_limit.load(Relaxed), Relaxed);
}

/// What one test recorded, read after it ran.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Snapshot {
    /// Reached goals with their normalised distance (0 = covered).
    pub goals: Vec<(u32, f64)>,
    /// Entries per function, non-zero only.
    pub calls: Vec<(u32, u32)>,
    /// Iterations per loop, non-zero only.
    pub loops: Vec<(u32, u32)>,
    /// Line probes passed: statements of the instrumented code executed.
    pub statements: u64,
}

/// Fills `out` (cleared first, buffers reused) with the current test's records.
pub fn snapshot(out: &mut Snapshot) {
    out.goals.clear();
    out.calls.clear();
    out.loops.clear();
    out.statements = 0;
    let Some(t) = TABLES.get() else { return };
    for (i, g) in t.goals.iter().enumerate() {
        let bits = g.load(Relaxed);
        if bits != UNREACHED {
            out.goals.push((i as u32, f64::from_bits(bits)));
        }
    }
    nonzero(&t.calls, &mut out.calls);
    nonzero(&t.loops, &mut out.loops);
    out.statements = t.statements.load(Relaxed);
}

fn nonzero(counts: &[AtomicU32], out: &mut Vec<(u32, u32)>) {
    for (i, c) in counts.iter().enumerate() {
        let n = c.load(Relaxed);
        if n != 0 {
            out.push((i as u32, n));
        }
    }
}

#[inline]
pub(crate) fn normalise(d: f64) -> f64 {
    d / (d + 1.0)
}

#[inline]
fn record(t: &Tables, goal: u32, raw: f64) {
    if let Some(g) = t.goals.get(goal as usize) {
        // A load and a rare store instead of a locked read-modify-write: probes in loops hit
        // the same slot again and again, usually with nothing closer. Tests run on one thread;
        // threads the code under test starts may race here and lose a distance, no more.
        // A covered goal (0) cannot get closer: skip the division.
        let best = g.load(Relaxed);
        if best != 0 {
            let bits = normalise(raw).to_bits();
            if bits < best {
                g.store(bits, Relaxed);
            }
        }
    }
}

/// The goal slots `goal..goal + n` (weak mutation), when the tables are set up. Slots hold the
/// bits of normalised distances, as for every goal.
#[inline]
pub(crate) fn goal_slots(goal: u32, n: usize) -> Option<&'static [AtomicU64]> {
    let start = goal as usize;
    tables()?.goals.get(start..start.checked_add(n)?)
}

#[inline]
fn mark_hit(t: &Tables, goal: u32) {
    if let Some(g) = t.goals.get(goal as usize)
        && g.load(Relaxed) != 0
    {
        g.store(0, Relaxed);
    }
}

#[inline]
fn bump(c: &AtomicU32) {
    c.store(c.load(Relaxed).wrapping_add(1), Relaxed);
}

/// Burns one unit of fuel; stops the test when it is gone. Never panics while unwinding, since
/// a second panic would abort the harness.
#[inline]
fn burn(t: &Tables) {
    let left = t.fuel.load(Relaxed);
    t.fuel.store(left - 1, Relaxed);
    if left <= 0 && !std::thread::panicking() {
        std::panic::panic_any(Stop::FuelExhausted);
    }
}

/// Leaves an instrumented function when dropped.
pub struct FnGuard(bool);

impl Drop for FnGuard {
    #[inline]
    fn drop(&mut self) {
        if self.0 {
            DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
        }
    }
}

/// Function entry: covers `goal`, counts the call, burns fuel and tracks nesting depth.
#[inline]
pub fn enter(function: u32, goal: u32) -> FnGuard {
    let Some(t) = tables() else {
        return FnGuard(false);
    };
    mark_hit(t, goal);
    if let Some(c) = t.calls.get(function as usize) {
        bump(c);
    }
    burn(t);
    let depth = DEPTH.with(|d| {
        let n = d.get() + 1;
        d.set(n);
        n
    });
    if depth > t.depth_limit.load(Relaxed) && !std::thread::panicking() {
        DEPTH.with(|d| d.set(d.get() - 1));
        std::panic::panic_any(Stop::DepthExceeded);
    }
    FnGuard(true)
}

/// An `async fn`'s entry: covers `goal`, counts the call and burns fuel like [`enter`], but
/// tracks no depth. A guard would live across the body's awaits, and a future may be dropped
/// or finish on another thread than the one that started it, whose depth it would lower.
#[inline]
pub fn enter_async(function: u32, goal: u32) {
    let Some(t) = tables() else {
        return;
    };
    mark_hit(t, goal);
    if let Some(c) = t.calls.get(function as usize) {
        bump(c);
    }
    burn(t);
}

/// Covers `goal` (match arms, `if let` outcomes, loop bodies, ...).
#[inline]
pub fn hit(goal: u32) {
    if let Some(t) = tables() {
        mark_hit(t, goal);
    }
}

/// A statement ran: covers its line goal and counts it.
#[inline]
pub fn line(goal: u32) {
    if let Some(t) = tables() {
        mark_hit(t, goal);
        let s = &t.statements;
        s.store(s.load(Relaxed).wrapping_add(1), Relaxed);
    }
}

/// A loop body starts an iteration: covers `goal`, counts the iteration, burns fuel.
#[inline]
pub fn iter(loop_id: u32, goal: u32) {
    if let Some(t) = tables() {
        mark_hit(t, goal);
        if let Some(c) = t.loops.get(loop_id as usize) {
            bump(c);
        }
        burn(t);
    }
}

#[inline]
pub(crate) fn push(pair: (f64, f64)) {
    CONDS.with(|c| c.borrow_mut().push(pair));
}

#[inline]
fn pop() -> Option<(f64, f64)> {
    CONDS.with(|c| c.borrow_mut().pop())
}

#[inline]
fn flag(c: bool) -> (f64, f64) {
    if c { (0.0, 1.0) } else { (1.0, 0.0) }
}

/// A comparison leaf's distance pair: by its operands' gap when they have a measure, else by
/// its outcome alone.
#[inline]
fn distances(opcode: u8, c: bool, mag: Option<f64>) -> (f64, f64) {
    mag.map_or_else(|| flag(c), |k| comparison(opcode, c, k))
}

/// Distances to make a comparison true and false, given its outcome and the operands' gap `k`.
/// Integer-style `+1` for the strict side: `a < b` is false at `a == b` and needs one more step.
#[inline]
fn comparison(opcode: u8, c: bool, k: f64) -> (f64, f64) {
    let k = k.max(f64::MIN_POSITIVE);
    match (opcode, c) {
        (op::EQ, true) => (0.0, 1.0),
        (op::EQ, false) => (k, 0.0),
        (op::NE, true) => (0.0, k),
        (op::NE, false) => (1.0, 0.0),
        (op::LT | op::GT, true) => (0.0, k),
        (op::LT | op::GT, false) => (k + 1.0, 0.0),
        (op::LE | op::GE, true) => (0.0, k + 1.0),
        (op::LE | op::GE, false) => (k, 0.0),
        _ => flag(c),
    }
}

pub(crate) fn record_pair(t_goal: u32, f_goal: u32, (dt, df): (f64, f64)) {
    if let Some(t) = tables() {
        record(t, t_goal, dt);
        record(t, f_goal, df);
    }
}

/// Root of a condition: pops the distance its leaves pushed and records both outcomes.
#[inline]
pub fn branch(t_goal: u32, f_goal: u32, c: bool) -> bool {
    if tables().is_none() {
        return c;
    }
    let pair = match pop() {
        Some(p) if p != MARK => p,
        _ => flag(c),
    };
    record_pair(t_goal, f_goal, pair);
    c
}

/// A condition that is one comparison: records its distance pair at once. The same as
/// `branch(t, f, cmp(..))` without the trip through the condition stack, which is a
/// thread-local: the commonest condition (`while i < n`) runs in every loop iteration.
#[inline]
pub fn branch_cmp(t_goal: u32, f_goal: u32, opcode: u8, c: bool, mag: Option<f64>) -> bool {
    if let Some(t) = tables() {
        let (dt, df) = distances(opcode, c, mag);
        record(t, t_goal, dt);
        record(t, f_goal, df);
    }
    c
}

/// A comparison leaf: pushes its distance pair. `mag` is `None` for types without a measure.
#[inline]
pub fn cmp(opcode: u8, c: bool, mag: Option<f64>) -> bool {
    if tables().is_some() {
        push(distances(opcode, c, mag));
    }
    c
}

/// A comparison that is also an operand of `&&`/`||`, with goals of its own.
#[inline]
pub fn cmp_goal(t_goal: u32, f_goal: u32, opcode: u8, c: bool, mag: Option<f64>) -> bool {
    if tables().is_some() {
        let pair = distances(opcode, c, mag);
        record_pair(t_goal, f_goal, pair);
        push(pair);
    }
    c
}

/// Any other boolean leaf.
#[inline]
pub fn leaf(c: bool) -> bool {
    if tables().is_some() {
        push(flag(c));
    }
    c
}

/// A boolean operand of `&&`/`||` with goals of its own.
#[inline]
pub fn leaf_goal(t_goal: u32, f_goal: u32, c: bool) -> bool {
    if tables().is_some() {
        record_pair(t_goal, f_goal, flag(c));
        push(flag(c));
    }
    c
}

/// Negation: swaps the distances of the operand.
#[inline]
pub fn not(c: bool) -> bool {
    if tables().is_some() {
        let (dt, df) = pop().filter(|p| *p != MARK).unwrap_or_else(|| flag(!c));
        push((df, dt));
    }
    c
}

/// Opens a short-circuit expression; always true so that `open() && a && b` keeps its meaning.
#[inline]
pub fn open() -> bool {
    if tables().is_some() {
        push(MARK);
    }
    true
}

/// Pops the operands pushed since the matching [`open`].
fn operands() -> (usize, [(f64, f64); 2]) {
    let mut got = [(0.0, 0.0); 2];
    let mut n = 0;
    while let Some(p) = pop() {
        if p == MARK {
            break;
        }
        if n < 2 {
            got[n] = p;
        }
        n += 1;
    }
    // Popped in reverse; put evaluation order back.
    got[..n.min(2)].reverse();
    (n.min(2), got)
}

/// Closes `a && b`: true needs both (an unevaluated operand counts as fully false), false
/// needs either.
#[inline]
pub fn close_and(c: bool) -> bool {
    if tables().is_some() {
        let (n, ops) = operands();
        let missing = (2 - n) as f64;
        let dt = ops[..n].iter().map(|p| normalise(p.0)).sum::<f64>() + missing;
        let df = ops[..n].iter().map(|p| p.1).fold(f64::MAX, f64::min);
        push(if c { (0.0, df) } else { (dt, 0.0) });
    }
    c
}

/// Closes `a || b`: the dual of [`close_and`].
#[inline]
pub fn close_or(c: bool) -> bool {
    if tables().is_some() {
        let (n, ops) = operands();
        let missing = (2 - n) as f64;
        let dt = ops[..n].iter().map(|p| p.0).fold(f64::MAX, f64::min);
        let df = ops[..n].iter().map(|p| normalise(p.1)).sum::<f64>() + missing;
        push(if c { (0.0, df) } else { (dt, 0.0) });
    }
    c
}

/// The scrutinee of a `match` on string literals: records, for each literal arm's goal, the
/// left-alignment distance between the scrutinee and the literal (0 when it matches).
#[inline]
pub fn str_arms<'a>(arms: &[(u32, &str)], s: &'a str) -> &'a str {
    if let Some(t) = tables() {
        for &(goal, lit) in arms {
            record(t, goal, crate::distance::left_align(s, lit));
        }
    }
    s
}

/// The scrutinee of a `match` on byte string literals (`match &s[4..8] { b"Jan " => ..}`), as
/// `str_arms` for text: records, for each literal arm's goal, the left-alignment distance
/// between the bytes and the literal, the least positive one for an equal literal (an earlier
/// arm may take it).
#[inline]
pub fn bytes_arms<T: AsRef<[u8]> + Copy>(arms: &[(u32, &[u8])], v: T) -> T {
    if let Some(t) = tables() {
        let bytes = v.as_ref();
        for &(goal, lit) in arms {
            let d = crate::distance::left_align_bytes(bytes, lit);
            record(t, goal, d.max(f64::MIN_POSITIVE));
        }
    }
    v
}

/// A scrutinee of a `match` on integer, byte or char literals, read as a number.
pub trait ArmKey: Copy {
    /// The scrutinee as `f64`, to measure its distance to each arm's literal.
    fn key(self) -> f64;
}

macro_rules! arm_key {
    ($($t:ty),*) => {$(
        impl ArmKey for $t {
            #[inline]
            fn key(self) -> f64 {
                self as f64
            }
        }
    )*};
}
arm_key!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

impl ArmKey for char {
    #[inline]
    fn key(self) -> f64 {
        f64::from(u32::from(self))
    }
}

// Literal patterns match through references (`match byte_ref { b'a' => .. }`).
impl<T: ArmKey> ArmKey for &T {
    #[inline]
    fn key(self) -> f64 {
        (*self).key()
    }
}

/// The scrutinee of a `match` on integer, byte or char literals and ranges of them
/// (\[testability\], as `str_arms`): records, for each literal arm's goal, how far the value is
/// from the arm's range. A value inside the range records the least positive distance, not 0:
/// an earlier arm may take it, and only the arm's own probe says that the arm ran.
#[inline]
pub fn num_arms<T: ArmKey>(arms: &[(u32, f64, f64)], v: T) -> T {
    if let Some(t) = tables() {
        let x = v.key();
        for &(goal, lo, hi) in arms {
            let d = if x < lo {
                lo - x
            } else if x > hi {
                x - hi
            } else {
                f64::MIN_POSITIVE
            };
            record(t, goal, d);
        }
    }
    v
}

/// Things `?` applies to on stable Rust.
pub trait Tried {
    /// Whether the operand took the `?` path that continues: `Ok`, `Some`, or a `Poll` that is
    /// not a ready error.
    fn went_ok(&self) -> bool;
}

impl<T, E> Tried for Result<T, E> {
    fn went_ok(&self) -> bool {
        self.is_ok()
    }
}

impl<T> Tried for Option<T> {
    fn went_ok(&self) -> bool {
        self.is_some()
    }
}

impl<T, E> Tried for std::task::Poll<Result<T, E>> {
    fn went_ok(&self) -> bool {
        !matches!(self, std::task::Poll::Ready(Err(_)))
    }
}

impl<T, E> Tried for std::task::Poll<Option<Result<T, E>>> {
    fn went_ok(&self) -> bool {
        !matches!(self, std::task::Poll::Ready(Some(Err(_))))
    }
}

impl<B, C> Tried for std::ops::ControlFlow<B, C> {
    fn went_ok(&self) -> bool {
        self.is_continue()
    }
}

/// The operand of `?`: covers the ok or the error goal and passes the value through.
#[inline]
pub fn q<T: Tried>(ok_goal: u32, err_goal: u32, v: T) -> T {
    if let Some(t) = tables() {
        mark_hit(t, if v.went_ok() { ok_goal } else { err_goal });
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparison_distances_follow_the_operator() {
        assert_eq!(comparison(op::EQ, false, 4.0), (4.0, 0.0));
        assert_eq!(comparison(op::EQ, true, 0.0), (0.0, 1.0));
        assert_eq!(comparison(op::LT, false, 3.0), (4.0, 0.0));
        assert_eq!(comparison(op::LT, true, 3.0), (0.0, 3.0));
        assert_eq!(
            comparison(op::LE, true, 0.0),
            (0.0, 1.0 + f64::MIN_POSITIVE)
        );
        assert_eq!(comparison(op::GE, false, 2.0), (2.0, 0.0));
        assert_eq!(comparison(op::NE, true, 5.0), (0.0, 5.0));
    }
}
