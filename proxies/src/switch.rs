//! Algorithm 2 of \[adynamosa\], GET-SECONDARY-HEURISTIC: which secondary score ranks the tests
//! within a front, switched on search stagnation.
//!
//! Every constant of the routine, with its source in the paper (§3.2.2, Algorithm 2):
//! - initial heuristic: the performance-heuristic ("In the first generation, the default secondary
//!   heuristic is the one based on performance proxies", lines 2–5);
//! - both stagnation counters start at 0 (lines 3–4) and are set to 0 only there and when the
//!   heuristic in use brings an improvement (lines 20–23);
//! - window: one generation; stagnation means no uncovered target's best objective value in the
//!   offspring `Q_i` is better than in `Q_{i−1}` (lines 6–9), decided by the caller;
//! - step: a stagnating generation adds 1 to the counter of the heuristic used in the previous
//!   generation (lines 11–14);
//! - choice: the heuristic with the lower counter, ties to the performance-heuristic
//!   (`performance-counter ≤ crowding-counter`, lines 15–18);
//! - no threshold, weight or other tunable: the paper has none.

use serde::{Deserialize, Serialize};

/// The secondary score used to rank and truncate the tests of a front.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Secondary {
    /// The crowding distance (subvector dominance assignment in the paper).
    Crowding,
    /// The performance-heuristic, Eq. 2 ([`crate::performance_heuristic`]).
    #[default]
    Performance,
}

/// The state of GET-SECONDARY-HEURISTIC across generations.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Switch {
    /// Generations observed so far (calls to [`Switch::observe`]).
    generations: u64,
    /// Generations that stagnated while the performance-heuristic was in use, since its last
    /// improvement.
    performance_counter: u32,
    /// Generations that stagnated while the crowding distance was in use, since its last
    /// improvement.
    crowding_counter: u32,
    /// `H_{i}`: the heuristic chosen by the last call, `H_{i−1}` for the next.
    current: Secondary,
}

impl Switch {
    /// The heuristic of the first generation (Algorithm 2, line 5).
    pub const INITIAL: Secondary = Secondary::Performance;

    /// A switch before the first generation; [`Switch::current`] is already [`Switch::INITIAL`].
    pub fn new() -> Self {
        Switch {
            generations: 0,
            performance_counter: 0,
            crowding_counter: 0,
            current: Self::INITIAL,
        }
    }

    /// One call of GET-SECONDARY-HEURISTIC, once per generation after its offspring were
    /// evaluated, including the first; returns the heuristic for this generation.
    ///
    /// `improved`: some uncovered target's best objective value in this generation's offspring is
    /// better than in the previous generation's (the paper's test, lines 7–9); `false` means
    /// stagnation. The first call ignores it: the first generation has nothing to compare with,
    /// and the paper resets both counters and returns the performance-heuristic there.
    pub fn observe(&mut self, improved: bool) -> Secondary {
        let first = self.generations == 0;
        self.generations += 1;
        if first {
            self.performance_counter = 0;
            self.crowding_counter = 0;
            self.current = Self::INITIAL;
        } else if improved {
            // Keep what works; its stagnation counter starts over (lines 19–24).
            match self.current {
                Secondary::Performance => self.performance_counter = 0,
                Secondary::Crowding => self.crowding_counter = 0,
            }
        } else {
            // Charge the stagnation to the heuristic just used, then take the one that stagnated
            // less, ties to performance (lines 10–18).
            match self.current {
                Secondary::Performance => {
                    self.performance_counter = self.performance_counter.saturating_add(1)
                }
                Secondary::Crowding => {
                    self.crowding_counter = self.crowding_counter.saturating_add(1)
                }
            }
            self.current = if self.performance_counter <= self.crowding_counter {
                Secondary::Performance
            } else {
                Secondary::Crowding
            };
        }
        self.current
    }

    /// The heuristic chosen by the last [`Switch::observe`] ([`Switch::INITIAL`] before any).
    pub fn current(&self) -> Secondary {
        self.current
    }

    /// Whether the current heuristic is the performance-heuristic.
    pub fn use_performance(&self) -> bool {
        self.current == Secondary::Performance
    }

    /// `(performance-counter, crowding-counter)`, for logging.
    pub fn counters(&self) -> (u32, u32) {
        (self.performance_counter, self.crowding_counter)
    }

    /// Generations observed so far.
    pub fn generations(&self) -> u64 {
        self.generations
    }
}

#[cfg(test)]
mod tests {
    use super::Secondary::{Crowding as C, Performance as P};
    use super::*;

    #[test]
    fn starts_with_performance_and_the_first_call_ignores_stagnation() {
        let s = Switch::new();
        assert_eq!((s.current(), s.counters(), s.generations()), (P, (0, 0), 0));
        assert!(s.use_performance());
        assert_eq!(Switch::default(), s);
        let mut s = Switch::new();
        assert_eq!(s.observe(false), P);
        assert_eq!((s.counters(), s.generations()), ((0, 0), 1));
    }

    #[test]
    fn keeps_performance_while_it_improves() {
        let mut s = Switch::new();
        for _ in 0..10 {
            assert_eq!(s.observe(true), P);
            assert_eq!(s.counters(), (0, 0));
        }
    }

    #[test]
    fn scripted_generations() {
        // (improved, expected heuristic, expected (performance-counter, crowding-counter)),
        // worked out by hand from Algorithm 2.
        let script = [
            (true, P, (0, 0)),  // first generation: initial heuristic
            (false, C, (1, 0)), // P stagnated: p = 1 > c = 0
            (false, P, (1, 1)), // C stagnated: c = 1, p ≤ c
            (false, C, (2, 1)), // P stagnated: p = 2 > 1
            (true, C, (2, 0)),  // C improved: reset c, keep C
            (false, C, (2, 1)), // C stagnated: c = 1, p = 2 > 1
            (false, P, (2, 2)), // C stagnated: c = 2, tie goes to P
            (true, P, (0, 2)),  // P improved: reset p, keep P
            (false, P, (1, 2)), // P stagnated: p = 1 ≤ 2
            (false, P, (2, 2)), // P stagnated: p = 2 ≤ 2
            (false, C, (3, 2)), // P stagnated: p = 3 > 2
            (true, C, (3, 0)),  // C improved: reset c
            (true, C, (3, 0)),  // and again
        ];
        let mut s = Switch::new();
        for (i, (improved, heuristic, counters)) in script.into_iter().enumerate() {
            assert_eq!(s.observe(improved), heuristic, "generation {i}");
            assert_eq!(s.current(), heuristic, "generation {i}");
            assert_eq!(s.use_performance(), heuristic == P, "generation {i}");
            assert_eq!(s.counters(), counters, "generation {i}");
        }
        assert_eq!(s.generations(), script.len() as u64);
    }

    #[test]
    fn persistent_stagnation_alternates() {
        let mut s = Switch::new();
        s.observe(true);
        let got: Vec<_> = (0..6).map(|_| s.observe(false)).collect();
        assert_eq!(got, [C, P, C, P, C, P]);
        assert_eq!(s.counters(), (3, 3));
    }
}
