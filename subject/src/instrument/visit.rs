//! The instrumenting visitor: one `syn::visit::Visit` over one file, numbering goals and
//! recording probe insertions as text edits.
//!
//! It carries explicit stacks (cargo-mutants' `visit.rs` style, \[cargo-mutants\]): `parents` is the stack of
//! enclosing branch goals, so the top is the control-dependency parent of any goal created
//! now; `fns` is the stack of enclosing instrumented fns; `names` the namespace for messages.
//! Stacks are only changed through helpers that restore them, so a visit method cannot leave
//! them unbalanced. Condition rewriting lives in `cond.rs` as a second `impl` block.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{
    Attribute, Block, Expr, ExprClosure, ExprForLoop, ExprIf, ExprLoop, ExprMatch, ExprTry,
    ExprWhile, Local, Pat, Signature, Stmt,
};

use super::Exclusion;
use super::edits::{Edit, Kind};
use super::skip;
use super::syntax::{
    block_diverges, contains_let, has_control_flow, line, literal_arms, stmt_line,
};
use crate::analyze::attrs::{CfgEval, path_attr};
use crate::manifest::{FnInfo, Goal, GoalKind, LoopInfo, Manifest, Skipped};

/// Reason recorded for items that a `cfg` the run's features make false compiles out.
const COMPILED_OUT: &str = "compiled out by cfg";

/// An instrumented fn's line range, so a compile error can be traced back to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// Source file relative to the crate root.
    pub file: String,
    /// First line of the fn item's span, 1-based.
    pub start: usize,
    /// Last line of the fn item's span, 1-based.
    pub end: usize,
    /// Line of the `fn` keyword, or of a `macro_rules!` whose body is instrumented: what an
    /// [`Exclusion`] names.
    pub fn_line: usize,
    /// Whether the fn's body was given FBR mutants: a compile error in it may be theirs.
    pub body_mutants: bool,
}

/// An out-of-line `mod foo;` found in the file, for the module walker.
#[derive(Debug, Clone)]
pub(crate) struct ModDecl {
    pub name: String,
    pub path_attr: Option<String>,
    /// Inline modules enclosing the declaration (`mod a { mod b; }` gives `a`).
    pub inline: Vec<InlineMod>,
    pub line: usize,
    /// A `cfg` the run's features make false: its file is recorded, not walked.
    pub compiled_out: bool,
}

/// An inline `mod name { .. }`: its name and `#[path]` place the files of its children.
#[derive(Debug, Clone)]
pub(crate) struct InlineMod {
    pub name: String,
    pub path_attr: Option<String>,
}

/// A condition leaf handed to an observer: the call's byte range and the leaf's own goals.
pub(super) type CondLeaf = ((usize, usize), Option<(u32, u32)>);

/// Instruments one parsed file.
pub(crate) struct FileInstrumenter<'a> {
    file: &'a str,
    /// Decides which modules are compiled in.
    cfg: &'a CfgEval,
    text: &'a str,
    manifest: &'a mut Manifest,
    /// `fn` lines of this file excluded by the caller, with the reason to record.
    exclude: HashMap<usize, String>,
    line_goals_enabled: bool,
    pub edits: Vec<Edit>,
    seq: u32,
    parents: Vec<u32>,
    fns: Vec<u32>,
    names: Vec<String>,
    inline_mods: Vec<InlineMod>,
    pub mods: Vec<ModDecl>,
    pub regions: Vec<Region>,
    /// Line goals shared by statements on one line under one parent.
    line_goals: HashMap<(usize, u32), u32>,
    /// False goal of each `if`, by the byte offset of its `if` keyword.
    if_false: HashMap<usize, u32>,
    /// Set by a statement after which the rest of its block depends on a new goal (let-else).
    pending_parent: Option<u32>,
    /// Whether weak-mutation goals are made (`mutants.rs`).
    pub(super) mutants: bool,
    /// Per fn being instrumented: its locals whose type inference may still be open where
    /// they are used (`let mut n = 0;`): their AOR sites take the generic probe, their
    /// comparisons get no mutants.
    pub(super) untyped_locals: Vec<std::collections::BTreeSet<String>>,
    /// Whether known flag calls get observers and goals (`observe.rs`).
    pub(super) observers: bool,
    /// A condition leaf that is an observed call (its byte range) and the leaf's own goals:
    /// the observer pushes the condition's distance instead of a `leaf` wrapper.
    pub(super) cond_leaf: Option<CondLeaf>,
    /// Names of `const fn`s that keep their `const` (`consts.rs`); `None` keeps them all.
    pub(super) keep_const: Option<std::sync::Arc<std::collections::BTreeSet<String>>>,
    /// Depth of `macro_rules!` bodies being instrumented: a failed build there costs the
    /// whole macro, so only body mutants that always compile are made.
    pub(super) in_macro: usize,
}

