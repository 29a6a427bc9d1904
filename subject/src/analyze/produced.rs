//! Callables instantiated on a type nothing produces, moved to one something does.
//!
//! An impl's type parameter without bounds gets the plain stand-in `i32`
//! (`impl<K, V, S> RawOccupiedEntryMut<'_, K, V, S>` becomes `RawOccupiedEntryMut<i32, i32,
//! i32>`), but the crate only ever hands out that type with the hasher its maps are
//! instantiated with (`IndexMap::raw_entry_mut_v1` returns one with
//! `BuildHasherDefault<DefaultHasher>`). No value of the `i32` instantiation can be made, so
//! every such callable was left out. Where another instantiation of the same type is returned
//! by some callable, and differs only where the first has `i32`, the callable is moved to it:
//! every type of its signature instantiated with the same arguments changes with it, since an
//! impl's types share its parameters. Only types no literal builds are moved: an enum or a
//! struct with public fields is made from its parts at whatever instantiation.

use std::collections::BTreeSet;

use crate::model::{ApiModel, CallableKind, Ty, TypeKind};

/// Rounds of moving: a moved callable may return the type another one needs.
const ROUNDS: usize = 3;

/// Moves callables off instantiations nothing produces (see the module doc).
pub(super) fn move_to_produced(model: &mut ApiModel) {
    for _ in 0..ROUNDS {
        let produced = produced_types(model);
        let built = built_types(model);
        let own = format!("{}::", model.crate_name);
        let mut moved = false;
        for c in &mut model.callables {
            let unmade = |t: &&Ty| matches!(t, Ty::Adt { path, .. } if path.starts_with(&own) && !built.contains(path));
            let Some((from, to)) = needed(c)
                .filter(unmade)
                .find_map(|t| replacement(t, &produced))
            else {
                continue;
            };
            let swap = |t: &mut Ty| substitute_args(t, &from, &to);
            if let CallableKind::Method { self_ty, .. } | CallableKind::Assoc { self_ty } =
                &mut c.kind
            {
                swap(self_ty);
            }
            c.params.iter_mut().for_each(|p| swap(&mut p.ty));
            if let Some(ret) = &mut c.ret {
                swap(ret);
            }
            moved = true;
        }
        if !moved {
            return;
        }
    }
}

/// The generic crate types a callable needs a value of: its receiver's type and its
/// parameters' (through a borrow).
fn needed(c: &crate::model::Callable) -> impl Iterator<Item = &Ty> {
    let receiver = match &c.kind {
        CallableKind::Method { self_ty, .. } => Some(self_ty),
        _ => None,
    };
    let params = c.params.iter().map(|p| match &p.ty {
        Ty::Ref { inner, .. } => inner.as_ref(),
        t => t,
    });
    receiver.into_iter().chain(params)
}

/// Crate types a literal builds from their parts at any instantiation: enums and structs with
/// public fields. The others (a struct with a private field, a type the model does not
/// describe) only a callable makes.
fn built_types(model: &ApiModel) -> BTreeSet<String> {
    model
        .types
        .iter()
        .filter(|t| !matches!(t.kind, TypeKind::Struct { fields: None, .. }))
        .map(|t| t.path.clone())
        .collect()
}

/// Every type some callable returns, with what its `Option`, `Result`, tuple or `Vec` holds.
fn produced_types(model: &ApiModel) -> BTreeSet<Ty> {
    let mut out = BTreeSet::new();
    for ret in model.callables.iter().filter_map(|c| c.ret.as_ref()) {
        collect(ret, &mut out);
    }
    out
}

fn collect(t: &Ty, out: &mut BTreeSet<Ty>) {
    match t {
        Ty::Option(x) | Ty::Vec(x) => collect(x, out),
        Ty::Result(x, e) => {
            collect(x, out);
            collect(e, out);
        }
        Ty::Tuple(ts) => ts.iter().for_each(|x| collect(x, out)),
        Ty::Adt { .. } => {
            out.insert(t.clone());
        }
        _ => {}
    }
}

/// For a generic crate type nothing returns, the arguments of one returned instantiation that
/// differs from it only where it has the plain stand-in `i32`: `(from, to)`.
fn replacement(t: &Ty, produced: &BTreeSet<Ty>) -> Option<(Vec<Ty>, Vec<Ty>)> {
    let Ty::Adt { path, args } = t else {
        return None;
    };
    if args.is_empty() || produced.contains(t) || !args.contains(&stand_in()) {
        return None;
    }
    produced.iter().find_map(|p| match p {
        Ty::Adt { path: q, args: to }
            if q == path
                && to.len() == args.len()
                && args.iter().zip(to).all(|(a, b)| a == b || *a == stand_in()) =>
        {
            Some((args.clone(), to.clone()))
        }
        _ => None,
    })
}

fn stand_in() -> Ty {
    Ty::Prim("i32".to_string())
}

/// `t` with every generic type instantiated with `from` instantiated with `to` instead.
fn substitute_args(t: &mut Ty, from: &[Ty], to: &[Ty]) {
    match t {
        Ty::Adt { args, .. } if args.as_slice() == from => *args = to.to_vec(),
        Ty::Adt { args, .. } => args.iter_mut().for_each(|a| substitute_args(a, from, to)),
        Ty::Ref { inner, .. } | Ty::Option(inner) | Ty::Vec(inner) | Ty::Slice(inner) => {
            substitute_args(inner, from, to)
        }
        Ty::Result(a, b) => {
            substitute_args(a, from, to);
            substitute_args(b, from, to);
        }
        Ty::Tuple(ts) => ts.iter_mut().for_each(|x| substitute_args(x, from, to)),
        Ty::Prim(_) | Ty::Str | Ty::String | Ty::Unit | Ty::Other(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Callable, Param, Receiver};

    fn adt(path: &str, args: Vec<Ty>) -> Ty {
        Ty::Adt {
            path: path.into(),
            args,
        }
    }

    #[test]
    fn a_callable_on_an_instantiation_nothing_makes_moves_to_one_something_returns() {
        let i = stand_in();
        let hasher = adt("std::hash::BuildHasherDefault", vec![]);
        let entry = |s: Ty| adt("k::Entry", vec![i.clone(), i.clone(), s]);
        let map = adt("k::Map", vec![i.clone(), i.clone(), hasher.clone()]);
        let mut entry_of = Callable::free("k::Map::entry", "src/lib.rs", 1);
        entry_of.kind = CallableKind::Method {
            self_ty: map,
            receiver: Receiver::RefMut,
        };
        entry_of.ret = Some(entry(hasher.clone()));
        let mut key = Callable::free("k::Entry::key", "src/lib.rs", 2);
        key.kind = CallableKind::Method {
            self_ty: entry(i.clone()),
            receiver: Receiver::Ref,
        };
        key.params.push(Param::new("other", entry(i.clone())));
        key.ret = Some(i.clone());
        let opaque = crate::model::TypeDef {
            path: "k::Entry".into(),
            kind: TypeKind::Struct {
                fields: None,
                tuple: false,
            },
            traits: Vec::new(),
            generic: true,
            params: Vec::new(),
            unsized_tail: false,
        };
        let mut model = ApiModel {
            crate_name: "k".into(),
            callables: vec![entry_of, key],
            types: vec![opaque],
            ..ApiModel::default()
        };
        move_to_produced(&mut model);
        let key = &model.callables[1];
        assert_eq!(
            key.kind,
            CallableKind::Method {
                self_ty: entry(hasher.clone()),
                receiver: Receiver::Ref
            }
        );
        assert_eq!(key.params[0].ty, entry(hasher));
        assert_eq!(key.ret, Some(i));
    }
}
