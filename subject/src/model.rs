//! The API model of a crate under test: what `analyze` finds and the harness can call.
//!
//! Types are syntactic: a [`Ty`] names a primitive, a std container, or a crate item by the
//! public path an integration test would write. Generic parameters are already instantiated
//! with concrete types by the time a callable lands here.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// Everything the analysis learned about one crate.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ApiModel {
    /// The library's name as used in paths (`my_crate`, dashes turned into underscores).
    pub crate_name: String,
    /// Public callables the harness can drive.
    pub callables: Vec<Callable>,
    /// Crate types reachable through the public API.
    pub types: Vec<TypeDef>,
    /// Literal constants found in the crate's code, for seeding.
    pub constants: ConstantPool,
    /// Public callables the harness cannot drive, with the reason.
    pub unsupported: Vec<Unsupported>,
    /// Public `const` and `static` items of the crate's types: values a test can name.
    #[serde(default)]
    pub values: Vec<CrateValue>,
    /// Paths (`krate::date::days_in_month`) that only a test inside a module can name, with
    /// that module (in-module placement; see `emit::home`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub homes: BTreeMap<String, Home>,
}

impl ApiModel {
    /// The home of `path`, or of the longest path it starts with that has one (see
    /// [`ApiModel::homes`]); generic arguments (`::<..>`) are cut off.
    pub fn home_of(&self, path: &str) -> Option<&Home> {
        let mut prefix = path.split("::<").next().unwrap_or(path);
        loop {
            if let Some(home) = self.homes.get(prefix) {
                return Some(home);
            }
            prefix = prefix.rsplit_once("::")?.0;
        }
    }

    /// Leaves out what only in-module placement reaches: the callables, types and values
    /// whose paths have a home.
    pub fn forget_homes(&mut self) {
        let homed: BTreeSet<String> = (self.callables.iter().map(|c| &c.path))
            .chain(self.types.iter().map(|t| &t.path))
            .chain(self.values.iter().map(|v| &v.path))
            .filter(|p| self.home_of(p).is_some())
            .cloned()
            .collect();
        self.callables.retain(|c| !homed.contains(&c.path));
        self.types.retain(|t| !homed.contains(&t.path));
        self.values.retain(|v| !homed.contains(&v.path));
        self.homes.clear();
    }
}

/// A module a test is placed in to reach private items: its path from the crate root
/// (`date`, `meta::size`) and its file relative to the crate directory (`src/date.rs`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Home {
    /// Module path from the crate root, without the crate name (`date`, `meta::size`).
    pub module: String,
    /// The module's file, relative to the crate directory (`src/date.rs`).
    pub file: String,
}

/// A public `const` or `static` whose type is a struct or enum: `krate::HTTP` by value (a
/// `const`), `&krate::HTTP` for a `&'static` parameter (either).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrateValue {
    /// Public path a test names it by (`krate::HTTP`).
    pub path: String,
    /// Its type: the struct or enum it is a value of.
    pub ty: Ty,
    /// A `static` rather than a `const`: it can only be borrowed (`&krate::X`), never moved.
    pub is_static: bool,
    /// Declared as a reference to its type (`const SET: &AsciiSet = &..`): the value is a
    /// `&'static` borrow already and is never moved out.
    #[serde(default)]
    pub is_ref: bool,
}

/// A type as written in a signature, resolved syntactically.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Ty {
    /// `()`.
    Unit,
    /// `bool`, `char`, integers and floats, by name (`"i32"`, `"f64"`, ...).
    Prim(String),
    /// `str` (only meaningful behind a reference).
    Str,
    /// `String`.
    String,
    /// `&T` or `&mut T` (lifetimes dropped).
    Ref {
        /// `&mut T` rather than `&T`.
        mutable: bool,
        /// The borrowed type.
        inner: Box<Ty>,
    },
    /// `[T]` (only meaningful behind a reference).
    Slice(Box<Ty>),
    /// `Vec<T>`.
    Vec(Box<Ty>),
    /// `Option<T>`.
    Option(Box<Ty>),
    /// `Result<T, E>` (crate `Result` aliases expanded when they are simple).
    Result(Box<Ty>, Box<Ty>),
    /// `(A, B, ...)`.
    Tuple(Vec<Ty>),
    /// A crate struct or enum by its public path, e.g. `my_crate::shapes::Circle`.
    Adt {
        /// Public path of the type.
        path: String,
        /// Its generic arguments, in order; empty for a non-generic type.
        args: Vec<Ty>,
    },
    /// Anything else, kept as source text for messages (`Box<dyn Fn()>`, `HashMap<K, V>`, ...).
    Other(String),
}

