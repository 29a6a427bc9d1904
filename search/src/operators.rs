//! EvoSuite-style operators (\[evosuite\]): random tests, insert/delete/change mutation, single-point
//! crossover, and the repair that keeps every test well-formed afterwards.

use rand::seq::IndexedRandom;
use rand::{Rng, RngExt};

use crate::model::DANGLING;
use crate::{OpKind, Pass, Schema, Stmt, TestCase, Value, ValueKind};

/// Tuning of the operators (EvoSuite defaults where it has one).
#[derive(Debug, Clone)]
pub struct OperatorParams {
    /// Longest test the operators create.
    pub max_len: usize,
    /// Statements of a fresh random test are drawn from `1..=init_calls` calls.
    pub init_calls: usize,
    /// Probability of reusing an existing value for a parameter instead of building a new one.
    pub reuse: f64,
    /// Probability of drawing a literal from the constant pool.
    pub constant: f64,
    /// Probability of inserting yet another statement during insertion (`σ` in EvoSuite).
    pub insert_again: f64,
    /// How deep parameter construction may recurse.
    pub max_depth: usize,
    /// Most elements of a generated collection.
    pub max_elements: usize,
    /// Dynamic seeding: a mutated test may take as a string value what its last run was
    /// compared against ([`Builder::mutate_seeded`]). Off only to measure what it brings.
    pub dynamic_seeding: bool,
}

impl Default for OperatorParams {
    fn default() -> Self {
        OperatorParams {
            max_len: 40,
            init_calls: 5,
            reuse: 0.5,
            constant: 0.3,
            insert_again: 0.5,
            max_depth: 4,
            max_elements: 5,
            dynamic_seeding: true,
        }
    }
}

/// Builds and changes test cases over one schema.
pub struct Builder<'s> {
    /// The schema whose types and operations the tests use.
    pub schema: &'s Schema,
    /// Tuning of the operators; [`Builder::new`] starts from the defaults.
    pub params: OperatorParams,
    /// Operations never to insert again: they crashed or hung every time they ran.
    pub banned: Vec<bool>,
    /// While [`Builder::mutate_seeded`] runs: the strings the test's last run was compared
    /// against that are neither its own values, parts of them, nor the crate's literals.
    hints: Vec<String>,
}

impl<'s> Builder<'s> {
    /// A builder over `schema` with default parameters and no operation banned.
    pub fn new(schema: &'s Schema) -> Self {
        Builder {
            schema,
            params: OperatorParams::default(),
            banned: vec![false; schema.ops.len()],
            hints: Vec::new(),
        }
    }

    /// A random test of up to `init_calls` calls.
    pub fn random_test(&self, rng: &mut impl Rng) -> TestCase {
        let mut t = TestCase::default();
        let n = rng.random_range(1..=self.params.init_calls.max(1));
        for _ in 0..n {
            self.insert_call(&mut t, rng);
        }
        self.repair(&mut t, rng);
        t
    }

    /// [`Builder::mutate`] with dynamic seeding (EvoSuite's dynamic constant pool, per test):
    /// `seen` are the strings `t`'s last run was compared against (`ExecResult::seen`). Those
    /// `t` does not hold itself and the crate has no literal of are offered to the new string
    /// values of this mutation beside the constant pool. A needle the crate computes from
    /// another argument (`format!("{}:", tag.to_uppercase())`) is only right beside that
    /// argument's value, so the hints go with the test they came from, not to a global pool.
    pub fn mutate_seeded(&mut self, t: &mut TestCase, seen: &[String], rng: &mut impl Rng) -> bool {
        if self.params.dynamic_seeding {
            self.hints = fresh_hints(t, seen, &self.schema.constants);
        }
        let changed = self.mutate(t, rng);
        self.hints.clear();
        changed
    }

    /// Applies EvoSuite's mutation: delete, change and insert, each with probability 1/3.
    /// Returns whether the test changed.
    pub fn mutate(&self, t: &mut TestCase, rng: &mut impl Rng) -> bool {
        let before = t.clone();
        if rng.random_bool(1.0 / 3.0) {
            self.delete(t, rng);
        }
        if rng.random_bool(1.0 / 3.0) {
            self.change(t, rng);
        }
        if rng.random_bool(1.0 / 3.0) || t.is_empty() {
            self.insert(t, rng);
        }
        self.repair(t, rng);
        *t != before
    }

