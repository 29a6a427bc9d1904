//! Minimisation: drop statements that do not change what a test covers, keep the cheapest
//! subset of tests that covers every goal, then make the kept tests cheaper
//! ([`super::shrink`]: a loop bound of a million covers the same branches as one of ten, at a
//! fraction of the cost).

use std::collections::BTreeSet;

use frugal_search::{
    Archive, Builder, ExecResult, Executor, INSTRUCTIONS, Schema, Status, TestCase,
};
use rand::SeedableRng;

use super::shrink::{ShrinkLimits, ShrinkReport, shrink};

/// How the archive becomes a suite: the ablation steps of issue 38's comparison, each adding one
/// piece to the one before.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Minimiser {
    /// Greedy set cover by goal count, as other tools ship it: the test covering the most goals
    /// not yet covered first, whatever it costs.
    Plain,
    /// Greedy set cover by goals per estimated instruction.
    Cost,
    /// The cost-weighted cover, then the kept tests' cost shrunk ([`super::shrink`]).
    #[default]
    Shrink,
}

impl Minimiser {
    /// The name on the command line (`plain`, `cost`, `shrink`).
    pub fn name(self) -> &'static str {
        match self {
            Minimiser::Plain => "plain",
            Minimiser::Cost => "cost",
            Minimiser::Shrink => "shrink",
        }
    }
}

impl std::str::FromStr for Minimiser {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "plain" => Ok(Minimiser::Plain),
            "cost" => Ok(Minimiser::Cost),
            "shrink" => Ok(Minimiser::Shrink),
            other => Err(format!(
                "unknown minimiser `{other}`: expected `plain`, `cost` or `shrink`"
            )),
        }
    }
}

/// A test with the goals it must keep covering.
#[derive(Debug, Clone)]
pub struct Kept {
    /// The minimised test.
    pub test: TestCase,
    /// Its execution's result.
    pub result: ExecResult,
    /// Search goal ids it must keep covering.
    pub goals: BTreeSet<u32>,
    /// The mutants it kills (strong mutation, `crate::strong`), by search goal id; filled in
    /// after minimisation.
    pub kills: BTreeSet<u32>,
}

/// Minimises every archived test against the goals it is archived for, keeps a small subset
/// covering the same goals (greedy set cover, weighted by cost unless `how` is plain), then
/// with [`Minimiser::Shrink`] shrinks the kept tests' cost within `limits`.
pub fn minimise(
    archive: &Archive,
    builder: &Builder<'_>,
    exec: &mut dyn Executor,
    how: Minimiser,
    limits: ShrinkLimits,
) -> (Vec<Kept>, Option<ShrinkReport>) {
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
            kills: Default::default(),
        });
    }
    shrink_all(&mut kept, builder, exec);
    let mut kept = cover(kept, builder.schema, how != Minimiser::Plain);
    let report = (how == Minimiser::Shrink).then(|| shrink(&mut kept, builder, exec, limits));
    (kept, report)
}

/// The candidate still covers the test's goals and ends the same way.
fn keeps(k: &Kept, r: &ExecResult) -> bool {
    std::mem::discriminant(&r.status) == std::mem::discriminant(&k.result.status)
        && k.goals.iter().all(|&g| r.covers(g))
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
            if keeps(k, &r) {
                // Removing may have dropped dependent statements too; continue from here.
                cursor[i] = cursor[i].min(c.len());
                k.test = c;
                k.result = r;
            }
        }
    }
}

/// Weighted set cover, greedy: repeatedly keep the test with the most not-yet-covered goals per
/// unit of estimated cost, so an expensive test survives only when nothing cheaper covers its
/// goals. The cost is in instructions, each test's fixed cost included ([`INSTRUCTIONS`]):
/// before, the summed proxies left that out and two small tests looked cheaper than one that
/// did both their work, though each test costs libtest about 30 000 instructions to start.
/// Unweighted (`weighted` false), every test costs 1: the plain cover other tools ship.
fn cover(kept: Vec<Kept>, schema: &Schema, weighted: bool) -> Vec<Kept> {
    let cost: Vec<f64> = kept
        .iter()
        .map(|k| match weighted {
            true => INSTRUCTIONS.estimate(&frugal_search::proxies(&k.test, &k.result, schema)),
            false => 1.0,
        })
        .collect();
    let mut covered = BTreeSet::new();
    let mut taken = vec![false; kept.len()];
    let mut order = Vec::new();
    loop {
        let best = (0..kept.len())
            .filter(|&i| !taken[i])
            .map(|i| {
                (
                    i,
                    kept[i]
                        .goals
                        .iter()
                        .filter(|g| !covered.contains(*g))
                        .count(),
                )
            })
            .filter(|&(_, new)| new > 0)
            .max_by(|&(a, na), &(b, nb)| {
                let (ra, rb) = (na as f64 / cost[a], nb as f64 / cost[b]);
                // Ties go to the earlier test, which keeps the result reproducible.
                ra.total_cmp(&rb).then(b.cmp(&a))
            });
        let Some((i, _)) = best else { break };
        taken[i] = true;
        covered.extend(kept[i].result.covered());
        order.push(i);
    }
    let mut slots: Vec<Option<Kept>> = kept.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}
