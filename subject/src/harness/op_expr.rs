//! The Rust expression of an operation, for both places that write one: the harness dispatch
//! (`render.rs`) and emitted tests (`emit/render.rs`). The shape of each operation (which path
//! is called, how an operator, a constructor or an unwrap chain is written) is decided here
//! once; a [`Target`] supplies only what differs between the two: how paths and types are
//! spelled, where operand values come from, and whether readability or hygiene wins.

use crate::harness::registry::{self, Op, OpCode};
use crate::harness::render::{self, STD};
use crate::model::{
    ApiModel, BORROW_INTO_ITER, Callable, CallableKind, ClosureKind, ClosureParam, Consume,
    Receiver, Ty, VIA_RET,
};

/// What an expression is written for.
pub(crate) trait Target {
    /// A public item path as this target names it.
    fn path(&self, path: &str) -> String;
    /// A type as this target writes it.
    fn ty(&self, t: &Ty) -> String;
    /// The value of a literal op.
    fn literal(&self, t: &Ty) -> String;
    /// A `Vec` of the already rendered elements `args`.
    fn vec_of(&self, t: &Ty, args: &[String]) -> String;
    /// Operand `k` used in place: a receiver, or the value displayed or unwrapped.
    fn subject(&self, k: usize) -> String;
    /// Operand 0 of a compound assignment (`a += b`), as an assignable place.
    fn place(&self) -> String;
    /// Tests read best with method syntax (`s.push(x)`); the harness names the method by path
    /// so that trait methods and auto-ref never pick another impl, and std through the dispatch
    /// module's own `extern crate std` (`std::`, see `render::STD`) so that a crate's own
    /// `format!` or `ToString` cannot shadow them, and `no_std` crates have std too.
    fn readable(&self) -> bool;
}

/// The expression of `op` with its operands rendered as `args`.
pub(crate) fn op_expr(op: &Op, model: &ApiModel, args: &[String], t: &impl Target) -> String {
    let std = if t.readable() { "" } else { render::STD };
    match &op.code {
        OpCode::Literal(ty) => t.literal(ty),
        OpCode::Call(c) => call(&model.callables[*c], op, args, t),
        OpCode::VecOf(ty) => t.vec_of(ty, args),
        OpCode::Display(_) if t.readable() => format!("{}.to_string()", t.subject(0)),
        OpCode::Display(_) => format!("{std}string::ToString::to_string({})", t.subject(0)),
        OpCode::DisplayPadded(_) => format!(
            "{std}format!(\"{{:^1$}}\", {}, {})",
            t.subject(0),
            padded_width(&args[1])
        ),
        OpCode::DebugFmt(_) => format!("{std}format!(\"{{:?}}\", {})", t.subject(0)),
        OpCode::HashOf(_) if t.readable() => format!(
            "std::hash::Hash::hash(&{}, &mut std::hash::DefaultHasher::new())",
            t.subject(0)
        ),
        OpCode::HashOf(_) => format!(
            "{std}hash::Hash::hash({}, &mut {std}hash::DefaultHasher::new())",
            t.subject(0)
        ),
        OpCode::StdValue { template, .. } => super::std_values::fill(template, args),
        OpCode::CrateValue { path, borrowed } => {
            format!("{}{}", if *borrowed { "&" } else { "" }, t.path(path))
        }
        OpCode::Some(_) => format!("Some({})", args[0]),
        OpCode::None(ty) => format!("None::<{}>", t.ty(ty)),
        OpCode::UnwrapOk(_) | OpCode::UnwrapErr(_) | OpCode::UnwrapSome(_) => {
            let chain = registry::unwrap_chain(&op.code, &op.params[0].0, model);
            format!("{}{chain}", t.subject(0))
        }
        OpCode::Project(path) => {
            let variant = path.rsplit("::").next().unwrap_or(path);
            format!(
                "match {} {{ {}(v) => v, _ => panic!(\"not {variant}\") }}",
                t.subject(0),
                t.path(path)
            )
        }
        OpCode::StructLit {
            path,
            fields,
            tuple,
            args: tys,
        } => construct(
            &with_turbofish(&t.path(path), "", tys, t),
            fields,
            *tuple,
            args,
        ),
        OpCode::Variant {
            path,
            fields,
            tuple,
            args: tys,
        } => {
            let (ty_path, variant) = path.rsplit_once("::").unwrap_or(("", path));
            let head = with_turbofish(&t.path(ty_path), variant, tys, t);
            construct(&head, fields, *tuple, args)
        }
    }
}

