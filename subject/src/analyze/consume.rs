//! Results whose code runs only when a test consumes them: iterators (`impl Iterator<Item =
//! T>`, or a crate type with an `impl Iterator`) are collected into a `Vec<T>`, and `Display`
//! adaptors (`impl Display`, or a crate type generic over a lifetime whose use is its
//! `Display` impl, such as `Shout<'a>(&'a str)`) are turned into a `String`. The call then
//! yields the consumed value, which the pool keeps and tests assert on like any other. A result
//! that is both (percent-encoding's `PercentEncode`) is consumed both ways, by two callables,
//! since each runs its own code. A crate type with public methods of its own is also kept as
//! it is, by one more callable, so those methods get a receiver.

use std::collections::BTreeMap;

use super::index::ImplDecl;
use super::types::{Lowering, Pos, Scope};
use crate::model::{Consume, Ty};

/// Iterator traits whose `Item` a collected result holds.
const ITERATORS: &[&str] = &["Iterator", "DoubleEndedIterator", "ExactSizeIterator"];

/// The ways a call's result of source type `ret` is consumed, each with the type it becomes:
/// none, one, or collected and then formatted.
pub(crate) fn consumed(
    low: &Lowering<'_>,
    scope: Scope<'_>,
    ret: &syn::Type,
) -> Vec<(Consume, Ty)> {
    match ret {
        syn::Type::ImplTrait(it) => impl_trait(low, scope, &it.bounds),
        syn::Type::Path(_) => crate_type(low, scope, ret),
        syn::Type::Paren(p) => consumed(low, scope, &p.elem),
        _ => Vec::new(),
    }
}

/// The modes found, collected first.
fn modes(collect: Option<(Consume, Ty)>, display: bool) -> Vec<(Consume, Ty)> {
    collect
        .into_iter()
        .chain(display.then_some((Consume::ToString, Ty::String)))
        .collect()
}

/// `impl Iterator<Item = T> + '_` or `impl Display`.
fn impl_trait<'b>(
    low: &Lowering<'_>,
    scope: Scope<'_>,
    bounds: impl IntoIterator<Item = &'b syn::TypeParamBound>,
) -> Vec<(Consume, Ty)> {
    let mut display = false;
    let mut collect = None;
    for bound in bounds {
        let syn::TypeParamBound::Trait(tb) = bound else {
            continue;
        };
        let key = low.trait_key(scope, &tb.path);
        let name = key.split('<').next().unwrap_or_default();
        if ITERATORS.contains(&name) {
            collect = item_binding(&tb.path).and_then(|item| collected(low, scope, item));
        }
        display |= key == "Display";
    }
    modes(collect, display)
}

/// The `Item = T` binding of `Iterator<Item = T>`.
fn item_binding(path: &syn::Path) -> Option<&syn::Type> {
    let syn::PathArguments::AngleBracketed(a) = &path.segments.last()?.arguments else {
        return None;
    };
    a.args.iter().find_map(|g| match g {
        syn::GenericArgument::AssocType(at) if at.ident == "Item" => Some(&at.ty),
        _ => None,
    })
}

fn collected(low: &Lowering<'_>, scope: Scope<'_>, item: &syn::Type) -> Option<(Consume, Ty)> {
    let item = low.lower(scope, item, Pos::Other, &mut Vec::new()).ok()?;
    Some((Consume::Collect, Ty::Vec(Box::new(item))))
}

