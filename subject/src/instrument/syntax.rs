//! What the visitor reads off syntax before rewriting it: the literal arms of a `match` (for
//! its distance probe), a statement's line, and whether a block or expression leaves its
//! block early.
//!
//! It must not know about probes or goals.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Block, Expr, ExprMatch, Pat, Stmt};

/// The probe a `match` on literals hands its scrutinee to, and each arm's entries of that
/// probe's table after the goal: string literals (`str_arms`), integer, byte and char literals
/// and ranges of them (`num_arms`, `lo, hi`), or byte string literals as slices (`bytes_arms`).
pub(super) fn literal_arms(m: &ExprMatch) -> Option<(&'static str, Vec<Vec<String>>)> {
    if let Some(text) = text_arms(m, false) {
        return Some(("str_arms", text));
    }
    if let Some(ranges) = number_arms(m) {
        let entries = ranges
            .into_iter()
            .map(|a| {
                a.into_iter()
                    .map(|(lo, hi)| format!("{}, {}", f64_text(lo), f64_text(hi)))
                    .collect()
            })
            .collect();
        return Some(("num_arms", entries));
    }
    let slices = |a: Vec<String>| a.into_iter().map(|l| format!("&{l}[..]")).collect();
    text_arms(m, true).map(|b| ("bytes_arms", b.into_iter().map(slices).collect()))
}

/// The source text of each arm's string literals (byte string literals with `bytes`), when
/// every arm is such a literal, an or-pattern of them, a wildcard or a plain binding (and at
/// least one literal exists).
pub(super) fn text_arms(m: &ExprMatch, bytes: bool) -> Option<Vec<Vec<String>>> {
    fn literals(p: &Pat, out: &mut Vec<String>, bytes: bool) -> bool {
        match p {
            Pat::Lit(l) => match &l.lit {
                syn::Lit::Str(s) if !bytes => {
                    out.push(s.token().to_string());
                    true
                }
                syn::Lit::ByteStr(s) if bytes => {
                    out.push(s.token().to_string());
                    true
                }
                _ => false,
            },
            Pat::Or(o) => o.cases.iter().all(|c| literals(c, out, bytes)),
            Pat::Wild(_) => true,
            Pat::Ident(i) => i.subpat.is_none() && i.by_ref.is_none(),
            Pat::Paren(p) => literals(&p.pat, out, bytes),
            _ => false,
        }
    }
    per_arm(m, |p, out| literals(p, out, bytes))
}

/// The ranges each arm's integer, byte or char literals cover (a literal is a range of one),
/// when every arm is such a literal, a range of them, an or-pattern of them, a wildcard or a
/// plain binding (and at least one literal exists). A `ref` binding would bind the probe's
/// copy of the scrutinee instead of the place, so it disqualifies the match.
pub(super) fn number_arms(m: &ExprMatch) -> Option<Vec<Vec<(f64, f64)>>> {
    fn ranges(p: &Pat, out: &mut Vec<(f64, f64)>) -> bool {
        match p {
            Pat::Lit(l) => number(&l.lit).map(|v| out.push((v, v))).is_some(),
            Pat::Range(r) => {
                let bound = |e: &Option<Box<Expr>>, open: f64| match e.as_deref() {
                    None => Some(open),
                    Some(Expr::Lit(l)) => number(&l.lit),
                    Some(_) => None,
                };
                let (Some(lo), Some(mut hi)) = (
                    bound(&r.start, f64::NEG_INFINITY),
                    bound(&r.end, f64::INFINITY),
                ) else {
                    return false;
                };
                if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) && r.end.is_some() {
                    hi -= 1.0;
                }
                out.push((lo, hi));
                true
            }
            Pat::Or(o) => o.cases.iter().all(|c| ranges(c, out)),
            Pat::Wild(_) => true,
            // `x @ 0x41..=0x5a` binds a copy, as the unwrapped match did.
            Pat::Ident(i) => {
                i.by_ref.is_none() && i.subpat.as_ref().is_none_or(|(_, p)| ranges(p, out))
            }
            Pat::Paren(p) => ranges(&p.pat, out),
            _ => false,
        }
    }
    per_arm(m, ranges)
}

