//! Tests that call private items of two sibling modules have no module to live in
//! ([`TestHome::Conflict`]): `color`'s and `flags::blocks`' private items are named together
//! nowhere. Such a test is split into parts. A part is the statements one call needs (the call
//! and what builds its arguments), merged with the other calls whose homes nest with it; each
//! part runs again, so the goals it keeps are the ones it covers. Before, the whole test was
//! dropped, and with it every goal only it covered.

use std::collections::BTreeSet;

use frugal_search::{Executor, Stmt, TestCase};

use super::home::{self, TestHome};
use super::minimise::Kept;
use crate::harness::registry::Registry;
use crate::model::{ApiModel, Home};

/// `kept` with each test that has no home replaced by its parts that cover some of its goals.
pub fn split_conflicts(
    kept: Vec<Kept>,
    reg: &Registry,
    model: &ApiModel,
    exec: &mut dyn Executor,
) -> Vec<Kept> {
    if model.homes.is_empty() {
        return kept;
    }
    let mut out = Vec::with_capacity(kept.len());
    for k in kept {
        match home_of(&k.test, &k.result, reg, model) {
            TestHome::Conflict(..) => out.extend(split(&k, reg, model, exec)),
            _ => out.push(k),
        }
    }
    out
}

fn home_of(
    test: &TestCase,
    result: &frugal_search::ExecResult,
    reg: &Registry,
    model: &ApiModel,
) -> TestHome {
    super::rendered(test, result, reg, model, &mut BTreeSet::new()).home
}

/// The parts of `k` that have a home and cover at least one of its goals.
fn split(k: &Kept, reg: &Registry, model: &ApiModel, exec: &mut dyn Executor) -> Vec<Kept> {
    let needs = closures(&k.test.stmts);
    let roots: Vec<&BTreeSet<usize>> = roots(&k.test.stmts)
        .into_iter()
        .map(|r| &needs[r])
        .collect();
    let alone: Vec<TestCase> = roots.iter().map(|set| part(&k.test, set)).collect();
    let results = exec.execute(&alone);
    let mut parts: Vec<(BTreeSet<usize>, Option<Home>)> = Vec::new();
    for ((set, test), result) in roots.into_iter().zip(&alone).zip(&results) {
        let home = match home_of(test, result, reg, model) {
            TestHome::Root => None,
            TestHome::Module(h) => Some(h),
            TestHome::Conflict(..) => continue,
        };
        match parts
            .iter_mut()
            .find(|(_, h)| nests(h.as_ref(), home.as_ref()))
        {
            Some((merged, h)) => {
                merged.extend(set.iter().copied());
                *h = deeper(h.take(), home);
            }
            None => parts.push((set.clone(), home)),
        }
    }
    let tests: Vec<TestCase> = parts.iter().map(|(set, _)| part(&k.test, set)).collect();
    let results = exec.execute(&tests);
    let mut taken = BTreeSet::new();
    let mut out = Vec::new();
    for (test, result) in tests.into_iter().zip(results) {
        let goals: BTreeSet<u32> = k
            .goals
            .iter()
            .copied()
            .filter(|&g| result.covers(g) && !taken.contains(&g))
            .collect();
        let placeable = !matches!(home_of(&test, &result, reg, model), TestHome::Conflict(..));
        if goals.is_empty() || !placeable {
            continue;
        }
        taken.extend(goals.iter().copied());
        out.push(Kept {
            test,
            result,
            goals,
            kills: Default::default(),
        });
    }
    out
}

/// For each statement, itself and every statement its arguments come from.
fn closures(stmts: &[Stmt]) -> Vec<BTreeSet<usize>> {
    let mut needs: Vec<BTreeSet<usize>> = Vec::with_capacity(stmts.len());
    for (i, s) in stmts.iter().enumerate() {
        let mut set = BTreeSet::from([i]);
        for &a in &s.args {
            if let Some(earlier) = needs.get(a as usize) {
                set.extend(earlier.iter().copied());
            }
        }
        needs.push(set);
    }
    needs
}

/// Statements no later statement takes as an argument: the ends of the test's chains.
fn roots(stmts: &[Stmt]) -> Vec<usize> {
    let used: BTreeSet<usize> = stmts
        .iter()
        .flat_map(|s| s.args.iter().map(|&a| a as usize))
        .collect();
    (0..stmts.len()).filter(|i| !used.contains(i)).collect()
}

/// The statements `set` of `test`, in order, their arguments renumbered.
fn part(test: &TestCase, set: &BTreeSet<usize>) -> TestCase {
    let index: Vec<usize> = set.iter().copied().collect();
    let renumber = |a: u32| index.binary_search(&(a as usize)).map_or(a, |i| i as u32);
    TestCase {
        stmts: index
            .iter()
            .map(|&i| {
                let s = &test.stmts[i];
                Stmt {
                    op: s.op,
                    args: s.args.iter().map(|&a| renumber(a)).collect(),
                    value: s.value.clone(),
                }
            })
            .collect(),
    }
}

/// Whether a test for one home can hold a test for the other (the crate root holds none).
fn nests(a: Option<&Home>, b: Option<&Home>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => {
            home::encloses(&a.module, &b.module) || home::encloses(&b.module, &a.module)
        }
        _ => true,
    }
}

/// The inner of two nesting homes.
fn deeper(a: Option<Home>, b: Option<Home>) -> Option<Home> {
    match (a, b) {
        (Some(a), Some(b)) if home::encloses(&a.module, &b.module) => Some(b),
        (Some(a), _) => Some(a),
        (None, b) => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_is_a_call_with_what_builds_its_arguments_renumbered() {
        // 0: a value; 1: f(0); 2: another value; 3: g(2); 4: h(1, 0)
        let stmts = vec![
            Stmt::call(0, &[]),
            Stmt::call(1, &[0]),
            Stmt::call(2, &[]),
            Stmt::call(3, &[2]),
            Stmt::call(4, &[1, 0]),
        ];
        assert_eq!(roots(&stmts), [3, 4]);
        let needs = closures(&stmts);
        assert_eq!(needs[4], BTreeSet::from([0, 1, 4]));
        let test = TestCase { stmts };
        let p = part(&test, &needs[3]);
        assert_eq!(p.stmts, [Stmt::call(2, &[]), Stmt::call(3, &[0])]);
        let p = part(&test, &needs[4]);
        assert_eq!(
            p.stmts,
            [
                Stmt::call(0, &[]),
                Stmt::call(1, &[0]),
                Stmt::call(4, &[1, 0])
            ]
        );
    }

    #[test]
    fn homes_nest_along_a_module_path_only() {
        let h = |m: &str| Home {
            module: m.into(),
            file: format!("src/{m}.rs"),
        };
        assert!(nests(Some(&h("color")), Some(&h("color::theme"))));
        assert!(nests(None, Some(&h("flags"))));
        assert!(!nests(Some(&h("color")), Some(&h("flags::blocks"))));
        assert_eq!(
            deeper(Some(h("color")), Some(h("color::theme"))),
            Some(h("color::theme"))
        );
        assert_eq!(deeper(None, Some(h("flags"))), Some(h("flags")));
    }
}
