//! Weak-mutation goals (`Options::mutants`): which comparisons and arithmetic sites get
//! mutants, their goals, and the rewrite of arithmetic sites. The mutants themselves are
//! evaluated by the probe runtime (`frugal_probe::mutants`), whose tables of mutant operators
//! this module numbers goals from, so both sides agree on the order.
//!
//! - ROR: every comparison `cond.rs` rewrites gets its two subsuming mutants as goals; its probe
//!   call passes the operands' order to `ror` (see [`ror_call`]). A comparison whose value is
//!   used outside a condition also gets the third, the constant (`ROR > -> false`), which a
//!   condition's branch goals stand in for ([`FileInstrumenter::value_comparison_site`]). Skipped for `==`/`!=` when an
//!   operand is syntactically an enum variant or a struct, tuple or array value: such operands
//!   usually have no order, and their mutants would be goals nothing can cover.
//! - AOR: a binary `+ - * / %` in an instrumented fn (not in const contexts,
//!   patterns or macro bodies, which the visitor never enters), is rewritten to
//!   `::frugal_probe::arith(match (A, B) { (a, b) => { probe(&a, &b); a op b } })`: both operands
//!   are evaluated once, in order, and the original operator computes the result, so types,
//!   trait impls and overflow panics are the original's. The probe runs first, while the
//!   operands are still there to borrow; it is chosen by autoref specialisation, so strings
//!   and user types compile and report nothing. The rewritten operator sits on the site's
//!   last line, and an overflow there must panic on the user's line: a site spanning lines
//!   counts only with its operator on the last one (a sum with leading operators).
//!   Sites with a string literal, a macro or a borrow as an operand are skipped too (string
//!   concatenation, mostly), for the same reason as unordered comparisons.
//!
//! - FBR (function body replacement, cargo-mutants' main operator): every instrumented fn
//!   whose return type is written as `()`, `bool`, a number, `String`, `&str`, or `Option`,
//!   `Result`, `Vec`, `Box`, `Cow<str>` or a tuple of these gets one mutant per value
//!   cargo-mutants would try (`0`, `1`, `-1`, `true`, `None`, `Some(0)`, `Ok(())`, `""`,
//!   `(0, None)`, ...): right after the entry probe, `if mutants::body(G) { return V; }`
//!   (`fbr.rs`). A fn whose values do not compile (a `Result` that is not `std`'s) loses them,
//!   not its probes.
//!   Entering the fn infects it; only the strong run tells whether a test sees the value.
//!   These are the mutants a test that calls `v.clear()` and never looks at `v` again lets
//!   survive, so they are what state assertions are judged by.
//!
//! - AOR at compound assignments `A op= B` whose place `A` is plain ([`FileInstrumenter::compound_site`]):
//!   `+=`→`-=`,`*=` and so on, the same subsuming sets as the binary operators. A site whose
//!   operands' type is still open (`n += 1` on `let mut n = 0;`, the loop counters
//!   cargo-mutants mutates everywhere) takes the generic `aor_inferred` probe.
//! - NOT deletion (cargo-mutants' `delete !`): every `!` expression (in conditions too) is
//!   wrapped in `mutants::negation(G, ..)`, which undoes the `!` with the mutant on. Entering
//!   it infects it (the value always differs); the strong run tells whether a test sees it.
//!
//! - LOR (cargo-mutants' `replace && with ||` and back): every lazy `&&`/`||` node without a
//!   `let` operand, in conditions too, is rewritten so that `mutants::logical` decides from the
//!   left operand whether the right one is evaluated; covered where the other operator could
//!   give another value ([`FileInstrumenter::logical_wrap`]).
//! - Match arms (cargo-mutants' `delete match arm` and `replace match guard with true/false`):
//!   in a match with a `_` arm, every other unguarded arm gets the guard `if arm_kept(G)`
//!   (false with the mutant on, so the value falls through to a later arm); every guard gets
//!   two mutants, true and false, through `mutants::guard`. A guarded arm's deletion is its
//!   guard made false.
//!
//! Goals: one `Mutant` goal per mutant, consecutive per site, labelled `ROR < -> <=`,
//! `AOR + -> *`, `AOR += -> -=`, `delete !`, `LOR && -> ||`, `delete match arm`,
//! `match guard -> true` or `FBR body -> 0`, on the site's line, with the innermost enclosing branch goal as parent, so
//! DynaMOSA (\[dynamosa\]) targets them once their code is reached. Constant replacement (CR) is not done:
//! a literal's replacements would mostly duplicate the ROR/AOR kills of the site it feeds.