impl<'a> FileInstrumenter<'a> {
    pub(crate) fn new(
        file: &'a str,
        text: &'a str,
        manifest: &'a mut Manifest,
        cfg: &'a CfgEval,
        namespace: Vec<String>,
        exclude: &[Exclusion],
        line_goals_enabled: bool,
    ) -> Self {
        let exclude = exclude
            .iter()
            .filter(|e| e.file == file)
            .filter_map(|e| e.line.map(|l| (l, e.reason.clone())))
            .collect();
        FileInstrumenter {
            file,
            cfg,
            text,
            manifest,
            exclude,
            line_goals_enabled,
            edits: Vec::new(),
            seq: 0,
            parents: Vec::new(),
            fns: Vec::new(),
            names: namespace,
            inline_mods: Vec::new(),
            mods: Vec::new(),
            regions: Vec::new(),
            line_goals: HashMap::new(),
            if_false: HashMap::new(),
            pending_parent: None,
            mutants: false,
            untyped_locals: Vec::new(),
            observers: false,
            cond_leaf: None,
            keep_const: None,
            in_macro: 0,
        }
    }

    // ---- positions and edits ----

    pub(super) fn range(&self, node: &impl Spanned) -> (usize, usize) {
        let r = node.span().byte_range();
        (r.start, r.end)
    }

