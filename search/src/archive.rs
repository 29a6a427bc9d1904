//! The archive: the best test found so far for each covered goal. It is the final suite.

use std::collections::BTreeMap;
use std::rc::Rc;

use frugal_proxies::{Proxies, archive_replaces};

use crate::{ExecResult, Status, TestCase};

/// An archived test and what its execution reported.
#[derive(Debug, Clone)]
pub struct Entry {
    pub test: TestCase,
    pub result: ExecResult,
    pub proxies: Proxies,
}

/// Which test keeps a goal when two cover it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ArchivePolicy {
    /// The shorter test (MOSA, DynaMOSA: \[mosa\], \[dynamosa\]).
    #[default]
    Shorter,
    /// The test with the lower performance score, Eq. 1 of \[adynamosa\].
    Cheaper,
}

/// Best test per covered goal. On a tie the incumbent stays, which keeps runs reproducible.
/// A test that wins several goals is stored once and shared by them.
#[derive(Debug, Clone, Default)]
pub struct Archive {
    best: BTreeMap<u32, Rc<Entry>>,
    pub policy: ArchivePolicy,
    /// Goals not archived while searching (smart selection); see [`Archive::include_deferred`].
    ignored: Vec<bool>,
}

impl Archive {
    pub fn new(policy: ArchivePolicy) -> Self {
        Archive {
            best: BTreeMap::new(),
            policy,
            ignored: Vec::new(),
        }
    }

    /// Offers an executed test; returns how many goals it newly covered.
    pub fn update(&mut self, test: &TestCase, result: &ExecResult, proxies: &Proxies) -> usize {
        if !archivable(&result.status) {
            return 0;
        }
        let mut newly = 0;
        let mut shared: Option<Rc<Entry>> = None;
        for g in result.covered() {
            if self.ignored.get(g as usize).copied().unwrap_or(false) {
                continue;
            }
            match self.best.get(&g) {
                None => newly += 1,
                Some(old) if self.prefers(test, proxies, old) => {}
                Some(_) => continue,
            }
            let entry = shared.get_or_insert_with(|| {
                Rc::new(Entry {
                    test: test.clone(),
                    result: result.clone(),
                    proxies: *proxies,
                })
            });
            self.best.insert(g, Rc::clone(entry));
        }
        newly
    }

    /// Stops archiving the goals marked `true`.
    pub fn ignore(&mut self, mask: &[bool]) {
        self.ignored = mask.to_vec();
    }

    /// Archives the deferred goals the archived tests cover, as smart selection prescribes
    /// once the search is over (\[smart-goals\] §3): they count and minimisation keeps them.
    pub fn include_deferred(&mut self) {
        self.ignored.clear();
        let entries: Vec<Entry> = self.tests().into_iter().cloned().collect();
        for e in entries {
            self.update(&e.test, &e.result, &e.proxies);
        }
    }

    fn prefers(&self, test: &TestCase, proxies: &Proxies, old: &Entry) -> bool {
        match self.policy {
            ArchivePolicy::Shorter => test.len() < old.test.len(),
            ArchivePolicy::Cheaper => archive_replaces(proxies, &old.proxies),
        }
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
            if !out
                .iter()
                .any(|o| std::ptr::eq(*o, &**e) || o.test == e.test)
            {
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