    fn delete(&self, t: &mut TestCase, rng: &mut impl Rng) {
        let p = 1.0 / t.len().max(1) as f64;
        let mut i = t.len();
        while i > 0 {
            i -= 1;
            if rng.random_bool(p) {
                t.remove(i);
            }
        }
    }

    fn change(&self, t: &mut TestCase, rng: &mut impl Rng) {
        let p = 1.0 / t.len().max(1) as f64;
        // Changing a call may replace it by a longer chain or drop it: re-read the length.
        let mut i = 0;
        while i < t.len() {
            if rng.random_bool(p) {
                self.change_stmt(t, i, rng);
            }
            i += 1;
        }
    }

    fn insert(&self, t: &mut TestCase, rng: &mut impl Rng) {
        let mut k = 0;
        loop {
            if t.len() >= self.params.max_len {
                return;
            }
            self.insert_call(t, rng);
            k += 1;
            if !rng.random_bool(self.params.insert_again.powi(k)) {
                return;
            }
        }
    }

    /// Inserts a call: half the time on a value the test already has, otherwise any call.
    fn insert_call(&self, t: &mut TestCase, rng: &mut impl Rng) {
        let on_existing = self.call_on_existing(t, rng);
        let op = match on_existing {
            Some(op) => op,
            None => {
                let allowed: Vec<u32> = self
                    .schema
                    .calls()
                    .iter()
                    .copied()
                    .filter(|&o| self.allowed(o))
                    .collect();
                match allowed.choose(rng) {
                    Some(&op) => op,
                    None => return,
                }
            }
        };
        // Calls go after a random existing statement, biased to the end where state is richest.
        let pos = if t.is_empty() || rng.random_bool(0.5) {
            t.len()
        } else {
            rng.random_range(0..=t.len())
        };
        self.add_op(t, pos, op, 0, rng);
    }

    fn call_on_existing(&self, t: &TestCase, rng: &mut impl Rng) -> Option<u32> {
        if t.is_empty() || !rng.random_bool(0.5) {
            return None;
        }
        let i = rng.random_range(0..t.len());
        let ty = self.schema.op(t.stmts[i].op).ret?;
        let allowed: Vec<u32> = self
            .schema
            .consumers(ty)
            .iter()
            .copied()
            .filter(|&o| self.allowed(o))
            .collect();
        allowed.choose(rng).copied()
    }

    fn allowed(&self, op: u32) -> bool {
        !self.banned.get(op as usize).copied().unwrap_or(false)
    }

    /// Inserts `op` at `pos` with arguments built or reused before it; returns the index the
    /// statement ended up at, or `None` if it could not be built.
    fn add_op(
        &self,
        t: &mut TestCase,
        mut pos: usize,
        op: u32,
        depth: usize,
        rng: &mut impl Rng,
    ) -> Option<usize> {
        let info = self.schema.op(op);
        let value = match info.kind {
            OpKind::Literal => Some(self.new_value(info.ret?, rng)),
            _ => None,
        };
        let mut args = Vec::new();
        let arity = if info.variadic {
            rng.random_range(0..=self.params.max_elements)
        } else {
            info.params.len()
        };
        for k in 0..arity {
            let (ty, pass) = info.params[if info.variadic { 0 } else { k }];
            let reuse = self.pick_existing(t, pos, ty, pass, &args, rng);
            let arg = match reuse {
                Some(a) if rng.random_bool(self.params.reuse) => a,
                _ => {
                    if depth >= self.params.max_depth {
                        reuse?
                    } else {
                        match self.build_value(t, pos, ty, depth + 1, rng) {
                            Some(a) => {
                                pos += 1 + (a.1);
                                a.0
                            }
                            None => reuse?,
                        }
                    }
                }
            };
            args.push(arg);
        }
        t.insert(pos, Stmt { op, args, value });
        Some(pos)
    }

    /// Builds a new value of `ty` right before `pos`. Returns its index and how many other
    /// statements were inserted before it.
    fn build_value(
        &self,
        t: &mut TestCase,
        pos: usize,
        ty: u32,
        depth: usize,
        rng: &mut impl Rng,
    ) -> Option<(u32, usize)> {
        let producers: Vec<u32> = self
            .schema
            .producers(ty)
            .iter()
            .copied()
            .filter(|&o| self.allowed(o))
            .collect();
        let op = *producers.choose(rng)?;
        let before = t.len();
        let at = self.add_op(t, pos, op, depth, rng)?;
        let inserted = t.len() - before;
        Some((at as u32, inserted - 1))
    }

