//! Generic callables made concrete: each type parameter instantiated at a stand-in that meets
//! its bounds (`bounds.rs` offers the candidates, in an order where a parameter named in
//! another's bounds comes first), closures' bounds recorded for the harness, const generics
//! given a value, and the turbofish an emitted call needs when inference cannot pick the types.
//!
//! It must not know how callables are collected or lowered (`callables.rs`).

use std::collections::{BTreeMap, BTreeSet};

use syn::visit::Visit;

use super::index::{ImplDecl, Ns, Resolved, Target};
use super::types::{Lowering, Problem, Scope, reason, source_text};
use super::walk::ModId;
use crate::model::{ClosureKind, ClosureParam, Ty};

/// The turbofish of a call of `sig`, its generics as instantiated in `own` (`_` for a
/// closure's), when some generic parameter appears in no parameter (nothing at the call site
/// would infer it) and none is `impl Trait` (which forbids a turbofish); else empty.
pub(super) fn turbofish(
    sig: &syn::Signature,
    own: &BTreeMap<String, Ty>,
    closures: &BTreeMap<String, ClosureBound>,
) -> Vec<Ty> {
    #[derive(Default)]
    struct Idents {
        names: BTreeSet<String>,
        impl_trait: bool,
    }
    impl<'ast> Visit<'ast> for Idents {
        fn visit_ident(&mut self, i: &'ast syn::Ident) {
            self.names.insert(i.to_string());
        }
        fn visit_type_impl_trait(&mut self, _: &'ast syn::TypeImplTrait) {
            self.impl_trait = true;
        }
    }
    let mut seen = Idents::default();
    for input in &sig.inputs {
        seen.visit_fn_arg(input);
    }
    let names: Vec<String> = sig
        .generics
        .params
        .iter()
        .filter_map(|g| match g {
            syn::GenericParam::Lifetime(_) => None,
            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
            syn::GenericParam::Const(c) => Some(c.ident.to_string()),
        })
        .collect();
    if seen.impl_trait || names.iter().all(|n| seen.names.contains(n)) {
        return Vec::new();
    }
    names
        .iter()
        .map(|name| match own.get(name) {
            Some(ty) if !closures.contains_key(name) => ty.clone(),
            _ => Ty::Other("_".to_string()),
        })
        .collect()
}

/// Substitutions for a generic list, the same choices in declaration order for display, and
/// the parameters bounded by a closure trait (passed a closure, given no stand-in).
pub(super) type Instantiated = (
    BTreeMap<String, Ty>,
    Vec<(String, Ty)>,
    BTreeMap<String, ClosureBound>,
);

/// A closure trait bound, `Fn(A, B) -> R`: its kind, arity and output, still unlowered so
/// that the output may name type parameters declared after it.
#[derive(Debug, Clone)]
pub(super) struct ClosureBound {
    pub(super) shape: ClosureParam,
    pub(super) output: syn::ReturnType,
    /// The closure's argument types as written, for a predicate's key.
    pub(super) inputs: Vec<syn::Type>,
    /// The bound as written, for the reason a closure is left out.
    pub(super) text: String,
    /// Auto traits bounding the parameter beside the closure trait (` + Send`), which a boxed
    /// stand-in must name too ([`boxed_closure`]).
    pub(super) auto: String,
}

