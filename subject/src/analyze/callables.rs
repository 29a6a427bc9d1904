//! Public callables: free functions, inherent methods and associated functions, and the
//! trait-impl functions a test calls by name (`Default::default`, `Clone::clone`,
//! `FromStr::from_str`, `From::from`, `AsRef::as_ref`). Each either lowers completely or is reported
//! unsupported with the first problem found, so every public `fn` is accounted for.

use std::collections::{BTreeMap, BTreeSet};

use syn::visit::Visit;

use super::attrs::{self, CfgEval};
use super::borrows::{self, ImplBorrows};
use super::consume;
use super::generics::{
    ClosureBound, SharedBounds, closure_param, instantiate_nth, result_closure_bounds,
    shared_bounds, turbofish,
};
use super::index::{ImplDecl, Ns, Reach, Resolved, Target};
use super::macros::MacroImpl;
use super::signature_types::{
    assoc_types, holds_reference, is_self, mentions_adt, type_lifetimes, with_assoc,
    with_assoc_inputs,
};
use super::types::{
    Lowering, Pos, Problem, Scope, SelfTy, dyn_as_impl, reason, source_text, ty_display,
};
use super::walk::ModId;
use crate::harness::std_values;
use crate::model::{
    BORROW_INTO_ITER, Callable, CallableKind, ClosureKey, Param, Receiver, Ty, Unsupported, VIA_RET,
};

/// Trait impls whose functions become callables: trait name, function name, and the operator
/// a call is written with (`None`: called by path). A trait may list several functions.
const CALLABLE_TRAIT_FNS: &[(&str, &str, Option<&str>)] = &[
    ("Default", "default", None),
    // `io::Read` and `io::Write` impls are where readers and writers do their work (base64's
    // `DecoderReader`, termcolor's buffers). `fmt::Write` has no `write` or `flush`, so the
    // names tell the two `Write`s apart.
    ("Read", "read", None),
    ("Write", "write", None),
    ("Write", "flush", None),
    // `fmt::Write`'s own functions: the names tell it apart from `io::Write` (arrayvec's
    // `ArrayString`, a crate's string buffers).
    ("Write", "write_str", None),
    ("Write", "write_char", None),
    ("Clone", "clone", None),
    // A collection's `clone_from` reuses its buffer in code `clone` never runs (arrayvec,
    // smallvec, fixedbitset).
    ("Clone", "clone_from", None),
    ("FromStr", "from_str", None),
    ("From", "from", None),
    // Only a call through the trait reaches a `TryFrom` impl (http's `Uri`, `HeaderName`,
    // `StatusCode` each have four or five).
    ("TryFrom", "try_from", None),
    // Older crates implement `Into` where `From` is meant (humantime's `Duration`).
    ("Into", "into", None),
    ("AsRef", "as_ref", None),
    ("AsMut", "as_mut", None),
    ("Borrow", "borrow", None),
    ("BorrowMut", "borrow_mut", None),
    ("Deref", "deref", None),
    ("Index", "index", None),
    ("IndexMut", "index_mut", None),
    ("PartialEq", "eq", None),
    ("PartialEq", "ne", None),
    // A type that writes its comparisons out (arrayvec's `ArrayString`, whose `lt`..`ge` each
    // compare the bytes) has code in each that `partial_cmp` never runs. Called by name: an
    // operator (`a <= b`) would auto-reference differently for each `Rhs`.
    ("PartialOrd", "partial_cmp", None),
    ("PartialOrd", "lt", None),
    ("PartialOrd", "le", None),
    ("PartialOrd", "gt", None),
    ("PartialOrd", "ge", None),
    ("Ord", "cmp", None),
    ("Add", "add", Some("+")),
    ("Sub", "sub", Some("-")),
    ("Mul", "mul", Some("*")),
    ("Div", "div", Some("/")),
    ("Rem", "rem", Some("%")),
    ("BitAnd", "bitand", Some("&")),
    ("BitOr", "bitor", Some("|")),
    ("BitXor", "bitxor", Some("^")),
    ("Shl", "shl", Some("<<")),
    ("Shr", "shr", Some(">>")),
    ("Neg", "neg", Some("-")),
    ("Not", "not", Some("!")),
    ("AddAssign", "add_assign", Some("+=")),
    ("SubAssign", "sub_assign", Some("-=")),
    ("MulAssign", "mul_assign", Some("*=")),
    ("DivAssign", "div_assign", Some("/=")),
    ("RemAssign", "rem_assign", Some("%=")),
    ("BitAndAssign", "bitand_assign", Some("&=")),
    ("BitOrAssign", "bitor_assign", Some("|=")),
    ("BitXorAssign", "bitxor_assign", Some("^=")),
    ("ShlAssign", "shl_assign", Some("<<=")),
    ("ShrAssign", "shr_assign", Some(">>=")),
    // A crate's iterator types do their work in these: a test that only collects them never
    // reaches `next_back`, `size_hint` or `len`, and their mutants all survive.
    ("Iterator", "next", None),
    ("Iterator", "size_hint", None),
    // Overridden where the type can skip ahead or fold without walking item by item
    // (indexmap's, http's and itertools' iterators): only a direct call runs them.
    ("Iterator", "count", None),
    ("Iterator", "nth", None),
    ("Iterator", "last", None),
    ("Iterator", "fold", None),
    ("DoubleEndedIterator", "next_back", None),
    ("DoubleEndedIterator", "nth_back", None),
    ("DoubleEndedIterator", "rfold", None),
    ("ExactSizeIterator", "len", None),
    ("IntoIterator", "into_iter", None),
    // A collection built from items, or grown by them, runs its own insertion code (slab's
    // `Builder`, which nothing else reaches); `from_iter` is in no prelude before 2021.
    ("FromIterator", "from_iter", None),
    ("Extend", "extend", None),
];

/// Callables and unsupported public functions, in source order.
#[derive(Debug, Default)]
pub(crate) struct CallableSet {
    pub callables: Vec<Callable>,
    pub unsupported: Vec<Unsupported>,
    /// Private methods' paths, with the module a test must be in to call them.
    pub homes: BTreeMap<String, ModId>,
}

impl CallableSet {
    fn push(&mut self, path: String, result: Result<Callable, Problem>) {
        match result {
            Ok(callable) => self.callables.push(callable),
            Err(problem) => self.unsupported.push(Unsupported {
                path,
                reason: problem.reason.to_string(),
                detail: problem.detail,
            }),
        }
    }
}

/// An impl block's context shared by its functions.
#[derive(Clone)]
struct ImplCx {
    self_ty: SelfTy,
    subst: BTreeMap<String, Ty>,
    inst: Vec<(String, Ty)>,
    /// The impl's generics have no candidate: every function inherits the problem.
    problem: Option<Problem>,
    borrows: ImplBorrows,
    /// `Some(mutable)` when the impl is for `&T` or `&mut T`: `self` is then a borrow of `T`.
    self_ref: Option<bool>,
    /// The associated types `Self::X` in a signature stands for: the impl's own (`type Output`,
    /// `type Item`), then those of the type's other impls (a `DoubleEndedIterator` impl's
    /// `Self::Item` is its `Iterator` impl's).
    assoc: BTreeMap<String, syn::Type>,
    /// The impl's self type as written, which `Self` in a signature stands for.
    written_self: syn::Type,
    /// For a blanket impl (`impl<T: Iterator> Ext for T`), its parameter's bounds: a method
    /// bounding `Self` further chooses the stand-in again (`rebind_blanket_self`).
    blanket_bounds: Vec<syn::TypeParamBound>,
    /// The impl's closure parameters, boxed in `subst` (see `box_impl_closures`).
    closures: BTreeMap<String, ClosureBound>,
}

