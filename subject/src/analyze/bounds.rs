//! Which concrete type stands in for a generic parameter, chosen from its bounds.
//!
//! Bounds are matched by a syntactic key: the trait's last path segment plus its generic
//! arguments (`Display`, `AsRef<str>`, `From<&str>`), with `io::` kept for the io traits so
//! `io::Write` and `fmt::Write` stay apart. The std side is a table written as data below;
//! crate types contribute their derives and explicit impls.

use std::collections::BTreeSet;

use crate::harness::closure_values::top_level_parts;
use crate::harness::std_values::{ARRAY, STD_VEC_INTO_ITER};
use crate::model::Ty;

/// Traits every candidate has (auto traits, `'static` data, `Sized`).
const UNIVERSAL: &[&str] = &[
    "Sized",
    "Send",
    "Sync",
    "Unpin",
    "Any",
    "UnwindSafe",
    "RefUnwindSafe",
];

/// What primitives implement besides [`ORDERED_VALUE`].
const PRIM_VALUE: &[&str] = &["Copy", "Display", "ToString", "FromStr"];

/// What the owned std values (`String`, `Vec<u8>`, `PathBuf`, `&[u8]`) all implement.
const ORDERED_VALUE: &[&str] = &[
    "Clone",
    "Debug",
    "PartialEq",
    "Eq",
    "PartialOrd",
    "Ord",
    "Hash",
    "Default",
];

const INT_OPS: &[&str] = &[
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Rem",
    "AddAssign",
    "SubAssign",
    "MulAssign",
    "DivAssign",
    "RemAssign",
    "BitAnd",
    "BitOr",
    "BitXor",
    "Shl",
    "Shr",
    "Not",
    "Sum",
    "Product",
    "LowerHex",
    "UpperHex",
    "Binary",
    "Octal",
];

/// One std candidate: its type, and the bound keys it satisfies beyond the shared lists.
struct StdCandidate {
    name: &'static str,
    shared: &'static [&'static [&'static str]],
    own: &'static [&'static str],
}

/// `E: std::error::Error` (anyhow's `Error::new`): an `io::Error` with a message the search
/// spells. Tried before the crate's own error types, which are often ones no test can build
/// (anyhow's `BoxedError`); a generic function is instantiated with those too (http's
/// `Error::is::<T>` asks about them).
const IO_ERROR: StdCandidate = StdCandidate {
    name: "io::Error",
    shared: &[],
    own: &["Error", "Debug", "Display", "ToString"],
};

/// The default candidates, in the order they are tried.
const STD_CANDIDATES: &[StdCandidate] = &[
    StdCandidate {
        name: "i32",
        shared: &[ORDERED_VALUE, PRIM_VALUE, INT_OPS],
        own: &[
            "Neg",
            "Into<i32>",
            "Into<i64>",
            "Into<i128>",
            "Into<f64>",
            "From<i32>",
            "From<i8>",
            "From<i16>",
            "From<u8>",
            "From<u16>",
            "TryFrom<i64>",
            "TryFrom<u32>",
            "TryInto<u8>",
            "TryInto<usize>",
            "Signed",
        ],
    },
    StdCandidate {
        name: "u64",
        shared: &[ORDERED_VALUE, PRIM_VALUE, INT_OPS],
        own: &[
            "Into<u64>",
            "Into<u128>",
            "Into<i128>",
            "From<u64>",
            "From<u8>",
            "From<u16>",
            "From<u32>",
            "TryFrom<i64>",
            "TryFrom<usize>",
            "TryInto<usize>",
            "TryInto<u32>",
            "Unsigned",
        ],
    },
    StdCandidate {
        name: "f64",
        shared: &[],
        own: &[
            "Copy",
            "Clone",
            "Debug",
            "Display",
            "PartialEq",
            "PartialOrd",
            "Default",
            "ToString",
            "FromStr",
            "Add",
            "Sub",
            "Mul",
            "Div",
            "Rem",
            "Neg",
            "AddAssign",
            "SubAssign",
            "MulAssign",
            "DivAssign",
            "Sum",
            "Product",
            "Into<f64>",
            "From<f64>",
            "From<f32>",
            "From<i32>",
            "From<u32>",
            "From<i8>",
            "From<u8>",
            "Float",
        ],
    },
    StdCandidate {
        name: "bool",
        shared: &[ORDERED_VALUE, PRIM_VALUE],
        own: &[
            "Not",
            "BitAnd",
            "BitOr",
            "BitXor",
            "Into<bool>",
            "From<bool>",
        ],
    },
    StdCandidate {
        name: "char",
        shared: &[ORDERED_VALUE, PRIM_VALUE],
        own: &[
            "Into<char>",
            "Into<u32>",
            "Into<String>",
            "From<u8>",
            "TryFrom<u32>",
        ],
    },
    StdCandidate {
        name: "String",
        shared: &[ORDERED_VALUE],
        own: &[
            "Display",
            "ToString",
            "FromStr",
            "AsRef<str>",
            "AsRef<[u8]>",
            "AsRef<OsStr>",
            "AsMut<str>",
            "Borrow<str>",
            "Deref",
            "Into<String>",
            "Into<Vec<u8>>",
            "Into<OsString>",
            "Into<Box<str>>",
            "Into<Cow<str>>",
            "From<&str>",
            "From<char>",
            "From<String>",
            "Add<&str>",
            "AddAssign<&str>",
            "Extend<char>",
            "FromIterator<char>",
            "fmt::Write",
            "PartialEq<str>",
            "PartialEq<&str>",
        ],
    },
    StdCandidate {
        name: "PathBuf",
        shared: &[ORDERED_VALUE],
        own: &[
            // `Path` and `PathBuf` both lower to `std::path::PathBuf` in bound keys.
            "AsRef<std::path::PathBuf>",
            "AsRef<std::ffi::OsStr>",
            "Borrow<std::path::PathBuf>",
            "Deref",
            "Into<std::path::PathBuf>",
            "Into<std::ffi::OsString>",
            "From<&str>",
            "From<String>",
        ],
    },
    StdCandidate {
        name: "OsString",
        shared: &[ORDERED_VALUE],
        own: &[
            "AsRef<std::ffi::OsStr>",
            "Borrow<std::ffi::OsStr>",
            "Deref",
            "Into<std::ffi::OsString>",
            "From<&str>",
            "From<String>",
        ],
    },
    StdCandidate {
        name: "Vec<u8>",
        shared: &[ORDERED_VALUE],
        own: &[
            "AsRef<[u8]>",
            "AsMut<[u8]>",
            "Borrow<[u8]>",
            "Deref",
            "Into<Vec<u8>>",
            "Into<Cow<[u8]>>",
            "From<&str>",
            "From<String>",
            "From<&[u8]>",
            "From<Vec<u8>>",
            "Extend<u8>",
            "FromIterator<u8>",
            "IntoIterator",
            "io::Write",
        ],
    },
    StdCandidate {
        name: "&[u8]",
        shared: &[ORDERED_VALUE],
        own: &[
            "Copy",
            "AsRef<[u8]>",
            "Into<Cow<[u8]>>",
            "IntoIterator",
            "io::Read",
            "io::BufRead",
        ],
    },
    // `R: RangeBounds<usize>` (`drain`, `replace_range`): a range of indices, both ends chosen
    // by the search (`harness::std_values` builds it as `(a..b)`).
    StdCandidate {
        name: "Range<usize>",
        shared: &[],
        own: &[
            "RangeBounds<usize>",
            "Clone",
            "Debug",
            "PartialEq",
            "Eq",
            "Hash",
            "Default",
        ],
    },
    // `S: BuildHasher` (`IndexMap<K, V, S>`, `HashMap::with_hasher`): std's default hasher
    // with fixed keys, so a hash-ordered result is the same in every run (`RandomState` is
    // seeded per process).
    StdCandidate {
        name: "BuildHasherDefault",
        shared: &[],
        own: &[
            "BuildHasher",
            "Default",
            "Clone",
            "Debug",
            "PartialEq",
            "Eq",
        ],
    },
];

