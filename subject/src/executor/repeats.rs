//! Results of tests run before, by the exact bytes of their request. About half the tests a
//! search breeds repeat one it ran already (a parent that crossover and mutation left as it
//! was), and the harness answers a repeated request as it did the first time: code under test
//! runs with the same inputs, fuel and limits. A repeat is answered from here instead of
//! running again. Only outcomes the harness reported are kept; a wall-clock timeout or a
//! crash depends on the machine, so such a test runs again.

use std::collections::HashMap;

use frugal_search::ExecResult;

/// Entries kept in each of the two generations of the store. At a few kilobytes per result,
/// the store stays within tens of megabytes however long the search runs.
const GENERATION: usize = 4096;

/// A store with two generations: entries found in the older one move to the newer, and when
/// the newer is full the older is dropped; what was used recently survives.
#[derive(Default)]
pub(super) struct Repeats {
    recent: HashMap<Vec<u8>, ExecResult>,
    older: HashMap<Vec<u8>, ExecResult>,
}

impl Repeats {
    /// The result of an earlier run of exactly this request.
    pub(super) fn get(&mut self, request: &[u8]) -> Option<ExecResult> {
        if let Some(r) = self.recent.get(request) {
            return Some(r.clone());
        }
        let (key, r) = self.older.remove_entry(request)?;
        self.put(key, r.clone());
        Some(r)
    }

    pub(super) fn put(&mut self, request: Vec<u8>, result: ExecResult) {
        if self.recent.len() >= GENERATION {
            self.older = std::mem::take(&mut self.recent);
        }
        self.recent.insert(request, result);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frugal_search::{Counters, Status};

    fn result(completed: usize) -> ExecResult {
        ExecResult {
            status: Status::Completed,
            completed,
            goals: vec![(0, 0.0)],
            summaries: vec![],
            counters: Counters::default(),
        }
    }

    #[test]
    fn a_request_seen_recently_is_answered_and_an_old_one_is_forgotten() {
        let mut store = Repeats::default();
        store.put(vec![1], result(1));
        assert_eq!(store.get(&[1]).map(|r| r.completed), Some(1));
        assert!(store.get(&[2]).is_none());
        // Two generations later, an entry never asked for again is gone; one asked for in
        // between moved to the newer generation and stays.
        for k in 0..GENERATION as u32 {
            store.put(k.to_le_bytes().to_vec(), result(2));
        }
        assert!(store.get(&[1]).is_some(), "moved to the newer generation");
        for k in 0..GENERATION as u32 {
            store.put((k + 1_000_000).to_le_bytes().to_vec(), result(3));
        }
        assert!(store.get(&[1]).is_some(), "asked for again, so kept");
        assert!(
            store.get(&0u32.to_le_bytes()).is_none(),
            "never asked for again"
        );
    }
}