/// One function to lower, wherever it was declared.
struct FnSite<'a> {
    path: String,
    module: ModId,
    sig: &'a syn::Signature,
    imp: Option<&'a ImplCx>,
}

/// Callables of the crate; `made` are the trait impls its macros stamp out for primitives.
pub(crate) fn collect(low: &Lowering<'_>, cfg: &CfgEval, made: &[MacroImpl]) -> CallableSet {
    let mut set = CallableSet::default();
    for (&f, path) in &low.public.fns {
        let decl = &low.ix.fns[f];
        let site = FnSite {
            path: path.clone(),
            module: decl.module,
            sig: &decl.item.sig,
            imp: None,
        };
        for lowered in lower_fn(low, &site) {
            set.push(path.clone(), lowered);
        }
    }
    for imp in &low.ix.impls {
        collect_impl(low, cfg, imp, &mut set);
    }
    // num-traits' `int_trait_impl!(Num for u8 u16 ..)`: what the body holds is not read, so
    // the trait's declaration says which functions the impl has.
    for made in made {
        let decl = made.decl();
        collect_crate_trait_impl(low, cfg, (&decl, Body::Unread), &made.trait_path, &mut set);
    }
    unname_lone_targets(&mut set.callables);
    super::array_lengths::thin(&mut set);
    set
}

/// `AsRef` and `AsMut` impls name their target only where the type has several: a lone
/// `AsRef<str>` reads best as `v.as_ref()`. (`Into` always names it: std's `impl<T> Into<T> for T` is
/// another.)
fn unname_lone_targets(callables: &mut [Callable]) {
    let named = |c: &Callable| {
        c.via_trait
            .as_deref()
            .is_some_and(|v| (v.contains("AsRef<") || v.contains("AsMut<")) && v.contains(VIA_RET))
    };
    let key = |c: &Callable| match &c.kind {
        CallableKind::Method { self_ty, .. } => Some((self_ty.clone(), c.name.clone())),
        _ => None,
    };
    let mut count: BTreeMap<(Ty, String), usize> = BTreeMap::new();
    for c in callables.iter().filter(|c| named(c)) {
        if let Some(k) = key(c) {
            *count.entry(k).or_default() += 1;
        }
    }
    for c in callables.iter_mut().filter(|c| named(c)) {
        if key(c).is_some_and(|k| count.get(&k) == Some(&1)) {
            c.via_trait = None;
        }
    }
}

/// Whether an impl's items are the ones it has (written out), or stand for those a macro
/// stamped out, which the trait's declaration lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Body {
    Written,
    Unread,
}

fn collect_impl(low: &Lowering<'_>, cfg: &CfgEval, imp: &ImplDecl, set: &mut CallableSet) {
    if imp.item.modifiers.polarity.is_some() {
        return;
    }
    let trait_fn = match &imp.item.trait_ {
        None => None,
        Some((trait_path, _)) => match callable_trait_fn(low, imp.module, trait_path) {
            Some(found) => Some(found),
            None => {
                return collect_crate_trait_impl(low, cfg, (imp, Body::Written), trait_path, set);
            }
        },
    };
    // `impl Sub<&Duration> for &Date`: the function takes a borrowed `Date`.
    let (target, self_ref) = match (&*imp.item.self_ty, trait_fn) {
        (syn::Type::Reference(r), Some(_)) => (
            low.ix.type_target(imp.module, &r.elem),
            Some(r.mutability.is_some()),
        ),
        _ => (low.ix.impl_target(imp), None),
    };
    let Some(t) = target else {
        if let (Some(trait_name), None) = (trait_fn, self_ref) {
            collect_impl_on_std_type(low, cfg, imp, trait_name, set);
        }
        return;
    };
    let Some(type_path) = low.public.types.get(&t) else {
        return;
    };
    let mut cx = impl_cx(low, imp, |scope| {
        Ok(Ty::Adt {
            path: type_path.to_string(),
            args: self_type_args(low, scope, &imp.item.self_ty)?,
        })
    });
    cx.self_ref = self_ref;
    cx.assoc = assoc_types(low, imp, t);
    for item in &imp.item.items {
        let syn::ImplItem::Fn(f) = item else { continue };
        let entry = trait_fn.and_then(|t| {
            CALLABLE_TRAIT_FNS
                .iter()
                .find(|(trait_name, name, _)| *trait_name == t && f.sig.ident == name)
        });
        let wanted = match trait_fn {
            Some(_) => entry.is_some(),
            // A test inside the crate calls what the crate's own tests do: its private methods
            // and its `#[doc(hidden)]` ones (crc32fast's `Hasher::internal_new_baseline`, the
            // only way to the portable path on a machine with SIMD).
            None => {
                low.ix.visible(&f.vis, imp.module)
                    && (low.ix.in_crate || !attrs::is_doc_hidden(&f.attrs))
            }
        };
        if !wanted || !cfg.keeps(&f.attrs) {
            continue;
        }
        if let (None, Reach::Module(m)) = (trait_fn, low.ix.reach(&f.vis, imp.module)) {
            set.homes.insert(format!("{type_path}::{}", f.sig.ident), m);
        }
        push_impl_fn(low, set, (&cx, imp, f), type_path, |c| {
            c.exact_args = entry.is_some_and(|(t, ..)| ARG_PICKS_IMPL.contains(t));
            std_trait_call(c, entry, self_ref.is_some());
        });
    }
}

