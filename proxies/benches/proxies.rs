//! `measure` + `archive_score` for a typical test: 50 crate functions entered, 5 loops, a total
//! allocation count and the test's own statement counts.

use criterion::{Criterion, criterion_group, criterion_main};
use frugal_proxies::{Allocations, ProxyInput, archive_score, measure};
use std::hint::black_box;

fn typical(c: &mut Criterion) {
    let calls: Vec<(u32, u32)> = (0..50).map(|f| (f, 1 + f % 7)).collect();
    let loops: Vec<(u32, u32)> = (0..5).map(|l| (l, [1, 3, 12, 40, 2][l as usize])).collect();
    let input = ProxyInput {
        loops: &loops,
        calls: &calls,
        allocations: Allocations::Total(37),
        statements: 1_250,
        test_calls: 6,
        test_other_statements: 9,
        test_length: 15,
    };
    c.bench_function("measure+archive_score (50 functions, 5 loops)", |b| {
        b.iter(|| archive_score(&measure(black_box(&input))))
    });
}

criterion_group!(benches, typical);
criterion_main!(benches);
