//! Local search on the literal values of one test case: the memetic half of \[memetic\] (Fraser,
//! Arcuri and McMinn, "A Memetic Algorithm for Whole Test Suite Generation", §4.1).
//!
//! It owns the value-level searches (the alternating variable method on integers and chars,
//! its precision ladder on floats, the probe/delete/replace/insert search on strings, boolean
//! flips), the walk over a test's statements that applies them (§4.1, last to first), and the
//! random string mutation of §3.3 that the probes and MIO's value mutation share.
//!
//! Every search talks to its caller through a probe closure: it proposes a candidate, the
//! caller executes it (through `Context::evaluate`, so every execution counts against the
//! budget), compares it with the incumbent and answers [`Probe`]. A `Better` answer means the
//! caller has already adopted the candidate (Lamarckian write-back, §4.3); `Spent` ends the
//! search at once.

use rand::{Rng, RngExt};

use crate::{OpKind, Schema, TestCase, Value, ValueKind};

/// The caller's verdict on one candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Probe {
    /// Strictly better; the caller adopted it.
    Better,
    /// Same fitness.
    Same,
    Worse,
    /// The budget ran out before the candidate could be judged.
    Spent,
}

/// Fitness differences below this are rounding noise of summed distances, not improvements.
pub(crate) const EPS: f64 = 1e-12;

/// Compares a candidate fitness (minimised) with the incumbent's.
pub(crate) fn judge(candidate: f64, incumbent: f64) -> Probe {
    if candidate < incumbent - EPS {
        Probe::Better
    } else if candidate <= incumbent + EPS {
        Probe::Same
    } else {
        Probe::Worse
    }
}

/// Integer AVM (§4.1.1): exploratory moves +1 then -1; a successful one starts a pattern
/// search in its direction whose step doubles (1, 2, 4, ...) while the fitness improves. The
/// last improving value is kept and exploration restarts from it; the search stops when
/// neither +1 nor -1 improves, when a bound is hit in both directions, or when the budget is
/// spent. Steps saturate at `min..=max`. Returns the final value and whether it improved.
pub(crate) fn avm_int(
    mut v: i128,
    min: i128,
    max: i128,
    probe: &mut dyn FnMut(i128) -> Probe,
) -> (i128, bool) {
    let mut improved = false;
    loop {
        let mut moved = false;
        for dir in [1i128, -1] {
            match pattern_int(v, dir, min, max, probe) {
                Moved::To(nv) => {
                    v = nv;
                    moved = true;
                    improved = true;
                    break;
                }
                Moved::No => {}
                Moved::Spent(nv) => return (nv, improved || nv != v),
            }
        }
        if !moved {
            return (v, improved);
        }
    }
}

enum Moved<T> {
    To(T),
    No,
    /// Budget gone; the value reached so far.
    Spent(T),
}

/// One exploratory move in `dir` and, if it improves, the doubling pattern moves after it.
fn pattern_int(
    mut v: i128,
    dir: i128,
    min: i128,
    max: i128,
    probe: &mut dyn FnMut(i128) -> Probe,
) -> Moved<i128> {
    let mut step: i128 = 1;
    let mut moved = false;
    loop {
        let cand = v.saturating_add(dir.saturating_mul(step)).clamp(min, max);
        if cand == v {
            return if moved { Moved::To(v) } else { Moved::No };
        }
        match probe(cand) {
            Probe::Better => {
                v = cand;
                moved = true;
                step = step.saturating_mul(2);
            }
            Probe::Spent => return Moved::Spent(v),
            _ => return if moved { Moved::To(v) } else { Moved::No },
        }
    }
}

/// Float AVM (§4.1.1, after Harman and McMinn): for each precision `p` in `0..=max_precision`
/// the integer scheme with `δ = 2^I · dir · 10^-p`. If no move at `p = 0` changed the fitness
/// at all the value is taken as irrelevant and the finer precisions are skipped (EvoSuite's
/// source, \[evosuite\], does the same; the paper is silent). NaN and infinities are left alone.
pub(crate) fn avm_float(
    mut v: f64,
    max_precision: u32,
    probe: &mut dyn FnMut(f64) -> Probe,
) -> (f64, bool) {
    if !v.is_finite() {
        return (v, false);
    }
    let mut improved = false;
    for p in 0..=max_precision {
        let unit = 10f64.powi(-(p as i32));
        let mut changed = false;
        let mut watch = |x: f64| {
            let r = probe(x);
            changed |= r != Probe::Same;
            r
        };
        let (nv, better, spent) = avm_float_at(v, unit, &mut watch);
        v = nv;
        improved |= better;
        if spent || (p == 0 && !changed) {
            break;
        }
    }
    (v, improved)
}

