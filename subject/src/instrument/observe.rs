//! Call-site observers (testability transformations, \[testability\]): a known flag call of
//! std (`s.starts_with(p)`, `s.parse::<u32>()`, `map.contains_key(k)`, `u8::try_from(x)`, ...)
//! gets two branch goals (true/false, `Some`/`None` or `Ok`/`Err`) under the current
//! control-dependency parent, and is rewritten to
//!
//! ```text
//! ({ use ..; match (&(RECV), ARG) { (__frugal_or, __frugal_oa) => {
//!     let __frugal_od = if on() { (&&&Obs2(__frugal_or, &__frugal_oa)).d_NAME() } else { None };
//!     let __frugal_ov = __frugal_or.NAME(__frugal_oa);
//!     site(T, F, __frugal_od, (&&Out(&__frugal_ov)).went()); __frugal_ov } } })
//! ```
//!
//! The receiver and argument are evaluated once, in their order; the original method computes
//! the result (autoderef through `&RECV` finds the same `&self` method); `match` keeps the
//! receiver's temporaries alive as the original expression does (see `cond.rs`). The distance
//! is measured before the call, while the argument is still there to borrow, so arguments
//! need not be `Copy`. The probe picks the distance by type (`frugal_probe::observe`), so a
//! user type with its own `contains` compiles and gets a flag; a site that still does not
//! type-check (a method taking `self` by value on a non-`Copy` receiver) costs its fn, like any
//! probe, through the build-and-retry loop. Newlines inside the rewritten call are kept, so the
//! copy's lines stay the user's.

use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Expr, ExprCall, ExprMethodCall};

use super::syntax::line;
use super::visit::FileInstrumenter;

/// What a call returns, naming its two goals.
#[derive(Clone, Copy)]
enum Shape {
    Bool,
    Option,
    Result,
}

impl Shape {
    fn labels(self) -> (&'static str, &'static str) {
        match self {
            Shape::Bool => ("true", "false"),
            Shape::Option => ("some", "none"),
            Shape::Result => ("ok", "err"),
        }
    }
}

/// How the probe measures a known method.
#[derive(Clone, Copy)]
enum Measure {
    /// `(&&&Obs2(r, &a)).d_NAME()`.
    Arg,
    /// `(&&&Obs1(r)).d_NAME()`.
    Recv,
    /// `(&&&Obs1(r)).d_ascii("NAME")`.
    Ascii,
    /// `parsed(.., (&&&Obs1(r)).d_text(), &v)`.
    Parse,
}

/// The known flag methods: name, argument count, result shape, measure.
fn known(name: &str, args: usize) -> Option<(Shape, Measure)> {
    Some(match (name, args) {
        ("starts_with" | "ends_with" | "contains" | "eq_ignore_ascii_case" | "contains_key", 1) => {
            (Shape::Bool, Measure::Arg)
        }
        (
            "strip_prefix" | "strip_suffix" | "find" | "rfind" | "split_once" | "rsplit_once"
            | "get" | "to_digit",
            1,
        ) => (Shape::Option, Measure::Arg),
        ("is_empty", 0) => (Shape::Bool, Measure::Recv),
        ("parse", 0) => (Shape::Result, Measure::Parse),
        (
            "is_ascii_digit"
            | "is_ascii_alphabetic"
            | "is_ascii_alphanumeric"
            | "is_ascii_uppercase"
            | "is_ascii_lowercase"
            | "is_ascii_hexdigit"
            | "is_ascii_whitespace"
            | "is_ascii_punctuation"
            | "is_ascii_graphic"
            | "is_ascii_control",
            0,
        ) => (Shape::Bool, Measure::Ascii),
        _ => return None,
    })
}

const USES2: &str = "use ::frugal_probe::observe::{TextFlags as _, CollFlags as _, \
                     DigitFlags as _, Fallback2 as _, Went as _};";
const USES1: &str = "use ::frugal_probe::observe::{TextFlags1 as _, ScalarFlags1 as _, \
                     CharFlags1 as _, CollFlags1 as _, Fallback1 as _, Went as _};";

