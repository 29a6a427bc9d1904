//! Lowering `syn` types to [`Ty`]: primitives, std containers, crate types by public path.
//!
//! Lowering fails with a [`Problem`] for anything the harness cannot build yet; a parameter
//! with a problem makes its callable unsupported, while a return type with one is kept as
//! [`Ty::Other`] (return types never block a call).

use std::collections::BTreeMap;

use quote::ToTokens;

use super::bounds::Candidates;
use super::index::{Index, Ns, Resolved, Target};
use super::public::PublicPaths;
use super::walk::ModId;
use crate::harness::std_values::{STD_ARC, STD_BOX, STD_COW, STD_RANGE_FULL, STD_RC};
use crate::model::Ty;

/// Why a signature piece cannot be driven, as the short reason and the source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    pub reason: &'static str,
    pub detail: String,
}

impl Problem {
    pub(crate) fn new(reason: &'static str, detail: impl Into<String>) -> Self {
        Problem {
            reason,
            detail: detail.into(),
        }
    }
}

/// Stable reasons, shared with the summary that groups by them.
pub(crate) mod reason {
    pub const CLOSURE: &str = "closure parameter";
    pub const TRAIT_OBJECT: &str = "trait object";
    pub const NO_CANDIDATE: &str = "generic bound without candidate";
    pub const UNSAFE: &str = "unsafe fn";
    pub const CONST_GENERIC: &str = "const generic";
    pub const DEPENDENCY: &str = "dependency type";
    pub const STD: &str = "std type not supported";
    pub const RAW_POINTER: &str = "raw pointer";
    pub const FN_POINTER: &str = "fn pointer";
    pub const FORMATTER: &str = "formatter";
    /// A crate type no public path reaches: a test cannot name it.
    pub const PRIVATE: &str = "private type";
    /// `impl Trait` in return position, `T::Assoc`, macros in type position, `_`.
    pub const OTHER: &str = "other type";
}

/// The impl's `Self`, and why it cannot be a receiver if it cannot.
#[derive(Debug, Clone)]
pub(crate) struct SelfTy {
    pub ty: Ty,
    pub problem: Option<Problem>,
}

/// Where a type is written: the module its names resolve in, `Self`, generic substitutions.
#[derive(Clone, Copy)]
pub(crate) struct Scope<'s> {
    pub module: ModId,
    pub self_ty: Option<&'s SelfTy>,
    pub subst: &'s BTreeMap<String, Ty>,
}

/// Parameter position may instantiate `impl Trait`; anywhere else it is a problem.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pos {
    Param,
    Other,
}

/// Type aliases expanding into aliases stop here.
const MAX_ALIAS_DEPTH: usize = 16;

const PRIMS: &[&str] = &[
    "bool", "char", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
    "usize", "f32", "f64",
];

/// Bare names we take for std types when no `use` told us where they come from.
const STD_NAMES: &[&str] = &[
    "Box",
    "Rc",
    "Arc",
    "Cell",
    "RefCell",
    "Mutex",
    "RwLock",
    "Cow",
    "HashMap",
    "HashSet",
    "BTreeMap",
    "BTreeSet",
    "VecDeque",
    "BinaryHeap",
    "LinkedList",
    "Duration",
    "Instant",
    "SystemTime",
    "Path",
    "PathBuf",
    "OsStr",
    "OsString",
    "File",
    "Ordering",
    "PhantomData",
    "NonZeroU8",
    "NonZeroU16",
    "NonZeroU32",
    "NonZeroU64",
    "NonZeroUsize",
    "Pin",
    "Range",
    "RangeInclusive",
    "Error",
    "Stdin",
    "Stdout",
    "StdinLock",
    "Wrapping",
    "CStr",
    "CString",
];

/// Lowers types against the crate's index and public paths.
pub(crate) struct Lowering<'a> {
    pub ix: &'a Index,
    pub public: &'a PublicPaths,
    pub candidates: &'a Candidates,
}

