//! Turns the API model into the operations a test can use: one per callable, plus literals,
//! collections, `Some`/`None`, unwraps, struct literals and enum variants for the types those
//! callables need. Every operation knows how to appear in the dispatch module and in emitted
//! Rust; ids are shared with the search schema and the harness's dispatch table.

use std::collections::BTreeMap;

use frugal_search::{Constants, OpInfo, OpKind, Pass, Schema, TypeInfo, ValueKind};

use super::builders::builders_for;
use super::std_values::{SCRATCH_TEMPLATES, STD_OS_STR, STD_PATH_BUF, owned_of_unsized};
use crate::model::{
    ApiModel, Callable, CallableKind, Param, Receiver, Ty, TypeKind, Unsupported, VariantShape,
};

/// What an operation does, in terms the code generators understand.
#[derive(Debug, Clone, PartialEq)]
pub enum OpCode {
    /// A literal of a primitive or `String`.
    Literal(Ty),
    /// A callable of the crate (index into `ApiModel::callables`).
    Call(usize),
    /// `vec![a, b, ...]` of the element type.
    VecOf(Ty),
    /// `Some(x)` of the inner type.
    Some(Ty),
    /// `None::<T>`.
    None(Ty),
    /// `r.unwrap()` on a `Result<T, E>` (`r.ok().unwrap()` when `E` may lack `Debug`).
    UnwrapOk(Ty),
    /// `r.unwrap_err()` on a `Result<T, E>`, producing the error.
    UnwrapErr(Ty),
    /// `let Some(v) = o else { panic!() }` on an `Option<T>`.
    UnwrapSome(Ty),
    /// `match e { Enum::Variant(v) => v, _ => panic!(..) }`: the one field of a tuple variant
    /// (`Entry::Occupied(OccupiedEntry)`), for the crate types a crate hands out only inside
    /// an enum's variant. The path is the variant's, `Enum::Variant`.
    Project(String),
    /// `Path { field: a, ... }` or `Path(a, ...)` for a struct whose fields are all public.
    /// `args`: the type arguments of a generic struct, rendered as a turbofish.
    StructLit {
        /// The struct's path, as a test names it.
        path: String,
        /// Field names in order (positions `"0"`, `"1"`, ... for a tuple struct).
        fields: Vec<String>,
        /// A tuple struct: written `Path(a, ...)`.
        tuple: bool,
        /// Type arguments of a generic struct, for the turbofish; empty otherwise.
        args: Vec<Ty>,
    },
    /// `Enum::Variant`, `Enum::Variant(a, ...)` or `Enum::Variant { f: a }`; `args` as for
    /// `StructLit` (`Either::<i32, i32>::Left(a)`: the other side is not inferred).
    Variant {
        /// The variant's path, `Enum::Variant`.
        path: String,
        /// Field names of a struct variant; empty for unit and tuple variants.
        fields: Vec<String>,
        /// A unit or tuple variant: written without braces.
        tuple: bool,
        /// Type arguments of a generic enum, for the turbofish; empty otherwise.
        args: Vec<Ty>,
    },
    /// `x.to_string()` for a type implementing `Display`: reaches `fmt` bodies, which take a
    /// `Formatter` no test can build.
    Display(Ty),
    /// `format!("{:^1$}", x, u8::into(n))`: `Display` centred in a width the search chose (a
    /// `u8`), for impls that honour the formatter's width and alignment (`f.pad`, or their
    /// own padding), whose code plain `to_string` never runs.
    DisplayPadded(Ty),
    /// `format!("{:?}", x)` for a type implementing `Debug`: the other `Formatter` method.
    DebugFmt(Ty),
    /// `Hash::hash(&x, &mut DefaultHasher::new())` for a type implementing `Hash`: runs a
    /// hand-written `hash`, which takes a `Hasher` no callable gets. Nothing is kept: a hash
    /// value may differ between Rust releases, so no test asserts one.
    HashOf(Ty),
    /// A crate's `const` or `static` by path: `krate::HTTP`, or `&krate::HTTP` (`borrowed`) for
    /// a `&'static` parameter.
    CrateValue {
        /// The value's public path.
        path: String,
        /// Passed as `&path` to a `&'static` parameter.
        borrowed: bool,
    },
    /// A std value built from integers or a string (`Duration::new(s, n)`, `UNIX_EPOCH +
    /// Duration::from_secs(s)`, `PathBuf::from(s)`): `template` with `{0}`, `{1}`, ... standing
    /// for the arguments, the same text in the harness and in emitted tests.
    StdValue {
        /// The std type built.
        ty: Ty,
        /// The construction, with `{0}`, `{1}`, ... for the arguments.
        template: String,
    },
}

/// Reason for callables left out because their results differ run to run.
pub const NONDETERMINISTIC: &str = "nondeterministic (reads the clock)";

