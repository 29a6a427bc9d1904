//! Renders test cases as readable Rust: named variables, literals inline, regression assertions
//! on returned values, `#[should_panic]` for tests that end in a panic.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use frugal_search::{ExecResult, Look, Observation, Pass, Status, TestCase, Value};

use super::names::{snake, test_name, unique_by_inputs};
use crate::harness::op_expr::{Target, method_syntax, op_expr};
use crate::harness::registry::{Op, OpCode, Registry, StaticView, static_view};
use crate::harness::render::ty;
use crate::model::{ApiModel, CallableKind, Ty};

/// One test ready to be written: its name and its text.
#[derive(Debug, Clone)]
pub struct RenderedTest {
    /// The test fn's name.
    pub name: String,
    /// The test fn's source text.
    pub text: String,
    /// The module it must be compiled in (in-module placement).
    pub home: super::home::TestHome,
    /// It calls an `async fn`, through the file's `block_on` helper (`emit::executor`).
    pub executor: bool,
}

/// Longest `expected` string in `#[should_panic]`.
const EXPECTED_CHARS: usize = 80;

/// Renders one executed test. `names` holds the names taken so far in the file.
pub fn render_test(
    test: &TestCase,
    result: &ExecResult,
    reg: &Registry,
    model: &ApiModel,
    names: &mut BTreeSet<String>,
) -> RenderedTest {
    let r = Renderer::new(test, reg, model);
    let name = unique_by_inputs(test_name(test, result, reg, model), test, names);
    let mut body = String::new();
    // Imported for their methods only (`as _`): two traits of one name (a sealed `Sealed` in
    // each of two modules) would otherwise clash.
    for path in trait_imports(test, reg, model) {
        let _ = writeln!(body, "    use {path} as _;");
    }
    for i in 0..test.len() {
        r.statement(i, result, &mut body);
    }
    let mut text = String::from("#[test]\n");
    if let Status::Panicked { message, .. } = &result.status {
        match expected(message) {
            Some(e) => {
                let _ = writeln!(text, "#[should_panic(expected = {e:?})]");
            }
            None => text.push_str("#[should_panic]\n"),
        }
    }
    let _ = write!(text, "fn {name}() {{\n{body}}}\n");
    let executor = test
        .stmts
        .iter()
        .any(|s| match reg.ops[s.op as usize].code {
            OpCode::Call(c) => model.callables[c].asynchronous,
            _ => false,
        });
    RenderedTest {
        name,
        text,
        home: super::home::TestHome::Root,
        executor,
    }
}

/// The first line of a panic message, cut to a readable length on a char boundary.
fn expected(message: &str) -> Option<String> {
    let first = message.lines().next()?.trim();
    if first.is_empty() {
        return None;
    }
    Some(first.chars().take(EXPECTED_CHARS).collect())
}

struct Renderer<'a> {
    test: &'a TestCase,
    reg: &'a Registry,
    model: &'a ApiModel,
    /// Statement index -> variable name, for statements bound with `let`.
    vars: BTreeMap<usize, String>,
    /// Statements rendered inline at their single use.
    inline: BTreeSet<usize>,
    /// Variables some later statement borrows mutably.
    mutable: BTreeSet<usize>,
    /// Values whose type the call site infers (see [`typed_values`]), and whether even an
    /// `i32` must say so (a method receiver: `5.f()` is ambiguous).
    typed: BTreeMap<usize, bool>,
}

impl<'a> Renderer<'a> {
    fn new(test: &'a TestCase, reg: &'a Registry, model: &'a ApiModel) -> Self {
        let mut uses: BTreeMap<usize, Vec<Pass>> = BTreeMap::new();
        for s in &test.stmts {
            let op = &reg.ops[s.op as usize];
            for (k, &a) in s.args.iter().enumerate() {
                uses.entry(a as usize).or_default().push(param(op, k).1);
            }
        }
        let mut r = Renderer {
            test,
            reg,
            model,
            vars: BTreeMap::new(),
            inline: BTreeSet::new(),
            mutable: BTreeSet::new(),
            typed: typed_values(test, reg, model),
        };
        let mut taken: BTreeMap<String, usize> = BTreeMap::new();
        for (i, s) in test.stmts.iter().enumerate() {
            let op = &reg.ops[s.op as usize];
            let u = uses.get(&i).map(Vec::as_slice).unwrap_or(&[]);
            if u.iter().any(|p| p.is_mut()) {
                r.mutable.insert(i);
            }
            let pure = pure(op);
            let receiver = test
                .stmts
                .iter()
                .any(|t| is_receiver(&reg.ops[t.op as usize], &t.args, i, model));
            // A lent value must outlive the statement that borrows it: no temporaries.
            let lent = u.iter().any(|p| matches!(p, Pass::Lend | Pass::LendMut));
            if pure && u.len() == 1 && !u[0].is_mut() && !lent && !receiver {
                r.inline.insert(i);
            } else if op.ret.is_some() {
                let base = var_base(op.ret.as_ref().unwrap_or(&Ty::Unit), model);
                let n = taken.entry(base.clone()).or_insert(0);
                *n += 1;
                r.vars
                    .insert(i, if *n == 1 { base } else { format!("{base}_{n}") });
            }
        }
        r
    }