impl Lowering<'_> {
    /// Lowers `ty`; in parameter position, `impl Trait` is instantiated and recorded in `inst`.
    pub(crate) fn lower(
        &self,
        scope: Scope<'_>,
        ty: &syn::Type,
        pos: Pos,
        inst: &mut Vec<(String, Ty)>,
    ) -> Result<Ty, Problem> {
        self.lower_at(scope, ty, pos, inst, 0)
    }

    fn lower_at(
        &self,
        scope: Scope<'_>,
        ty: &syn::Type,
        pos: Pos,
        inst: &mut Vec<(String, Ty)>,
        depth: usize,
    ) -> Result<Ty, Problem> {
        let lower =
            |t: &syn::Type, inst: &mut Vec<(String, Ty)>| self.lower_at(scope, t, pos, inst, depth);
        match ty {
            syn::Type::Reference(r) => Ok(Ty::Ref {
                mutable: r.mutability.is_some(),
                inner: Box::new(lower(&r.elem, inst)?),
            }),
            syn::Type::Slice(s) => Ok(Ty::Slice(Box::new(lower(&s.elem, inst)?))),
            syn::Type::Tuple(t) if t.elems.is_empty() => Ok(Ty::Unit),
            syn::Type::Tuple(t) => Ok(Ty::Tuple(
                t.elems
                    .iter()
                    .map(|e| lower(e, inst))
                    .collect::<Result<_, _>>()?,
            )),
            syn::Type::Paren(p) => lower(&p.elem, inst),
            syn::Type::Group(g) => lower(&g.elem, inst),
            syn::Type::Path(p) => self.lower_path(scope, p, pos, inst, depth),
            syn::Type::Array(a) => match self.array_len(scope, &a.len, 0) {
                // `[T; N]` with a literal length: built element by element
                // (`harness::registry`), a pseudo-path with the element and the length.
                Some(n) => Ok(Ty::Adt {
                    path: crate::harness::std_values::ARRAY.to_string(),
                    args: vec![lower(&a.elem, inst)?, Ty::Other(n.to_string())],
                }),
                None => Err(Problem::new(reason::STD, source_text(ty))),
            },
            syn::Type::Ptr(_) => Err(Problem::new(reason::RAW_POINTER, source_text(ty))),
            syn::Type::FnPtr(_) => Err(Problem::new(reason::FN_POINTER, source_text(ty))),
            syn::Type::TraitObject(t) if t.bounds.iter().any(is_fn_bound) => {
                Err(Problem::new(reason::CLOSURE, source_text(ty)))
            }
            syn::Type::TraitObject(_) => Err(Problem::new(reason::TRAIT_OBJECT, source_text(ty))),
            syn::Type::ImplTrait(t) if t.bounds.iter().any(is_fn_bound) => {
                Err(Problem::new(reason::CLOSURE, source_text(ty)))
            }
            syn::Type::ImplTrait(t) if pos == Pos::Param => {
                let keys = self.bound_keys(scope, t.bounds.iter())?;
                let text = source_text(ty);
                let chosen = self
                    .candidates
                    .choose(&keys)
                    .ok_or_else(|| Problem::new(reason::NO_CANDIDATE, text.clone()))?;
                inst.push((text, chosen.clone()));
                Ok(chosen)
            }
            _ => Err(Problem::new(reason::OTHER, source_text(ty))),
        }
    }

    fn lower_path(
        &self,
        scope: Scope<'_>,
        tp: &syn::TypePath,
        pos: Pos,
        inst: &mut Vec<(String, Ty)>,
        depth: usize,
    ) -> Result<Ty, Problem> {
        let text = || source_text(tp);
        if let Some(assoc) = self.associated(scope, tp) {
            return assoc.ok_or_else(|| Problem::new(reason::OTHER, text()));
        }
        if tp.qself.is_some() {
            return Err(Problem::new(reason::OTHER, text()));
        }
        let path = &tp.path;
        let Some(last) = path.segments.last() else {
            return Err(Problem::new(reason::OTHER, text()));
        };
        if path.segments.len() == 1
            && path.leading_colon.is_none()
            && last.arguments.is_none()
            && let Some(simple) = self.lower_simple_name(scope, &last.ident.to_string())
        {
            return simple;
        }
        if path.segments.first().is_some_and(|s| s.ident == "Self") {
            return Err(Problem::new(reason::OTHER, text()));
        }
        let args = type_args(last);
        let lower_args = |inst: &mut Vec<(String, Ty)>| -> Result<Vec<Ty>, Problem> {
            args.iter()
                .map(|a| self.lower_at(scope, a, pos, inst, depth))
                .collect()
        };
        match self.ix.resolve(scope.module, path, Ns::Type) {
            Some(Resolved::Local(Target::Type(t))) => {
                let Some(public) = self.public.types.get(&t) else {
                    return Err(Problem::new(reason::PRIVATE, text()));
                };
                Ok(Ty::Adt {
                    path: public.clone(),
                    args: lower_args(inst)?,
                })
            }
            Some(Resolved::Local(Target::Alias(a))) => {
                let args = lower_args(inst)?;
                self.expand_alias(a, args, inst, depth)
                    .map_err(|p| match p.reason {
                        reason::OTHER => Problem::new(reason::OTHER, text()),
                        _ => p,
                    })
            }
            Some(Resolved::Local(Target::Trait(_))) => {
                Err(Problem::new(reason::TRAIT_OBJECT, text()))
            }
            Some(Resolved::External(segs)) => {
                let args = lower_args(inst)?;
                lower_external(&segs, args).map_err(|r| Problem::new(r, text()))
            }
            _ => Err(Problem::new(reason::OTHER, text())),
        }
    }

    /// `A::Item` or `<A as Array>::Item` with `A` instantiated: what the candidate's impl
    /// says (`Candidates::associated_type`); `None` when the path is not such a projection.
    fn associated(&self, scope: Scope<'_>, tp: &syn::TypePath) -> Option<Option<Ty>> {
        let segs = &tp.path.segments;
        let (base, name) = match &tp.qself {
            // `<<I as IntoIterator>::Item as IntoIterator>::Item`, `<I::Item as
            // IntoIterator>::IntoIter` (itertools' `kmerge_by`): the inner projection first.
            Some(q) if matches!(&*q.ty, syn::Type::Path(b) if b.qself.is_some() || b.path.segments.len() == 2) =>
            {
                let name = segs.last()?;
                let inner = self.lower(scope, &q.ty, Pos::Other, &mut Vec::new()).ok();
                return Some(inner.and_then(|base| {
                    name.arguments
                        .is_none()
                        .then(|| {
                            self.candidates
                                .associated_type(&base, &name.ident.to_string())
                        })
                        .flatten()
                }));
            }
            Some(q) => {
                let syn::Type::Path(base) = &*q.ty else {
                    return None;
                };
                (base.path.get_ident()?, segs.last()?)
            }
            None if segs.len() == 2 && tp.path.leading_colon.is_none() => {
                let first = &segs[0];
                first.arguments.is_none().then_some(())?;
                (&first.ident, &segs[1])
            }
            None => return None,
        };
        // `Self::Item` of a blanket impl over iterators (itertools' `impl<T: Iterator>
        // Itertools for T`): the stand-in's item. Other `Self::X` are the impl's own
        // (`with_assoc`).
        let base = match scope.self_ty {
            Some(SelfTy { ty, problem: None }) if base == "Self" => ty,
            _ => scope.subst.get(&base.to_string())?,
        };
        if !name.arguments.is_none() {
            return Some(None);
        }
        Some(
            self.candidates
                .associated_type(base, &name.ident.to_string()),
        )
    }

    /// Generic parameters, `Self`, primitives and `str`, none of which need resolution.
    fn lower_simple_name(&self, scope: Scope<'_>, name: &str) -> Option<Result<Ty, Problem>> {
        if let Some(ty) = scope.subst.get(name) {
            return Some(Ok(ty.clone()));
        }
        if name == "Self" {
            return Some(match scope.self_ty {
                Some(SelfTy {
                    problem: Some(p), ..
                }) => Err(p.clone()),
                Some(SelfTy { ty, .. }) => Ok(ty.clone()),
                None => Err(Problem::new(reason::OTHER, "Self")),
            });
        }
        if PRIMS.contains(&name) {
            return Some(Ok(Ty::Prim(name.to_string())));
        }
        (name == "str").then_some(Ok(Ty::Str))
    }

    /// `type Result<T> = std::result::Result<T, Error>`: lower the body where it was written,
    /// with the alias parameters bound to the (already lowered) arguments.
    fn expand_alias(
        &self,
        a: usize,
        args: Vec<Ty>,
        inst: &mut Vec<(String, Ty)>,
        depth: usize,
    ) -> Result<Ty, Problem> {
        if depth >= MAX_ALIAS_DEPTH {
            return Err(Problem::new(reason::OTHER, ""));
        }
        let decl = &self.ix.aliases[a];
        let mut subst = BTreeMap::new();
        let mut args = args.into_iter();
        for param in decl.item.generics.type_params() {
            let bound = match (args.next(), &param.default) {
                (Some(arg), _) => arg,
                (None, Some((_, default))) => {
                    let scope = Scope {
                        module: decl.module,
                        self_ty: None,
                        subst: &subst,
                    };
                    self.lower_at(scope, default, Pos::Other, inst, depth + 1)?
                }
                (None, None) => return Err(Problem::new(reason::OTHER, "")),
            };
            subst.insert(param.ident.to_string(), bound);
        }
        let scope = Scope {
            module: decl.module,
            self_ty: None,
            subst: &subst,
        };
        self.lower_at(scope, &decl.item.ty, Pos::Other, inst, depth + 1)
    }

    /// The length of an array type, at most 4096: an integer literal, a const generic as
    /// instantiated (`[usize; N]`), or a crate `const` (`[u8; BLOCK_SIZE]`), with `+`, `-`,
    /// `*`, `/` and casts between them (`[u8; 2 * SIZE]`).
    fn array_len(&self, scope: Scope<'_>, len: &syn::Expr, depth: usize) -> Option<u64> {
        if depth > 64 {
            return None;
        }
        let value = match len {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i.base10_parse::<u64>().ok()?,
            syn::Expr::Group(g) => self.array_len(scope, &g.expr, depth + 1)?,
            syn::Expr::Paren(p) => self.array_len(scope, &p.expr, depth + 1)?,
            syn::Expr::Cast(c) => self.array_len(scope, &c.expr, depth + 1)?,
            syn::Expr::Block(b) => match b.block.stmts.as_slice() {
                [syn::Stmt::Expr(e, None)] => self.array_len(scope, e, depth + 1)?,
                _ => return None,
            },
            syn::Expr::Binary(b) => {
                let l = self.array_len(scope, &b.left, depth + 1)?;
                let r = self.array_len(scope, &b.right, depth + 1)?;
                match b.op {
                    syn::BinOp::Add(_) => l.checked_add(r)?,
                    syn::BinOp::Sub(_) => l.checked_sub(r)?,
                    syn::BinOp::Mul(_) => l.checked_mul(r)?,
                    syn::BinOp::Div(_) => l.checked_div(r)?,
                    _ => return None,
                }
            }
            syn::Expr::Path(p) if p.qself.is_none() => self.const_value(scope, &p.path, depth)?,
            syn::Expr::Call(c) if c.args.is_empty() => prim_size_of(&c.func)?,
            _ => return None,
        };
        (value <= 4096).then_some(value)
    }

    /// A const generic's instantiated value, or a crate `const`'s value.
    fn const_value(&self, scope: Scope<'_>, path: &syn::Path, depth: usize) -> Option<u64> {
        if let Some(id) = path.get_ident()
            && let Some(Ty::Other(v)) = scope.subst.get(&id.to_string())
        {
            return v.parse().ok();
        }
        let Some(Resolved::Local(Target::Value(i))) =
            self.ix.resolve(scope.module, path, Ns::Value)
        else {
            return None;
        };
        let decl = &self.ix.values[i];
        let empty = BTreeMap::new();
        let at = Scope {
            module: decl.module,
            self_ty: None,
            subst: &empty,
        };
        self.array_len(at, decl.expr.as_ref()?, depth + 1)
    }

    /// Keys for the trait bounds of one parameter; a closure bound is a problem of its own.
    pub(crate) fn bound_keys<'b>(
        &self,
        scope: Scope<'_>,
        bounds: impl Iterator<Item = &'b syn::TypeParamBound>,
    ) -> Result<Vec<String>, Problem> {
        let mut keys = Vec::new();
        for bound in bounds {
            let syn::TypeParamBound::Trait(tb) = bound else {
                continue;
            };
            if tb.maybe.is_some() {
                continue;
            }
            if is_fn_bound(bound) {
                return Err(Problem::new(reason::CLOSURE, source_text(bound)));
            }
            keys.push(self.trait_key(scope, &tb.path));
        }
        Ok(keys)
    }

    /// The matching key of a trait path: last segment and generic arguments, `io::` kept.
    pub(crate) fn trait_key(&self, scope: Scope<'_>, path: &syn::Path) -> String {
        let Some(last) = path.segments.last() else {
            return source_text(path);
        };
        let resolved = self.ix.resolve(scope.module, path, Ns::Type);
        // A std trait imported under another name (anyhow's `use std::error::Error as
        // StdError`) is keyed by its own: the crate may have a trait of the alias's name.
        let name = match &resolved {
            Some(Resolved::External(segs)) if segs.len() > 1 => segs.last().cloned(),
            _ => None,
        }
        .unwrap_or_else(|| last.ident.to_string());
        let prefix = match resolved {
            Some(Resolved::External(segs)) if segs.iter().any(|s| s == "io") => "io::",
            Some(Resolved::External(segs))
                if name == "Write" && segs.iter().any(|s| s == "fmt") =>
            {
                "fmt::"
            }
            _ => "",
        };
        let shown = |a: &syn::Type| {
            // `impl IntoIterator<Item = impl Into<OsString>>`: the item is what the inner
            // bound is instantiated with.
            let pos = match a {
                syn::Type::ImplTrait(_) => Pos::Param,
                _ => Pos::Other,
            };
            match self.lower(scope, a, pos, &mut Vec::new()) {
                Ok(ty) => ty_display(&ty),
                Err(_) => without_lifetimes(&source_text(a)),
            }
        };
        let mut args: Vec<String> = type_args(last).iter().map(|a| shown(a)).collect();
        // The item an iterator bound asks for decides its stand-in (`analyze::bounds`).
        if ITERATOR_TRAITS.contains(&name.as_str())
            && let Some(item) = item_binding(last)
        {
            args.push(format!("Item = {}", shown(item)));
        }
        if args.is_empty() {
            format!("{prefix}{name}")
        } else {
            format!("{prefix}{name}<{}>", args.join(", "))
        }
    }
}

