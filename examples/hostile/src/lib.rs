//! `hostile`: an example crate for frugal's executor robustness tests.
//!
//! **This crate is deliberately hostile.** Most of its public functions
//! misbehave on purpose so that frugal's sandboxed executor can be tested
//! against hangs, crashes and resource exhaustion. A test generator that
//! calls them must survive, classify the failure (timeout, crash, abort,
//! exit, panic) and carry on. Never call these functions in-process from a
//! tool that must keep running.
//!
//! | function            | behaviour                                                        |
//! |---------------------|------------------------------------------------------------------|
//! | `spin_forever()`    | busy loop that never returns (CPU-bound hang)                    |
//! | `spin_if(n)`        | busy loop forever when `n == 7`, otherwise returns `n`           |
//! | `recurse_forever(n)`| unbounded recursion, ends in a stack overflow (abort, SIGABRT)   |
//! | `abort_now()`       | `std::process::abort()` (SIGABRT)                                |
//! | `exit_now(code)`    | `std::process::exit(code)`, ends the process without a panic    |
//! | `memory_bomb(n)`    | asks for an allocation of about `usize::MAX / 4` bytes, which    |
//! |                     | fails at once with "memory allocation failed" and an abort       |
//! | `sleep_forever()`   | sleeps in a loop forever (idle hang, no CPU use)                 |
//! | `panic_with(msg)`   | panics with the given message                                    |
//!
//! The well-behaved functions `double`, `safe_div` and `sign` exist so that a
//! generated suite for this crate is never empty. The crate's own tests only
//! call the well-behaved functions.
//!
//! `memory_bomb` asks for one impossible allocation instead of growing a
//! buffer step by step, so it fails instantly even when the executor sets no
//! memory limit and cannot exhaust the machine's memory.

use std::hint::black_box;
use std::thread;
use std::time::Duration;

/// The input for which `spin_if` never returns.
pub const SPIN_TRIGGER: u32 = 7;

/// Busy-loops forever. Hostile: never returns.
pub fn spin_forever() {
    let mut counter: u64 = 0;
    loop {
        counter = black_box(counter.wrapping_add(1));
    }
}

/// Returns `n`, except that it busy-loops forever when `n == 7`.
/// Hostile for exactly one input.
pub fn spin_if(n: u32) -> u32 {
    if n == SPIN_TRIGGER {
        spin_forever();
    }
    n
}

/// Recurses without bound until the stack overflows. Hostile: crashes the
/// process (Rust reports "has overflowed its stack" and aborts).
pub fn recurse_forever(n: u64) -> u64 {
    // A stack buffer per frame makes each call consume real stack, and the
    // opaque `black_box(false)` stops the optimiser from proving that the
    // function never returns and turning the recursion into a loop.
    let frame = black_box([n; 16]);
    if black_box(false) {
        return frame[0];
    }
    let deeper = recurse_forever(frame[1].wrapping_add(1));
    black_box(deeper.wrapping_add(frame[15]))
}

/// Aborts the process with SIGABRT. Hostile: no unwinding, no output.
pub fn abort_now() {
    std::process::abort();
}

/// Exits the process with `code`. Hostile: ends a test harness mid-run,
/// even with code 0.
pub fn exit_now(code: i32) {
    std::process::exit(code);
}

/// Tries to allocate and touch a buffer of about `usize::MAX / 4` bytes.
/// Hostile: the allocation fails, and Rust aborts with "memory allocation
/// of ... bytes failed". Never returns normally.
pub fn memory_bomb(n: usize) -> usize {
    let size = usize::MAX / 4 - n % 4096;
    let buffer = vec![1u8; black_box(size)];
    let touched = black_box(&buffer)[n % buffer.len()];
    buffer.len() + usize::from(touched)
}

/// Sleeps forever, an hour at a time. Hostile: an idle hang that uses no
/// CPU, so only a wall-clock timeout catches it.
pub fn sleep_forever() {
    loop {
        thread::sleep(Duration::from_secs(3600));
    }
}

/// Panics with `msg`. Hostile only in that it always panics.
pub fn panic_with(msg: &str) {
    panic!("{}", msg);
}

/// Well-behaved: twice `x`, saturating at the `i32` bounds.
pub fn double(x: i32) -> i32 {
    x.saturating_mul(2)
}

/// Well-behaved: `a / b`, or `None` when `b == 0` or the result overflows.
pub fn safe_div(a: i32, b: i32) -> Option<i32> {
    if b == 0 {
        return None;
    }
    a.checked_div(b)
}

/// Well-behaved: -1, 0 or 1 by the sign of `x`.
pub fn sign(x: i64) -> i8 {
    if x < 0 {
        -1
    } else if x == 0 {
        0
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double_saturates() {
        assert_eq!(double(21), 42);
        assert_eq!(double(i32::MAX), i32::MAX);
        assert_eq!(double(i32::MIN), i32::MIN);
    }

    #[test]
    fn safe_div_cases() {
        assert_eq!(safe_div(7, 2), Some(3));
        assert_eq!(safe_div(1, 0), None);
        assert_eq!(safe_div(i32::MIN, -1), None);
    }

    #[test]
    fn spin_if_returns_other_inputs() {
        assert_eq!(spin_if(6), 6);
        assert_eq!(spin_if(8), 8);
    }
}