/// Whether a test calls the method `c` by method syntax: not when it is a crate trait's method
/// on a primitive. A primitive's inherent methods come first in method lookup, and traits
/// such as num-traits' `CheckedSub` mirror them with other signatures: `n.checked_sub(&m)`
/// would call `i8::checked_sub(self, i8)` and not compile. Such calls name the trait. So do
/// those of a trait implemented for a borrow (`impl Pow<u8> for &i64`, `impl Sealed for &'a
/// HeaderName`): method lookup tries the value first, and finds `i64::pow` or the impl for
/// `HeaderName`, which moves it.
pub(crate) fn method_syntax(c: &Callable) -> bool {
    let on_prim = matches!(
        c.kind,
        CallableKind::Method {
            self_ty: Ty::Prim(_),
            ..
        } | CallableKind::Method {
            self_ty: Ty::Ref { .. },
            receiver: Receiver::Value,
        }
    );
    // Calls that must name their trait: see `BORROW_INTO_ITER` and `VIA_RET`.
    let named = |via: &str| via == BORROW_INTO_ITER || via.contains(VIA_RET);
    // A std trait the crate implements on a std type (`impl PartialEq<Code> for str`): the
    // test's value is a `String`, whose own `eq` method syntax would find.
    let std_on_std = |via: &str| {
        let CallableKind::Method { self_ty, .. } = &c.kind else {
            return false;
        };
        let std_self = match self_ty {
            Ty::Str | Ty::String | Ty::Slice(_) => true,
            Ty::Adt { path, .. } => path.starts_with("std::"),
            _ => false,
        };
        via.starts_with("::std::") && std_self
    };
    match c.via_trait.as_deref() {
        Some(via) => !on_prim && !named(via) && !std_on_std(via),
        None => true,
    }
}

/// A method of an unsized type whose receiver the pool lends as `&Box<S>` or `&mut Box<S>`
/// (`analyze::unsized_types`): called with method syntax (`slice.len()`), auto-deref reaching
/// `S`, unless the name is one a trait `Box` forwards also has, where `Box`'s own impl would be
/// picked (`into_iter` by value, `cmp` of two boxes).
fn borrowed_box_receiver(c: &Callable) -> bool {
    const BOX_TRAIT_METHODS: [&str; 22] = [
        "as_mut",
        "as_ref",
        "borrow",
        "borrow_mut",
        "clone",
        "cmp",
        "default",
        "deref",
        "deref_mut",
        "eq",
        "fmt",
        "ge",
        "gt",
        "hash",
        "into_iter",
        "le",
        "lt",
        "ne",
        "next",
        "partial_cmp",
        "to_owned",
        "to_string",
    ];
    let CallableKind::Assoc { self_ty } = &c.kind else {
        return false;
    };
    let Some(Ty::Ref { inner, .. }) = c.params.first().filter(|p| p.name == "self").map(|p| &p.ty)
    else {
        return false;
    };
    let boxed = matches!(inner.as_ref(), Ty::Adt { path, args }
        if path == super::std_values::STD_BOX && args.first() == Some(self_ty));
    boxed && c.via_trait.is_none() && !BOX_TRAIT_METHODS.contains(&c.name.as_str())
}

/// The trait a call names, with [`VIA_RET`] replaced by the type the function returns (the
/// borrowed type of an `AsRef`'s `&T`).
fn via_trait(c: &Callable, t: &impl Target) -> String {
    let via = t.path(c.via_trait.as_deref().unwrap_or_default());
    let target = match &c.ret {
        Some(Ty::Ref { inner, .. }) => t.ty(inner),
        Some(ret) => t.ty(ret),
        None => "()".to_string(),
    };
    via.replace(VIA_RET, &target)
}

/// The name of the executor emitted tests call futures through (`emit::executor`).
pub(crate) const BLOCK_ON: &str = "block_on";