/// Std containers by their last segment; other std paths and dependencies are problems.
fn lower_external(segs: &[String], args: Vec<Ty>) -> Result<Ty, &'static str> {
    let last = segs.last().map(String::as_str).unwrap_or_default();
    let is_std = matches!(
        segs.first().map(String::as_str),
        Some("std" | "core" | "alloc")
    );
    let std_like = is_std || segs.len() == 1;
    let mut args = args.into_iter();
    match (last, args.len()) {
        ("Formatter", _) => Err(reason::FORMATTER),
        // Std values the harness builds from integers or a string (`harness::registry`); a
        // `&Path` is passed as a `&PathBuf`.
        ("Duration", 0) if is_std => Ok(std_adt("std::time::Duration")),
        ("SystemTime", 0) if is_std => Ok(std_adt("std::time::SystemTime")),
        (
            "Ipv4Addr" | "Ipv6Addr" | "IpAddr" | "SocketAddr" | "SocketAddrV4" | "SocketAddrV6",
            0,
        ) if is_std => Ok(std_adt(&format!("std::net::{last}"))),
        ("PathBuf" | "Path", 0) if is_std => Ok(std_adt("std::path::PathBuf")),
        // `OsStr` stays itself: traits are implemented for it (clap_lex's `OsStrExt`); the
        // pool holds an `OsString` and lends it (`harness::registry`).
        ("OsString", 0) if is_std => Ok(std_adt("std::ffi::OsString")),
        ("OsStr", 0) if is_std => Ok(std_adt("std::ffi::OsStr")),
        ("Error", 0) if is_std && segs.iter().any(|s| s == "io") => {
            Ok(std_adt(crate::harness::std_values::STD_IO_ERROR))
        }
        // Built by the harness from `Vec`s the search picks (`harness::registry`).
        ("HashMap" | "BTreeMap" | "HashSet" | "BTreeSet", n)
            if is_std && n == if last.ends_with("Map") { 2 } else { 1 } =>
        {
            Ok(Ty::Adt {
                path: format!("std::collections::{last}"),
                args: args.collect(),
            })
        }
        // From an integer the search picks (`harness::registry`).
        (
            "NonZeroU8" | "NonZeroU16" | "NonZeroU32" | "NonZeroU64" | "NonZeroU128"
            | "NonZeroUsize" | "NonZeroI8" | "NonZeroI16" | "NonZeroI32" | "NonZeroI64"
            | "NonZeroI128" | "NonZeroIsize",
            0,
        ) if is_std => Ok(std_adt(&format!("std::num::{last}"))),
        ("Ordering", 0) if is_std && segs.iter().any(|s| s == "cmp") => {
            Ok(std_adt("std::cmp::Ordering"))
        }
        ("Wrapping", 1) if is_std => Ok(Ty::Adt {
            path: "std::num::Wrapping".to_string(),
            args: args.collect(),
        }),
        // Smart pointers and `Cow` around what the pool builds (`harness::std_values`).
        ("Box" | "Rc" | "Arc" | "Cow", 1) if std_like => Ok(Ty::Adt {
            path: match last {
                "Box" => STD_BOX,
                "Rc" => STD_RC,
                "Arc" => STD_ARC,
                _ => STD_COW,
            }
            .to_string(),
            args: args.collect(),
        }),
        ("RangeTo" | "RangeFrom" | "RangeToInclusive", 1) if is_std => Ok(Ty::Adt {
            path: format!("std::ops::{last}"),
            args: args.collect(),
        }),
        ("RangeFull", 0) if is_std => Ok(std_adt(STD_RANGE_FULL)),
        // Built from two bounds the search picks (`harness::registry`).
        ("Range" | "RangeInclusive", 1) if is_std => Ok(Ty::Adt {
            path: format!("std::ops::{last}"),
            args: args.collect(),
        }),
        ("String", 0) if std_like => Ok(Ty::String),
        ("Vec", 1) if std_like => Ok(Ty::Vec(Box::new(args.next().unwrap_or(Ty::Unit)))),
        ("Option", 1) if std_like => Ok(Ty::Option(Box::new(args.next().unwrap_or(Ty::Unit)))),
        ("Result", 2) if std_like => {
            let ok = args.next().unwrap_or(Ty::Unit);
            let err = args.next().unwrap_or(Ty::Unit);
            Ok(Ty::Result(Box::new(ok), Box::new(err)))
        }
        _ if is_std || (segs.len() == 1 && STD_NAMES.contains(&last)) => Err(reason::STD),
        _ => Err(reason::DEPENDENCY),
    }
}