/// [`Callable::via_trait`] of an `IntoIterator` impl for a borrow (`&'a T`, `&'a mut T`):
/// called as `IntoIterator::into_iter(&v)`, since `v.into_iter()` or `T::into_iter(&v)` would
/// pick the impl for `T`.
pub const BORROW_INTO_ITER: &str = "::std::iter::IntoIterator";

/// In [`Callable::via_trait`], the trait argument the function's return type decides:
/// `::std::convert::Into<{ret}>`. A type with several `Into` or `AsRef` impls needs it named
/// (`<Duration as Into<std::time::Duration>>::into(d)`); an `AsRef`'s `&T` names `T`.
pub const VIA_RET: &str = "{ret}";

/// How a callable takes its receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Receiver {
    /// `self`
    Value,
    /// `&self`
    Ref,
    /// `&mut self`
    RefMut,
}

/// What kind of callable this is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum CallableKind {
    /// A free function: called as `path(args)`.
    Free,
    /// A method with a receiver on `self_ty`: called as `recv.name(args)`.
    Method {
        /// The type the method is implemented on.
        self_ty: Ty,
        /// How it takes `self`.
        receiver: Receiver,
    },
    /// An associated function without receiver: called as `SelfTy::name(args)`.
    Assoc {
        /// The type the function is associated with.
        self_ty: Ty,
    },
}

/// One public callable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Callable {
    /// Path an integration test uses: `my_crate::parse` for a free fn, `my_crate::Stack::push`
    /// for methods and associated functions.
    pub path: String,
    /// The bare name (`push`).
    pub name: String,
    /// Free function, method or associated function, with what calling it needs.
    pub kind: CallableKind,
    /// Parameters without the receiver, generics already instantiated.
    pub params: Vec<Param>,
    /// `None` for `()` and `!`.
    pub ret: Option<Ty>,
    /// Source file relative to the crate root, and 1-based line of the `fn`.
    pub file: String,
    /// 1-based line of the `fn` in `file`.
    pub line: usize,
    /// The concrete types chosen for generic parameters, for display (`T = i32`).
    pub instantiation: Vec<(String, Ty)>,
    /// Inputs (receiver first, then parameters) the result may borrow from, by the lifetimes
    /// of the signature: `from_str(s: &'a str) -> Reader<&'a [u8]>` lends `s`.
    #[serde(default)]
    pub lent: Vec<usize>,
    /// For a trait-impl function whose trait may not be in scope (`FromStr`): the trait's
    /// path, so calls are written `<Self as Trait>::name(..)`.
    #[serde(default)]
    pub via_trait: Option<String>,
    /// For an operator trait's function (`Add::add`, `Neg::neg`, `AddAssign::add_assign`):
    /// the operator calls are written with (`+`, `-`, `+=`).
    #[serde(default)]
    pub operator: Option<String>,
    /// How the result is consumed before it is kept (see [`Consume`]); `ret` is then the
    /// consumed type (`Vec<T>`, `String`).
    #[serde(default)]
    pub consume: Option<Consume>,
    /// The function's own generic arguments, written as a turbofish (`read_u16::<BigEndian>`)
    /// when the parameters do not name them all; `_` for a closure's. Empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turbofish: Vec<Ty>,
    /// The result's type names an impl parameter nothing at the call site infers (`impl<A:
    /// Array> ToSmallVec<A> for [A::Item]`'s `to_smallvec() -> SmallVec<A>`): an emitted test
    /// binds it with a typed `let`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ret_annotated: bool,
    /// An `async fn`: a call is a future, run to completion on the spot by a minimal executor
    /// that polls with a no-op waker (`h::block_on` in the harness, an emitted `block_on`
    /// helper in tests), so `ret` is what the future yields. A future still pending after the
    /// executor's polls waits on a reactor nobody runs; that statement is invalid.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub asynchronous: bool,
    /// A std trait's function whose trait is generic over its argument (`From<&str>`,
    /// `PartialEq<str>`, `Add<&str>`): the argument's type picks the impl, and no deref
    /// coercion happens before it is picked, so an emitted test passes the exact type the
    /// signature names (`Name::from(text.as_str())`; `&text` would look for `From<&String>`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exact_args: bool,
}

