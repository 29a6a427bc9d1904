//! `numeric`: an example crate for frugal's test generator.
//!
//! It exercises nested numeric conditions: range checks with several
//! thresholds, mixed signed/unsigned comparisons, checked arithmetic that
//! returns `Option`, loops with conditions inside (statistics over a slice),
//! `while` loops with an iteration cap, and a small value type with methods.
//! Every branch is reachable from the public API and every magic constant
//! appears as a literal, so a generator that seeds from literals can reach
//! roughly all of it.

// Explicit comparisons are deliberate: each one is a branch the generator
// has to cover, with its constant visible as a literal.
#![allow(clippy::manual_range_contains, clippy::manual_is_multiple_of)]

/// Largest number of steps `collatz_steps` will take before giving up.
pub const MAX_STEPS: u32 = 500;

/// Score at or above which a result counts as a pass.
pub const PASS_MARK: i32 = 50;

/// Kind of triangle described by three side lengths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Triangle {
    Invalid,
    Equilateral,
    Isosceles,
    Right,
    Scalene,
}

/// Classifies a triangle from its side lengths.
pub fn classify_triangle(a: u32, b: u32, c: u32) -> Triangle {
    if a == 0 || b == 0 || c == 0 {
        return Triangle::Invalid;
    }
    let (a, b, c) = (a as u64, b as u64, c as u64);
    if a + b <= c || a + c <= b || b + c <= a {
        return Triangle::Invalid;
    }
    if a == b && b == c {
        Triangle::Equilateral
    } else if a == b || b == c || a == c {
        Triangle::Isosceles
    } else if a * a + b * b == c * c || a * a + c * c == b * b || b * b + c * c == a * a {
        Triangle::Right
    } else {
        Triangle::Scalene
    }
}

/// Clamps a raw score into `0..=100`, applying a bonus and a late penalty.
pub fn clamp_score(raw: i32, bonus: bool, late_days: u8) -> i32 {
    let mut score = raw;
    if bonus && raw >= PASS_MARK {
        score = score.saturating_add(5);
    }
    if late_days > 0 {
        if late_days > 7 {
            score = 0;
        } else {
            score = score.saturating_sub(i32::from(late_days) * 10);
        }
    }
    score.clamp(0, 100)
}

/// Maps a score to a letter grade.
pub fn grade(score: i32) -> char {
    if score < 0 || score > 100 {
        '?'
    } else if score >= 90 {
        'A'
    } else if score >= 80 {
        'B'
    } else if score >= 65 {
        'C'
    } else if score >= PASS_MARK {
        'D'
    } else {
        'F'
    }
}

/// Computes `base^exp` returning `None` on overflow.
pub fn checked_pow(base: i64, exp: u32) -> Option<i64> {
    let mut result: i64 = 1;
    let mut i = 0;
    while i < exp {
        result = result.checked_mul(base)?;
        i += 1;
    }
    Some(result)
}

/// Weighted sum `a * wa + b * wb`, `None` if any step overflows or both
/// weights are zero.
pub fn weighted_sum(a: i64, wa: i64, b: i64, wb: i64) -> Option<i64> {
    if wa == 0 && wb == 0 {
        return None;
    }
    let left = a.checked_mul(wa)?;
    let right = b.checked_mul(wb)?;
    left.checked_add(right)
}

/// Summary statistics of a sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    pub count: usize,
    pub min: i64,
    pub max: i64,
    pub mean: f64,
    pub negatives: usize,
    pub outliers: usize,
}

/// Computes statistics; values above 1000 or below -1000 count as outliers.
/// Returns `None` for an empty slice.
pub fn stats(values: &[i64]) -> Option<Stats> {
    let first = *values.first()?;
    let mut min = first;
    let mut max = first;
    let mut sum: i128 = 0;
    let mut negatives = 0;
    let mut outliers = 0;
    for &v in values {
        if v < min {
            min = v;
        }
        if v > max {
            max = v;
        }
        if v < 0 {
            negatives += 1;
        }
        if v > 1000 || v < -1000 {
            outliers += 1;
        }
        sum += i128::from(v);
    }
    Some(Stats {
        count: values.len(),
        min,
        max,
        mean: sum as f64 / values.len() as f64,
        negatives,
        outliers,
    })
}

