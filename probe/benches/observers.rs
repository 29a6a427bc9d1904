//! What an observed flag call costs next to the bare call, with the tables set up (as in the
//! harness): the code the instrumenter writes (`subject/src/instrument/observe.rs`), by hand.

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
#[expect(unused_imports)]
use frugal_probe::observe::{
    CollFlags as _, Fallback1 as _, Fallback2 as _, Obs1, Obs2, Out, TextFlags as _,
    TextFlags1 as _, Went as _, on, parsed, site,
};

/// `recv.starts_with(arg)` as instrumented.
fn observed_starts_with(s: &str, p: &str) -> bool {
    let d = if on() {
        (&&&Obs2(&s, &p)).d_starts_with()
    } else {
        None
    };
    let v = s.starts_with(p);
    site(0, 1, d, (&&Out(&v)).went());
    v
}

#[expect(clippy::needless_borrow)]
fn observed_contains(v: &[u32], x: &u32) -> bool {
    let d = if on() {
        (&&&Obs2(&v, &x)).d_contains()
    } else {
        None
    };
    let r = v.contains(x);
    site(2, 3, d, (&&Out(&r)).went());
    r
}

#[expect(clippy::needless_borrow)]
fn observed_get<'a>(m: &'a BTreeMap<String, u16>, k: &str) -> Option<&'a u16> {
    let d = if on() {
        (&&&Obs2(&m, &k)).d_get()
    } else {
        None
    };
    let r = m.get(k);
    site(4, 5, d, (&&Out(&r)).went());
    r
}

fn observed_parse(s: &str) -> Result<u16, std::num::ParseIntError> {
    let r = s.parse::<u16>();
    parsed(6, 7, (&&&Obs1(&s)).d_text(), &r);
    r
}

fn observers(c: &mut Criterion) {
    frugal_probe::init(16, 1, 1);
    let line = "GET /index.html HTTP/1.1";
    let v: Vec<u32> = (0..16).map(|i| i * 7).collect();
    let m: BTreeMap<String, u16> = [("http", 80), ("https", 443), ("ssh", 22)]
        .into_iter()
        .map(|(k, p)| (k.to_string(), p))
        .collect();
    let mut g = c.benchmark_group("flag calls");
    g.bench_function("starts_with bare", |b| {
        b.iter(|| black_box(line).starts_with(black_box("POST")))
    });
    g.bench_function("starts_with observed", |b| {
        b.iter(|| observed_starts_with(black_box(line), black_box("POST")))
    });
    g.bench_function("contains (16 u32) bare", |b| {
        b.iter(|| black_box(&v).contains(black_box(&5)))
    });
    g.bench_function("contains (16 u32) observed", |b| {
        b.iter(|| observed_contains(black_box(&v), black_box(&5)))
    });
    g.bench_function("map get (3 keys) bare", |b| {
        b.iter(|| black_box(&m).get(black_box("htp")))
    });
    g.bench_function("map get (3 keys) observed", |b| {
        b.iter(|| observed_get(black_box(&m), black_box("htp")))
    });
    g.bench_function("parse u16 err bare", |b| {
        b.iter(|| black_box("70000").parse::<u16>())
    });
    g.bench_function("parse u16 err observed", |b| {
        b.iter(|| observed_parse(black_box("70000")))
    });
    g.finish();
}

criterion_group!(benches, observers);
criterion_main!(benches);