/// `now()`, `now_utc()`, `today()`, `x.elapsed()`: values that change between the search and
/// verification, so every regression assertion over them fails and the test is dropped.
fn reads_the_clock(c: &Callable) -> bool {
    let clock = matches!(
        c.name.as_str(),
        "now" | "now_utc" | "now_local" | "today" | "elapsed"
    );
    clock && c.params.is_empty()
}

/// Pool type, passing mode and source type of one parameter.
pub type ParamSlot = (Ty, Pass, Ty);

/// One operation with its signature over pool types.
#[derive(Debug, Clone)]
pub struct Op {
    /// What the operation does.
    pub code: OpCode,
    /// Pool type and passing mode per parameter; for calls the receiver comes first. The
    /// parameter's source type is kept to render the right borrow (`&str` from a `String`).
    pub params: Vec<(Ty, Pass, Ty)>,
    /// Result kept in the pool, if its type is one the pool can hold.
    pub ret: Option<Ty>,
    /// The call's full return type, kept for summaries even when the pool cannot hold it.
    pub ret_source: Option<Ty>,
    /// The operation's name in the schema and in messages: a callable's path, a type's rendering, ...
    pub name: String,
    /// A call whose predicate closures compare their key argument ([`crate::model::ClosureKey`])
    /// with the value in their slot instead of returning it: a second op of the same callable.
    pub keyed: bool,
}

/// Operations and pool types of one crate.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    /// Every operation; its index is its id in the schema and the harness's dispatch table.
    pub ops: Vec<Op>,
    /// Every pool type; its index is its type id.
    pub types: Vec<Ty>,
    /// Public callables dropped here (no way to build an argument, ...).
    pub dropped: Vec<Unsupported>,
    type_ids: BTreeMap<Ty, u32>,
}

/// Integer types and their ranges.
pub fn int_range(name: &str) -> Option<(i128, i128)> {
    Some(match name {
        "i8" => (i8::MIN as i128, i8::MAX as i128),
        "i16" => (i16::MIN as i128, i16::MAX as i128),
        "i32" => (i32::MIN as i128, i32::MAX as i128),
        "i64" => (i64::MIN as i128, i64::MAX as i128),
        "isize" => (isize::MIN as i128, isize::MAX as i128),
        "i128" => (i128::MIN, i128::MAX),
        "u8" => (0, u8::MAX as i128),
        "u16" => (0, u16::MAX as i128),
        "u32" => (0, u32::MAX as i128),
        "u64" => (0, u64::MAX as i128),
        "usize" => (0, usize::MAX as i128),
        // A search value is an `i128`: u128's upper half is out of reach.
        "u128" => (0, i128::MAX),
        _ => return None,
    })
}

pub(super) fn literal_kind(ty: &Ty) -> Option<ValueKind> {
    match ty {
        Ty::Prim(p) if p == "bool" => Some(ValueKind::Bool),
        Ty::Prim(p) if p == "char" => Some(ValueKind::Char),
        Ty::Prim(p) if p == "f32" || p == "f64" => Some(ValueKind::Float),
        Ty::Prim(p) => int_range(p).map(|(min, max)| ValueKind::Int { min, max }),
        Ty::String => Some(ValueKind::Str),
        _ => None,
    }
}

/// The owned pool type behind a parameter type and how it is passed, or `None` when the
/// harness cannot supply it. A `&'static T` of a crate type is itself the pool type: only the
/// crate's constants and statics produce one (see [`OpCode::CrateValue`]).
fn pool_slot(p: &Param) -> Option<(Ty, Pass)> {
    let ty = &p.ty;
    if p.closure.is_some() {
        // The closure returns the value, so it owns it.
        return storable(ty).then(|| (ty.clone(), Pass::Move));
    }
    match ty {
        Ty::Ref {
            mutable: false,
            inner,
        } if p.static_ref && matches!(**inner, Ty::Adt { .. }) => Some((ty.clone(), Pass::Move)),
        // `r: &mut R` with `R: Read` standing in as `&[u8]`: the pool holds the bytes, and
        // the call reads from a fresh slice of them.
        Ty::Ref { .. } if slice_reader(ty).is_some() => {
            let elem = slice_reader(ty)?;
            storable(elem).then(|| (Ty::Vec(Box::new(elem.clone())), Pass::Ref))
        }
        // `&[&str]`, `Vec<&str>`, `&[&[u8]]`: the pool holds a `Vec<String>` or
        // `Vec<Vec<u8>>`, viewed at the call as a `Vec<&str>` or `Vec<&[u8]>`.
        _ if let Some(view) = elem_view(ty) => Some((view.pool, Pass::Ref)),
        Ty::Ref { mutable, inner } => {
            let pass = if *mutable { Pass::Mut } else { Pass::Ref };
            let owned = match (inner.as_ref(), owned_of_unsized(inner)) {
                // `&&str` (`PartialEq<&str>::eq`): a borrowed `String`, viewed twice.
                (inner, _) if !mutable && double_str(inner) => Ty::String,
                // `&mut [T]` is a borrowed `Vec<T>`; `&mut str` and `&mut OsStr` are not built.
                (Ty::Slice(_), Some(vec)) => vec,
                (_, Some(owned)) if !mutable => owned,
                (Ty::Ref { .. }, _) | (_, Some(_)) => return None,
                (other, None) => other.clone(),
            };
            storable(&owned).then_some((owned, pass))
        }
        // `Option<&T>`: the pool holds an `Option` of what `&T` is lent from, viewed at the
        // call with `option_view`.
        Ty::Option(inner) if option_view(ty).is_some() => {
            let Ty::Ref { inner: target, .. } = inner.as_ref() else {
                return None;
            };
            let owned = owned_of_unsized(target).unwrap_or_else(|| (**target).clone());
            storable(&owned).then(|| (Ty::Option(Box::new(owned)), Pass::Ref))
        }
        other => storable(other).then(|| (other.clone(), Pass::Move)),
    }
}

