//! A tally generic over its hasher, in the shape of `indexmap::IndexMap<K, V, S>`: the
//! constructor lives in an impl that does not bound `S`, the methods that hash in one that
//! bounds it by `BuildHasher`. A test must build the tally with a hasher those methods accept.
//!
//! [`Buffer::grow`] asks for an allocation whose outcome depends on the memory the process may
//! use, which differs between frugal's search and a plain `cargo test`.

use std::collections::{HashMap, TryReserveError};
use std::hash::{BuildHasher, Hash};

/// How often each key was seen.
pub struct Tally<K, S> {
    counts: HashMap<K, u32, S>,
}

impl<K, S> Tally<K, S> {
    /// An empty tally hashing with `hasher`.
    pub fn with_hasher(hasher: S) -> Self {
        Tally {
            counts: HashMap::with_hasher(hasher),
        }
    }

    /// How many distinct keys were seen.
    pub fn distinct(&self) -> usize {
        self.counts.len()
    }
}

/// How often a key was seen, in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frequency {
    Never,
    Once,
    Few,
    Many,
}

impl<K: Hash + Eq, S: BuildHasher> Tally<K, S> {
    /// Counts `key` once more; how often it has been seen now.
    pub fn add(&mut self, key: K) -> Frequency {
        let n = self.counts.entry(key).or_insert(0);
        *n += 1;
        frequency(*n)
    }

    /// How often `key` was seen.
    pub fn frequency(&self, key: &K) -> Frequency {
        frequency(self.counts.get(key).copied().unwrap_or(0))
    }
}

fn frequency(n: u32) -> Frequency {
    match n {
        0 => Frequency::Never,
        1 => Frequency::Once,
        2..=3 => Frequency::Few,
        _ => Frequency::Many,
    }
}

/// Bytes reserved ahead of use.
#[derive(Debug, Default)]
pub struct Buffer {
    bytes: Vec<u8>,
}

impl Buffer {
    /// An empty buffer.
    pub fn new() -> Self {
        Buffer::default()
    }

    /// Reserves room for `mib` more mebibytes, without touching them.
    pub fn grow(&mut self, mib: u16) -> Result<(), TryReserveError> {
        self.bytes.try_reserve(usize::from(mib) << 20)
    }
}
