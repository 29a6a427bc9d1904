//! Sizes given in any unsigned integer type (`V: Into<u64>`): the harness drives them with
//! `u64`, and a test that writes `size(5, 7)` without a suffix infers `i32` and does not
//! compile.

/// Total of two sizes, saturating at `u64::MAX`.
pub fn total<V: Into<u64>>(a: V, b: V) -> u64 {
    a.into().saturating_add(b.into())
}

/// A size written with its unit: bytes, KiB or MiB.
pub fn human(size: impl Into<u64>) -> String {
    let n = size.into();
    if n >= 1 << 20 {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} B")
    }
}

/// The largest of the sizes, or `None` for none.
pub fn largest<T: Into<u64> + Copy>(sizes: &[T]) -> Option<u64> {
    sizes.iter().map(|&s| s.into()).max()
}

/// Scales a size by a factor given in any type convertible to `f64`.
pub fn scaled<F: Into<f64>>(size: u64, factor: F) -> u64 {
    let f = factor.into();
    if f <= 0.0 {
        0
    } else {
        (size as f64 * f) as u64
    }
}
