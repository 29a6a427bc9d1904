//! The std values the harness builds from the search's primitives: which std (and dependency
//! stand-in) types it knows, by the paths analysis lowers them to, and how each is written
//! (`Duration::new({0}, {1})`, `PathBuf`s inside the scratch directory, maps from `Vec`s,
//! arrays, `NonZero*`). The same template text serves the harness and emitted tests.
//!
//! It must not know the crate under test: crate types are `builders.rs`'s.

use crate::model::Ty;

/// `template` with `{i}` replaced by `args[i]`.
pub fn fill(template: &str, args: &[String]) -> String {
    let mut out = template.to_string();
    for (i, a) in args.iter().enumerate() {
        out = out.replace(&format!("{{{i}}}"), a);
    }
    out
}

/// Std (and dependency stand-in) value types the harness builds, by path: how, from which
/// parameter types.
pub(crate) fn std_constructors(path: &str) -> Vec<(&'static str, Vec<Ty>)> {
    let prim = |p: &str| Ty::Prim(p.to_string());
    match path {
        STD_DURATION => vec![
            ("std::time::Duration::from_millis({0})", vec![prim("u64")]),
            (
                "std::time::Duration::new({0}, {1})",
                vec![prim("u64"), prim("u32")],
            ),
        ],
        // Parenthesised: the value may be borrowed in place (`&(UNIX_EPOCH + d)`).
        STD_SYSTEM_TIME => vec![(
            "(std::time::UNIX_EPOCH + std::time::Duration::new(<u64 as From<u32>>::from({0}), {1}))",
            vec![prim("u32"), prim("u32")],
        )],
        // Code under test may create or delete what it is given: the path is one the search
        // spelled, kept inside `frugal-scratch`.
        STD_PATH_BUF => SCRATCH_TEMPLATES
            .iter()
            .map(|&t| (t, vec![Ty::String]))
            .collect(),
        STD_OS_STRING => vec![("std::ffi::OsString::from({0})", vec![Ty::String])],
        // Addresses from their integer forms (every address is one), or v4 from its octets:
        // the parts the search mutates are the address's own.
        STD_IPV4_ADDR => vec![
            ("std::net::Ipv4Addr::from({0})", vec![prim("u32")]),
            (
                "std::net::Ipv4Addr::new({0}, {1}, {2}, {3})",
                vec![prim("u8"), prim("u8"), prim("u8"), prim("u8")],
            ),
        ],
        STD_IPV6_ADDR => vec![("std::net::Ipv6Addr::from({0})", vec![prim("u128")])],
        // The sign of a small integer: every variant is one draw away.
        STD_CMP_ORDERING => vec![("i8::cmp(&{0}, &0)", vec![prim("i8")])],
        STD_IP_ADDR => vec![
            (
                "std::net::IpAddr::V4(std::net::Ipv4Addr::from({0}))",
                vec![prim("u32")],
            ),
            (
                "std::net::IpAddr::V6(std::net::Ipv6Addr::from({0}))",
                vec![prim("u128")],
            ),
        ],
        STD_SOCKET_ADDR_V4 => vec![(
            "std::net::SocketAddrV4::new(std::net::Ipv4Addr::from({0}), {1})",
            vec![prim("u32"), prim("u16")],
        )],
        STD_SOCKET_ADDR_V6 => vec![(
            "std::net::SocketAddrV6::new(std::net::Ipv6Addr::from({0}), {1}, 0, 0)",
            vec![prim("u128"), prim("u16")],
        )],
        STD_SOCKET_ADDR => vec![
            (
                "std::net::SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::from({0})), {1})",
                vec![prim("u32"), prim("u16")],
            ),
            (
                "std::net::SocketAddr::new(std::net::IpAddr::V6(std::net::Ipv6Addr::from({0})), {1})",
                vec![prim("u128"), prim("u16")],
            ),
        ],
        STD_RANGE_FULL => vec![("(..)", Vec::new())],
        // An error carrying a message the search spells: what a `std::error::Error` bound or
        // an `io::Error` parameter gets.
        STD_IO_ERROR => vec![("std::io::Error::other({0})", vec![Ty::String])],
        // A generator whose draws are `initial`, `initial + step`, ...: the search picks them.
        STEP_RNG => vec![(
            "rand::rngs::mock::StepRng::new({0}, {1})",
            vec![prim("u64"), prim("u64")],
        )],
        _ => Vec::new(),
    }
}