/// A collection of borrowed elements a parameter takes, made at the call from a pooled
/// collection of owned ones: `&[&str]` and `Vec<&str>` from a `Vec<String>`, `&[&[T]]` and
/// `Vec<&[T]>` from a `Vec<Vec<T>>`.
pub(crate) struct ElemView {
    /// What the pool holds.
    pub pool: Ty,
    /// How each element is viewed (`String::as_str`).
    pub view: &'static str,
    /// The parameter takes a slice of the views (`&[&str]`), not the `Vec` of them.
    pub borrowed: bool,
}

/// The view a parameter of this type is made through, if it takes borrowed elements.
pub(crate) fn elem_view(source: &Ty) -> Option<ElemView> {
    let (elem, borrowed) = match source {
        Ty::Ref {
            mutable: false,
            inner,
        } => match inner.as_ref() {
            Ty::Slice(e) => (e.as_ref(), true),
            _ => return None,
        },
        Ty::Vec(e) => (e.as_ref(), false),
        _ => return None,
    };
    let Ty::Ref {
        mutable: false,
        inner,
    } = elem
    else {
        return None;
    };
    let view = match inner.as_ref() {
        Ty::Str => "String::as_str",
        Ty::Slice(_) => "Vec::as_slice",
        _ => return None,
    };
    let pool = owned_of_unsized(inner).filter(storable)?;
    Some(ElemView {
        pool: Ty::Vec(Box::new(pool)),
        view,
        borrowed,
    })
}

/// `&str`: the referent of a `&&str` parameter.
pub(crate) fn double_str(referent: &Ty) -> bool {
    matches!(referent, Ty::Ref { mutable: false, inner } if **inner == Ty::Str)
}

/// Whether a parameter is `&&str`, which a pooled `String` is passed to as `&s.as_str()`.
pub(crate) fn str_ref_ref(source: &Ty) -> bool {
    matches!(source, Ty::Ref { mutable: false, inner } if double_str(inner))
}

/// How a pooled `Option<T>` is viewed as the `Option<&U>` a parameter takes: `.as_deref()`
/// where `U` is unsized (`str`, `[T]`, `OsStr`), `.as_ref()` otherwise; `None` for any other
/// parameter type.
pub(crate) fn option_view(source: &Ty) -> Option<&'static str> {
    let Ty::Option(inner) = source else {
        return None;
    };
    match inner.as_ref() {
        Ty::Ref {
            mutable: false,
            inner,
        } if owned_of_unsized(inner).is_some() => Some(".as_deref()"),
        Ty::Ref {
            mutable: false,
            inner,
        } if !matches!(**inner, Ty::Ref { .. }) => Some(".as_ref()"),
        _ => None,
    }
}

/// The element type of `&mut &[T]` (a reader generic over `io::Read` instantiated with a
/// slice), else `None`.
pub(crate) fn slice_reader(ty: &Ty) -> Option<&Ty> {
    let Ty::Ref {
        mutable: true,
        inner,
    } = ty
    else {
        return None;
    };
    match inner.as_ref() {
        Ty::Ref {
            mutable: false,
            inner,
        } => match inner.as_ref() {
            Ty::Slice(e) => Some(e),
            _ => None,
        },
        _ => None,
    }
}

/// A `&'static str` or `&'static [u8]` parameter (`HeaderValue::from_static`): a borrow of
/// the pooled `String` or `Vec<u8>` would not live long enough.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StaticView {
    /// `&'static str`.
    Str,
    /// `&'static [u8]`.
    Bytes,
}

impl StaticView {
    /// The harness helper that leaks a `'static` copy of the pooled value.
    pub(crate) fn helper(self) -> &'static str {
        match self {
            StaticView::Str => "leak_str",
            StaticView::Bytes => "leak_bytes",
        }
    }
}