/// The integer scheme on a float with base step `unit`. Returns value, improved, spent.
fn avm_float_at(mut v: f64, unit: f64, probe: &mut dyn FnMut(f64) -> Probe) -> (f64, bool, bool) {
    let mut improved = false;
    loop {
        let mut moved = false;
        for dir in [1.0, -1.0] {
            let mut step = 1.0;
            let mut cur = v;
            loop {
                let cand = cur + dir * step * unit;
                if !cand.is_finite() || cand == cur {
                    break;
                }
                match probe(cand) {
                    Probe::Better => {
                        cur = cand;
                        step *= 2.0;
                    }
                    Probe::Spent => return (cur, improved || cur != v, true),
                    _ => break,
                }
            }
            if cur != v {
                v = cur;
                moved = true;
                improved = true;
                break;
            }
        }
        if !moved {
            return (v, improved, false);
        }
    }
}

/// Characters the string search tries (EvoSuite: codes 9..=127; the paper says ASCII).
fn ascii() -> impl Iterator<Item = char> {
    (9u8..=127).map(char::from)
}

/// String local search (§4.1.2): `probes` random mutations decide whether the string matters
/// (any fitness change, better or worse; improving probes are kept); if it does, deletion of
/// each character (last to first), replacement of each by every other ASCII character (first
/// improvement wins), then insertion at the back and then the front while it improves.
pub(crate) fn string_search(
    s: &str,
    probes: usize,
    rng: &mut impl Rng,
    probe: &mut dyn FnMut(&str) -> Probe,
) -> (String, bool) {
    let mut cur = s.to_string();
    let mut relevant = false;
    let mut improved = false;
    for _ in 0..probes {
        let cand = if rng.random_bool(0.5) {
            mutate_string(&cur, rng)
        } else {
            random_ascii_string(rng)
        };
        match probe(&cand) {
            Probe::Better => {
                cur = cand;
                relevant = true;
                improved = true;
            }
            Probe::Worse => relevant = true,
            Probe::Same => {}
            Probe::Spent => return (cur, improved),
        }
    }
    if !relevant {
        return (cur, improved);
    }
    let mut chars: Vec<char> = cur.chars().collect();
    for pass in 0..3 {
        let r = match pass {
            0 => delete_pass(&mut chars, probe),
            1 => replace_pass(&mut chars, probe),
            _ => insert_pass(&mut chars, probe),
        };
        improved |= r.improved;
        if r.spent {
            break;
        }
    }
    (chars.into_iter().collect(), improved)
}

/// What a string pass did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pass {
    pub improved: bool,
    pub spent: bool,
}

fn try_chars(cand: &[char], probe: &mut dyn FnMut(&str) -> Probe) -> Probe {
    probe(&cand.iter().collect::<String>())
}

/// Removes each character, last to first, keeping removals that improve.
pub(crate) fn delete_pass(chars: &mut Vec<char>, probe: &mut dyn FnMut(&str) -> Probe) -> Pass {
    let mut out = Pass {
        improved: false,
        spent: false,
    };
    for i in (0..chars.len()).rev() {
        let mut cand = chars.clone();
        cand.remove(i);
        match try_chars(&cand, probe) {
            Probe::Better => {
                *chars = cand;
                out.improved = true;
            }
            Probe::Spent => {
                out.spent = true;
                return out;
            }
            _ => {}
        }
    }
    out
}

