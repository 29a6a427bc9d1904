//! The executor's failure paths, on the deliberately hostile example crate: real harness
//! processes that loop, sleep, recurse, abort, exit and allocate without bound. Each hostile
//! test must come back with the right status and leave the pool able to run the next test.
//!
//! The instrumented crate and its harness are built once per test process, in
//! `target/frugal-tests/executor-hostile` (kept between runs so cargo's caches stay warm).

use frugal_testkit as common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use frugal_search::{ExecResult, Executor, Status, Stmt, TestCase, Value};
use frugal_subject::executor::{ExecConfig, ExecutorPool};
use frugal_subject::harness::{self, registry::OpCode, registry::Registry};
use frugal_subject::model::Ty;
use frugal_subject::{analyze, instrument};

/// The built harness of `examples/hostile` and the ids the tests need.
struct Hostile {
    binary: PathBuf,
    /// Callable path (`hostile::double`) -> operation id.
    calls: BTreeMap<String, u32>,
    /// Literal type -> operation id.
    literals: BTreeMap<Ty, u32>,
    /// Instrumented function name -> its function-entry goal.
    entries: BTreeMap<String, u32>,
    /// Held for the life of the process: nobody rebuilds the harness under our feet.
    _work: common::WorkDir,
}

fn hostile() -> &'static Hostile {
    static CELL: OnceLock<Hostile> = OnceLock::new();
    CELL.get_or_init(|| {
        let work = common::work_dir("executor-hostile");
        let krate = common::example("hostile");
        let model = analyze::analyze(&krate, &Default::default()).unwrap();
        let inst = instrument::instrument_and_build(
            &krate,
            &work.path,
            &work.path.join("target"),
            &instrument::Options::default(),
        )
        .unwrap();
        let registry = Registry::build(&model);
        let probe = work.path.join("frugal-probe");
        let built = harness::build(
            &work.path,
            &inst.root,
            &probe,
            &model,
            &inst.manifest,
            registry,
        )
        .unwrap();
        let mut calls = BTreeMap::new();
        let mut literals = BTreeMap::new();
        for (id, op) in built.registry.ops.iter().enumerate() {
            match &op.code {
                OpCode::Call(c) => {
                    calls.insert(model.callables[*c].path.clone(), id as u32);
                }
                OpCode::Literal(ty) => {
                    literals.insert(ty.clone(), id as u32);
                }
                _ => {}
            }
        }
        let entries = inst
            .manifest
            .functions
            .iter()
            .map(|f| (f.name.clone(), f.entry_goal))
            .collect();
        Hostile {
            binary: built.binary,
            calls,
            literals,
            entries,
            _work: work,
        }
    })
}

