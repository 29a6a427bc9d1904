//! Crate traits implemented for every closure of a shape: `impl<T, F: FnMut(&T, &T) -> bool>
//! KMergePredicate<T> for F` (itertools' predicates and key functions, tracing-core's `Visit`,
//! the `impl<F: Fn(..)> Handler for F` of callback APIs). A bound on such a trait (`F:
//! KMergePredicate<I::Item>`) is met by the boxed closure that stands in for closure type
//! parameters elsewhere (`generics::boxed_closure`), and the harness makes one from the
//! closure family (`harness::closure_values`).
//!
//! The impl's other type parameters are instantiated at the stand-ins an item gets (`i32`, or
//! a borrow of one for `for<'a> KeyFunction<&'a I::Item>`), one candidate per choice, with the
//! trait's key as lowered then. It must not know how bounds are chosen (`bounds.rs`).

use std::collections::BTreeMap;

use super::generics::{boxed_closure, closure_bound, where_bounds};
use super::index::ImplDecl;
use super::types::{Lowering, Scope};
use crate::model::Ty;

/// What an impl's other type parameters are tried as: the item stand-in, and a borrow of it.
fn stand_ins() -> [Ty; 2] {
    let item = Ty::Prim("i32".into());
    let borrowed = Ty::Ref {
        mutable: false,
        inner: Box::new(item.clone()),
    };
    [item, borrowed]
}

/// Every (boxed closure, trait key) the crate's closure impls give.
pub(crate) fn closure_candidates(low: &Lowering<'_>) -> Vec<(Ty, String)> {
    let mut out: Vec<(Ty, String)> = Vec::new();
    for imp in &low.ix.impls {
        for found in candidates_of(low, imp) {
            if !out.contains(&found) {
                out.push(found);
            }
        }
    }
    out
}

/// The candidates of one impl, if it is `impl<..> Trait<..> for F` with `F` bounded by a
/// closure trait and every other type parameter unbounded.
fn candidates_of(low: &Lowering<'_>, imp: &ImplDecl) -> Vec<(Ty, String)> {
    let item = &imp.item;
    // Not `unsafe impl`, nor `impl !Trait for F`.
    let (None, None, Some((trait_path, _))) =
        (&item.unsafety, &item.modifiers.polarity, &item.trait_)
    else {
        return Vec::new();
    };
    let syn::Type::Path(self_path) = &*item.self_ty else {
        return Vec::new();
    };
    let Some(f) = self_path.path.get_ident() else {
        return Vec::new();
    };
    let Some(param) = item.generics.type_params().find(|p| p.ident == *f) else {
        return Vec::new();
    };
    let bounds: Vec<&syn::TypeParamBound> = param
        .bounds
        .iter()
        .chain(where_bounds(&item.generics, f))
        .collect();
    let Some(closure) = closure_bound(bounds.iter().copied()) else {
        return Vec::new();
    };
    let others: Vec<&syn::Ident> = item
        .generics
        .type_params()
        .map(|p| &p.ident)
        .filter(|p| *p != f)
        .collect();
    let unbounded = others.iter().all(|p| {
        let own = item.generics.type_params().find(|t| t.ident == **p);
        own.is_some_and(|t| t.bounds.is_empty()) && where_bounds(&item.generics, p).next().is_none()
    });
    if !unbounded || others.len() > 3 || item.generics.const_params().next().is_some() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for choice in choices(others.len()) {
        let subst: BTreeMap<String, Ty> = others
            .iter()
            .zip(&choice)
            .map(|(p, t)| (p.to_string(), t.clone()))
            .collect();
        let scope = Scope {
            module: imp.module,
            self_ty: None,
            subst: &subst,
        };
        let mut bound = closure.clone();
        let Some(boxed) = boxed_closure(low, scope, &mut bound) else {
            continue;
        };
        let key = low.trait_key(scope, trait_path);
        out.push((boxed, key));
    }
    out
}

/// Every assignment of the stand-ins to `n` parameters.
fn choices(n: usize) -> Vec<Vec<Ty>> {
    let mut all = vec![Vec::new()];
    for _ in 0..n {
        all = all
            .into_iter()
            .flat_map(|prefix| {
                stand_ins().into_iter().map(move |t| {
                    let mut next = prefix.clone();
                    next.push(t);
                    next
                })
            })
            .collect();
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_other_parameter_is_tried_as_the_item_and_its_borrow() {
        assert_eq!(choices(0).len(), 1);
        assert_eq!(choices(2).len(), 4);
        assert!(choices(1).contains(&vec![Ty::Prim("i32".into())]));
    }
}