/// What `collect` finds in each arm's pattern (guards aside), when it accepts every arm and
/// finds something in one.
pub(super) fn per_arm<T>(
    m: &ExprMatch,
    collect: impl Fn(&Pat, &mut Vec<T>) -> bool,
) -> Option<Vec<Vec<T>>> {
    let mut arms = Vec::with_capacity(m.arms.len());
    for arm in &m.arms {
        let pat = match &arm.pat {
            Pat::Guard(g) => &*g.pat,
            p => p,
        };
        let mut found = Vec::new();
        if !collect(pat, &mut found) {
            return None;
        }
        arms.push(found);
    }
    arms.iter().any(|f| !f.is_empty()).then_some(arms)
}

/// An `f64` as Rust source: an open range end is an infinity.
pub(super) fn f64_text(v: f64) -> String {
    match v {
        f64::INFINITY => "f64::INFINITY".into(),
        f64::NEG_INFINITY => "f64::NEG_INFINITY".into(),
        v => format!("{v:?}"),
    }
}

/// An integer, byte or char literal's value (negative integers included).
pub(super) fn number(lit: &syn::Lit) -> Option<f64> {
    match lit {
        syn::Lit::Int(i) => i
            .base10_parse::<i128>()
            .map(|v| v as f64)
            .or_else(|_| i.base10_parse::<u128>().map(|v| v as f64))
            .ok(),
        syn::Lit::Byte(b) => Some(f64::from(b.value())),
        syn::Lit::Char(c) => Some(f64::from(u32::from(c.value()))),
        _ => None,
    }
}

pub(super) fn line(span: Span) -> usize {
    span.start().line
}

/// The line a statement starts on, not counting outer attributes where that is cheap.
pub(super) fn stmt_line(stmt: &Stmt) -> usize {
    match stmt {
        Stmt::Local(l) => line(l.let_token.span),
        Stmt::Macro(m) => line(m.mac.path.span()),
        other => line(other.span()),
    }
}

/// Whether a condition holds a `let` (if-let, while-let, let chains).
pub(super) fn contains_let(e: &Expr) -> bool {
    match e {
        Expr::Let(_) => true,
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
            contains_let(&b.left) || contains_let(&b.right)
        }
        Expr::Paren(p) => contains_let(&p.expr),
        Expr::Group(g) => contains_let(&g.expr),
        _ => false,
    }
}

/// Whether a block always leaves its enclosing block: its last statement returns, breaks,
/// continues or panics.
pub(super) fn block_diverges(b: &Block) -> bool {
    let diverging_macro = |m: &syn::Macro| {
        m.path.segments.last().is_some_and(|s| {
            matches!(
                s.ident.to_string().as_str(),
                "panic" | "unreachable" | "todo" | "unimplemented"
            )
        })
    };
    match b.stmts.last() {
        Some(Stmt::Expr(Expr::Return(_) | Expr::Break(_) | Expr::Continue(_), _)) => true,
        Some(Stmt::Expr(Expr::Macro(m), _)) => diverging_macro(&m.mac),
        Some(Stmt::Macro(m)) => diverging_macro(&m.mac),
        _ => false,
    }
}

/// Whether an initialiser holds code that would have had probes in a fn.
pub(super) fn has_control_flow(e: &Expr) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr(&mut self, e: &'ast Expr) {
            match e {
                Expr::If(_)
                | Expr::Match(_)
                | Expr::While(_)
                | Expr::ForLoop(_)
                | Expr::Loop(_)
                | Expr::Closure(_)
                | Expr::Try(_) => self.0 = true,
                Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {
                    self.0 = true
                }
                _ => visit::visit_expr(self, e),
            }
        }
    }
    let mut f = Finder(false);
    f.visit_expr(e);
    f.0
}
