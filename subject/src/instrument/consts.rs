//! Which `const fn`s must stay `const`. Probes are not `const`, so a `const fn` can only be
//! instrumented once its `const` is removed, and that is only sound where no const context
//! calls it: a `const` or `static` initialiser, an array length, a const generic argument, an
//! enum discriminant, a `const { }` block, or the body of a `const fn` that stays `const`.
//!
//! The answer is by name, a fixpoint over every `.rs` file of the crate (its tests, benches
//! and examples too, which build against the same library): a fn whose name is called in a
//! const context stays `const`, its body becomes a const context, and so on. Names written in
//! a macro's tokens count as called (a `macro_rules!` body may build constants). Same-named
//! fns of other types stay `const` too; that only costs instrumentation, never a build. A
//! build that fails anyway on a non-const call (E0015) is retried with every `const fn` kept
//! (`instrument_and_build`).

use std::collections::BTreeSet;
use std::path::Path;

use ignore::WalkBuilder;
use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// The names of fns called in const contexts of the crate at `crate_dir`: its `const fn`s of
/// these names keep their `const` (and go uninstrumented).
pub(crate) fn needed_const(crate_dir: &Path) -> BTreeSet<String> {
    let mut files = Vec::new();
    let walker = WalkBuilder::new(crate_dir)
        .hidden(false)
        .parents(false)
        .require_git(false)
        .git_global(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != "target")
        .build();
    for entry in walker.flatten() {
        let path = entry.path();
        if entry.file_type().is_some_and(|t| t.is_file())
            && path.extension().is_some_and(|x| x == "rs")
            && let Ok(rel) = path.strip_prefix(crate_dir)
            && let Ok(text) = crate::tree::read_crate_file(crate_dir, rel)
            && let Ok(ast) = syn::parse_file(&text)
        {
            files.push(ast);
        }
    }
    needed_in(&files)
}

/// [`needed_const`] over parsed files.
pub(crate) fn needed_in(files: &[syn::File]) -> BTreeSet<String> {
    let mut scan = Scan::default();
    for f in files {
        scan.visit_file(f);
    }
    let mut needed = scan.called;
    // A kept `const fn`'s body is a const context: what it calls is needed too.
    loop {
        let before = needed.len();
        for (name, calls) in &scan.const_fns {
            if needed.contains(name) {
                needed.extend(calls.iter().cloned());
            }
        }
        if needed.len() == before {
            return needed;
        }
    }
}

#[derive(Default)]
struct Scan {
    /// Names called in const contexts other than `const fn` bodies.
    called: BTreeSet<String>,
    /// Every `const fn`: its name and the names its body calls.
    const_fns: Vec<(String, BTreeSet<String>)>,
}

impl Scan {
    fn calls_in(&mut self, f: impl FnOnce(&mut Calls)) -> BTreeSet<String> {
        let mut c = Calls::default();
        f(&mut c);
        c.names
    }

    fn context(&mut self, f: impl FnOnce(&mut Calls)) {
        let names = self.calls_in(f);
        self.called.extend(names);
    }

    fn const_fn(&mut self, sig: &syn::Signature, block: &syn::Block) {
        if sig.constness.is_some() {
            let calls = self.calls_in(|c| c.visit_block(block));
            self.const_fns.push((sig.ident.to_string(), calls));
        }
    }
}

