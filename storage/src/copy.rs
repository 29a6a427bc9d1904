//! Copying a whole store into another, across backends (`frugald store-migrate`, behind
//! `frugal store migrate`): every tree entry by entry, the job records, and the id sequence,
//! then counts and checksums compared tree by tree.

use serde::Serialize;

use crate::kv::Tree;
use crate::{Result, Store, StoreError, encode};

/// One tree (or the jobs) after a copy: entries and checksum in the source and the target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CopiedTree {
    /// The tree's name (`jobs` for the job records).
    pub name: &'static str,
    /// Entries in the source.
    pub source_count: usize,
    /// Entries in the target after the copy.
    pub target_count: usize,
    /// FNV-1a over the source's keys and values, in key order.
    pub source_checksum: String,
    /// The same over the target's.
    pub target_checksum: String,
}

impl CopiedTree {
    /// Whether target and source agree.
    pub fn matches(&self) -> bool {
        self.source_count == self.target_count && self.source_checksum == self.target_checksum
    }
}

/// FNV-1a 64 over length-prefixed keys and values, and the count.
#[derive(Default)]
struct Sum {
    hash: u64,
    count: usize,
}

impl Sum {
    fn new() -> Sum {
        Sum {
            hash: 0xcbf2_9ce4_8422_2325,
            count: 0,
        }
    }

    fn add(&mut self, k: &[u8], v: &[u8]) {
        for part in [k, v] {
            for b in (part.len() as u64).to_be_bytes().iter().chain(part) {
                self.hash ^= u64::from(*b);
                self.hash = self.hash.wrapping_mul(0x0100_0000_01b3);
            }
        }
        self.count += 1;
    }
}

fn sum_tree(t: &Tree) -> Result<Sum> {
    let mut s = Sum::new();
    for kv in t.iter() {
        let (k, v) = kv?;
        s.add(&k, &v);
    }
    Ok(s)
}

fn sum_jobs(store: &Store) -> Result<Sum> {
    let mut s = Sum::new();
    for j in store.jobs()? {
        s.add(&j.id.0.to_be_bytes(), &encode(&j));
    }
    Ok(s)
}

impl Store {
    /// The trees a copy carries, by name (the job records go separately: their home differs by
    /// backend).
    fn named_trees(&self) -> Vec<(&'static str, &Tree)> {
        vec![
            ("repos", &self.repos),
            ("runs", &self.runs),
            ("suites", &self.suites),
            ("tests", &self.tests),
            ("best", &self.best),
            ("goals", &self.goals),
            ("meta", &self.meta),
            ("replacements", &self.replacements),
            ("job_suites", &self.job_suites),
            ("reports", &self.reports),
            ("runs_by_repo", &self.runs_by_repo),
            ("suites_by_repo", &self.suites_by_repo),
            ("suites_by_crate", &self.suites_by_crate),
            ("tokens", &self.tokens),
        ]
    }

    /// Copies everything this store holds into `target`, which must hold nothing unless
    /// `overwrite` (then entries with the same keys are replaced, others kept). Returns every
    /// tree's counts and checksums on both sides; the caller checks [`CopiedTree::matches`].
    pub fn copy_into(&self, target: &Store, overwrite: bool) -> Result<Vec<CopiedTree>> {
        if !overwrite && !target.is_empty()? {
            return Err(StoreError::Invalid(format!(
                "copy the store into {}: it already holds records; copy into an empty one, or \
                 pass --force to write over it",
                target.path().display()
            )));
        }
        let mut report = Vec::new();
        for ((name, from), (_, to)) in self.named_trees().into_iter().zip(target.named_trees()) {
            for kv in from.iter() {
                let (k, v) = kv?;
                to.insert(&k, &v)?;
            }
            report.push(compare(name, sum_tree(from)?, sum_tree(to)?));
        }
        for j in self.jobs()? {
            target.put_job_unflushed(&j)?;
        }
        report.push(compare("jobs", sum_jobs(self)?, sum_jobs(target)?));
        // Ids the target hands out from now on must not collide with copied ones.
        target.db.ids_above(self.db.generate_id()?)?;
        target.flush()?;
        Ok(report)
    }
}

fn compare(name: &'static str, source: Sum, target: Sum) -> CopiedTree {
    CopiedTree {
        name,
        source_count: source.count,
        target_count: target.count,
        source_checksum: format!("{:016x}", source.hash),
        target_checksum: format!("{:016x}", target.hash),
    }
}