/// Bounds whose best stand-in is the conversion's target itself, tried before the default
/// order: a `T: Into<f64>` gets an `f64`, a `T: Display` a `String` (more varied output).
const PREFERRED: &[(&str, &str)] = &[
    ("AsRef<str>", "String"),
    ("Into<String>", "String"),
    ("Borrow<str>", "String"),
    ("ToString", "String"),
    ("Display", "String"),
    // A path inside the scratch directory (`harness::registry`), never one the search spells.
    ("AsRef<std::path::PathBuf>", "PathBuf"),
    ("Into<std::path::PathBuf>", "PathBuf"),
    ("AsRef<std::ffi::OsStr>", "OsString"),
    ("Into<std::ffi::OsString>", "OsString"),
    ("AsRef<[u8]>", "Vec<u8>"),
    ("Into<Vec<u8>>", "Vec<u8>"),
    // Owned, so the `Cow` the callee makes is not tied to a borrow of the pool.
    ("Into<Cow<str>>", "String"),
    ("Into<Cow<[u8]>>", "Vec<u8>"),
    ("io::Write", "Vec<u8>"),
    ("io::Read", "&[u8]"),
    ("io::BufRead", "&[u8]"),
    ("Into<f64>", "f64"),
    ("Float", "f64"),
    ("Into<u64>", "u64"),
];

fn std_ty(name: &str) -> Ty {
    match name {
        "String" => Ty::String,
        "Vec<u8>" => Ty::Vec(Box::new(Ty::Prim("u8".to_string()))),
        "PathBuf" => Ty::Adt {
            path: crate::harness::std_values::STD_PATH_BUF.to_string(),
            args: Vec::new(),
        },
        "OsString" => Ty::Adt {
            path: crate::harness::std_values::STD_OS_STRING.to_string(),
            args: Vec::new(),
        },
        "BuildHasherDefault" => crate::harness::std_values::build_hasher_default(),
        "io::Error" => Ty::Adt {
            path: crate::harness::std_values::STD_IO_ERROR.to_string(),
            args: Vec::new(),
        },
        "Range<usize>" => Ty::Adt {
            path: crate::harness::std_values::STD_RANGE.to_string(),
            args: vec![Ty::Prim("usize".to_string())],
        },
        "&[u8]" => Ty::Ref {
            mutable: false,
            inner: Box::new(Ty::Slice(Box::new(Ty::Prim("u8".to_string())))),
        },
        prim => Ty::Prim(prim.to_string()),
    }
}

/// Whether an error bound (`Error`, and nothing `io::Error` lacks) asks for these keys.
fn meets_io_error(keys: &[&str]) -> bool {
    keys.contains(&"Error") && keys.iter().all(|k| std_satisfies(&IO_ERROR, k))
}

fn std_satisfies(candidate: &StdCandidate, key: &str) -> bool {
    candidate.own.contains(&key) || candidate.shared.iter().any(|list| list.contains(&key))
}

/// A stand-in from one of the crate's dependencies, usable when the crate depends on it.
struct DependencyCandidate {
    dependency: &'static str,
    /// Version requirements it exists in, as prefixes (`"0.8"` matches `"0.8.5"`, `"^0.8"`).
    versions: &'static [&'static str],
    path: &'static str,
    keys: &'static [&'static str],
}

/// `R: Rng` gets rand's `StepRng`: deterministic, `Copy`, built from two integers (see
/// `harness::std_values::std_constructors`), so the search controls every "random" draw.
const DEPENDENCY_CANDIDATES: &[DependencyCandidate] = &[DependencyCandidate {
    dependency: "rand",
    versions: &["0.5", "0.6", "0.7", "0.8"],
    path: "rand::rngs::mock::StepRng",
    keys: &[
        "Rng",
        "RngCore",
        "Clone",
        "Copy",
        "Debug",
        "PartialEq",
        "Eq",
    ],
}];

/// The crate's own candidate types and its dependencies' stand-ins, with the bound keys they
/// satisfy.
#[derive(Debug, Default)]
pub(crate) struct Candidates {
    crate_types: Vec<(Ty, BTreeSet<String>)>,
    dependency_types: Vec<(Ty, &'static [&'static str])>,
    /// Primitives the crate implements its own traits for, with those traits' keys.
    primitives: Vec<(Ty, BTreeSet<String>)>,
    /// Std ranges the crate implements its own traits for (`analyze::range_impls`).
    ranges: Vec<(Ty, BTreeSet<String>)>,
    /// Crate traits implemented for arrays of any element (`analyze::arrays`).
    arrays: Vec<ArrayCandidate>,
    /// Crate traits implemented for closures of a shape, by key, with the boxed closure that
    /// meets each (`analyze::closure_impls`).
    closures: Vec<(Ty, String)>,
    /// Crate types generic only over lifetimes (textwrap's `Options<'a>`), with their keys:
    /// targets of a conversion bound (`Opt: Into<Options<'a>>`), not candidates of their own.
    borrowing_types: Vec<(Ty, BTreeSet<String>)>,
}

