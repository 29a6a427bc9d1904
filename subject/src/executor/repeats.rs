//! Results of tests run before, by the exact bytes of their statements. About half the tests
//! a search breeds repeat one it ran already (a parent that crossover and mutation left as it
//! was), and many more start with the statements of a test that stopped early (a panic, or
//! fuel run out in an endless loop) and only add statements after that point. The harness
//! answers both as it did the first time: the code under test runs the same statements with
//! the same inputs, fuel and limits, and a test ends where its first statement stops it, so
//! what follows never runs. Such tests are answered from here instead of running again. Only
//! outcomes the harness reported are kept; a wall-clock timeout or a crash depends on the
//! machine, so such a test runs again.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};

use rustc_hash::{FxBuildHasher, FxHasher};

use frugal_search::{ExecResult, Status};

/// Entries kept in each of the two generations of a store. At a few kilobytes per result,
/// the stores stay within tens of megabytes however long the search runs.
const GENERATION: usize = 4096;

/// A test's statements as a run request encodes them, and where each statement ends.
pub(super) struct Encoded<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) ends: &'a [usize],
}

#[derive(Default)]
pub(super) struct Repeats {
    /// Whole tests.
    whole: Generations<Vec<u8>, ExecResult>,
    /// Tests that stopped early, by the hash of their statements up to the one that stopped
    /// them, with those bytes (a hash alone could be shared by another prefix).
    stopped: Generations<u64, (Vec<u8>, ExecResult)>,
}

impl Repeats {
    /// The result a test would have: that of an earlier run of the same statements, or of one
    /// that stopped early within the statements this test starts with.
    pub(super) fn get(&mut self, test: &Encoded<'_>) -> Option<ExecResult> {
        if let Some(r) = self.whole.get(test.bytes) {
            return Some(r);
        }
        for (end, hash) in prefix_hashes(test) {
            let Some((prefix, r)) = self.stopped.get(&hash) else {
                continue;
            };
            if prefix == test.bytes[..end] {
                return Some(r);
            }
        }
        None
    }

    /// Keeps a result the harness reported for `test`.
    pub(super) fn put(&mut self, test: &Encoded<'_>, result: &ExecResult) {
        let stopped = matches!(result.status, Status::Panicked { .. } | Status::Timeout);
        match test.ends.get(result.completed) {
            Some(&end) if stopped => {
                let hash = prefix_hashes(test)
                    .nth(result.completed)
                    .map_or(0, |(_, h)| h);
                let prefix = test.bytes[..end].to_vec();
                self.stopped.put(hash, (prefix, result.clone()));
            }
            _ => self.whole.put(test.bytes.to_vec(), result.clone()),
        }
    }
}

/// Each statement's end in `test.bytes` with the hash of the bytes up to it, in order (one
/// pass over the bytes for all prefixes).
fn prefix_hashes<'a>(test: &'a Encoded<'_>) -> impl Iterator<Item = (usize, u64)> + 'a {
    // A fast, unkeyed hash: keys are the engine's own encodings, and every hit is checked
    // against the bytes.
    let mut hasher: FxHasher = FxBuildHasher.build_hasher();
    let mut from = 0;
    test.ends.iter().map(move |&end| {
        hasher.write(&test.bytes[from..end]);
        from = end;
        (end, hasher.clone().finish())
    })
}

/// A map with two generations: entries found in the older one move to the newer, and when
/// the newer is full the older is dropped; what was used recently survives.
struct Generations<K, V> {
    recent: HashMap<K, V, FxBuildHasher>,
    older: HashMap<K, V, FxBuildHasher>,
}

impl<K, V> Default for Generations<K, V> {
    fn default() -> Self {
        Generations {
            recent: HashMap::default(),
            older: HashMap::default(),
        }
    }
}

impl<K: std::hash::Hash + Eq, V: Clone> Generations<K, V> {
    fn get<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ?Sized,
    {
        if let Some(v) = self.recent.get(key) {
            return Some(v.clone());
        }
        let (k, v) = self.older.remove_entry(key)?;
        self.put(k, v.clone());
        Some(v)
    }

    fn put(&mut self, key: K, value: V) {
        if self.recent.len() >= GENERATION {
            // The dropped generation's table is reused: growing a fresh one rehashes and
            // faults in new pages every time.
            std::mem::swap(&mut self.recent, &mut self.older);
            self.recent.clear();
        }
        self.recent.insert(key, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frugal_search::Counters;

    fn result(status: Status, completed: usize) -> ExecResult {
        ExecResult {
            status,
            completed,
            goals: vec![(0, 0.0)],
            summaries: vec![],
            observed: Vec::new(),
            counters: Counters::default(),
            seen: Vec::new(),
        }
    }

    /// Statements of one byte each.
    fn test(bytes: &[u8]) -> (Vec<u8>, Vec<usize>) {
        (bytes.to_vec(), (1..=bytes.len()).collect())
    }

    fn get(store: &mut Repeats, bytes: &[u8]) -> Option<ExecResult> {
        let (bytes, ends) = test(bytes);
        store.get(&Encoded {
            bytes: &bytes,
            ends: &ends,
        })
    }

    fn put(store: &mut Repeats, bytes: &[u8], r: ExecResult) {
        let (bytes, ends) = test(bytes);
        let t = Encoded {
            bytes: &bytes,
            ends: &ends,
        };
        store.put(&t, &r);
    }

    #[test]
    fn a_whole_test_is_answered_only_for_the_same_statements() {
        let mut store = Repeats::default();
        put(&mut store, &[1, 2], result(Status::Completed, 2));
        assert_eq!(get(&mut store, &[1, 2]).map(|r| r.completed), Some(2));
        assert!(
            get(&mut store, &[1, 2, 3]).is_none(),
            "a completed test's prefix"
        );
        assert!(get(&mut store, &[1]).is_none());
    }

    #[test]
    fn a_test_that_stopped_answers_every_test_starting_with_its_statements_up_to_the_stop() {
        let mut store = Repeats::default();
        // Stopped in its second statement: the third never ran.
        put(&mut store, &[1, 2, 3], result(Status::Timeout, 1));
        for longer in [&[1, 2][..], &[1, 2, 3], &[1, 2, 9, 9]] {
            let r = get(&mut store, longer);
            assert_eq!(r.map(|r| r.completed), Some(1), "{longer:?}");
        }
        assert!(
            get(&mut store, &[1]).is_none(),
            "stops before the stopping statement"
        );
        assert!(get(&mut store, &[1, 3]).is_none());
    }

    #[test]
    fn what_is_not_asked_for_again_is_forgotten() {
        let mut store = Repeats::default();
        put(&mut store, &[1], result(Status::Completed, 1));
        for k in 0..GENERATION as u32 {
            put(&mut store, &k.to_le_bytes(), result(Status::Completed, 1));
        }
        assert!(
            get(&mut store, &[1]).is_some(),
            "moved to the newer generation"
        );
        for k in 0..GENERATION as u32 {
            put(
                &mut store,
                &(k + (1 << 20)).to_le_bytes(),
                result(Status::Completed, 1),
            );
        }
        assert!(get(&mut store, &[1]).is_some(), "asked for again, so kept");
        assert!(
            get(&mut store, &0u32.to_le_bytes()).is_none(),
            "never asked for again"
        );
    }
}