    /// A random live value of `ty` before `pos`, not already an argument of this statement.
    fn pick_existing(
        &self,
        t: &TestCase,
        pos: usize,
        ty: u32,
        pass: Pass,
        taken: &[u32],
        rng: &mut impl Rng,
    ) -> Option<u32> {
        let live = live_before(self.schema, t, pos);
        let candidates: Vec<u32> = (0..pos as u32)
            .filter(|&i| live[i as usize] && !taken.contains(&i))
            .filter(|&i| self.schema.op(t.stmts[i as usize].op).ret == Some(ty))
            .filter(|&i| !self.schema.consumes(ty, pass) || !used_after(t, i, pos))
            .collect();
        candidates.choose(rng).copied()
    }

    fn change_stmt(&self, t: &mut TestCase, i: usize, rng: &mut impl Rng) {
        let op = t.stmts[i].op;
        let info = self.schema.op(op);
        if info.kind == OpKind::Literal {
            if let (Some(ty), Some(v)) = (info.ret, t.stmts[i].value.clone()) {
                t.stmts[i].value = Some(self.mutate_value(ty, v, rng));
            }
            return;
        }
        if info.params.is_empty() {
            return;
        }
        // Rebind one argument to another suitable value, or replace the call by another
        // producing the same type.
        let k = rng.random_range(0..t.stmts[i].args.len().max(1));
        if k < t.stmts[i].args.len() {
            let (ty, pass) = info.params[if info.variadic { 0 } else { k }];
            let mut others = t.stmts[i].args.clone();
            others.remove(k);
            if let Some(a) = self.pick_existing(t, i, ty, pass, &others, rng) {
                t.stmts[i].args[k] = a;
                return;
            }
        }
        if let Some(ret) = info.ret {
            let alternatives: Vec<u32> = self
                .schema
                .producers(ret)
                .iter()
                .copied()
                .filter(|&o| o != op && self.schema.op(o).kind == OpKind::Call)
                .collect();
            if let Some(&alt) = alternatives.choose(rng) {
                // Uses of the old result dangle now; repair rebinds them by type.
                t.remove(i);
                self.add_op(t, i, alt, 1, rng);
            }
        }
    }

    /// A fresh literal for `ty`: from the constant pool with some probability, else random.
    pub fn new_value(&self, ty: u32, rng: &mut impl Rng) -> Value {
        let c = &self.schema.constants;
        let pooled = rng.random_bool(self.params.constant);
        match self.schema.ty(ty).literal.clone() {
            Some(ValueKind::Int { min, max }) => {
                let fits: Vec<i128> = c
                    .ints
                    .iter()
                    .copied()
                    .filter(|v| (min..=max).contains(v))
                    .collect();
                match fits.choose(rng) {
                    Some(&v) if pooled => Value::Int(v),
                    _ => Value::Int(random_int(min, max, rng)),
                }
            }
            Some(ValueKind::Float) => match c.floats.choose(rng) {
                Some(&v) if pooled => Value::Float(v),
                _ => Value::Float(random_float(rng)),
            },
            Some(ValueKind::Bool) => Value::Bool(rng.random_bool(0.5)),
            Some(ValueKind::Char) => match c.chars.choose(rng) {
                Some(&v) if pooled => Value::Char(v),
                _ => Value::Char(random_char(rng)),
            },
            Some(ValueKind::Str) | None => match self.pooled_string(rng) {
                Some(v) if pooled => Value::Str(v.clone()),
                _ if rng.random_bool(0.3) => Value::Str(compose(c, rng)),
                _ => Value::Str(random_string(rng)),
            },
        }
    }

    /// A string of the constant pool or one of the hints of dynamic seeding, each hint
    /// weighing as one literal, the hints together at most half of the draws.
    fn pooled_string(&self, rng: &mut impl Rng) -> Option<&String> {
        let strings = &self.schema.constants.strings;
        // A crate with many literals keeps most draws on them.
        let share = self.hints.len() as f64 / (self.hints.len() + strings.len()) as f64;
        if !self.hints.is_empty() && rng.random_bool(share.min(0.5)) {
            return self.hints.choose(rng);
        }
        strings.choose(rng)
    }