/// For a closure parameter that also names a type (`OnDrop<T, F>` returned by `on_drop(v:
/// T, f: F)`, the impl of `Lazy<T, F>`): a boxed trait object standing in for `F`, since a
/// closure's own type cannot be written (`Box<dyn FnOnce(i32)>`, which implements
/// `FnOnce(i32)`). Only where the closure's arguments and result are std scalars or strings,
/// or borrows of them, whose text is the same in the harness and in tests. A closure cast to
/// a trait object gets no signature from the cast, so the closure passed names its arguments'
/// types ([`ClosureParam::typed_inputs`]): untyped, an argument that is a borrow would make
/// it take one lifetime, not every one, and fail to compile. Both are recorded in
/// `c.shape` (`boxed`, `typed_inputs`), and the boxed type returned for the substitutions.
pub(super) fn boxed_closure(
    low: &Lowering<'_>,
    scope: Scope<'_>,
    c: &mut ClosureBound,
) -> Option<Ty> {
    let mut scratch = Vec::new();
    let mut plain = |t: &syn::Type| -> Option<String> {
        let lowered = low
            .lower(scope, t, super::types::Pos::Param, &mut scratch)
            .ok()?;
        plain_text(&lowered)
    };
    let inputs: Vec<String> = c.inputs.iter().map(&mut plain).collect::<Option<_>>()?;
    let output = match &c.output {
        syn::ReturnType::Default => String::new(),
        syn::ReturnType::Type(_, t) => match plain(t)?.as_str() {
            "()" => String::new(),
            text => format!(" -> {text}"),
        },
    };
    let kind = match c.shape.kind {
        ClosureKind::Fn => "Fn",
        ClosureKind::FnMut => "FnMut",
        ClosureKind::FnOnce => "FnOnce",
    };
    let boxed = Ty::Adt {
        path: crate::harness::std_values::STD_BOX.into(),
        args: vec![Ty::Other(format!(
            "dyn {kind}({}){output}{}",
            inputs.join(", "),
            c.auto
        ))],
    };
    c.shape.boxed = Some(boxed.clone());
    c.shape.typed_inputs = inputs;
    Some(boxed)
}

/// A type's text where it reads the same in the harness and in tests: std scalars and
/// strings, and the std types a closure over them takes or gives (`Option<i32>`,
/// `Ordering`, the `vec::IntoIter` iterator bounds get), by their full paths.
fn plain_text(t: &Ty) -> Option<String> {
    use crate::harness::std_values::{STD_CMP_ORDERING, STD_VEC_INTO_ITER};
    match t {
        Ty::Unit => Some("()".into()),
        Ty::Prim(p) => Some(p.clone()),
        Ty::String => Some("String".into()),
        Ty::Option(inner) => Some(format!("std::option::Option<{}>", plain_text(inner)?)),
        Ty::Vec(inner) => Some(format!("std::vec::Vec<{}>", plain_text(inner)?)),
        Ty::Adt { path, args } if path == STD_CMP_ORDERING && args.is_empty() => Some(path.clone()),
        Ty::Adt { path, args } if path == STD_VEC_INTO_ITER && args.len() == 1 => {
            Some(format!("{path}<{}>", plain_text(&args[0])?))
        }
        Ty::Ref { mutable, inner } => {
            let inner = match inner.as_ref() {
                Ty::Str => "str".to_string(),
                other => plain_text(other)?,
            };
            Some(format!("&{}{inner}", if *mutable { "mut " } else { "" }))
        }
        _ => None,
    }
}

/// The closure bound among `bounds` (`Fn`, `FnMut` or `FnOnce` with parenthesised
/// arguments); async closures are left to the closure problem.
pub(super) fn closure_bound<'b>(
    mut bounds: impl Iterator<Item = &'b syn::TypeParamBound>,
) -> Option<ClosureBound> {
    bounds.find_map(|b| {
        let syn::TypeParamBound::Trait(tb) = b else {
            return None;
        };
        let last = tb.path.segments.last()?;
        let kind = match last.ident.to_string().as_str() {
            "Fn" => ClosureKind::Fn,
            "FnMut" => ClosureKind::FnMut,
            "FnOnce" => ClosureKind::FnOnce,
            _ => return None,
        };
        let syn::PathArguments::Parenthesized(args) = &last.arguments else {
            return None;
        };
        Some(ClosureBound {
            shape: ClosureParam {
                kind,
                arity: args.inputs.len(),
                key: None,
                returns_unit: false,
                boxed: None,
                typed_inputs: Vec::new(),
            },
            output: args.output.clone(),
            inputs: args.inputs.iter().map(|a| a.ty.clone()).collect(),
            text: source_text(b),
            auto: String::new(),
        })
    })
}