impl Callable {
    /// Operands before the parameters: 1 for a method's receiver, else 0. An operation's
    /// operand `first_param() + i` is parameter `i`.
    pub fn first_param(&self) -> usize {
        usize::from(matches!(self.kind, CallableKind::Method { .. }))
    }

    /// A free fn `path()` defined at `file:line`, taking and returning nothing, with nothing
    /// instantiated: the base that builders and tests complete with struct update syntax.
    pub fn free(path: &str, file: &str, line: usize) -> Callable {
        Callable {
            path: path.into(),
            name: path.rsplit("::").next().unwrap_or(path).into(),
            kind: CallableKind::Free,
            params: Vec::new(),
            ret: None,
            file: file.into(),
            line,
            instantiation: Vec::new(),
            lent: Vec::new(),
            via_trait: None,
            operator: None,
            consume: None,
            turbofish: Vec::new(),
            ret_annotated: false,
            asynchronous: false,
            exact_args: false,
        }
    }
}

/// A result whose code runs only when consumed: an iterator or a `Display` adaptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Consume {
    /// `.collect::<Vec<_>>()`.
    Collect,
    /// `.to_string()`.
    ToString,
}

/// One parameter of a callable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// Source name, or `arg{i}` for patterns.
    pub name: String,
    /// Its type, generics already instantiated (for a closure parameter, see `closure`).
    pub ty: Ty,
    /// The type comes from a generic stand-in (`V`, `&[T]`, `impl Into<u64>`): a call infers
    /// it from the argument, so an emitted literal must carry its type (`5u64`, not `5`).
    #[serde(default)]
    pub inferred: bool,
    /// Written `&'static T`: a borrow of the pool's values would not live long enough, so the
    /// argument is one of the crate's own constants or statics (see [`CrateValue`]).
    #[serde(default)]
    pub static_ref: bool,
    /// A closure parameter (`impl Fn(&str) -> bool`, `F: FnOnce() -> C`): `ty` is what the
    /// closure returns, and the call passes a closure that ignores its arguments and returns
    /// a value the search chose (`move |_| x3.clone()`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closure: Option<ClosureParam>,
}

impl Param {
    /// A parameter `name: ty` written with its own type: not inferred, not `&'static`, not a
    /// closure.
    pub fn new(name: impl Into<String>, ty: Ty) -> Param {
        Param {
            name: name.into(),
            ty,
            inferred: false,
            static_ref: false,
            closure: None,
        }
    }
}

/// The shape of a closure parameter: what the call writes for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClosureParam {
    /// Which closure trait bounds the parameter.
    pub kind: ClosureKind,
    /// Number of arguments the closure takes (each ignored, `_`).
    pub arity: usize,
    /// For a predicate (`FnMut(&mut T) -> bool`) with an integer argument: that argument, so
    /// that a call may also pass one that compares it with a value (`move |e| *e < 5`). A
    /// closure ignoring its arguments keeps all or none, and `retain` that keeps some and
    /// drops others is where its shifting code runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<ClosureKey>,
    /// The closure returns `()` (`F: FnOnce(T)`, a drop callback): it gets one that does
    /// nothing (`move |_| {}`), and the parameter's operand is a `u8` it ignores, so the
    /// call keeps the one-operand-per-parameter shape.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub returns_unit: bool,
    /// The closure's type parameter also names a type (a result `OnDrop<T, F>`, the impl of
    /// `Lazy<T, F>`), so it stands in as this boxed trait object (`Box<dyn FnOnce(i32)>`):
    /// the closure passed is boxed and cast to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boxed: Option<Ty>,
    /// With `boxed`: the closure's argument types as the cast writes them (`&i32`). The
    /// closure passed names them (`move |_: &i32| true`): a cast gives a closure no signature,
    /// and one taking a borrow must take it for any lifetime to meet `dyn FnMut(&i32)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub typed_inputs: Vec<String>,
}

/// The closure argument a predicate may decide by: its position, whether it is a borrow
/// (`&T`, `&mut T`: read as `*e`), and its integer type (what it is compared with).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClosureKey {
    /// Position of the argument among the closure's arguments (0-based).
    pub arg: usize,
    /// The argument is a borrow (`&T`, `&mut T`), read as `*e` in the comparison.
    pub borrowed: bool,
    /// The argument's integer type (as a [`Ty::Prim`]).
    pub ty: Ty,
}