    fn mutate_value(&self, ty: u32, v: Value, rng: &mut impl Rng) -> Value {
        if rng.random_bool(0.2) {
            return self.new_value(ty, rng);
        }
        match (v, self.schema.ty(ty).literal.clone()) {
            (Value::Int(i), Some(ValueKind::Int { min, max })) => {
                // A decimal digit more or less: code that branches on a value's magnitude
                // (digit counts, chunks of 1e16) is crossed by steps no delta takes.
                let moved = match rng.random_range(0..10) {
                    0 => i.saturating_mul(10),
                    1 => i / 10,
                    _ => i.saturating_add(delta(rng) as i128),
                };
                Value::Int(moved.clamp(min, max))
            }
            (Value::Float(f), _) => Value::Float(match rng.random_range(0..5) {
                0 | 1 => f + delta(rng) as f64,
                2 => f * 10f64.powi(rng.random_range(-3..=3)),
                _ => f * rng.random_range(0.5..2.0),
            }),
            (Value::Bool(b), _) => Value::Bool(!b),
            (Value::Char(c), _) => {
                let code = (c as i64 + delta(rng)).clamp(0, 0x10FFFF) as u32;
                Value::Char(char::from_u32(code).unwrap_or(c))
            }
            (Value::Str(s), _) => Value::Str(mutate_string(
                &s,
                |rng| self.pooled_string(rng),
                &self.schema.constants,
                rng,
            )),
            (other, _) => other,
        }
    }

    /// Single-point crossover (EvoSuite): the head of one parent with the tail of the other,
    /// tail arguments rebound by type and everything repaired.
    pub fn crossover(
        &self,
        a: &TestCase,
        b: &TestCase,
        rng: &mut impl Rng,
    ) -> (TestCase, TestCase) {
        let p = rng.random_range(0.0..1.0);
        let ca = ((a.len() as f64) * p).round() as usize;
        let cb = ((b.len() as f64) * p).round() as usize;
        let mut x = self.splice(a, ca, b, cb);
        let mut y = self.splice(b, cb, a, ca);
        self.repair(&mut x, rng);
        self.repair(&mut y, rng);
        (x, y)
    }

    fn splice(&self, head: &TestCase, h: usize, tail: &TestCase, t: usize) -> TestCase {
        let mut out = TestCase {
            stmts: head.stmts[..h].to_vec(),
        };
        for s in &tail.stmts[t..] {
            let mut s = s.clone();
            for a in &mut s.args {
                *a = if *a == DANGLING || (*a as usize) < t {
                    DANGLING
                } else {
                    *a - t as u32 + h as u32
                };
            }
            out.stmts.push(s);
        }
        out
    }

    /// Restores the rules every test obeys: arguments refer to earlier, live values of the
    /// right type, distinct within a statement; consumed values are not used again; length
    /// within bounds. Broken arguments are rebound when a suitable value exists, otherwise the
    /// statement goes.
    pub fn repair(&self, t: &mut TestCase, rng: &mut impl Rng) {
        t.stmts.truncate(self.params.max_len);
        // `live` is `live_before(t, i)`, kept up as `i` advances: removing statement `i`
        // changes only the statements after it.
        let mut live = Vec::with_capacity(t.len());
        let mut i = 0;
        while i < t.len() {
            if self.repair_stmt(t, i, &live, rng) {
                live_step(self.schema, &mut live, &t.stmts[i]);
                i += 1;
            } else {
                t.remove(i);
            }
        }
    }

    fn repair_stmt(&self, t: &mut TestCase, i: usize, live: &[bool], rng: &mut impl Rng) -> bool {
        let info = self.schema.op(t.stmts[i].op);
        if !info.variadic && t.stmts[i].args.len() != info.params.len() {
            return false;
        }
        if info.kind == OpKind::Literal && t.stmts[i].value.is_none() {
            return false;
        }
        for k in 0..t.stmts[i].args.len() {
            if !arg_ok(self.schema, t, i, k, live) {
                let (ty, pass) = info.params[if info.variadic { 0 } else { k }];
                // Not an earlier argument of this statement.
                let taken = &t.stmts[i].args[..k];
                match self.pick_existing(t, i, ty, pass, taken, rng) {
                    Some(b) if !self.schema.consumes(ty, pass) || !used_after(t, b, i + 1) => {
                        t.stmts[i].args[k] = b
                    }
                    _ => return false,
                }
            }
        }
        true
    }
}