/// Replaces each character by every other ASCII character; the first improvement wins and the
/// search moves to the next position.
pub(crate) fn replace_pass(chars: &mut [char], probe: &mut dyn FnMut(&str) -> Probe) -> Pass {
    let mut out = Pass {
        improved: false,
        spent: false,
    };
    for i in 0..chars.len() {
        let orig = chars[i];
        for c in ascii().filter(|&c| c != orig) {
            chars[i] = c;
            match try_chars(chars, probe) {
                Probe::Better => {
                    out.improved = true;
                    break;
                }
                Probe::Spent => {
                    chars[i] = orig;
                    out.spent = true;
                    return out;
                }
                _ => chars[i] = orig,
            }
        }
    }
    out
}

/// Inserts characters at the back while some ASCII character improves, then at the front.
/// Only the ends: the left-aligned string distance of §4.1.2 rewards exactly these.
pub(crate) fn insert_pass(chars: &mut Vec<char>, probe: &mut dyn FnMut(&str) -> Probe) -> Pass {
    let mut out = Pass {
        improved: false,
        spent: false,
    };
    for front in [false, true] {
        'grow: loop {
            for c in ascii() {
                let mut cand = chars.clone();
                if front {
                    cand.insert(0, c);
                } else {
                    cand.push(c);
                }
                match try_chars(&cand, probe) {
                    Probe::Better => {
                        *chars = cand;
                        out.improved = true;
                        continue 'grow;
                    }
                    Probe::Spent => {
                        out.spent = true;
                        return out;
                    }
                    _ => {}
                }
            }
            break;
        }
    }
    out
}

/// The string mutation of §3.3: deletion, change and insertion each with probability 1/3
/// (at least one always happens); deletion and change touch each character with probability
/// 1/len, insertion adds a character with probability α = 0.5, another with α², and so on.
pub(crate) fn mutate_string(s: &str, rng: &mut impl Rng) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    let p = 1.0 / chars.len().max(1) as f64;
    let (mut del, mut chg, mut ins) = (
        rng.random_bool(1.0 / 3.0),
        rng.random_bool(1.0 / 3.0),
        rng.random_bool(1.0 / 3.0),
    );
    if !(del || chg || ins) {
        match rng.random_range(0..3) {
            0 => del = true,
            1 => chg = true,
            _ => ins = true,
        }
    }
    if del {
        chars.retain(|_| !rng.random_bool(p));
    }
    if chg {
        for c in &mut chars {
            if rng.random_bool(p) {
                *c = random_ascii(rng);
            }
        }
    }
    if ins {
        let mut alpha = 0.5f64;
        let mut k = 1;
        while rng.random_bool(alpha) {
            let at = rng.random_range(0..=chars.len());
            chars.insert(at, random_ascii(rng));
            k += 1;
            alpha = 0.5f64.powi(k);
        }
    }
    chars.into_iter().collect()
}

fn random_ascii(rng: &mut impl Rng) -> char {
    char::from(rng.random_range(32u8..=126))
}

fn random_ascii_string(rng: &mut impl Rng) -> String {
    let n = rng.random_range(0..=8);
    (0..n).map(|_| random_ascii(rng)).collect()
}

/// Largest precision tried on floats (§4.1.1: 0–7 for `f32`, 0–15 for `f64`).
fn max_precision(type_name: &str) -> u32 {
    if type_name == "f32" { 7 } else { 15 }
}

