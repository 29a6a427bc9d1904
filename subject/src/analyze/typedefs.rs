//! Public crate types: shape (fields when a literal can build it, variants), the traits they
//! derive or implement, and which of them can stand in for a bounded generic parameter.

use std::collections::{BTreeMap, BTreeSet};

use syn::visit::Visit;

use super::attrs::{self, CfgEval};
use super::index::{Ns, Reach, Resolved, TypeItem};
use super::types::{Lowering, Pos, Scope, SelfTy, source_text};
use super::walk::ModId;
use crate::model::{
    Callable, CallableKind, CrateValue, Field, Ty, TypeDef, TypeKind, Variant, VariantShape,
};

/// Trait keys per crate type (index into the type table): derives plus `impl Trait for Type`.
pub(crate) fn trait_keys(low: &Lowering<'_>) -> BTreeMap<usize, BTreeSet<String>> {
    let mut keys: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
    for (t, decl) in low.ix.types.iter().enumerate() {
        keys.entry(t)
            .or_default()
            .extend(attrs::derived_traits(decl.attrs()));
    }
    let empty = BTreeMap::new();
    for imp in &low.ix.impls {
        let Some((trait_path, _)) = &imp.item.trait_ else {
            continue;
        };
        if imp.item.modifiers.polarity.is_some() {
            continue;
        }
        let Some(t) = low.ix.impl_target(imp) else {
            continue;
        };
        let scope = Scope {
            module: imp.module,
            self_ty: None,
            subst: &empty,
        };
        keys.entry(t)
            .or_default()
            .insert(low.trait_key(scope, trait_path));
    }
    keys
}

/// Public, non-generic crate types with their trait keys: candidates for generic parameters.
pub(crate) fn candidate_types(
    low: &Lowering<'_>,
    keys: &BTreeMap<usize, BTreeSet<String>>,
) -> Vec<(Ty, BTreeSet<String>)> {
    types_with_keys(low, keys, |decl| !decl.is_generic())
}

/// Public crate types generic only over lifetimes (`Options<'a>`), with their trait keys: the
/// targets of conversion bounds (`Opt: Into<Options<'a>>`).
pub(crate) fn borrowing_types(
    low: &Lowering<'_>,
    keys: &BTreeMap<usize, BTreeSet<String>>,
) -> Vec<(Ty, BTreeSet<String>)> {
    types_with_keys(low, keys, |decl| {
        let generics = decl.generics();
        decl.is_generic() && generics.lifetimes().count() == generics.params.len()
    })
}

fn types_with_keys(
    low: &Lowering<'_>,
    keys: &BTreeMap<usize, BTreeSet<String>>,
    keep: impl Fn(&super::index::TypeDecl) -> bool,
) -> Vec<(Ty, BTreeSet<String>)> {
    low.public
        .types
        .iter()
        .filter(|(t, _)| keep(&low.ix.types[**t]))
        .map(|(t, path)| {
            let ty = Ty::Adt {
                path: path.clone(),
                args: Vec::new(),
            };
            (ty, keys.get(t).cloned().unwrap_or_default())
        })
        .collect()
}