/// A crate type with an `impl Iterator` (its `type Item` lowered where the impl is), or one
/// generic only over lifetimes with an `impl Display`: such a value borrows, so the pool cannot
/// format it later.
fn crate_type(low: &Lowering<'_>, scope: Scope<'_>, ret: &syn::Type) -> Vec<(Consume, Ty)> {
    let Some(t) = low.ix.type_target(scope.module, ret) else {
        return Vec::new();
    };
    let decl = &low.ix.types[t];
    let impls =
        low.ix.impls.iter().filter(|imp| {
            imp.item.modifiers.polarity.is_none() && low.ix.impl_target(imp) == Some(t)
        });
    let mut display = false;
    let mut collect = None;
    for imp in impls {
        let Some(key) = trait_of(low, imp) else {
            continue;
        };
        if key == "Iterator"
            && let Some(subst) = impl_subst(low, scope, imp, ret)
        {
            let at = Scope {
                module: imp.module,
                self_ty: None,
                subst: &subst,
            };
            collect = imp
                .item
                .items
                .iter()
                .find_map(|i| match i {
                    syn::ImplItem::Type(ty) if ty.ident == "Item" => Some(&ty.ty),
                    _ => None,
                })
                .and_then(|item| collected(low, at, item));
        }
        display |= key == "Display";
    }
    let lifetimes_only = decl.has_lifetimes() && only_lifetimes(decl.generics());
    // An iterator is consumed whatever its generics; a `Display` adaptor when it borrows.
    modes(
        collect.clone(),
        display && (lifetimes_only || collect.is_some()),
    )
}

/// Whether a consumed result of source type `ret` is also worth keeping as it is: a crate type
/// with methods of its own taking `self` (percent-encoding's `PercentDecode::decode_utf8`),
/// which only a kept value can be the receiver of, or an iterator, whose `next_back`, `len`
/// and `size_hint` only a kept value reaches.
pub(crate) fn kept_too(low: &Lowering<'_>, scope: Scope<'_>, ret: &syn::Type) -> bool {
    let Some(t) = low.ix.type_target(scope.module, ret) else {
        return false;
    };
    low.ix.impls.iter().any(|imp| {
        let own_methods = imp.item.trait_.is_none()
            && imp.item.items.iter().any(|i| {
                matches!(i, syn::ImplItem::Fn(f)
                    if matches!(f.vis, syn::Visibility::Public(_)) && f.sig.receiver().is_some())
            });
        // Its `next_back`, `len` and `size_hint` are callables too (`callables.rs`).
        let iterator = || {
            trait_of(low, imp)
                .is_some_and(|k| ITERATORS.contains(&k.split('<').next().unwrap_or_default()))
        };
        low.ix.impl_target(imp) == Some(t) && (own_methods || iterator())
    })
}

fn trait_of(low: &Lowering<'_>, imp: &ImplDecl) -> Option<String> {
    let (path, _) = imp.item.trait_.as_ref()?;
    let empty = Default::default();
    let scope = Scope {
        module: imp.module,
        self_ty: None,
        subst: &empty,
    };
    Some(low.trait_key(scope, path))
}

/// The impl's type parameters instantiated as `ret` instantiates them: `impl<'a, T> Iterator
/// for Iter<'a, T>` met as `Iter<'_, u32>` gives `T = u32`. `None` when a parameter is not
/// a plain argument of the impl's self type or its argument does not lower.
fn impl_subst(
    low: &Lowering<'_>,
    scope: Scope<'_>,
    imp: &ImplDecl,
    ret: &syn::Type,
) -> Option<BTreeMap<String, Ty>> {
    let type_args = |ty: &syn::Type| -> Vec<syn::Type> {
        let syn::Type::Path(tp) = ty else {
            return Vec::new();
        };
        match tp.path.segments.last().map(|s| &s.arguments) {
            Some(syn::PathArguments::AngleBracketed(a)) => a
                .args
                .iter()
                .filter_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t.clone()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    };
    let written = type_args(&imp.item.self_ty);
    let given = type_args(ret);
    let mut subst = BTreeMap::new();
    for param in imp.item.generics.type_params() {
        let name = param.ident.to_string();
        let k = written
            .iter()
            .position(|t| matches!(t, syn::Type::Path(tp) if tp.qself.is_none() && tp.path.is_ident(&param.ident)))?;
        let ty = low
            .lower(scope, given.get(k)?, Pos::Other, &mut Vec::new())
            .ok()?;
        subst.insert(name, ty);
    }
    if imp.item.generics.const_params().next().is_some() {
        return None;
    }
    Some(subst)
}

fn only_lifetimes(generics: &syn::Generics) -> bool {
    generics
        .params
        .iter()
        .all(|p| matches!(p, syn::GenericParam::Lifetime(_)))
}