    fn statement(&self, i: usize, result: &ExecResult, out: &mut String) {
        if self.inline.contains(&i) {
            return;
        }
        let s = &self.test.stmts[i];
        let op = &self.reg.ops[s.op as usize];
        let expr = self.expr(i);
        // Assert only on what the crate computed, not on literals the test wrote itself.
        let summary = result
            .summaries
            .get(i)
            .cloned()
            .flatten()
            .filter(|sum| is_call(op) && !host_dependent(sum));
        let panics_here = matches!(result.status, Status::Panicked { .. })
            && i + 1 == self.test.len()
            && result.completed == i;
        let used_later = self.test.stmts[i + 1..]
            .iter()
            .any(|t| t.args.contains(&(i as u32)));
        // A value the test built and never used does nothing: `let _ = 18446744073709551615;`
        // would not even compile (an unsuffixed literal without a use is an `i32`).
        if pure(op) && !used_later {
            return;
        }
        // A result without `Debug` whose inspectors answered is kept to ask them.
        let inspected = result
            .observed
            .iter()
            .any(|o| o.stmt as usize == i && o.param == Observation::RESULT);
        // `items.to_smallvec()` names no `SmallVec<[i32; 4]>`: the let does.
        let annotated = match op.code {
            OpCode::Call(c) if self.model.callables[c].ret_annotated => op.ret.as_ref(),
            _ => None,
        };
        match (&self.vars.get(&i), op.ret_source.as_ref()) {
            (Some(v), _)
                if used_later
                    || annotated.is_some()
                    || (summary.is_some() || inspected) && !panics_here =>
            {
                let m = if self.mutable.contains(&i) {
                    "mut "
                } else {
                    ""
                };
                let ty = annotated.map_or(String::new(), |t| {
                    format!(": {}", ty(t, &self.model.crate_name))
                });
                let _ = writeln!(out, "    let {m}{v}{ty} = {expr};");
                if let (Some(sum), Some(t), false) = (summary, op.ret.as_ref(), panics_here) {
                    out.push_str(&assertion(v, t, &sum, self.model));
                }
            }
            (_, Some(t)) if !matches!(t, Ty::Unit) => {
                match summary.filter(|_| !panics_here && is_call(op)) {
                    Some(sum) => out.push_str(&assertion(&expr, t, &sum, self.model)),
                    None => {
                        let _ = writeln!(out, "    let _ = {expr};");
                    }
                }
            }
            _ => {
                let _ = writeln!(out, "    {expr};");
            }
        }
        self.state_assertions(i, result, out);
    }

    /// Whether statement `i` returned the very value it changed through parameter `k` (a
    /// chained setter's `-> &mut Self`), already asserted as its result.
    fn returned_itself(
        &self,
        i: usize,
        k: usize,
        o: &frugal_search::Observation,
        result: &ExecResult,
    ) -> bool {
        let op = &self.reg.ops[self.test.stmts[i].op as usize];
        let returns_ref_to_param = matches!(
            op.ret_source.as_ref(),
            Some(Ty::Ref { inner, .. }) if **inner == param(op, k).0
        );
        returns_ref_to_param
            && result.summaries.get(i).and_then(Option::as_deref) == Some(&o.summary)
    }

    /// Assertions on the state statement `i` left in the values it borrowed mutably, where no
    /// later statement changes them again: a call that changes its receiver (`clear`,
    /// `push`, `compact`) is checked by what it left behind, not only by what it returned.
    fn state_assertions(&self, i: usize, result: &ExecResult, out: &mut String) {
        let s = &self.test.stmts[i];
        let op = &self.reg.ops[s.op as usize];
        for o in result.observed.iter().filter(|o| o.stmt as usize == i) {
            if let Look::Inspector(n) = o.look {
                self.inspector_assertion(i, o, n, result, out);
                continue;
            }
            let k = o.param as usize;
            let Some(&a) = s.args.get(k) else { continue };
            let Some(var) = self.vars.get(&(a as usize)) else {
                continue;
            };
            let changed_later = self.test.stmts[i + 1..].iter().any(|t| {
                let later = &self.reg.ops[t.op as usize];
                t.args
                    .iter()
                    .enumerate()
                    .any(|(j, &b)| b == a && param(later, j).1.is_mut())
            });
            if changed_later || host_dependent(&o.summary) || self.returned_itself(i, k, o, result)
            {
                continue;
            }
            if o.look == Look::Items {
                // Only where the value's own `Debug` form does not already show them.
                let shown = result.observed.iter().any(|d| {
                    d.look == Look::Debug
                        && d.stmt == o.stmt
                        && d.param == o.param
                        && d.summary.contains(o.summary.trim_matches(['[', ']']))
                });
                if !shown {
                    let _ = writeln!(
                        out,
                        "    assert_eq!(format!(\"{{:?}}\", (&{var}).into_iter().collect::<Vec<_>>()), {:?});",
                        o.summary
                    );
                }
                continue;
            }
            out.push_str(&assertion(var, &param(op, k).0, &o.summary, self.model));
        }
    }

