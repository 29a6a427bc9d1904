//! Change-aware budgets: which crates of a repository a commit regenerates, and with what share
//! of the search budget.
//!
//! The rule:
//! - a changed file belongs to the crate whose directory is its longest prefix (a crate at `""`
//!   owns everything no other crate owns);
//! - a change to a workspace-wide build input that no crate owns (`Cargo.lock`, the root
//!   `Cargo.toml`, `rust-toolchain(.toml)`, `.cargo/`) changes every crate; other unowned files
//!   (README, CI config) change none;
//! - unknown history (no previous commit) changes every crate;
//! - a changed crate has weight [`CHANGED_WEIGHT`], an unchanged crate its schedule forces has
//!   weight 1, any other unchanged crate is skipped;
//! - each crate that runs gets `budget_factor = weight / mean weight of the crates that run`, so
//!   the total stays `crates run x configured budget` and changed crates get three times the
//!   share of forced ones. Alone, a changed crate gets exactly the configured budget.

use frugal_storage::CrateEntry;

/// Weight of a changed crate relative to an unchanged one its schedule forces.
pub const CHANGED_WEIGHT: f64 = 3.0;

/// What to do with one crate.
#[derive(Clone, Debug, PartialEq)]
pub enum BudgetDecision {
    /// Unchanged and not forced.
    Skip,
    /// Regenerate with `budget_factor` times the configured budget.
    Run {
        /// Multiplier of the configured search budget: the crate's weight over the mean weight
        /// of the crates that run (1.0 for a crate running alone).
        budget_factor: f64,
        /// Whether a file the crate owns changed (or history is unknown); false when the crate
        /// runs only because its schedule forces it.
        changed: bool,
    },
}

/// The decision for one crate.
#[derive(Clone, Debug, PartialEq)]
pub struct CrateBudget {
    /// Name of the crate, as in the repository's crate list.
    pub krate: String,
    /// Whether the crate runs, and with what share of the budget.
    pub decision: BudgetDecision,
}

fn is_workspace_input(path: &str) -> bool {
    matches!(
        path,
        "Cargo.lock" | "Cargo.toml" | "rust-toolchain" | "rust-toolchain.toml"
    ) || path.starts_with(".cargo/")
}

fn normalize_dir(dir: &str) -> String {
    let d = dir.trim().trim_start_matches("./").trim_end_matches('/');
    if d == "." {
        String::new()
    } else {
        d.to_string()
    }
}

fn owns(dir: &str, path: &str) -> bool {
    dir.is_empty() || path == dir || path.starts_with(&format!("{dir}/"))
}

/// Plans one trigger. `changed`: files changed since the last regeneration, `None` if unknown.
/// `forced(name)`: whether the crate's schedule forces it even when unchanged.
pub fn plan_budgets(
    crates: &[CrateEntry],
    changed: Option<&[String]>,
    forced: impl Fn(&str) -> bool,
) -> Vec<CrateBudget> {
    let dirs: Vec<String> = crates.iter().map(|c| normalize_dir(&c.dir)).collect();
    let mut is_changed = vec![changed.is_none(); crates.len()];
    for path in changed.unwrap_or(&[]) {
        let owner = dirs
            .iter()
            .enumerate()
            .filter(|(_, d)| owns(d, path))
            .max_by_key(|(_, d)| d.len())
            .map(|(i, _)| i);
        match owner {
            Some(i) if !(dirs[i].is_empty() && is_workspace_input(path)) => is_changed[i] = true,
            _ if is_workspace_input(path) => is_changed.iter_mut().for_each(|c| *c = true),
            _ => {}
        }
    }
    let weights: Vec<Option<f64>> = crates
        .iter()
        .zip(&is_changed)
        .map(|(c, ch)| match (*ch, forced(&c.name)) {
            (true, _) => Some(CHANGED_WEIGHT),
            (false, true) => Some(1.0),
            (false, false) => None,
        })
        .collect();
    let running: Vec<f64> = weights.iter().flatten().copied().collect();
    let mean = running.iter().sum::<f64>() / running.len().max(1) as f64;
    crates
        .iter()
        .zip(weights.iter().zip(&is_changed))
        .map(|(c, (w, ch))| CrateBudget {
            krate: c.name.clone(),
            decision: match w {
                None => BudgetDecision::Skip,
                Some(w) => BudgetDecision::Run {
                    budget_factor: w / mean,
                    changed: *ch,
                },
            },
        })
        .collect()
}