/// Whether argument `k` of statement `i` obeys the rules [`Builder::repair`] restores: an
/// earlier, live value of the parameter's type, not already an earlier argument of the same
/// statement, and not used again when the parameter consumes it. `live` is
/// [`live_before`]`(schema, t, i)`.
fn arg_ok(schema: &Schema, t: &TestCase, i: usize, k: usize, live: &[bool]) -> bool {
    let info = schema.op(t.stmts[i].op);
    let (ty, pass) = info.params[if info.variadic { 0 } else { k }];
    let args = &t.stmts[i].args;
    let a = args[k];
    a != DANGLING
        && (a as usize) < i
        && live[a as usize]
        && !args[..k].contains(&a)
        && schema.op(t.stmts[a as usize].op).ret == Some(ty)
        && (!schema.consumes(ty, pass) || !used_after(t, a, i + 1))
}

impl TestCase {
    /// Checks, without changing anything, that the test is well-formed for `schema`: every
    /// operation exists, has its arity and (for literals) a value of its type's kind, and every
    /// argument obeys the rules [`Builder::repair`] restores. A test read back from outside
    /// the search (a stored suite) must pass this before it is executed; the error names the
    /// first statement that does not.
    pub fn check(&self, schema: &Schema) -> Result<(), String> {
        for (i, s) in self.stmts.iter().enumerate() {
            let Some(info) = schema.ops.get(s.op as usize) else {
                return Err(format!("statement {i}: no operation {}", s.op));
            };
            if info.variadic && info.params.is_empty()
                || !info.variadic && s.args.len() != info.params.len()
            {
                return Err(format!(
                    "statement {i} ({}): {} arguments for {} parameters",
                    info.name,
                    s.args.len(),
                    info.params.len()
                ));
            }
            let value_ok = match (info.kind, info.ret, &s.value) {
                (OpKind::Literal, Some(ty), Some(v)) => value_fits(schema, ty, v),
                (OpKind::Literal, _, _) => false,
                (_, _, value) => value.is_none(),
            };
            if !value_ok {
                return Err(format!(
                    "statement {i} ({}): literal {:?} does not fit",
                    info.name, s.value
                ));
            }
            let live = live_before(schema, self, i);
            if let Some(k) = (0..s.args.len()).find(|&k| !arg_ok(schema, self, i, k, &live)) {
                return Err(format!(
                    "statement {i} ({}): argument {k} is not a live value of the parameter's type",
                    info.name
                ));
            }
        }
        Ok(())
    }
}

/// Whether a literal can be a value of `ty`.
fn value_fits(schema: &Schema, ty: u32, v: &Value) -> bool {
    match (&schema.ty(ty).literal, v) {
        (Some(ValueKind::Int { min, max }), Value::Int(i)) => (min..=max).contains(&i),
        (Some(ValueKind::Float), Value::Float(_))
        | (Some(ValueKind::Bool), Value::Bool(_))
        | (Some(ValueKind::Char), Value::Char(_))
        | (Some(ValueKind::Str), Value::Str(_)) => true,
        _ => false,
    }
}

/// Which values are alive (produced and not consumed) just before statement `pos`.
fn live_before(schema: &Schema, t: &TestCase, pos: usize) -> Vec<bool> {
    let mut live = Vec::with_capacity(pos);
    t.stmts[..pos]
        .iter()
        .for_each(|s| live_step(schema, &mut live, s));
    live
}

/// Extends `live` (which values are alive before statement `live.len()`) past `s`, that
/// statement: it consumes some earlier values and produces its own.
fn live_step(schema: &Schema, live: &mut Vec<bool>, s: &Stmt) {
    let info = schema.op(s.op);
    for (k, &a) in s.args.iter().enumerate() {
        let (ty, pass) = info.params[if info.variadic { 0 } else { k }];
        if schema.consumes(ty, pass)
            && let Some(v) = live.get_mut(a as usize)
        {
            *v = false;
        }
    }
    live.push(info.ret.is_some());
}