/// For operand `k` of `op`: whether it is a call's `&'static str` or `&'static [u8]`.
pub(crate) fn static_view(op: &Op, k: usize, model: &ApiModel) -> Option<StaticView> {
    let OpCode::Call(c) = op.code else {
        return None;
    };
    let c = &model.callables[c];
    let p = c.params.get(k.checked_sub(c.first_param())?)?;
    let Ty::Ref {
        mutable: false,
        inner,
    } = &p.ty
    else {
        return None;
    };
    match &**inner {
        _ if !p.static_ref || p.closure.is_some() => None,
        Ty::Str => Some(StaticView::Str),
        Ty::Slice(e) if **e == Ty::Prim("u8".into()) => Some(StaticView::Bytes),
        _ => None,
    }
}

/// Borrowed inputs a kept result may borrow from are lent to it (see `Pass::Lend`).
fn lend(params: &mut [ParamSlot], lent: &[usize]) {
    for &i in lent {
        if let Some((_, pass, _)) = params.get_mut(i) {
            *pass = match *pass {
                Pass::Ref => Pass::Lend,
                Pass::Mut => Pass::LendMut,
                other => other,
            };
        }
    }
}

/// Whether the pool can hold a value of this (owned) type.
pub(super) fn storable(ty: &Ty) -> bool {
    match ty {
        Ty::Prim(_) | Ty::String => literal_kind(ty).is_some(),
        Ty::Vec(t) | Ty::Option(t) => storable(t),
        Ty::Result(t, e) => storable(t) && storable_or_opaque(e),
        Ty::Tuple(ts) => !ts.is_empty() && ts.iter().all(storable),
        Ty::Adt { path, .. } if path == STD_OS_STR => false,
        // `Box<str>`, `Rc<[u8]>`, `Cow<str>`: made from the owned value; a boxed closure
        // standing in for a closure type parameter (`analyze::generics::boxed_closure`).
        Ty::Adt { path, args } if super::std_values::pointer(path) => args.iter().all(|a| {
            storable(a)
                || owned_of_unsized(a).is_some_and(|owned| storable(&owned))
                || matches!(a, Ty::Other(t) if t.starts_with("dyn Fn"))
        }),
        // `Reader<&[u8]>`: the reference is `'static` in the pool, lent from another value.
        Ty::Adt { args, .. } => args
            .iter()
            .all(|a| storable(a) || borrowed_view(a) || const_arg(a)),
        Ty::Unit | Ty::Str | Ty::Ref { .. } | Ty::Slice(_) | Ty::Other(_) => false,
    }
}

/// The value a const parameter was instantiated with (`analyze::callables`).
fn const_arg(ty: &Ty) -> bool {
    matches!(ty, Ty::Other(v) if v.parse::<u64>().is_ok())
}

/// `&str` or `&[T]` of storable elements: what a lent `String` or `Vec<T>` is seen as.
fn borrowed_view(ty: &Ty) -> bool {
    match ty {
        Ty::Ref {
            mutable: false,
            inner,
        } => match inner.as_ref() {
            Ty::Str => true,
            Ty::Slice(e) => storable(e),
            _ => false,
        },
        _ => false,
    }
}

/// Error types only need to be nameable to hold a `Result`.
fn storable_or_opaque(ty: &Ty) -> bool {
    storable(ty) || matches!(ty, Ty::Unit)
}

/// The keys of a callable's predicates, by parameter index.
fn closure_keys(c: &Callable) -> impl Iterator<Item = &crate::model::ClosureKey> {
    c.params
        .iter()
        .filter_map(|p| p.closure.as_ref()?.key.as_ref())
}

/// The twin of call `op` whose predicates compare their key argument with a value of its type
/// (`move |e| *e < 5`) instead of returning a `bool` the search chose: that value takes the
/// closure's parameter slot. `None` when `c` has no predicate with a key.
fn keyed_twin(c: &Callable, op: &Op) -> Option<Op> {
    let receiver = op.params.len().checked_sub(c.params.len())?;
    let mut twin = Op {
        keyed: true,
        name: format!("{} (closure comparing its argument)", c.path),
        ..op.clone()
    };
    let mut any = false;
    for (i, p) in c.params.iter().enumerate() {
        let Some(key) = p.closure.as_ref().and_then(|s| s.key.as_ref()) else {
            continue;
        };
        let slot = twin.params.get_mut(receiver + i)?;
        *slot = (key.ty.clone(), Pass::Move, key.ty.clone());
        any = true;
    }
    any.then_some(twin)
}

/// The parameters of a `&self` method called on one of the crate's `&'static` values of its
/// type (`percent_encoding::CONTROLS.add(b' ')`), for a type with `const SET: &T` values: a
/// twin beside the method's own op, whose receiver is one of those values. The own op lends
/// an owned `T`, and often only such a call makes a first `T`.
fn static_receiver(c: &Callable, params: &[ParamSlot], model: &ApiModel) -> Option<Vec<ParamSlot>> {
    let CallableKind::Method {
        self_ty,
        receiver: Receiver::Ref,
    } = &c.kind
    else {
        return None;
    };
    let (first, rest) = params.split_first()?;
    let has_ref_value = model.values.iter().any(|v| v.is_ref && &v.ty == self_ty);
    if !has_ref_value || first != &(self_ty.clone(), Pass::Ref, self_ty.clone()) {
        return None;
    }
    let r = borrowed(self_ty.clone());
    let mut twin = vec![(r.clone(), Pass::Move, r)];
    twin.extend(rest.iter().cloned());
    Some(twin)
}