/// A std trait the crate implements on a std type for one of its own types
/// (`impl PartialEq<Method> for str`, `impl From<Port> for u16`): only such an impl compares
/// or converts from the std side (http has thirty). Kept where the std type is one the
/// harness builds itself (a primitive, `str`, `String`, a slice, a std value such as
/// `std::time::Duration`); calls name the trait, since a primitive's inherent methods come
/// first.
fn collect_impl_on_std_type(
    low: &Lowering<'_>,
    cfg: &CfgEval,
    imp: &ImplDecl,
    trait_name: &str,
    set: &mut CallableSet,
) {
    let Some((trait_path, _)) = &imp.item.trait_ else {
        return;
    };
    if blanket_self(imp) {
        return;
    }
    let cx = impl_cx(low, imp, |scope| {
        low.lower(scope, &imp.item.self_ty, Pos::Other, &mut Vec::new())
    });
    let built = match &cx.self_ty.ty {
        Ty::Prim(_) | Ty::Str | Ty::String | Ty::Slice(_) => true,
        // A std value the harness builds (`std::time::Duration`, `SystemTime`, percent-encoding's
        // `impl From<PercentEncode> for Cow<str>`), not a pointer around one of the crate's
        // types (`impl From<&Slice> for Box<Slice>`).
        Ty::Adt { path, .. } => {
            path.starts_with("std::") && (!std_values::pointer(path) || path == std_values::STD_COW)
        }
        _ => false,
    };
    if cx.problem.is_some() || !built {
        return;
    }
    let Some(std_path) = std_trait_path(trait_name) else {
        return;
    };
    let generic = trait_path
        .segments
        .last()
        .is_some_and(|s| !s.arguments.is_none());
    let via = if generic {
        format!("{std_path}<_>")
    } else {
        std_path.to_string()
    };
    let prefix = format!(
        "<{} as {}>",
        source_text(&*imp.item.self_ty),
        source_text(trait_path)
    );
    for item in &imp.item.items {
        let syn::ImplItem::Fn(f) = item else { continue };
        let wanted = CALLABLE_TRAIT_FNS
            .iter()
            .any(|(t, name, _)| *t == trait_name && f.sig.ident == name);
        if !wanted || !cfg.keeps(&f.attrs) {
            continue;
        }
        push_impl_fn(low, set, (&cx, imp, f), &prefix, |c| {
            c.exact_args = ARG_PICKS_IMPL.contains(&trait_name);
            c.via_trait = Some(via.clone());
        });
    }
}

/// Whether the impl's self type is one of its own type parameters (`impl<T> Trait for T`).
fn blanket_self(imp: &ImplDecl) -> bool {
    let syn::Type::Path(tp) = &*imp.item.self_ty else {
        return false;
    };
    imp.item
        .generics
        .type_params()
        .any(|p| tp.qself.is_none() && tp.path.is_ident(&p.ident))
}

/// Where std declares the callable trait `name` (see [`CALLABLE_TRAIT_FNS`]).
fn std_trait_path(name: &str) -> Option<&'static str> {
    Some(match name {
        "From" => "::std::convert::From",
        "Into" => "::std::convert::Into",
        "TryFrom" => "::std::convert::TryFrom",
        "PartialEq" => "::std::cmp::PartialEq",
        "PartialOrd" => "::std::cmp::PartialOrd",
        "Add" => "::std::ops::Add",
        "Sub" => "::std::ops::Sub",
        "Mul" => "::std::ops::Mul",
        "Div" => "::std::ops::Div",
        "Rem" => "::std::ops::Rem",
        "BitAnd" => "::std::ops::BitAnd",
        "BitOr" => "::std::ops::BitOr",
        "BitXor" => "::std::ops::BitXor",
        "Shl" => "::std::ops::Shl",
        "Shr" => "::std::ops::Shr",
        "AddAssign" => "::std::ops::AddAssign",
        "SubAssign" => "::std::ops::SubAssign",
        "MulAssign" => "::std::ops::MulAssign",
        "DivAssign" => "::std::ops::DivAssign",
        "RemAssign" => "::std::ops::RemAssign",
        "Extend" => "::std::iter::Extend",
        "FromIterator" => "::std::iter::FromIterator",
        _ => return None,
    })
}

/// Std traits generic over the argument their functions take (`From<T>`, `PartialEq<Rhs>`):
/// see [`crate::model::Callable::exact_args`].
const ARG_PICKS_IMPL: &[&str] = &[
    "From",
    "TryFrom",
    "Index",
    "IndexMut",
    "PartialEq",
    "PartialOrd",
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Rem",
    "BitAnd",
    "BitOr",
    "BitXor",
    "Shl",
    "Shr",
    "AddAssign",
    "SubAssign",
    "MulAssign",
    "DivAssign",
    "RemAssign",
    "BitAndAssign",
    "BitOrAssign",
    "BitXorAssign",
    "ShlAssign",
    "ShrAssign",
];

/// How a call to the std trait function `entry` is written: through the trait where it may
/// not be in scope, or with its operator.
fn std_trait_call(
    c: &mut Callable,
    entry: Option<&(&str, &str, Option<&str>)>,
    borrowed_self: bool,
) {
    match entry {
        // `FromStr`, `Read` and `Write` are in no edition's prelude: calls name the trait.
        Some((_, "from_str", _)) => c.via_trait = Some("::std::str::FromStr".to_string()),
        Some((_, "from_iter", _)) => {
            c.via_trait = Some("::std::iter::FromIterator<_>".to_string());
        }
        Some(("Read", ..)) => c.via_trait = Some("::std::io::Read".to_string()),
        Some((_, "write_str" | "write_char", _)) => {
            c.via_trait = Some("::std::fmt::Write".to_string());
        }
        Some(("Write", ..)) => c.via_trait = Some("::std::io::Write".to_string()),
        // Not in the 2015 and 2018 preludes; the argument's type picks the impl.
        Some(("TryFrom", ..)) => c.via_trait = Some("::std::convert::TryFrom<_>".to_string()),
        Some(("Index", ..)) => c.via_trait = Some("::std::ops::Index<_>".to_string()),
        Some(("IndexMut", ..)) => c.via_trait = Some("::std::ops::IndexMut<_>".to_string()),
        Some(("Deref", ..)) => c.via_trait = Some("::std::ops::Deref".to_string()),
        // `Borrow<T>` has std's blanket `impl<T> Borrow<T> for T` beside the crate's.
        Some(("Borrow", ..)) => c.via_trait = Some(format!("::std::borrow::Borrow<{VIA_RET}>")),
        Some(("BorrowMut", ..)) => {
            c.via_trait = Some(format!("::std::borrow::BorrowMut<{VIA_RET}>"));
        }
        Some(("AsMut", ..)) => c.via_trait = Some(format!("::std::convert::AsMut<{VIA_RET}>")),
        // Named with their target: a type often has several (`AsRef<str>`, `AsRef<Path>`).
        Some(("Into", ..)) => c.via_trait = Some(format!("::std::convert::Into<{VIA_RET}>")),
        Some(("AsRef", ..)) => c.via_trait = Some(format!("::std::convert::AsRef<{VIA_RET}>")),
        // `impl IntoIterator for &'a ArrayVec<T, CAP>`: a path call through the type
        // (`ArrayVec::into_iter(&v)`) finds the by-value impl; the trait's path does not
        // (see `harness::op_expr::call`).
        Some(("IntoIterator", ..)) if borrowed_self => {
            c.via_trait = Some(BORROW_INTO_ITER.to_string());
        }
        Some((_, _, Some(op))) => c.operator = Some(op.to_string()),
        _ => {}
    }
}

/// Lowers the impl function `f` as the callable `{prefix}::{name}`; `finish` records how it
/// is called.
fn push_impl_fn(
    low: &Lowering<'_>,
    set: &mut CallableSet,
    (cx, imp, f): (&ImplCx, &ImplDecl, &syn::ImplItemFn),
    prefix: &str,
    finish: impl Fn(&mut Callable),
) {
    push_sig(low, set, (cx, imp.module, &f.sig), prefix, finish);
}

