//! Results whose code runs only when a test consumes them: iterators (`impl Iterator<Item =
//! T>`, or a crate type with an `impl Iterator`) are collected into a `Vec<T>`, and `Display`
//! adaptors (`impl Display`, or a crate type generic over a lifetime whose use is its
//! `Display` impl, such as `Shout<'a>(&'a str)`) are turned into a `String`. The call then
//! yields the consumed value, which the pool keeps and tests assert on like any other.

use super::index::ImplDecl;
use super::types::{Lowering, Pos, Scope};
use crate::model::{Consume, Ty};

/// Iterator traits whose `Item` a collected result holds.
const ITERATORS: &[&str] = &["Iterator", "DoubleEndedIterator", "ExactSizeIterator"];

/// How a call's result of source type `ret` is consumed, and the type it becomes.
pub(crate) fn consumed(
    low: &Lowering<'_>,
    scope: Scope<'_>,
    ret: &syn::Type,
) -> Option<(Consume, Ty)> {
    match ret {
        syn::Type::ImplTrait(it) => impl_trait(low, scope, &it.bounds),
        syn::Type::Path(_) => crate_type(low, scope, ret),
        syn::Type::Paren(p) => consumed(low, scope, &p.elem),
        _ => None,
    }
}

/// `impl Iterator<Item = T> + '_` or `impl Display`.
fn impl_trait<'b>(
    low: &Lowering<'_>,
    scope: Scope<'_>,
    bounds: impl IntoIterator<Item = &'b syn::TypeParamBound>,
) -> Option<(Consume, Ty)> {
    let mut display = false;
    for bound in bounds {
        let syn::TypeParamBound::Trait(tb) = bound else {
            continue;
        };
        let key = low.trait_key(scope, &tb.path);
        let name = key.split('<').next().unwrap_or_default();
        if ITERATORS.contains(&name) {
            let item = item_binding(&tb.path)?;
            return collected(low, scope, item);
        }
        display |= key == "Display";
    }
    display.then_some((Consume::ToString, Ty::String))
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
fn crate_type(low: &Lowering<'_>, scope: Scope<'_>, ret: &syn::Type) -> Option<(Consume, Ty)> {
    let t = low.ix.type_target(scope.module, ret)?;
    let decl = &low.ix.types[t];
    let impls =
        low.ix.impls.iter().filter(|imp| {
            imp.item.modifiers.polarity.is_none() && low.ix.impl_target(imp) == Some(t)
        });
    let mut display = false;
    for imp in impls {
        let Some(key) = trait_of(low, imp) else {
            continue;
        };
        if key == "Iterator" && only_lifetimes(&imp.item.generics) {
            let item = imp.item.items.iter().find_map(|i| match i {
                syn::ImplItem::Type(ty) if ty.ident == "Item" => Some(&ty.ty),
                _ => None,
            })?;
            let empty = Default::default();
            let at = Scope {
                module: imp.module,
                self_ty: None,
                subst: &empty,
            };
            return collected(low, at, item);
        }
        display |= key == "Display";
    }
    let lifetimes_only = decl.has_lifetimes() && only_lifetimes(decl.generics());
    (display && lifetimes_only).then_some((Consume::ToString, Ty::String))
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

fn only_lifetimes(generics: &syn::Generics) -> bool {
    generics
        .params
        .iter()
        .all(|p| matches!(p, syn::GenericParam::Lifetime(_)))
}