use frugal_probe::mutants::{
    aop, aop_symbol, aor_mutants, cmp_symbol, ror_constant_of, ror_mutants,
};
use frugal_probe::op;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{BinOp, Expr, ExprBinary};

use super::syntax::{contains_let, line};
use super::visit::FileInstrumenter;
use crate::manifest::GoalKind;

/// The probe's opcode of a comparison operator.
pub(super) fn cmp_opcode(o: &BinOp) -> Option<u8> {
    Some(match o {
        BinOp::Eq(_) => op::EQ,
        BinOp::Ne(_) => op::NE,
        BinOp::Lt(_) => op::LT,
        BinOp::Le(_) => op::LE,
        BinOp::Gt(_) => op::GT,
        BinOp::Ge(_) => op::GE,
        _ => return None,
    })
}

/// The probe's opcode of an arithmetic operator (compound assignments excluded).
fn aor_opcode(o: &BinOp) -> Option<(u8, &'static str)> {
    Some(match o {
        BinOp::Add(_) => (aop::ADD, "ADD"),
        BinOp::Sub(_) => (aop::SUB, "SUB"),
        BinOp::Mul(_) => (aop::MUL, "MUL"),
        BinOp::Div(_) => (aop::DIV, "DIV"),
        BinOp::Rem(_) => (aop::REM, "REM"),
        _ => return None,
    })
}

impl FileInstrumenter<'_> {
    /// The ROR goals of a comparison about to be rewritten (first id; the second follows), or
    /// `None` when mutants are off or the comparison gets none.
    pub(super) fn ror_goals(&mut self, b: &ExprBinary) -> Option<u32> {
        if !self.mutants {
            return None;
        }
        let opcode = cmp_opcode(&b.op)?;
        if matches!(opcode, op::EQ | op::NE) && (unordered(&b.left) || unordered(&b.right)) {
            return None;
        }
        // On the operator's line, where cargo-mutants places the mutant: a comparison whose
        // left operand spans lines would otherwise name another line than its survivors.
        let l = line(b.op.span());
        let sym = cmp_symbol(opcode);
        let ids = ror_mutants(opcode).map(|m| {
            let label = format!("ROR {sym} -> {}", cmp_symbol(m));
            self.goal(GoalKind::Mutant, l, label)
        });
        Some(ids[0])
    }

    /// An arithmetic site: numbers its AOR goals and rewrites it, then visits its operands.
    /// False when it is not one (the caller visits it as usual).
    pub(super) fn arith_site(&mut self, b: &ExprBinary) -> bool {
        let Some((aop, name)) = aor_opcode(&b.op) else {
            return false;
        };
        // On the operator's line, where cargo-mutants places the mutant. The rewritten
        // operator sits on the site's last line, where an overflow must panic as the
        // original's does: a sum written over lines with leading operators
        // (`digits(a)\n + 1\n + digits(b)`) has each operator on its site's last line.
        let first = line(b.op.span());
        if !self.aor_site(b) || first != b.span().end().line || skipped_operand(&b.left) {
            return false;
        }
        let inferred = self.untyped_operand(&b.left) && self.untyped_operand(&b.right);
        let goal = self.aor_goals(aop, first, "");
        let left = self.range(&*b.left);
        let right = self.range(&*b.right);
        let op_range = self.range(&b.op);
        let op_text = self.source(op_range);
        let node = (left.0, right.1);
        let mutant = aor_call(inferred, "__frugal_a", goal, name);
        self.open(node, "::frugal_probe::arith(match (");
        self.replace(op_range, node, ",");
        self.close(
            node,
            format!(
                ") {{ (__frugal_a, __frugal_b) => {{ {mutant} \
                 match __frugal_m {{ Some(__frugal_m) => __frugal_m.value(), \
                 None => __frugal_a {op_text} __frugal_b }} }} }})"
            ),
        );
        self.visit_expr(&b.left);
        self.visit_expr(&b.right);
        true
    }
}

