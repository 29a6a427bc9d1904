//! Rewriting of `if`/`while`/guard conditions so that they report branch distances.
//!
//! The runtime keeps a stack of distance pairs: every node of a condition's boolean structure
//! pushes exactly one entry, and `branch` pops the root's. Leaves push through `cmp` (with the
//! operands' magnitude) or `leaf`; `not` swaps the top entry; `open()` marks the start of a
//! `&&`/`||` chain and `close_and`/`close_or` fold the entries pushed since. `open()` returns
//! `true`, so `open() && (a || b)` keeps the short-circuit semantics of `a || b`. A root that is
//! a single comparison skips the stack: `branch_cmp` records its pair directly.
//!
//! Comparisons bind their operands with `match` rather than `let`: a `let` would drop the
//! temporaries of `s.trim().to_lowercase().as_str() == "x"` before the comparison, a match
//! scrutinee keeps them alive like the original expression does.

use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{BinOp, Expr, ExprBinary, UnOp};

use super::syntax::line;
use super::visit::FileInstrumenter;

impl FileInstrumenter<'_> {
    /// Wraps a condition root in `branch(t, f, ..)` and rewrites its boolean structure.
    /// A root that is one comparison records its distances itself (`branch_cmp`), without
    /// the trip through the runtime's condition stack.
    pub(super) fn condition(&mut self, cond: &Expr, t: u32, f: u32) {
        if let Some((b, op)) = root_comparison(cond) {
            self.comparison(b, op, format!("branch_cmp({t}, {f}, "));
            return;
        }
        let node = self.range(cond);
        self.open(node, format!("::frugal_probe::branch({t}, {f}, "));
        self.close(node, ")");
        self.cond_node(cond, None);
    }

    /// Rewrites one node so that it pushes one distance entry. `goals` is the node's own goal
    /// pair when it is an operand of `&&`/`||`.
    fn cond_node(&mut self, e: &Expr, goals: Option<(u32, u32)>) {
        match e {
            Expr::Paren(p) => self.cond_node(&p.expr, goals),
            Expr::Unary(u) if matches!(u.op, UnOp::Not(_)) => {
                let node = self.range(e);
                // Its NOT-deletion mutant wraps what `not` returns (created first: outside).
                if let Some(g) = self.negation_goal(u) {
                    self.open(node, format!("::frugal_probe::mutants::negation({g}, "));
                    self.close(node, ")");
                }
                self.open(node, "::frugal_probe::not(");
                self.close(node, ")");
                // The operand is true exactly when the negated node is false.
                self.cond_node(&u.expr, goals.map(|(t, f)| (f, t)));
            }
            Expr::Binary(b) => match cmp_op(&b.op) {
                Some(op) => {
                    let call = match goals {
                        Some((t, f)) => format!("cmp_goal({t}, {f}, "),
                        None => "cmp(".to_string(),
                    };
                    self.comparison(b, op, call);
                }
                None if is_lazy(&b.op) => self.chain(b),
                None => self.leaf(e, goals),
            },
            _ => self.leaf(e, goals),
        }
    }

    fn leaf(&mut self, e: &Expr, goals: Option<(u32, u32)>) {
        if self.observed_leaf(e, goals) {
            return;
        }
        let node = self.range(e);
        let open = match goals {
            Some((t, f)) => format!("::frugal_probe::leaf_goal({t}, {f}, "),
            None => "::frugal_probe::leaf(".to_string(),
        };
        self.open(node, open);
        self.close(node, ")");
        self.visit_expr(e);
    }

    /// `A op B` becomes a block that borrows both operands, compares them with the original
    /// operator (so the same impl runs) and reports their magnitude by autoref specialisation.
    /// `call` is the runtime function with its leading arguments (`cmp(`, `cmp_goal(t, f, `, ...).
    fn comparison(&mut self, b: &ExprBinary, op: &str, call: String) {
        let left = self.range(&*b.left);
        let right = self.range(&*b.right);
        let op_range = self.range(&b.op);
        let op_text = self.source(op_range);
        let node = (left.0, right.1);
        let goal = self.ror_goals(b);
        let (uses, mag) = super::mutants::ror_call(goal, op);
        let outcome =
            super::mutants::ror_outcome(goal, op, &format!("*__frugal_l {op_text} *__frugal_r"));
        self.open(node, format!("{{ {uses} match (&("));
        self.replace(op_range, node, "), &(");
        self.close(
            node,
            format!(
                ")) {{ (__frugal_l, __frugal_r) => ::frugal_probe::{call}::frugal_probe::op::{op}, \
                 {outcome}, {mag}) }} }}"
            ),
        );
        self.visit_expr(&b.left);
        self.visit_expr(&b.right);
    }

    /// A chain `a && b && c`, parsed as `(a && b) && c`. Each binary node gets its own
    /// `close_and(open() && ..)` (the runtime folds two operands per group); each leaf operand
    /// gets its own goal pair, and operand k is evaluated only when operand k-1 was true (`&&`)
    /// or false (`||`), which makes that goal its control-dependency parent.
    fn chain(&mut self, b: &ExprBinary) {
        let and = matches!(b.op, BinOp::And(_));
        let mut spine = vec![b];
        let mut leftmost = &*b.left;
        while let Expr::Binary(lb) = leftmost
            && lb.attrs.is_empty()
            && is_lazy(&lb.op)
            && matches!(lb.op, BinOp::And(_)) == and
        {
            spine.push(lb);
            leftmost = &*lb.left;
        }
        // Outermost node first: wrappers created first enclose those created later.
        for node in &spine {
            let range = (self.range(&*node.left).0, self.range(&*node.right).1);
            if and {
                self.open(
                    range,
                    "::frugal_probe::close_and(::frugal_probe::open() && ",
                );
                self.close(range, ")");
            } else {
                self.open(
                    range,
                    "::frugal_probe::close_or(::frugal_probe::open() && (",
                );
                self.close(range, "))");
            }
            // Its LOR mutant goes inside the fold, around the operands' rewrites.
            if let Some((g, is_and)) = self.logical_goal(node) {
                self.logical_wrap(node, g, is_and);
            }
        }
        let operands = std::iter::once(leftmost).chain(spine.iter().rev().map(|n| &*n.right));
        let sym = if and { "&&" } else { "||" };
        let depth = self.parents_depth();
        for operand in operands {
            let goals = goal_capable(operand).then(|| {
                let l = line(operand.span());
                let t = self.branch_goal(l, format!("{sym} operand true"));
                let f = self.branch_goal(l, format!("{sym} operand false"));
                (t, f)
            });
            self.cond_node(operand, goals);
            if let Some((t, f)) = goals {
                self.push_parent(if and { t } else { f });
            }
        }
        self.truncate_parents(depth);
    }
}

