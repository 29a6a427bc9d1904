//! Closure parameters: a predicate taken as `impl Fn`, a fallback computed by an `FnOnce`
//! generic, and a step function applied repeatedly through a `where F: FnMut` bound.

/// The items the predicate accepts, in order.
pub fn keep_if(items: &[i32], pred: impl Fn(&i32) -> bool) -> Vec<i32> {
    let mut kept = Vec::new();
    for item in items {
        if pred(item) {
            kept.push(*item);
        }
    }
    kept
}

/// The value, or the fallback's result when there is none or it is blank.
pub fn or_else_with<F: FnOnce() -> String>(value: Option<String>, fallback: F) -> String {
    match value {
        Some(v) if !v.trim().is_empty() => v,
        _ => fallback(),
    }
}

/// Applies `step` `n` times, stopping early when the value stops changing.
pub fn iterate<F>(mut x: u32, n: u8, mut step: F) -> u32
where
    F: FnMut(u32) -> u32,
{
    for _ in 0..n {
        let next = step(x);
        if next == x {
            break;
        }
        x = next;
    }
    x
}
