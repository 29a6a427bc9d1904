//! Minimisation: drop statements that do not change what a test covers, then drop tests whose
//! goals other tests already cover.

use std::collections::BTreeSet;

use frugal_search::{Archive, Builder, ExecResult, Executor, Status, TestCase};
use rand::SeedableRng;

/// A test with the goals it must keep covering.
#[derive(Debug, Clone)]
pub struct Kept {
    pub test: TestCase,
    pub result: ExecResult,
    pub goals: BTreeSet<u32>,
}

/// Minimises every archived test against the goals it is archived for, then keeps a small
/// subset covering the same goals (greedy set cover, largest first).
pub fn minimise(archive: &Archive, builder: &Builder<'_>, exec: &mut dyn Executor) -> Vec<Kept> {
    let mut kept: Vec<Kept> = Vec::new();
    for e in archive.tests() {
        let goals: BTreeSet<u32> = archive.covered().filter(|&g| e.result.covers(g)).collect();
        let mut test = e.test.clone();
        // Statements after a panic never ran.
        if matches!(e.result.status, Status::Panicked { .. }) {
            test.stmts.truncate(e.result.completed + 1);
        }
        kept.push(Kept {
            test,
            result: e.result.clone(),
            goals,
        });
    }
    shrink_all(&mut kept, builder, exec);
    cover(kept)
}

/// Tries removing one statement per test per round, from the end, all tests in one batch.
fn shrink_all(kept: &mut [Kept], builder: &Builder<'_>, exec: &mut dyn Executor) {
    let mut cursor: Vec<usize> = kept.iter().map(|k| k.test.len()).collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    loop {
        let mut who = Vec::new();
        let mut candidates = Vec::new();
        for (i, k) in kept.iter().enumerate() {
            if cursor[i] == 0 {
                continue;
            }
            cursor[i] -= 1;
            let mut c = k.test.clone();
            c.remove(cursor[i]);
            builder.repair(&mut c, &mut rng);
            if c.len() < k.test.len() && !c.is_empty() {
                who.push(i);
                candidates.push(c);
            }
        }
        if candidates.is_empty() {
            if cursor.iter().all(|&c| c == 0) {
                return;
            }
            continue;
        }
        let results = exec.execute(&candidates);
        for ((i, c), r) in who.into_iter().zip(candidates).zip(results) {
            let k = &mut kept[i];
            let same_kind =
                std::mem::discriminant(&r.status) == std::mem::discriminant(&k.result.status);
            if same_kind && k.goals.iter().all(|&g| r.covers(g)) {
                // Removing may have dropped dependent statements too; continue from here.
                cursor[i] = cursor[i].min(c.len());
                k.test = c;
                k.result = r;
            }
        }
    }
}

fn cover(mut kept: Vec<Kept>) -> Vec<Kept> {
    kept.sort_by(|a, b| {
        b.goals
            .len()
            .cmp(&a.goals.len())
            .then(a.test.len().cmp(&b.test.len()))
    });
    let mut covered = BTreeSet::new();
    let mut out = Vec::new();
    for k in kept {
        if k.goals.iter().any(|g| !covered.contains(g)) {
            covered.extend(k.result.covered());
            out.push(k);
        }
    }
    out
}