/// A call of `c` (the callable of `op`), kept through `.ok()` when the registry converted its
/// `Result`.
fn call(c: &Callable, op: &Op, args: &[String], t: &impl Target) -> String {
    let ok = registry::ok_converted(op);
    // A reader's `&mut self` is a fresh `&mut &[u8]` of the pooled bytes, as its argument.
    let reader_receiver = op
        .params
        .first()
        .is_some_and(|(_, _, source)| registry::slice_reader(source).is_some());
    let mut closures = with_closures(c, args, op.keyed);
    boxed_closures(c, &mut closures, t);
    let args = closures.as_slice();
    if let (Some(op), CallableKind::Method { .. }) = (&c.operator, &c.kind) {
        let expr = operator(op, args, t);
        // Parenthesised: `.ok()` must apply to the whole operator expression.
        return if ok { format!("({expr}).ok()") } else { expr };
    }
    let name = with_turbofish(&c.name, "", &c.turbofish, t);
    let expr = match &c.kind {
        CallableKind::Method { .. } if t.readable() && reader_receiver && method_syntax(c) => {
            format!("({}).{name}({})", args[0], args[1..].join(", "))
        }
        CallableKind::Method { .. } if t.readable() && method_syntax(c) => {
            format!("{}.{name}({})", t.subject(0), args[1..].join(", "))
        }
        CallableKind::Assoc { .. } if t.readable() && borrowed_box_receiver(c) => {
            format!("{}.{name}({})", t.subject(0), args[1..].join(", "))
        }
        // `IntoIterator::into_iter(&v)`: by value through its receiver's type, the call would
        // pick the impl for `T` instead of the one for `&T` (`into_iter` takes `self`, so a
        // borrowed receiver means the impl is for the borrow).
        CallableKind::Method {
            receiver: Receiver::Ref | Receiver::RefMut,
            ..
        } if c.via_trait.as_deref() == Some(BORROW_INTO_ITER) => {
            format!("{}::{name}({})", t.path(BORROW_INTO_ITER), args.join(", "))
        }
        // Tests import a crate trait (see `emit::render`); the harness names it.
        CallableKind::Assoc { self_ty } | CallableKind::Method { self_ty, .. }
            if c.via_trait.is_some() =>
        {
            format!(
                "<{} as {}>::{name}({})",
                t.ty(self_ty),
                via_trait(c, t),
                args.join(", ")
            )
        }
        // `IndexMap::<K, V>::new()`: nothing in the arguments names the type's parameters.
        CallableKind::Assoc {
            self_ty: Ty::Adt { path, args: tys },
        } if !tys.is_empty() => format!(
            "{}::{name}({})",
            with_turbofish(&t.path(path), "", tys, t),
            args.join(", ")
        ),
        _ => format!(
            "{}({})",
            with_turbofish(&t.path(&c.path), "", &c.turbofish, t),
            args.join(", ")
        ),
    };
    // A future runs to completion before its result is consumed (see `Callable::asynchronous`).
    let expr = match (c.asynchronous, t.readable()) {
        (false, _) => expr,
        (true, true) => format!("{BLOCK_ON}({expr})"),
        (true, false) => format!("::frugal_probe::harness::block_on({expr})?"),
    };
    let expr = match (c.consume, t.readable()) {
        (None, _) => expr,
        (Some(Consume::Collect), true) => format!("{expr}.collect::<Vec<_>>()"),
        (Some(Consume::Collect), false) => {
            format!("{STD}iter::Iterator::collect::<{STD}vec::Vec<_>>({expr})")
        }
        (Some(Consume::ToString), true) => format!("{expr}.to_string()"),
        (Some(Consume::ToString), false) => {
            format!("{STD}string::ToString::to_string(&{expr})")
        }
    };
    if ok { format!("{expr}.ok()") } else { expr }
}

/// Arguments with each closure parameter's value wrapped in a closure that ignores its
/// arguments and returns the value: moved out for `FnOnce`, cloned for `Fn` and `FnMut`
/// (a crate type without `Clone` fails to compile there and its call is dropped). With
/// `keyed`, a predicate with a key argument compares the key with the value instead (the op's
/// slot holds the key's type then): `move |_, e| *e < 5` keeps some items and drops others.
fn with_closures(c: &Callable, args: &[String], keyed: bool) -> Vec<String> {
    let first = c.first_param();
    let mut out = args.to_vec();
    for (i, p) in c.params.iter().enumerate() {
        let (Some(closure), Some(arg)) = (&p.closure, out.get_mut(first + i)) else {
            continue;
        };
        let mut names = vec!["_"; closure.arity];
        if closure.returns_unit {
            *arg = format!("move |{}| {{}}", typed(&names, closure));
            continue;
        }
        let value = match (closure.key.as_ref().filter(|_| keyed), closure.kind, &p.ty) {
            (Some(key), _, _) => {
                if let Some(name) = names.get_mut(key.arg) {
                    *name = "e";
                }
                let e = if key.borrowed { "*e" } else { "e" };
                format!("{e} < {arg}")
            }
            (None, ClosureKind::FnOnce, _) | (None, _, Ty::Prim(_)) => arg.clone(),
            _ => format!("{arg}.clone()"),
        };
        *arg = format!("move |{}| {value}", typed(&names, closure));
    }
    out
}

