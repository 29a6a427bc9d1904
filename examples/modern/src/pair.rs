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