impl FileInstrumenter<'_> {
    /// A compound assignment `A op= B` (`+= -= *= /= %=`) whose place `A` is plain (a path,
    /// fields, a deref, an index by a path or literal): numbers its AOR goals (labelled
    /// `AOR += -> -=`, as cargo-mutants names them) and rewrites it to
    /// `arith(match (B) { b => { let p = &mut A; <probe>; *p op= b or the mutant's value } })`.
    /// `B` is evaluated first, as Rust evaluates a primitive compound assignment, so `x += x`
    /// still borrows well; `A`'s text is copied, which is why it must be plain (no probes in
    /// it, no side effects). False when it is not one.
    pub(super) fn compound_site(&mut self, b: &ExprBinary) -> bool {
        let Some((aop, name)) = compound_opcode(&b.op) else {
            return false;
        };
        let (first, last) = (b.span().start().line, b.span().end().line);
        if !self.aor_site(b) || first != last || !plain_place(&b.left) {
            return false;
        }
        let inferred = self.untyped_operand(&b.left) && self.untyped_operand(&b.right);
        let goal = self.aor_goals(aop, first, "=");
        let left = self.range(&*b.left);
        let right = self.range(&*b.right);
        let op_range = self.range(&b.op);
        let place = self.source(left).to_string();
        let op_text = self.source(op_range).to_string();
        let node = (left.0, right.1);
        let mutant = aor_call(inferred, "*__frugal_p", goal, name);
        self.replace((left.0, right.0), node, "::frugal_probe::arith(match (");
        self.close(
            node,
            format!(
                ") {{ __frugal_b => {{ let __frugal_p = &mut {place}; {mutant} \
                 match __frugal_m {{ Some(__frugal_m) => *__frugal_p = __frugal_m.value(), \
                 None => *__frugal_p {op_text} __frugal_b }} }} }})"
            ),
        );
        self.visit_expr(&b.right);
        true
    }

    /// What an arithmetic site and a compound assignment both need for AOR mutants: mutants
    /// on, instrumentation active here, no attributes on the expression, and a right operand
    /// that may be mutated around (see [`skipped_operand`]).
    fn aor_site(&self, b: &ExprBinary) -> bool {
        self.mutants && self.active() && b.attrs.is_empty() && !skipped_operand(&b.right)
    }

    /// Numbers the AOR goals of a site of `aop` on `line`, one per replacement, labelled as
    /// cargo-mutants names them: `AOR + -> -`, or with `assign` = `"="` `AOR += -> -=`.
    /// Returns the first (0 when `aop` has none); the others follow it.
    fn aor_goals(&mut self, aop: u8, line: usize, assign: &str) -> u32 {
        let sym = aop_symbol(aop);
        let mut goal = None;
        for &m in aor_mutants(aop) {
            let label = format!("AOR {sym}{assign} -> {}{assign}", aop_symbol(m));
            let g = self.goal(GoalKind::Mutant, line, label);
            goal.get_or_insert(g);
        }
        goal.unwrap_or_default()
    }

    /// Whether `e`'s type may not be inferred yet where it is used: an unsuffixed number
    /// literal, or a local of the current fn declared with one (see [`untyped_locals`]). The
    /// probe's method call needs one operand's type known (E0282 otherwise, which would cost
    /// the whole fn), so a site whose operands are all such gets no mutants.
    fn untyped_operand(&self, e: &Expr) -> bool {
        match e {
            Expr::Path(p) => p.path.get_ident().is_some_and(|name| {
                self.untyped_locals
                    .last()
                    .is_some_and(|set| set.contains(&name.to_string()))
            }),
            e => unsuffixed_number(e),
        }
    }

    /// The NOT-deletion goal of a `!` expression (cargo-mutants' `delete !`), or `None` when
    /// mutants are off or the operand is a borrow (`!&x` negates into another type, which
    /// the mutant's `T -> T` cannot give back).
    pub(super) fn negation_goal(&mut self, u: &syn::ExprUnary) -> Option<u32> {
        if !self.mutants
            || !self.active()
            || !u.attrs.is_empty()
            || !matches!(u.op, syn::UnOp::Not(_))
            || matches!(&*u.expr, Expr::Reference(_))
        {
            return None;
        }
        let l = line(u.span());
        Some(self.goal(GoalKind::Mutant, l, "delete !".to_string()))
    }

    /// A `!` expression outside a condition: wrapped in `negation(G, ..)` with its goal, then
    /// its operand visited. False when it gets no mutant.
    pub(super) fn negation_site(&mut self, u: &syn::ExprUnary) -> bool {
        let Some(g) = self.negation_goal(u) else {
            return false;
        };
        let node = self.range(u);
        self.open(node, format!("::frugal_probe::mutants::negation({g}, "));
        self.close(node, ")");
        self.visit_expr(&u.expr);
        true
    }

    /// A comparison outside a condition (`return a > b;`, `let ok = x == y;`): its ROR mutants,
    /// as a condition's comparison gets them (weak infection through `ror`, the mutated outcome
    /// through `ror_strong`), without branch goals. Its operands are visited; false when it
    /// gets none (not a comparison, mutants off, operands that have no order or whose types
    /// are all still being inferred).
    pub(super) fn value_comparison_site(&mut self, b: &ExprBinary) -> bool {
        let Some(op) = super::cond::cmp_op(&b.op) else {
            return false;
        };
        if !self.active()
            || !b.attrs.is_empty()
            || (self.untyped_operand(&b.left) && self.untyped_operand(&b.right))
        {
            return false;
        }
        let Some(goal) = self.ror_goals(b) else {
            return false;
        };
        // The third mutant of the subsuming set, which no branch goal stands in for here.
        let constant = cmp_opcode(&b.op).is_some_and(ror_constant_of);
        let sym = self.source(self.range(&b.op)).to_string();
        let constant_goal = self.goal(
            GoalKind::Mutant,
            line(b.op.span()),
            format!("ROR {sym} -> {constant}"),
        );
        let (uses, weak) = ror_call(Some(goal), op);
        let left = self.range(&*b.left);
        let right = self.range(&*b.right);
        let op_range = self.range(&b.op);
        let op_text = self.source(op_range).to_string();
        let strong = ror_outcome(
            Some(goal),
            op,
            &format!("*__frugal_l {op_text} *__frugal_r"),
        );
        let node = (left.0, right.1);
        self.open(
            node,
            format!("::frugal_probe::mutants::ror_constant({constant_goal}, {{ {uses} match (&("),
        );
        self.replace(op_range, node, "), &(");
        self.close(
            node,
            format!(
                ")) {{ (__frugal_l, __frugal_r) => {{ let _ = {weak}; {strong} }} }} }}, {constant})"
            ),
        );
        self.visit_expr(&b.left);
        self.visit_expr(&b.right);
        true
    }

    /// The LOR goal of a lazy `&&`/`||` node (cargo-mutants' `replace && with ||`), labelled
    /// `LOR && -> ||` on the operator's line, and whether it is `&&`; `None` when mutants are
    /// off or an operand is a `let` (a let chain's bindings reach the right operand).
    pub(super) fn logical_goal(&mut self, b: &ExprBinary) -> Option<(u32, bool)> {
        let and = match b.op {
            BinOp::And(_) => true,
            BinOp::Or(_) => false,
            _ => return None,
        };
        if !self.mutants
            || !self.active()
            || !b.attrs.is_empty()
            || contains_let(&b.left)
            || contains_let(&b.right)
        {
            return None;
        }
        let (from, to) = if and { ("&&", "||") } else { ("||", "&&") };
        let g = self.goal(
            GoalKind::Mutant,
            line(b.op.span()),
            format!("LOR {from} -> {to}"),
        );
        Some((g, and))
    }

    /// Rewrites `A && B` to `(match (A) { l => match logical(G, true, l) { Some(v) => v, None
    /// => logical_rhs(G, true, B) } })`: `A` once, `B` only where the operator in force needs
    /// it, so short-circuiting (and a condition's distance entries) stay the original's with
    /// the mutant off. The operands' own rewrites go inside.
    pub(super) fn logical_wrap(&mut self, b: &ExprBinary, goal: u32, and: bool) {
        let left = self.range(&*b.left);
        let right = self.range(&*b.right);
        let op_range = self.range(&b.op);
        let node = (left.0, right.1);
        self.open(node, "(match (");
        self.replace(
            op_range,
            node,
            &format!(
                ") {{ __frugal_l => match ::frugal_probe::mutants::logical({goal}, {and}, \
                 __frugal_l) {{ Some(__frugal_v) => __frugal_v, None => \
                 ::frugal_probe::mutants::logical_rhs({goal}, {and}, "
            ),
        );
        self.close(node, ") } })");
    }

    /// A lazy `&&`/`||` outside a condition: its LOR mutant, then its operands visited. False
    /// when it gets none (the caller visits it as usual).
    pub(super) fn logical_site(&mut self, b: &ExprBinary) -> bool {
        let Some((goal, and)) = self.logical_goal(b) else {
            return false;
        };
        self.logical_wrap(b, goal, and);
        self.visit_expr(&b.left);
        self.visit_expr(&b.right);
        true
    }

    /// The deletion mutant of a match arm (cargo-mutants' `delete match arm`), for an arm
    /// without a guard, other than `_`, in a match with a `_` arm to fall back on: the arm
    /// gets the guard `if arm_kept(G)`, false with the mutant on. `parent` is the arm's goal.
    pub(super) fn arm_deletion(&mut self, m: &syn::ExprMatch, pat: &syn::Pat, parent: u32) {
        let wild = |p: &syn::Pat| matches!(p, syn::Pat::Wild(_));
        if !self.mutants
            || !self.active()
            || wild(pat)
            || matches!(pat, syn::Pat::Guard(_))
            // A `_` under an attribute (`#[cfg(..)]`) may not be there to fall back on.
            || !m.arms.iter().any(|a| wild(&a.pat) && a.attrs.is_empty())
        {
            return;
        }
        let l = line(pat.span());
        let g = self.with_parent(parent, |s| {
            s.goal(GoalKind::Mutant, l, "delete match arm".to_string())
        });
        let range = self.range(pat);
        self.close(range, format!(" if ::frugal_probe::mutants::arm_kept({g})"));
    }

    /// A match guard's mutants (cargo-mutants' `replace match guard with true` and `with
    /// false`), labelled `match guard -> true` and `-> false` on the guard's line: wraps the
    /// guard in `guard(G, ..)`. Call before the guard's own rewrite, which goes inside.
    pub(super) fn guard_mutants(&mut self, guard: &Expr) {
        if !self.mutants || !self.active() {
            return;
        }
        let l = line(guard.span());
        let g = self.goal(GoalKind::Mutant, l, "match guard -> true".to_string());
        self.goal(GoalKind::Mutant, l, "match guard -> false".to_string());
        let node = self.range(guard);
        self.open(node, format!("::frugal_probe::mutants::guard({g}, "));
        self.close(node, ")");
    }
}