fn std_adt(path: &str) -> Ty {
    Ty::Adt {
        path: path.to_string(),
        args: Vec::new(),
    }
}

/// Traits whose `Item = T` binding is part of their key.
pub(crate) const ITERATOR_TRAITS: &[&str] = &[
    "Iterator",
    "DoubleEndedIterator",
    "ExactSizeIterator",
    "IntoIterator",
];

/// The `Item = T` binding of `Iterator<Item = T>`.
fn item_binding(seg: &syn::PathSegment) -> Option<&syn::Type> {
    let syn::PathArguments::AngleBracketed(a) = &seg.arguments else {
        return None;
    };
    a.args.iter().find_map(|arg| match arg {
        syn::GenericArgument::AssocType(t) if t.ident == "Item" => Some(&t.ty),
        _ => None,
    })
}

fn type_args(seg: &syn::PathSegment) -> Vec<&syn::Type> {
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|arg| match arg {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// `Fn`, `FnMut`, `FnOnce` (and their async forms): a closure is expected.
/// A parameter's trait object behind a pointer the call coerces (`&dyn T`, `&mut dyn T`,
/// `Box<dyn T>`, `Rc<dyn T>`, `Arc<dyn T>`), written as `impl T` in its place: it gets a value
/// of one of the trait's implementors as `impl T` does, and the call coerces `&C` or `Box<C>`
/// to the object. Deeper (`Vec<Box<dyn T>>`, `&[&dyn T]`) nothing coerces, so such a type
/// stays a trait object and is left out.
pub(crate) fn dyn_as_impl(ty: &syn::Type) -> Option<syn::Type> {
    let mut ty = ty.clone();
    let slot: &mut syn::Type = match &mut ty {
        syn::Type::Reference(r) => &mut r.elem,
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last_mut()?;
            if !matches!(last.ident.to_string().as_str(), "Box" | "Rc" | "Arc") {
                return None;
            }
            let syn::PathArguments::AngleBracketed(args) = &mut last.arguments else {
                return None;
            };
            if args.args.len() != 1 {
                return None;
            }
            match args.args.first_mut() {
                Some(syn::GenericArgument::Type(t)) => t,
                _ => return None,
            }
        }
        _ => return None,
    };
    let object = match &*slot {
        syn::Type::Paren(p) => &*p.elem,
        other => other,
    };
    let syn::Type::TraitObject(object) = object else {
        return None;
    };
    if object.bounds.iter().any(is_fn_bound) {
        return None;
    }
    let bounds = object.bounds.clone();
    *slot = syn::Type::ImplTrait(syn::TypeImplTrait {
        attrs: Vec::new(),
        impl_token: Default::default(),
        bounds,
    });
    Some(ty)
}

pub(crate) fn is_fn_bound(bound: &syn::TypeParamBound) -> bool {
    let syn::TypeParamBound::Trait(tb) = bound else {
        return false;
    };
    tb.path.segments.last().is_some_and(|s| {
        matches!(
            s.ident.to_string().as_str(),
            "Fn" | "FnMut" | "FnOnce" | "AsyncFn" | "AsyncFnMut" | "AsyncFnOnce"
        )
    })
}

/// A type as Rust source, for keys and messages: `Vec<u8>`, `&mut str`, `my_crate::Stack<i32>`.
pub fn ty_display(ty: &Ty) -> String {
    let list = |tys: &[Ty]| tys.iter().map(ty_display).collect::<Vec<_>>().join(", ");
    match ty {
        Ty::Unit => "()".to_string(),
        Ty::Prim(p) => p.clone(),
        Ty::Str => "str".to_string(),
        Ty::String => "String".to_string(),
        Ty::Ref {
            mutable: true,
            inner,
        } => format!("&mut {}", ty_display(inner)),
        Ty::Ref {
            mutable: false,
            inner,
        } => format!("&{}", ty_display(inner)),
        Ty::Slice(t) => format!("[{}]", ty_display(t)),
        Ty::Vec(t) => format!("Vec<{}>", ty_display(t)),
        Ty::Option(t) => format!("Option<{}>", ty_display(t)),
        Ty::Result(t, e) => format!("Result<{}, {}>", ty_display(t), ty_display(e)),
        Ty::Tuple(ts) if ts.len() == 1 => format!("({},)", list(ts)),
        Ty::Tuple(ts) => format!("({})", list(ts)),
        Ty::Adt { path, args } if args.is_empty() => path.clone(),
        Ty::Adt { path, args } if path == crate::harness::std_values::ARRAY && args.len() == 2 => {
            format!("[{}; {}]", ty_display(&args[0]), ty_display(&args[1]))
        }
        // `Cow<str>`, as bounds are written (`Into<Cow<str>>` keys the conversions' table).
        Ty::Adt { path, args } if crate::harness::std_values::pointer(path) => {
            let name = path.rsplit("::").next().unwrap_or(path);
            format!("{name}<{}>", list(args))
        }
        Ty::Adt { path, args } => format!("{path}<{}>", list(args)),
        Ty::Other(text) => text.clone(),
    }
}

/// `size_of::<usize>()` (httparse's `BLOCK_SIZE`): a primitive's size, as on this host, which
/// builds the harness and the tests.
fn prim_size_of(func: &syn::Expr) -> Option<u64> {
    let syn::Expr::Path(p) = func else {
        return None;
    };
    let last = p.path.segments.last()?;
    if last.ident != "size_of" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let [syn::GenericArgument::Type(syn::Type::Path(t))] =
        args.args.iter().collect::<Vec<_>>().as_slice()
    else {
        return None;
    };
    let size = match t.path.get_ident()?.to_string().as_str() {
        "u8" | "i8" | "bool" => 1,
        "u16" | "i16" => 2,
        "u32" | "i32" | "f32" | "char" => 4,
        "u64" | "i64" | "f64" => 8,
        "u128" | "i128" => 16,
        "usize" | "isize" => std::mem::size_of::<usize>(),
        _ => return None,
    };
    u64::try_from(size).ok()
}

/// `Cow<'a, [u8]>` as `Cow<[u8]>`: a bound's key does not depend on its lifetimes' names.
fn without_lifetimes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\'' {
            out.push(c);
            continue;
        }
        while chars
            .next_if(|c| c.is_alphanumeric() || *c == '_')
            .is_some()
        {}
        chars.next_if_eq(&',');
        while chars.next_if_eq(&' ').is_some() {}
    }
    out
}

