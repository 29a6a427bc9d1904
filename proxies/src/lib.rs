//! Performance proxies of aDynaMOSA (Grano et al., "Testing with Fewer Resources", IEEE TSE;
//! \[adynamosa\]) as pure functions over plain numbers: the seven proxies I1–I7 of one
//! test execution ([`measure`]), the archive's performance-score, Eq. 1 ([`archive_score`],
//! [`archive_replaces`]), the within-front performance-heuristic, Eq. 2
//! ([`performance_heuristic`]), and the stagnation switch between crowding distance and that
//! heuristic, Algorithm 2 ([`Switch`]), and a test's cost in instructions estimated from the
//! proxies with fitted weights ([`CostModel`]), which the minimiser sums. It knows nothing of
//! processes, probes, executors, goals or the search's test-case types: the caller copies
//! counters and statement counts into a [`ProxyInput`], so `frugal-search` depends on this
//! crate and never the reverse. One decision: the runtime counts heap allocations per test, not per allocation site, so the paper's I4 rule
//! "sites with frequency one are excluded" is applied to the test as a single site: the total
//! counts only when it is above one ([`Allocations::Total`]). That is exact when a test allocates
//! at most once, never ranks a test that allocates more below one that allocates less, and
//! becomes the paper's rule unchanged once per-site counts exist ([`Allocations::PerSite`]).

mod estimate;
mod measure;
mod score;
mod switch;

pub use estimate::{CostModel, INSTRUCTIONS};
pub use measure::{Allocations, Proxies, ProxyInput, measure};
pub use score::{EQUAL_RANGE_TERM, archive_replaces, archive_score, performance_heuristic};
pub use switch::{Secondary, Switch};