/// Whether value `v` is used by any statement from `from` on.
fn used_after(t: &TestCase, v: u32, from: usize) -> bool {
    t.stmts.iter().skip(from).any(|s| s.args.contains(&v))
}

fn delta(rng: &mut impl Rng) -> i64 {
    let magnitude = [1i64, 2, 5, 10, 100, 1000][rng.random_range(0..6)];
    let d = rng.random_range(1..=magnitude);
    if rng.random_bool(0.5) { d } else { -d }
}

/// Small values are far more interesting than uniform ones over the full range; a share is
/// spread evenly over magnitudes, so every number of digits a type holds is drawn.
fn random_int(min: i128, max: i128, rng: &mut impl Rng) -> i128 {
    let v: i128 = match rng.random_range(0..11) {
        0 => min,
        1 => max,
        2..=5 => rng.random_range(-10..=100),
        6 | 7 => rng.random_range(-1000..=10_000),
        8 => log_uniform_int(min, max, rng),
        9 => boundary_int(min, max, rng),
        _ => rng.random_range(min..=max),
    };
    v.clamp(min, max)
}

/// A power of two or of ten the type holds, or one less: where code changes width, digit
/// count or algorithm (itoa's `n < 1 << 83`), and the exact multiples an approximate division
/// rounds wrongly when one of its carries is off (`10^38 = 10^19 * 10^19`). No delta or
/// random draw lands on them.
fn boundary_int(min: i128, max: i128, rng: &mut impl Rng) -> i128 {
    let widest = max.max(min.saturating_add(1).saturating_neg()).max(1);
    let base: i128 = if rng.random_bool(0.5) { 2 } else { 10 };
    let mut powers = vec![1i128];
    while let Some(next) = powers[powers.len() - 1].checked_mul(base) {
        if next > widest {
            break;
        }
        powers.push(next);
    }
    let mut v = powers[rng.random_range(0..powers.len())];
    if rng.random_bool(0.3) {
        v -= 1;
    }
    if min < 0 && rng.random_bool(0.5) {
        -v
    } else {
        v
    }
}

/// Whether `v` is a value [`boundary_int`] draws: `±2^k` or `±10^k`, or one less in magnitude.
/// Strong mutation judges such values beyond its usual attempts (`subject::strong`), since a
/// mutant that only shows at an exact power is otherwise given up on before one is drawn.
pub fn is_boundary_int(v: i128) -> bool {
    let m = v.unsigned_abs();
    let power_of_ten = |mut x: u128| {
        while x >= 10 && x.is_multiple_of(10) {
            x /= 10;
        }
        x == 1
    };
    [m, m.saturating_add(1)]
        .into_iter()
        .any(|x| x.is_power_of_two() || power_of_ten(x))
}

/// A value whose bit width is uniform over the widths `min..=max` holds: `1e20` is as likely
/// as `1e3`, and a `u8` draws each of its eight widths rather than clamping most draws to 255.
fn log_uniform_int(min: i128, max: i128, rng: &mut impl Rng) -> i128 {
    let widest = max.max(min.saturating_add(1).saturating_neg()).max(1);
    let low = 1i128 << rng.random_range(0..(128 - widest.leading_zeros()));
    let v = rng.random_range(low..=low + (low - 1));
    if min < 0 && rng.random_bool(0.5) {
        -v
    } else {
        v
    }
}

fn random_float(rng: &mut impl Rng) -> f64 {
    match rng.random_range(0..7) {
        0 => 0.0,
        1 => rng.random_range(-1.0..1.0),
        2 | 3 => rng.random_range(-100.0..100.0),
        4 => rng.random_range(-1e6..1e6),
        5 => rng.random_range(-100i32..100) as f64,
        // Magnitudes from 1e-40 to 1e40: exponent notation, subnormal-adjacent and huge
        // values take paths small floats never reach.
        _ => {
            let v = rng.random_range(1.0..10.0) * 10f64.powi(rng.random_range(-40..=40));
            if rng.random_bool(0.5) { -v } else { v }
        }
    }
}

fn random_char(rng: &mut impl Rng) -> char {
    match rng.random_range(0..4) {
        0 => char::from(rng.random_range(b'a'..=b'z')),
        1 => char::from(rng.random_range(b'0'..=b'9')),
        2 => char::from(rng.random_range(b' '..=b'~')),
        _ => char::from_u32(rng.random_range(0xA0..0x3000)).unwrap_or('é'),
    }
}