/// Length of the longest strictly increasing run in `values`.
pub fn longest_increasing_run(values: Vec<i64>) -> usize {
    if values.is_empty() {
        return 0;
    }
    let mut best = 1;
    let mut current = 1;
    for w in values.windows(2) {
        if w[1] > w[0] {
            current += 1;
            if current > best {
                best = current;
            }
        } else {
            current = 1;
        }
    }
    best
}

/// Greatest common divisor (Euclid), always non-negative.
pub fn gcd(a: i64, b: i64) -> u64 {
    let mut x = a.unsigned_abs();
    let mut y = b.unsigned_abs();
    while y != 0 {
        let t = x % y;
        x = y;
        y = t;
    }
    x
}

/// Number of Collatz steps to reach 1, or `None` for 0 or if more than
/// `MAX_STEPS` steps (or an overflow) would be needed.
pub fn collatz_steps(n: u64) -> Option<u32> {
    if n == 0 {
        return None;
    }
    let mut x = n;
    let mut steps = 0;
    while x != 1 {
        if steps >= MAX_STEPS {
            return None;
        }
        x = if x % 2 == 0 {
            x / 2
        } else {
            x.checked_mul(3)?.checked_add(1)?
        };
        steps += 1;
    }
    Some(steps)
}

/// Which quadrant (1..=4) a point lies in; 0 on an axis.
pub fn quadrant(x: f64, y: f64) -> u8 {
    if x.is_nan() || y.is_nan() || x == 0.0 || y == 0.0 {
        0
    } else if x > 0.0 {
        if y > 0.0 {
            1
        } else {
            4
        }
    } else if y > 0.0 {
        2
    } else {
        3
    }
}

/// A capped accumulator of readings.
#[derive(Debug, Clone, PartialEq)]
pub struct Meter {
    pub total: u64,
    pub readings: u32,
    pub peak: u64,
    pub limit: u64,
}

impl Default for Meter {
    fn default() -> Self {
        Self::new(1_000)
    }
}

impl Meter {
    /// Creates an empty meter whose total may not exceed `limit`.
    pub fn new(limit: u64) -> Self {
        Meter {
            total: 0,
            readings: 0,
            peak: 0,
            limit,
        }
    }

    /// Records a reading; returns `false` (and ignores it) if the reading is
    /// over 10000 or the total would exceed the limit.
    pub fn record(&mut self, value: u64) -> bool {
        if value > 10_000 {
            return false;
        }
        let total = self.total.saturating_add(value);
        if total > self.limit {
            return false;
        }
        self.total = total;
        self.readings = self.readings.saturating_add(1);
        if value > self.peak {
            self.peak = value;
        }
        true
    }

    /// Average reading, `None` when nothing has been recorded.
    pub fn average(&self) -> Option<u64> {
        if self.readings == 0 {
            None
        } else {
            Some(self.total / u64::from(self.readings))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangles() {
        assert_eq!(classify_triangle(3, 4, 5), Triangle::Right);
        assert_eq!(classify_triangle(2, 2, 2), Triangle::Equilateral);
        assert_eq!(classify_triangle(1, 2, 3), Triangle::Invalid);
        assert_eq!(classify_triangle(0, 2, 3), Triangle::Invalid);
    }

    #[test]
    fn grades() {
        assert_eq!(grade(95), 'A');
        assert_eq!(grade(50), 'D');
        assert_eq!(grade(101), '?');
        assert_eq!(clamp_score(98, true, 0), 100);
        assert_eq!(clamp_score(70, false, 8), 0);
    }

    #[test]
    fn collatz() {
        assert_eq!(collatz_steps(1), Some(0));
        assert_eq!(collatz_steps(6), Some(8));
        assert_eq!(collatz_steps(0), None);
    }
}
