//! A test's cost in instructions, estimated from its proxies: a fixed cost every test pays
//! (libtest spawns a thread and captures output for each test) plus a weight per proxy. Eq. 1
//! and Eq. 2 of \[adynamosa\] rank tests against each other; a suite's cost is a sum over its
//! tests, so choosing between one test and two needs the estimate in instructions, fixed cost
//! included.

use crate::Proxies;

/// `per_test + Σ_k weights[k] · I_k`, in instructions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostModel {
    /// What a test costs beyond the test binary's start, whatever it runs.
    pub per_test: f64,
    /// Instructions per unit of I1..I7, in the paper's order.
    pub weights: [f64; Proxies::COUNT],
}

impl CostModel {
    /// The estimated instructions of a test with these proxies.
    pub fn estimate(&self, p: &Proxies) -> f64 {
        self.per_test
            + p.values()
                .iter()
                .zip(self.weights)
                .map(|(&x, w)| x as f64 * w)
                .sum::<f64>()
    }
}

/// Fitted by `bench/algorithms_real.py` (non-negative least squares for relative error) on the
/// cachegrind instructions of the tests frugal emitted for RustyUnit's crates; see
/// `bench/ALGORITHMS-REAL.md` for the data, the fit and how well it ranks tests of a crate it
/// was not fitted on. The fixed part agrees with an empty test's net cost measured directly
/// (32 590 instructions: `frugal profile profiler/tests/fixtures/costs --valgrind --filter
/// alloc_nothing`).
pub const INSTRUCTIONS: CostModel = CostModel {
    per_test: 33_140.0,
    weights: [0.0, 112.9, 1491.0, 2690.0, 52.99, 529.2, 0.0],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixed_cost_dominates_a_small_test_and_proxies_add_to_it() {
        let empty = Proxies::default();
        assert_eq!(INSTRUCTIONS.estimate(&empty), INSTRUCTIONS.per_test);
        let busy = Proxies {
            covered_calls: 10,
            allocations: 2,
            ..Proxies::default()
        };
        let want =
            INSTRUCTIONS.per_test + 10.0 * INSTRUCTIONS.weights[1] + 2.0 * INSTRUCTIONS.weights[3];
        assert!((INSTRUCTIONS.estimate(&busy) - want).abs() < 1e-6);
        // Two small tests cost more than one that does both of their work.
        assert!(2.0 * INSTRUCTIONS.estimate(&empty) > INSTRUCTIONS.estimate(&busy));
    }
}
