//! A toy subject for testing algorithms without cargo: one function `f(x: i32, y: i32)` with
//! nested numeric conditions, evaluated in process.

use crate::{
    Counters, ExecResult, Executor, GoalKind, Goals, OpInfo, OpKind, Pass, Schema, Status,
    TestCase, TypeInfo, Value, ValueKind,
};

pub fn schema() -> Schema {
    Schema::new(
        vec![TypeInfo {
            name: "i32".into(),
            literal: Some(ValueKind::Int {
                min: i32::MIN as i128,
                max: i32::MAX as i128,
            }),
            copy: true,
        }],
        vec![
            OpInfo {
                name: "i32".into(),
                kind: OpKind::Literal,
                params: vec![],
                ret: Some(0),
                variadic: false,
            },
            OpInfo {
                name: "f".into(),
                kind: OpKind::Call,
                params: vec![(0, Pass::Move), (0, Pass::Move)],
                ret: None,
                variadic: false,
            },
        ],
        Default::default(),
    )
}

/// Goals: 0 entry; 1/2 `x == 4242` true/false; 3/4 inside true: `y < -777` true/false.
pub fn goals() -> Goals {
    Goals::new(
        vec![
            GoalKind::Function,
            GoalKind::Branch,
            GoalKind::Branch,
            GoalKind::Branch,
            GoalKind::Branch,
        ],
        vec![None, Some(0), Some(0), Some(1), Some(1)],
    )
}

fn norm(d: f64) -> f64 {
    d / (d + 1.0)
}

pub struct ToyExecutor;

impl Executor for ToyExecutor {
    fn execute(&mut self, tests: &[TestCase]) -> Vec<ExecResult> {
        tests.iter().map(run).collect()
    }
}

fn run(t: &TestCase) -> ExecResult {
    let mut best = [f64::MAX; 5];
    let mut values: Vec<Option<i128>> = Vec::new();
    for s in &t.stmts {
        match (&s.value, s.op) {
            (Some(Value::Int(v)), 0) => values.push(Some(*v)),
            (_, 1) => {
                let x = values[s.args[0] as usize].unwrap_or(0) as f64;
                let y = values[s.args[1] as usize].unwrap_or(0) as f64;
                best[0] = 0.0;
                let d = (x - 4242.0).abs();
                let (t, f) = if d == 0.0 { (0.0, 1.0) } else { (d, 0.0) };
                best[1] = best[1].min(norm(t));
                best[2] = best[2].min(norm(f));
                if d == 0.0 {
                    let (t, f) = if y < -777.0 {
                        (0.0, -777.0 - y)
                    } else {
                        (y + 777.0 + 1.0, 0.0)
                    };
                    best[3] = best[3].min(norm(t));
                    best[4] = best[4].min(norm(f));
                }
                values.push(None);
            }
            _ => values.push(None),
        }
    }
    ExecResult {
        status: Status::Completed,
        completed: t.len(),
        goals: best
            .iter()
            .enumerate()
            .filter(|(_, d)| **d < f64::MAX)
            .map(|(g, d)| (g as u32, *d))
            .collect(),
        summaries: vec![None; t.len()],
        observed: Vec::new(),
        counters: Counters::default(),
        seen: Vec::new(),
    }
}

mod tests {
    use super::*;
    use crate::{AlgorithmKind, Budget, SearchParams, run_search};

    fn search(kind: AlgorithmKind, seed: u64, budget: u64) -> crate::Archive {
        let params = SearchParams {
            algorithm: kind,
            seed,
            budget: Budget::Executions(budget),
            ..Default::default()
        };
        run_search(&schema(), &goals(), &mut ToyExecutor, &params, &mut ()).archive
    }

    #[test]
    fn many_objective_algorithms_solve_nested_numeric_conditions() {
        for kind in [
            AlgorithmKind::Mosa,
            AlgorithmKind::DynaMosa,
            AlgorithmKind::ADynaMosa,
        ] {
            let archive = search(kind, 1, 20_000);
            let covered: Vec<_> = archive.covered().collect();
            assert_eq!(archive.len(), 5, "{} covered {covered:?}", kind.name());
        }
    }

