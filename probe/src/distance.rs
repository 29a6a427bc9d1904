//! Distances between the operands of a comparison, chosen by autoref specialisation.
//!
//! The instrumenter has no type information, so it writes `(&&&Probe(l, r)).mag()` with `l` and
//! `r` borrowed from the operands after the comparison ran. Method lookup tries the most
//! referenced `Self` first: numbers get `|a - b|` (impls on `&&Probe`), strings and chars the
//! left-alignment distance of \[testability\] (impls on `&Probe`), everything else no magnitude (the
//! impl on `Probe` itself), which the caller turns into a 0/1 flag.

/// The operand pair of one comparison, borrowed.
pub struct Probe<L, R>(pub L, pub R);

/// How far apart two operands are; `None` when the types give no useful measure.
pub trait Mag {
    /// The distance between the two operands (0 when equal), or `None` when there is no measure.
    fn mag(&self) -> Option<f64>;
}

impl<L, R> Mag for Probe<L, R> {
    #[inline]
    fn mag(&self) -> Option<f64> {
        None
    }
}

macro_rules! numeric {
    ($($t:ty),*) => {$(
        impl Mag for &&Probe<&$t, &$t> {
            #[inline]
            fn mag(&self) -> Option<f64> {
                let d = (*self.0 as f64 - *self.1 as f64).abs();
                // NaN operands compare false both ways; treat them as far from anything.
                Some(if d.is_nan() { f64::MAX } else { d })
            }
        }
    )*};
}
numeric!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
);

impl Mag for &&Probe<&char, &char> {
    #[inline]
    fn mag(&self) -> Option<f64> {
        Some((*self.0 as u32 as f64 - *self.1 as u32 as f64).abs())
    }
}

/// Cost of a missing or extra char: larger than any code-point difference.
const MISSING_CHAR: f64 = 0x11_0000 as f64;

/// Left-alignment distance (\[testability\] §4): code-point differences of aligned chars plus
/// a fixed penalty per missing or extra char.
///
/// Runs on every comparison with a string literal, often with long inputs against short
/// literals: the equal prefix is skipped bytewise and the unaligned tail only counted. Every
/// term is an integer below 2^53, so the sum is exactly the one a char-by-char float loop gives.
pub fn left_align(a: &str, b: &str) -> f64 {
    let same = common_prefix(a, b);
    let (mut ia, mut ib) = (a[same..].chars(), b[same..].chars());
    let mut d: u64 = 0;
    loop {
        match (ia.next(), ib.next()) {
            (Some(x), Some(y)) => d += u64::from((x as u32).abs_diff(y as u32)),
            (Some(_), None) => return d as f64 + (1 + ia.count()) as f64 * MISSING_CHAR,
            (None, Some(_)) => return d as f64 + (1 + ib.count()) as f64 * MISSING_CHAR,
            (None, None) => return d as f64,
        }
    }
}

/// The left-alignment distance by its definition, char by char in floats: the reference
/// `left_align` must equal bit for bit (its tests), and the probe's former code (the
/// baseline of the `string_arms` benchmark).
pub fn left_align_by_chars(a: &str, b: &str) -> f64 {
    let mut d = 0.0;
    let (mut ia, mut ib) = (a.chars(), b.chars());
    loop {
        match (ia.next(), ib.next()) {
            (Some(x), Some(y)) => d += (x as u32 as f64 - y as u32 as f64).abs(),
            (Some(_), None) | (None, Some(_)) => d += MISSING_CHAR,
            (None, None) => return d,
        }
    }
}

/// Length in bytes of the longest common prefix of `a` and `b` that ends on a char boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let mut n = x.iter().zip(y).take_while(|(p, q)| p == q).count();
    // Equal bytes up to `n`: a boundary of one is a boundary of the other.
    while !a.is_char_boundary(n) {
        n -= 1;
    }
    n
}

macro_rules! stringy {
    ($(($l:ty, $r:ty)),*) => {$(
        impl Mag for &Probe<&$l, &$r> {
            #[inline]
            fn mag(&self) -> Option<f64> {
                let (l, r): (&str, &str) = (self.0.as_ref(), self.1.as_ref());
                let d = left_align(l, r);
                if d > 0.0 {
                    // Either side may be the one the test could not know (`seen.rs`).
                    crate::seen::note(l);
                    crate::seen::note(r);
                }
                Some(d)
            }
        }
    )*};
}
stringy!(
    (String, String),
    (String, &str),
    (&str, String),
    (&str, &str),
    (str, str),
    (String, &String),
    (&String, String),
    (&String, &String),
    (&String, &str),
    (&str, &String),
    (&&str, &&str),
    (&&str, &str),
    (&str, &&str)
);

/// Cost of a missing or extra byte: larger than any byte difference.
const MISSING_BYTE: f64 = 256.0;

/// Left-alignment distance over bytes, for byte strings as [`left_align`] is for text: byte
/// differences of aligned bytes plus a fixed penalty per missing or extra byte.
pub fn left_align_bytes(a: &[u8], b: &[u8]) -> f64 {
    let d: u64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| u64::from(x.abs_diff(*y)))
        .sum();
    d as f64 + a.len().abs_diff(b.len()) as f64 * MISSING_BYTE
}

