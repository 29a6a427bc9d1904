//! A deliberately hostile crate for the sandbox's end-to-end test: its build script sleeps for
//! ever, so every build of it hangs. frugal must fail it with a clear timeout error within its
//! build timeout and leave no build script running.
//!
//! Never run its tests or builds outside frugal's sandbox: nothing here is harmful, but the
//! build never ends.

/// Something to test, were the crate ever built.
pub fn one() -> i32 {
    1
}