    pub(super) fn source(&self, node: (usize, usize)) -> &'a str {
        self.text.get(node.0..node.1).unwrap_or("")
    }

    fn push_edit(&mut self, pos: usize, kind: Kind, node: (usize, usize), text: String) {
        self.seq += 1;
        self.edits.push(Edit {
            pos,
            kind,
            node,
            seq: self.seq,
            text,
        });
    }

    /// Inserts `text` before `node`; wrappers created earlier enclose those created later.
    pub(super) fn open(&mut self, node: (usize, usize), text: impl Into<String>) {
        self.push_edit(node.0, Kind::Open, node, text.into());
    }

    /// Inserts `text` after `node`.
    pub(super) fn close(&mut self, node: (usize, usize), text: impl Into<String>) {
        self.push_edit(node.1, Kind::Close, node, text.into());
    }

    pub(super) fn replace(&mut self, range: (usize, usize), node: (usize, usize), text: &str) {
        self.push_edit(
            range.0,
            Kind::Replace { end: range.1 },
            node,
            text.to_string(),
        );
    }

    // ---- goals and stacks ----

    pub(super) fn active(&self) -> bool {
        !self.fns.is_empty()
    }

    pub(super) fn parent(&self) -> Option<u32> {
        self.parents.last().copied()
    }

    /// Numbers a new goal under the current parent (none for function entries).
    pub(super) fn goal(&mut self, kind: GoalKind, line: usize, label: impl Into<String>) -> u32 {
        let id = self.manifest.goals.len() as u32;
        let parent = if kind == GoalKind::Function {
            None
        } else {
            self.parent()
        };
        self.manifest.goals.push(Goal {
            id,
            kind,
            parent,
            file: self.file.to_string(),
            line,
            function: self.fns.last().copied(),
            label: label.into(),
        });
        id
    }

    pub(super) fn branch_goal(&mut self, line: usize, label: impl Into<String>) -> u32 {
        self.goal(GoalKind::Branch, line, label)
    }

    /// Runs `f` with `goal` as the control-dependency parent.
    pub(super) fn with_parent<R>(&mut self, goal: u32, f: impl FnOnce(&mut Self) -> R) -> R {
        let depth = self.parents.len();
        self.parents.push(goal);
        let r = f(self);
        debug_assert_eq!(self.parents.len(), depth + 1, "unbalanced parent stack");
        self.parents.truncate(depth);
        r
    }

    pub(super) fn push_parent(&mut self, goal: u32) {
        self.parents.push(goal);
    }

    pub(super) fn parents_depth(&self) -> usize {
        self.parents.len()
    }

    pub(super) fn truncate_parents(&mut self, depth: usize) {
        self.parents.truncate(depth);
    }

    fn skipped(&mut self, line: usize, reason: impl Into<String>) {
        self.manifest.skipped.push(Skipped {
            file: self.file.to_string(),
            line,
            reason: reason.into(),
        });
    }

    fn line_goal(&mut self, line: usize) -> u32 {
        let key = (line, self.parent().unwrap_or(u32::MAX));
        if let Some(&g) = self.line_goals.get(&key) {
            return g;
        }
        let g = self.goal(GoalKind::Line, line, "line");
        self.line_goals.insert(key, g);
        g
    }

    fn qualified(&self, last: &str) -> String {
        let mut parts = self.names.clone();
        parts.push(last.to_string());
        parts.join("::")
    }

    // ---- fns and blocks ----

    /// Records `span` as compiled out when `attrs` hold a `cfg` the run's features make false
    /// (as analysis decides it: a `cfg` it cannot read keeps the item); true if so. Such code
    /// gets no goals: no test of this build can reach it.
    fn note_compiled_out(&mut self, attrs: &[Attribute], span: Span) -> bool {
        let has_cfg = attrs.iter().any(|a| a.path().is_ident("cfg"));
        let out = has_cfg && !self.cfg.keeps(attrs);
        if out {
            self.manifest
                .compiled_out
                .push(crate::manifest::CompiledOut {
                    file: self.file.to_string(),
                    start: span.start().line,
                    end: span.end().line,
                });
        }
        out
    }

    fn instrument_fn(&mut self, attrs: &[Attribute], sig: &Signature, block: &Block, item: Span) {
        let fn_line = line(sig.fn_token.span);
        if skip::attrs_reason(attrs).is_none() && self.note_compiled_out(attrs, item) {
            self.skipped(fn_line, COMPILED_OUT);
            return;
        }
        let strip_const = sig.constness.is_some()
            && self
                .keep_const
                .as_ref()
                .is_some_and(|keep| !keep.contains(&sig.ident.to_string()));
        if let Some(reason) =
            skip::attrs_reason(attrs).or_else(|| skip::sig_reason(sig, strip_const))
        {
            self.skipped(fn_line, reason);
            return;
        }
        // A fn whose body mutants did not compile keeps its probes and loses only those.
        let body_mutants = match self.exclude.get(&fn_line).cloned() {
            Some(reason) if reason == super::BODY_MUTANT_ERROR => false,
            Some(reason) => {
                self.skipped(fn_line, reason);
                return;
            }
            None => true,
        };
        if let Some(c) = &sig.constness
            && strip_const
        {
            let range = self.range(c);
            // `const fn` becomes `      fn`: same lines, same columns after it.
            self.replace(range, range, "     ");
        }
        let fid = self.manifest.functions.len() as u32;
        let saved_parents = std::mem::take(&mut self.parents);
        let saved_pending = self.pending_parent.take();
        self.fns.push(fid);
        let entry = self.goal(GoalKind::Function, fn_line, "fn entry");
        let name = self.qualified(&sig.ident.to_string());
        self.manifest.functions.push(FnInfo {
            name,
            file: self.file.to_string(),
            line: fn_line,
            entry_goal: entry,
        });
        let region = self.regions.len();
        self.regions.push(Region {
            file: self.file.to_string(),
            start: item.start().line,
            end: item.end().line,
            fn_line,
            body_mutants: false,
        });
        self.names.push(sig.ident.to_string());
        let enter = if sig.asyncness.is_some() {
            format!("::frugal_probe::enter_async({fid}, {entry}); ")
        } else {
            format!("let __frugal_guard = ::frugal_probe::enter({fid}, {entry}); ")
        };
        self.untyped_locals
            .push(super::mutants::untyped_locals(block));
        self.with_parent(entry, |s| {
            let replaced = if body_mutants {
                s.body_mutants(sig, fn_line)
            } else {
                None
            };
            s.regions[region].body_mutants = replaced.is_some();
            s.block(block, Some(enter + &replaced.unwrap_or_default()))
        });
        self.untyped_locals.pop();
        self.names.pop();
        self.fns.pop();
        self.parents = saved_parents;
        self.pending_parent = saved_pending;
    }

    /// Instruments a block: `prefix` (an `enter`/`hit`/`iter` probe) after the `{` and any
    /// inner attributes, a line probe before each statement, and the statements themselves.
    pub(super) fn block(&mut self, b: &Block, prefix: Option<String>) {
        let close = b.brace_token.span.close().byte_range().start;
        // Before the first statement is after `{` and after inner attributes, which must stay
        // first in the block.
        let first = b.stmts.first().map_or(close, |s| self.range(s).0);
        if let Some(p) = prefix {
            self.open((first, close), p);
        }
        let depth = self.parents.len();
        let mut last_line_goal = None;
        for stmt in &b.stmts {
            let node = self.range(stmt);
            // A statement with an outer attribute may be a `#[cfg(..)] { .. }` that decides
            // which block is the value: a probe before it would outlive a removed one and
            // turn the kept one into a non-tail statement.
            let attributed = self.source(node).starts_with('#');
            if self.active()
                && self.line_goals_enabled
                && !attributed
                && !matches!(stmt, Stmt::Item(_))
            {
                let g = self.line_goal(stmt_line(stmt));
                if last_line_goal != Some(g) {
                    self.open(node, format!("::frugal_probe::line({g}); "));
                }
                last_line_goal = Some(g);
            }
            self.visit_stmt(stmt);
            // Refine control dependency for the rest of the block after early exits.
            let next = self
                .pending_parent
                .take()
                .or_else(|| self.diverging_if_false(stmt));
            if let Some(p) = next {
                self.parents.push(p);
                last_line_goal = None;
            }
        }
        self.parents.truncate(depth);
    }

    /// For `if c { ...; return }` (then-block always leaves), the rest of the block runs only
    /// when the if's false goal was hit.
    fn diverging_if_false(&self, stmt: &Stmt) -> Option<u32> {
        let Stmt::Expr(Expr::If(i), _) = stmt else {
            return None;
        };
        if !block_diverges(&i.then_branch) {
            return None;
        }
        self.if_false
            .get(&i.if_token.span.byte_range().start)
            .copied()
    }

    fn else_branch(&mut self, els: &Expr, f: u32, hit: bool) {
        match els {
            Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => {
                let prefix = hit.then(|| format!("::frugal_probe::hit({f}); "));
                self.with_parent(f, |s| s.block(&b.block, prefix));
            }
            other => {
                // `else if ...`: wrap the nested if in a block holding the hit.
                if hit {
                    let node = self.range(other);
                    self.open(node, format!("{{ ::frugal_probe::hit({f}); "));
                    self.close(node, " }");
                }
                self.with_parent(f, |s| s.visit_expr(other));
            }
        }
    }

    fn arm_body(&mut self, body: &Expr, g: u32) {
        match body {
            Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => {
                self.block(&b.block, Some(format!("::frugal_probe::hit({g}); ")));
            }
            other => {
                let node = self.range(other);
                let mut text = format!("{{ ::frugal_probe::hit({g}); ");
                if self.line_goals_enabled {
                    let l = self.line_goal(line(other.span()));
                    text.push_str(&format!("::frugal_probe::line({l}); "));
                }
                self.open(node, text);
                self.close(node, " }");
                self.visit_expr(other);
            }
        }
    }

    fn new_loop(&mut self, line: usize) -> u32 {
        let id = self.manifest.loops.len() as u32;
        self.manifest.loops.push(LoopInfo {
            file: self.file.to_string(),
            line,
        });
        id
    }

    fn loop_body(&mut self, body: &Block, line: usize, goal: u32) {
        let l = self.new_loop(line);
        let prefix = format!("::frugal_probe::iter({l}, {goal}); ");
        self.with_parent(goal, |s| s.block(body, Some(prefix)));
    }

    fn skip_initialiser(&mut self, expr: &Expr, line: usize, reason: &str) {
        if has_control_flow(expr) {
            self.skipped(line, reason);
        }
    }

    fn type_name(&self, ty: &syn::Type) -> String {
        collapse(self.source(self.range(ty)))
    }
}