/// A crate trait implemented for `[T; N]`: its key, the length a candidate gets, and the
/// associated types that are the element.
#[derive(Debug, Clone)]
pub(crate) struct ArrayCandidate {
    pub key: String,
    pub length: u64,
    pub element_types: Vec<String>,
}

impl Candidates {
    /// `types`: public, non-generic crate types with their derived and implemented trait keys.
    pub(crate) fn new(types: Vec<(Ty, BTreeSet<String>)>) -> Self {
        Candidates {
            crate_types: types,
            dependency_types: Vec::new(),
            primitives: Vec::new(),
            ranges: Vec::new(),
            arrays: Vec::new(),
            closures: Vec::new(),
            borrowing_types: Vec::new(),
        }
    }

    /// Adds the crate types generic only over lifetimes, as conversion targets.
    pub(crate) fn with_borrowing_types(mut self, types: Vec<(Ty, BTreeSet<String>)>) -> Self {
        self.borrowing_types = types;
        self
    }

    /// Adds the std ranges the crate implements its own traits for (see `analyze::range_impls`):
    /// a bound naming one (`T: IndexRange`) is met by each of them.
    pub(crate) fn with_ranges(mut self, ranges: Vec<(Ty, BTreeSet<String>)>) -> Self {
        self.ranges = ranges;
        self
    }

    /// Adds the crate traits implemented for closures (see `analyze::closure_impls`): a bound
    /// naming one alone (`F: KMergePredicate<i32>`) is met by its boxed closure.
    pub(crate) fn with_closure_impls(mut self, closures: Vec<(Ty, String)>) -> Self {
        self.closures = closures;
        self
    }

    /// Adds the crate traits implemented for arrays (see `analyze::arrays`): a bound naming
    /// one (`A: Array`, `A: Array<Item = u8>`) is met by `[i32; N]`, or an array of the item.
    pub(crate) fn with_arrays(mut self, arrays: Vec<ArrayCandidate>) -> Self {
        self.arrays = arrays;
        self
    }

