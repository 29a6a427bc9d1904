//! Generic types built the way `either` and `indexmap` are: a generic enum whose values are
//! its variants (`Side::Left(x)` says nothing of the other side's type), and a generic
//! container whose only constructor names none of its parameters (`Ledger::new()`).

/// One of two values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side<L, R> {
    Left(L),
    Right(R),
}

impl<L: PartialOrd + Copy, R: PartialOrd + Copy> Side<L, R> {
    /// `true` for a left value above `limit`, or a right value below it.
    pub fn beyond(&self, left_limit: L, right_limit: R) -> bool {
        match *self {
            Side::Left(l) => l > left_limit,
            Side::Right(r) => r < right_limit,
        }
    }

    /// The other side, with its value.
    pub fn flip(self) -> Side<R, L> {
        match self {
            Side::Left(l) => Side::Right(l),
            Side::Right(r) => Side::Left(r),
        }
    }
}

/// Sides hash by their value alone, as key types that compare in their own way do (mime's
/// `Mime`, unicase's `UniCase`): a hand-written `hash`, which takes a `Hasher` no callable
/// is given.
impl<L: core::hash::Hash, R: core::hash::Hash> core::hash::Hash for Side<L, R> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        match self {
            Side::Left(l) => l.hash(state),
            Side::Right(r) => r.hash(state),
        }
    }
}

/// A side shows its value with an arrow pointing at it; an impl of a generic type, whose
/// instantiation the harness formats.
impl<L: core::fmt::Display, R: core::fmt::Display> core::fmt::Display for Side<L, R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Side::Left(l) => write!(f, "<- {l}"),
            Side::Right(r) => write!(f, "{r} ->"),
        }
    }
}

/// Entries kept in insertion order, each with a count.
#[derive(Debug, Clone, Default)]
pub struct Ledger<K, V> {
    entries: Vec<(K, V)>,
}

impl<K: PartialEq, V: Copy + core::ops::AddAssign> Ledger<K, V> {
    pub fn new() -> Self {
        Ledger {
            entries: Vec::new(),
        }
    }

    /// Adds `v` to `k`'s entry; `true` when `k` is new.
    pub fn add(&mut self, k: K, v: V) -> bool {
        match self.entries.iter_mut().find(|(key, _)| *key == k) {
            Some((_, total)) => {
                *total += v;
                false
            }
            None => {
                self.entries.push((k, v));
                true
            }
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A tag that equals text regardless of case, as mime's `Mime` and `Name` do: through
/// `PartialEq<&str>`, whose `eq` takes a `&&str`.
#[derive(Debug, Clone)]
pub struct Tag(pub String);

impl PartialEq<&str> for Tag {
    fn eq(&self, other: &&str) -> bool {
        self.0.eq_ignore_ascii_case(other)
    }
}

/// The tag's text, as mime's `Mime` and unicase's `UniCase` give theirs.
impl AsRef<str> for Tag {
    fn as_ref(&self) -> &str {
        &self.0
    }
}
