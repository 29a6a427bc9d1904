//! A small crate with a deliberately redundant test suite, for `frugal replace`: twenty tests,
//! five of which cover every goal the suite covers, and the slow ones cover nothing new.
//! `shout` is left untested on purpose, so generated tests have something to add.

/// Sign and size class of a number.
pub fn classify(n: i64) -> &'static str {
    if n < 0 {
        "negative"
    } else if n == 0 {
        "zero"
    } else if n < 100 {
        "small"
    } else {
        "large"
    }
}

/// Adler-style checksum of the bytes.
pub fn checksum(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + byte as u32) % 65521;
        b = (b + a) % 65521;
    }
    (b << 16) | a
}

/// Parses `"x,y"` into two integers.
pub fn parse_pair(s: &str) -> Option<(i32, i32)> {
    let (x, y) = s.split_once(',')?;
    let x = x.trim().parse().ok()?;
    let y = y.trim().parse().ok()?;
    Some((x, y))
}

/// `a + b`, saturating at `max`.
pub fn clamp_add(a: u32, b: u32, max: u32) -> u32 {
    match a.checked_add(b) {
        Some(sum) if sum <= max => sum,
        _ => max,
    }
}

/// A counter that refuses to go past its limit.
#[derive(Debug, Default)]
pub struct Counter {
    pub count: u32,
    pub limit: u32,
}

impl Counter {
    pub fn new(limit: u32) -> Counter {
        Counter { count: 0, limit }
    }

    /// Counts one; false once the limit is reached.
    pub fn bump(&mut self) -> bool {
        if self.count >= self.limit {
            return false;
        }
        self.count += 1;
        true
    }

    pub fn reset(&mut self) {
        self.count = 0;
    }
}

/// Upper-cases words longer than three letters.
pub fn shout(text: &str) -> String {
    let mut out = Vec::new();
    for word in text.split_whitespace() {
        if word.len() > 3 {
            out.push(word.to_uppercase());
        } else {
            out.push(word.to_string());
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hint::black_box;

    /// Work that costs time and covers nothing.
    fn spin(n: u64) -> u64 {
        let mut acc = 0u64;
        for i in 0..n {
            acc = black_box(acc.wrapping_add(i ^ (acc >> 3)));
        }
        acc
    }

    // The five that cover everything the suite covers.

    #[test]
    fn classify_all_classes() {
        assert_eq!(classify(-5), "negative");
        assert_eq!(classify(0), "zero");
        assert_eq!(classify(42), "small");
        assert_eq!(classify(1000), "large");
    }

    #[test]
    fn checksum_of_text() {
        assert_eq!(checksum(b"Wikipedia"), 0x11E6_0398);
    }

    #[test]
    fn parse_pair_all_outcomes() {
        assert_eq!(parse_pair("3, 4"), Some((3, 4)));
        assert_eq!(parse_pair("nope"), None);
        assert_eq!(parse_pair("x,4"), None);
        assert_eq!(parse_pair("3,y"), None);
    }

    #[test]
    fn counter_lifecycle() {
        let mut c = Counter::new(1);
        assert!(c.bump());
        assert!(!c.bump());
        c.reset();
        assert_eq!(c.count, 0);
    }

    #[test]
    fn clamp_add_both_ways() {
        assert_eq!(clamp_add(1, 2, 10), 3);
        assert_eq!(clamp_add(8, 8, 10), 10);
        assert_eq!(clamp_add(u32::MAX, 1, 10), 10);
    }

    // Redundant: each covers a subset of the above.

    #[test]
    fn classify_negative() {
        assert_eq!(classify(-1), "negative");
    }

    #[test]
    fn classify_zero() {
        assert_eq!(classify(0), "zero");
    }

    #[test]
    fn classify_small_slowly() {
        spin(20_000_000);
        assert_eq!(classify(7), "small");
    }

    #[test]
    fn checksum_empty() {
        assert_eq!(checksum(b""), 1);
    }

    #[test]
    fn checksum_large_input_slowly() {
        let data = vec![7u8; 1 << 16];
        spin(20_000_000);
        assert_ne!(checksum(&data), 0);
    }

    #[test]
    fn parse_pair_ok() {
        assert_eq!(parse_pair("1,2"), Some((1, 2)));
    }

    #[test]
    fn parse_pair_no_comma_slowly() {
        spin(20_000_000);
        assert_eq!(parse_pair("12"), None);
    }

    #[test]
    fn counter_bumps() {
        let mut c = Counter::new(5);
        assert!(c.bump());
        assert_eq!(c.count, 1);
    }

    #[test]
    fn clamp_add_fits() {
        assert_eq!(clamp_add(2, 2, 5), 4);
    }
}
