//! What a replacement reports ([`Replacement`]): the figures of the suites before and after,
//! every test seen with its goals and cost, the solver's figures and the verification run.
//! Serialized as `replacement.json` and stored by the daemon.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::{CostMetric, CoverTarget, cover};

/// Cost and goals of one suite.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SuiteFigures {
    /// Tests in the suite: the candidates of one origin, or the kept tests.
    pub tests: usize,
    /// Sum of the tests' costs, in [`Replacement::unit`].
    pub cost: f64,
    /// Manifest goals covered.
    pub goals: usize,
    /// Goals covered by kind (`branch`, `line`, `function`).
    pub by_kind: BTreeMap<String, usize>,
}

/// One candidate test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestEntry {
    /// nextest binary id.
    pub binary_id: String,
    /// `kind:target`.
    pub binary: String,
    /// Full libtest name, as `--exact` takes it.
    pub name: String,
    /// `own` or `generated`.
    pub origin: String,
    /// Measured cost; `None` when it did not pass.
    pub cost: Option<f64>,
    /// Manifest goal ids it covers.
    pub goals: Vec<u32>,
    /// Whether the cover chose it: part of the replacement.
    pub kept: bool,
    /// Why it is not a candidate, if it is not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded: Option<String>,
}

/// How the cover was found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SolverFigures {
    /// Whether the cover is proved optimal or found by heuristics.
    pub method: cover::Method,
    /// Tests the solver could choose from (passed on both builds, with a measured cost).
    pub candidates: usize,
    /// Candidates left after dropping those covering no required goal and the dominated.
    #[serde(default)]
    pub reduced: usize,
    /// Cost of the greedy start, as the solver charges it (every test at least one unit).
    pub greedy_cost: f64,
    /// Cost of the chosen cover, as the solver charges it (every test at least one unit, so it
    /// can exceed `after.cost` of the [`Replacement`]).
    pub cost: f64,
    /// No cover costs less than this, in the solver's charges; equal to `cost` when exact.
    pub lower_bound: f64,
    /// `(cost - lower_bound) / cost`.
    pub gap: f64,
}

/// What the verification run saw.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verification {
    /// Tests run: the kept own tests and every test of the cut generated file.
    pub tests_run: usize,
    /// Goals the replacement must cover.
    pub goals_required: usize,
    /// Required goals the run covered (all of them in a returned replacement).
    pub goals_reached: usize,
    /// Always empty in a returned replacement (a lost goal is an error).
    pub lost: Vec<String>,
}

/// The answer: a cheaper suite that covers what the own suite covers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Replacement {
    /// The crate's package name.
    pub krate: String,
    /// Which measured figure the costs are.
    pub metric: CostMetric,
    /// `metric/source` of the figures summed (`+` joins two).
    pub basis: String,
    /// Unit of every cost: `ns`, `count` (instructions) or `bytes`.
    pub unit: String,
    /// Which goals the replacement had to cover.
    pub cover: CoverTarget,
    /// Manifest goals of the crate.
    pub goals_total: usize,
    /// Manifest goals by kind (`branch`, `line`, `function`).
    #[serde(default)]
    pub totals_by_kind: BTreeMap<String, usize>,
    /// The own suite (passing tests).
    pub before: SuiteFigures,
    /// The replacement.
    pub after: SuiteFigures,
    /// Every generated test (for comparison).
    pub generated: SuiteFigures,
    /// `after.cost / before.cost`.
    pub cost_ratio: f64,
    /// Goals the replacement must cover.
    pub goals_required: usize,
    /// Goals the generated tests cover that the own suite does not.
    pub generated_only_goals: usize,
    /// Of those, covered by the replacement.
    pub added_goals: usize,
    /// `cargo nextest run -E '<filter>'` selects exactly the kept own tests.
    pub filter: String,
    /// The kept own tests plus the cut generated file's binary.
    pub filter_with_generated: String,
    /// Kept own tests, `binary_id test_name`.
    pub kept_own: Vec<String>,
    /// Generated tests the replacement needs (in `frugal_replacement.rs`).
    pub generated_needed: Vec<String>,
    /// The cut generated file, when one is needed.
    pub generated_file: Option<PathBuf>,
    /// How the cover was found.
    pub solver: SolverFigures,
    /// What the verification run on the instrumented build saw.
    pub verification: Verification,
    /// Every test seen, kept or not, with goals and cost.
    pub tests: Vec<TestEntry>,
    /// `file:line kind label` of every goal some test covers, by id.
    pub goal_keys: BTreeMap<u32, String>,
    /// For the reader: how the costs were measured (with the profiler's remarks on missing
    /// hardware counters and on valgrind), and the tests and binaries left out of both suites.
    pub notes: Vec<String>,
}
