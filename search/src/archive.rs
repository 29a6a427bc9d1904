//! The archive: the best test found so far for each covered goal. It is the final suite.

use std::collections::BTreeMap;
use std::rc::Rc;

use frugal_proxies::{INSTRUCTIONS, Proxies, archive_replaces};

use crate::{ExecResult, Status, TestCase};

/// An archived test and what its execution reported.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The archived test.
    pub test: TestCase,
    /// What its execution reported when it was archived.
    pub result: ExecResult,
    /// Its performance proxies, which [`ArchivePolicy::Cheaper`] and [`ArchivePolicy::Estimated`]
    /// compare.
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
    /// The test with fewer estimated instructions ([`INSTRUCTIONS`]: a fixed cost per test
    /// plus fitted weights per proxy). Eq. 1's `x / (x + 1)` saturates: a test running a loop
    /// ten million times scores about as a test running it ten times, and such tests decided
    /// gamie's suite costs (`bench/ALGORITHMS-REAL.md`).
    Estimated,
}

impl ArchivePolicy {
    /// The name `--archive` takes.
    pub fn name(self) -> &'static str {
        match self {
            ArchivePolicy::Shorter => "shorter",
            ArchivePolicy::Cheaper => "score",
            ArchivePolicy::Estimated => "estimate",
        }
    }
}

impl std::str::FromStr for ArchivePolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "shorter" => Ok(ArchivePolicy::Shorter),
            "score" => Ok(ArchivePolicy::Cheaper),
            "estimate" => Ok(ArchivePolicy::Estimated),
            other => Err(format!(
                "unknown archive rule `{other}`: expected shorter, score or estimate"
            )),
        }
    }
}

/// Best test per covered goal. On a tie the incumbent stays, which keeps runs reproducible.
/// A test that wins several goals is stored once and shared by them.
#[derive(Debug, Clone, Default)]
pub struct Archive {
    best: BTreeMap<u32, Rc<Entry>>,
    /// Which test keeps a goal when a new test covers it too.
    pub policy: ArchivePolicy,
    /// Goals not archived while searching (smart selection); see [`Archive::include_deferred`].
    ignored: Vec<bool>,
}

impl Archive {
    /// An empty archive keeping goals by `policy`.
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
        // One archived test usually holds many of the goals: compare with each once.
        let mut decided: Vec<(*const Entry, bool)> = Vec::new();
        for g in result.covered() {
            if self.ignored.get(g as usize).copied().unwrap_or(false) {
                continue;
            }
            match self.best.get(&g) {
                None => newly += 1,
                Some(old) => {
                    let at = Rc::as_ptr(old);
                    let wins = match decided.iter().find(|(e, _)| *e == at) {
                        Some(&(_, wins)) => wins,
                        None => {
                            let wins = self.prefers(test, proxies, old);
                            decided.push((at, wins));
                            wins
                        }
                    };
                    if !wins {
                        continue;
                    }
                }
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
            ArchivePolicy::Estimated => {
                INSTRUCTIONS.estimate(proxies) < INSTRUCTIONS.estimate(&old.proxies)
            }
        }
    }

    /// Whether some archived test covers `goal`.
    pub fn covers(&self, goal: u32) -> bool {
        self.best.contains_key(&goal)
    }

    /// The covered goals, in increasing order.
    pub fn covered(&self) -> impl Iterator<Item = u32> + '_ {
        self.best.keys().copied()
    }

    /// Number of covered goals (not of distinct tests: see [`Archive::tests`]).
    pub fn len(&self) -> usize {
        self.best.len()
    }

    /// Whether no goal is covered.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Counters, Stmt};

    fn covering(len: usize) -> (TestCase, ExecResult) {
        let stmts = (0..len)
            .map(|_| Stmt {
                op: 0,
                args: Vec::new(),
                value: None,
            })
            .collect();
        let result = ExecResult {
            status: Status::Completed,
            completed: len,
            goals: vec![(0, 0.0)],
            summaries: vec![None; len],
            observed: Vec::new(),
            counters: Counters::default(),
            seen: Vec::new(),
        };
        (TestCase { stmts }, result)
    }

    #[test]
    fn the_estimate_replaces_a_long_loop_that_eq_1_keeps() {
        let (short, r_short) = covering(2);
        let looping = Proxies {
            covered_statements: 10_000_000,
            covered_calls: 1,
            test_calls: 1,
            test_length: 2,
            ..Proxies::default()
        };
        let (long, r_long) = covering(6);
        let busy = Proxies {
            covered_statements: 10,
            covered_calls: 5,
            test_calls: 5,
            test_length: 6,
            ..Proxies::default()
        };
        let kept = |policy| {
            let mut a = Archive::new(policy);
            a.update(&short, &r_short, &looping);
            a.update(&long, &r_long, &busy);
            a.tests()[0].test.len()
        };
        // Eq. 1 sees ten million statements as about one: the looping test stays.
        assert_eq!(kept(ArchivePolicy::Cheaper), 2);
        assert_eq!(kept(ArchivePolicy::Estimated), 6);
        assert_eq!(kept(ArchivePolicy::Shorter), 2);
        assert_eq!("estimate".parse(), Ok(ArchivePolicy::Estimated));
    }
}
