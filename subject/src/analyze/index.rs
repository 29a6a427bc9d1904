//! The crate's items by module, and syntactic name resolution over them.
//!
//! Resolution follows the 2018+ rules closely enough for signatures: a path starts at `crate`,
//! `self`, `super`, or a name in scope (an item, a `use`, a glob import); a first segment found
//! nowhere names an extern crate or the prelude and stays external. No type inference, no
//! macros: what `syn` shows is what we know.

use std::collections::BTreeSet;

use super::attrs;
use super::walk::{ModId, Module};

/// A crate item a path can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Target {
    Mod(ModId),
    /// Index into [`Index::types`].
    Type(usize),
    /// Index into [`Index::fns`].
    Fn(usize),
    /// Index into [`Index::aliases`].
    Alias(usize),
    /// The n-th trait definition of the crate.
    Trait(usize),
    /// Index into [`Index::values`]: a `const` or `static` item.
    Value(usize),
}

/// What a path resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolved {
    Local(Target),
    /// Outside the crate: std, a dependency, or something we could not see; full path.
    External(Vec<String>),
}

/// Namespaces matter where a type and a function share a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ns {
    Type,
    Value,
}

impl Target {
    fn in_ns(self, ns: Ns) -> bool {
        match ns {
            Ns::Type => !matches!(self, Target::Fn(_) | Target::Value(_)),
            Ns::Value => matches!(self, Target::Fn(_) | Target::Value(_)),
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) enum TypeItem {
    Struct(syn::ItemStruct),
    Enum(syn::ItemEnum),
}

/// A struct or enum definition.
#[derive(Debug, Clone)]
pub(crate) struct TypeDecl {
    pub module: ModId,
    pub item: TypeItem,
}

impl TypeDecl {
    pub(crate) fn generics(&self) -> &syn::Generics {
        match &self.item {
            TypeItem::Struct(s) => &s.generics,
            TypeItem::Enum(e) => &e.generics,
        }
    }
    pub(crate) fn attrs(&self) -> &[syn::Attribute] {
        match &self.item {
            TypeItem::Struct(s) => &s.attrs,
            TypeItem::Enum(e) => &e.attrs,
        }
    }
    pub(crate) fn has_lifetimes(&self) -> bool {
        self.generics().lifetimes().next().is_some()
    }
    pub(crate) fn is_generic(&self) -> bool {
        !self.generics().params.is_empty()
    }
}

#[derive(Debug, Clone)]
pub(crate) struct FnDecl {
    pub module: ModId,
    pub item: syn::ItemFn,
}

#[derive(Debug, Clone)]
pub(crate) struct AliasDecl {
    pub module: ModId,
    pub item: syn::ItemType,
}

/// A `const` or `static` item: a value tests can name.
#[derive(Debug, Clone)]
pub(crate) struct ValueDecl {
    pub module: ModId,
    pub ty: syn::Type,
    pub is_static: bool,
    pub attrs: Vec<syn::Attribute>,
    /// A `const`'s value expression (an array length may name it: `[u8; BLOCK_SIZE]`).
    pub expr: Option<syn::Expr>,
}

/// A trait definition: its default methods are callables of every impl that keeps them.
#[derive(Debug, Clone)]
pub(crate) struct TraitDecl {
    pub module: ModId,
    pub item: syn::ItemTrait,
}

#[derive(Debug, Clone)]
pub(crate) struct ImplDecl {
    pub module: ModId,
    pub item: syn::ItemImpl,
}

/// A name a module defines.
#[derive(Debug, Clone)]
pub(crate) struct Def {
    pub name: String,
    pub target: Target,
    /// Declared plain `pub`, or nameable by the tests (see [`Index::reach`]).
    pub public: bool,
    pub hidden: bool,
    /// For a name only tests inside a module can reach (in-module placement): that module.
    pub home: Option<ModId>,
}

/// One imported name (or glob) of a `use` item, flattened from its tree.
#[derive(Debug, Clone)]
pub(crate) struct UseDecl {
    pub public: bool,
    pub hidden: bool,
    /// `use ::foo::..`: never crate-relative.
    pub global: bool,
    pub path: Vec<String>,
    /// The name it binds; `None` for a glob.
    pub name: Option<String>,
}

/// All items of the crate, by module.
#[derive(Debug, Default)]
pub(crate) struct Index {
    pub modules: Vec<Module>,
    pub types: Vec<TypeDecl>,
    pub fns: Vec<FnDecl>,
    pub aliases: Vec<AliasDecl>,
    pub values: Vec<ValueDecl>,
    pub traits: Vec<TraitDecl>,
    pub impls: Vec<ImplDecl>,
    pub defs: Vec<Vec<Def>>,
    pub uses: Vec<Vec<UseDecl>>,
    /// Visibility as seen from a test module at the crate root, not from an integration test.
    pub in_crate: bool,
    /// Tests may also live inside any module with a file of its own (in-module placement), so
    /// private items of such modules are callable from there.
    pub in_modules: bool,
}

/// Where a test must live to name an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// No generated test can name it.
    No,
    /// Where the suite lives: an integration test, or a module at the crate root.
    Root,
    /// Inside this module (or below it): private items of modules with a file of their own.
    Module(ModId),
}

/// Deep enough for real re-export chains, shallow enough to stop a runaway.
const MAX_DEPTH: usize = 48;

/// Names being resolved right now, to cut cycles through glob imports.
#[derive(Default)]
pub(crate) struct Guard {
    active: BTreeSet<(ModId, String)>,
    depth: usize,
}

impl Index {
    pub(crate) fn build(modules: Vec<Module>, in_crate: bool, in_modules: bool) -> Self {
        let mut ix = Index {
            defs: vec![Vec::new(); modules.len()],
            uses: vec![Vec::new(); modules.len()],
            in_crate,
            in_modules: in_crate && in_modules,
            ..Index::default()
        };
        let mut children = Vec::new();
        for (id, module) in modules.iter().enumerate() {
            for (name, &child) in &module.children {
                let child_mod = &modules[child];
                children.push((id, name.clone(), child, child_mod.vis, child_mod.hidden));
            }
        }
        ix.modules = modules;
        for (id, name, child, vis, hidden) in children {
            let reach = ix.reach_of(vis, id);
            ix.defs[id].push(Def {
                name,
                target: Target::Mod(child),
                public: reach != Reach::No,
                hidden,
                home: home_of(reach),
            });
        }
        for id in 0..ix.modules.len() {
            let items = std::mem::take(&mut ix.modules[id].items);
            for item in &items {
                ix.add_item(id, item);
            }
            ix.modules[id].items = items;
        }
        ix
    }