impl<'ast> Visit<'ast> for Scan {
    fn visit_item_fn(&mut self, i: &'ast syn::ItemFn) {
        self.const_fn(&i.sig, &i.block);
        syn::visit::visit_item_fn(self, i);
    }
    fn visit_impl_item_fn(&mut self, i: &'ast syn::ImplItemFn) {
        self.const_fn(&i.sig, &i.block);
        syn::visit::visit_impl_item_fn(self, i);
    }
    fn visit_item_const(&mut self, i: &'ast syn::ItemConst) {
        self.context(|c| c.visit_expr(&i.expr));
        syn::visit::visit_item_const(self, i);
    }
    fn visit_item_static(&mut self, i: &'ast syn::ItemStatic) {
        self.context(|c| c.visit_expr(&i.expr));
        syn::visit::visit_item_static(self, i);
    }
    fn visit_impl_item_const(&mut self, i: &'ast syn::ImplItemConst) {
        self.context(|c| c.visit_expr(&i.expr));
        syn::visit::visit_impl_item_const(self, i);
    }
    fn visit_trait_item_const(&mut self, i: &'ast syn::TraitItemConst) {
        if let Some((_, e)) = &i.default {
            self.context(|c| c.visit_expr(e));
        }
        syn::visit::visit_trait_item_const(self, i);
    }
    fn visit_type_array(&mut self, i: &'ast syn::TypeArray) {
        self.context(|c| c.visit_expr(&i.len));
        syn::visit::visit_type_array(self, i);
    }
    fn visit_expr_repeat(&mut self, i: &'ast syn::ExprRepeat) {
        self.context(|c| c.visit_expr(&i.len));
        syn::visit::visit_expr_repeat(self, i);
    }
    fn visit_expr_const(&mut self, i: &'ast syn::ExprConst) {
        self.context(|c| c.visit_block(&i.block));
        syn::visit::visit_expr_const(self, i);
    }
    fn visit_generic_argument(&mut self, i: &'ast syn::GenericArgument) {
        if let syn::GenericArgument::Const(e) = i {
            self.context(|c| c.visit_expr(e));
        }
        syn::visit::visit_generic_argument(self, i);
    }
    fn visit_variant(&mut self, i: &'ast syn::Variant) {
        if let Some((_, e)) = &i.discriminant {
            self.context(|c| c.visit_expr(e));
        }
        syn::visit::visit_variant(self, i);
    }
    fn visit_const_param(&mut self, i: &'ast syn::ConstParam) {
        if let Some((_, e)) = &i.default {
            self.context(|c| c.visit_expr(e));
        }
        syn::visit::visit_const_param(self, i);
    }
    fn visit_item_macro(&mut self, i: &'ast syn::ItemMacro) {
        // A `macro_rules!` body (or an item macro's input) may build constants.
        self.called.extend(idents(&i.mac.tokens));
    }
}

/// The names an expression calls: paths called as fns (last segment), methods, and every
/// identifier inside a macro's tokens.
#[derive(Default)]
struct Calls {
    names: BTreeSet<String>,
}

impl<'ast> Visit<'ast> for Calls {
    fn visit_expr_call(&mut self, i: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*i.func
            && let Some(last) = p.path.segments.last()
        {
            self.names.insert(last.ident.to_string());
        }
        syn::visit::visit_expr_call(self, i);
    }
    fn visit_expr_method_call(&mut self, i: &'ast syn::ExprMethodCall) {
        self.names.insert(i.method.to_string());
        syn::visit::visit_expr_method_call(self, i);
    }
    fn visit_expr_path(&mut self, i: &'ast syn::ExprPath) {
        // A fn named without a call (`const F: fn() = f;`, `map(f)` in a const fn) is used too.
        if let Some(last) = i.path.segments.last() {
            self.names.insert(last.ident.to_string());
        }
        syn::visit::visit_expr_path(self, i);
    }
    fn visit_macro(&mut self, i: &'ast syn::Macro) {
        self.names.extend(idents(&i.tokens));
    }
}

fn idents(tokens: &TokenStream) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for t in tokens.clone() {
        match t {
            TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            TokenTree::Group(g) => out.extend(idents(&g.stream())),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needed(src: &str) -> Vec<String> {
        needed_in(&[syn::parse_file(src).unwrap()])
            .into_iter()
            .filter(|n| n.starts_with('k'))
            .collect()
    }

    /// Names called from const contexts, and from kept `const fn`s, transitively, stay
    /// `const`; a `const fn` only called at run time does not.
    #[test]
    fn const_contexts_keep_their_callees_const() {
        let src = "
            const A: u8 = k_item();
            static S: Foo = Foo::k_assoc(1);
            struct Buf([u8; k_len()]);
            enum E { X = k_discr() as isize }
            impl Foo { const C: u32 = Self::k_in_impl(); }
            const fn k_item() -> u8 { k_nested() }
            const fn k_nested() -> u8 { 1 }
            const fn k_runtime_only(a: u8) -> u8 { k_inner_of_runtime() + a }
            const fn k_inner_of_runtime() -> u8 { 2 }
            fn f() { let _ = [0u8; k_repeat()]; let _ = k_runtime_only(1); g::<{ k_generic() }>(); }
            macro_rules! m { () => { const Z: u8 = k_macro(); } }
        ";
        assert_eq!(
            needed(src),
            [
                "k_assoc",
                "k_discr",
                "k_generic",
                "k_in_impl",
                "k_item",
                "k_len",
                "k_macro",
                "k_nested",
                "k_repeat"
            ]
        );
    }
}