impl<'ast> Visit<'ast> for FileInstrumenter<'_> {
    fn visit_item_fn(&mut self, i: &'ast syn::ItemFn) {
        self.instrument_fn(&i.attrs, &i.sig, &i.block, i.span());
    }

    fn visit_impl_item_fn(&mut self, i: &'ast syn::ImplItemFn) {
        self.instrument_fn(&i.attrs, &i.sig, &i.block, i.span());
    }

    fn visit_trait_item_fn(&mut self, i: &'ast syn::TraitItemFn) {
        if let Some(body) = &i.default {
            self.instrument_fn(&i.attrs, &i.sig, body, i.span());
        }
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if let Some(reason) = skip::attrs_reason(&i.attrs) {
            self.skipped(line(i.impl_token.span), reason);
            return;
        }
        if self.note_compiled_out(&i.attrs, i.span()) {
            self.skipped(line(i.impl_token.span), COMPILED_OUT);
            return;
        }
        let ty = self.type_name(&i.self_ty);
        let name = match &i.trait_ {
            Some((path, _)) => format!("<{ty} as {}>", collapse(self.source(self.range(path)))),
            None => ty,
        };
        self.names.push(name);
        for item in &i.items {
            self.visit_impl_item(item);
        }
        self.names.pop();
    }

    fn visit_item_trait(&mut self, i: &'ast syn::ItemTrait) {
        if let Some(reason) = skip::attrs_reason(&i.attrs) {
            self.skipped(line(i.trait_token.span), reason);
            return;
        }
        self.names.push(i.ident.to_string());
        for item in &i.items {
            self.visit_trait_item(item);
        }
        self.names.pop();
    }

    fn visit_item_mod(&mut self, i: &'ast syn::ItemMod) {
        let mod_line = line(i.mod_token.span);
        if let Some(reason) = skip::attrs_reason(&i.attrs) {
            self.skipped(mod_line, reason);
            return;
        }
        if !self.cfg.keeps(&i.attrs) {
            // Compiled out, as analysis sees it: no goals, and its files are not walked (the
            // walker records an out-of-line module's file as compiled out).
            self.note_compiled_out(&i.attrs, i.span());
            if i.content.is_none() {
                self.mods.push(ModDecl {
                    name: i.ident.to_string(),
                    path_attr: path_attr(&i.attrs),
                    inline: self.inline_mods.clone(),
                    line: mod_line,
                    compiled_out: true,
                });
            }
            return;
        }
        let name = i.ident.to_string();
        match &i.content {
            Some((_, items)) => {
                self.names.push(name.clone());
                self.inline_mods.push(InlineMod {
                    name,
                    path_attr: path_attr(&i.attrs),
                });
                for item in items {
                    self.visit_item(item);
                }
                self.inline_mods.pop();
                self.names.pop();
            }
            None => {
                let decl = ModDecl {
                    name,
                    path_attr: path_attr(&i.attrs),
                    inline: self.inline_mods.clone(),
                    line: mod_line,
                    compiled_out: false,
                };
                self.mods.push(decl);
            }
        }
    }

    fn visit_item_const(&mut self, i: &'ast syn::ItemConst) {
        self.skip_initialiser(&i.expr, line(i.const_token.span), "const initialiser");
    }

    fn visit_item_static(&mut self, i: &'ast syn::ItemStatic) {
        self.skip_initialiser(&i.expr, line(i.static_token.span), "static initialiser");
    }

    fn visit_impl_item_const(&mut self, i: &'ast syn::ImplItemConst) {
        self.skip_initialiser(&i.expr, line(i.const_token.span), "const initialiser");
    }

    fn visit_trait_item_const(&mut self, i: &'ast syn::TraitItemConst) {
        if let Some((_, expr)) = &i.default {
            self.skip_initialiser(expr, line(i.const_token.span), "const initialiser");
        }
    }

    fn visit_item_macro(&mut self, i: &'ast syn::ItemMacro) {
        let macro_line = line(i.mac.span());
        let items = super::macro_body::rules_items(&i.mac);
        if items.is_empty() || skip::attrs_reason(&i.attrs).is_some() {
            self.skipped(macro_line, "macro body");
            return;
        }
        if let Some(reason) = self.exclude.get(&macro_line).cloned() {
            self.skipped(macro_line, reason);
            return;
        }
        let first = self.regions.len();
        self.regions.push(Region {
            file: self.file.to_string(),
            start: macro_line,
            end: i.span().end().line,
            fn_line: macro_line,
            body_mutants: false,
        });
        self.in_macro += 1;
        for item in &items {
            self.visit_item(item);
        }
        self.in_macro -= 1;
        // A compile error anywhere in the body, which may show in one expansion only, leaves
        // the whole macro uninstrumented: one retry of the build, not one per fn.
        for r in &mut self.regions[first..] {
            r.fn_line = macro_line;
            r.body_mutants = false;
        }
    }

    fn visit_impl_item_macro(&mut self, i: &'ast syn::ImplItemMacro) {
        self.skipped(line(i.mac.span()), "macro body");
    }

    fn visit_trait_item_macro(&mut self, i: &'ast syn::TraitItemMacro) {
        self.skipped(line(i.mac.span()), "macro body");
    }

    // Items without code, and syntax that is a const context or holds no probes: types (array
    // lengths), patterns, generic arguments and defaults, attributes, enum discriminants.
    fn visit_item_enum(&mut self, _: &'ast syn::ItemEnum) {}
    fn visit_item_struct(&mut self, _: &'ast syn::ItemStruct) {}
    fn visit_item_union(&mut self, _: &'ast syn::ItemUnion) {}
    fn visit_item_foreign_mod(&mut self, _: &'ast syn::ItemForeignMod) {}
    fn visit_item_use(&mut self, _: &'ast syn::ItemUse) {}
    fn visit_type(&mut self, _: &'ast syn::Type) {}
    fn visit_pat(&mut self, _: &'ast Pat) {}
    fn visit_generics(&mut self, _: &'ast syn::Generics) {}
    fn visit_generic_argument(&mut self, _: &'ast syn::GenericArgument) {}
    fn visit_attribute(&mut self, _: &'ast Attribute) {}
    fn visit_expr_const(&mut self, _: &'ast syn::ExprConst) {}

    fn visit_expr_repeat(&mut self, e: &'ast syn::ExprRepeat) {
        // The length is a const context.
        self.visit_expr(&e.expr);
    }

    fn visit_block(&mut self, b: &'ast Block) {
        self.block(b, None);
    }

    fn visit_stmt_macro(&mut self, m: &'ast syn::StmtMacro) {
        if self.active() {
            self.skipped(line(m.mac.span()), "macro body");
        }
    }

    fn visit_expr_macro(&mut self, m: &'ast syn::ExprMacro) {
        if self.active() {
            self.skipped(line(m.mac.span()), "macro body");
        }
    }

    fn visit_expr_async(&mut self, e: &'ast syn::ExprAsync) {
        self.skipped(line(e.async_token.span), "async block");
    }

    fn visit_expr_closure(&mut self, c: &'ast ExprClosure) {
        if let Some(token) = &c.asyncness {
            self.skipped(line(token.span), "async closure");
        } else if let Some(token) = &c.constness {
            self.skipped(line(token.span), "const closure");
        } else {
            // Closure bodies get branch and line probes but no `enter`: they are not callables
            // of the API and would distort the call counters.
            self.visit_expr(&c.body);
        }
    }

    fn visit_local(&mut self, l: &'ast Local) {
        let Some(init) = &l.init else {
            return;
        };
        self.visit_expr(&init.expr);
        let Some((_, diverge)) = &init.diverge else {
            return;
        };
        let let_line = line(l.let_token.span);
        let t = self.branch_goal(let_line, "let else true");
        let f = self.branch_goal(let_line, "let else false");
        match &**diverge {
            Expr::Block(b) if b.label.is_none() => {
                let prefix = format!("::frugal_probe::hit({f}); ");
                self.with_parent(f, |s| s.block(&b.block, Some(prefix)));
            }
            other => self.with_parent(f, |s| s.visit_expr(other)),
        }
        let node = (self.range(l).0, self.range(&l.semi_token).1);
        self.close(node, format!(" ::frugal_probe::hit({t});"));
        self.pending_parent = Some(t);
    }

    fn visit_expr_if(&mut self, e: &'ast ExprIf) {
        let if_line = line(e.if_token.span);
        let node = self.range(e);
        let has_let = contains_let(&e.cond);
        let (t, f) = if has_let {
            (
                self.branch_goal(if_line, "if let true"),
                self.branch_goal(if_line, "if let false"),
            )
        } else {
            (
                self.branch_goal(if_line, "if true"),
                self.branch_goal(if_line, "if false"),
            )
        };
        if has_let {
            // Conditions with `let` are not rewritten; the branches record themselves.
            self.visit_expr(&e.cond);
        } else {
            self.condition(&e.cond, t, f);
        }
        let prefix = has_let.then(|| format!("::frugal_probe::hit({t}); "));
        self.with_parent(t, |s| s.block(&e.then_branch, prefix));
        match &e.else_branch {
            Some((_, els)) => self.else_branch(els, f, has_let),
            // An `if let` without `else` is unit-typed, so an added `else` is too.
            None if has_let => self.close(node, format!(" else {{ ::frugal_probe::hit({f}); }}")),
            None => {}
        }
        self.if_false.insert(e.if_token.span.byte_range().start, f);
    }

    fn visit_expr_while(&mut self, e: &'ast ExprWhile) {
        let while_line = line(e.while_token.span);
        if contains_let(&e.cond) {
            let t = self.branch_goal(while_line, "while let true");
            self.visit_expr(&e.cond);
            self.loop_body(&e.body, while_line, t);
        } else {
            let t = self.branch_goal(while_line, "while true");
            let f = self.branch_goal(while_line, "while false");
            self.condition(&e.cond, t, f);
            self.loop_body(&e.body, while_line, t);
        }
    }

    fn visit_expr_for_loop(&mut self, e: &'ast ExprForLoop) {
        self.visit_expr(&e.expr);
        let for_line = line(e.for_token.span);
        let g = self.branch_goal(for_line, "loop body");
        self.loop_body(&e.body, for_line, g);
    }

    fn visit_expr_loop(&mut self, e: &'ast ExprLoop) {
        let loop_line = line(e.loop_token.span);
        let g = self.branch_goal(loop_line, "loop body");
        self.loop_body(&e.body, loop_line, g);
    }

    fn visit_expr_match(&mut self, m: &'ast ExprMatch) {
        // Matches on literals report how far the scrutinee is from each literal arm
        // ([testability]): the wrapper must enclose the scrutinee's own probes, so it is opened
        // now and its arm list filled in once the arms have goals.
        let literals = literal_arms(m);
        let wrapper = literals.as_ref().map(|_| {
            let scrutinee = self.range(&*m.expr);
            self.open(scrutinee, String::new());
            let at = self.edits.len() - 1;
            self.close(scrutinee, ")");
            at
        });
        let mut pairs: Vec<String> = Vec::new();
        self.visit_expr(&m.expr);
        for (i, arm) in m.arms.iter().enumerate() {
            let (pat, guard) = match &arm.pat {
                Pat::Guard(g) => (&*g.pat, Some(&*g.guard)),
                p => (p, None),
            };
            let pat_range = self.range(pat);
            let arm_line = line(pat.span());
            let mut arm_parent = None;
            if let Some(guard) = guard {
                if contains_let(guard) {
                    self.visit_expr(guard);
                } else {
                    self.guard_mutants(guard);
                    let t = self.branch_goal(arm_line, "guard true");
                    let f = self.branch_goal(arm_line, "guard false");
                    self.condition(guard, t, f);
                    arm_parent = Some(t);
                }
            }
            let label = format!(
                "match arm {}",
                shorten(&collapse(self.source(pat_range)), 40)
            );
            let g = match arm_parent {
                Some(t) => self.with_parent(t, |s| s.branch_goal(arm_line, label)),
                None => self.branch_goal(arm_line, label),
            };
            if let Some(entries) = literals
                .as_ref()
                .and_then(|(_, l)| l.get(i))
                .filter(|_| guard.is_none())
            {
                pairs.extend(entries.iter().map(|e| format!("({g}, {e})")));
            }
            self.arm_deletion(m, &arm.pat, g);
            self.with_parent(g, |s| s.arm_body(&arm.body, g));
        }
        if let (Some(at), Some((probe, _))) = (wrapper, &literals) {
            self.edits[at].text = format!("::frugal_probe::{probe}(&[{}], ", pairs.join(", "));
        }
    }

    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if !self.logical_site(e)
            && !self.value_comparison_site(e)
            && !self.compound_site(e)
            && !self.arith_site(e)
        {
            visit::visit_expr_binary(self, e);
        }
    }

    fn visit_expr_unary(&mut self, e: &'ast syn::ExprUnary) {
        if !self.negation_site(e) {
            visit::visit_expr_unary(self, e);
        }
    }

    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        if !self.observed_method(e) {
            visit::visit_expr_method_call(self, e);
        }
    }

    fn visit_expr_call(&mut self, e: &'ast syn::ExprCall) {
        if !self.observed_call(e) {
            visit::visit_expr_call(self, e);
        }
    }

    fn visit_expr_try(&mut self, e: &'ast ExprTry) {
        let q_line = line(e.question_token.span);
        let ok = self.branch_goal(q_line, "? ok");
        let err = self.branch_goal(q_line, "? err");
        let node = self.range(&*e.expr);
        self.open(node, format!("::frugal_probe::q({ok}, {err}, "));
        self.close(node, ")");
        self.visit_expr(&e.expr);
    }
}

/// Source text on one line with runs of whitespace collapsed.
fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}