/// Lowers the function `sig`, declared in `module` and called on `cx`'s self type, as the
/// callable `{prefix}::{name}`.
fn push_sig(
    low: &Lowering<'_>,
    set: &mut CallableSet,
    (cx, module, sig): (&ImplCx, ModId, &syn::Signature),
    prefix: &str,
    finish: impl Fn(&mut Callable),
) {
    let path = format!("{prefix}::{}", sig.ident);
    let site = FnSite {
        path: path.clone(),
        module,
        sig,
        imp: Some(cx),
    };
    for lowered in lower_fn(low, &site) {
        let lowered = lowered.map(|mut c| {
            finish(&mut c);
            c
        });
        set.push(path.clone(), lowered);
    }
}

/// The functions of an impl of one of the crate's public traits, for any self type: a crate
/// type, a primitive, `str`, a slice, or a blanket `impl<T: AsRef<str>> Ext for T` (`T` gets
/// its stand-in). Calls name the trait (`<str as Ext>::f(x)` in the harness, `x.f()` with the
/// trait imported in tests).
fn collect_crate_trait_impl(
    low: &Lowering<'_>,
    cfg: &CfgEval,
    (imp, body): (&ImplDecl, Body),
    trait_path: &syn::Path,
    set: &mut CallableSet,
) {
    let Some(Resolved::Local(Target::Trait(t))) = low.ix.resolve(imp.module, trait_path, Ns::Type)
    else {
        return;
    };
    let Some(trait_public) = low.public.traits.get(&t) else {
        return;
    };
    let cx = impl_cx(low, imp, |scope| {
        low.lower(scope, &imp.item.self_ty, Pos::Other, &mut Vec::new())
    });
    let via_trait = with_written_args(low, &cx, imp.module, trait_public, trait_path)
        .unwrap_or_else(|| with_inferred_args(trait_public, trait_path));
    for item in &imp.item.items {
        let syn::ImplItem::Fn(f) = item else { continue };
        if !cfg.keeps(&f.attrs) || attrs::is_doc_hidden(&f.attrs) {
            continue;
        }
        push_impl_fn(low, set, (&cx, imp, f), trait_public, |c| {
            c.via_trait = Some(via_trait.clone());
        });
    }
    push_trait_methods(low, cfg, (&cx, imp, body), t, trait_public, &via_trait, set);
}

/// The trait's provided methods that `imp` does not override, or every method when the body
/// is unread. Extension traits are mostly provided methods (`impl<R: Read> ReadBytesExt for R
/// {}`). Their signatures are lowered in the trait's module, with `Self` and the impl's
/// generics from `imp`.
fn push_trait_methods(
    low: &Lowering<'_>,
    cfg: &CfgEval,
    (cx, imp, body): (&ImplCx, &ImplDecl, Body),
    trait_ix: usize,
    trait_public: &str,
    via_trait: &str,
    set: &mut CallableSet,
) {
    let decl = &low.ix.traits[trait_ix];
    let overridden: BTreeSet<String> = imp
        .item
        .items
        .iter()
        .filter_map(|item| match item {
            syn::ImplItem::Fn(f) => Some(f.sig.ident.to_string()),
            _ => None,
        })
        .collect();
    let macro_items = imp
        .item
        .items
        .iter()
        .any(|item| matches!(item, syn::ImplItem::Macro(_)));
    for item in &decl.item.items {
        let syn::TraitItem::Fn(f) = item else {
            continue;
        };
        // A required method the impl does not write comes from a macro among its items
        // (num-traits' `forward! { .. }` inside `impl Float for f32`).
        if (f.default.is_none() && body == Body::Written && !macro_items)
            || overridden.contains(&f.sig.ident.to_string())
            || !cfg.keeps(&f.attrs)
            || attrs::is_doc_hidden(&f.attrs)
        {
            continue;
        }
        push_sig(low, set, (cx, decl.module, &f.sig), trait_public, |c| {
            c.via_trait = Some(via_trait.to_string());
        });
    }
}

/// A generic trait's path with its type arguments as the impl writes them, where each is a
/// plain type (`num_traits::AsPrimitive<u8>`): a type implementing the trait for several
/// arguments leaves inference nothing to go on (E0283). `None` when an argument is not plain.
fn with_written_args(
    low: &Lowering<'_>,
    cx: &ImplCx,
    module: ModId,
    public: &str,
    written: &syn::Path,
) -> Option<String> {
    let syn::PathArguments::AngleBracketed(a) = &written.segments.last()?.arguments else {
        return None;
    };
    let scope = Scope {
        module,
        self_ty: Some(&cx.self_ty),
        subst: &cx.subst,
    };
    let args: Vec<String> = a
        .args
        .iter()
        .filter_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .map(|t| {
            low.lower(scope, t, Pos::Other, &mut Vec::new())
                .ok()
                .filter(plain)
                .map(|ty| ty_display(&ty))
        })
        .collect::<Option<_>>()?;
    (!args.is_empty()).then(|| format!("{public}<{}>", args.join(", ")))
}

/// A type whose display is valid source anywhere: std types and arrays only (a crate type's
/// path names the crate, which a binary's tests cannot: lsd's `Configurable<Blocks>` keeps
/// `_`, inferred from the self type), no smart pointer shown by its bare name, nothing left
/// unlowered.
fn plain(ty: &Ty) -> bool {
    use crate::harness::std_values::{ARRAY, pointer};
    match ty {
        Ty::Adt { path, args } => {
            (path.starts_with("std::") || path == ARRAY) && !pointer(path) && args.iter().all(plain)
        }
        Ty::Ref { inner: t, .. } | Ty::Slice(t) | Ty::Vec(t) | Ty::Option(t) => plain(t),
        Ty::Result(a, b) => plain(a) && plain(b),
        Ty::Tuple(ts) => ts.iter().all(plain),
        Ty::Other(_) => false,
        Ty::Unit | Ty::Prim(_) | Ty::Str | Ty::String => true,
    }
}

/// A generic trait's path with its type arguments left to inference (`anyhow::Context<_, _>`):
/// calls name the trait, and its arguments follow from the self type.
fn with_inferred_args(public: &str, written: &syn::Path) -> String {
    let n = written.segments.last().map_or(0, |s| match &s.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter(|g| matches!(g, syn::GenericArgument::Type(_)))
            .count(),
        _ => 0,
    });
    match n {
        0 => public.to_string(),
        n => format!("{public}<{}>", vec!["_"; n].join(", ")),
    }
}

/// For `impl Default for T` and friends, the std trait's name in [`CALLABLE_TRAIT_FNS`]. A
/// crate trait that happens to share a std name does not count.
fn callable_trait_fn(
    low: &Lowering<'_>,
    module: ModId,
    trait_path: &syn::Path,
) -> Option<&'static str> {
    let last = trait_path.segments.last()?.ident.to_string();
    let (name, ..) = CALLABLE_TRAIT_FNS.iter().find(|(t, _, _)| *t == last)?;
    match low.ix.resolve(module, trait_path, Ns::Type) {
        Some(Resolved::Local(Target::Trait(_))) => None,
        _ => Some(name),
    }
}

