//! What an impl's signatures say about their types, before lowering: `Self`, the associated
//! types `Self::X` stand for, the lifetimes a type is written with, and whether a lowered type
//! borrows or names a crate type. `callables` asks; nothing here decides what is callable.

use std::collections::{BTreeMap, BTreeSet};

use super::index::ImplDecl;
use super::types::Lowering;
use crate::model::Ty;

/// `Self`, a constructor's return type.
pub(super) fn is_self(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(tp) if tp.qself.is_none() && tp.path.is_ident("Self"))
}

/// The associated types of `imp`, for the crate type `t`: its own first, then those the
/// type's other impls declare.
pub(super) fn assoc_types(
    low: &Lowering<'_>,
    imp: &ImplDecl,
    t: usize,
) -> BTreeMap<String, syn::Type> {
    let mut assoc = BTreeMap::new();
    let others = low
        .ix
        .impls
        .iter()
        .filter(|other| other.item.trait_.is_some() && low.ix.impl_target(other) == Some(t));
    for i in std::iter::once(imp).chain(others) {
        for item in &i.item.items {
            if let syn::ImplItem::Type(ty) = item {
                assoc
                    .entry(ty.ident.to_string())
                    .or_insert_with(|| ty.ty.clone());
            }
        }
    }
    assoc
}

/// `ret` with each `Self::X` the impl declares replaced by its type (`Option<Self::Item>`).
pub(super) fn with_assoc(
    ret: &syn::ReturnType,
    assoc: &BTreeMap<String, syn::Type>,
) -> syn::ReturnType {
    let mut out = ret.clone();
    if !assoc.is_empty() {
        syn::visit_mut::VisitMut::visit_return_type_mut(&mut ReplaceAssoc(assoc), &mut out);
    }
    out
}

/// `sig` with each `Self::X` of its parameters replaced as [`with_assoc`] does (num-traits'
/// `fn from_be_bytes(bytes: &Self::Bytes)` in an impl saying `type Bytes = [u8; 4]`).
pub(super) fn with_assoc_inputs(
    sig: &syn::Signature,
    assoc: &BTreeMap<String, syn::Type>,
) -> syn::Signature {
    let mut out = sig.clone();
    for input in &mut out.inputs {
        if let syn::FnArg::Typed(pt) = input {
            syn::visit_mut::VisitMut::visit_type_mut(&mut ReplaceAssoc(assoc), &mut pt.ty);
        }
    }
    out
}

struct ReplaceAssoc<'a>(&'a BTreeMap<String, syn::Type>);

impl syn::visit_mut::VisitMut for ReplaceAssoc<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(tp) = ty
            && tp.qself.is_none()
            && tp.path.segments.len() == 2
            && tp.path.segments[0].ident == "Self"
            && let Some(found) = self.0.get(&tp.path.segments[1].ident.to_string())
        {
            *ty = found.clone();
            return;
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// Lifetime arguments written on a type (`'a` in `BytesStart<'a>`).
pub(super) fn type_lifetimes(ty: &syn::Type) -> BTreeSet<String> {
    let syn::Type::Path(tp) = ty else {
        return BTreeSet::new();
    };
    let Some(syn::PathArguments::AngleBracketed(a)) = tp.path.segments.last().map(|s| &s.arguments)
    else {
        return BTreeSet::new();
    };
    a.args
        .iter()
        .filter_map(|g| match g {
            syn::GenericArgument::Lifetime(l) => Some(l.ident.to_string()),
            _ => None,
        })
        .collect()
}

/// Whether a lowered type holds a reference (then a value of it borrows from somewhere).
pub(super) fn holds_reference(ty: &Ty) -> bool {
    match ty {
        Ty::Ref { .. } => true,
        Ty::Slice(t) | Ty::Vec(t) | Ty::Option(t) => holds_reference(t),
        Ty::Result(a, b) => holds_reference(a) || holds_reference(b),
        Ty::Tuple(ts) => ts.iter().any(holds_reference),
        Ty::Adt { args, .. } => args.iter().any(holds_reference),
        Ty::Unit | Ty::Prim(_) | Ty::Str | Ty::String | Ty::Other(_) => false,
    }
}

/// Whether `ty` names a crate type `pred` holds for, at any depth.
pub(super) fn mentions_adt(ty: &Ty, pred: &dyn Fn(&str) -> bool) -> bool {
    match ty {
        Ty::Adt { path, args } => pred(path) || args.iter().any(|a| mentions_adt(a, pred)),
        Ty::Ref { inner: t, .. } | Ty::Slice(t) | Ty::Vec(t) | Ty::Option(t) => {
            mentions_adt(t, pred)
        }
        Ty::Result(a, b) => mentions_adt(a, pred) || mentions_adt(b, pred),
        Ty::Tuple(ts) => ts.iter().any(|t| mentions_adt(t, pred)),
        Ty::Unit | Ty::Prim(_) | Ty::Str | Ty::String | Ty::Other(_) => false,
    }
}