/// The integer type under `std::num::NonZero*`.
fn nonzero_int(path: &str) -> Option<&'static str> {
    const INTS: [&str; 12] = [
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
    ];
    let name = path.strip_prefix("std::num::NonZero")?.to_lowercase();
    INTS.into_iter().find(|i| *i == name)
}

/// A `PathBuf` from a string, relative and inside `frugal-scratch` whatever the string:
/// leading separators and `..` components cannot leave it. Relative, so a test's expected
/// values (a path in a `Debug` form) are the same wherever it runs; the directory is the
/// sandbox's during the search, the crate's (`cargo test` runs there) when a user runs it.
pub const SCRATCH_PATH: &str = "std::path::Path::new(\"frugal-scratch\").join({0}.replace(\"..\", \"_\").trim_start_matches('/'))";

/// An existing file, `frugal-scratch/file/NAME`, holding its own name: code that reads
/// metadata or contents (lsd's `Meta::from_path`) gets past its first `?`. One path component
/// whatever the string, and the same contents for the same path, so tests running at once
/// that make the same file agree; its modification time is fixed, so a `Debug` form showing it
/// is the same in every run.
pub const SCRATCH_FILE: &str = "{ let n = {0}.replace(['/', '\\\\'], \"_\"); let p = std::path::Path::new(\"frugal-scratch/file\").join(&n); if std::fs::read(&p).ok().as_deref() != Some(n.as_bytes()) { let _ = std::fs::create_dir_all(\"frugal-scratch/file\"); let _ = std::fs::write(&p, &n); if let Ok(f) = std::fs::File::options().append(true).open(&p) { let _ = f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000)); } } p }";

/// An existing directory, `frugal-scratch/dir/NAME`, holding one file (`file`): code that
/// lists or walks a directory gets an entry.
pub const SCRATCH_DIR: &str = "{ let n = {0}.replace(['/', '\\\\'], \"_\"); let p = std::path::Path::new(\"frugal-scratch/dir\").join(&n); if !p.join(\"file\").exists() { let _ = std::fs::create_dir_all(&p); let _ = std::fs::write(p.join(\"file\"), &n); } p }";

/// Every way a `PathBuf` argument is made: a path that may not exist, an existing file, an
/// existing directory. All inside `frugal-scratch`.
pub const SCRATCH_TEMPLATES: [&str; 3] = [SCRATCH_PATH, SCRATCH_FILE, SCRATCH_DIR];

/// Generic std values: maps and sets, collected from `Vec`s the search picks (a map from its
/// keys zipped with its values, the shorter deciding the length; a set from its elements), and
/// the `BuildHasher` stand-in.
pub(crate) fn collection(path: &str, args: &[Ty]) -> Vec<(String, Vec<Ty>)> {
    let vec = |t: &Ty| Ty::Vec(Box::new(t.clone()));
    // The integer, or the type's least value where the search drew 0.
    if let (Some(int), []) = (nonzero_int(path), args) {
        return vec![(
            format!("{path}::new({{0}}).unwrap_or({path}::MIN)"),
            vec![Ty::Prim(int.to_string())],
        )];
    }
    match (path, args) {
        (STD_BUILD_HASHER_DEFAULT, [Ty::Adt { path: hasher, args }])
            if hasher == STD_DEFAULT_HASHER && args.is_empty() =>
        {
            vec![(format!("{path}::<{hasher}>::default()"), Vec::new())]
        }
        (STD_HASH_MAP | STD_BTREE_MAP, [k, v]) => vec![(
            format!("{{0}}.into_iter().zip({{1}}).collect::<{path}<_, _>>()"),
            vec![vec(k), vec(v)],
        )],
        (STD_HASH_SET | STD_BTREE_SET, [k]) => vec![(
            format!("{{0}}.into_iter().collect::<{path}<_>>()"),
            vec![vec(k)],
        )],
        // Parenthesised: the value may be borrowed or called on in place (`(2..5).len()`).
        (STD_RANGE, [t]) => vec![("({0}..{1})".to_string(), vec![t.clone(), t.clone()])],
        (STD_RANGE_INCLUSIVE, [t]) => {
            vec![("({0}..={1})".to_string(), vec![t.clone(), t.clone()])]
        }
        (STD_WRAPPING, [t]) => vec![("std::num::Wrapping({0})".to_string(), vec![t.clone()])],
        (STD_RANGE_TO, [t]) => vec![("(..{0})".to_string(), vec![t.clone()])],
        (STD_RANGE_FROM, [t]) => vec![("({0}..)".to_string(), vec![t.clone()])],
        (STD_RANGE_TO_INCLUSIVE, [t]) => vec![("(..={0})".to_string(), vec![t.clone()])],
        (STD_COW, [Ty::Str]) => vec![(format!("{path}::<str>::Owned({{0}})"), vec![Ty::String])],
        (STD_COW, [Ty::Slice(e)]) => {
            vec![(format!("{path}::<[_]>::Owned({{0}})"), vec![vec(e)])]
        }
        (STD_BOX | STD_RC | STD_ARC, [Ty::Str]) => {
            vec![(format!("{path}::<str>::from({{0}})"), vec![Ty::String])]
        }
        (STD_BOX | STD_RC | STD_ARC, [Ty::Slice(e)]) => {
            vec![(format!("{path}::<[_]>::from({{0}})"), vec![vec(e)])]
        }
        // A closure standing in for a closure type parameter (`closure_values`).
        (STD_BOX, [Ty::Other(t)]) if t.starts_with("dyn Fn") => {
            super::closure_values::boxed_closures(t)
        }
        (STD_BOX | STD_RC | STD_ARC, [t]) => vec![(format!("{path}::new({{0}})"), vec![t.clone()])],
        (ARRAY, [t, Ty::Other(n)]) => match n.parse::<usize>() {
            Ok(n) if n <= ARRAY_ELEMENTS => {
                let slots: Vec<String> = (0..n).map(|i| format!("{{{i}}}")).collect();
                vec![(format!("[{}]", slots.join(", ")), vec![t.clone(); n])]
            }
            Ok(n) if matches!(t, Ty::Prim(_)) => vec![(format!("[{{0}}; {n}]"), vec![t.clone()])],
            _ => Vec::new(),
        },
        // The stand-in for iterator bounds (`analyze::bounds`).
        (STD_VEC_INTO_ITER, [t]) => vec![("{0}.into_iter()".to_string(), vec![vec(t)])],
        _ => Vec::new(),
    }
}

