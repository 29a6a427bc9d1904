//! What a `match` on string literals costs once instrumented (`tables::str_arms`, the
//! left-alignment distance to every arm), with the tables set up as in the harness, against the
//! same distances computed char by char as the probe did before (the baseline of the ratio),
//! on the inputs the search feeds it: short words, and long repeated text (`"ab".repeat(n)`).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

const ARMS: [(u32, &str); 4] = [(0, "true"), (1, "false"), (2, "yes"), (3, "no")];

fn arms_by_chars(s: &str) -> f64 {
    ARMS.iter()
        .map(|&(_, lit)| frugal_probe::left_align_by_chars(s, lit))
        .sum()
}

fn string_arms(c: &mut Criterion) {
    frugal_probe::init(16, 1, 1);
    let long = "truth ".repeat(255);
    let mut g = c.benchmark_group("match on string literals");
    for (label, input) in [
        ("short word", "ture"),
        ("equal word", "false"),
        ("1530 chars", &long),
    ] {
        g.bench_function(format!("{label}: char by char"), |b| {
            b.iter(|| arms_by_chars(black_box(input)))
        });
        g.bench_function(format!("{label}: str_arms"), |b| {
            b.iter(|| frugal_probe::tables::str_arms(black_box(&ARMS), black_box(input)))
        });
    }
    g.finish();
}

criterion_group!(benches, string_arms);
criterion_main!(benches);