impl FileInstrumenter<'_> {
    /// A known flag method call: numbers its goals, rewrites it, visits its operands. False
    /// when it is not one (the caller visits it as usual).
    pub(super) fn observed_method(&mut self, e: &ExprMethodCall) -> bool {
        let Some((shape, measure)) = known(&e.method.to_string(), e.args.len()) else {
            return false;
        };
        if !self.observers || !self.active() || !e.attrs.is_empty() {
            return false;
        }
        let name = e.method.to_string();
        if matches!(name.as_str(), "find" | "rfind")
            && matches!(e.args.first(), Some(Expr::Closure(_)))
        {
            // `Iterator::find` takes `&mut self`, which a borrowed receiver cannot give; a
            // closure pattern of `str::find` has no distance anyway.
            return false;
        }
        let (t, f) = self.site_goals(line(e.method.span()), &name, shape);
        let call = self.range(e);
        let leaf = match self.cond_leaf.take() {
            Some((node, goals)) if node == call => Some(goals),
            _ => None,
        };
        let record = |t, f| record(t, f, leaf);
        let recv = self.range(&*e.receiver);
        let turbofish = e
            .turbofish
            .as_ref()
            .map(|g| collapse(self.source(self.range(g))))
            .unwrap_or_default();
        // A place receiver (`self.map`, `it`) is named again for the call rather than called
        // through the shared borrow: a method taking `&mut self` (`Iterator::find`, a crate's
        // own `get`) still compiles, and naming a place twice evaluates nothing twice.
        let callee = if simple_place(&e.receiver) {
            collapse(self.source(recv))
        } else {
            "__frugal_or".to_string()
        };
        let invoke = format!("{callee}.{name}{turbofish}");
        // Parenthesised: a block would end a statement (`x.parse::<u8>().unwrap();`) or the
        // initialiser of a `let .. else`, which may not end with `}`.
        self.open(call, format!("({{ {} match (&(", uses(measure)));
        match e.args.first() {
            Some(arg) => {
                let arg = self.range(arg);
                let head = format!("), {}", self.newlines(recv.1, arg.0));
                self.replace((recv.1, arg.0), call, &head);
                let tail = format!(
                    "{}) {{ (__frugal_or, __frugal_oa) => {{ let __frugal_od = \
                     if ::frugal_probe::observe::on() {{ (&&&::frugal_probe::observe::Obs2(\
                     __frugal_or, &__frugal_oa)).d_{name}() }} else {{ None }}; \
                     let __frugal_ov = {invoke}(__frugal_oa); {} __frugal_ov }} }} }})",
                    self.newlines(arg.1, call.1),
                    record(t, f)
                );
                self.replace((arg.1, call.1), call, &tail);
            }
            None => {
                let obs = "(&&&::frugal_probe::observe::Obs1(__frugal_or))";
                let (before, after) = match measure {
                    Measure::Parse => (
                        String::new(),
                        format!(
                            "::frugal_probe::observe::parsed({t}, {f}, {obs}.d_text(), \
                             &__frugal_ov);"
                        ),
                    ),
                    Measure::Ascii => (
                        measured(&format!("{obs}.d_ascii(\"{name}\")")),
                        record(t, f),
                    ),
                    Measure::Recv | Measure::Arg => {
                        (measured(&format!("{obs}.d_{name}()")), record(t, f))
                    }
                };
                let tail = format!(
                    "{}),) {{ (__frugal_or,) => {{ {before} let __frugal_ov = {invoke}(); \
                     {after} __frugal_ov }} }} }})",
                    self.newlines(recv.1, call.1),
                );
                self.replace((recv.1, call.1), call, &tail);
            }
        }
        visit::visit_expr_method_call(self, e);
        true
    }

    /// A condition leaf that is an observed `bool` call: rewritten by [`Self::observed_method`]
    /// to push its distance for the condition. False when it is not one.
    pub(super) fn observed_leaf(&mut self, e: &Expr, goals: Option<(u32, u32)>) -> bool {
        let Expr::MethodCall(m) = e else {
            return false;
        };
        let bool_call = known(&m.method.to_string(), m.args.len())
            .is_some_and(|(shape, _)| matches!(shape, Shape::Bool));
        if !bool_call || !self.observers || !self.active() || !m.attrs.is_empty() {
            return false;
        }
        self.cond_leaf = Some((self.range(m), goals));
        self.observed_method(m)
    }

    /// `T::try_from(x)`: its distance to `T`'s range when both are std numbers.
    pub(super) fn observed_call(&mut self, e: &ExprCall) -> bool {
        let Expr::Path(p) = &*e.func else {
            return false;
        };
        let is_try_from = p.path.segments.len() >= 2
            && p.path
                .segments
                .last()
                .is_some_and(|s| s.ident == "try_from" && s.arguments.is_empty());
        if !is_try_from || e.args.len() != 1 || !self.observers || !self.active() {
            return false;
        }
        if !e.attrs.is_empty() || !p.attrs.is_empty() {
            return false;
        }
        let Some(arg) = e.args.first() else {
            return false;
        };
        let (t, f) = self.site_goals(line(p.span()), "try_from", Shape::Result);
        let call = self.range(e);
        let arg = self.range(arg);
        let func = collapse(self.source(self.range(&*e.func)));
        let head = format!("({{ {USES1} match ({}", self.newlines(call.0, arg.0));
        self.replace((call.0, arg.0), call, &head);
        let tail = format!(
            "{},) {{ (__frugal_oa,) => {{ let __frugal_od = if ::frugal_probe::observe::on() \
             {{ (&&&::frugal_probe::observe::Obs1(&__frugal_oa)).d_num() }} else {{ None }}; \
             let __frugal_ot = ::frugal_probe::observe::type_of(&__frugal_oa); \
             let __frugal_ov = {func}(__frugal_oa); \
             ::frugal_probe::observe::tried({t}, {f}, __frugal_od, __frugal_ot, &__frugal_ov); \
             __frugal_ov }} }} }})",
            self.newlines(arg.1, call.1)
        );
        self.replace((arg.1, call.1), call, &tail);
        for a in &e.args {
            self.visit_expr(a);
        }
        true
    }

    fn site_goals(&mut self, line: usize, name: &str, shape: Shape) -> (u32, u32) {
        let (yes, no) = shape.labels();
        let t = self.branch_goal(line, format!("{name} {yes}"));
        let f = self.branch_goal(line, format!("{name} {no}"));
        (t, f)
    }

    /// The newlines of the source between two offsets, to keep them in a replacement.
    fn newlines(&self, from: usize, to: usize) -> String {
        "\n".repeat(self.source((from, to)).matches('\n').count())
    }
}