    /// What `name` is for the candidate `base` (`A::Item` with `A = [i32; 4]`): the element
    /// of an array whose crate impl says `type Item = T`, or the item of a `Vec`'s `IntoIter`;
    /// for the `Vec` an `IntoIterator` bound gets, its item and its `IntoIter` (itertools'
    /// `peek_nth(iterable: I) -> PeekNth<I::IntoIter>`).
    pub(crate) fn associated_type(&self, base: &Ty, name: &str) -> Option<Ty> {
        let into_iter = |item: &Ty| Ty::Adt {
            path: STD_VEC_INTO_ITER.into(),
            args: vec![item.clone()],
        };
        match base {
            Ty::Vec(item) => match name {
                "Item" => Some((**item).clone()),
                "IntoIter" => Some(into_iter(item)),
                _ => None,
            },
            Ty::Adt { path, args } if path == ARRAY && args.len() == 2 => self
                .arrays
                .iter()
                .any(|a| a.element_types.iter().any(|e| e == name))
                .then(|| args[0].clone()),
            Ty::Adt { path, args } if path == STD_VEC_INTO_ITER && args.len() == 1 => match name {
                "Item" => Some(args[0].clone()),
                "IntoIter" => Some(base.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// `[T; N]` for bounds that name a crate trait implemented for arrays, besides the std
    /// traits arrays have; `T` is the item a binding asks for (`Array<Item = u8>`), or `i32`.
    fn array(&self, keys: &[&str]) -> Option<Ty> {
        let mut element: Option<Ty> = None;
        let mut chosen: Option<&ArrayCandidate> = None;
        for key in keys {
            // An array of `i32` has the ordered value traits but `Default` (not past 32), and
            // `Copy`.
            if (ORDERED_VALUE.contains(key) && *key != "Default") || *key == "Copy" {
                continue;
            }
            let (name, binding) = key.split_once('<').unwrap_or((key, ""));
            let candidate = self.arrays.iter().find(|a| a.key == name)?;
            if let Some((assoc, shown)) =
                binding.strip_suffix('>').and_then(|b| b.split_once(" = "))
            {
                if !candidate.element_types.iter().any(|e| e == assoc) {
                    return None;
                }
                let ty = item_ty(shown)?;
                if element.as_ref().is_some_and(|e| *e != ty) {
                    return None;
                }
                element = Some(ty);
            } else if !binding.is_empty() {
                return None;
            }
            chosen = Some(chosen.map_or(candidate, |c| {
                if candidate.length < c.length {
                    candidate
                } else {
                    c
                }
            }));
        }
        let chosen = chosen?;
        Some(Ty::Adt {
            path: ARRAY.to_string(),
            args: vec![
                element.unwrap_or_else(|| Ty::Prim("i32".into())),
                Ty::Other(chosen.length.to_string()),
            ],
        })
    }

    /// Adds primitives with the crate traits they implement (see `analyze::macros`): a bound
    /// naming a crate trait (`W: Width`) is met by the first primitive implementing it, with
    /// the std traits of its kind besides.
    pub(crate) fn with_primitives(
        mut self,
        prims: std::collections::BTreeMap<String, BTreeSet<String>>,
    ) -> Self {
        let order = |name: &str| PRIM_ORDER.iter().position(|p| *p == name);
        let mut prims: Vec<(String, BTreeSet<String>)> = prims.into_iter().collect();
        prims.sort_by_key(|(name, _)| order(name));
        self.primitives = prims
            .into_iter()
            .map(|(name, keys)| (prim_ty(name), keys))
            .collect();
        self
    }

    /// Adds the stand-ins of the dependencies in `deps` (name to version requirement).
    pub(crate) fn with_dependencies(
        mut self,
        deps: &std::collections::BTreeMap<String, String>,
    ) -> Self {
        for c in DEPENDENCY_CANDIDATES {
            let Some(req) = deps.get(c.dependency) else {
                continue;
            };
            let req = req.trim_start_matches(['^', '=', '~', ' ']);
            if c.versions.iter().any(|v| req.starts_with(v)) {
                let ty = Ty::Adt {
                    path: c.path.to_string(),
                    args: Vec::new(),
                };
                self.dependency_types.push((ty, c.keys));
            }
        }
        self
    }

    /// Every type a function generic over these bounds is instantiated with: the choice of
    /// [`Candidates::choose`] and, when that is one of the primitives the crate implements
    /// its own trait for (`impl_integer!(u8 u16 ...)`) or one of its types, the other such
    /// primitives or types meeting the bounds too, since each impl is its own code (at most
    /// `MAX_INSTANCES`).
    pub(crate) fn alternatives(&self, keys: &[String]) -> Vec<Ty> {
        let Some(first) = self.choose(keys) else {
            return Vec::new();
        };
        let keys: Vec<&str> = keys
            .iter()
            .map(String::as_str)
            .filter(|k| !UNIVERSAL.contains(k))
            .collect();
        let meets_crate =
            |traits: &BTreeSet<String>| keys.iter().all(|k| satisfies_crate(traits, k));
        let meets_prim = |ty: &Ty, own: &BTreeSet<String>| {
            *ty != Ty::Str
                && keys
                    .iter()
                    .all(|k| own.contains(*k) || primitive_satisfies(ty, k))
        };
        // `B: ByteOrder` met by `BigEndian` and `LittleEndian`: each its own impl.
        let others: Vec<&Ty> = if keys.is_empty() {
            Vec::new()
        } else if first == std_ty(IO_ERROR.name)
            || self.crate_types.iter().any(|(ty, _)| *ty == first)
        {
            self.crate_types
                .iter()
                .filter(|(_, traits)| meets_crate(traits))
                .map(|(ty, _)| ty)
                .collect()
        } else if self.ranges.iter().any(|(ty, _)| *ty == first) {
            self.ranges
                .iter()
                .filter(|(_, own)| keys.iter().all(|k| own.contains(*k)))
                .map(|(ty, _)| ty)
                .collect()
        } else if self.primitives.iter().any(|(ty, _)| *ty == first) {
            self.primitives
                .iter()
                .filter(|(ty, own)| meets_prim(ty, own))
                .map(|(ty, _)| ty)
                .collect()
        } else {
            Vec::new()
        };
        let rest = others.into_iter().filter(|ty| **ty != first).cloned();
        std::iter::once(first.clone())
            .chain(rest)
            .take(MAX_INSTANCES)
            .collect()
    }

    /// The first type satisfying every bound key, preferred targets first, then the std
    /// candidates, then crate types.
    pub(crate) fn choose(&self, keys: &[String]) -> Option<Ty> {
        let keys: Vec<&str> = keys
            .iter()
            .map(String::as_str)
            .filter(|k| !UNIVERSAL.contains(k))
            .collect();
        if let Some(iter) = iterator_stand_in(&keys, &self.crate_types) {
            return Some(iter);
        }
        if let Some(key) = lookup_stand_in(&keys) {
            return Some(key);
        }
        if slice_index(&keys) {
            return Some(Ty::Prim("usize".into()));
        }
        // Otherwise the item binding is not matched, as before it was part of the key.
        let keys: Vec<&str> = keys
            .iter()
            .map(|k| match k.split_once("<Item = ") {
                Some((name, _)) if super::types::ITERATOR_TRAITS.contains(&name) => name,
                _ => k,
            })
            .collect();
        let preferred = keys.iter().filter_map(|k| {
            PREFERRED
                .iter()
                .find(|(bound, _)| bound == k)
                .map(|(_, ty)| *ty)
        });
        let by_name = |name: &str| STD_CANDIDATES.iter().find(|c| c.name == name);
        let std_order = preferred.filter_map(by_name).chain(STD_CANDIDATES.iter());
        for candidate in std_order {
            if keys.iter().all(|k| std_satisfies(candidate, k)) {
                return Some(std_ty(candidate.name));
            }
        }
        let dependency = self
            .dependency_types
            .iter()
            .find(|(_, satisfied)| keys.iter().all(|k| satisfied.contains(k)));
        if let Some((ty, _)) = dependency {
            return Some(ty.clone());
        }
        let range = self
            .ranges
            .iter()
            .find(|(_, own)| !keys.is_empty() && keys.iter().all(|k| own.contains(*k)));
        if let Some((ty, _)) = range {
            return Some(ty.clone());
        }
        let primitive = |sized: bool| {
            self.primitives.iter().find(|(ty, own)| {
                (*ty != Ty::Str) == sized
                    && keys
                        .iter()
                        .all(|k| own.contains(*k) || primitive_satisfies(ty, k))
            })
        };
        if let Some((ty, _)) = primitive(true) {
            return Some(ty.clone());
        }
        if let Some(array) = self.array(&keys) {
            return Some(array);
        }
        if let Some((boxed, _)) = self
            .closures
            .iter()
            .find(|(_, key)| !keys.is_empty() && keys.iter().all(|k| k == key))
        {
            return Some(boxed.clone());
        }
        if let Some(ty) = self.conversion(&keys) {
            return Some(ty);
        }
        let crate_type = self
            .crate_types
            .iter()
            .find(|(_, traits)| keys.iter().all(|k| satisfies_crate(traits, k)));
        if meets_io_error(&keys) {
            return Some(std_ty(IO_ERROR.name));
        }
        if let Some((ty, _)) = crate_type {
            return Some(ty.clone());
        }
        // `str` last: it is only usable behind a reference (`?Sized` blanket impls).
        primitive(false).map(|(ty, _)| ty.clone())
    }
}

impl Candidates {
    /// The stand-in for a conversion into one of the crate's types (`T: TryInto<Uri>`,
    /// `K: Hash + Into<HeaderName>`; keys name the target by its path): a `String` where the crate converts from one, so the
    /// call parses it, else the target type itself, which every type converts into. Either
    /// only when it meets the other bounds too.
    fn conversion(&self, keys: &[&str]) -> Option<Ty> {
        let (trait_name, target) = keys.iter().find_map(|k| {
            let (name, rest) = k.split_once('<')?;
            let target = rest.strip_suffix('>')?;
            matches!(name, "Into" | "TryInto").then_some((name, target))
        })?;
        let (ty, traits) = self.crate_types.iter().chain(&self.borrowing_types).find(
            |(ty, _)| matches!(ty, Ty::Adt { path, args } if args.is_empty() && path == target),
        )?;
        let conversion = format!("{trait_name}<{target}>");
        let from_string = match trait_name {
            "Into" => traits.contains("From<String>"),
            _ => traits.contains("From<String>") || traits.contains("TryFrom<String>"),
        };
        let string = STD_CANDIDATES.iter().find(|c| c.name == "String");
        let string_meets =
            |k: &&str| **k == conversion || string.is_some_and(|c| std_satisfies(c, k));
        if from_string && keys.iter().all(string_meets) {
            return Some(Ty::String);
        }
        let itself_meets = |k: &&str| **k == conversion || satisfies_crate(traits, k);
        keys.iter().all(itself_meets).then(|| ty.clone())
    }
}

/// What `std::vec::IntoIter<T>` implements besides the iterator traits.
const INTO_ITER_TRAITS: &[&str] = &["Clone", "Debug", "FusedIterator"];

/// The stand-in for iterator bounds (`S: DoubleEndedIterator<Item = char>`): a `Vec`'s
/// `IntoIter` over the item, which the harness builds from a `Vec` the search picks. Only
/// items the pool holds by value, and only when every bound is one `IntoIter` meets.
///
/// An `IntoIterator` alone may also yield borrows, through what yields them: `&str` or `&[u8]`
/// items from a `Vec<&str>` or `Vec<&[u8]>` (the pool's `Vec<String>` viewed, shlex's `join`),
/// `&T` and `&mut T` from a borrowed `Vec<T>`. Items of the crate's own types (`Item =
/// Comparator`) come from a `Vec` of them too.
fn iterator_stand_in(keys: &[&str], crate_types: &[(Ty, BTreeSet<String>)]) -> Option<Ty> {
    let mut item: Option<Ty> = None;
    let mut iterator = false;
    let mut into_iterator = false;
    for key in keys {
        let (name, binding) = key.split_once('<').unwrap_or((key, ""));
        if INTO_ITER_TRAITS.contains(key) {
            continue;
        }
        if !super::types::ITERATOR_TRAITS.contains(&name) {
            return None;
        }
        // `IntoIterator` alone is met by a `Vec`, which reads better.
        iterator |= name != "IntoIterator";
        into_iterator |= name == "IntoIterator";
        let Some(shown) = binding
            .strip_prefix("Item = ")
            .and_then(|b| b.strip_suffix('>'))
        else {
            continue;
        };
        let ty = item_ty_in(shown, crate_types).or_else(|| borrowed_item(shown, crate_types))?;
        if item.as_ref().is_some_and(|i| *i != ty) {
            return None;
        }
        item = Some(ty);
    }
    if let Some(Ty::Ref { mutable, inner }) = &item {
        if iterator {
            return None;
        }
        return Some(match inner.as_ref() {
            Ty::Str | Ty::Slice(_) => Ty::Vec(Box::new(item.clone()?)),
            sized => Ty::Ref {
                mutable: *mutable,
                inner: Box::new(Ty::Vec(Box::new(sized.clone()))),
            },
        });
    }
    // A bare `I: Iterator` (`impl<I: Iterator> MultiPeek<I>`) yields what unbounded
    // parameters get. A bare `I: IntoIterator` is a `Vec` of the same item, so what a
    // function makes of it (`peek_nth(iterable: I) -> PeekNth<I::IntoIter>`) is the type the
    // impls' methods take (`PeekNth<vec::IntoIter<i32>>`).
    let item = match item {
        Some(item) => item,
        None if iterator => Ty::Prim("i32".into()),
        None if into_iterator => return Some(Ty::Vec(Box::new(Ty::Prim("i32".into())))),
        None => return None,
    };
    Some(Ty::Adt {
        path: "std::vec::IntoIter".into(),
        args: vec![item],
    })
}

/// Traits of lookup keys met by the key type itself: `Q: ?Sized + Hash + Equivalent<K>`
/// (indexmap, hashbrown, the `equivalent` crate) is implemented for every `Q` that `K`
/// borrows as, `K` first of all; `Comparable<K>` is its ordered twin.
const LOOKUP_TRAITS: &[&str] = &["Equivalent", "Comparable"];

/// Whether the bounds ask only for an index into a slice (`I: SliceIndex<[A::Item]>`, the
/// parameter of smallvec's and tinyvec's `Index<I>` impls): a `usize` picks one item.
fn slice_index(keys: &[&str]) -> bool {
    !keys.is_empty() && keys.iter().all(|k| k.starts_with("SliceIndex<["))
}

/// The key type `K` for bounds naming a lookup trait of `K` (`Q: Hash + Equivalent<i32>` gets
/// `i32`), when `K` meets the other bounds too.
fn lookup_stand_in(keys: &[&str]) -> Option<Ty> {
    let mut key: Option<Ty> = None;
    for k in keys {
        let Some((name, arg)) = k.strip_suffix('>').and_then(|k| k.split_once('<')) else {
            continue;
        };
        if LOOKUP_TRAITS.contains(&name) {
            let ty = item_ty(arg)?;
            if key.as_ref().is_some_and(|t| *t != ty) {
                return None;
            }
            key = Some(ty);
        }
    }
    let key = key?;
    let meets = |k: &&str| {
        let lookup = k
            .split_once('<')
            .is_some_and(|(name, _)| LOOKUP_TRAITS.contains(&name));
        lookup
            || match &key {
                Ty::Tuple(_) => ORDERED_VALUE.contains(k) && *k != "Default",
                other => primitive_satisfies(other, k),
            }
    };
    keys.iter().all(meets).then_some(key)
}

/// An iterator item the pool holds by value, from its shown form: a primitive, `String`, the
/// std values built from a string, a tuple of those (`(usize, i32)`: slab's
/// `FromIterator<(usize, T)>`), or an `Option`, `Vec` or `Result` of them (itertools'
/// `I: Iterator<Item = Result<T, E>>`).
fn item_ty(shown: &str) -> Option<Ty> {
    item_ty_in(shown, &[])
}

/// [`item_ty`], or one of `crate_types` (non-generic crate types show as their path).
fn item_ty_in(shown: &str, crate_types: &[(Ty, BTreeSet<String>)]) -> Option<Ty> {
    let item = |t: &str| item_ty_in(t, crate_types);
    if let Some(inner) = shown.strip_prefix('(').and_then(|s| s.strip_suffix(')')) {
        let parts = top_level_parts(inner);
        return (parts.len() > 1)
            .then(|| parts.into_iter().map(item).collect::<Option<Vec<Ty>>>())
            .flatten()
            .map(Ty::Tuple);
    }
    if let Some((outer, inner)) = shown.strip_suffix('>').and_then(|s| s.split_once('<')) {
        let parts = top_level_parts(inner);
        return match (outer, parts.as_slice()) {
            ("Option", [t]) => Some(Ty::Option(Box::new(item(t)?))),
            ("Vec", [t]) => Some(Ty::Vec(Box::new(item(t)?))),
            ("Result", [t, e]) => Some(Ty::Result(Box::new(item(t)?), Box::new(item(e)?))),
            _ => None,
        };
    }
    match shown {
        "String" => Some(Ty::String),
        // Std values the pool builds from a string (`harness::registry`).
        "std::ffi::OsString" => Some(std_ty("OsString")),
        "std::path::PathBuf" => Some(std_ty("PathBuf")),
        p if PRIM_ORDER.contains(&p) && p != "str" && p != "String" => Some(Ty::Prim(p.into())),
        _ => crate_types
            .iter()
            .map(|(t, _)| t)
            .find(|t| matches!(t, Ty::Adt { path, args } if args.is_empty() && path == shown))
            .cloned(),
    }
}

/// A borrowed item (`&str`, `&[u8]`, `&T`, `&mut T`) of what [`item_ty_in`] reads.
fn borrowed_item(shown: &str, crate_types: &[(Ty, BTreeSet<String>)]) -> Option<Ty> {
    let (mutable, target) = match shown.strip_prefix("&mut ") {
        Some(t) => (true, t),
        None => (false, shown.strip_prefix('&')?),
    };
    let inner = match target {
        "str" if !mutable => Ty::Str,
        // `&[u8]`: a slice of a primitive, viewed from a `Vec` of it.
        _ if !mutable && target.starts_with('[') => {
            let elem = item_ty(target.strip_prefix('[')?.strip_suffix(']')?)?;
            if !matches!(elem, Ty::Prim(_)) {
                return None;
            }
            Ty::Slice(Box::new(elem))
        }
        _ => item_ty_in(target, crate_types)?,
    };
    Some(Ty::Ref {
        mutable,
        inner: Box::new(inner),
    })
}

/// How many instantiations of one generic function at most (see
/// [`Candidates::alternatives`]): each is an operation the harness compiles.
pub(crate) const MAX_INSTANCES: usize = 12;

fn prim_value(key: &str) -> bool {
    ORDERED_VALUE.contains(&key) || PRIM_VALUE.contains(&key)
}

/// Primitives in the order a test reads best: small unsigned first, text last.
const PRIM_ORDER: &[&str] = &[
    "u8", "u16", "u32", "u64", "usize", "u128", "i8", "i16", "i32", "i64", "isize", "i128", "f32",
    "f64", "bool", "char", "str", "String",
];

/// What `str` implements of the traits bounds name (a blanket extension trait over
/// `T: ?Sized + ToOwned + ...` is met by it).
const STR_TRAITS: &[&str] = &[
    "ToString",
    "Display",
    "Debug",
    "ToOwned",
    "PartialEq",
    "Eq",
    "PartialOrd",
    "Ord",
    "Hash",
];

/// The type of a name in `PRIM_ORDER`.
fn prim_ty(name: String) -> Ty {
    match name.as_str() {
        "str" => Ty::Str,
        "String" => Ty::String,
        _ => Ty::Prim(name),
    }
}

/// The std traits of a primitive's kind: every integer has the integer candidates' shared
/// traits, floats the `f64` candidate's, others the core value traits.
fn primitive_satisfies(ty: &Ty, key: &str) -> bool {
    let name = match ty {
        Ty::Prim(name) => name.as_str(),
        Ty::String => "String",
        Ty::Str => return STR_TRAITS.contains(&key),
        _ => return false,
    };
    if let Some(c) = STD_CANDIDATES.iter().find(|c| c.name == name) {
        return std_satisfies(c, key);
    }
    match name {
        "f32" => STD_CANDIDATES
            .iter()
            .any(|c| c.name == "f64" && std_satisfies(c, key)),
        "bool" | "char" => prim_value(key),
        _ => prim_value(key) || INT_OPS.contains(&key),
    }
}

fn satisfies_crate(traits: &BTreeSet<String>, key: &str) -> bool {
    traits.contains(key)
        || (key == "ToString" && traits.contains("Display"))
        || (key == "PartialEq" && traits.contains("Eq"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn conversions_into_a_crate_type_get_a_string_it_parses_or_the_type_itself() {
        let uri = Ty::Adt {
            path: "http::Uri".into(),
            args: Vec::new(),
        };
        let name = Ty::Adt {
            path: "http::HeaderName".into(),
            args: Vec::new(),
        };
        let set = |l: &[&str]| {
            l.iter()
                .map(|s| s.to_string())
                .collect::<BTreeSet<String>>()
        };
        let c = Candidates::new(vec![
            (uri.clone(), set(&["TryFrom<String>", "Debug", "Clone"])),
            (name.clone(), set(&["TryFrom<String>", "Hash", "Debug"])),
        ]);
        assert_eq!(c.choose(&keys(&["TryInto<http::Uri>"])), Some(Ty::String));
        // `HeaderName` converts from a `String` only fallibly: `Into` gets the type itself.
        assert_eq!(
            c.choose(&keys(&["Hash", "Into<http::HeaderName>"])),
            Some(name)
        );
        assert_eq!(c.choose(&keys(&["TryInto<Missing>"])), None);
    }

    #[test]
    fn slice_index_bounds_get_a_usize() {
        let c = Candidates::default();
        assert_eq!(
            c.choose(&keys(&["SliceIndex<[i32]>"])),
            Some(Ty::Prim("usize".into()))
        );
        // Not for `str`, which a `usize` does not index.
        assert_ne!(
            c.choose(&keys(&["SliceIndex<str>"])),
            Some(Ty::Prim("usize".into()))
        );
    }

    #[test]
    fn lookup_bounds_get_the_key_type_itself() {
        let c = Candidates::default();
        assert_eq!(
            c.choose(&keys(&["Hash", "Equivalent<i32>"])),
            Some(Ty::Prim("i32".into()))
        );
        assert_eq!(
            c.choose(&keys(&["Ord", "Comparable<String>"])),
            Some(Ty::String)
        );
        // A key type that does not meet the other bounds is no stand-in.
        assert_eq!(c.choose(&keys(&["Hash", "Equivalent<f64>"])), None);
    }

    #[test]
    fn unbounded_and_numeric_bounds_pick_i32() {
        let c = Candidates::default();
        assert_eq!(c.choose(&[]), Some(Ty::Prim("i32".into())));
        assert_eq!(
            c.choose(&keys(&["Copy", "Ord", "Sized"])),
            Some(Ty::Prim("i32".into()))
        );
    }

    #[test]
    fn a_bound_met_by_several_crate_types_or_primitives_is_instantiated_with_each() {
        let adt = |p: &str| Ty::Adt {
            path: p.into(),
            args: vec![],
        };
        let order = BTreeSet::from(["ByteOrder".to_string()]);
        let c = Candidates::new(vec![
            (adt("bo::BigEndian"), order.clone()),
            (adt("bo::Other"), BTreeSet::new()),
            (adt("bo::LittleEndian"), order),
        ]);
        assert_eq!(
            c.alternatives(&keys(&["ByteOrder"])),
            vec![adt("bo::BigEndian"), adt("bo::LittleEndian")]
        );
        let int = BTreeSet::from(["Integer".to_string()]);
        let c = Candidates::default()
            .with_primitives([("u64".to_string(), int.clone()), ("u8".to_string(), int)].into());
        assert_eq!(
            c.alternatives(&keys(&["Integer"])),
            vec![Ty::Prim("u8".into()), Ty::Prim("u64".into())]
        );
        // Std stand-ins are one choice.
        assert_eq!(c.alternatives(&keys(&["Display"])), vec![Ty::String]);
    }

    /// An error bound gets an `io::Error`, then the crate's own error types.
    #[test]
    fn error_bounds_get_an_io_error_then_the_crate_errors() {
        let adt = |p: &str| Ty::Adt {
            path: p.into(),
            args: vec![],
        };
        let io_error = std_ty("io::Error");
        let error = BTreeSet::from(["Error".to_string(), "Debug".to_string()]);
        let c = Candidates::new(vec![
            (adt("k::ParseError"), error.clone()),
            (adt("k::Note"), BTreeSet::from(["StdError".to_string()])),
            (adt("k::IoWrap"), error),
        ]);
        assert_eq!(
            c.alternatives(&keys(&["Error", "Send", "Sync"])),
            vec![io_error.clone(), adt("k::ParseError"), adt("k::IoWrap")]
        );
        let none = Candidates::new(vec![(adt("k::Note"), BTreeSet::from(["StdError".into()]))]);
        assert_eq!(none.alternatives(&keys(&["Error"])), vec![io_error]);
        assert_eq!(none.choose(&keys(&["StdError"])), Some(adt("k::Note")));
    }

    #[test]
    fn path_bounds_pick_a_path_buf_and_never_a_string() {
        let c = Candidates::default();
        let path_buf = std_ty("PathBuf");
        for bound in ["AsRef<std::path::PathBuf>", "Into<std::path::PathBuf>"] {
            assert_eq!(c.choose(&keys(&[bound])), Some(path_buf.clone()), "{bound}");
        }
        // A `String` would be a path the search spells (`"/"`): no candidate instead.
        assert_eq!(
            c.choose(&keys(&["AsRef<std::path::PathBuf>", "Display"])),
            None
        );
    }

    #[test]
    fn hasher_bounds_get_a_hasher_with_fixed_keys() {
        let c = Candidates::default();
        let hasher = crate::harness::std_values::build_hasher_default();
        assert_eq!(c.choose(&keys(&["BuildHasher"])), Some(hasher.clone()));
        assert_eq!(
            c.choose(&keys(&["BuildHasher", "Default", "Clone"])),
            Some(hasher)
        );
        // Bounds an integer meets still get one.
        assert_eq!(
            c.choose(&keys(&["Default", "Clone"])),
            c.choose(&keys(&["Default", "Clone", "Copy"]))
        );
    }

    #[test]
    fn conversions_pick_their_target() {
        let c = Candidates::default();
        assert_eq!(c.choose(&keys(&["AsRef<str>"])), Some(Ty::String));
        assert_eq!(c.choose(&keys(&["Display"])), Some(Ty::String));
        assert_eq!(
            c.choose(&keys(&["Into<f64>"])),
            Some(Ty::Prim("f64".into()))
        );
        assert_eq!(c.choose(&keys(&["AsRef<[u8]>"])), Some(std_ty("Vec<u8>")));
        assert_eq!(c.choose(&keys(&["Into<Cow<str>>"])), Some(Ty::String));
        assert_eq!(
            c.choose(&keys(&["Into<Cow<[u8]>>"])),
            Some(std_ty("Vec<u8>"))
        );
        assert_eq!(
            c.choose(&keys(&["Display", "Copy"])),
            Some(Ty::Prim("i32".into()))
        );
    }

    #[test]
    fn rng_bounds_get_step_rng_only_from_a_rand_dependency() {
        let rng = keys(&["Rng"]);
        assert_eq!(Candidates::default().choose(&rng), None);
        let deps = |v: &str| [("rand".to_string(), v.to_string())].into();
        let step = Ty::Adt {
            path: "rand::rngs::mock::StepRng".into(),
            args: vec![],
        };
        let with = |v: &str| Candidates::default().with_dependencies(&deps(v));
        assert_eq!(with("0.8").choose(&keys(&["Rng"])), Some(step.clone()));
        assert_eq!(with("^0.7.3").choose(&keys(&["RngCore"])), Some(step));
        assert_eq!(with("0.10").choose(&keys(&["Rng"])), None);
    }

    #[test]
    fn crate_traits_on_primitives_make_them_candidates() {
        let width = BTreeSet::from(["Width".to_string(), "Sealed".to_string()]);
        let prims = [
            ("u32".to_string(), width.clone()),
            ("u8".to_string(), width),
        ]
        .into();
        let c = Candidates::default().with_primitives(prims);
        assert_eq!(c.choose(&keys(&["Width"])), Some(Ty::Prim("u8".into())));
        assert_eq!(
            c.choose(&keys(&["Width", "Copy", "Shl"])),
            Some(Ty::Prim("u8".into()))
        );
        assert_eq!(c.choose(&keys(&["Width", "Neg"])), None);
        assert_eq!(Candidates::default().choose(&keys(&["Width"])), None);
    }

    /// `I::IntoIter` and `I::Item` of the stand-ins: `peek_nth(iterable: I) -> PeekNth<I::IntoIter>`
    /// with `I = Vec<i32>` gives `PeekNth<vec::IntoIter<i32>>`, what its methods' impl gets.
    #[test]
    fn the_stand_ins_associated_types_are_their_items_and_iterators() {
        let c = Candidates::default();
        let int = Ty::Prim("i32".into());
        let into_iter = Ty::Adt {
            path: STD_VEC_INTO_ITER.into(),
            args: vec![int.clone()],
        };
        let vec = Ty::Vec(Box::new(int.clone()));
        assert_eq!(c.associated_type(&vec, "IntoIter"), Some(into_iter.clone()));
        assert_eq!(c.associated_type(&vec, "Item"), Some(int.clone()));
        assert_eq!(
            c.associated_type(&into_iter, "IntoIter"),
            Some(into_iter.clone())
        );
        assert_eq!(c.associated_type(&into_iter, "Item"), Some(int));
        assert_eq!(c.associated_type(&vec, "Output"), None);
    }

    #[test]
    fn iterator_bounds_get_a_vec_into_iter_of_their_item() {
        let into_iter = |t: Ty| Ty::Adt {
            path: "std::vec::IntoIter".into(),
            args: vec![t],
        };
        let c = Candidates::default();
        assert_eq!(
            c.choose(&keys(&["DoubleEndedIterator<Item = char>", "Clone"])),
            Some(into_iter(Ty::Prim("char".into())))
        );
        assert_eq!(
            c.choose(&keys(&["Iterator<Item = String>", "ExactSizeIterator"])),
            Some(into_iter(Ty::String))
        );
        assert_eq!(
            c.choose(&keys(&["Iterator"])),
            Some(into_iter(Ty::Prim("i32".into())))
        );
        assert_eq!(c.choose(&keys(&["Iterator<Item = &str>"])), None);
        // An `IntoIterator` alone may yield borrows: from a `Vec` of views, or a borrowed `Vec`.
        let str_ref = Ty::Ref {
            mutable: false,
            inner: Box::new(Ty::Str),
        };
        assert_eq!(
            c.choose(&keys(&["IntoIterator<Item = &str>"])),
            Some(Ty::Vec(Box::new(str_ref)))
        );
        let bytes = Ty::Ref {
            mutable: false,
            inner: Box::new(Ty::Slice(Box::new(Ty::Prim("u8".into())))),
        };
        assert_eq!(
            c.choose(&keys(&["IntoIterator<Item = &[u8]>"])),
            Some(Ty::Vec(Box::new(bytes)))
        );
        assert_eq!(
            c.choose(&keys(&["IntoIterator<Item = &mut i32>"])),
            Some(Ty::Ref {
                mutable: true,
                inner: Box::new(Ty::Vec(Box::new(Ty::Prim("i32".into()))))
            })
        );
        let comparator = Ty::Adt {
            path: "semver::Comparator".into(),
            args: Vec::new(),
        };
        let with_crate_type = Candidates::new(vec![(comparator.clone(), BTreeSet::new())]);
        assert_eq!(
            with_crate_type.choose(&keys(&["IntoIterator<Item = semver::Comparator>"])),
            Some(into_iter(comparator))
        );
        assert_eq!(c.choose(&keys(&["Iterator<Item = u8>", "Hash"])), None);
        // A bare `IntoIterator` is a `Vec` of what a bare `Iterator` yields.
        assert_eq!(
            c.choose(&keys(&["IntoIterator"])),
            Some(Ty::Vec(Box::new(Ty::Prim("i32".into()))))
        );
        // An item the stand-in cannot hold leaves the bound to the other candidates.
        assert!(c.choose(&keys(&["IntoIterator<Item = T>"])).is_some());
        // Tuples of such items (slab's `FromIterator<(usize, T)>`).
        assert_eq!(
            c.choose(&keys(&["IntoIterator<Item = (usize, i32)>"])),
            Some(Ty::Adt {
                path: "std::vec::IntoIter".into(),
                args: vec![Ty::Tuple(vec![
                    Ty::Prim("usize".into()),
                    Ty::Prim("i32".into())
                ])],
            })
        );

        // Items the pool builds from a string (clap_lex's `Into<OsString>` arguments).
        assert_eq!(
            c.choose(&keys(&["IntoIterator<Item = std::ffi::OsString>"])),
            Some(into_iter(std_ty("OsString")))
        );
    }

    #[test]
    fn os_str_bounds_get_an_os_string() {
        let c = Candidates::default();
        for bound in ["AsRef<std::ffi::OsStr>", "Into<std::ffi::OsString>"] {
            assert_eq!(
                c.choose(&keys(&[bound])),
                Some(std_ty("OsString")),
                "{bound}"
            );
        }
    }

    #[test]
    fn str_is_the_last_resort_behind_crate_types() {
        let color = BTreeSet::from(["DynColor".to_string(), "ToSnake".to_string()]);
        let prims = [("str".to_string(), color)].into();
        let ansi = Ty::Adt {
            path: "k::Ansi".into(),
            args: vec![],
        };
        let c = Candidates::new(vec![(ansi.clone(), BTreeSet::from(["DynColor".into()]))])
            .with_primitives(prims);
        assert_eq!(c.choose(&keys(&["DynColor"])), Some(ansi));
        assert_eq!(c.choose(&keys(&["ToSnake", "ToOwned"])), Some(Ty::Str));
    }

    #[test]
    fn crate_types_come_last_and_unknown_bounds_fail() {
        let shape = Ty::Adt {
            path: "c::Circle".into(),
            args: vec![],
        };
        let c = Candidates::new(vec![(shape.clone(), BTreeSet::from(["Shape".to_string()]))]);
        assert_eq!(c.choose(&keys(&["Shape"])), Some(shape));
        assert_eq!(c.choose(&keys(&["Shape", "Copy"])), None);
        assert_eq!(c.choose(&keys(&["serde::Serializer"])), None);
    }
}