/// Which closure trait the parameter is bounded by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClosureKind {
    /// Bounded by `Fn`.
    Fn,
    /// Bounded by `FnMut`.
    FnMut,
    /// Bounded by `FnOnce`.
    FnOnce,
}

/// A crate type reachable through the public API.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TypeDef {
    /// Public path (`my_crate::shapes::Circle`).
    pub path: String,
    /// Struct or enum, with its fields or variants.
    pub kind: TypeKind,
    /// Derived or implemented traits that matter: `Clone`, `Copy`, `Debug`, `Default`,
    /// `PartialEq`, `Display`, `FromStr`, ...
    pub traits: Vec<String>,
    /// Whether the type has type or const parameters (then only its instantiations through
    /// `params` are constructible); lifetime parameters alone do not count.
    pub generic: bool,
    /// The type parameters, in order, when they are the only generics (no lifetime or const
    /// parameter): an instantiation `Either<i32, i32>` is built by putting its arguments in
    /// place of these names in the field types.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<String>,
    /// A struct whose last field is unsized (`[T]`, `str`, `dyn Trait`): no value of it exists
    /// on its own, only behind a pointer, so it is kept as a `Box` of it (see
    /// `analyze::unsized_types`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unsized_tail: bool,
}

/// Shape of a crate type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum TypeKind {
    /// A struct; `fields` is `Some` only when every field is public (a literal can build it).
    Struct {
        /// Fields in declaration order; `None` when any is private.
        fields: Option<Vec<Field>>,
        /// A tuple struct (`S(a, b)`): fields are positional, named `"0"`, `"1"`, ...
        tuple: bool,
    },
    /// An enum with its variants.
    Enum {
        /// Variants in declaration order.
        variants: Vec<Variant>,
    },
}

/// A named (or positional, `name = "0"`) field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Field {
    /// Field name, or its position for a tuple struct or tuple variant (`"0"`).
    pub name: String,
    /// Declared type of the field, lowered (generic parameters still by name; unlowerable types as [`Ty::Other`]).
    pub ty: Ty,
}

/// An enum variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Variant {
    /// The variant's name, without the enum's path.
    pub name: String,
    /// Its fields, if any.
    pub shape: VariantShape,
}

/// How a variant is built.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum VariantShape {
    /// No fields: `E::A`.
    Unit,
    /// Positional fields, in order: `E::A(x, y)`.
    Tuple(Vec<Ty>),
    /// Named fields: `E::A { x, y }`.
    Struct(Vec<Field>),
}

/// Literal constants of the crate, deduplicated, for seeding values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ConstantPool {
    /// Integer literals (bytes included), with their sign when negated; distinct, capped in number.
    pub ints: Vec<i128>,
    /// Float literals, with their sign when negated; distinct by bit pattern, capped in number.
    pub floats: Vec<f64>,
    /// Non-empty string literals (and UTF-8 byte strings) up to a length cap; distinct, capped in number.
    pub strings: Vec<String>,
    /// Char literals; distinct, capped in number.
    pub chars: Vec<char>,
}

/// A public callable the harness cannot drive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unsupported {
    /// Path of the callable, as for [`Callable::path`].
    pub path: String,
    /// A short, stable reason, used to group: `"generic bound without candidate"`,
    /// `"closure parameter"`, `"lifetime-carrying type"`, `"trait object"`, `"unsafe fn"`,
    /// `"dependency type"`, `"impl Trait parameter"`, ...
    pub reason: String,
    /// The offending piece of the signature, as source text.
    pub detail: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forgetting_homes_leaves_out_what_only_they_reach() {
        let home = Home {
            module: "date".into(),
            file: "src/date.rs".into(),
        };
        let callable = |path: &str| Callable::free(path, "src/date.rs", 1);
        let mut m = ApiModel {
            crate_name: "k".into(),
            callables: vec![
                callable("k::top"),
                callable("k::date::Span::new"),
                callable("k::date::parse"),
            ],
            homes: [
                ("k::date::Span".to_string(), home.clone()),
                ("k::date::parse".to_string(), home.clone()),
            ]
            .into(),
            ..ApiModel::default()
        };
        assert_eq!(m.home_of("k::date::Span::<u8>::new"), Some(&home));
        assert_eq!(m.home_of("k::date"), None);
        m.forget_homes();
        let left: Vec<&str> = m.callables.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(left, ["k::top"]);
        assert!(m.homes.is_empty());
    }
}