/// Inspectors asserted per type at most: a type with more shows its first ones, in source order.
const MAX_INSPECTORS: usize = 8;

impl Registry {
    /// The inspectors of pool type `ty`, as op indices, in op order: calls of an inherent
    /// `&self` method of the crate with no other argument whose result an emitted test can
    /// compare (a number, `bool`, `char`, a `String`, or an `Option` of one): `len`,
    /// `capacity`, `is_empty`, `to_string`. What such a method returns after a call is the
    /// state a value shows when it has no `Debug` form of its own.
    pub fn inspectors(&self, model: &ApiModel, ty: &Ty) -> Vec<usize> {
        let comparable = |t: &Ty| match t {
            Ty::Prim(_) | Ty::String => true,
            Ty::Option(inner) => matches!(**inner, Ty::Prim(_) | Ty::String),
            _ => false,
        };
        self.ops
            .iter()
            .enumerate()
            .filter(|(_, op)| {
                let OpCode::Call(c) = op.code else {
                    return false;
                };
                let c = &model.callables[c];
                matches!(c.kind, CallableKind::Method { .. })
                    && c.via_trait.is_none()
                    && c.operator.is_none()
                    && c.consume.is_none()
                    // Run inside a closure, where the executor's `?` cannot give up.
                    && !c.asynchronous
                    && matches!(op.params.as_slice(), [(t, Pass::Ref, _)] if t == ty)
                    && op.ret_source.as_ref().is_some_and(comparable)
            })
            .map(|(i, _)| i)
            .take(MAX_INSPECTORS)
            .collect()
    }

    /// Builds operations for every supported callable and whatever their parameters need.
    pub fn build(model: &ApiModel) -> Registry {
        let mut reg = Registry::default();
        let mut wanted: Vec<(usize, Vec<ParamSlot>)> = Vec::new();
        for (i, c) in model.callables.iter().enumerate() {
            if reads_the_clock(c) {
                reg.dropped.push(Unsupported {
                    path: c.path.clone(),
                    reason: NONDETERMINISTIC.into(),
                    detail: c.name.clone(),
                });
                continue;
            }
            match call_params(c) {
                Ok(params) => {
                    let twin = static_receiver(c, &params, model);
                    wanted.push((i, params));
                    wanted.extend(twin.map(|t| (i, t)));
                }
                Err(detail) => reg.dropped.push(Unsupported {
                    path: c.path.clone(),
                    reason: "parameter the harness cannot build".into(),
                    detail,
                }),
            }
        }
        // Pool types: every parameter type, every storable return, and their parts.
        for (i, params) in &wanted {
            for (t, _, _) in params {
                reg.add_type_tree(t, model);
            }
            for key in closure_keys(&model.callables[*i]) {
                reg.add_type_tree(&key.ty, model);
            }
            if let Some(r) = pool_ret(model.callables[*i].ret.as_ref()) {
                reg.add_type_tree(&r, model);
            }
        }
        reg.add_builders(model);
        for (i, mut params) in wanted {
            let c = &model.callables[i];
            let ret = pool_ret(c.ret.as_ref());
            if ret.is_some() {
                lend(&mut params, &c.lent);
            }
            let op = Op {
                code: OpCode::Call(i),
                params,
                ret,
                ret_source: c.ret.clone(),
                name: c.path.clone(),
                keyed: false,
            };
            let twin = keyed_twin(c, &op);
            reg.ops.push(op);
            reg.ops.extend(twin);
        }
        reg.prune(model);
        reg
    }

    fn add_type_tree(&mut self, ty: &Ty, model: &ApiModel) {
        if self.type_ids.contains_key(ty) {
            return;
        }
        self.type_ids.insert(ty.clone(), self.types.len() as u32);
        self.types.push(ty.clone());
        match ty {
            Ty::Vec(t) | Ty::Option(t) => self.add_type_tree(t, model),
            Ty::Result(t, e) => {
                self.add_type_tree(t, model);
                if storable(e) {
                    self.add_type_tree(e, model);
                }
            }
            Ty::Tuple(ts) => ts.iter().for_each(|t| self.add_type_tree(t, model)),
            Ty::Adt { path, .. } => {
                for f in adt_field_types(model, path) {
                    if storable(&f) {
                        self.add_type_tree(&f, model);
                    }
                }
            }
            _ => {}
        }
    }