/// Two to four pieces from the constant pool (strings, chars, small numbers) joined: inputs
/// like `key=value` or `5m` are built from the very literals the parser compares against.
fn compose(c: &crate::Constants, rng: &mut impl Rng) -> String {
    let n = rng.random_range(2..=4);
    let mut out = String::new();
    for _ in 0..n {
        match rng.random_range(0..3) {
            0 => out.push_str(c.strings.choose(rng).map_or("", String::as_str)),
            1 => out.extend(c.chars.choose(rng)),
            _ => out.push_str(&rng.random_range(0..100).to_string()),
        }
    }
    out
}

fn random_string(rng: &mut impl Rng) -> String {
    let n = rng.random_range(0..8);
    (0..n).map(|_| random_char(rng)).collect()
}

/// Deletes, replaces and inserts characters, each with probability 1/len (EvoSuite); insertions
/// sometimes splice in a constant of the crate, so formats like `key=value` assemble from the
/// literals the parser compares against.
fn mutate_string<'p, R: Rng>(
    s: &str,
    pooled: impl FnOnce(&mut R) -> Option<&'p String>,
    constants: &crate::Constants,
    rng: &mut R,
) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    let p = 1.0 / chars.len().max(1) as f64;
    let mut changed = false;
    if rng.random_bool(1.0 / 3.0) {
        chars.retain(|_| {
            !rng.random_bool(p) || {
                changed = true;
                false
            }
        });
    }
    if rng.random_bool(1.0 / 3.0) {
        for c in &mut chars {
            if rng.random_bool(p) {
                *c = random_char(rng);
                changed = true;
            }
        }
    }
    if rng.random_bool(1.0 / 3.0) || !changed {
        let at = rng.random_range(0..=chars.len());
        let splice = match rng.random_range(0..4) {
            0 => pooled(rng).map(|s| s.chars().collect::<Vec<char>>()),
            1 => constants.chars.choose(rng).map(|c| vec![*c]),
            _ => None,
        };
        match (splice, rng.random_range(0..3)) {
            // A pooled string is often a word the crate looks for: it takes the place of a
            // word of the input, or joins the input as a word of its own, where a tokenizer
            // sees it whole.
            (Some(piece), 0) => match random_word(&chars, rng) {
                Some(word) => drop(chars.splice(word, piece)),
                None => drop(chars.splice(at..at, piece)),
            },
            (Some(piece), 1) => {
                let end = chars.len();
                chars.splice(end..end, std::iter::once(' ').chain(piece));
            }
            (Some(piece), _) => drop(chars.splice(at..at, piece)),
            (None, _) => chars.insert(at, random_char(rng)),
        }
    }
    chars.into_iter().collect()
}

/// The span of a random whitespace-separated word of `chars`, if it has one.
fn random_word(chars: &[char], rng: &mut impl Rng) -> Option<std::ops::Range<usize>> {
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in chars.iter().enumerate() {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                words.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        words.push(s..chars.len());
    }
    words.choose(rng).cloned()
}