/// The context of an impl block: its generics instantiated, then its self type lowered by
/// `self_ty` in their scope.
fn impl_cx(
    low: &Lowering<'_>,
    imp: &ImplDecl,
    self_ty: impl FnOnce(Scope<'_>) -> Result<Ty, Problem>,
) -> ImplCx {
    let empty = BTreeMap::new();
    let scope = Scope {
        module: imp.module,
        self_ty: None,
        subst: &empty,
    };
    let shared = shared_bounds(low, imp);
    let instantiated = instantiate_nth(low, scope, &imp.item.generics, &shared, 0, &mut 1);
    let (subst, inst, closures, mut problem) = match instantiated {
        Ok((subst, inst, closures)) => match box_impl_closures(low, scope, subst, inst, closures) {
            Ok((subst, inst, closures)) => (subst, inst, closures, None),
            Err(p) => (BTreeMap::new(), Vec::new(), BTreeMap::new(), Some(p)),
        },
        Err(p) => (BTreeMap::new(), Vec::new(), BTreeMap::new(), Some(p)),
    };
    let scope = Scope {
        module: imp.module,
        self_ty: None,
        subst: &subst,
    };
    let ty = self_ty(scope).unwrap_or_else(|p| {
        problem.get_or_insert(p);
        Ty::Unit
    });
    let borrows = ImplBorrows {
        self_lifetimes: type_lifetimes(&imp.item.self_ty),
        self_borrows: holds_reference(&ty),
    };
    ImplCx {
        self_ty: SelfTy { ty, problem: None },
        subst,
        inst,
        problem,
        borrows,
        self_ref: None,
        assoc: own_assoc(imp),
        written_self: (*imp.item.self_ty).clone(),
        blanket_bounds: blanket_bounds(imp),
        closures,
    }
}

/// The associated types an impl declares (`type Bytes = [u8; 4];`), by name.
fn own_assoc(imp: &ImplDecl) -> BTreeMap<String, syn::Type> {
    imp.item
        .items
        .iter()
        .filter_map(|item| match item {
            syn::ImplItem::Type(t) => Some((t.ident.to_string(), t.ty.clone())),
            _ => None,
        })
        .collect()
}

/// An impl's closure parameters (`impl<T, F: FnOnce() -> T> Lazy<T, F>`): each stands in as
/// a boxed closure ([`super::generics::boxed_closure`]) in the impl's substitutions, and its
/// functions' parameters of that type are passed one, boxed. One that cannot be boxed leaves
/// the impl's functions out.
fn box_impl_closures(
    low: &Lowering<'_>,
    scope: Scope<'_>,
    mut subst: BTreeMap<String, Ty>,
    mut inst: Vec<(String, Ty)>,
    mut closures: BTreeMap<String, ClosureBound>,
) -> Result<super::generics::Instantiated, Problem> {
    for (name, c) in closures.iter_mut() {
        let within = Scope {
            subst: &subst,
            ..scope
        };
        let boxed = super::generics::boxed_closure(low, within, c)
            .ok_or_else(|| Problem::new(reason::CLOSURE, c.text.clone()))?;
        subst.insert(name.clone(), boxed.clone());
        inst.push((name.clone(), boxed));
    }
    Ok((subst, inst, closures))
}

/// The bounds of the parameter a blanket impl is for (`T` of `impl<T: Iterator> Ext for T`,
/// where clauses included); empty for any other impl.
fn blanket_bounds(imp: &ImplDecl) -> Vec<syn::TypeParamBound> {
    let syn::Type::Path(p) = &*imp.item.self_ty else {
        return Vec::new();
    };
    let generics = &imp.item.generics;
    let Some(tp) = p
        .path
        .get_ident()
        .and_then(|ident| generics.type_params().find(|t| t.ident == *ident))
    else {
        return Vec::new();
    };
    tp.bounds
        .iter()
        .chain(super::generics::where_bounds(generics, &tp.ident))
        .cloned()
        .collect()
}

/// Whether the result of a function of an impl for a borrow (`impl<'a, T> IntoIterator for
/// &'a Slab<T>`) names the borrow's lifetime (`Iter<'a, T>`), and so borrows the receiver.
fn borrow_lent(cx: &ImplCx, output: &syn::ReturnType) -> bool {
    let syn::Type::Reference(r) = &cx.written_self else {
        return false;
    };
    let Some(lifetime) = &r.lifetime else {
        return false;
    };
    names_lifetime(quote::ToTokens::to_token_stream(output), &lifetime.ident)
}

/// Whether `tokens` (groups included) hold the lifetime `'name`.
fn names_lifetime(tokens: proc_macro2::TokenStream, name: &proc_macro2::Ident) -> bool {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    tokens.windows(2).any(|w| {
        matches!(&w[0], TokenTree::Punct(p) if p.as_char() == '\'')
            && matches!(&w[1], TokenTree::Ident(i) if i == name)
    }) || tokens.iter().any(|t| match t {
        TokenTree::Group(g) => names_lifetime(g.stream(), name),
        _ => false,
    })
}

/// The lowered type arguments of an impl's self type (`Stack<T>` with `T = i32` gives `[i32]`).
fn self_type_args(
    low: &Lowering<'_>,
    scope: Scope<'_>,
    self_ty: &syn::Type,
) -> Result<Vec<Ty>, Problem> {
    // `impl IntoIterator for &'a ArrayVec<T, CAP>`: the arguments are the borrowed type's.
    let self_ty = match self_ty {
        syn::Type::Reference(r) => &*r.elem,
        other => other,
    };
    let syn::Type::Path(tp) = self_ty else {
        return Ok(Vec::new());
    };
    let Some(last) = tp.path.segments.last() else {
        return Ok(Vec::new());
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return Ok(Vec::new());
    };
    args.args
        .iter()
        .filter_map(|arg| match arg {
            syn::GenericArgument::Type(t) => Some(low.lower(scope, t, Pos::Other, &mut Vec::new())),
            _ => None,
        })
        .collect()
}

/// The callables of one function: one per instantiation of its own generic parameters
/// (`format<I: Integer>` once per integer type the crate implements `Integer` for).
/// A result both iterated and displayed (see `consume`) adds one callable per further way.
fn lower_fn(low: &Lowering<'_>, site: &FnSite<'_>) -> Vec<Result<Callable, Problem>> {
    let (mut count, mut ways) = (1, 1);
    let first = lower_fn_nth(low, site, (0, 0), &mut count, &mut ways);
    let mut all = vec![first];
    if all[0].is_ok() {
        all.extend(
            (1..ways)
                .map(|w| lower_fn_nth(low, site, (0, w), &mut 1, &mut 1))
                .filter(Result::is_ok),
        );
        all.extend(
            (1..count)
                .map(|k| lower_fn_nth(low, site, (k, 0), &mut 1, &mut 1))
                .filter(Result::is_ok),
        );
    }
    all
}

/// `pick`: which instantiation (see [`instantiate_nth`]) and which way of consuming the result;
/// `count` and `ways` are set to how many there are.
fn lower_fn_nth(
    low: &Lowering<'_>,
    site: &FnSite<'_>,
    (pick, way): (usize, usize),
    count: &mut usize,
    ways: &mut usize,
) -> Result<Callable, Problem> {
    // `fn map_ok(..) where Self: Iterator<Item = Result<T, E>>` of a blanket impl: the
    // impl's stand-in is chosen again, with the method's bounds on `Self` too.
    let rebound = rebind_blanket_self(low, site);
    let rebound_site = rebound.as_ref().map(|cx| FnSite {
        path: site.path.clone(),
        module: site.module,
        sig: site.sig,
        imp: Some(cx),
    });
    let site = rebound_site.as_ref().unwrap_or(site);
    // `fn from_be_bytes(bytes: &Self::Bytes)`: the impl's `type Bytes = [u8; 4]`.
    let with_types = site
        .imp
        .filter(|cx| !cx.assoc.is_empty())
        .map(|cx| with_assoc_inputs(site.sig, &cx.assoc));
    let sig = with_types.as_ref().unwrap_or(site.sig);
    let name = sig.ident.to_string();
    if matches!(sig.safety, syn::Safety::Unsafe(_)) {
        return Err(Problem::new(reason::UNSAFE, format!("unsafe fn {name}")));
    }
    let empty = BTreeMap::new();
    let (outer_subst, mut inst) = match site.imp {
        Some(cx) => {
            if let Some(p) = &cx.problem {
                return Err(p.clone());
            }
            (&cx.subst, cx.inst.clone())
        }
        None => (&empty, Vec::new()),
    };
    let self_ty = site.imp.map(|cx| &cx.self_ty);
    let outer = Scope {
        module: site.module,
        self_ty,
        subst: outer_subst,
    };
    let from_result = result_closure_bounds(low, site.module, sig);
    let (mut own_subst, mut own_inst, mut closures) =
        instantiate_nth(low, outer, &sig.generics, &from_result, pick, count)?;
    box_closures_in_output(
        low,
        outer,
        &sig.output,
        &mut closures,
        &mut own_subst,
        &mut own_inst,
    );
    let turbofish = turbofish(sig, &own_subst, &closures);
    inst.extend(own_inst);
    let mut subst = outer_subst.clone();
    subst.extend(own_subst);
    // The impl's closure parameters (`impl<T, F: FnOnce() -> T> Lazy<T, F>`), boxed.
    if let Some(cx) = site.imp {
        for (name, c) in &cx.closures {
            closures.entry(name.clone()).or_insert_with(|| c.clone());
        }
    }
    let scope = Scope {
        module: site.module,
        self_ty,
        subst: &subst,
    };

    let wrapped_self = wrapped_receiver(low, scope, sig);
    let receiver = match (
        match wrapped_self {
            Some(_) => None,
            None => lower_receiver(low, scope, sig)?,
        },
        site.imp.and_then(|cx| cx.self_ref),
    ) {
        (Some(Receiver::Value), Some(true)) => Some(Receiver::RefMut),
        (Some(Receiver::Value), Some(false)) => Some(Receiver::Ref),
        (receiver, _) => receiver,
    };
    let mut params = lower_params(low, scope, sig, &closures, &mut inst)?;
    if let Some(ty) = wrapped_self {
        params.insert(0, Param::new("self", ty));
    }
    let sig_output = match site.imp {
        Some(cx) => with_assoc(&sig.output, &cx.assoc),
        None => sig.output.clone(),
    };
    let (modes, kept_too) = match &sig_output {
        // `MimeIter::new(s) -> Self`: consumed as the impl's type would be, and kept as
        // before, since other callables may take it.
        syn::ReturnType::Type(_, ty) if is_self(ty) && site.imp.is_some() => {
            let written = site.imp.map(|cx| &cx.written_self).unwrap_or(ty);
            let modes = consume::consumed(low, scope, written);
            let kept = !modes.is_empty();
            (modes, kept)
        }
        syn::ReturnType::Type(_, ty) => {
            let modes = consume::consumed(low, scope, ty);
            let kept = !modes.is_empty() && consume::kept_too(low, scope, ty);
            (modes, kept)
        }
        syn::ReturnType::Default => (Vec::new(), false),
    };
    // The last way, past the consuming ones, keeps the result as it is.
    *ways = modes.len().max(1) + usize::from(kept_too);
    let consumed = modes.into_iter().nth(way);
    let ret = match &consumed {
        Some((_, ty)) => Some(ty.clone()),
        None => lower_return(low, scope, &sig_output),
    };
    let ref_params: BTreeSet<String> = subst
        .iter()
        .filter(|(_, t)| holds_reference(t))
        .map(|(name, _)| name.clone())
        .collect();
    let hides_lifetime = |p: &syn::Path| match low.ix.resolve(site.module, p, Ns::Type) {
        Some(Resolved::Local(Target::Type(t))) => low.ix.types[t].has_lifetimes(),
        _ => false,
    };
    let no_impl = ImplBorrows::default();
    let impl_borrows = site.imp.map_or(&no_impl, |cx| &cx.borrows);
    let mut lent = borrows::lent_inputs(sig, impl_borrows, &ref_params, &hides_lifetime);
    if site.imp.is_some_and(|cx| borrow_lent(cx, &sig_output)) && !lent.contains(&0) {
        lent.insert(0, 0);
    }
    // A collected or formatted result keeps no borrow unless its items are references or
    // crate types with lifetimes (mime's `Params` yields `(Name<'a>, Name<'a>)`).
    let lifetimed = |path: &str| {
        low.public
            .types
            .iter()
            .any(|(&t, p)| p == path && low.ix.types[t].has_lifetimes())
    };
    let keeps_borrow = |t: &Ty| holds_reference(t) || mentions_adt(t, &lifetimed);
    if consumed.is_some() && !ret.as_ref().is_some_and(keeps_borrow) {
        lent.clear();
    }
    for stored in borrows::stored_inputs(sig, impl_borrows, &hides_lifetime) {
        if !lent.contains(&stored) {
            lent.push(stored);
        }
    }
    lent.sort_unstable();
    let kind = match (site.imp, receiver) {
        (None, _) => CallableKind::Free,
        (Some(cx), Some(receiver)) => CallableKind::Method {
            self_ty: cx.self_ty.ty.clone(),
            receiver,
        },
        (Some(cx), None) => CallableKind::Assoc {
            self_ty: cx.self_ty.ty.clone(),
        },
    };
    Ok(Callable {
        path: site.path.clone(),
        name,
        kind,
        params,
        ret,
        file: low.ix.modules[site.module].file.clone(),
        line: sig.ident.span().start().line,
        instantiation: inst,
        lent,
        via_trait: None,
        operator: None,
        consume: consumed.map(|(how, _)| how),
        turbofish,
        ret_annotated: site
            .imp
            .is_some_and(|cx| uninferred_in_result(cx, sig, &sig_output)),
        asynchronous: sig.asyncness.is_some(),
        exact_args: false,
    })
}

/// A function's closure parameters its result names (`on_drop(v: T, f: F) -> OnDrop<T, F>`)
/// stand in as a boxed closure ([`super::generics::boxed_closure`]), so the result's type can
/// be written; the closure passed is boxed and cast to it. One that cannot be boxed stays a
/// plain closure, as before: a result consumed where it is made (itertools' `batching(..)`,
/// collected) never names its type.
fn box_closures_in_output(
    low: &Lowering<'_>,
    outer: Scope<'_>,
    output: &syn::ReturnType,
    closures: &mut BTreeMap<String, ClosureBound>,
    own_subst: &mut BTreeMap<String, Ty>,
    own_inst: &mut Vec<(String, Ty)>,
) {
    let syn::ReturnType::Type(_, out) = output else {
        return;
    };
    for (name, c) in closures.iter_mut() {
        let only = BTreeMap::from([(name.clone(), Ty::Unit)]);
        if !mentions_generic(out, &only) {
            continue;
        }
        let mut subst = outer.subst.clone();
        subst.extend(own_subst.iter().map(|(k, v)| (k.clone(), v.clone())));
        let scope = Scope {
            subst: &subst,
            ..outer
        };
        let Some(boxed) = super::generics::boxed_closure(low, scope, c) else {
            continue;
        };
        own_subst.insert(name.clone(), boxed.clone());
        own_inst.push((name.clone(), boxed));
    }
}

/// For a method of a blanket impl (`impl<T: Iterator + ?Sized> Itertools for T`) bounding
/// `Self` further (`where Self: Iterator<Item = Result<T, E>>`) or its item (`where
/// Self::Item: IntoIterator`), the impl's context with its parameter chosen again to meet
/// those bounds too (`IntoIter<Result<i32, i32>>`, `IntoIter<Vec<i32>>`); `None` when the
/// method adds no bound on `Self` or nothing meets them.
fn rebind_blanket_self(low: &Lowering<'_>, site: &FnSite<'_>) -> Option<ImplCx> {
    let cx = site.imp?;
    let param = match &cx.written_self {
        syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident()?.to_string(),
        _ => return None,
    };
    if cx.problem.is_some() || cx.blanket_bounds.is_empty() || !cx.subst.contains_key(&param) {
        return None;
    }
    let self_ident = syn::Ident::new("Self", proc_macro2::Span::call_site());
    let extra: Vec<&syn::TypeParamBound> =
        super::generics::where_bounds(&site.sig.generics, &self_ident).collect();
    // `where Self::Item: IntoIterator` (itertools' `kmerge`): the stand-in must yield iterables.
    let item_bounded = super::generics::item_where_bounds(&site.sig.generics, &self_ident)
        .next()
        .is_some();
    if extra.is_empty() && !item_bounded {
        return None;
    }
    let outer = Scope {
        module: site.module,
        self_ty: Some(&cx.self_ty),
        subst: &cx.subst,
    };
    let (own, _, _) = instantiate_nth(
        low,
        outer,
        &site.sig.generics,
        &SharedBounds::new(),
        0,
        &mut 1,
    )
    .ok()?;
    let mut subst = cx.subst.clone();
    subst.extend(own);
    let scope = Scope {
        module: site.module,
        self_ty: None,
        subst: &subst,
    };
    // `where Self: Sized` alone asks for nothing new.
    let asks = low.bound_keys(scope, extra.iter().copied()).ok()?;
    if asks.iter().all(|k| k == "Sized") && !item_bounded {
        return None;
    }
    let all = cx.blanket_bounds.iter().chain(extra);
    let keys = low.bound_keys(scope, all).ok()?;
    let keys = super::generics::with_item_bounds(low, scope, &site.sig.generics, &self_ident, keys);
    let chosen = low.candidates.choose(&keys)?;
    if chosen == cx.self_ty.ty {
        return None;
    }
    let mut rebound = cx.clone();
    rebound.self_ty.ty = chosen.clone();
    rebound.subst.insert(param.clone(), chosen.clone());
    for (name, ty) in &mut rebound.inst {
        if *name == param {
            *ty = chosen.clone();
        }
    }
    Some(rebound)
}

/// Whether the result names an impl parameter that neither the impl's self type nor the
/// parameters hold as a type of its own (only through a projection, `[A::Item]`, or not at
/// all), so nothing at a call site infers it.
fn uninferred_in_result(cx: &ImplCx, sig: &syn::Signature, output: &syn::ReturnType) -> bool {
    let syn::ReturnType::Type(_, ret) = output else {
        return false;
    };
    let held = |name: &str| {
        holds_param(&cx.written_self, name)
            || sig.inputs.iter().any(|input| match input {
                syn::FnArg::Typed(t) => holds_param(&t.ty, name),
                syn::FnArg::Receiver(_) => false,
            })
    };
    cx.subst.keys().any(|name| {
        !held(name) && super::generics::names_any(&source_text(ret), std::slice::from_ref(name))
    })
}

/// Whether `ty` has `name` as a type of its own somewhere (`SmallVec<A>`, `&[A]`), not only
/// as a projection's base (`A::Item`).
fn holds_param(ty: &syn::Type, name: &str) -> bool {
    struct Finder<'n> {
        name: &'n str,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_type_path(&mut self, tp: &'ast syn::TypePath) {
            if tp.qself.is_none() && tp.path.is_ident(self.name) {
                self.found = true;
            }
            syn::visit::visit_type_path(self, tp);
        }
    }
    let mut finder = Finder { name, found: false };
    finder.visit_type(ty);
    finder.found
}