/// An argument of a call: a literal of a primitive type or a `String`.
enum Arg {
    Int(&'static str, i128),
    Str(&'static str),
}

/// `hostile::<name>(args...)` as a test case: one literal statement per argument, then the call.
fn call(name: &str, args: &[Arg]) -> TestCase {
    let h = hostile();
    let mut stmts = Vec::new();
    for a in args {
        let (ty, value) = match a {
            Arg::Int(p, v) => (Ty::Prim(p.to_string()), Value::Int(*v)),
            Arg::Str(s) => (Ty::String, Value::Str(s.to_string())),
        };
        let op = *h
            .literals
            .get(&ty)
            .unwrap_or_else(|| panic!("no literal operation for {ty:?}"));
        stmts.push(Stmt {
            op,
            args: Vec::new(),
            value: Some(value),
        });
    }
    let path = format!("hostile::{name}");
    let op = *h
        .calls
        .get(&path)
        .unwrap_or_else(|| panic!("{path} is not in the registry: {:?}", h.calls.keys()));
    stmts.push(Stmt {
        op,
        args: (0..args.len() as u32).collect(),
        value: None,
    });
    TestCase { stmts }
}

fn double(x: i32) -> TestCase {
    call("double", &[Arg::Int("i32", x.into())])
}

fn pool(config: ExecConfig) -> ExecutorPool {
    ExecutorPool::new(hostile().binary.clone(), config)
}

/// One worker and a wall-clock limit generous enough never to trigger on a busy CI machine:
/// anything that times out here was stopped by fuel or depth, inside the harness.
fn patient() -> ExecConfig {
    ExecConfig {
        workers: 1,
        timeout: Duration::from_secs(10),
        ..ExecConfig::default()
    }
}

/// Asserts that `r` is `double(x)` run to completion.
fn assert_doubled(r: &ExecResult, x: i32) {
    assert_eq!(r.status, Status::Completed, "double({x}): {r:?}");
    assert_eq!(r.completed, 2);
    assert_eq!(
        r.summaries.last().cloned().flatten(),
        Some(x.saturating_mul(2).to_string()),
        "{r:?}"
    );
}

fn crash_reason(r: &ExecResult) -> &str {
    match &r.status {
        Status::Crashed { reason } => reason,
        other => panic!("expected a crash, got {other:?} in {r:?}"),
    }
}

#[test]
fn a_well_behaved_call_completes_with_summaries_and_covers_its_entry() {
    let h = hostile();
    let mut pool = pool(patient());
    let tests = [
        double(21),
        call("safe_div", &[Arg::Int("i32", 7), Arg::Int("i32", 0)]),
        call("sign", &[Arg::Int("i64", -5)]),
    ];
    let results = pool.execute(&tests);
    assert_eq!(results.len(), 3);
    assert_doubled(&results[0], 21);
    assert_eq!(
        results[0].summaries,
        vec![Some("21".to_string()), Some("42".to_string())]
    );
    assert!(results[0].covers(h.entries["double"]), "{:?}", results[0]);
    assert!(!results[0].covers(h.entries["sign"]), "{:?}", results[0]);
    assert!(results[0].counters.statements > 0);

    assert_eq!(results[1].status, Status::Completed);
    assert_eq!(results[1].summaries.last(), Some(&Some("None".to_string())));
    assert!(results[1].covers(h.entries["safe_div"]));

    assert_eq!(results[2].summaries.last(), Some(&Some("-1".to_string())));
    assert!(!results[2].covers(h.entries["double"]));

    assert_eq!(pool.stats.executions, 3);
    assert_eq!(pool.stats.restarts, 0);
    assert_eq!(pool.stats.crashes, 0);
}

#[test]
fn a_repeated_test_is_answered_as_it_first_ran_and_a_crash_runs_again() {
    let mut pool = pool(patient());
    let first = pool.execute(&[double(5), call("spin_forever", &[]), call("abort_now", &[])]);
    assert_eq!(pool.stats.executions, 3);
    // The endless loop, then statements that never run after it.
    let mut spin_then_double = call("spin_forever", &[]);
    let shift = spin_then_double.len() as u32;
    let tail = double(7).stmts.into_iter().map(|mut s| {
        s.args.iter_mut().for_each(|a| *a += shift);
        s
    });
    spin_then_double.stmts.extend(tail);
    // In one batch: the repeats of the first two and the test that starts as the second are
    // answered; a new test and the crash run.
    let again = pool.execute(&[
        call("spin_forever", &[]),
        double(6),
        double(5),
        spin_then_double,
        call("abort_now", &[]),
    ]);
    assert_eq!(again.len(), 5);
    assert_eq!(again[0], first[1], "out of fuel, as the first time");
    assert_doubled(&again[1], 6);
    assert_eq!(again[2], first[0]);
    assert_eq!(
        again[3], first[1],
        "stopped in its first statement, as the loop alone"
    );
    crash_reason(&again[4]);
    assert_eq!(pool.stats.repeats, 3);
    assert_eq!(pool.stats.executions, 5, "the new test and the crash ran");
    let crashes = pool.stats.crashes;
    assert_eq!(crashes, 2, "a crash is never answered from memory");
}

#[test]
fn a_panic_is_reported_with_its_message_and_location_without_a_restart() {
    let mut pool = pool(patient());
    let results = pool.execute(&[call("panic_with", &[Arg::Str("boom")]), double(3)]);
    assert_eq!(results.len(), 2);
    match &results[0].status {
        Status::Panicked { message, location } => {
            assert_eq!(message, "boom");
            // `panic!` in `panic_with` is on line 99 of the example.
            assert!(
                location.contains("src/lib.rs:99:"),
                "location {location:?} does not point at the panic"
            );
        }
        other => panic!("expected a panic, got {other:?}"),
    }
    // The literal ran, the call did not complete.
    assert_eq!(results[0].completed, 1);
    assert_doubled(&results[1], 3);
    assert_eq!(pool.stats.restarts, 0);
    assert_eq!(pool.stats.crashes, 0);
}

#[test]
fn a_busy_loop_runs_out_of_fuel_quickly_and_the_harness_survives() {
    let mut pool = pool(patient());
    let started = Instant::now();
    let results = pool.execute(&[
        call("spin_forever", &[]),
        call("spin_if", &[Arg::Int("u32", 7)]),
        call("spin_if", &[Arg::Int("u32", 6)]),
        double(4),
    ]);
    let elapsed = started.elapsed();
    assert_eq!(results.len(), 4);
    assert_eq!(results[0].status, Status::Timeout, "{:?}", results[0]);
    assert_eq!(results[1].status, Status::Timeout, "{:?}", results[1]);
    // The fuel is spent in the loop: its iteration counter says so.
    let iterations: u64 = results[0]
        .counters
        .loops
        .iter()
        .map(|&(_, n)| n as u64)
        .sum();
    assert!(iterations > 1000, "{:?}", results[0].counters);
    assert_eq!(results[2].status, Status::Completed);
    assert_eq!(results[2].summaries.last(), Some(&Some("6".to_string())));
    assert_doubled(&results[3], 4);
    // Fuel, not the wall clock: no timeout was counted, no process was killed.
    assert_eq!(pool.stats.timeouts, 0);
    assert_eq!(pool.stats.restarts, 0);
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
}

#[test]
fn an_idle_hang_is_stopped_by_the_wall_clock_and_the_next_test_runs() {
    let mut pool = pool(ExecConfig {
        timeout: Duration::from_millis(300),
        ..patient()
    });
    let started = Instant::now();
    let results = pool.execute(&[double(1), call("sleep_forever", &[]), double(2)]);
    let elapsed = started.elapsed();
    assert_eq!(results.len(), 3);
    assert_doubled(&results[0], 1);
    assert_eq!(results[1].status, Status::Timeout, "{:?}", results[1]);
    assert_doubled(&results[2], 2);
    assert_eq!(pool.stats.timeouts, 1);
    assert_eq!(pool.stats.restarts, 1);
    assert_eq!(pool.stats.crashes, 0);
    assert!(elapsed >= Duration::from_millis(300), "took {elapsed:?}");
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
}

#[test]
fn unbounded_recursion_is_stopped_and_the_next_test_runs() {
    let mut pool = pool(patient());
    let results = pool.execute(&[call("recurse_forever", &[Arg::Int("u64", 0)]), double(5)]);
    assert_eq!(results.len(), 2);
    eprintln!("recurse_forever: {:?}", results[0].status);
    // Observed: the probes' depth limit (1000 nested instrumented calls) stops it long before
    // the 256 MiB stack of the test thread overflows, so it is a `Timeout` without a restart.
    // A stack overflow would be a `Crashed` (SIGABRT or SIGSEGV) with a restart; both are
    // acceptable outcomes, anything else is not.
    match &results[0].status {
        Status::Timeout => assert_eq!(pool.stats.restarts, 0),
        Status::Crashed { reason } => {
            assert!(reason.contains("signal"), "{reason}");
            assert_eq!(pool.stats.restarts, 1);
        }
        other => panic!("expected a timeout or a crash, got {other:?}"),
    }
    assert_doubled(&results[1], 5);
}

#[test]
fn an_abort_crashes_the_harness_which_is_restarted_for_the_rest_of_the_batch() {
    let mut pool = pool(patient());
    let results = pool.execute(&[double(1), call("abort_now", &[]), double(2), double(3)]);
    assert_eq!(results.len(), 4);
    assert_doubled(&results[0], 1);
    let reason = crash_reason(&results[1]);
    assert!(
        reason.contains("signal 6") && reason.contains("abort"),
        "{reason}"
    );
    assert_doubled(&results[2], 2);
    assert_doubled(&results[3], 3);
    assert_eq!(pool.stats.crashes, 1);
    assert_eq!(pool.stats.restarts, 1);
    assert_eq!(pool.stats.executions, 4);
}

#[test]
fn exit_with_code_zero_is_a_crash_not_a_pass() {
    let mut pool = pool(patient());
    let results = pool.execute(&[call("exit_now", &[Arg::Int("i32", 0)]), double(6)]);
    assert_eq!(results.len(), 2);
    let reason = crash_reason(&results[0]);
    assert!(reason.contains("exited with 0"), "{reason}");
    assert_doubled(&results[1], 6);
    assert_eq!(pool.stats.crashes, 1);
    assert_eq!(pool.stats.restarts, 1);
}

#[test]
fn a_memory_bomb_aborts_the_harness_which_is_restarted() {
    let mut pool = pool(patient());
    let results = pool.execute(&[call("memory_bomb", &[Arg::Int("usize", 0)]), double(7)]);
    assert_eq!(results.len(), 2);
    // The counting allocator refuses the request (above the heap ceiling), and Rust's
    // allocation-failure handler prints "memory allocation of N bytes failed" and aborts.
    // The reason only carries the last stderr line, which since Rust 1.9x is the
    // "note: run with `RUST_BACKTRACE=1`" line (or a backtrace frame when RUST_BACKTRACE is
    // set), so only the signal is asserted here.
    let reason = crash_reason(&results[0]);
    assert!(reason.contains("signal 6 (abort)"), "{reason}");
    assert_doubled(&results[1], 7);
    assert_eq!(pool.stats.restarts, 1);
}

#[test]
fn a_crash_ending_a_batch_leaves_the_pool_usable_for_the_next_batch() {
    let mut pool = pool(patient());
    let first = pool.execute(&[double(1), call("abort_now", &[])]);
    assert_eq!(first.len(), 2);
    assert_doubled(&first[0], 1);
    crash_reason(&first[1]);
    let second = pool.execute(&[double(2)]);
    assert_eq!(second.len(), 1);
    assert_doubled(&second[0], 2);
    assert_eq!(pool.stats.executions, 3);
    assert_eq!(pool.stats.restarts, 1);
}

#[test]
fn a_mistyped_argument_is_invalid_not_a_crash() {
    let h = hostile();
    let mut pool = pool(patient());
    // `double` takes an `i32`; give it a `String`.
    let bad = TestCase {
        stmts: vec![
            Stmt {
                op: h.literals[&Ty::String],
                args: Vec::new(),
                value: Some(Value::Str("21".into())),
            },
            Stmt {
                op: h.calls["hostile::double"],
                args: vec![0],
                value: None,
            },
        ],
    };
    let results = pool.execute(&[bad, double(8)]);
    assert!(
        matches!(results[0].status, Status::Invalid { .. }),
        "{:?}",
        results[0]
    );
    assert_doubled(&results[1], 8);
    assert_eq!(pool.stats.restarts, 0);
}

#[test]
fn every_kind_of_failure_in_one_batch_on_two_workers_keeps_its_place() {
    let mut pool = pool(ExecConfig {
        workers: 2,
        timeout: Duration::from_secs(1),
        ..ExecConfig::default()
    });
    let tests = [
        call("abort_now", &[]),
        double(1),
        call("exit_now", &[Arg::Int("i32", 3)]),
        call("panic_with", &[Arg::Str("second")]),
        call("memory_bomb", &[Arg::Int("usize", 5)]),
        call("spin_forever", &[]),
        call("sleep_forever", &[]),
        double(2),
    ];
    let results = pool.execute(&tests);
    assert_eq!(results.len(), tests.len());
    assert!(crash_reason(&results[0]).contains("abort"));
    assert_doubled(&results[1], 1);
    assert!(crash_reason(&results[2]).contains("exited with 3"));
    assert!(matches!(&results[3].status, Status::Panicked { message, .. } if message == "second"));
    assert!(crash_reason(&results[4]).contains("signal 6 (abort)"));
    assert_eq!(results[5].status, Status::Timeout);
    assert_eq!(results[6].status, Status::Timeout);
    assert_doubled(&results[7], 2);
    // abort, exit, memory bomb and the sleep each cost a harness; the spin is stopped by fuel.
    assert_eq!(pool.stats.crashes, 3);
    assert_eq!(pool.stats.timeouts, 1);
    assert_eq!(pool.stats.restarts, 4);
    assert_eq!(pool.stats.executions, tests.len() as u64);
}

#[test]
fn a_batch_of_200_tests_on_two_workers_returns_200_results_in_order() {
    let mut pool = pool(ExecConfig {
        workers: 2,
        ..patient()
    });
    // Mostly `double(i)`, with panics and two aborts mixed in so that both workers restart.
    let tests: Vec<TestCase> = (0..200)
        .map(|i| match i {
            37 | 160 => call("abort_now", &[]),
            i if i % 10 == 3 => call("panic_with", &[Arg::Str(["p0", "p1"][i % 2])]),
            i => double(i as i32),
        })
        .collect();
    let started = Instant::now();
    let results = pool.execute(&tests);
    let elapsed = started.elapsed();
    assert_eq!(results.len(), 200);
    for (i, r) in results.iter().enumerate() {
        match i {
            37 | 160 => {
                crash_reason(r);
            }
            i if i % 10 == 3 => {
                let want = ["p0", "p1"][i % 2];
                assert!(
                    matches!(&r.status, Status::Panicked { message, .. } if message == want),
                    "test {i}: {r:?}"
                );
            }
            i => assert_doubled(r, i as i32),
        }
    }
    assert_eq!(pool.stats.executions, 200);
    assert_eq!(pool.stats.crashes, 2);
    assert_eq!(pool.stats.restarts, 2);
    eprintln!(
        "200 tests on 2 workers in {elapsed:?} ({:.0} tests/s)",
        200.0 / elapsed.as_secs_f64()
    );
}

/// The harness counts only allocations made while the crate's code runs, and pays its
/// one-off costs (panic machinery, condition stack) before the first test, so a test's
/// counters do not depend on what ran before it in the same process.
#[test]
fn a_tests_counters_do_not_depend_on_what_ran_before_it_in_the_same_harness() {
    let mut pool = pool(patient());
    let twice = |t: TestCase| [t.clone(), t];
    for pair in [
        twice(call("safe_div", &[Arg::Int("i32", 7), Arg::Int("i32", 2)])),
        twice(call("panic_with", &[Arg::Str("x")])),
    ] {
        let results = pool.execute(&pair);
        assert_eq!(results[0].counters, results[1].counters, "{:?}", pair[0]);
    }
}

#[test]
fn confined_harnesses_speak_the_wire_protocol_and_are_restarted_after_crashes_and_hangs() {
    let work = &hostile()._work.path;
    let policy =
        frugal_sandbox::Policy::for_job(work, work.join("target"), work.join("hostile")).unwrap();
    let config = ExecConfig {
        timeout: Duration::from_millis(300),
        cwd: Some(work.clone()),
        ..patient()
    };
    let mut pool = pool(config).sandbox(policy);
    let results = pool.execute(&[
        double(1),
        call("abort_now", &[]),
        double(2),
        call("sleep_forever", &[]),
        double(3),
    ]);
    assert_eq!(results.len(), 5);
    assert_doubled(&results[0], 1);
    assert!(
        crash_reason(&results[1]).contains("signal 6"),
        "{results:?}"
    );
    assert_doubled(&results[2], 2);
    assert_eq!(results[3].status, Status::Timeout, "{:?}", results[3]);
    assert_doubled(&results[4], 3);
    assert_eq!(pool.stats.restarts, 2);
}