    /// The statement whose value observation `o` looked at: statement `o.stmt`'s argument
    /// there, or its own result.
    fn observed_value(&self, o: &Observation) -> Option<usize> {
        if o.param == Observation::RESULT {
            return Some(o.stmt as usize);
        }
        let s = self.test.stmts.get(o.stmt as usize)?;
        s.args.get(o.param as usize).map(|&a| a as usize)
    }

    /// `assert_eq!(v.len(), 3)`: what inspector `n` of a value without a `Debug` form of its
    /// own returned after statement `i`, when no later statement changes the value and the
    /// inspector's answer changed since it was last asserted (a test reads as what each call
    /// did, not as every getter after every call).
    fn inspector_assertion(
        &self,
        i: usize,
        o: &Observation,
        n: u8,
        result: &ExecResult,
        out: &mut String,
    ) {
        let Some(value) = self.observed_value(o) else {
            return;
        };
        let Some(var) = self.vars.get(&value) else {
            return;
        };
        let op = &self.reg.ops[self.test.stmts[i].op as usize];
        let ty = if o.param == Observation::RESULT {
            op.ret.as_ref()
        } else {
            op.params.get(o.param as usize).map(|(t, _, _)| t)
        };
        let Some(ty) = ty else { return };
        let Some(&inspector) = self.reg.inspectors(self.model, ty).get(n as usize) else {
            return;
        };
        let (OpCode::Call(c), Some(ret)) = (
            &self.reg.ops[inspector].code,
            &self.reg.ops[inspector].ret_source,
        ) else {
            return;
        };
        let debug_shown = result
            .observed
            .iter()
            .any(|d| d.stmt == o.stmt && d.param == o.param && d.look == Look::Debug);
        let changed_later = self.test.stmts[i + 1..].iter().any(|t| {
            let later = &self.reg.ops[t.op as usize];
            t.args
                .iter()
                .enumerate()
                .any(|(j, &b)| b as usize == value && param(later, j).1.is_mut())
        });
        let last = result.observed.iter().rfind(|p| {
            (p.stmt as usize) < i && p.look == o.look && self.observed_value(p) == Some(value)
        });
        // The test calls it itself later and asserts what it returns.
        let called_later = self.test.stmts[i + 1..]
            .iter()
            .any(|t| t.op as usize == inspector && t.args.first() == Some(&(value as u32)));
        if debug_shown
            || changed_later
            || called_later
            || host_dependent(&o.summary)
            || last.is_some_and(|p| p.summary == o.summary)
        {
            return;
        }
        let name = &self.model.callables[*c].name;
        out.push_str(&assertion(
            &format!("{var}.{name}()"),
            ret,
            &o.summary,
            self.model,
        ));
    }

    /// The expression of statement `i`.
    fn expr(&self, i: usize) -> String {
        let s = &self.test.stmts[i];
        let op = &self.reg.ops[s.op as usize];
        let args: Vec<String> = s
            .args
            .iter()
            .enumerate()
            .map(|(k, &a)| self.arg(op, k, a as usize))
            .collect();
        op_expr(op, self.model, &args, &Stmt { r: self, i })
    }

    /// Whether `op` calls a std trait's function whose argument picks the impl.
    fn exact_args(&self, op: &Op) -> bool {
        matches!(op.code, OpCode::Call(c) if self.model.callables[c].exact_args)
    }

    fn receiver(&self, a: usize) -> String {
        self.vars
            .get(&a)
            .cloned()
            .unwrap_or_else(|| format!("({})", self.expr(a)))
    }