pub(crate) fn type_defs(
    low: &Lowering<'_>,
    cfg: &CfgEval,
    keys: &BTreeMap<usize, BTreeSet<String>>,
) -> Vec<TypeDef> {
    low.public
        .types
        .iter()
        .map(|(&t, path)| {
            let decl = &low.ix.types[t];
            // Generic parameters stay symbolic in field types: a TypeDef is not instantiated.
            let subst: BTreeMap<String, Ty> = decl
                .generics()
                .type_params()
                .map(|p| (p.ident.to_string(), Ty::Other(p.ident.to_string())))
                .collect();
            let self_ty = plain_self(path);
            let scope = Scope {
                module: decl.module,
                self_ty: Some(&self_ty),
                subst: &subst,
            };
            let kind = match &decl.item {
                TypeItem::Struct(s) => struct_kind(low, cfg, scope, s, path),
                TypeItem::Enum(e) => TypeKind::Enum {
                    variants: e
                        .variants
                        .iter()
                        .filter(|v| cfg.keeps(&v.attrs) && !attrs::is_doc_hidden(&v.attrs))
                        .map(|v| Variant {
                            name: v.ident.to_string(),
                            shape: variant_shape(low, cfg, scope, &v.fields),
                        })
                        .collect(),
                },
            };
            TypeDef {
                path: path.clone(),
                kind,
                traits: keys
                    .get(&t)
                    .map(|k| k.iter().cloned().collect())
                    .unwrap_or_default(),
                // Lifetimes alone do not make a type generic here: a value the harness builds
                // from storable fields is `'static` (an enum's unit variants, say, beside one
                // that borrows, `Token<'a>`), and one that borrows is only ever lent.
                generic: decl
                    .generics()
                    .params
                    .iter()
                    .any(|p| !matches!(p, syn::GenericParam::Lifetime(_))),
                params: substitutable_params(decl.generics()),
                unsized_tail: match &decl.item {
                    TypeItem::Struct(s) => unsized_tail(low, cfg, decl.module, s),
                    TypeItem::Enum(_) => false,
                },
            }
        })
        .collect()
}