/// The closure bound of a parameter written `F` (a closure generic) or `impl Fn(..) -> R`.
pub(super) fn closure_param(
    ty: &syn::Type,
    closures: &BTreeMap<String, ClosureBound>,
) -> Option<ClosureBound> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .and_then(|id| closures.get(&id.to_string()))
            .cloned(),
        syn::Type::ImplTrait(t) => closure_bound(t.bounds.iter()).map(|c| ClosureBound {
            text: source_text(ty),
            ..c
        }),
        _ => None,
    }
}

/// Bounds borrowed for an impl's type parameters, by parameter name (see [`shared_bounds`]).
pub(super) type SharedBounds = BTreeMap<String, Vec<syn::TypeParamBound>>;

/// What the crate's inherent impls of the same type bound each of its type arguments with,
/// for the parameters `imp` writes there. An impl instantiated alone gives an unbounded `S`
/// in `impl<K, V, S> IndexMap<K, V, S>` (`with_hasher`, `len`) a different type than
/// `S: BuildHasher` gets in the impl of `insert`; with the bounds shared, the constructors
/// make the receiver `insert` takes. Bounds naming the other impl's parameters are left out.
pub(super) fn shared_bounds(low: &Lowering<'_>, imp: &ImplDecl) -> SharedBounds {
    let mut out = SharedBounds::new();
    let Some((target, mine)) = self_params(low, imp) else {
        return out;
    };
    let inherent = low.ix.impls.iter().filter(|o| o.item.trait_.is_none());
    for other in inherent {
        borrow_bounds(low, (&target, &mine), other, |_| true, &mut out);
    }
    out
}

/// The closure bounds the impls of a function's result type (its `Iterator` impl among them)
/// put on the arguments the function's own type parameters stand for: `take_while_ref<I, F>(..)
/// -> TakeWhileRef<I, F>` bounds nothing, but `impl<I, F: FnMut(&I::Item) -> bool> Iterator
/// for TakeWhileRef<I, F>` says what `F` must be for the result to be of use.
pub(super) fn result_closure_bounds(
    low: &Lowering<'_>,
    module: ModId,
    sig: &syn::Signature,
) -> SharedBounds {
    let mut out = SharedBounds::new();
    let syn::ReturnType::Type(_, ret) = &sig.output else {
        return out;
    };
    let Some((target, mine)) = written_params(low, module, ret, &sig.generics) else {
        return out;
    };
    if mine.iter().all(Option::is_none) {
        return out;
    }
    for other in &low.ix.impls {
        borrow_bounds(low, (&target, &mine), other, is_closure_bound, &mut out);
    }
    out
}

fn is_closure_bound(b: &syn::TypeParamBound) -> bool {
    closure_bound(std::iter::once(b)).is_some()
}

/// Adds to `out` what `other` (an impl of `target`) bounds each type argument with, keyed by
/// the parameter `mine` writes at the same place, keeping the bounds `keep` accepts. Bounds
/// naming `other`'s parameters are left out unless those stand for the same argument under the
/// same name (`F: FnOnce() -> T` of `impl<T, F> Lazy<T, F>`).
fn borrow_bounds(
    low: &Lowering<'_>,
    (target, mine): (&Target, &[Option<String>]),
    other: &ImplDecl,
    keep: impl Fn(&syn::TypeParamBound) -> bool,
    out: &mut SharedBounds,
) {
    let Some((t, theirs)) = self_params(low, other) else {
        return;
    };
    if t != *target {
        return;
    }
    let generics = &other.item.generics;
    let same: Vec<&String> = mine
        .iter()
        .zip(&theirs)
        .filter_map(|(m, t)| m.as_ref().filter(|m| Some(*m) == t.as_ref()))
        .collect();
    let names: Vec<String> = type_param_names(generics)
        .into_iter()
        .filter(|n| !same.contains(&n))
        .collect();
    for (mine, theirs) in mine.iter().zip(&theirs) {
        let (Some(mine), Some(theirs)) = (mine, theirs) else {
            continue;
        };
        let Some(tp) = generics.type_params().find(|t| t.ident == theirs) else {
            continue;
        };
        let list = out.entry(mine.clone()).or_default();
        for b in tp.bounds.iter().chain(where_bounds(generics, &tp.ident)) {
            let text = source_text(b);
            let fresh = !list.iter().any(|x| source_text(x) == text);
            if fresh && keep(b) && !names_any(&text, &names) {
                list.push(b.clone());
            }
        }
    }
}