    /// Argument `k` of `op`, bound to statement `a`, with the borrow the parameter needs.
    fn arg(&self, op: &Op, k: usize, a: usize) -> String {
        let (_, pass, source) = param(op, k);
        let value = match self.vars.get(&a) {
            Some(v) => v.clone(),
            None => self.expr(a),
        };
        let inline_str = self.inline.contains(&a)
            && matches!(
                self.reg.ops[self.test.stmts[a].op as usize].code,
                OpCode::Literal(Ty::String)
            );
        let wants_str = matches!(source, Ty::Ref { ref inner, .. } if matches!(**inner, Ty::Str));
        let wants_slice = matches!(source, Ty::Ref { mutable: false, ref inner } if matches!(**inner, Ty::Slice(_)));
        match pass {
            Pass::Move => value,
            Pass::Ref if crate::harness::registry::slice_reader(&source).is_some() => {
                format!("&mut &{value}[..]")
            }
            Pass::Ref if let Some(view) = crate::harness::registry::elem_view(&source) => {
                elem_view_arg(&value, &view)
            }
            Pass::Ref | Pass::Lend
                if let Some(view) = crate::harness::registry::option_view(&source) =>
            {
                format!("{value}{view}")
            }
            // A `&&str` parameter takes a borrowed literal, or a string's view.
            Pass::Ref if crate::harness::registry::str_ref_ref(&source) => {
                if inline_str {
                    format!(
                        "&{}",
                        literal(&Ty::String, self.test.stmts[a].value.as_ref())
                    )
                } else {
                    format!("&{value}.as_str()")
                }
            }
            // A `&'static str` takes the literal itself, a `&'static [u8]` or a string the
            // test computed a leaked copy: a borrow of a local would not live long enough.
            Pass::Ref if let Some(leak) = static_view(op, k, self.model) => {
                let literal_str = matches!(
                    self.reg.ops[self.test.stmts[a].op as usize].code,
                    OpCode::Literal(Ty::String)
                );
                // A variable stays usable; an expression written in place is leaked itself.
                let owned = if self.vars.contains_key(&a) {
                    format!("{value}.clone()")
                } else {
                    value
                };
                match leak {
                    StaticView::Str if literal_str => {
                        literal(&Ty::String, self.test.stmts[a].value.as_ref())
                    }
                    StaticView::Str => format!("Box::leak({owned}.into_boxed_str())"),
                    StaticView::Bytes => format!("Box::leak({owned}.into_boxed_slice())"),
                }
            }
            // A `&str` parameter takes the bare literal.
            Pass::Ref if inline_str && wants_str => {
                literal(&Ty::String, self.test.stmts[a].value.as_ref())
            }
            // A full-range index, not `&v`: a generic parameter instantiated with `&[T]`
            // would infer `&Vec<T>` and miss its bound.
            Pass::Ref | Pass::Lend if wants_slice => format!("&{value}[..]"),
            // Likewise a trait's `&str` (`impl From<&str> for Name`): `Name::from(&text)`
            // looks for `From<&String>`.
            Pass::Ref | Pass::Lend if wants_str && self.exact_args(op) => {
                format!("{value}.as_str()")
            }
            Pass::Ref | Pass::Lend => format!("&{value}"),
            Pass::Mut | Pass::LendMut => format!("&mut {value}"),
        }
    }
}

/// The emitted-test side of statement `i`: operands are variables or inline expressions,
/// literals are written out, and std is named as people write it.
struct Stmt<'r, 'a> {
    r: &'r Renderer<'a>,
    i: usize,
}

impl Target for Stmt<'_, '_> {
    /// `std::..` without the leading `::`: in-crate tests of a `no_std` crate name std through
    /// their module's own `extern crate std;` (`emit::STD_IN_MODULE`), not the extern prelude.
    fn path(&self, path: &str) -> String {
        match path.strip_prefix("::") {
            Some(rest) if rest.starts_with("std::") => rest.to_string(),
            _ => path.to_string(),
        }
    }
    fn ty(&self, t: &Ty) -> String {
        ty(t, &self.r.model.crate_name)
    }
    fn literal(&self, t: &Ty) -> String {
        let value = self.r.test.stmts[self.i].value.as_ref();
        match t {
            Ty::String => format!("String::from({})", literal(&Ty::String, value)),
            // The harness used this type; inference alone would pick `i32`.
            Ty::Prim(p)
                if self
                    .r
                    .typed
                    .get(&self.i)
                    .is_some_and(|&strict| strict || p != "i32") =>
            {
                match (literal(t, value), value) {
                    (text, Some(Value::Int(_))) if !text.ends_with(p.as_str()) => {
                        format!("{text}{p}")
                    }
                    (text, _) => text,
                }
            }
            t => literal(t, value),
        }
    }
    fn vec_of(&self, t: &Ty, args: &[String]) -> String {
        if args.is_empty() && self.r.typed.contains_key(&self.i) {
            return format!("Vec::<{}>::new()", self.ty(t));
        }
        format!("vec![{}]", args.join(", "))
    }
    fn subject(&self, k: usize) -> String {
        self.r.receiver(self.r.test.stmts[self.i].args[k] as usize)
    }
    fn place(&self) -> String {
        // A `let mut` variable, assigned to directly.
        self.subject(0)
    }
    fn readable(&self) -> bool {
        true
    }
}

/// Statements whose value reaches a parameter typed by a generic stand-in (directly, or as an
/// element of a `Vec` or `Option` that does): their literals carry a suffix and their empty
/// `Vec`s a type, since the call site would otherwise infer `i32` or nothing.
fn typed_values(test: &TestCase, reg: &Registry, model: &ApiModel) -> BTreeMap<usize, bool> {
    let mut typed = BTreeMap::new();
    for (j, s) in test.stmts.iter().enumerate().rev() {
        let op = &reg.ops[s.op as usize];
        // A std value built from operands (`items.into_iter()`, the stand-in of an iterator
        // bound) infers nothing more than its operands say: `vec![].into_iter()` needs a type.
        let passes = matches!(
            op.code,
            OpCode::VecOf(_) | OpCode::Some(_) | OpCode::StdValue { .. }
        );
        let passed = typed.get(&j).copied().filter(|_| passes);
        for (k, &a) in s.args.iter().enumerate() {
            if let Some(strict) = passed.or_else(|| inferred_operand(op, k, model)) {
                let e = typed.entry(a as usize).or_insert(strict);
                *e |= strict;
            }
        }
    }
    typed
}