/// The strings of `seen` worth offering to `t`'s next values: not one of `t`'s own string
/// values or a part of one (the input side of a comparison, or a token a parser cut from it
/// and compared with its keywords) and not a literal of the crate (the constant pool offers
/// those already).
fn fresh_hints(t: &TestCase, seen: &[String], constants: &crate::Constants) -> Vec<String> {
    let own: Vec<&str> = t
        .stmts
        .iter()
        .filter_map(|s| match &s.value {
            Some(Value::Str(v)) => Some(v.as_str()),
            _ => None,
        })
        .collect();
    seen.iter()
        .filter(|h| !own.iter().any(|v| v.contains(h.as_str())))
        .filter(|h| !constants.strings.contains(h))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Every bit width of a narrow type is drawn, and none beyond it: before, a `u8` drew a
    /// width from 1..=127 and 15 of 16 draws clamped to 255.
    /// `f(String, String)` over string literals, the crate's literal `"lit"` in the pool.
    fn strings_schema() -> Schema {
        let op = |name: &str, kind, params, ret| crate::OpInfo {
            name: name.into(),
            kind,
            params,
            ret,
            variadic: false,
        };
        Schema::new(
            vec![crate::TypeInfo {
                name: "String".into(),
                literal: Some(ValueKind::Str),
                copy: false,
            }],
            vec![
                op("String", OpKind::Literal, vec![], Some(0)),
                op(
                    "f",
                    OpKind::Call,
                    vec![(0, crate::Pass::Move), (0, crate::Pass::Move)],
                    None,
                ),
            ],
            crate::Constants {
                strings: vec!["lit".into()],
                ..Default::default()
            },
        )
    }

    #[test]
    fn seeded_mutation_offers_what_the_run_compared_against_and_nothing_else() {
        let schema = strings_schema();
        let lit = |v: &str| crate::Stmt {
            op: 0,
            args: vec![],
            value: Some(Value::Str(v.into())),
        };
        let test = TestCase {
            stmts: vec![
                lit("abcd"),
                lit("xy"),
                crate::Stmt {
                    op: 1,
                    args: vec![0, 1],
                    value: None,
                },
            ],
        };
        let seen: Vec<String> = ["abcd", "bc", "ABCD-4:", "lit"].map(String::from).to_vec();
        // The test's own values, their parts and the crate's literal are known already.
        assert_eq!(fresh_hints(&test, &seen, &schema.constants), ["ABCD-4:"]);
        let offered = |seeding: bool| {
            let mut b = Builder::new(&schema);
            b.params.dynamic_seeding = seeding;
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
            (0..2_000)
                .filter(|_| {
                    let mut t = test.clone();
                    b.mutate_seeded(&mut t, &seen, &mut rng);
                    t.stmts
                        .iter()
                        .any(|s| matches!(&s.value, Some(Value::Str(v)) if v.contains("ABCD-4:")))
                })
                .count()
        };
        let (with, without) = (offered(true), offered(false));
        assert!(with >= 20, "the hint came back in {with} of 2000 mutations");
        assert_eq!(without, 0);
    }

    #[test]
    fn log_uniform_draws_span_the_widths_of_the_type() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for (min, max, widths) in [(0, 255, 8), (-128, 127, 7), (0, u64::MAX as i128, 64)] {
            let mut seen = std::collections::BTreeSet::new();
            for _ in 0..4_000 {
                let v = log_uniform_int(min, max, &mut rng);
                assert!((min..=max).contains(&v), "{v} outside {min}..={max}");
                seen.insert(128 - v.unsigned_abs().leading_zeros());
            }
            assert_eq!(seen.len(), widths, "{min}..={max}: {seen:?}");
        }
        // The widest range: neither the shift nor `low + (low - 1)` overflows (a debug build
        // panics if one does).
        for _ in 0..1_000 {
            assert_ne!(log_uniform_int(i128::MIN, i128::MAX, &mut rng), 0);
        }
    }

    #[test]
    fn every_boundary_draw_is_recognised_and_few_other_values_are() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        for _ in 0..5_000 {
            let v = boundary_int(i128::MIN, i128::MAX, &mut rng);
            assert!(is_boundary_int(v), "{v}");
        }
        for v in [10i128.pow(25), 10i128.pow(25) - 1, -1024, -99, 0, 1, 2] {
            assert!(is_boundary_int(v), "{v}");
        }
        for v in [5i128, 12, 98, 1001, 10i128.pow(25) + 1, -993] {
            assert!(!is_boundary_int(v), "{v}");
        }
    }

    /// Boundaries stay inside the type, and reach its widest powers: `2^126` and `10^38` for
    /// a `u128` (whose range the schema caps at `i128::MAX`), `2^6` and `-10^2` for an `i8`.
    #[test]
    fn boundary_draws_reach_the_widest_powers_of_the_type() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for (min, max, wanted) in [
            (0, i128::MAX, vec![1i128 << 126, 10i128.pow(38), 1 << 83]),
            (-128, 127, vec![-100, 100, 64, 99, -1]),
        ] {
            let seen: std::collections::BTreeSet<i128> = (0..20_000)
                .map(|_| boundary_int(min, max, &mut rng).clamp(min, max))
                .collect();
            assert!(seen.iter().all(|v| (min..=max).contains(v)));
            for w in wanted {
                assert!(seen.contains(&w), "{w} never drawn in {min}..={max}");
            }
        }
    }
}
