//! The search loop's own cost, without a harness: a whole aDynaMOSA search (breeding, repair,
//! archive updates, preference sorting, selection) over a synthetic subject evaluated in
//! process, so that what is measured is the search side that bounds executions per second
//! (`bench/THROUGHPUT.md`). The subject: `K` functions `f_k(a: i64, b: i64)`, each a chain of
//! `DEPTH` nested conditions `a > T_kj`, the last one an equality on a hash of `a` and `b`
//! (goals: entry, then a true and a false branch per level, each level under the previous
//! true branch), and `add(a, b) -> i64` for data flow.
//! Distances are the conditions' gaps, normalised as the probes do.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use frugal_search::{
    AlgorithmKind, Budget, Counters, ExecResult, Executor, GoalKind, Goals, OpInfo, OpKind, Pass,
    Schema, SearchParams, Status, StopReason, TestCase, TypeInfo, Value, ValueKind, run_search,
};

/// Functions under test.
const K: u32 = 12;
/// Nested conditions per function.
const DEPTH: u32 = 8;
/// Goals per function: its entry, then a true and a false goal per level.
const PER_FN: u32 = 1 + 2 * DEPTH;
/// Operation ids: the literal, `add`, then the functions.
const LITERAL: u32 = 0;
const ADD: u32 = 1;

fn schema() -> Schema {
    let int = |name: &str, kind, params: Vec<(u32, Pass)>, ret| OpInfo {
        name: name.into(),
        kind,
        params,
        ret,
        variadic: false,
    };
    let mut ops = vec![
        int("i64", OpKind::Literal, vec![], Some(0)),
        int(
            "add",
            OpKind::Call,
            vec![(0, Pass::Move), (0, Pass::Move)],
            Some(0),
        ),
    ];
    for k in 0..K {
        let params = vec![(0, Pass::Move), (0, Pass::Move)];
        ops.push(int(&format!("f{k}"), OpKind::Call, params, None));
    }
    let types = vec![TypeInfo {
        name: "i64".into(),
        literal: Some(ValueKind::Int {
            min: -1_000_000,
            max: 1_000_000,
        }),
        copy: true,
    }];
    Schema::new(types, ops, Default::default())
}

fn goals() -> Goals {
    let mut kinds = Vec::new();
    let mut parents = Vec::new();
    for k in 0..K {
        let entry = k * PER_FN;
        kinds.push(GoalKind::Function);
        parents.push(None);
        for j in 0..DEPTH {
            // Level j is reached when level j - 1 was true (level 0: on entry).
            let parent = if j == 0 { entry } else { entry + 2 * j - 1 };
            kinds.extend([GoalKind::Branch, GoalKind::Branch]);
            parents.extend([Some(parent), Some(parent)]);
        }
    }
    Goals::new(kinds, parents)
}

/// Threshold of level `j` of function `k`: rising, so each level asks for a larger `a`.
fn threshold(k: u32, j: u32) -> f64 {
    (j as f64 + 1.0) * 1_000.0 * (1.0 + k as f64 / 4.0)
}

fn norm(d: f64) -> f64 {
    d / (d + 1.0)
}

/// Runs tests in process: the subject above, one result per test.
struct Synthetic;

impl Executor for Synthetic {
    fn execute(&mut self, tests: &[TestCase]) -> Vec<ExecResult> {
        tests.iter().map(run).collect()
    }
}

fn run(t: &TestCase) -> ExecResult {
    let mut best = vec![f64::MAX; (K * PER_FN) as usize];
    let mut values: Vec<f64> = Vec::with_capacity(t.len());
    let arg = |values: &[f64], a: u32| values.get(a as usize).copied().unwrap_or(0.0);
    for s in &t.stmts {
        let v = match (s.op, &s.value) {
            (LITERAL, Some(Value::Int(i))) => *i as f64,
            (ADD, _) => arg(&values, s.args[0]) + arg(&values, s.args[1]),
            (op, _) if op >= 2 => {
                let entry = (op - 2) * PER_FN;
                let a = arg(&values, s.args[0]) + arg(&values, s.args[1]) / 2.0;
                best[entry as usize] = 0.0;
                let b = arg(&values, s.args[1]);
                for j in 0..DEPTH {
                    // The last level asks for a hash of both arguments, which no gradient leads
                    // to: the search keeps working for the whole budget.
                    let gap = if j + 1 == DEPTH {
                        let h = (a as i64).wrapping_mul(7919).wrapping_add(b as i64);
                        1.0 - (h.rem_euclid(10_007) - 1_234).abs() as f64
                    } else {
                        a - threshold(op - 2, j)
                    };
                    let (dt, df) = if gap > 0.0 {
                        (0.0, gap)
                    } else {
                        (1.0 - gap, 0.0)
                    };
                    let at = (entry + 1 + 2 * j) as usize;
                    best[at] = best[at].min(norm(dt));
                    best[at + 1] = best[at + 1].min(norm(df));
                    if gap <= 0.0 {
                        break;
                    }
                }
                0.0
            }
            _ => 0.0,
        };
        values.push(v);
    }
    ExecResult {
        status: Status::Completed,
        completed: t.len(),
        goals: (best.iter().enumerate())
            .filter(|(_, d)| **d < f64::MAX)
            .map(|(g, &d)| (g as u32, d))
            .collect(),
        summaries: vec![None; t.len()],
        observed: Vec::new(),
        counters: Counters {
            statements: t.len() as u64,
            ..Counters::default()
        },
        seen: Vec::new(),
    }
}

fn search_loop(c: &mut Criterion) {
    let (schema, goals) = (schema(), goals());
    let mut group = c.benchmark_group("search loop");
    group.sample_size(10);
    for (name, algorithm) in [
        ("adynamosa, 5000 executions", AlgorithmKind::ADynaMosa),
        ("dynamosa, 5000 executions", AlgorithmKind::DynaMosa),
    ] {
        let params = SearchParams {
            algorithm,
            seed: 1,
            budget: Budget::Executions(5_000),
            ..SearchParams::default()
        };
        // The whole budget is searched: a search that covered everything early would time less.
        let once = run_search(&schema, &goals, &mut Synthetic, &params, &mut ());
        assert_eq!(
            once.stop,
            StopReason::Budget,
            "{name}: {} goals covered",
            once.archive.len()
        );
        group.bench_function(name, |b| {
            b.iter(|| run_search(&schema, &goals, &mut Synthetic, black_box(&params), &mut ()))
        });
    }
    group.finish();
}

criterion_group!(benches, search_loop);
criterion_main!(benches);