/// The `frugal_probe::op` constant of a comparison operator.
pub(super) fn cmp_op(op: &BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Eq(_) => "EQ",
        BinOp::Ne(_) => "NE",
        BinOp::Lt(_) => "LT",
        BinOp::Le(_) => "LE",
        BinOp::Gt(_) => "GT",
        BinOp::Ge(_) => "GE",
        _ => return None,
    })
}

fn is_lazy(op: &BinOp) -> bool {
    matches!(op, BinOp::And(_) | BinOp::Or(_))
}

/// Whether an operand is a (possibly negated, parenthesised) leaf, which can carry goals.
fn goal_capable(e: &Expr) -> bool {
    match e {
        Expr::Paren(p) => goal_capable(&p.expr),
        Expr::Unary(u) if matches!(u.op, UnOp::Not(_)) => goal_capable(&u.expr),
        Expr::Binary(b) => !is_lazy(&b.op),
        Expr::Let(_) => false,
        _ => true,
    }
}

/// The comparison a condition is, parentheses aside.
fn root_comparison(e: &Expr) -> Option<(&ExprBinary, &'static str)> {
    match e {
        Expr::Paren(p) => root_comparison(&p.expr),
        Expr::Binary(b) => Some((b, cmp_op(&b.op)?)),
        _ => None,
    }
}
