//! Distances for the flag APIs of std (\[testability\] §4, mapped to Rust): how far a call's
//! inputs are from making it return `true`, `Some` or `Ok`. Pure functions over plain values;
//! the dispatch from the crate's types to them is in `observe.rs`.
//!
//! Every function is total (no panics, no allocation) and bounded: a scan looks at no more
//! than [`SCAN`] chars or [`ELEMS`] elements, so a long input costs the observer a constant.
//! A distance of 0 means "satisfied"; callers never trust a 0 against the real result (the
//! scan cap can hide a match), they take the result from the call itself.

/// Chars looked at by one scan (prefix, suffix, template, window search).
pub const SCAN: usize = 256;
/// Chars compared by one window search over all its windows.
const WINDOW_WORK: usize = 4096;
/// Elements or keys looked at in one collection.
pub const ELEMS: usize = 256;
/// Cost of a char a template needs and the input lacks (or has in excess). Smaller than
/// `left_align`'s penalty: templates compare against classes of chars, not one string.
pub const MISSING: f64 = 128.0;

/// Distance from `c` to the inclusive range `lo..=hi` (`distanceToRange` of the paper's tool).
#[inline]
pub fn to_range(c: f64, lo: f64, hi: f64) -> f64 {
    (lo - c).max(0.0) + (c - hi).max(0.0)
}

fn char_to_range(c: char, lo: char, hi: char) -> f64 {
    to_range(
        f64::from(c as u32),
        f64::from(lo as u32),
        f64::from(hi as u32),
    )
}

/// Left alignment over at most [`SCAN`] chars of each side.
fn align_capped(a: impl Iterator<Item = char>, b: impl Iterator<Item = char>) -> f64 {
    let (mut a, mut b) = (a.take(SCAN), b.take(SCAN));
    let mut d = 0.0;
    loop {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) => d += (f64::from(x as u32) - f64::from(y as u32)).abs(),
            (Some(_), None) | (None, Some(_)) => d += 0x11_0000 as f64,
            (None, None) => return d,
        }
    }
}

/// `s == p`.
pub fn eq(s: &str, p: &str) -> f64 {
    align_capped(s.chars(), p.chars())
}

/// `s.eq_ignore_ascii_case(p)`: equality of the ASCII-lowercased strings.
pub fn eq_ignore_ascii_case(s: &str, p: &str) -> f64 {
    let low = |c: char| c.to_ascii_lowercase();
    align_capped(s.chars().map(low), p.chars().map(low))
}

/// `s.starts_with(p)`: equality of `p` and the first `|p|` chars of `s`.
pub fn prefix(s: &str, p: &str) -> f64 {
    let n = p.chars().count();
    align_capped(s.chars().take(n), p.chars())
}

/// `s.ends_with(p)`: equality of `p` and the last `|p|` chars of `s`, compared from the end.
pub fn suffix(s: &str, p: &str) -> f64 {
    let n = p.chars().count();
    align_capped(s.chars().rev().take(n), p.chars().rev())
}

/// `s.contains(p)`: the best window of `|p|` chars (\[testability\] #7), over at most
/// [`WINDOW_WORK`] char comparisons in all.
pub fn contains(s: &str, p: &str) -> f64 {
    let n = p.chars().count();
    if n == 0 {
        return 0.0;
    }
    let windows = (WINDOW_WORK / n).max(1);
    let mut best = f64::MAX;
    for (i, (start, _)) in s.char_indices().take(windows).enumerate() {
        let d = align_capped(s[start..].chars().take(n), p.chars());
        best = best.min(d);
        if best == 0.0 || (i > 0 && s[start..].chars().nth(n).is_none()) {
            break;
        }
    }
    if best == f64::MAX { eq(s, p) } else { best }
}

/// `s.starts_with(c)` for a char pattern.
pub fn prefix_char(s: &str, c: char) -> f64 {
    s.chars().next().map_or(MISSING, |x| char_dist(x, c))
}

/// `s.ends_with(c)` for a char pattern.
pub fn suffix_char(s: &str, c: char) -> f64 {
    s.chars().next_back().map_or(MISSING, |x| char_dist(x, c))
}

/// `s.contains(c)` for a char pattern: the nearest char of `s`.
pub fn contains_char(s: &str, c: char) -> f64 {
    s.chars()
        .take(SCAN)
        .map(|x| char_dist(x, c))
        .fold(MISSING, f64::min)
}