/// The locals of a fn body declared `let mut n = <number literal>;` without a type: their
/// integer or float type is inferred from later uses, and a probe's method call on them
/// before those uses fails to compile (E0282), which would cost the whole fn; their AOR
/// sites use the generic `aor_inferred` instead, their comparisons get no mutants.
pub(super) fn untyped_locals(body: &syn::Block) -> std::collections::BTreeSet<String> {
    struct Finder(std::collections::BTreeSet<String>);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_local(&mut self, l: &'ast syn::Local) {
            if let (syn::Pat::Ident(id), Some(init)) = (&l.pat, &l.init)
                && unsuffixed_number(&init.expr)
            {
                self.0.insert(id.ident.to_string());
            }
            syn::visit::visit_local(self, l);
        }
    }
    let mut f = Finder(Default::default());
    f.visit_block(body);
    f.0
}

/// A number literal without a type suffix (`0`, `-1`, `(2.5)`).
fn unsuffixed_number(e: &Expr) -> bool {
    match e {
        Expr::Paren(p) => unsuffixed_number(&p.expr),
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && unsuffixed_number(&u.expr),
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.suffix().is_empty(),
            syn::Lit::Float(f) => f.suffix().is_empty(),
            _ => false,
        },
        _ => false,
    }
}

/// `let __frugal_m = ..;`: the AOR probe's answer for left operand `a` and `__frugal_b`.
/// Where both operands' type is still being inferred (`n += 1` on `let mut n = 0;`), the
/// generic `aor_inferred` leaves it open, as the `Probe` method call cannot (E0282); it
/// takes numbers only, which such operands are.
fn aor_call(inferred: bool, a: &str, goal: u32, name: &str) -> String {
    if inferred {
        format!(
            "let __frugal_m = ::frugal_probe::mutants::aor_inferred({goal}, \
             ::frugal_probe::mutants::aop::{name}, {a}, __frugal_b);"
        )
    } else {
        let a = a
            .strip_prefix('*')
            .map_or(format!("&{a}"), |p| format!("&*{p}"));
        format!(
            "use ::frugal_probe::Arith as _; let __frugal_m = \
             (&&&::frugal_probe::Probe({a}, &__frugal_b)).aor({goal}, \
             ::frugal_probe::mutants::aop::{name});"
        )
    }
}