    /// Whether an item declared with `vis` in `module` can be named by the generated tests.
    pub(crate) fn visible(&self, vis: &syn::Visibility, module: ModId) -> bool {
        self.reach(vis, module) != Reach::No
    }

    /// Where a test must live to name an item declared with `vis` in `module`.
    pub(crate) fn reach(&self, vis: &syn::Visibility, module: ModId) -> Reach {
        self.reach_of(vis_of(vis), module)
    }

    fn reach_of(&self, vis: Vis, module: ModId) -> Reach {
        if visible_in(&self.modules, self.in_crate, vis, module) {
            return Reach::Root;
        }
        if !self.in_modules {
            return Reach::No;
        }
        let home = match vis {
            Vis::Super => self.modules[module].parent.unwrap_or(0),
            _ => module,
        };
        if self.has_own_file(home) {
            Reach::Module(home)
        } else {
            Reach::No
        }
    }

    /// A module whose items a test module can be appended to: the root, or one declared
    /// `mod name;` with a file of its own (an inline `mod name { .. }` shares its parent's).
    fn has_own_file(&self, m: ModId) -> bool {
        match self.modules[m].parent {
            None => true,
            Some(p) => self.modules[p].file != self.modules[m].file,
        }
    }

    /// `a::b` for module `b` inside `a`; empty for the root.
    pub(crate) fn module_path(&self, m: ModId) -> String {
        let mut names = Vec::new();
        let mut at = m;
        while let Some(parent) = self.modules[at].parent {
            if let Some((name, _)) = self.modules[parent]
                .children
                .iter()
                .find(|(_, c)| **c == at)
            {
                names.push(name.clone());
            }
            at = parent;
        }
        names.reverse();
        names.join("::")
    }