/// Paths analysis lowers std value types to (see `analyze::types`).
pub const STD_DURATION: &str = "std::time::Duration";
/// `SystemTime`: built as `UNIX_EPOCH` plus a `Duration` of two `u32`s (seconds, nanoseconds).
pub const STD_SYSTEM_TIME: &str = "std::time::SystemTime";
/// `PathBuf`: built from a string by one of [`SCRATCH_TEMPLATES`], always inside `frugal-scratch`.
pub const STD_PATH_BUF: &str = "std::path::PathBuf";
/// `OsString`: built from a `String`.
pub const STD_OS_STRING: &str = "std::ffi::OsString";
/// `io::Error`: built from a message (`io::Error::other`).
pub const STD_IO_ERROR: &str = "std::io::Error";
/// The pseudo-path of `[T; N]`: `Ty::Adt { path: ARRAY, args: [T, Ty::Other("N")] }`, rendered
/// as the array type.
pub const ARRAY: &str = "[array]";
/// Arrays up to this length get one search value per element (`[{0}, {1}, ...]`); longer ones
/// of a primitive repeat one (`[{0}; 58]`).
const ARRAY_ELEMENTS: usize = 8;
/// `Ordering`: the sign of an `i8` (`i8::cmp(&x, &0)`), so every variant is one draw away.
pub const STD_CMP_ORDERING: &str = "std::cmp::Ordering";
/// `Wrapping<T>`: wraps a value of `T`.
pub const STD_WRAPPING: &str = "std::num::Wrapping";
/// `Ipv4Addr`: from a `u32`, or from four `u8` octets.
pub const STD_IPV4_ADDR: &str = "std::net::Ipv4Addr";
/// `Ipv6Addr`: from a `u128`.
pub const STD_IPV6_ADDR: &str = "std::net::Ipv6Addr";
/// `IpAddr`: a v4 address from a `u32` or a v6 address from a `u128`.
pub const STD_IP_ADDR: &str = "std::net::IpAddr";
/// `SocketAddr`: a v4 or v6 address with a `u16` port.
pub const STD_SOCKET_ADDR: &str = "std::net::SocketAddr";
/// `SocketAddrV4`: an address from a `u32` and a `u16` port.
pub const STD_SOCKET_ADDR_V4: &str = "std::net::SocketAddrV4";
/// `SocketAddrV6`: an address from a `u128` and a `u16` port (flow info and scope id 0).
pub const STD_SOCKET_ADDR_V6: &str = "std::net::SocketAddrV6";
/// Unsized: a parameter or receiver of this type is an `OsString` of the pool, lent.
pub const STD_OS_STR: &str = "std::ffi::OsStr";
/// `HashMap<K, V>`: a `Vec<K>` zipped with a `Vec<V>`, the shorter deciding the length.
pub const STD_HASH_MAP: &str = "std::collections::HashMap";
/// `BTreeMap<K, V>`: a `Vec<K>` zipped with a `Vec<V>`, the shorter deciding the length.
pub const STD_BTREE_MAP: &str = "std::collections::BTreeMap";
/// `HashSet<T>`: collected from a `Vec<T>`.
pub const STD_HASH_SET: &str = "std::collections::HashSet";
/// `BTreeSet<T>`: collected from a `Vec<T>`.
pub const STD_BTREE_SET: &str = "std::collections::BTreeSet";
/// `vec::IntoIter<T>`: the stand-in for iterator bounds, from a `Vec<T>`.
pub const STD_VEC_INTO_ITER: &str = "std::vec::IntoIter";
/// `Box<T>`: `Box::new(t)`; `Box<str>` and `Box<[T]>` from a `String` or `Vec<T>`.
pub const STD_BOX: &str = "std::boxed::Box";
/// `Rc<T>`, built as [`STD_BOX`] is.
pub const STD_RC: &str = "std::rc::Rc";
/// `Arc<T>`, built as [`STD_BOX`] is.
pub const STD_ARC: &str = "std::sync::Arc";
/// `Cow<str>` and `Cow<[T]>`: owned, from a `String` or `Vec<T>`.
pub const STD_COW: &str = "std::borrow::Cow";
/// `RangeTo<T>`: `(..b)`.
pub const STD_RANGE_TO: &str = "std::ops::RangeTo";
/// `RangeFrom<T>`: `(a..)`.
pub const STD_RANGE_FROM: &str = "std::ops::RangeFrom";
/// `RangeToInclusive<T>`: `(..=b)`.
pub const STD_RANGE_TO_INCLUSIVE: &str = "std::ops::RangeToInclusive";
/// `RangeFull`: `(..)`.
pub const STD_RANGE_FULL: &str = "std::ops::RangeFull";