    #[test]
    fn wholesuite_and_mio_solve_nested_numeric_conditions() {
        for kind in [AlgorithmKind::WholeSuite, AlgorithmKind::Mio] {
            for seed in 1..=3 {
                let archive = search(kind, seed, 20_000);
                let covered: Vec<_> = archive.covered().collect();
                assert_eq!(
                    archive.len(),
                    5,
                    "{} seed {seed} covered {covered:?}",
                    kind.name()
                );
            }
        }
    }

    #[test]
    fn sequential_mio_solves_them_too() {
        // `batch = 1` is the paper's one-decision-at-a-time loop.
        let mut params = SearchParams {
            algorithm: AlgorithmKind::Mio,
            seed: 4,
            budget: Budget::Executions(20_000),
            ..Default::default()
        };
        params.mio.batch = 1;
        let archive = run_search(&schema(), &goals(), &mut ToyExecutor, &params, &mut ()).archive;
        assert_eq!(archive.len(), 5);
        let again = run_search(&schema(), &goals(), &mut ToyExecutor, &params, &mut ()).archive;
        let tests = |a: &crate::Archive| -> Vec<TestCase> {
            a.tests().into_iter().map(|e| e.test.clone()).collect()
        };
        assert_eq!(tests(&archive), tests(&again));
    }

    #[test]
    fn wholesuite_without_local_search_is_the_plain_ga() {
        // ls_rate 0 turns the memetic part off; the GA alone still covers the easy goals.
        let mut params = SearchParams {
            algorithm: AlgorithmKind::WholeSuite,
            seed: 2,
            budget: Budget::Executions(3_000),
            ..Default::default()
        };
        params.wholesuite.ls_rate = 0;
        let out = run_search(&schema(), &goals(), &mut ToyExecutor, &params, &mut ());
        let archive = out.archive;
        assert!(out.executions <= 3_000);
        assert!(
            archive.covers(0) && archive.covers(2),
            "{:?}",
            archive.covered().collect::<Vec<_>>()
        );
    }

    #[test]
    fn local_search_drives_a_literal_to_the_needle() {
        use crate::{Stmt, Value};
        let lit = |v| Stmt {
            op: 0,
            args: vec![],
            value: Some(Value::Int(v)),
        };
        let call = Stmt {
            op: 1,
            args: vec![0, 1],
            value: None,
        };
        let mut t = TestCase {
            stmts: vec![lit(0), lit(0), call, lit(9)],
        };
        // Fitness: distance to `x == 4242`, then to `y < -777` (goal 3) once inside.
        let fitness = |r: &ExecResult| r.distance(1).unwrap_or(1.0) + r.distance(3).unwrap_or(1.0);
        let mut executions = 0;
        let mut eval = |c: &TestCase| {
            executions += 1;
            let r = run(c);
            Some((fitness(&r), ()))
        };
        let mut fit = fitness(&run(&t));
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
        let improved = crate::local_search::search_test(
            &schema(),
            &mut t,
            &mut fit,
            &mut (),
            4,
            10,
            &mut rng,
            &mut eval,
        );
        assert!(improved);
        // The unused literal 9 is never touched; y (statement 1) is searched before x, when
        // it cannot matter yet, so only x reaches its target: 4242 after a few dozen probes.
        assert_eq!(t.stmts[0].value, Some(Value::Int(4242)));
        assert_eq!(t.stmts[3].value, Some(Value::Int(9)));
        assert!(executions < 60, "{executions}");
    }