/// A path or a field of one (`x`, `self.rows`, `a.b.c`): naming it has no effect.
fn simple_place(e: &Expr) -> bool {
    match e {
        Expr::Path(p) => p.qself.is_none() && p.attrs.is_empty(),
        Expr::Field(f) => f.attrs.is_empty() && simple_place(&f.base),
        Expr::Paren(p) => simple_place(&p.expr),
        _ => false,
    }
}

fn uses(measure: Measure) -> &'static str {
    match measure {
        Measure::Arg => USES2,
        Measure::Recv | Measure::Ascii | Measure::Parse => USES1,
    }
}

/// `let __frugal_od = ..` measuring with `expr` only while the tables are set up.
fn measured(expr: &str) -> String {
    format!("let __frugal_od = if ::frugal_probe::observe::on() {{ {expr} }} else {{ None }};")
}

/// The call recording the site; for a condition leaf (`leaf` holds its operand goals, if
/// any) the one that also pushes the pair for the condition.
fn record(t: u32, f: u32, leaf: Option<Option<(u32, u32)>>) -> String {
    let went = "(&&::frugal_probe::observe::Out(&__frugal_ov)).went()";
    match leaf {
        None => format!("::frugal_probe::observe::site({t}, {f}, __frugal_od, {went});"),
        Some(goals) => {
            let operand = goals.map_or("None".to_string(), |(a, b)| format!("Some(({a}, {b}))"));
            format!("::frugal_probe::observe::site_cond({t}, {f}, {operand}, __frugal_od, {went});")
        }
    }
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