    /// Whether module `m` is `outer` or inside it.
    pub(crate) fn within(&self, m: ModId, outer: ModId) -> bool {
        let mut at = Some(m);
        while let Some(x) = at {
            if x == outer {
                return true;
            }
            at = self.modules[x].parent;
        }
        false
    }

    /// Of two modules on one path from the root, the inner one.
    pub(crate) fn deeper(&self, a: ModId, b: ModId) -> ModId {
        if self.depth(a) > self.depth(b) { a } else { b }
    }

    /// How many modules enclose `m` (0 for the root).
    pub(crate) fn depth(&self, m: ModId) -> usize {
        let mut depth = 0;
        let mut at = m;
        while let Some(parent) = self.modules[at].parent {
            depth += 1;
            at = parent;
        }
        depth
    }

    fn add_item(&mut self, module: ModId, item: &syn::Item) {
        let hidden = attrs::is_doc_hidden(attrs::item_attrs(item));
        let (name, target, vis) = match item {
            syn::Item::Struct(s) => {
                self.types.push(TypeDecl {
                    module,
                    item: TypeItem::Struct(s.clone()),
                });
                (&s.ident, Target::Type(self.types.len() - 1), &s.vis)
            }
            syn::Item::Enum(e) => {
                self.types.push(TypeDecl {
                    module,
                    item: TypeItem::Enum(e.clone()),
                });
                (&e.ident, Target::Type(self.types.len() - 1), &e.vis)
            }
            syn::Item::Fn(f) => {
                self.fns.push(FnDecl {
                    module,
                    item: f.clone(),
                });
                (&f.sig.ident, Target::Fn(self.fns.len() - 1), &f.vis)
            }
            syn::Item::Type(t) => {
                self.aliases.push(AliasDecl {
                    module,
                    item: t.clone(),
                });
                (&t.ident, Target::Alias(self.aliases.len() - 1), &t.vis)
            }
            syn::Item::Const(c) if c.generics.params.is_empty() => {
                let target = self.add_value(module, &c.ty, Some(&c.expr), &c.attrs);
                (&c.ident, target, &c.vis)
            }
            syn::Item::Static(s) if matches!(s.mutability, syn::StaticMutability::None) => {
                let target = self.add_value(module, &s.ty, None, &s.attrs);
                (&s.ident, target, &s.vis)
            }
            syn::Item::Trait(t) => {
                self.traits.push(TraitDecl {
                    module,
                    item: t.clone(),
                });
                (&t.ident, Target::Trait(self.traits.len() - 1), &t.vis)
            }
            syn::Item::Impl(i) => {
                self.impls.push(ImplDecl {
                    module,
                    item: super::wrapped_fns::unwrapped(i),
                });
                return;
            }
            syn::Item::Use(u) => {
                // Re-exports count from the root only: a private `use` is no path to an item.
                let public = self.reach(&u.vis, module) == Reach::Root;
                let mut out = Vec::new();
                flatten_use(&u.tree, Vec::new(), &mut out);
                for (path, name) in out {
                    self.uses[module].push(UseDecl {
                        public,
                        hidden,
                        global: u.leading_colon.is_some(),
                        path,
                        name,
                    });
                }
                return;
            }
            _ => return,
        };
        let reach = self.reach(vis, module);
        self.defs[module].push(Def {
            name: name.to_string(),
            target,
            public: reach != Reach::No,
            hidden,
            home: home_of(reach),
        });
    }