macro_rules! bytes {
    ($(($l:ty, $r:ty)),*) => {$(
        impl Mag for &Probe<&$l, &$r> {
            #[inline]
            fn mag(&self) -> Option<f64> {
                let (l, r): (&[u8], &[u8]) = (self.0.as_ref(), self.1.as_ref());
                Some(left_align_bytes(l, r))
            }
        }
    )*};
}
bytes!(
    (&[u8], &[u8]),
    ([u8], [u8]),
    (Vec<u8>, Vec<u8>),
    (Vec<u8>, &[u8]),
    (&[u8], Vec<u8>)
);

// Byte string literals are arrays: `&s[18..22] != b" GMT"` compares a slice with `&[u8; 4]`.
impl<const N: usize> Mag for &Probe<&&[u8], &&[u8; N]> {
    #[inline]
    fn mag(&self) -> Option<f64> {
        Some(left_align_bytes(self.0, &self.1[..]))
    }
}

impl<const N: usize> Mag for &Probe<&&[u8; N], &&[u8]> {
    #[inline]
    fn mag(&self) -> Option<f64> {
        Some(left_align_bytes(&self.0[..], self.1))
    }
}

impl<const N: usize, const M: usize> Mag for &Probe<&[u8; N], &[u8; M]> {
    #[inline]
    fn mag(&self) -> Option<f64> {
        Some(left_align_bytes(&self.0[..], &self.1[..]))
    }
}

#[cfg(test)]
// The extra borrows are the point: they are how the instrumenter calls `mag`.
#[expect(clippy::needless_borrow)]
mod tests {
    use super::*;

    #[test]
    fn numbers_get_their_absolute_difference() {
        let (a, b) = (3i32, 10i32);
        let (l, r) = (&a, &b);
        assert_eq!((&&&Probe(l, r)).mag(), Some(7.0));
        let (x, y) = (2.5f64, -1.0f64);
        assert_eq!((&&&Probe(&x, &y)).mag(), Some(3.5));
    }

    #[test]
    fn strings_get_left_alignment_distance() {
        let s = String::from("abc");
        let t: &str = "abd";
        assert_eq!((&&&Probe(&s, &t)).mag(), Some(1.0));
        let u: &str = "ab";
        assert_eq!((&&&Probe(&u, &t)).mag(), Some(MISSING_CHAR));
    }

    #[test]
    fn left_alignment_equals_its_char_by_char_definition() {
        let words = [
            "",
            "a",
            "ab",
            "abc",
            "abd",
            "b",
            "é",
            "éa",
            "eé",
            "ée",
            "日本",
            "日本語",
            "日x",
            "\u{10FFFF}",
            "a\u{10FFFF}z",
            "true",
            "tru",
            "TRUE",
            "ture",
        ];
        let long = "ab".repeat(300) + "é";
        for a in words.iter().copied().chain([long.as_str()]) {
            for b in words.iter().copied().chain([long.as_str()]) {
                let want = left_align_by_chars(a, b);
                assert_eq!(left_align(a, b).to_bits(), want.to_bits(), "{a:?} vs {b:?}");
                let (ab, ba) = (format!("{a}{b}"), format!("{b}{a}"));
                let want = left_align_by_chars(&ab, &ba);
                assert_eq!(
                    left_align(&ab, &ba).to_bits(),
                    want.to_bits(),
                    "{ab:?} vs {ba:?}"
                );
            }
        }
    }

    #[test]
    fn byte_strings_get_left_alignment_distance() {
        let s: &[u8] = b"Mon, 06";
        let (head, name): (&[u8], &[u8]) = (&s[..5], b"Tue, ");
        assert_eq!((&&&Probe(&head, &name)).mag(), Some(7.0 + 6.0 + 9.0));
        let tail: &[u8] = &s[5..];
        let gmt = b" GMT";
        assert_eq!(
            (&&&Probe(&tail, &gmt)).mag(),
            Some(16.0 + 17.0 + 2.0 * 256.0)
        );
        let v = b"ab".to_vec();
        assert_eq!((&&&Probe(&v, &v)).mag(), Some(0.0));
        assert_eq!((&&&Probe(b"abc", b"abd")).mag(), Some(1.0));
    }

    #[test]
    fn other_types_fall_back_to_no_magnitude() {
        #[derive(PartialEq)]
        struct Opaque(u8);
        let (a, b) = (Opaque(1), Opaque(2));
        assert_eq!((&&&Probe(&a, &b)).mag(), None);
        let (o, p) = (Some(1), Some(2));
        assert_eq!((&&&Probe(&o, &p)).mag(), None);
    }

    #[test]
    fn integer_literals_are_inferred_before_the_probe() {
        let x: u8 = 200;
        let l = &(x);
        let r = &(7);
        let c = *l > *r;
        assert!(c);
        assert_eq!((&&&Probe(l, r)).mag(), Some(193.0));
    }
}