/// Whether operand `k` of `op` has a type the call infers: a parameter typed by a generic
/// stand-in or picking a std trait's impl (`Some(false)`), or the receiver of a crate trait's
/// method (`Some(true)`).
fn inferred_operand(op: &Op, k: usize, model: &ApiModel) -> Option<bool> {
    let OpCode::Call(c) = op.code else {
        return None;
    };
    let c = &model.callables[c];
    let k = match c.kind {
        CallableKind::Method { .. } if k == 0 => return crate_trait(c).then_some(true),
        CallableKind::Method { .. } => k - 1,
        _ => k,
    };
    // An argument that picks the impl (`HeaderValue::from(n)` of `From<i64>` beside
    // `From<i32>`) is inferred from the literal unless it says its type.
    c.params
        .get(k)
        .is_some_and(|p| p.inferred || c.exact_args)
        .then_some(false)
}

/// A method of one of the crate's traits, or of a std trait in no prelude (`io::Read`,
/// `io::Write`, `fmt::Write`, `ops::Index`, `ops::Deref`), that tests call by method syntax,
/// with the trait imported.
fn crate_trait(c: &crate::model::Callable) -> bool {
    matches!(c.kind, CallableKind::Method { .. })
        && method_syntax(c)
        && c.via_trait.as_deref().is_some_and(|t| {
            !t.starts_with("::")
                || t.starts_with("::std::io::")
                || t.starts_with("::std::ops::")
                || t == "::std::fmt::Write"
        })
}

/// The crate traits whose methods a test calls, to import in its body.
fn trait_imports(test: &TestCase, reg: &Registry, model: &ApiModel) -> BTreeSet<String> {
    test.stmts
        .iter()
        .filter_map(|s| match reg.ops[s.op as usize].code {
            OpCode::Call(c) => Some(&model.callables[c]),
            _ => None,
        })
        .filter(|c| crate_trait(c))
        .filter_map(|c| c.via_trait.as_deref())
        // Imported by name, without the arguments calls leave to inference.
        .map(|t| t.split('<').next().unwrap_or(t).to_string())
        .collect()
}

/// A value the test builds itself, with no effect of its own: a literal, a collection or
/// variant of other values, a struct literal, a std or crate value.
fn pure(op: &Op) -> bool {
    matches!(
        op.code,
        OpCode::Literal(_)
            | OpCode::VecOf(_)
            | OpCode::Some(_)
            | OpCode::None(_)
            | OpCode::StructLit { .. }
            | OpCode::Variant { .. }
            | OpCode::StdValue { .. }
            | OpCode::CrateValue { .. }
    )
}

fn is_call(op: &Op) -> bool {
    matches!(
        op.code,
        OpCode::Call(_)
            | OpCode::Display(_)
            | OpCode::DisplayPadded(_)
            | OpCode::DebugFmt(_)
            | OpCode::HashOf(_)
    )
}

fn is_receiver(op: &Op, args: &[u32], i: usize, model: &ApiModel) -> bool {
    match op.code {
        OpCode::Call(c) => {
            matches!(model.callables[c].kind, CallableKind::Method { .. })
                && args.first() == Some(&(i as u32))
        }
        _ => false,
    }
}

/// Parameter `k` of an op; variadic collections repeat their one parameter.
fn param(op: &Op, k: usize) -> (Ty, Pass, Ty) {
    let i = if matches!(op.code, OpCode::VecOf(_)) {
        0
    } else {
        k
    };
    op.params[i].clone()
}

/// Whether a value's `Debug` form depends on the host, not on the test: an allocation the host
/// refused (the search runs under an address-space limit, so `try_reserve(n)` fails there for
/// sizes a test run without one grants: indexmap's `IndexSet::try_reserve`, found failing
/// under cargo-llvm-cov), or a heap address (fixedbitset's `FixedBitSet { data:
/// 0x7f9fb4006920, .. }`, which differs in every run). The call stays in the test; its result
/// is neither asserted nor named.
pub(super) fn host_dependent(summary: &str) -> bool {
    summary.contains("AllocError") || shows_address(summary)
}

/// Whether `text` holds `0x` and at least [`ADDRESS_DIGITS`] hex digits: a pointer's `Debug`
/// form. A 32-bit value written in hex has at most 8.
fn shows_address(text: &str) -> bool {
    text.match_indices("0x").any(|(i, _)| {
        text[i + 2..]
            .bytes()
            .take_while(u8::is_ascii_hexdigit)
            .count()
            >= ADDRESS_DIGITS
    })
}

/// Hex digits from which a number is taken for an address: user-space addresses of 64-bit
/// hosts have 12 (`0x55d4c2a3b000`, `0x7f9fb4006920`).
const ADDRESS_DIGITS: usize = 10;

/// A literal as Rust source.
pub fn literal(t: &Ty, v: Option<&Value>) -> String {
    match (t, v) {
        (Ty::Prim(p), Some(Value::Float(f))) => float_literal(*f, p),
        (Ty::Prim(p), Some(Value::Int(i))) if p == "i128" || p == "u128" => format!("{i}{p}"),
        (_, Some(Value::Int(i))) => i.to_string(),
        (_, Some(Value::Bool(b))) => b.to_string(),
        (_, Some(Value::Char(c))) => format!("{c:?}"),
        (_, Some(Value::Str(s))) => format!("{s:?}"),
        _ => "Default::default()".into(),
    }
}