    /// Literals, collections, options, unwraps, struct literals and variants for pool types.
    fn add_builders(&mut self, model: &ApiModel) {
        let mut i = 0;
        // Types may be added while building (field types), so walk by index.
        while i < self.types.len() {
            let ty = self.types[i].clone();
            for op in builders_for(&ty, model) {
                for (t, _, _) in &op.params {
                    self.add_type_tree(t, model);
                }
                if let Some(r) = &op.ret {
                    // `Display`/`Debug` give a `String` even where no callable mentions one.
                    self.add_type_tree(r, model);
                }
                self.ops.push(op);
            }
            i += 1;
        }
    }

    /// Drops operations that need a type nothing can produce, until nothing changes.
    pub(crate) fn prune(&mut self, model: &ApiModel) {
        loop {
            let producible: Vec<Ty> = self.ops.iter().filter_map(|o| o.ret.clone()).collect();
            let (keep, gone): (Vec<Op>, Vec<Op>) = self.ops.drain(..).partition(|o| {
                variadic(o) || o.params.iter().all(|(t, _, _)| producible.contains(t))
            });
            self.ops = keep;
            if gone.is_empty() {
                break;
            }
            for op in gone {
                if let OpCode::Call(i) = op.code {
                    let missing = op
                        .params
                        .iter()
                        .find(|(t, _, _)| !self.ops.iter().any(|o| o.ret.as_ref() == Some(t)))
                        .map(|(t, _, _)| crate::harness::render::ty(t, &model.crate_name))
                        .unwrap_or_default();
                    self.dropped.push(Unsupported {
                        path: model.callables[i].path.clone(),
                        reason: "no way to build an argument".into(),
                        detail: missing,
                    });
                }
            }
        }
    }

    /// The search's view: types with literal kinds, operations over type ids.
    pub fn schema(&self, model: &ApiModel) -> Schema {
        let mut types: Vec<TypeInfo> = self
            .types
            .iter()
            .map(|t| TypeInfo {
                name: crate::harness::render::ty(t, &model.crate_name),
                literal: literal_kind(t),
                copy: is_copy(t, model),
            })
            .collect();
        let id = |t: &Ty| self.type_ids[t];
        let mut ops: Vec<OpInfo> = self
            .ops
            .iter()
            .map(|o| OpInfo {
                name: o.name.clone(),
                kind: match o.code {
                    OpCode::Literal(_) => OpKind::Literal,
                    OpCode::Call(_)
                    | OpCode::Display(_)
                    | OpCode::DisplayPadded(_)
                    | OpCode::DebugFmt(_)
                    | OpCode::HashOf(_) => OpKind::Call,
                    _ => OpKind::Build,
                },
                params: o.params.iter().map(|(t, p, _)| (id(t), *p)).collect(),
                ret: o.ret.as_ref().map(id),
                variadic: variadic(o),
            })
            .collect();
        self.keep_paths_in_scratch(&mut types, &mut ops);
        let c = &model.constants;
        let constants = Constants {
            ints: c.ints.clone(),
            floats: c.floats.clone(),
            strings: c.strings.clone(),
            chars: c.chars.clone(),
        };
        Schema::new(types, ops, constants)
    }

    /// Path parameters take only paths [`SCRATCH_TEMPLATES`] made: a path the crate returned may
    /// be `$HOME/.config/..` (lsd's `Config::config_file_path()`) or `/`, and code under test
    /// creates and deletes what it is given; in a suite the user runs, under the user's `HOME`.
    /// Every other producer of a `PathBuf` gets a type of its own, which no parameter takes.
    fn keep_paths_in_scratch(&self, types: &mut Vec<TypeInfo>, ops: &mut [OpInfo]) {
        let path_buf = Ty::Adt {
            path: STD_PATH_BUF.to_string(),
            args: Vec::new(),
        };
        let Some(&path) = self.type_ids.get(&path_buf) else {
            return;
        };
        let returned = types.len() as u32;
        // Same name: emitted code writes both as `PathBuf`.
        types.push(types[path as usize].clone());
        for (op, info) in self.ops.iter().zip(ops.iter_mut()) {
            let scratch = matches!(&op.code, OpCode::StdValue { template, .. } if SCRATCH_TEMPLATES.contains(&template.as_str()));
            if info.ret == Some(path) && !scratch {
                info.ret = Some(returned);
            }
        }
    }
}

/// The pool type a call's result is kept as: the return type when the pool can hold it, else
/// for a `Result<T, E>` whose error cannot be named (`Box<dyn Error>`, `io::Error`) an
/// `Option<T>` taken with `.ok()` (see [`ok_converted`]).
fn pool_ret(ret: Option<&Ty>) -> Option<Ty> {
    match ret? {
        r if storable(r) => Some(r.clone()),
        Ty::Result(t, _) if storable(t) => Some(Ty::Option(t.clone())),
        _ => None,
    }
}