/// The crate type an impl is for and, per type argument written on it, the impl's type
/// parameter written there (`None` for anything else).
pub(super) fn self_params(
    low: &Lowering<'_>,
    imp: &ImplDecl,
) -> Option<(Target, Vec<Option<String>>)> {
    written_params(low, imp.module, &imp.item.self_ty, &imp.item.generics)
}

/// The crate type `ty` names (resolved in `module`) and, per type argument written on it, the
/// parameter of `generics` written there (`None` for anything else).
fn written_params(
    low: &Lowering<'_>,
    module: ModId,
    ty: &syn::Type,
    generics: &syn::Generics,
) -> Option<(Target, Vec<Option<String>>)> {
    let syn::Type::Path(tp) = ty else {
        return None;
    };
    let Some(Resolved::Local(target)) = low.ix.resolve(module, &tp.path, Ns::Type) else {
        return None;
    };
    let syn::PathArguments::AngleBracketed(args) = &tp.path.segments.last()?.arguments else {
        return None;
    };
    let params = type_param_names(generics);
    let written = args
        .args
        .iter()
        .filter_map(|a| match a {
            syn::GenericArgument::Type(ty) => Some(ty),
            _ => None,
        })
        .map(|ty| match ty {
            syn::Type::Path(p) if p.qself.is_none() => p
                .path
                .get_ident()
                .map(ToString::to_string)
                .filter(|i| params.contains(i)),
            _ => None,
        })
        .collect();
    Some((target, written))
}

/// The names of the type parameters, in declaration order.
pub(super) fn type_param_names(generics: &syn::Generics) -> Vec<String> {
    generics
        .type_params()
        .map(|t| t.ident.to_string())
        .collect()
}

/// Whether `text` names one of `names` as a word.
pub(super) fn names_any(text: &str, names: &[String]) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| names.iter().any(|n| n == w))
}