fn float_literal(f: f64, p: &str) -> String {
    // The value as the type holds it: an `f64` beyond `f32`'s range is an `f32` infinity.
    let f = if p == "f32" { f as f32 as f64 } else { f };
    if f.is_nan() {
        return format!("{p}::NAN");
    }
    if f.is_infinite() {
        return format!("{p}::{}", if f > 0.0 { "INFINITY" } else { "NEG_INFINITY" });
    }
    let s = if p == "f32" {
        format!("{:?}", f as f32)
    } else {
        format!("{f:?}")
    };
    format!("{s}{p}")
}

/// A regression assertion on `expr`, whose type is `t` and whose `Debug` form was `summary`.
fn assertion(expr: &str, t: &Ty, summary: &str, model: &ApiModel) -> String {
    match t {
        Ty::Prim(p) if p == "f32" || p == "f64" => match summary {
            "NaN" => format!("    assert!({expr}.is_nan());\n"),
            "inf" => format!("    assert_eq!({expr}, {p}::INFINITY);\n"),
            "-inf" => format!("    assert_eq!({expr}, {p}::NEG_INFINITY);\n"),
            s if exact_float(s) => format!("    assert_eq!({expr}, {s}{p});\n"),
            // A long fraction is usually computed (a division, a root): another libm or
            // target may round its last digit differently.
            s => {
                let tol = if p == "f32" { "1e-5" } else { "1e-12" };
                format!(
                    "    assert!(({expr} - {s}{p}).abs() <= {tol} * ({s}{p}).abs().max(1.0), \"{{}}\", {expr});\n"
                )
            }
        },
        Ty::Prim(_) | Ty::String => format!("    assert_eq!({expr}, {summary});\n"),
        Ty::Ref { inner, .. } if matches!(**inner, Ty::Str) => {
            format!("    assert_eq!({expr}, {summary});\n")
        }
        Ty::Vec(_) if summary == "[]" => format!("    assert!({expr}.is_empty());\n"),
        _ => match super::expected::expression(t, summary, model) {
            Some(want) => format!("    assert_eq!({expr}, {want});\n"),
            None => format!("    assert_eq!(format!(\"{{:?}}\", {expr}), {summary:?});\n"),
        },
    }
}

/// Whether a float's `Debug` form has few enough significant digits to be exact wherever the
/// test runs (`0.5`, `1250.0`, `1e20`), rather than the rounding of a computation.
fn exact_float(debug: &str) -> bool {
    let mantissa = debug.split(['e', 'E']).next().unwrap_or(debug);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let significant = digits.trim_start_matches('0').trim_end_matches('0');
    significant.len() <= 7
}

pub(super) fn var_base(t: &Ty, model: &ApiModel) -> String {
    let _ = model;
    match t {
        Ty::Prim(p) if p == "bool" => "flag".into(),
        Ty::Prim(p) if p == "char" => "ch".into(),
        Ty::Prim(p) if p.starts_with('f') => "x".into(),
        Ty::Prim(_) => "n".into(),
        Ty::String => "text".into(),
        Ty::Vec(_) => "items".into(),
        Ty::Option(_) => "maybe".into(),
        Ty::Result(..) => "result".into(),
        Ty::Tuple(_) => "pair".into(),
        // `Box<Slice>` is a slice to the reader, as `Rc<Node>` is a node.
        Ty::Adt { path, args } if crate::harness::std_values::pointer(path) && !args.is_empty() => {
            var_base(&args[0], model)
        }
        Ty::Adt { path, .. } => snake(path.rsplit("::").next().unwrap_or("value")),
        Ty::Ref { inner, .. } => var_base(inner, model),
        _ => "value".into(),
    }
}

/// A `&[&str]` or `Vec<&str>` argument as literals where the pooled value is `vec![String::from
/// ("a"), ...]` (`&["a"]`, `vec!["a"]`), else the views of its elements.
fn elem_view_arg(value: &str, view: &crate::harness::registry::ElemView) -> String {
    // `vec![]` of any element: no views to make, and `&[]` infers.
    let literals = (view.view == "String::as_str" || value == "vec![]")
        .then(|| str_literals(value))
        .flatten();
    match (literals, view.borrowed) {
        (Some(items), true) => format!("&[{}]", items.join(", ")),
        (Some(items), false) => format!("vec![{}]", items.join(", ")),
        (None, true) => format!("&{value}.iter().map({}).collect::<Vec<_>>()", view.view),
        (None, false) => format!("{value}.iter().map({}).collect::<Vec<_>>()", view.view),
    }
}

/// The string literals of `vec![String::from("a"), String::from("b")]`, as written.
fn str_literals(value: &str) -> Option<Vec<&str>> {
    let mut rest = value.strip_prefix("vec![")?.strip_suffix(']')?;
    let mut items = Vec::new();
    while !rest.is_empty() {
        let after = rest.strip_prefix("String::from(\"")?;
        // The literal's closing quote: the first `"` not escaped.
        let mut escaped = false;
        let end = after.char_indices().find_map(|(i, c)| {
            let close = c == '"' && !escaped;
            escaped = c == '\\' && !escaped;
            close.then_some(i)
        })?;
        items.push(&rest["String::from(".len()..="String::from(\"".len() + end]);
        rest = after[end + 1..].strip_prefix(')')?;
        rest = rest.strip_prefix(", ").unwrap_or(rest);
    }
    Some(items)
}