fn char_dist(a: char, b: char) -> f64 {
    (f64::from(a as u32) - f64::from(b as u32)).abs()
}

/// A value compared by `contains`, `contains_key` or `get`, reduced to what has a distance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KeyRef<'a> {
    /// A number of any primitive numeric type, as `f64`.
    Num(f64),
    /// A string.
    Text(&'a str),
    /// A char.
    Char(char),
    /// A bool.
    Bool(bool),
}

/// Distance between two keys; `None` when they are of different kinds.
pub fn key_dist(a: KeyRef<'_>, b: KeyRef<'_>) -> Option<f64> {
    Some(match (a, b) {
        (KeyRef::Num(x), KeyRef::Num(y)) => {
            let d = (x - y).abs();
            if d.is_nan() { f64::MAX } else { d }
        }
        (KeyRef::Text(x), KeyRef::Text(y)) => eq(x, y),
        (KeyRef::Char(x), KeyRef::Char(y)) => char_dist(x, y),
        (KeyRef::Bool(x), KeyRef::Bool(y)) => f64::from(u8::from(x != y)),
        _ => return None,
    })
}

/// [`nearest_key`]'s distance alone.
#[cfg(test)]
fn nearest<'a>(elems: impl Iterator<Item = KeyRef<'a>>, needle: KeyRef<'_>) -> Option<f64> {
    nearest_key(elems, needle).map(|(d, _)| d)
}

