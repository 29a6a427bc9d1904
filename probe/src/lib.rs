//! The runtime an instrumented crate links: goal distances, proxy counters, fuel, and the harness
//! loop that runs test cases sent over stdin.
//!
//! It owns the probe calls the instrumenter writes into the copy of a crate (`enter`, `hit`,
//! `line`, `iter`, `branch`, `cmp`, ...), the per-test tables they fill, and the binary wire
//! format spoken between the engine and a harness process ([`wire`]). It depends on nothing but
//! `std`, because it is compiled into every crate under test, and it must know nothing about the
//! search, syn or cargo: goal numbers are opaque indices handed out by the instrumenter.
//!
//! Decision: tables are process-global arrays of atomics sized once by [`init`], and every
//! probe is a no-op until then. A harness runs one test at a time, so a whole-table reset per test
//! costs a memset while the probes stay lock-free; code under test that spawns threads still
//! reports. The instrumented copy also runs the crate's own tests, where nobody calls `init`;
//! there the coverage environment ([`dump`]) may initialise the tables and dump them at exit.

pub mod alloc;
mod distance;
pub mod dump;
mod flags;
pub mod harness;
pub mod mutants;
pub mod observe;
pub mod seen;
pub mod tables;
pub mod wire;

#[doc(hidden)] // A reference for tests and benchmarks, not for instrumented code.
pub use distance::left_align_by_chars;
pub use distance::{Mag, Probe};
pub use mutants::{Arith, Order, arith, ror};
pub use tables::{
    ArmKey, FnGuard, Snapshot, Tried, branch, branch_cmp, bytes_arms, close_and, close_or, cmp,
    cmp_goal, covered_goals, enter, enter_async, hit, init, iter, leaf, leaf_goal, line, not,
    num_arms, open, q, reset, set_fuel, snapshot, str_arms,
};

/// Why a test was stopped by the runtime rather than by the code under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The fuel (loop iterations plus function entries) ran out: an endless loop, most likely.
    FuelExhausted,
    /// Instrumented calls nested deeper than the depth limit: unbounded recursion, most likely.
    DepthExceeded,
}

/// Operators of comparisons that report a branch distance, in wire order.
pub mod op {
    /// `==`.
    pub const EQ: u8 = 0;
    /// `!=`.
    pub const NE: u8 = 1;
    /// `<`.
    pub const LT: u8 = 2;
    /// `<=`.
    pub const LE: u8 = 3;
    /// `>`.
    pub const GT: u8 = 4;
    /// `>=`.
    pub const GE: u8 = 5;
}