    fn add_value(
        &mut self,
        module: ModId,
        ty: &syn::Type,
        const_expr: Option<&syn::Expr>,
        attrs: &[syn::Attribute],
    ) -> Target {
        self.values.push(ValueDecl {
            module,
            ty: ty.clone(),
            is_static: const_expr.is_none(),
            attrs: attrs.to_vec(),
            expr: const_expr.cloned(),
        });
        Target::Value(self.values.len() - 1)
    }

    pub(crate) fn is_hidden(&self, target: Target) -> bool {
        let attrs: &[syn::Attribute] = match target {
            Target::Mod(m) => return self.modules[m].hidden,
            Target::Type(t) => self.types[t].attrs(),
            Target::Fn(f) => &self.fns[f].item.attrs,
            Target::Alias(a) => &self.aliases[a].item.attrs,
            Target::Value(v) => &self.values[v].attrs,
            Target::Trait(_) => return false,
        };
        attrs::is_doc_hidden(attrs)
    }

    /// The crate struct or enum an `impl` block is for, if its self type names one.
    pub(crate) fn impl_target(&self, imp: &ImplDecl) -> Option<usize> {
        self.type_target(imp.module, &imp.item.self_ty)
    }

    /// The crate type a type written in module `m` names, if it is a plain path to one.
    pub(crate) fn type_target(&self, m: ModId, ty: &syn::Type) -> Option<usize> {
        let syn::Type::Path(tp) = ty else {
            return None;
        };
        if tp.qself.is_some() {
            return None;
        }
        match self.resolve(m, &tp.path, Ns::Type)? {
            Resolved::Local(Target::Type(t)) => Some(t),
            _ => None,
        }
    }

    /// Resolves a path written in module `m`.
    pub(crate) fn resolve(&self, m: ModId, path: &syn::Path, ns: Ns) -> Option<Resolved> {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if path.leading_colon.is_some() {
            return Some(Resolved::External(segs));
        }
        self.resolve_segs(m, &segs, ns, &mut Guard::default())
    }

    pub(crate) fn resolve_segs(
        &self,
        m: ModId,
        segs: &[String],
        ns: Ns,
        guard: &mut Guard,
    ) -> Option<Resolved> {
        let mut cur = m;
        let mut i = 0;
        while i < segs.len() {
            match segs[i].as_str() {
                "crate" if i == 0 => cur = 0,
                "self" if i == 0 => {}
                "super" if segs[..i].iter().all(|s| s == "self" || s == "super") => {
                    cur = self.modules[cur].parent?;
                }
                _ => break,
            }
            i += 1;
        }
        let anchored = i > 0;
        let Some(first) = segs.get(i) else {
            return Some(Resolved::Local(Target::Mod(cur)));
        };
        let first_ns = if i + 1 == segs.len() { ns } else { Ns::Type };
        let mut found = match self.lookup(cur, first, first_ns, guard) {
            Some(found) => found,
            // Not in the crate: an extern crate or the prelude.
            None if !anchored => return Some(Resolved::External(segs[i..].to_vec())),
            None => return None,
        };
        for (j, seg) in segs.iter().enumerate().skip(i + 1) {
            let seg_ns = if j + 1 == segs.len() { ns } else { Ns::Type };
            found = match found {
                Resolved::Local(Target::Mod(x)) => self.lookup(x, seg, seg_ns, guard)?,
                Resolved::External(mut path) => {
                    path.push(seg.clone());
                    Resolved::External(path)
                }
                // `Enum::Variant` or `Type::assoc`: not an item of its own.
                Resolved::Local(_) => return None,
            };
        }
        Some(found)
    }

    /// A name in module `m`: its own items first, then named imports, then globs.
    pub(crate) fn lookup(
        &self,
        m: ModId,
        name: &str,
        ns: Ns,
        guard: &mut Guard,
    ) -> Option<Resolved> {
        if let Some(def) = self.defs[m]
            .iter()
            .find(|d| d.name == name && d.target.in_ns(ns))
        {
            return Some(Resolved::Local(def.target));
        }
        let key = (m, name.to_string());
        if guard.depth > MAX_DEPTH || !guard.active.insert(key.clone()) {
            return None;
        }
        guard.depth += 1;
        let found = self.lookup_imports(m, name, ns, guard);
        guard.depth -= 1;
        guard.active.remove(&key);
        found
    }

