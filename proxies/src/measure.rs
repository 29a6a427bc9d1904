//! The seven proxies of one test execution (\[adynamosa\] §3.1, Table 1).

use serde::{Deserialize, Serialize};

/// Heap allocations of one test execution, as the runtime can report them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allocations<'a> {
    /// All allocations of the test, whatever the site (what `probe`'s counting allocator gives).
    /// Counted only when above one: the test is treated as a single allocation site.
    Total(u64),
    /// `(site id, allocations at that site)`, one entry per site. Sites with a count of at most
    /// one are left out, as the paper states.
    PerSite(&'a [(u32, u32)]),
}

impl Default for Allocations<'_> {
    fn default() -> Self {
        Allocations::Total(0)
    }
}

/// What one execution of one test reported, in plain numbers.
///
/// The slices are `(id, count)` pairs with one entry per id, as the executor's counters give
/// them; entries with a count of zero are allowed and contribute nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProxyInput<'a> {
    /// `(loop id, iterations)`: loop-body iterations per loop over the whole execution.
    pub loops: &'a [(u32, u32)],
    /// `(function id, entries)`: entries per crate function over the whole execution.
    pub calls: &'a [(u32, u32)],
    /// Heap allocations during the execution.
    pub allocations: Allocations<'a>,
    /// Statements of the crate under test executed.
    pub statements: u64,
    /// Statements of the test that call the crate (`OpKind::Call`).
    pub test_calls: u64,
    /// Statements of the test that are not calls (`OpKind::Literal` and `OpKind::Build`).
    pub test_other_statements: u64,
    /// Length of the test in statements; normally `test_calls + test_other_statements`, kept
    /// separate so a caller may count more (assertions, for instance).
    pub test_length: u64,
}

/// The seven proxies I1–I7 of one test. Lower is cheaper on every one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Proxies {
    /// I1, number of executed loops: loop cycles, summed over loops that ran more than once.
    pub loop_cycles: u64,
    /// I2, covered method calls: entries of crate functions, as a frequency.
    pub covered_calls: u64,
    /// I3, test case method calls: call statements of the test.
    pub test_calls: u64,
    /// I4, object instantiations: heap allocations, sites with frequency one excluded.
    pub allocations: u64,
    /// I5, covered statements: crate statements executed.
    pub covered_statements: u64,
    /// I6, test case statements: non-call statements of the test.
    pub test_statements: u64,
    /// I7, test length: statements of the test.
    pub test_length: u64,
}

impl Proxies {
    /// Number of proxies, the upper bound of Eq. 1 (exclusive) and of Eq. 2.
    pub const COUNT: usize = 7;

    /// The proxies in the paper's order, I1 first.
    pub fn values(&self) -> [u64; Self::COUNT] {
        [
            self.loop_cycles,
            self.covered_calls,
            self.test_calls,
            self.allocations,
            self.covered_statements,
            self.test_statements,
            self.test_length,
        ]
    }
}

/// Sum of the counts above one: the paper's "frequency higher than one" rule (I1, I4).
fn sum_above_one(counts: &[(u32, u32)]) -> u64 {
    counts
        .iter()
        .map(|&(_, n)| u64::from(n))
        .filter(|&n| n > 1)
        .sum()
}

/// The seven proxies of one execution.
///
/// - I1: Σ of iterations over loops with more than one iteration. The paper sums "the execution
///   frequencies for all branches involved in loops" and "only considers loops with a frequency
///   higher than one" so that covering a loop once costs nothing; it subtracts nothing.
/// - I2: Σ of function entries; the paper puts no threshold on it.
/// - I3, I6, I7: copied from the test's own counts (static proxies).
/// - I4: see [`Allocations`]: per site, Σ of counts above one; as a total `A`, `A` if `A > 1`
///   else 0. Sizes (`alloc_bytes`) are not used: the paper does not count object size.
/// - I5: statements executed, no threshold (the paper states none).
pub fn measure(input: &ProxyInput) -> Proxies {
    let allocations = match input.allocations {
        Allocations::Total(n) if n > 1 => n,
        Allocations::Total(_) => 0,
        Allocations::PerSite(sites) => sum_above_one(sites),
    };
    Proxies {
        loop_cycles: sum_above_one(input.loops),
        covered_calls: input.calls.iter().map(|&(_, n)| u64::from(n)).sum(),
        test_calls: input.test_calls,
        allocations,
        covered_statements: input.statements,
        test_statements: input.test_other_statements,
        test_length: input.test_length,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input<'a>(loops: &'a [(u32, u32)], calls: &'a [(u32, u32)]) -> ProxyInput<'a> {
        ProxyInput {
            loops,
            calls,
            allocations: Allocations::Total(0),
            statements: 0,
            test_calls: 0,
            test_other_statements: 0,
            test_length: 0,
        }
    }

    #[test]
    fn loops_count_only_above_one_and_nothing_is_subtracted() {
        // Loop 0 ran once (excluded), loop 1 five times, loop 2 twice, loop 3 not at all.
        let loops = [(0, 1), (1, 5), (2, 2), (3, 0)];
        assert_eq!(measure(&input(&loops, &[])).loop_cycles, 5 + 2);
        assert_eq!(measure(&input(&[(7, 1)], &[])).loop_cycles, 0);
        assert_eq!(measure(&input(&[], &[])).loop_cycles, 0);
    }

    #[test]
    fn calls_count_every_entry_including_single_ones() {
        let calls = [(0, 1), (1, 1), (4, 10)];
        assert_eq!(measure(&input(&[], &calls)).covered_calls, 12);
    }

    #[test]
    fn allocation_total_counts_only_above_one() {
        let mut i = input(&[], &[]);
        for (total, expected) in [(0, 0), (1, 0), (2, 2), (3, 3), (1000, 1000)] {
            i.allocations = Allocations::Total(total);
            assert_eq!(measure(&i).allocations, expected, "total {total}");
        }
    }

    #[test]
    fn allocation_sites_with_frequency_one_are_excluded() {
        let sites = [(0, 1), (1, 3), (2, 1), (3, 2), (4, 0)];
        let mut i = input(&[], &[]);
        i.allocations = Allocations::PerSite(&sites);
        assert_eq!(measure(&i).allocations, 3 + 2);
    }

    #[test]
    fn large_counts_do_not_overflow() {
        let loops = [(0, u32::MAX), (1, u32::MAX)];
        let p = measure(&input(&loops, &loops));
        assert_eq!(p.loop_cycles, 2 * u64::from(u32::MAX));
        assert_eq!(p.covered_calls, 2 * u64::from(u32::MAX));
    }

    #[test]
    fn all_seven_from_one_input() {
        let loops = [(0, 1), (1, 4)];
        let calls = [(0, 3), (1, 1), (2, 2)];
        let p = measure(&ProxyInput {
            loops: &loops,
            calls: &calls,
            allocations: Allocations::Total(9),
            statements: 42,
            test_calls: 3,
            test_other_statements: 5,
            test_length: 8,
        });
        assert_eq!(
            p,
            Proxies {
                loop_cycles: 4,
                covered_calls: 6,
                test_calls: 3,
                allocations: 9,
                covered_statements: 42,
                test_statements: 5,
                test_length: 8,
            }
        );
        assert_eq!(p.values(), [4, 6, 3, 9, 42, 5, 8]);
    }
}