/// Local search on every literal statement of `t` that can influence the outcome, last to
/// first (§4.1): only statements up to the one that ended the run (`completed`; later ones
/// never ran), and only literals some later statement uses. `eval` executes a candidate test
/// and returns its fitness (minimised) with whatever the caller caches for it, or `None` when
/// the budget is spent; improvements are written back to `t`, `fit` and `cache`.
#[expect(clippy::too_many_arguments)]
pub(crate) fn search_test<R>(
    schema: &Schema,
    t: &mut TestCase,
    fit: &mut f64,
    cache: &mut R,
    completed: usize,
    string_probes: usize,
    rng: &mut impl Rng,
    eval: &mut dyn FnMut(&TestCase) -> Option<(f64, R)>,
) -> bool {
    let mut improved = false;
    let last = completed.min(t.len().saturating_sub(1));
    for i in (0..t.len().min(last + 1)).rev() {
        if !tunable(schema, t, i) {
            continue;
        }
        let stmt = &t.stmts[i];
        let ty = schema.op(stmt.op).ret.expect("literal statements return");
        let info = schema.ty(ty);
        let (value, literal) = (stmt.value.clone(), info.literal.clone());
        let precision = max_precision(&info.name);
        let mut spent = false;
        let mut probe = |v: Value| -> Probe {
            let mut cand = t.clone();
            cand.stmts[i].value = Some(v);
            match eval(&cand) {
                None => {
                    spent = true;
                    Probe::Spent
                }
                Some((f, r)) => {
                    let verdict = judge(f, *fit);
                    if verdict == Probe::Better {
                        *t = cand;
                        *fit = f;
                        *cache = r;
                    }
                    verdict
                }
            }
        };
        improved |= match (value, literal) {
            (Some(Value::Int(v)), Some(ValueKind::Int { min, max })) => {
                avm_int(v, min, max, &mut |x| probe(Value::Int(x))).1
            }
            (Some(Value::Float(v)), _) => {
                avm_float(v, precision, &mut |x| probe(Value::Float(x))).1
            }
            (Some(Value::Char(c)), _) => {
                let mut to_char = |x: i128| match char::from_u32(x as u32) {
                    Some(c) => probe(Value::Char(c)),
                    // Surrogates are no chars: a dead end for this direction.
                    None => Probe::Worse,
                };
                avm_int(c as i128, 0, 0x10FFFF, &mut to_char).1
            }
            (Some(Value::Bool(b)), _) => probe(Value::Bool(!b)) == Probe::Better,
            (Some(Value::Str(s)), _) => {
                let mut as_str = |x: &str| probe(Value::Str(x.to_string()));
                string_search(&s, string_probes, rng, &mut as_str).1
            }
            _ => false,
        };
        if spent {
            break;
        }
    }
    improved
}