    #[test]
    fn deferred_goals_are_not_searched_but_counted_at_the_end() {
        // Defer the innermost pair (3, 4): the search stops caring about `y < -777`, but the
        // archive still reports whatever the kept tests cover there.
        let goals = goals().with_deferred(vec![false, false, false, true, true]);
        let params = SearchParams {
            algorithm: AlgorithmKind::DynaMosa,
            seed: 1,
            budget: Budget::Executions(20_000),
            ..Default::default()
        };
        let archive = run_search(&schema(), &goals, &mut ToyExecutor, &params, &mut ()).archive;
        assert!(archive.covers(1) && archive.covers(2));
        let deferred_covered = [3, 4].iter().filter(|&&g| archive.covers(g)).count();
        // The test reaching `x == 4242` decides `y < -777` one way, so one of the pair is
        // covered without being searched for.
        assert!(deferred_covered >= 1);
    }

    #[test]
    fn random_search_rarely_finds_a_needle() {
        let archive = search(AlgorithmKind::Random, 1, 2_000);
        assert!(!archive.covers(1));
    }

    #[test]
    fn same_seed_and_budget_give_the_same_archive_for_every_algorithm() {
        for kind in AlgorithmKind::ALL {
            let a = search(kind, 7, 3_000);
            let b = search(kind, 7, 3_000);
            let ta: Vec<_> = a.tests().into_iter().map(|e| e.test.clone()).collect();
            let tb: Vec<_> = b.tests().into_iter().map(|e| e.test.clone()).collect();
            assert_eq!(ta, tb, "{}", kind.name());
        }
    }

    /// `f(x, y)` on two literals.
    fn call_f(x: i128, y: i128) -> TestCase {
        use crate::Stmt;
        let lit = |v| Stmt {
            op: 0,
            args: vec![],
            value: Some(Value::Int(v)),
        };
        TestCase {
            stmts: vec![
                lit(x),
                lit(y),
                Stmt {
                    op: 1,
                    args: vec![0, 1],
                    value: None,
                },
            ],
        }
    }

    /// Records the archive size each generation reports.
    struct Covered(Vec<usize>);

    impl crate::Observer for Covered {
        fn generation(&mut self, g: &crate::Generation) {
            self.0.push(g.covered);
        }
    }

    fn seeded(kind: AlgorithmKind, seeds: Vec<TestCase>, budget: u64) -> SearchParams {
        SearchParams {
            algorithm: kind,
            seed: 1,
            budget: Budget::Executions(budget),
            seeds,
            ..Default::default()
        }
    }

    #[test]
    fn seeds_are_archived_before_the_first_generation() {
        // x == 4242 is the needle random search never finds; the seed holds it, and y < -777.
        for kind in AlgorithmKind::ALL {
            let params = seeded(kind, vec![call_f(4242, -1000)], 2_000);
            let mut seen = Covered(Vec::new());
            let out = run_search(&schema(), &goals(), &mut ToyExecutor, &params, &mut seen);
            assert_eq!((out.seeds_executed, out.seed_covered), (1, 3), "{kind}");
            assert!(
                seen.0.first().is_some_and(|&c| c >= 3),
                "{kind}: {seen:?}",
                seen = seen.0
            );
            assert!(out.archive.covers(1) && out.archive.covers(3), "{kind}");
        }
        // A budget of one execution runs the seed and nothing else.
        let out = run_search(
            &schema(),
            &goals(),
            &mut ToyExecutor,
            &seeded(AlgorithmKind::DynaMosa, vec![call_f(4242, -1000)], 1),
            &mut (),
        );
        assert_eq!(out.executions, 1);
        assert_eq!(out.archive.covered().collect::<Vec<_>>(), vec![0, 1, 3]);
        assert_eq!(out.stop, crate::StopReason::Budget);
    }

    #[test]
    fn seeds_invalid_for_the_schema_are_skipped() {
        let mut wrong_arity = call_f(1, 2);
        wrong_arity.stmts[2].args.pop();
        let mut no_such_op = call_f(1, 2);
        no_such_op.stmts[2].op = 7;
        let mut forward_ref = call_f(1, 2);
        forward_ref.stmts[2].args = vec![0, 2];
        for bad in [&wrong_arity, &no_such_op, &forward_ref] {
            assert!(bad.check(&schema()).is_err(), "{bad:?}");
        }
        assert_eq!(call_f(1, 2).check(&schema()), Ok(()));
        let params = seeded(AlgorithmKind::Mosa, vec![wrong_arity, no_such_op], 100);
        let out = run_search(&schema(), &goals(), &mut ToyExecutor, &params, &mut ());
        assert_eq!(out.seeds_executed, 0);
    }