#[cfg(test)]
mod tests {
    /// A heap address in a `Debug` form is the host's: no assertion is written on it. Hex
    /// values of 32 bits or fewer are the test's.
    #[test]
    fn debug_forms_showing_a_heap_address_are_host_dependent() {
        assert!(super::host_dependent(
            "FixedBitSet { data: 0x7f9fb4006920, capacity: 1, length: 64 }"
        ));
        assert!(super::host_dependent("Err(AllocError { layout: .. })"));
        assert!(!super::host_dependent(
            "FixedBitSet { data: 0x10, capacity: 0, length: 0 }"
        ));
        assert!(!super::host_dependent("Color(0xdeadbeef)"));
        assert!(!super::host_dependent("0x"));
    }

    #[test]
    fn variables_are_named_for_what_a_pointer_holds_and_never_a_keyword() {
        use crate::model::{ApiModel, Ty};
        let adt = |path: &str, args: Vec<Ty>| Ty::Adt {
            path: path.into(),
            args,
        };
        let model = ApiModel::default();
        let slice = adt("indexmap::map::Slice", vec![Ty::Prim("i32".into())]);
        let boxed = adt("std::boxed::Box", vec![slice]);
        assert_eq!(super::var_base(&boxed, &model), "slice");
        assert_eq!(super::var_base(&adt("k::Match", vec![]), &model), "match_");
        assert_eq!(super::var_base(&adt("k::Type", vec![]), &model), "type_");
        assert_eq!(super::var_base(&adt("k::Box", vec![]), &model), "box_");
        assert_eq!(super::var_base(&adt("k::Token", vec![]), &model), "token");
    }

