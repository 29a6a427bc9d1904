//! The archive: the best test found so far for each covered goal. It is the final suite.

use std::collections::BTreeMap;

use crate::{ExecResult, Status, TestCase};

/// An archived test and what its execution reported.
#[derive(Debug, Clone)]
pub struct Entry {
    pub test: TestCase,
    pub result: ExecResult,
}

/// Best test per covered goal. Among tests covering a goal, the shorter one wins; on equal
/// length the incumbent stays, which keeps runs reproducible.
#[derive(Debug, Clone, Default)]
pub struct Archive {
    best: BTreeMap<u32, Entry>,
}

impl Archive {
    /// Offers an executed test; returns how many goals it newly covered.
    pub fn update(&mut self, test: &TestCase, result: &ExecResult) -> usize {
        if !archivable(&result.status) {
            return 0;
        }
        let mut newly = 0;
        for g in result.covered() {
            match self.best.get(&g) {
                None => newly += 1,
                Some(old) if test.len() < old.test.len() => {}
                Some(_) => continue,
            }
            self.best.insert(
                g,
                Entry {
                    test: test.clone(),
                    result: result.clone(),
                },
            );
        }
        newly
    }

    pub fn covers(&self, goal: u32) -> bool {
        self.best.contains_key(&goal)
    }

    pub fn covered(&self) -> impl Iterator<Item = u32> + '_ {
        self.best.keys().copied()
    }

    pub fn len(&self) -> usize {
        self.best.len()
    }

    pub fn is_empty(&self) -> bool {
        self.best.is_empty()
    }

    /// The distinct archived tests, in goal order of their first goal.
    pub fn tests(&self) -> Vec<&Entry> {
        let mut out: Vec<&Entry> = Vec::new();
        for e in self.best.values() {
            if !out.iter().any(|o| o.test == e.test) {
                out.push(e);
            }
        }
        out
    }
}

/// Crashes and timeouts cannot go into a suite: they would take the test binary down.
fn archivable(s: &Status) -> bool {
    matches!(s, Status::Completed | Status::Panicked { .. })
}