    fn lookup_imports(&self, m: ModId, name: &str, ns: Ns, guard: &mut Guard) -> Option<Resolved> {
        for u in self.uses[m]
            .iter()
            .filter(|u| u.name.as_deref() == Some(name))
        {
            if let Some(found) = self.resolve_use(m, u, ns, guard) {
                return Some(found);
            }
        }
        for u in self.uses[m].iter().filter(|u| u.name.is_none()) {
            if let Some(Resolved::Local(Target::Mod(x))) = self.resolve_use(m, u, Ns::Type, guard)
                && x != m
                && let Some(found) = self.lookup(x, name, ns, guard)
            {
                return Some(found);
            }
        }
        None
    }

    pub(crate) fn resolve_use(
        &self,
        m: ModId,
        u: &UseDecl,
        ns: Ns,
        guard: &mut Guard,
    ) -> Option<Resolved> {
        if u.global {
            return Some(Resolved::External(u.path.clone()));
        }
        let found = self.resolve_segs(m, &u.path, ns, guard)?;
        match found {
            Resolved::Local(t) if !t.in_ns(ns) => None,
            other => Some(other),
        }
    }
}

fn home_of(reach: Reach) -> Option<ModId> {
    match reach {
        Reach::Module(m) => Some(m),
        _ => None,
    }
}

/// A declared visibility, coarsened to what decides who can name the item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Vis {
    Public,
    /// `pub(crate)`, `pub(in crate::..)`.
    Crate,
    /// `pub(super)`, `pub(in super)`.
    Super,
    /// No `pub`, `pub(self)`.
    Private,
}

pub(crate) fn vis_of(vis: &syn::Visibility) -> Vis {
    match vis {
        syn::Visibility::Public(_) => Vis::Public,
        syn::Visibility::Inherited => Vis::Private,
        syn::Visibility::Restricted(r) => match r.path.segments.first() {
            Some(s) if s.ident == "crate" => Vis::Crate,
            Some(s) if s.ident == "super" => Vis::Super,
            _ => Vis::Private,
        },
    }
}

/// Whether an item declared with `vis` in module `module` can be named by the reader: with
/// `in_crate` off, an integration test (plain `pub` only); with it on, a test module that is a
/// child of the crate root (restricted visibilities reaching the root, private root items).
pub(crate) fn visible_in(modules: &[Module], in_crate: bool, vis: Vis, module: ModId) -> bool {
    match (in_crate, vis) {
        (_, Vis::Public) => true,
        (false, _) => false,
        (true, Vis::Crate) => true,
        (true, Vis::Super) => module == 0 || modules.get(module).and_then(|m| m.parent) == Some(0),
        (true, Vis::Private) => module == 0,
    }
}

/// Turns `a::{b, c as d, e::*}` into `(path, bound name)` pairs; globs bind `None`.
fn flatten_use(
    tree: &syn::UseTree,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    match tree {
        syn::UseTree::Path(p) => {
            let mut next = prefix;
            next.push(p.ident.to_string());
            flatten_use(&p.tree, next, out);
        }
        syn::UseTree::Name(n) if n.ident == "self" => {
            if let Some(last) = prefix.last().cloned() {
                out.push((prefix, Some(last)));
            }
        }
        syn::UseTree::Name(n) => {
            let mut path = prefix;
            path.push(n.ident.to_string());
            out.push((path, Some(n.ident.to_string())));
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix;
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            if r.rename != "_" {
                out.push((path, Some(r.rename.to_string())));
            }
        }
        syn::UseTree::Glob(_) => out.push((prefix, None)),
        syn::UseTree::Group(g) => {
            for item in &g.items {
                flatten_use(item, prefix.clone(), out);
            }
        }
    }
}