/// The probe's opcode of a compound assignment's arithmetic operator.
fn compound_opcode(o: &BinOp) -> Option<(u8, &'static str)> {
    Some(match o {
        BinOp::AddAssign(_) => (aop::ADD, "ADD"),
        BinOp::SubAssign(_) => (aop::SUB, "SUB"),
        BinOp::MulAssign(_) => (aop::MUL, "MUL"),
        BinOp::DivAssign(_) => (aop::DIV, "DIV"),
        BinOp::RemAssign(_) => (aop::REM, "REM"),
        _ => return None,
    })
}

/// A place whose text can be evaluated again without effects and holds nothing the
/// instrumenter would rewrite: `x`, `self.a.b`, `*n`, `v[i]`, `self.buf[3]`.
fn plain_place(e: &Expr) -> bool {
    match e {
        Expr::Paren(p) => plain_place(&p.expr),
        Expr::Path(p) => p.qself.is_none() && p.attrs.is_empty(),
        Expr::Field(f) => f.attrs.is_empty() && plain_place(&f.base),
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Deref(_)) && plain_place(&u.expr),
        Expr::Index(i) => plain_place(&i.expr) && matches!(&*i.index, Expr::Lit(_) | Expr::Path(_)),
        _ => false,
    }
}

/// The outcome argument of a rewritten comparison: the comparison `c` itself, or with ROR
/// goals the switched-on mutant's outcome when one of the site's is on (strong mutation).
pub(super) fn ror_outcome(goal: Option<u32>, opcode: &str, c: &str) -> String {
    match goal {
        None => c.to_string(),
        Some(g) => format!(
            "::frugal_probe::mutants::ror_strong({g}, ::frugal_probe::op::{opcode}, {c}, \
             || (&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).ord())"
        ),
    }
}