/// Whether a struct's last field is unsized, which makes the struct unsized: a slice, `str`,
/// a trait object, or one of std's unsized path types (`OsStr`, `Path`, `CStr`; resolved, so a
/// crate's own sized `Path` is not taken for std's).
fn unsized_tail(low: &Lowering<'_>, cfg: &CfgEval, module: ModId, s: &syn::ItemStruct) -> bool {
    let last = s.fields.iter().filter(|f| cfg.keeps(&f.attrs)).last();
    match last.map(|f| &f.ty) {
        Some(syn::Type::Slice(_) | syn::Type::TraitObject(_)) => true,
        Some(syn::Type::Path(p)) if p.qself.is_none() && p.path.is_ident("str") => true,
        Some(syn::Type::Path(p)) if p.qself.is_none() => {
            match low.ix.resolve(module, &p.path, Ns::Type) {
                Some(Resolved::External(segs)) => {
                    matches!(
                        segs.first().map(String::as_str),
                        Some("std" | "core" | "alloc")
                    ) && matches!(
                        segs.last().map(String::as_str),
                        Some("OsStr" | "Path" | "CStr")
                    )
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// The type parameters' names when the generics hold nothing else but lifetimes, which an
/// instantiation leaves to inference (`Entry<'a, T>` instantiated as `Entry<i32>`).
fn substitutable_params(generics: &syn::Generics) -> Vec<String> {
    let only_types = generics.params.iter().all(|p| {
        matches!(
            p,
            syn::GenericParam::Type(_) | syn::GenericParam::Lifetime(_)
        )
    });
    if !only_types {
        return Vec::new();
    }
    generics
        .type_params()
        .map(|p| p.ident.to_string())
        .collect()
}

/// Whether `items` (a module's own, not its submodules') hold an `unsafe` block or fn.
fn has_unsafe_code(items: &[syn::Item]) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_unsafe(&mut self, _: &'ast syn::ExprUnsafe) {
            self.0 = true;
        }
        fn visit_signature(&mut self, sig: &'ast syn::Signature) {
            self.0 |= matches!(sig.safety, syn::Safety::Unsafe(_));
        }
        fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}
    }
    let mut finder = Finder(false);
    for item in items {
        finder.visit_item(item);
        if finder.0 {
            return true;
        }
    }
    false
}

/// A struct is built by a literal where its tests can name every field: private fields only
/// where the struct itself is private to the same module, so its tests live there anyway
/// (a literal has no path of its own for `emit::home` to place).
fn struct_kind(
    low: &Lowering<'_>,
    cfg: &CfgEval,
    scope: Scope<'_>,
    s: &syn::ItemStruct,
    path: &str,
) -> TypeKind {
    let fields: Vec<&syn::Field> = s.fields.iter().filter(|f| cfg.keeps(&f.attrs)).collect();
    let home = low.public.homes.get(path).copied();
    let nameable = |f: &&syn::Field| match low.ix.reach(&f.vis, scope.module) {
        Reach::Root => true,
        Reach::Module(m) => home == Some(m),
        Reach::No => false,
    };
    let private = fields
        .iter()
        .any(|f| !matches!(f.vis, syn::Visibility::Public(_)));
    // Private fields next to `unsafe` code hold its invariants (smallvec's `IntoIter { data,
    // current, end }`): a literal breaking them makes a test read uninitialised memory.
    let guarded = private && has_unsafe_code(&low.ix.modules[scope.module].items);
    let buildable = fields.iter().all(nameable)
        && !guarded
        && (low.ix.in_crate || !attrs::is_non_exhaustive(&s.attrs));
    TypeKind::Struct {
        fields: buildable.then(|| lower_fields(low, scope, &fields)),
        tuple: matches!(s.fields, syn::Fields::Unnamed(_)),
    }
}

fn variant_shape(
    low: &Lowering<'_>,
    cfg: &CfgEval,
    scope: Scope<'_>,
    fields: &syn::Fields,
) -> VariantShape {
    let kept: Vec<&syn::Field> = fields.iter().filter(|f| cfg.keeps(&f.attrs)).collect();
    match fields {
        syn::Fields::Unit => VariantShape::Unit,
        syn::Fields::Unnamed(_) => VariantShape::Tuple(
            lower_fields(low, scope, &kept)
                .into_iter()
                .map(|f| f.ty)
                .collect(),
        ),
        syn::Fields::Named(_) => VariantShape::Struct(lower_fields(low, scope, &kept)),
    }
}

fn lower_fields(low: &Lowering<'_>, scope: Scope<'_>, fields: &[&syn::Field]) -> Vec<Field> {
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| Field {
            name: f
                .ident
                .as_ref()
                .map_or_else(|| i.to_string(), ToString::to_string),
            ty: low
                .lower(scope, &f.ty, Pos::Other, &mut Vec::new())
                .unwrap_or_else(|_| Ty::Other(source_text(&f.ty))),
        })
        .collect()
}

/// Public `const` and `static` items whose type is a struct or enum without type arguments,
/// or a shared reference to one; then the associated consts of such types
/// ([`assoc_values`]).
pub(crate) fn crate_values(low: &Lowering<'_>, cfg: &CfgEval) -> Vec<CrateValue> {
    let mut values = module_values(low);
    values.extend(assoc_values(low, cfg));
    values
}

fn module_values(low: &Lowering<'_>) -> Vec<CrateValue> {
    let empty = BTreeMap::new();
    low.public
        .values
        .iter()
        .filter_map(|(&v, path)| {
            let decl = &low.ix.values[v];
            let scope = Scope {
                module: decl.module,
                self_ty: None,
                subst: &empty,
            };
            let ty = low
                .lower(scope, &decl.ty, Pos::Other, &mut Vec::new())
                .ok()?;
            let (ty, is_ref) = split_ref(ty);
            // Crate types, and arrays of a primitive (hex's `HEX_CHARS_LOWER: &[u8; 16]`, which
            // a `&'static [u8; 16]` parameter takes).
            let array_of_prim = |path: &str, args: &[Ty]| {
                path == crate::harness::std_values::ARRAY
                    && matches!(args.first(), Some(Ty::Prim(_)))
            };
            matches!(&ty, Ty::Adt { path, args } if args.is_empty() || array_of_prim(path, args))
                .then(|| CrateValue {
                    path: path.clone(),
                    ty,
                    is_static: decl.is_static,
                    is_ref,
                })
        })
        .collect()
}

/// The associated consts of the crate's non-generic types, declared in an inherent impl
/// (`impl AsciiSet { pub const EMPTY: Self = .. }`, `Duration::ZERO`): values a test names by
/// the type's path (`percent_encoding::AsciiSet::EMPTY`), often the only way to get a first
/// value of a type with private fields. Only those a test at the crate root can name.
fn assoc_values(low: &Lowering<'_>, cfg: &CfgEval) -> Vec<CrateValue> {
    let empty = BTreeMap::new();
    let mut out = Vec::new();
    for imp in low.ix.impls.iter().filter(|i| i.item.trait_.is_none()) {
        let Some(t) = low.ix.impl_target(imp) else {
            continue;
        };
        let Some(type_path) = low.public.types.get(&t) else {
            continue;
        };
        if low.ix.types[t].is_generic()
            || !imp.item.generics.params.is_empty()
            || low.public.homes.contains_key(type_path)
        {
            continue;
        }
        let self_ty = plain_self(type_path);
        let scope = Scope {
            module: imp.module,
            self_ty: Some(&self_ty),
            subst: &empty,
        };
        for item in &imp.item.items {
            let syn::ImplItem::Const(c) = item else {
                continue;
            };
            let named = low.ix.reach(&c.vis, imp.module) == Reach::Root
                && !attrs::is_doc_hidden(&c.attrs)
                && cfg.keeps(&c.attrs);
            let Some(ty) = named
                .then(|| low.lower(scope, &c.ty, Pos::Other, &mut Vec::new()).ok())
                .flatten()
            else {
                continue;
            };
            let (ty, is_ref) = split_ref(ty);
            if matches!(&ty, Ty::Adt { args, .. } if args.is_empty()) {
                out.push(CrateValue {
                    path: format!("{type_path}::{}", c.ident),
                    ty,
                    is_static: false,
                    is_ref,
                });
            }
        }
    }
    out
}

/// A constant's type, and whether it is declared as a shared reference to it.
fn split_ref(ty: Ty) -> (Ty, bool) {
    match ty {
        Ty::Ref {
            mutable: false,
            inner,
        } => (*inner, true),
        ty => (ty, false),
    }
}

/// `Self` inside a type's own impl or definition, its generic parameters left symbolic.
fn plain_self(path: &str) -> SelfTy {
    SelfTy {
        ty: Ty::Adt {
            path: path.to_string(),
            args: Vec::new(),
        },
        problem: None,
    }
}

/// `X::default()` for each public, non-generic type that derives `Default`: often the only way
/// to make a configuration type with private fields (httparse's `ParserConfig`). A manual
/// `impl Default` is a callable already (`callables::CALLABLE_TRAIT_FNS`).
pub(crate) fn derived_defaults(low: &Lowering<'_>) -> Vec<Callable> {
    low.public
        .types
        .iter()
        .filter_map(|(&t, path)| {
            let decl = &low.ix.types[t];
            let derives = attrs::derived_traits(decl.attrs());
            if !derives.iter().any(|d| d == "Default") || !decl.generics().params.is_empty() {
                return None;
            }
            let ty = Ty::Adt {
                path: path.clone(),
                args: Vec::new(),
            };
            let ident = match &decl.item {
                TypeItem::Struct(s) => &s.ident,
                TypeItem::Enum(e) => &e.ident,
            };
            let file = &low.ix.modules[decl.module].file;
            Some(Callable {
                kind: CallableKind::Assoc {
                    self_ty: ty.clone(),
                },
                ret: Some(ty),
                ..Callable::free(&format!("{path}::default"), file, ident.span().start().line)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::has_unsafe_code;

    fn items(src: &str) -> Vec<syn::Item> {
        syn::parse_file(src).expect("parses").items
    }

    #[test]
    fn unsafe_blocks_and_fns_count_but_not_those_of_submodules_or_unsafe_impls() {
        assert!(has_unsafe_code(&items(
            "impl<A> IntoIter<A> { fn next(&mut self) { unsafe { read(self.current) } } }"
        )));
        assert!(has_unsafe_code(&items(
            "pub unsafe fn set_len(n: usize) {}"
        )));
        assert!(!has_unsafe_code(&items(
            "unsafe impl Send for Cell {}\nmod raw { fn f() { unsafe {} } }\nfn safe() {}"
        )));
    }
}