fn lower_receiver(
    low: &Lowering<'_>,
    scope: Scope<'_>,
    sig: &syn::Signature,
) -> Result<Option<Receiver>, Problem> {
    let Some(recv) = sig.receiver() else {
        return Ok(None);
    };
    let Some(self_ty) = scope.self_ty else {
        return Err(Problem::new(reason::OTHER, source_text(recv)));
    };
    if let Some(p) = &self_ty.problem {
        return Err(p.clone());
    }
    match &recv.kind {
        syn::ReceiverKind::Value => Ok(Some(Receiver::Value)),
        syn::ReceiverKind::Reference(_, _, None) => Ok(Some(Receiver::Ref)),
        syn::ReceiverKind::Reference(_, _, Some(_)) => Ok(Some(Receiver::RefMut)),
        syn::ReceiverKind::Typed(_, ty) => {
            // `self: Box<Self>`, `self: Rc<Self>` and friends need a std wrapper first.
            match low.lower(scope, ty, Pos::Other, &mut Vec::new()) {
                Ok(t) if t == self_ty.ty => Ok(Some(Receiver::Value)),
                Ok(Ty::Ref { mutable, inner }) if *inner == self_ty.ty => Ok(Some(if mutable {
                    Receiver::RefMut
                } else {
                    Receiver::Ref
                })),
                Ok(_) => Err(Problem::new(reason::STD, source_text(ty))),
                Err(p) => Err(p),
            }
        }
        _ => Err(Problem::new(reason::OTHER, source_text(recv))),
    }
}