/// Picks a concrete type for each type parameter, lifetimes needing nothing, with the
/// `pick`-th of the alternatives of the first parameter that has several
/// (`Candidates::alternatives`); `count` is set to how many it has. A parameter's `shared`
/// bounds are added to its own where some type meets them all.
pub(super) fn instantiate_nth(
    low: &Lowering<'_>,
    outer: Scope<'_>,
    generics: &syn::Generics,
    shared: &SharedBounds,
    pick: usize,
    count: &mut usize,
) -> Result<Instantiated, Problem> {
    let mut varied = false;
    let mut subst = outer.subst.clone();
    let mut own = BTreeMap::new();
    let mut inst = Vec::new();
    let mut closures = BTreeMap::new();
    for param in bound_order(generics) {
        let tp = match param {
            syn::GenericParam::Lifetime(_) => continue,
            syn::GenericParam::Const(c) => {
                let value = const_arg(&c.ty)
                    .ok_or_else(|| Problem::new(reason::CONST_GENERIC, source_text(c)))?;
                subst.insert(c.ident.to_string(), value.clone());
                own.insert(c.ident.to_string(), value);
                continue;
            }
            syn::GenericParam::Type(tp) => tp,
        };
        let bounds: Vec<&syn::TypeParamBound> = tp
            .bounds
            .iter()
            .chain(where_bounds(generics, &tp.ident))
            .collect();
        let bounds_text = || {
            let list: Vec<String> = bounds.iter().map(|b| source_text(*b)).collect();
            format!("{}: {}", tp.ident, list.join(" + "))
        };
        // A closure bound the type's other impls put on the same argument counts too: once_cell's
        // `impl<T, F> Lazy<T, F> { const fn new(f: F) }` beside `impl<T, F: FnOnce() -> T>`.
        let own_or_shared = closure_bound(bounds.iter().copied()).or_else(|| {
            shared
                .get(&tp.ident.to_string())
                .and_then(|extra| closure_bound(extra.iter()))
        });
        if let Some(closure) = own_or_shared {
            let text = bounds_text();
            let auto = auto_traits(&bounds);
            closures.insert(
                tp.ident.to_string(),
                ClosureBound {
                    text,
                    auto,
                    ..closure
                },
            );
            continue;
        }
        let scope = Scope {
            module: outer.module,
            self_ty: outer.self_ty,
            subst: &subst,
        };
        let widened = shared
            .get(&tp.ident.to_string())
            .filter(|extra| !extra.is_empty())
            .and_then(|extra| {
                let all = bounds.iter().copied().chain(extra.iter());
                let keys = low.bound_keys(scope, all).ok()?;
                let alternatives = low.candidates.alternatives(&keys);
                (!alternatives.is_empty()).then_some(alternatives)
            });
        let alternatives = match widened {
            Some(alternatives) => alternatives,
            None => {
                let keys = low
                    .bound_keys(scope, bounds.iter().copied())
                    .map_err(|p| Problem::new(p.reason, bounds_text()))?;
                let keys = with_item_bounds(low, scope, generics, &tp.ident, keys);
                low.candidates.alternatives(&keys)
            }
        };
        let at = if !varied && alternatives.len() > 1 {
            varied = true;
            *count = alternatives.len();
            pick.min(alternatives.len() - 1)
        } else {
            0
        };
        let chosen = alternatives
            .into_iter()
            .nth(at)
            .ok_or_else(|| Problem::new(reason::NO_CANDIDATE, bounds_text()))?;
        inst.push((tp.ident.to_string(), chosen.clone()));
        subst.insert(tp.ident.to_string(), chosen.clone());
        own.insert(tp.ident.to_string(), chosen);
    }
    // Turbofishes name the parameters in declaration order.
    let declared = type_param_names(generics);
    inst.sort_by_key(|(name, _)| declared.iter().position(|d| d == name));
    Ok((own, inst, closures))
}

/// `keys` of an iterator parameter with the item its where clause bounds (`I: IntoIterator,
/// I::Item: IntoIterator`, itertools' `kmerge` and `multi_cartesian_product`): each bare
/// iterator trait key asks for the item chosen for those bounds (`IntoIterator<Item =
/// Vec<i32>>`), so the stand-in yields what the signature iterates again. Unchanged where
/// nothing bounds the item, or nothing meets its bounds.
pub(super) fn with_item_bounds(
    low: &Lowering<'_>,
    scope: Scope<'_>,
    generics: &syn::Generics,
    ident: &syn::Ident,
    keys: Vec<String>,
) -> Vec<String> {
    let item_bounds: Vec<&syn::TypeParamBound> = item_where_bounds(generics, ident).collect();
    if item_bounds.is_empty() {
        return keys;
    }
    let Some(item) = low
        .bound_keys(scope, item_bounds.into_iter())
        .ok()
        .and_then(|item_keys| low.candidates.choose(&item_keys))
    else {
        return keys;
    };
    let shown = super::types::ty_display(&item);
    keys.into_iter()
        .map(|k| {
            if super::types::ITERATOR_TRAITS.contains(&k.as_str()) {
                format!("{k}<Item = {shown}>")
            } else {
                k
            }
        })
        .collect()
}

/// The where clause's bounds on `ident`'s item: `I::Item: B` or `<I as IntoIterator>::Item: B`.
pub(super) fn item_where_bounds<'g>(
    generics: &'g syn::Generics,
    ident: &'g syn::Ident,
) -> impl Iterator<Item = &'g syn::TypeParamBound> {
    where_bounds_on(generics, move |p| names_item_of(p, ident))
}

