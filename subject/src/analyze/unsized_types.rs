//! Crate types that are unsized (a struct ending in `[T]`, `str` or `dyn Trait`, as indexmap's
//! `Slice<K, V>` wraps `[Bucket<K, V>]`): no value of one exists on its own, so the pool keeps
//! a `Box` of it, and the callables that borrow one borrow the `Box` instead. A method taking
//! `&self` becomes an associated function whose first argument is `&Box<S>` (the harness calls
//! `Slice::<i32, i32>::len(&slice)`, emitted tests `slice.len()`), and a parameter `&S` takes
//! `&Box<S>`: deref coercion makes both the borrow the callable wants.

use std::collections::BTreeSet;

use crate::model::{ApiModel, CallableKind, Param, Receiver, Ty};

/// Rewrites the borrows of the model's unsized types into borrows of their `Box`.
pub(super) fn borrow_through_box(model: &mut ApiModel) {
    let unsized_paths: BTreeSet<String> = model
        .types
        .iter()
        .filter(|t| t.unsized_tail)
        .map(|t| t.path.clone())
        .collect();
    if unsized_paths.is_empty() {
        return;
    }
    let is_unsized = |ty: &Ty| matches!(ty, Ty::Adt { path, .. } if unsized_paths.contains(path));
    for c in &mut model.callables {
        for p in &mut c.params {
            if let Ty::Ref { mutable, inner } = &p.ty
                && is_unsized(inner)
            {
                p.ty = boxed_ref(*mutable, inner);
            }
        }
        let CallableKind::Method { self_ty, receiver } = &c.kind else {
            continue;
        };
        if !is_unsized(self_ty) {
            continue;
        }
        let mutable = match receiver {
            Receiver::Ref => false,
            Receiver::RefMut => true,
            // Only `self: Box<Self>` moves one, and that is lowered as a call by path already.
            Receiver::Value => continue,
        };
        let self_ty = self_ty.clone();
        c.params
            .insert(0, Param::new("self", boxed_ref(mutable, &self_ty)));
        c.kind = CallableKind::Assoc { self_ty };
    }
}

/// `&Box<inner>` or `&mut Box<inner>`.
fn boxed_ref(mutable: bool, inner: &Ty) -> Ty {
    Ty::Ref {
        mutable,
        inner: Box::new(Ty::Adt {
            path: crate::harness::std_values::STD_BOX.to_string(),
            args: vec![inner.clone()],
        }),
    }
}
