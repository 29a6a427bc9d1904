//! Crate traits implemented for std ranges (fixedbitset's `impl<T: Copy> IndexRange<T> for
//! Range<T>`, and the same for `RangeFrom`, `RangeTo` and `RangeFull`): the ranges become
//! candidates for a bound on the trait (`fn count_ones<T: IndexRange>(&self, range: T)`),
//! each its own instance, since each impl is its own code. A range's bounds are `usize`:
//! ranges index, and a trait over ranges is an index range.

use std::collections::{BTreeMap, BTreeSet};

use super::types::{Lowering, Scope};
use crate::harness::std_values::{
    STD_RANGE, STD_RANGE_FROM, STD_RANGE_FULL, STD_RANGE_INCLUSIVE, STD_RANGE_TO,
    STD_RANGE_TO_INCLUSIVE,
};
use crate::model::Ty;

/// The range types by name, with the std path a candidate of each is built as.
const RANGES: &[(&str, &str)] = &[
    ("Range", STD_RANGE),
    ("RangeFrom", STD_RANGE_FROM),
    ("RangeTo", STD_RANGE_TO),
    ("RangeInclusive", STD_RANGE_INCLUSIVE),
    ("RangeToInclusive", STD_RANGE_TO_INCLUSIVE),
    ("RangeFull", STD_RANGE_FULL),
];

/// Each range type the crate implements one of its own traits for, over `usize`, with the
/// keys of the traits it implements.
pub(crate) fn range_candidates(low: &Lowering<'_>) -> Vec<(Ty, BTreeSet<String>)> {
    let empty = BTreeMap::new();
    let mut out: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for imp in &low.ix.impls {
        let (Some((path, _)), syn::Type::Path(tp)) = (&imp.item.trait_, &*imp.item.self_ty) else {
            continue;
        };
        let Some(last) = tp.path.segments.last() else {
            continue;
        };
        let Some((_, std_path)) = RANGES.iter().find(|(name, _)| last.ident == name) else {
            continue;
        };
        if imp.item.modifiers.polarity.is_some() || !is_crate_trait(low, imp.module, path) {
            continue;
        }
        let scope = Scope {
            module: imp.module,
            self_ty: None,
            subst: &empty,
        };
        out.entry(std_path)
            .or_default()
            .insert(key(low, scope, path, &imp.item.generics));
    }
    out.into_iter()
        .map(|(path, keys)| (range_ty(path), keys))
        .collect()
}

/// Whether `path`, written in module `m`, names one of the crate's traits.
fn is_crate_trait(low: &Lowering<'_>, m: super::walk::ModId, path: &syn::Path) -> bool {
    use super::index::{Ns, Resolved, Target};
    matches!(
        low.ix.resolve(m, path, Ns::Type),
        Some(Resolved::Local(Target::Trait(_)))
    )
}

/// The trait's key; its bare name where its arguments are only the impl's own parameters
/// (`IndexRange<T>` for every `T` meets the bound `T: IndexRange`, its default argument).
fn key(low: &Lowering<'_>, scope: Scope<'_>, path: &syn::Path, generics: &syn::Generics) -> String {
    let Some(last) = path.segments.last() else {
        return low.trait_key(scope, path);
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return low.trait_key(scope, path);
    };
    let own = |a: &syn::GenericArgument| match a {
        syn::GenericArgument::Type(syn::Type::Path(p)) => {
            generics.type_params().any(|t| p.path.is_ident(&t.ident))
        }
        _ => false,
    };
    if args.args.iter().all(own) {
        last.ident.to_string()
    } else {
        low.trait_key(scope, path)
    }
}

/// The range at `path` over `usize` (`RangeFull` has no bound).
fn range_ty(path: &str) -> Ty {
    let args = if path == STD_RANGE_FULL {
        Vec::new()
    } else {
        vec![Ty::Prim("usize".into())]
    };
    Ty::Adt {
        path: path.to_string(),
        args,
    }
}