/// Whether `path` is a std pointer (or `Cow`) that may hold an unsized `str` or `[T]`.
pub(crate) fn pointer(path: &str) -> bool {
    matches!(path, STD_BOX | STD_RC | STD_ARC | STD_COW)
}

/// `Range<T>`: `(a..b)` from two values of `T`.
pub const STD_RANGE: &str = "std::ops::Range";
/// `RangeInclusive<T>`: `(a..=b)` from two values of `T`.
pub const STD_RANGE_INCLUSIVE: &str = "std::ops::RangeInclusive";
/// `BuildHasherDefault<H>`: with [`STD_DEFAULT_HASHER`], the stand-in for `S: BuildHasher` (see [`build_hasher_default`]).
pub const STD_BUILD_HASHER_DEFAULT: &str = "std::hash::BuildHasherDefault";
/// `DefaultHasher`: the hasher argument of [`STD_BUILD_HASHER_DEFAULT`].
pub const STD_DEFAULT_HASHER: &str = "std::hash::DefaultHasher";
/// The stand-in for `R: Rng` when the crate depends on rand (see `analyze::bounds`).
pub const STEP_RNG: &str = "rand::rngs::mock::StepRng";

/// `BuildHasherDefault<DefaultHasher>`: the stand-in for `S: BuildHasher`.
pub fn build_hasher_default() -> Ty {
    Ty::Adt {
        path: STD_BUILD_HASHER_DEFAULT.to_string(),
        args: vec![Ty::Adt {
            path: STD_DEFAULT_HASHER.to_string(),
            args: Vec::new(),
        }],
    }
}

/// The owned pool type a borrowed unsized type is lent from: `str` from a `String`, `[T]` from
/// a `Vec<T>`, `OsStr` from an `OsString`; `None` for sized types.
pub(crate) fn owned_of_unsized(ty: &Ty) -> Option<Ty> {
    match ty {
        Ty::Str => Some(Ty::String),
        Ty::Slice(elem) => Some(Ty::Vec(elem.clone())),
        Ty::Adt { path, .. } if path == STD_OS_STR => Some(Ty::Adt {
            path: STD_OS_STRING.to_string(),
            args: Vec::new(),
        }),
        _ => None,
    }
}