/// `contains`/`contains_key`: the distance to the nearest of at most [`ELEMS`] elements, and
/// that element (the first of equals); `None` when there is none or none is comparable.
pub fn nearest_key<'a>(
    elems: impl Iterator<Item = KeyRef<'a>>,
    needle: KeyRef<'_>,
) -> Option<(f64, KeyRef<'a>)> {
    let mut best: Option<(f64, KeyRef<'a>)> = None;
    for e in elems.take(ELEMS) {
        if let Some(d) = key_dist(e, needle) {
            if best.is_none_or(|(b, _)| d < b) {
                best = Some((d, e));
            }
            if d == 0.0 {
                break;
            }
        }
    }
    best
}

/// `slice.get(i)`: how far `i` is past the last index.
pub fn index(i: f64, len: usize) -> f64 {
    (i - len as f64 + 1.0).max(0.0)
}

/// How far char `c` is from the nearest of the `allowed` ranges (0 inside one).
fn class_dist(c: char, allowed: &[(char, char)]) -> f64 {
    allowed
        .iter()
        .map(|&(lo, hi)| char_to_range(c, lo, hi))
        .fold(f64::MAX, f64::min)
}

const DIGITS: &[(char, char)] = &[('0', '9')];

/// The integer types `parse` and `try_from` know, by `type_name`: bounds as f64.
pub fn int_bounds(type_name: &str) -> Option<(f64, f64)> {
    Some(match type_name {
        "u8" => (0.0, u8::MAX as f64),
        "u16" => (0.0, u16::MAX as f64),
        "u32" => (0.0, u32::MAX as f64),
        "u64" => (0.0, u64::MAX as f64),
        "u128" => (0.0, u128::MAX as f64),
        "usize" => (0.0, usize::MAX as f64),
        "i8" => (i8::MIN as f64, i8::MAX as f64),
        "i16" => (i16::MIN as f64, i16::MAX as f64),
        "i32" => (i32::MIN as f64, i32::MAX as f64),
        "i64" => (i64::MIN as f64, i64::MAX as f64),
        "i128" => (i128::MIN as f64, i128::MAX as f64),
        "isize" => (isize::MIN as f64, isize::MAX as f64),
        _ => return None,
    })
}

/// `s.parse::<int>()` (Rust's grammar: an optional `+`, or `-` for signed types, then one or
/// more ASCII digits; nothing else). Syntax first; a well-formed number out of range costs
/// 1 plus the number of decimal orders of magnitude it exceeds the bound by.
pub fn parse_int(s: &str, lo: f64, hi: f64) -> f64 {
    let signed = lo < 0.0;
    let mut chars = s.chars().take(SCAN);
    let Some(first) = chars.next() else {
        return MISSING;
    };
    let long = s.len() > first.len_utf8();
    let sign = |c: char| c == '+' || (signed && c == '-');
    let mut d = if long && sign(first) {
        0.0
    } else if long {
        let signs: &[(char, char)] = if signed {
            &[('0', '9'), ('+', '+'), ('-', '-')]
        } else {
            &[('0', '9'), ('+', '+')]
        };
        class_dist(first, signs)
    } else {
        class_dist(first, DIGITS)
    };
    d += chars.map(|c| class_dist(c, DIGITS)).sum::<f64>();
    if d > 0.0 {
        return d;
    }
    overflow(s, lo, hi)
}

/// A syntactically valid integer's distance to the range `lo..=hi`: 0 inside, else 1 plus the
/// decimal orders of magnitude of the excess, so dropping a digit is always progress.
fn overflow(s: &str, lo: f64, hi: f64) -> f64 {
    let digits = s.trim_start_matches(['+', '-']);
    let sign = if s.starts_with('-') { -1.0 } else { 1.0 };
    if digits.len() > SCAN {
        // Beyond any bound (u128 has 39 digits); not worth parsing.
        return 1.0 + digits.len().min(SCAN * 4) as f64;
    }
    match digits.parse::<f64>() {
        Ok(v) if v.is_finite() => {
            let excess = to_range(sign * v, lo, hi);
            if excess == 0.0 {
                0.0
            } else {
                1.0 + (1.0 + excess).log10()
            }
        }
        // Past 308 digits f64 is infinite: the digit count is the order of magnitude.
        _ => 1.0 + digits.trim_start_matches('0').len().min(SCAN * 4) as f64,
    }
}

/// Float parser states (Rust's `f64::from_str` grammar).
#[derive(Clone, Copy, PartialEq)]
enum F {
    Start,
    Signed,
    Int,
    Dot,
    Frac,
    ExpStart,
    ExpSigned,
    Exp,
}

/// The chars a float state accepts, and the state each leads to.
fn float_next(state: F, c: char) -> Option<F> {
    let digit = c.is_ascii_digit();
    let sign = c == '+' || c == '-';
    let exp = c == 'e' || c == 'E';
    match state {
        F::Start if sign => Some(F::Signed),
        F::Start | F::Signed if digit => Some(F::Int),
        F::Start | F::Signed if c == '.' => Some(F::Dot),
        F::Int if digit => Some(F::Int),
        F::Int if c == '.' => Some(F::Frac),
        F::Int | F::Frac if exp => Some(F::ExpStart),
        F::Dot | F::Frac if digit => Some(F::Frac),
        F::ExpStart if sign => Some(F::ExpSigned),
        F::ExpStart | F::ExpSigned | F::Exp if digit => Some(F::Exp),
        _ => None,
    }
}

/// Nearest accepted char of a float state and the state it leads to (a digit, or for the
/// states before the mantissa a sign or `.` if nearer).
fn float_repair(state: F, c: char) -> (f64, F) {
    let options: &[(char, char)] = match state {
        F::Start => &[('0', '9'), ('+', '+'), ('-', '-'), ('.', '.')],
        F::Signed => &[('0', '9'), ('.', '.')],
        F::Int => &[('0', '9'), ('.', '.'), ('e', 'e'), ('E', 'E')],
        F::Frac => &[('0', '9'), ('e', 'e'), ('E', 'E')],
        F::ExpStart => &[('0', '9'), ('+', '+'), ('-', '-')],
        F::Dot | F::ExpSigned | F::Exp => DIGITS,
    };
    let (d, lo) = options
        .iter()
        .map(|&(lo, hi)| (char_to_range(c, lo, hi), lo))
        .fold((f64::MAX, '0'), |a, b| if b.0 < a.0 { b } else { a });
    let repaired = if lo == '0' { '5' } else { lo };
    (d, float_next(state, repaired).unwrap_or(F::Int))
}

/// `s.parse::<f32 | f64>()`: a template over Rust's grammar (`[+-]`, digits with one optional
/// `.` and at least one digit, an optional exponent `e[+-]digits`), or the words `inf`,
/// `infinity` and `nan` in any case after the sign, whichever is nearer. Never overflows.
pub fn parse_float(s: &str) -> f64 {
    let mut state = F::Start;
    let mut d = 0.0;
    for c in s.chars().take(SCAN) {
        state = match float_next(state, c) {
            Some(next) => next,
            None => {
                let (cost, next) = float_repair(state, c);
                d += cost;
                next
            }
        };
    }
    d += match state {
        F::Int | F::Frac | F::Exp => 0.0,
        F::ExpStart | F::ExpSigned | F::Dot | F::Start | F::Signed => MISSING,
    };
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let word = ["inf", "infinity", "nan"]
        .iter()
        .map(|w| eq_ignore_ascii_case(body, w))
        .fold(f64::MAX, f64::min);
    d.min(word)
}

/// `s.parse::<bool>()`: exactly `true` or `false`.
pub fn parse_bool(s: &str) -> f64 {
    eq(s, "true").min(eq(s, "false"))
}

/// `s.parse::<char>()`: exactly one char.
pub fn parse_char(s: &str) -> f64 {
    let n = s.chars().take(SCAN).count();
    if n == 1 {
        0.0
    } else {
        MISSING * (n as f64 - 1.0).abs()
    }
}

/// `T::try_from(v)` into `char`: the scalar values, without the surrogates.
pub fn char_range(v: f64) -> f64 {
    let surrogate = if (0xD800 as f64..=0xDFFF as f64).contains(&v) {
        (v - 0xD7FF as f64).min(0xE000 as f64 - v)
    } else {
        0.0
    };
    to_range(v, 0.0, 0x10_FFFF as f64) + surrogate
}

/// `c.to_digit(radix)`: distance to the digits of the radix (`0-9`, then letters either case).
pub fn to_digit(c: char, radix: u32) -> f64 {
    let radix = radix.clamp(2, 36);
    let top = |base: char, n: u32| char::from_u32(base as u32 + n - 1).unwrap_or(base);
    let mut d = char_to_range(c, '0', top('0', radix.min(10)));
    if radix > 10 {
        d = d
            .min(char_to_range(c, 'a', top('a', radix - 10)))
            .min(char_to_range(c, 'A', top('A', radix - 10)));
    }
    d
}

/// The ASCII class tests (`is_ascii_digit`, ...), by method name: distance to the class.
pub fn ascii_class(c: char, class: &str) -> Option<f64> {
    let ranges: &[(char, char)] = match class {
        "is_ascii_digit" => DIGITS,
        "is_ascii_alphabetic" => &[('a', 'z'), ('A', 'Z')],
        "is_ascii_alphanumeric" => &[('0', '9'), ('a', 'z'), ('A', 'Z')],
        "is_ascii_uppercase" => &[('A', 'Z')],
        "is_ascii_lowercase" => &[('a', 'z')],
        "is_ascii_hexdigit" => &[('0', '9'), ('a', 'f'), ('A', 'F')],
        "is_ascii_whitespace" => &[('\t', '\n'), ('\x0C', '\r'), (' ', ' ')],
        "is_ascii_punctuation" => &[('!', '/'), (':', '@'), ('[', '`'), ('{', '~')],
        "is_ascii_graphic" => &[('!', '~')],
        "is_ascii_control" => &[('\0', '\x1F'), ('\x7F', '\x7F')],
        _ => return None,
    };
    Some(class_dist(c, ranges))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_prefix_suffix_and_windows() {
        assert_eq!(eq("abc", "abc"), 0.0);
        assert_eq!(eq("abd", "abc"), 1.0);
        assert_eq!(prefix("GET /", "GET"), 0.0);
        assert_eq!(prefix("GEU /", "GET"), 1.0);
        // Too short: one missing char.
        assert_eq!(prefix("GE", "GET"), 0x11_0000 as f64);
        assert_eq!(suffix("file.rs", ".rs"), 0.0);
        assert_eq!(suffix("file.rt", ".rs"), 1.0);
        assert_eq!(contains("xxabcxx", "abc"), 0.0);
        assert_eq!(contains("xxabdxx", "abc"), 1.0);
        assert_eq!(contains("ab", "abc"), 0x11_0000 as f64);
        assert_eq!(contains("anything", ""), 0.0);
        assert!(prefix("", "a") > prefix("b", "a"));
    }

    #[test]
    fn char_patterns_and_ignore_case() {
        assert_eq!(prefix_char("#x", '#'), 0.0);
        assert_eq!(prefix_char("$x", '#'), 1.0);
        assert_eq!(prefix_char("", '#'), MISSING);
        assert_eq!(suffix_char("ab", 'c'), 1.0);
        assert_eq!(contains_char("a,b", ','), 0.0);
        assert_eq!(contains_char("a-b", ','), 1.0);
        assert_eq!(eq_ignore_ascii_case("HeLLo", "hello"), 0.0);
        assert_eq!(eq_ignore_ascii_case("HeLLp", "hello"), 1.0);
    }

    #[test]
    fn collections_take_the_nearest_comparable_element() {
        let elems = [KeyRef::Num(1.0), KeyRef::Num(10.0)];
        assert_eq!(nearest(elems.into_iter(), KeyRef::Num(8.0)), Some(2.0));
        let words = [KeyRef::Text("get"), KeyRef::Text("put")];
        assert_eq!(nearest(words.into_iter(), KeyRef::Text("pus")), Some(1.0));
        assert_eq!(nearest(std::iter::empty(), KeyRef::Num(1.0)), None);
        assert_eq!(nearest(words.into_iter(), KeyRef::Num(1.0)), None);
        assert_eq!(index(5.0, 3), 3.0);
        assert_eq!(index(2.0, 3), 0.0);
    }

    #[test]
    fn integers_follow_rusts_grammar() {
        let (lo, hi) = int_bounds("u8").unwrap();
        assert_eq!(parse_int("42", lo, hi), 0.0);
        assert_eq!(parse_int("+42", lo, hi), 0.0);
        assert_eq!(parse_int("", lo, hi), MISSING);
        // `+` alone is not a number: it must become a digit.
        assert_eq!(parse_int("+", lo, hi), 5.0);
        assert!(parse_int("4a", lo, hi) > 0.0);
        assert!(parse_int("4a", lo, hi) < parse_int("4z", lo, hi));
        // Unsigned types reject `-`.
        assert!(parse_int("-1", lo, hi) > 0.0);
        let (slo, shi) = int_bounds("i8").unwrap();
        assert_eq!(parse_int("-128", slo, shi), 0.0);
        assert_eq!(parse_int(" 1", slo, shi), 11.0);
        // Overflow: syntax is fine, the distance is in orders of magnitude past the bound.
        let small = parse_int("300", lo, hi);
        let big = parse_int("300000", lo, hi);
        assert!(small >= 1.0 && big > small, "{small} {big}");
        assert!(parse_int("-129", slo, shi) >= 1.0);
        let long = "9".repeat(400);
        assert!(parse_int(&long, lo, hi) > big);
    }

    #[test]
    fn floats_accept_exponents_and_words() {
        for ok in [
            "1",
            "-1.5",
            ".5",
            "5.",
            "1e5",
            "1E-5",
            "+2.5e+3",
            "inf",
            "-Infinity",
            "NaN",
        ] {
            assert_eq!(parse_float(ok), 0.0, "{ok}");
            assert!(ok.parse::<f64>().is_ok());
        }
        for bad in ["", ".", "e5", "1e", "1e+", "1.2.3", "abc", "-"] {
            assert!(parse_float(bad) > 0.0, "{bad}");
            assert!(bad.parse::<f64>().is_err());
        }
        assert!(parse_float("1x") < parse_float("1~"));
    }

    #[test]
    fn bool_char_and_ranges() {
        assert_eq!(parse_bool("true"), 0.0);
        assert_eq!(parse_bool("falsf"), 1.0);
        assert_eq!(parse_char("x"), 0.0);
        assert_eq!(parse_char("xy"), MISSING);
        assert_eq!(to_range(300.0, 0.0, 255.0), 45.0);
        assert_eq!(to_range(-2.0, 0.0, 255.0), 2.0);
        assert_eq!(char_range(0x41 as f64), 0.0);
        assert!(char_range(0xD900 as f64) > 0.0);
        assert!(char_range(0x11_0000 as f64) > 0.0);
    }

    #[test]
    fn digits_and_ascii_classes() {
        assert_eq!(to_digit('7', 10), 0.0);
        assert_eq!(to_digit(':', 10), 1.0);
        assert_eq!(to_digit('8', 8), 1.0);
        assert_eq!(to_digit('f', 16), 0.0);
        assert_eq!(to_digit('G', 16), 1.0);
        assert_eq!(ascii_class('5', "is_ascii_digit"), Some(0.0));
        assert_eq!(ascii_class('/', "is_ascii_digit"), Some(1.0));
        assert_eq!(ascii_class('[', "is_ascii_uppercase"), Some(1.0));
        assert_eq!(ascii_class(' ', "is_ascii_whitespace"), Some(0.0));
        assert_eq!(ascii_class('a', "is_made_up"), None);
    }

    /// A small deterministic generator (xorshift), so the property tests need no dependency:
    /// strings biased towards the characters the grammars care about, plus any char.
    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn char(&mut self) -> char {
            const PIECES: &[char] = &[
                '0',
                '1',
                '5',
                '9',
                '+',
                '-',
                '.',
                'e',
                'E',
                'i',
                'n',
                'f',
                'a',
                't',
                'r',
                'u',
                ' ',
                'x',
                'é',
                '\u{10FFFF}',
                '\0',
            ];
            match self.below(3) {
                0 => PIECES[self.below(PIECES.len())],
                1 => char::from(self.below(128) as u8),
                _ => char::from_u32(self.below(0x11_0000) as u32).unwrap_or('?'),
            }
        }
        fn string(&mut self, max: usize) -> String {
            let words = [
                "inf", "infinity", "NaN", "true", "false", "255", "-128", "1e5",
            ];
            if self.below(8) == 0 {
                return words[self.below(words.len())].to_string();
            }
            let n = self.below(max + 1);
            (0..n).map(|_| self.char()).collect()
        }
    }

    /// Observers' distances agree with std: 0 exactly when the call succeeds, on arbitrary
    /// strings (short enough for the scan caps), and never panic, also on long ones.
    #[test]
    fn distances_are_zero_exactly_when_std_says_yes() {
        let mut g = Gen(0x9E37_79B9_7F4A_7C15);
        for _ in 0..20_000 {
            let s = g.string(12);
            let p = g.string(3);
            assert_eq!(
                prefix(&s, &p) == 0.0,
                s.starts_with(p.as_str()),
                "{s:?} {p:?}"
            );
            assert_eq!(
                suffix(&s, &p) == 0.0,
                s.ends_with(p.as_str()),
                "{s:?} {p:?}"
            );
            assert_eq!(
                contains(&s, &p) == 0.0,
                s.contains(p.as_str()),
                "{s:?} {p:?}"
            );
            assert_eq!(
                eq_ignore_ascii_case(&s, &p) == 0.0,
                s.eq_ignore_ascii_case(&p),
                "{s:?} {p:?}"
            );
            let c = g.char();
            assert_eq!(prefix_char(&s, c) == 0.0, s.starts_with(c));
            assert_eq!(suffix_char(&s, c) == 0.0, s.ends_with(c));
            assert_eq!(contains_char(&s, c) == 0.0, s.contains(c));
            assert_eq!(parse_float(&s) == 0.0, s.parse::<f64>().is_ok(), "{s:?}");
            assert_eq!(parse_bool(&s) == 0.0, s.parse::<bool>().is_ok(), "{s:?}");
            assert_eq!(parse_char(&s) == 0.0, s.parse::<char>().is_ok(), "{s:?}");
            macro_rules! ints {
                ($($t:ty),*) => {$(
                    let (lo, hi) = int_bounds(stringify!($t)).unwrap();
                    let d = parse_int(&s, lo, hi);
                    assert!(d.is_finite() && d >= 0.0, "{s:?}");
                    assert_eq!(d == 0.0, s.parse::<$t>().is_ok(), "{s:?} as {}", stringify!($t));
                )*};
            }
            ints!(u8, i8, u16, i16, u32, i32, u64, i64);
            let radix = 2 + g.below(35) as u32;
            assert_eq!(
                to_digit(c, radix) == 0.0,
                c.is_digit(radix),
                "{c:?} {radix}"
            );
            for class in [
                "is_ascii_digit",
                "is_ascii_hexdigit",
                "is_ascii_punctuation",
            ] {
                let yes = match class {
                    "is_ascii_digit" => c.is_ascii_digit(),
                    "is_ascii_hexdigit" => c.is_ascii_hexdigit(),
                    _ => c.is_ascii_punctuation(),
                };
                assert_eq!(ascii_class(c, class) == Some(0.0), yes, "{c:?} {class}");
            }
        }
    }

    #[test]
    fn long_inputs_are_scanned_within_the_caps_without_panicking() {
        let mut g = Gen(7);
        let long: String = (0..200_000).map(|_| g.char()).collect();
        let digits = "7".repeat(100_000);
        for d in [
            prefix(&long, "abc"),
            suffix(&long, "abc"),
            contains(&long, "needle"),
            contains_char(&long, ','),
            eq(&long, &digits),
            parse_float(&long),
            parse_int(&digits, 0.0, u64::MAX as f64),
            parse_int(&long, 0.0, 255.0),
            parse_char(&long),
        ] {
            assert!(d.is_finite() && d >= 0.0);
        }
        let keys = (0..10_000).map(|i| KeyRef::Num(f64::from(i)));
        assert!(nearest(keys, KeyRef::Num(-1.0)).is_some());
    }
}