/// Whether a call's `Result` is kept as an `Option` (render `.ok()` after the call).
pub fn ok_converted(op: &Op) -> bool {
    matches!(
        (&op.ret, &op.ret_source),
        (Some(Ty::Option(a)), Some(Ty::Result(b, _))) if a == b
    )
}

fn variadic(o: &Op) -> bool {
    matches!(o.code, OpCode::VecOf(_))
}

/// Parameters of a call (receiver first), or the source text of the first one the pool
/// cannot supply.
fn call_params(c: &Callable) -> Result<Vec<(Ty, Pass, Ty)>, String> {
    let mut out = Vec::new();
    if let CallableKind::Method { self_ty, receiver } = &c.kind {
        let pass = match receiver {
            Receiver::Value => Pass::Move,
            Receiver::Ref => Pass::Ref,
            Receiver::RefMut => Pass::Mut,
        };
        // A trait implemented for `str` or `[T]`: the pool holds a `String` or `Vec<T>`, viewed
        // as the borrowed type the method takes.
        let unsized_owner = owned_of_unsized(self_ty);
        let (owned, source) = match &unsized_owner {
            Some(owned) => (owned.clone(), borrowed(self_ty.clone())),
            None => (self_ty.clone(), self_ty.clone()),
        };
        // `&mut self` of a reader standing in as `&[u8]` (`impl<R: Read> Ext for R {}`): the
        // same as a `r: &mut R` parameter.
        let as_param = Ty::Ref {
            mutable: true,
            inner: Box::new(self_ty.clone()),
        };
        if let (Receiver::RefMut, Some(elem)) = (receiver, slice_reader(&as_param))
            && storable(elem)
        {
            out.push((Ty::Vec(Box::new(elem.clone())), Pass::Ref, as_param));
            return params_after(c, out);
        }
        // A trait implemented for a borrow (num-traits' `impl<'a> Pow<u8> for &'a f64`): `self`
        // is the borrow, lent from a pooled `f64`.
        if let (Ty::Ref { mutable, inner }, Pass::Move) = (self_ty, pass)
            && storable(inner)
        {
            let lent = if *mutable { Pass::Mut } else { Pass::Ref };
            out.push(((**inner).clone(), lent, self_ty.clone()));
            return params_after(c, out);
        }
        let by_value = unsized_owner.is_some() && pass == Pass::Move;
        if !storable(&owned) || by_value {
            return Err(format!("receiver {self_ty:?}"));
        }
        out.push((owned, pass, source));
    }
    params_after(c, out)
}

/// `c`'s parameters appended to `out` (its receiver, if any).
fn params_after(c: &Callable, mut out: Vec<(Ty, Pass, Ty)>) -> Result<Vec<(Ty, Pass, Ty)>, String> {
    for p in &c.params {
        let (owned, pass) = pool_slot(p).ok_or_else(|| format!("{}: {:?}", p.name, p.ty))?;
        // The views of a `&[&str]` live in the call's frame: a result borrowing them
        // cannot be kept.
        if elem_view(&p.ty).is_some() && c.lent.contains(&out.len()) {
            return Err(format!(
                "{}: a result that borrows a `{}`",
                p.name,
                crate::harness::render::ty(&p.ty, "")
            ));
        }
        out.push((owned, pass, p.ty.clone()));
    }
    Ok(out)
}

fn borrowed(inner: Ty) -> Ty {
    Ty::Ref {
        mutable: false,
        inner: Box::new(inner),
    }
}

pub(super) fn find_type<'m>(model: &'m ApiModel, path: &str) -> Option<&'m crate::model::TypeDef> {
    model.types.iter().find(|t| t.path == path)
}

fn adt_field_types(model: &ApiModel, path: &str) -> Vec<Ty> {
    let Some(def) = find_type(model, path) else {
        return Vec::new();
    };
    match &def.kind {
        TypeKind::Struct {
            fields: Some(fs), ..
        } => fs.iter().map(|f| f.ty.clone()).collect(),
        TypeKind::Struct { fields: None, .. } => Vec::new(),
        TypeKind::Enum { variants } => variants
            .iter()
            .flat_map(|v| match &v.shape {
                VariantShape::Unit => Vec::new(),
                VariantShape::Tuple(ts) => ts.clone(),
                VariantShape::Struct(fs) => fs.iter().map(|f| f.ty.clone()).collect(),
            })
            .collect(),
    }
}

/// The method chain that unwraps operation `code`'s argument, identical in the harness and in
/// emitted tests so that panic messages agree. `.unwrap()` needs the other side to be `Debug`;
/// when that is not known, go through `Option`, whose `unwrap` needs nothing.
pub fn unwrap_chain(code: &OpCode, arg: &Ty, model: &ApiModel) -> &'static str {
    match (code, arg) {
        (OpCode::UnwrapOk(_), Ty::Result(_, e)) if is_debug(e, model) => ".unwrap()",
        (OpCode::UnwrapOk(_), _) => ".ok().unwrap()",
        (OpCode::UnwrapErr(_), Ty::Result(t, _)) if is_debug(t, model) => ".unwrap_err()",
        (OpCode::UnwrapErr(_), _) => ".err().unwrap()",
        _ => ".unwrap()",
    }
}