/// Whether `p` is `I::Item` or `<I as Trait>::Item`.
fn names_item_of(p: &syn::TypePath, ident: &syn::Ident) -> bool {
    let segs: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
    match (&p.qself, segs.as_slice()) {
        (None, [base, item]) => base.ident == *ident && item.ident == "Item",
        (Some(q), [.., item]) => {
            item.ident == "Item"
                && matches!(&*q.ty, syn::Type::Path(b) if b.qself.is_none() && b.path.is_ident(ident))
        }
        _ => false,
    }
}

/// `+ Send`, `+ Sync` for the auto traits among `bounds`.
fn auto_traits(bounds: &[&syn::TypeParamBound]) -> String {
    let mut out = String::new();
    for b in bounds {
        if let syn::TypeParamBound::Trait(t) = b
            && let Some(last) = t.path.segments.last()
            && matches!(last.ident.to_string().as_str(), "Send" | "Sync")
        {
            out.push_str(&format!(" + {}", last.ident));
        }
    }
    out
}

/// The parameters in an order where a parameter named in another's bounds comes first, so
/// that `I: IntoIterator<Item = S>` sees what `S: Into<OsString>` was instantiated with
/// (before: `I` was chosen first, with the item unknown, and got a `Vec<u8>`). Declaration
/// order where no bound names another parameter, and for cycles.
pub(super) fn bound_order(generics: &syn::Generics) -> Vec<&syn::GenericParam> {
    let idents = type_param_names(generics);
    let names_in = |param: &syn::GenericParam| -> Vec<String> {
        let syn::GenericParam::Type(tp) = param else {
            return Vec::new();
        };
        let text: String = tp
            .bounds
            .iter()
            .chain(where_bounds(generics, &tp.ident))
            .map(source_text)
            .collect::<Vec<_>>()
            .join(" ");
        idents
            .iter()
            .filter(|i| tp.ident != i.as_str() && names_any(&text, std::slice::from_ref(*i)))
            .cloned()
            .collect()
    };
    let mut pending: Vec<&syn::GenericParam> = generics.params.iter().collect();
    let mut placed: Vec<String> = Vec::new();
    let mut order = Vec::new();
    while !pending.is_empty() {
        let ready = pending
            .iter()
            .position(|p| names_in(p).iter().all(|n| placed.contains(n)))
            .unwrap_or(0);
        let param = pending.remove(ready);
        if let syn::GenericParam::Type(tp) = param {
            placed.push(tp.ident.to_string());
        }
        order.push(param);
    }
    order
}

/// The value an integer const parameter is instantiated with (`ArrayVec<T, 4>`): small, so
/// the search reaches a full buffer's branches in a few calls.
pub(super) fn const_arg(ty: &syn::Type) -> Option<Ty> {
    let syn::Type::Path(p) = ty else {
        return None;
    };
    let name = p.path.get_ident()?.to_string();
    let integer = matches!(
        name.as_str(),
        "u8" | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
            | "i8"
            | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
    );
    integer.then(|| Ty::Other(CONST_ARG.to_string()))
}

/// See [`const_arg`].
pub(crate) const CONST_ARG: &str = "4";

/// Bounds on `ident` from the `where` clause.
pub(super) fn where_bounds<'g>(
    generics: &'g syn::Generics,
    ident: &'g syn::Ident,
) -> impl Iterator<Item = &'g syn::TypeParamBound> {
    where_bounds_on(generics, move |p| {
        p.qself.is_none() && p.path.is_ident(ident)
    })
}

/// Bounds from the `where` clause on the types `bounded` picks.
fn where_bounds_on<'g>(
    generics: &'g syn::Generics,
    bounded: impl Fn(&syn::TypePath) -> bool + 'g,
) -> impl Iterator<Item = &'g syn::TypeParamBound> {
    generics
        .where_clause
        .iter()
        .flat_map(|w| w.predicates.iter())
        .filter_map(move |pred| match pred {
            syn::WherePredicate::Type(pt) => match &pt.bounded_ty {
                syn::Type::Path(p) if bounded(p) => Some(&pt.bounds),
                _ => None,
            },
            _ => None,
        })
        .flatten()
}
