//! Integration tests of `redundant`; all of them repeat what the unit tests already cover.
//! `classify_zero` shares its name with a unit test: a filter must tell the two apart.

use redundant::{Counter, checksum, clamp_add, classify, parse_pair};

fn spin(n: u64) -> u64 {
    let mut acc = 0u64;
    for i in 0..n {
        acc = std::hint::black_box(acc.wrapping_add(i ^ (acc >> 3)));
    }
    acc
}

#[test]
fn classify_zero() {
    assert_eq!(classify(0), "zero");
}

#[test]
fn classify_large_slowly() {
    spin(20_000_000);
    assert_eq!(classify(500), "large");
}

#[test]
fn checksum_one_byte() {
    assert_eq!(checksum(b"a"), 0x0062_0062);
}

#[test]
fn parse_pair_bad_number() {
    assert_eq!(parse_pair("a,b"), None);
}

#[test]
fn counter_stops_at_limit_slowly() {
    spin(20_000_000);
    let mut c = Counter::new(0);
    assert!(!c.bump());
}

#[test]
fn clamp_add_overflow() {
    assert_eq!(clamp_add(u32::MAX, 5, 3), 3);
}