/// The type of a receiver written `self: &Arc<Self>`, `self: Rc<Self>`, `self: Box<Self>` (a
/// std pointer to the impl's type, or a borrow of one): such a method is called by its path
/// with the pointer as its first argument (`Mutex::<i32>::lock_arc(&m)`), so it is lowered
/// as an associated function whose first parameter is that type. `None` for any other
/// receiver.
fn wrapped_receiver(low: &Lowering<'_>, scope: Scope<'_>, sig: &syn::Signature) -> Option<Ty> {
    let recv = sig.receiver()?;
    let syn::ReceiverKind::Typed(_, ty) = &recv.kind else {
        return None;
    };
    let self_ty = scope.self_ty.filter(|s| s.problem.is_none())?;
    let lowered = low.lower(scope, ty, Pos::Param, &mut Vec::new()).ok()?;
    let pointer = match &lowered {
        Ty::Ref { inner, .. } => inner.as_ref(),
        t => t,
    };
    match pointer {
        Ty::Adt { path, args }
            if crate::harness::std_values::pointer(path) && args.first() == Some(&self_ty.ty) =>
        {
            Some(lowered)
        }
        _ => None,
    }
}

fn lower_params(
    low: &Lowering<'_>,
    scope: Scope<'_>,
    sig: &syn::Signature,
    closures: &BTreeMap<String, ClosureBound>,
    inst: &mut Vec<(String, Ty)>,
) -> Result<Vec<Param>, Problem> {
    let mut params = Vec::new();
    for (i, arg) in sig.inputs.iter().enumerate() {
        let syn::FnArg::Typed(pt) = arg else { continue };
        let name = match &*pt.pat {
            syn::Pat::Ident(id) => id.ident.to_string(),
            _ => format!("arg{i}"),
        };
        if let Some(closure) = closure_param(&pt.ty, closures) {
            params.push(closure_returning(low, scope, name, closure, inst)?);
            continue;
        }
        let object_as_impl = dyn_as_impl(&pt.ty);
        let written = object_as_impl.as_ref().unwrap_or(&pt.ty);
        let ty = low.lower(scope, written, Pos::Param, inst)?;
        let inferred = mentions_generic(&pt.ty, scope.subst);
        let static_ref = matches!(
            &*pt.ty,
            syn::Type::Reference(r) if r.mutability.is_none()
                && r.lifetime.as_ref().is_some_and(|l| l.ident == "static")
        );
        params.push(Param {
            name,
            ty,
            inferred,
            static_ref,
            closure: None,
        });
    }
    if sig.variadic.is_some() {
        return Err(Problem::new(reason::OTHER, "..."));
    }
    Ok(params)
}