    #[test]
    fn str_slices_from_literal_vecs_are_written_as_arrays() {
        use crate::harness::registry::elem_view;
        use crate::model::Ty;
        let str_ref = Ty::Ref {
            mutable: false,
            inner: Box::new(Ty::Str),
        };
        let slice_of = |t: Ty| Ty::Ref {
            mutable: false,
            inner: Box::new(Ty::Slice(Box::new(t))),
        };
        let strs = elem_view(&slice_of(str_ref.clone())).expect("&[&str]");
        let str_slice_arg = |v: &str| super::elem_view_arg(v, &strs);
        assert_eq!(
            str_slice_arg(r#"vec![String::from("a\"b"), String::from("")]"#),
            r#"&["a\"b", ""]"#
        );
        assert_eq!(str_slice_arg("vec![]"), "&[]");
        assert_eq!(
            str_slice_arg("v"),
            "&v.iter().map(String::as_str).collect::<Vec<_>>()"
        );
        let owned = elem_view(&Ty::Vec(Box::new(str_ref))).expect("Vec<&str>");
        assert_eq!(
            super::elem_view_arg(r#"vec![String::from("a")]"#, &owned),
            r#"vec!["a"]"#
        );
        let bytes = elem_view(&slice_of(slice_of(Ty::Prim("u8".into())))).expect("&[&[u8]]");
        assert_eq!(
            super::elem_view_arg("v", &bytes),
            "&v.iter().map(Vec::as_slice).collect::<Vec<_>>()"
        );
        assert_eq!(super::elem_view_arg("vec![]", &bytes), "&[]");
    }
    use super::super::names::{outcome_word, unique, value_words};
    use super::*;

    #[test]
    fn literals_are_written_as_their_type_holds_them() {
        let f32_ty = Ty::Prim("f32".into());
        assert_eq!(literal(&f32_ty, Some(&Value::Float(1e40))), "f32::INFINITY");
        assert_eq!(
            literal(&f32_ty, Some(&Value::Float(-1e300))),
            "f32::NEG_INFINITY"
        );
        assert_eq!(literal(&f32_ty, Some(&Value::Float(1.5))), "1.5f32");
        let u128_ty = Ty::Prim("u128".into());
        assert_eq!(
            literal(&u128_ty, Some(&Value::Int(i128::MAX))),
            "170141183460469231731687303715884105727u128"
        );
    }

    #[test]
    fn names_are_snake_case_and_unique() {
        assert_eq!(snake("BoundedStack"), "bounded_stack");
        assert_eq!(snake("Type"), "type_");
        let mut taken = BTreeSet::new();
        assert_eq!(unique("push".into(), &mut taken), "push");
        assert_eq!(unique("push".into(), &mut taken), "push_2");
        // A taken name says which input differs; a number only when no literal is free.
        let lit = |v: Value| TestCase {
            stmts: vec![frugal_search::Stmt {
                op: 0,
                args: vec![],
                value: Some(v),
            }],
        };
        let mut taken = BTreeSet::new();
        let seven = lit(Value::Int(-7));
        assert_eq!(unique_by_inputs("pop".into(), &seven, &mut taken), "pop");
        assert_eq!(
            unique_by_inputs("pop".into(), &seven, &mut taken),
            "pop_with_minus_7"
        );
        assert_eq!(unique_by_inputs("pop".into(), &seven, &mut taken), "pop_2");
        let text = lit(Value::Str("Max len".into()));
        assert_eq!(
            unique_by_inputs("pop".into(), &text, &mut taken),
            "pop_with_max_len"
        );
        let symbols = lit(Value::Str("$%".into()));
        assert_eq!(
            unique_by_inputs("pop".into(), &symbols, &mut taken),
            "pop_3"
        );
        assert_eq!(
            value_words(&Value::Float(-1.5)).as_deref(),
            Some("minus_1_5")
        );
        assert_eq!(
            value_words(&Value::Str(String::new())).as_deref(),
            Some("empty")
        );
        assert_eq!(outcome_word("Err(BadNumber)"), "returns_err_bad_number");
        assert_eq!(outcome_word("Err(\"x\")"), "returns_err");
        assert_eq!(outcome_word("Isosceles"), "returns_isosceles");
        assert_eq!(outcome_word("42"), "returns_42");
        assert_eq!(outcome_word("-7"), "returns_negative");
        assert_eq!(outcome_word("12345678"), "");
        assert_eq!(outcome_word("[]"), "returns_empty");
        assert_eq!(outcome_word("\"0 B\""), "returns_0_b");
        assert_eq!(outcome_word("\"a\\nb\""), "");
        assert_eq!(outcome_word("[1, 2]"), "");
        assert!(exact_float("0.5") && exact_float("-1250.0") && exact_float("1e20"));
        assert!(!exact_float("968661.4714749535") && !exact_float("0.30000000000000004"));
    }

    /// A value the test built and never used is not written: an unsuffixed literal without a
    /// use is an `i32`, and `let _ = 18446744073709551615;` would not compile.
    #[test]
    fn values_built_and_never_used_are_left_out() {
        use crate::model::{Callable, Param};
        let u64_ty = Ty::Prim("u64".into());
        let model = ApiModel {
            crate_name: "k".into(),
            callables: vec![Callable {
                params: vec![Param {
                    name: "n".into(),
                    ty: u64_ty.clone(),
                    inferred: false,
                    static_ref: false,
                    closure: None,
                }],
                ret: Some(u64_ty.clone()),
                ..Callable::free("k::id", "src/lib.rs", 1)
            }],
            ..ApiModel::default()
        };
        let reg = Registry::build(&model);
        let op = |code: &OpCode| reg.ops.iter().position(|o| &o.code == code).expect("op") as u32;
        let (lit, call) = (op(&OpCode::Literal(u64_ty)), op(&OpCode::Call(0)));
        let stmt =
            |op: u32, args: Vec<u32>, value: Option<Value>| frugal_search::Stmt { op, args, value };
        let test = TestCase {
            stmts: vec![
                stmt(lit, vec![], Some(Value::Int(u64::MAX as i128))),
                stmt(lit, vec![], Some(Value::Int(3))),
                stmt(call, vec![1], None),
            ],
        };
        let result = ExecResult {
            status: Status::Completed,
            completed: 3,
            goals: Vec::new(),
            summaries: vec![None, None, Some("3".into())],
            observed: Vec::new(),
            counters: Default::default(),
            seen: Vec::new(),
        };
        let text = render_test(&test, &result, &reg, &model, &mut BTreeSet::new()).text;
        assert!(!text.contains("18446744073709551615"), "{text}");
        assert!(text.contains("k::id(") && text.contains("3"), "{text}");
    }

    #[test]
    fn a_negative_inexact_float_gets_a_positive_tolerance() {
        let model = ApiModel::default();
        let f32_ty = Ty::Prim("f32".into());
        // `-1.7963177e38f32.abs()` is `-(1.79e38.abs())`: a negative bound that nothing meets
        // (byteorder's `read_f32` tests all failed against the real crate).
        assert_eq!(
            assertion("x", &f32_ty, "-1.7963177e38", &model),
            "    assert!((x - -1.7963177e38f32).abs() <= 1e-5 * (-1.7963177e38f32).abs().max(1.0), \"{}\", x);\n"
        );
    }

    #[test]
    fn literals_render_as_valid_rust() {
        assert_eq!(
            literal(&Ty::String, Some(&Value::Str("a\"b\n".into()))),
            "\"a\\\"b\\n\""
        );
        assert_eq!(
            literal(&Ty::Prim("f64".into()), Some(&Value::Float(1.0))),
            "1.0f64"
        );
        assert_eq!(
            literal(&Ty::Prim("f64".into()), Some(&Value::Float(f64::NAN))),
            "f64::NAN"
        );
        assert_eq!(
            literal(&Ty::Prim("char".into()), Some(&Value::Char('\''))),
            "'\\''"
        );
        assert_eq!(
            literal(&Ty::Prim("i8".into()), Some(&Value::Int(-128))),
            "-128"
        );
    }

    #[test]
    fn should_panic_expectations_are_first_lines() {
        assert_eq!(expected("boom\nmore"), Some("boom".into()));
        assert_eq!(expected(""), None);
        assert_eq!(
            expected(&"é".repeat(200)).map(|s| s.chars().count()),
            Some(EXPECTED_CHARS)
        );
    }
}
