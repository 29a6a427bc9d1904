//! The performance proxies of one executed test, from the executor's counters and the test's
//! own shape (\[adynamosa\], Table 1).

use frugal_proxies::{Allocations, Proxies, ProxyInput, measure};

use crate::{ExecResult, OpKind, Schema, TestCase};

/// I1–I7 for a test and what its execution reported.
pub fn proxies(test: &TestCase, r: &ExecResult, schema: &Schema) -> Proxies {
    let calls = test
        .stmts
        .iter()
        .filter(|s| schema.op(s.op).kind == OpKind::Call)
        .count() as u64;
    let len = test.len() as u64;
    measure(&ProxyInput {
        loops: &r.counters.loops,
        calls: &r.counters.calls,
        allocations: Allocations::Total(r.counters.allocations),
        statements: r.counters.statements,
        test_calls: calls,
        test_other_statements: len - calls,
        test_length: len,
    })
}

/// Sum of the seven proxies over a suite: what the benchmark compares between algorithms.
pub fn suite_total(proxies: &[Proxies]) -> u64 {
    proxies.iter().map(|p| p.values().iter().sum::<u64>()).sum()
}