/// The `use` and the magnitude argument of a rewritten comparison: with ROR goals the
/// magnitude passes through `ror`, which also gets the operands' order.
pub(super) fn ror_call(goal: Option<u32>, opcode: &str) -> (&'static str, String) {
    let mag = "(&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).mag()";
    match goal {
        None => ("use ::frugal_probe::Mag as _;", mag.to_string()),
        Some(g) => (
            "use ::frugal_probe::{Mag as _, Order as _};",
            format!(
                "::frugal_probe::ror({g}, ::frugal_probe::op::{opcode}, \
                 (&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).ord(), {mag})"
            ),
        ),
    }
}

/// An operand of `==`/`!=` that most likely has no order: an enum variant or unit struct
/// (a CamelCase path other than `None`), a struct, tuple or array value, or a variant built
/// by a call (`Kind::A(..)`, but not `Some`/`Ok`/`Err`).
fn unordered(e: &Expr) -> bool {
    fn camel_name(name: &str) -> bool {
        name.starts_with(|c: char| c.is_ascii_uppercase())
            && name.chars().any(|c| c.is_ascii_lowercase())
    }
    // `Kind::Idle`, `Unit`, and `Kind::A` (a short name under a CamelCase type; `Self::MAX`
    // and `u32::MAX` stay numeric-looking).
    fn camel(p: &syn::Path) -> bool {
        let names: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        match names.as_slice() {
            [.., last] if matches!(last.as_str(), "None" | "Some" | "Ok" | "Err") => false,
            [.., last] if camel_name(last) => true,
            [.., ty, last] => camel_name(ty) && ty != "Self" && last.len() == 1,
            _ => false,
        }
    }
    match e {
        Expr::Paren(p) => unordered(&p.expr),
        Expr::Reference(r) => unordered(&r.expr),
        Expr::Path(p) => camel(&p.path),
        Expr::Call(c) => matches!(&*c.func, Expr::Path(p) if camel(&p.path)),
        Expr::Struct(_) | Expr::Tuple(_) | Expr::Array(_) => true,
        _ => false,
    }
}

/// An operand that marks an arithmetic site as most likely not numeric.
fn skipped_operand(e: &Expr) -> bool {
    match e {
        Expr::Paren(p) => skipped_operand(&p.expr),
        Expr::Lit(l) => matches!(l.lit, syn::Lit::Str(_) | syn::Lit::ByteStr(_)),
        Expr::Macro(_) | Expr::Reference(_) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests;