/// A closure's argument list: the names, each with its type where the closure is boxed
/// (`_: &i32, e: &i32`; see [`ClosureParam::typed_inputs`]).
fn typed(names: &[&str], closure: &ClosureParam) -> String {
    if closure.typed_inputs.len() != names.len() {
        return names.join(", ");
    }
    names
        .iter()
        .zip(&closure.typed_inputs)
        .map(|(n, t)| format!("{n}: {t}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Closure arguments boxed and cast to their parameter's stand-in where it has one
/// ([`crate::model::ClosureParam::boxed`]): `(std::boxed::Box::new(move |_| {}) as std::boxed::Box<dyn
/// FnOnce(i32)>)`.
fn boxed_closures(c: &Callable, args: &mut [String], t: &impl Target) {
    let first = c.first_param();
    let std = if t.readable() { "std::" } else { STD };
    for (i, p) in c.params.iter().enumerate() {
        let (Some(ty), Some(arg)) = (
            p.closure.as_ref().and_then(|c| c.boxed.as_ref()),
            args.get_mut(first + i),
        ) else {
            continue;
        };
        *arg = format!("({std}boxed::Box::new({arg}) as {})", t.ty(ty));
    }
}

/// The width of a padded `Display`, from the search's `u8`: a cast would be trivial where the
/// literal is inferred (crates that deny `trivial_numeric_casts` build in-crate tests).
pub(crate) fn padded_width(width: &str) -> String {
    format!("u8::into({width})")
}

/// An operator trait's call written as the operator: `a + b`, `-a`, `a += b`.
fn operator(op: &str, args: &[String], t: &impl Target) -> String {
    match args {
        [a] => format!("{op}{a}"),
        [_, b] if op.ends_with('=') => format!("{} {op} {b}", t.place()),
        [a, b] => format!("{a} {op} {b}"),
        _ => format!(
            "compile_error!(\"operator {op} with {} operands\")",
            args.len()
        ),
    }
}

/// `Type::<A, B>` (then `::variant`), or the plain path for a type without arguments.
fn with_turbofish(ty_path: &str, variant: &str, tys: &[Ty], t: &impl Target) -> String {
    let head = if tys.is_empty() {
        ty_path.to_string()
    } else {
        let tys: Vec<String> = tys.iter().map(|ty| t.ty(ty)).collect();
        format!("{ty_path}::<{}>", tys.join(", "))
    };
    if variant.is_empty() {
        head
    } else {
        format!("{head}::{variant}")
    }
}

/// A struct literal or variant: `P`, `P(a, b)` or `P { f: a }`.
pub(crate) fn construct(path: &str, fields: &[String], tuple: bool, args: &[String]) -> String {
    if args.is_empty() {
        return path.to_string();
    }
    if tuple {
        return format!("{path}({})", args.join(", "));
    }
    let parts: Vec<String> = fields
        .iter()
        .zip(args)
        .map(|(f, a)| format!("{f}: {a}"))
        .collect();
    format!("{path} {{ {} }}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ClosureKey, Param};

    fn predicate(arity: usize, key: Option<ClosureKey>) -> Callable {
        Callable {
            params: vec![Param {
                name: "f".into(),
                ty: Ty::Prim("bool".into()),
                inferred: false,
                static_ref: false,
                closure: Some(ClosureParam {
                    kind: ClosureKind::FnMut,
                    arity,
                    key,
                    returns_unit: false,
                    boxed: None,
                    typed_inputs: Vec::new(),
                }),
            }],
            ..Callable::free("k::keep", "src/lib.rs", 1)
        }
    }

    /// A closure ignores its arguments, unless the op is the keyed twin of a predicate with a
    /// key: then the key, read through the borrow where it is one, is compared with the value.
    #[test]
    fn keyed_predicates_decide_by_their_key() {
        let int = Ty::Prim("i32".into());
        let borrowed = Some(ClosureKey {
            arg: 1,
            borrowed: true,
            ty: int.clone(),
        });
        let c = predicate(2, borrowed);
        assert_eq!(
            with_closures(&c, &["flag".to_string()], false),
            ["move |_, _| flag"]
        );
        assert_eq!(
            with_closures(&c, &["n".to_string()], true),
            ["move |_, e| *e < n"]
        );
        let by_value = Some(ClosureKey {
            arg: 0,
            borrowed: false,
            ty: int,
        });
        assert_eq!(
            with_closures(&predicate(1, by_value), &["5".to_string()], true),
            ["move |e| e < 5"]
        );
        assert_eq!(
            with_closures(&predicate(1, None), &["flag".to_string()], true),
            ["move |_| flag"]
        );
    }

    /// A boxed closure (`impl<T, F: FnMut(&T, &T) -> bool> DedupPredicate<T> for F`, F
    /// standing in as `Box<dyn FnMut(&i32, &i32) -> bool>`) names its arguments' types, so it
    /// takes borrows of any lifetime, as the trait object requires.
    #[test]
    fn boxed_closures_name_their_argument_types() {
        let mut c = predicate(
            2,
            Some(ClosureKey {
                arg: 1,
                borrowed: true,
                ty: Ty::Prim("i32".into()),
            }),
        );
        let shape = c.params[0].closure.as_mut().unwrap();
        shape.typed_inputs = vec!["&i32".into(), "&i32".into()];
        assert_eq!(
            with_closures(&c, &["flag".to_string()], false),
            ["move |_: &i32, _: &i32| flag"]
        );
        assert_eq!(
            with_closures(&c, &["3".to_string()], true),
            ["move |_: &i32, e: &i32| *e < 3"]
        );
    }
}