/// A closure parameter: typed by what its closure returns. One returning `()` does nothing
/// (see [`crate::model::ClosureParam::returns_unit`]); one returning a reference is left out: there is no
/// value it could own.
fn closure_returning(
    low: &Lowering<'_>,
    scope: Scope<'_>,
    name: String,
    closure: ClosureBound,
    inst: &mut Vec<(String, Ty)>,
) -> Result<Param, Problem> {
    let ty = match &closure.output {
        syn::ReturnType::Default => Ty::Unit,
        syn::ReturnType::Type(_, out) => low.lower(scope, out, Pos::Param, inst)?,
    };
    if ty == Ty::Unit {
        let mut shape = closure.shape;
        shape.returns_unit = true;
        return Ok(Param {
            name,
            ty: Ty::Prim("u8".into()),
            inferred: false,
            static_ref: false,
            closure: Some(shape),
        });
    }
    if matches!(ty, Ty::Ref { .. }) {
        return Err(Problem::new(reason::CLOSURE, closure.text));
    }
    let syn::ReturnType::Type(_, out) = &closure.output else {
        return Err(Problem::new(reason::CLOSURE, closure.text));
    };
    let inferred = mentions_generic(out, scope.subst);
    let mut shape = closure.shape;
    // A boxed closure names its arguments' types, its key's among them.
    if ty == Ty::Prim("bool".into()) {
        shape.key = predicate_key(low, scope, &closure.inputs, inst);
    }
    Ok(Param {
        name,
        ty,
        inferred,
        static_ref: false,
        closure: Some(shape),
    })
}

/// The first closure argument that is an integer, or a borrow of one, once the type
/// parameters are instantiated (`usize`, `&mut T` with `T = i32`).
fn predicate_key(
    low: &Lowering<'_>,
    scope: Scope<'_>,
    inputs: &[syn::Type],
    inst: &[(String, Ty)],
) -> Option<ClosureKey> {
    inputs.iter().enumerate().find_map(|(arg, t)| {
        let (inner, borrowed) = match t {
            syn::Type::Reference(r) => (&*r.elem, true),
            t => (t, false),
        };
        // A scratch copy: lowering records the stand-ins it chose, and this one is not kept.
        let mut scratch = inst.to_vec();
        let lowered = low.lower(scope, inner, Pos::Param, &mut scratch).ok()?;
        matches!(&lowered, Ty::Prim(p) if is_integer(p)).then(|| ClosureKey {
            arg,
            borrowed,
            ty: lowered.clone(),
        })
    })
}

fn is_integer(p: &str) -> bool {
    p.starts_with('i') || p.starts_with('u')
}

/// Whether a parameter's type is decided by a generic stand-in: it names a type parameter in
/// scope (`V`, `&[T]`) or is an `impl Trait`.
fn mentions_generic(ty: &syn::Type, generics: &BTreeMap<String, Ty>) -> bool {
    struct Finder<'g> {
        generics: &'g BTreeMap<String, Ty>,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_type_path(&mut self, tp: &'ast syn::TypePath) {
            let named = tp.qself.is_none()
                && tp.path.segments.len() == 1
                && self
                    .generics
                    .contains_key(&tp.path.segments[0].ident.to_string());
            self.found |= named;
            syn::visit::visit_type_path(self, tp);
        }
        fn visit_type_impl_trait(&mut self, _: &'ast syn::TypeImplTrait) {
            self.found = true;
        }
    }
    let mut finder = Finder {
        generics,
        found: false,
    };
    finder.visit_type(ty);
    finder.found
}

/// Return types never block a call: what cannot be lowered is kept as source text.
fn lower_return(low: &Lowering<'_>, scope: Scope<'_>, output: &syn::ReturnType) -> Option<Ty> {
    let syn::ReturnType::Type(_, ty) = output else {
        return None;
    };
    if matches!(**ty, syn::Type::Never(_)) {
        return None;
    }
    match low.lower(scope, ty, Pos::Other, &mut Vec::new()) {
        Ok(Ty::Unit) => None,
        Ok(t) => Some(t),
        Err(_) => {
            Some(result_with_opaque_error(low, scope, ty).unwrap_or(Ty::Other(source_text(&**ty))))
        }
    }
}

/// `Result<T, E>` whose `E` does not lower (`Infallible`, `Box<dyn Error>`, a dependency's
/// error): the error is kept as text, so the harness can still keep the `T` (see
/// `harness::registry::ok_converted`).
fn result_with_opaque_error(low: &Lowering<'_>, scope: Scope<'_>, ty: &syn::Type) -> Option<Ty> {
    let syn::Type::Path(tp) = ty else {
        return None;
    };
    let last = tp.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return None;
    };
    let mut types = a.args.iter().filter_map(|g| match g {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let (ok, err) = (types.next()?, types.next()?);
    let ok = low.lower(scope, ok, Pos::Other, &mut Vec::new()).ok()?;
    Some(Ty::Result(
        Box::new(ok),
        Box::new(Ty::Other(source_text(err))),
    ))
}