/// Source text of a syntax node with token spacing tidied: `&'a mut [u8]`, `impl Fn(u8) -> bool`.
pub(crate) fn source_text<T: ToTokens>(node: &T) -> String {
    let raw = node.to_token_stream().to_string();
    let chars: Vec<char> = raw.chars().collect();
    let mut out = String::with_capacity(raw.len());
    for (i, &c) in chars.iter().enumerate() {
        if c != ' ' {
            out.push(c);
            continue;
        }
        let prev = out.chars().last().unwrap_or(' ');
        let next = chars.get(i + 1).copied().unwrap_or(' ');
        let word_start = out
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        let keyword = matches!(
            &out[word_start..],
            "mut" | "dyn" | "impl" | "const" | "as" | "for"
        );
        let keep = (is_word(prev) && is_word(next))
            || (is_word(prev) && next == '\'')
            || prev == ','
            || (prev == ':' && !out.ends_with("::") && next != ':')
            || (keyword && !matches!(next, ')' | '>' | ','))
            || (next == '-' && chars.get(i + 2) == Some(&'>'))
            || out.ends_with("->")
            || next == '+'
            || prev == '+'
            || next == '='
            || prev == '=';
        if keep {
            out.push(' ');
        }
    }
    out
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '\''
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_keys_drop_lifetimes() {
        assert_eq!(without_lifetimes("Cow<'a, [u8]>"), "Cow<[u8]>");
        assert_eq!(without_lifetimes("Cow<'_, str>"), "Cow<str>");
        assert_eq!(without_lifetimes("&'static str"), "&str");
    }

    #[test]
    fn source_text_reads_like_rust() {
        let t: syn::Type = syn::parse_str("&'a mut [u8]").expect("parses");
        assert_eq!(source_text(&t), "&'a mut [u8]");
        let t: syn::Type = syn::parse_str("impl Fn(u8) -> bool").expect("parses");
        assert_eq!(source_text(&t), "impl Fn(u8) -> bool");
        let t: syn::Type = syn::parse_str("HashMap<String, Vec<u8>>").expect("parses");
        assert_eq!(source_text(&t), "HashMap<String, Vec<u8>>");
        let t: syn::Type = syn::parse_str("&mut fmt::Formatter<'_>").expect("parses");
        assert_eq!(source_text(&t), "&mut fmt::Formatter<'_>");
        let t: syn::Type = syn::parse_str("fn(i32) -> i32").expect("parses");
        assert_eq!(source_text(&t), "fn(i32) -> i32");
        let p: syn::GenericParam = syn::parse_str("const N: usize").expect("parses");
        assert_eq!(source_text(&p), "const N: usize");
        let t: syn::Type = syn::parse_str("Box<dyn Display + Send>").expect("parses");
        assert_eq!(source_text(&t), "Box<dyn Display + Send>");
    }

    #[test]
    fn std_containers_lower_and_others_are_problems() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(lower_external(&s(&["String"]), vec![]), Ok(Ty::String));
        let std = |p: &str| Ty::Adt {
            path: p.to_string(),
            args: Vec::new(),
        };
        assert_eq!(
            lower_external(&s(&["core", "num", "NonZeroU32"]), vec![]),
            Ok(std("std::num::NonZeroU32"))
        );
        assert_eq!(
            lower_external(&s(&["std", "cmp", "Ordering"]), vec![]),
            Ok(std("std::cmp::Ordering"))
        );
        assert_eq!(
            lower_external(&s(&["std", "sync", "atomic", "Ordering"]), vec![]),
            Err(reason::STD)
        );
        assert_eq!(
            lower_external(&s(&["std", "num", "Wrapping"]), vec![Ty::Prim("u8".into())]),
            Ok(Ty::Adt {
                path: "std::num::Wrapping".into(),
                args: vec![Ty::Prim("u8".into())]
            })
        );
        assert_eq!(
            lower_external(&s(&["std", "result", "Result"]), vec![Ty::Unit, Ty::String]),
            Ok(Ty::Result(Box::new(Ty::Unit), Box::new(Ty::String)))
        );
        assert_eq!(
            lower_external(&s(&["std", "io", "Result"]), vec![Ty::Unit]),
            Err(reason::STD)
        );
        assert_eq!(
            lower_external(&s(&["HashMap"]), vec![Ty::Unit, Ty::Unit]),
            Err(reason::STD)
        );
        assert_eq!(
            lower_external(&s(&["std", "fmt", "Formatter"]), vec![]),
            Err(reason::FORMATTER)
        );
        assert_eq!(
            lower_external(&s(&["rand", "Rng"]), vec![]),
            Err(reason::DEPENDENCY)
        );
        assert_eq!(
            lower_external(&s(&["Widget"]), vec![]),
            Err(reason::DEPENDENCY)
        );
    }
}