fn is_debug(ty: &Ty, model: &ApiModel) -> bool {
    match ty {
        Ty::Unit | Ty::Prim(_) | Ty::String | Ty::Str => true,
        Ty::Vec(t) | Ty::Option(t) | Ty::Slice(t) => is_debug(t, model),
        Ty::Ref { inner, .. } => is_debug(inner, model),
        Ty::Result(a, b) => is_debug(a, model) && is_debug(b, model),
        Ty::Tuple(ts) => ts.iter().all(|t| is_debug(t, model)),
        Ty::Adt { path, args } => {
            find_type(model, path).is_some_and(|d| d.traits.iter().any(|t| t == "Debug"))
                && args.iter().all(|t| is_debug(t, model))
        }
        Ty::Other(_) => false,
    }
}

pub(crate) fn is_copy(ty: &Ty, model: &ApiModel) -> bool {
    match ty {
        Ty::Prim(_) | Ty::Ref { mutable: false, .. } => true,
        Ty::Option(t) => is_copy(t, model),
        Ty::Tuple(ts) => ts.iter().all(|t| is_copy(t, model)),
        Ty::Adt { path, args } => {
            find_type(model, path).is_some_and(|d| d.traits.iter().any(|t| t == "Copy"))
                && args.iter().all(|t| is_copy(t, model))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::builders::repeated;
    use super::super::std_values::STEP_RNG;
    use super::*;
    use crate::model::Param;

    fn step_rng() -> Ty {
        Ty::Adt {
            path: STEP_RNG.into(),
            args: vec![],
        }
    }

    /// The repeat count and a padded `Display`'s width are written without a cast: base64
    /// denies `trivial_numeric_casts`, and `text.repeat(2 as usize)` failed its build under
    /// cargo-llvm-cov.
    #[test]
    fn repeated_values_compile_where_the_crate_denies_trivial_casts() {
        let mut calls: Vec<String> = [
            (Ty::String, "String::from(\"ab\")"),
            (Ty::Vec(Box::new(Ty::Prim("u8".into()))), "vec![1u8]"),
        ]
        .into_iter()
        .map(|(ty, value)| match repeated(&ty).code {
            OpCode::StdValue { template, .. } => template.replace("{0}", value).replace("{1}", "2"),
            _ => panic!("repeat is a std value"),
        })
        .collect();
        let width = super::super::op_expr::padded_width("7");
        calls.push(format!("format!(\"{{:^1$}}\", 'x', {width})"));
        for call in calls {
            let dir = tempfile::tempdir().unwrap();
            let src = dir.path().join("lib.rs");
            std::fs::write(
                &src,
                format!("#![deny(trivial_numeric_casts)]\npub fn f() {{ let _ = {call}; }}\n"),
            )
            .unwrap();
            let out = std::process::Command::new("rustc")
                .args([
                    "--edition",
                    "2021",
                    "--crate-type",
                    "lib",
                    "--emit",
                    "metadata",
                ])
                .arg("--out-dir")
                .arg(dir.path())
                .arg(&src)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{call}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    #[test]
    fn a_step_rng_parameter_is_built_from_two_integers() {
        let shuffle = Callable {
            path: "game::shuffle".into(),
            name: "shuffle".into(),
            kind: CallableKind::Free,
            params: vec![Param {
                name: "rng".into(),
                ty: Ty::Ref {
                    mutable: true,
                    inner: Box::new(step_rng()),
                },
                inferred: false,
                static_ref: false,
                closure: None,
            }],
            ret: Some(Ty::Prim("u32".into())),
            file: "src/lib.rs".into(),
            line: 1,
            instantiation: vec![("R".into(), step_rng())],
            lent: vec![],
            via_trait: None,
            operator: None,
            consume: None,
            turbofish: Vec::new(),
            ret_annotated: false,
            asynchronous: false,
            exact_args: false,
        };
        let model = ApiModel {
            crate_name: "game".into(),
            callables: vec![shuffle],
            ..ApiModel::default()
        };
        let reg = Registry::build(&model);
        assert!(reg.dropped.is_empty(), "{:?}", reg.dropped);
        let build = reg
            .ops
            .iter()
            .find(|o| o.ret.as_ref() == Some(&step_rng()))
            .expect("an operation builds the generator");
        assert_eq!(
            build.code,
            OpCode::StdValue {
                ty: step_rng(),
                template: "rand::rngs::mock::StepRng::new({0}, {1})".into(),
            }
        );
        assert_eq!(build.params.len(), 2);
        let call = reg.ops.iter().find(|o| o.code == OpCode::Call(0));
        assert_eq!(
            call.map(|o| o.params[0].1),
            Some(Pass::Mut),
            "the call takes the generator by &mut"
        );
    }
}