    #[test]
    fn seeds_that_cover_everything_end_the_search_at_once() {
        let seeds = vec![call_f(4242, -1000), call_f(4242, 0), call_f(1, 1)];
        let params = seeded(AlgorithmKind::ADynaMosa, seeds, 20_000);
        let out = run_search(&schema(), &goals(), &mut ToyExecutor, &params, &mut ());
        assert_eq!(out.seed_covered, 5);
        assert_eq!(out.executions, 3);
        assert_eq!(out.stop, crate::StopReason::AllCovered);
    }

    #[test]
    fn a_seeded_search_reaches_full_coverage_with_fewer_executions() {
        for kind in [
            AlgorithmKind::Mosa,
            AlgorithmKind::DynaMosa,
            AlgorithmKind::ADynaMosa,
        ] {
            let scratch = run_search(
                &schema(),
                &goals(),
                &mut ToyExecutor,
                &seeded(kind, vec![], 20_000),
                &mut (),
            );
            let params = seeded(kind, vec![call_f(4242, -1000)], 20_000);
            let from_seed = run_search(&schema(), &goals(), &mut ToyExecutor, &params, &mut ());
            for out in [&scratch, &from_seed] {
                assert_eq!(out.stop, crate::StopReason::AllCovered, "{kind}");
                assert_eq!(out.archive.len(), 5, "{kind}");
            }
            assert!(
                from_seed.executions < scratch.executions,
                "{kind}: seeded {} vs from scratch {}",
                from_seed.executions,
                scratch.executions
            );
            // Same seeds, seed and budget: the same archive.
            let again = run_search(&schema(), &goals(), &mut ToyExecutor, &params, &mut ());
            let tests = |a: &crate::Archive| -> Vec<TestCase> {
                a.tests().into_iter().map(|e| e.test.clone()).collect()
            };
            assert_eq!(tests(&again.archive), tests(&from_seed.archive), "{kind}");
        }
    }

    #[test]
    fn a_stalled_search_stops_before_its_budget() {
        // Random search covers goals 0 and 2 in its first batch; the needle takes it far
        // longer than five generations, if it finds it at all within the budget.
        let mut params = seeded(AlgorithmKind::Random, vec![], 20_000);
        let full = run_search(&schema(), &goals(), &mut ToyExecutor, &params, &mut ());
        assert_eq!(
            (full.executions, full.stop),
            (20_000, crate::StopReason::Budget)
        );
        params.stall_generations = Some(5);
        let mut seen = Covered(Vec::new());
        let out = run_search(&schema(), &goals(), &mut ToyExecutor, &params, &mut seen);
        assert_eq!(out.stop, crate::StopReason::Stalled);
        // One generation that covers, five that do not.
        assert_eq!(seen.0.len(), 6, "{:?}", seen.0);
        assert_eq!(out.executions, 6 * params.population as u64);
        assert_eq!(out.archive.len(), 2);
        assert!(out.archive.len() <= full.archive.len());
    }

    #[test]
    fn repaired_tests_respect_ownership_rules() {
        use rand::SeedableRng;
        let s = schema();
        let b = crate::Builder::new(&s);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for _ in 0..200 {
            let mut t = b.random_test(&mut rng);
            for _ in 0..5 {
                b.mutate(&mut t, &mut rng);
            }
            for (i, st) in t.stmts.iter().enumerate() {
                assert!(st.args.iter().all(|&a| (a as usize) < i));
                assert_eq!(st.args.len(), s.op(st.op).params.len());
            }
        }
    }
}