/// A literal statement whose value some later statement uses: changing an unused literal
/// cannot change the fitness (EvoSuite skips them too).
pub(crate) fn tunable(schema: &Schema, t: &TestCase, i: usize) -> bool {
    let s = &t.stmts[i];
    schema.op(s.op).kind == OpKind::Literal
        && s.value.is_some()
        && t.stmts[i + 1..]
            .iter()
            .any(|l| l.args.contains(&(i as u32)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Integer AVM minimising `f` from `start`; returns its result and every value tried.
    fn int_run(
        f: impl Fn(i128) -> f64,
        start: i128,
        lo: i128,
        hi: i128,
    ) -> ((i128, bool), Vec<i128>) {
        let mut tried = Vec::new();
        let mut best = f(start);
        let mut probe = |x: i128| {
            tried.push(x);
            let r = judge(f(x), best);
            if r == Probe::Better {
                best = f(x);
            }
            r
        };
        let out = avm_int(start, lo, hi, &mut probe);
        (out, tried)
    }

    fn float_run(f: impl Fn(f64) -> f64, start: f64, precision: u32) -> ((f64, bool), Vec<f64>) {
        let mut tried = Vec::new();
        let mut best = f(start);
        let mut probe = |x: f64| {
            tried.push(x);
            let r = judge(f(x), best);
            if r == Probe::Better {
                best = f(x);
            }
            r
        };
        let out = avm_float(start, precision, &mut probe);
        (out, tried)
    }

    #[test]
    fn integer_avm_steps_one_then_doubles_and_restarts_from_the_last_improvement() {
        let ((v, improved), tried) = int_run(|x| (x - 100).abs() as f64, 0, i128::MIN, i128::MAX);
        assert_eq!((v, improved), (100, true));
        // +1 improves: steps 2, 4, 8, ... until 255 overshoots (155 > 27), keep 127; +1 worse,
        // -1 improves: 126, then -2, -4, -8, -16 to 96; -32 (64) is worse; +1: 97, +2: 99,
        // +4 (103) worse; +1: 100, +2 (102) worse; then 101 and 99 are worse: stop.
        assert_eq!(
            tried,
            vec![
                1, 3, 7, 15, 31, 63, 127, 255, 128, 126, 124, 120, 112, 96, 64, 97, 99, 103, 100,
                102, 101, 99
            ]
        );
    }

    #[test]
    fn integer_avm_stops_at_once_when_neither_neighbour_improves() {
        let (out, tried) = int_run(|x| (x - 5).abs() as f64, 5, 0, 10);
        assert_eq!(out, (5, false));
        assert_eq!(tried, vec![6, 4]);
    }

    #[test]
    fn integer_avm_saturates_at_the_type_bounds() {
        // Wants the largest value: steps 1, 2, 4 from 0 reach 7, the next (15) clamps to 10,
        // and at the bound +1 changes nothing and -1 is worse.
        let (out, tried) = int_run(|x| -(x as f64), 0, 0, 10);
        assert_eq!(out, (10, true));
        assert_eq!(tried, vec![1, 3, 7, 10, 9]);
    }

    #[test]
    fn integer_avm_stops_when_the_budget_is_spent() {
        let mut calls = 0;
        let mut probe = |x: i128| {
            calls += 1;
            assert!(x > 0);
            if calls > 3 {
                Probe::Spent
            } else {
                Probe::Better
            }
        };
        // 1, 3, 7 improve, the fourth probe finds the budget gone: keep 7.
        assert_eq!(avm_int(0, i128::MIN, i128::MAX, &mut probe), (7, true));
    }

    #[test]
    fn float_avm_refines_precision_by_decades() {
        let ((v, improved), tried) = float_run(|x| (x - 2.5).abs(), 0.0, 1);
        assert!(improved);
        assert!((v - 2.5).abs() < 1e-9, "{v}");
        // p = 0: +1 (1.5) and +2 (3, 0.5) improve, +4 (7) does not; 4 worse, 2 the same.
        // p = 1: 3.1 worse, 2.9 and 2.7 improve, 2.3 ties; ... down to 2.5.
        let want = [1.0, 3.0, 7.0, 4.0, 2.0, 3.1, 2.9, 2.7, 2.3];
        for (k, (a, b)) in tried.iter().zip(want).enumerate() {
            assert!((a - b).abs() < 1e-9, "probe {k}: {a} != {b}");
        }
    }

    #[test]
    fn float_avm_skips_finer_precisions_when_the_value_is_irrelevant() {
        let (out, tried) = float_run(|_| 1.0, 0.0, 15);
        assert_eq!(out, (0.0, false));
        assert_eq!(tried, vec![1.0, -1.0]);
        let mut probe = |_: f64| Probe::Same;
        assert!(!avm_float(f64::NAN, 15, &mut probe).1);
    }

    /// Left-aligned distance of §4.1.2 with a 0/1 character distance.
    fn distance(s: &str, goal: &str) -> f64 {
        let (a, b): (Vec<char>, Vec<char>) = (s.chars().collect(), goal.chars().collect());
        let diff = a.iter().zip(&b).filter(|(x, y)| x != y).count();
        (a.len().abs_diff(b.len()) + diff) as f64
    }

    fn string_probe(goal: &'static str, start: &str) -> impl FnMut(&str) -> Probe {
        let mut best = distance(start, goal);
        move |s: &str| {
            let r = judge(distance(s, goal), best);
            if r == Probe::Better {
                best = distance(s, goal);
            }
            r
        }
    }

    #[test]
    fn string_passes_delete_replace_and_insert_character_by_character() {
        let mut chars: Vec<char> = "abyz".chars().collect();
        let mut probe = string_probe("ab", "abyz");
        // Last to first: dropping 'z' (2 → 1) and then 'y' (→ 0) improve; 'b' and 'a' do not.
        assert!(delete_pass(&mut chars, &mut probe).improved);
        assert_eq!(chars.iter().collect::<String>(), "ab");

        let mut chars: Vec<char> = "zb".chars().collect();
        let mut probe = string_probe("ab", "zb");
        assert!(replace_pass(&mut chars, &mut probe).improved);
        assert_eq!(chars.iter().collect::<String>(), "ab");

        let mut chars: Vec<char> = Vec::new();
        let mut probe = string_probe("ab", "");
        assert!(insert_pass(&mut chars, &mut probe).improved);
        assert_eq!(chars.iter().collect::<String>(), "ab");
    }

    #[test]
    fn string_search_gives_up_on_strings_that_do_not_matter() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut calls = 0;
        let mut probe = |_: &str| {
            calls += 1;
            Probe::Same
        };
        assert_eq!(
            string_search("abc", 10, &mut rng, &mut probe),
            ("abc".into(), false)
        );
        assert_eq!(calls, 10);
    }
}
