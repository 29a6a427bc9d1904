//! The best-suite rule (CTG-style replacement), a pure function over two suite records.
//!
//! In order:
//! 1. the new suite covers a goal the old one missed: replace (more testing wins, even when the
//!    new suite also misses some of the old one's goals: those were usually deleted code);
//! 2. the new suite misses a goal the old one covers (and gains none): keep;
//! 3. same goal set, both judged against the same number of frugal's own mutants: the one that
//!    kills more wins (a suite that catches fewer changes never replaces a better one, whatever
//!    it costs);
//! 4. same goal set and kills: when both have a measured cost on the same basis, replace only if the new one
//!    is strictly cheaper; otherwise (no profile on either side, or incomparable bases) replace
//!    only if its proxy cost is strictly lower. Ties keep the old suite, so equal suites do not
//!    churn the pointer.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::records::SuiteRecord;

/// Why a suite did or did not become the best one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case")]
pub enum BestReason {
    /// No best suite existed for the repo and crate.
    First,
    /// Set explicitly with [`crate::Store::set_best`].
    Forced,
    /// Replaced: covers goals the old one missed.
    GainsGoals {
        /// Goals the new suite covers and the old one did not.
        gained: usize,
        /// Goals the old suite covered and the new one does not (replaced all the same).
        lost: usize,
    },
    /// Replaced: same goals, lower measured cost.
    CheaperMeasured {
        /// The cost basis both suites were measured on.
        basis: String,
        /// The old suite's measured cost.
        old: f64,
        /// The new suite's measured cost.
        new: f64,
    },
    /// Replaced: same goals, lower proxy cost (no comparable profile).
    CheaperProxy {
        /// The old suite's proxy cost.
        old: f64,
        /// The new suite's proxy cost.
        new: f64,
    },
    /// Kept: the new suite misses goals the old one covers.
    MissesGoals {
        /// Goals the old suite covers and the new one does not.
        lost: usize,
    },
    /// Kept: same goals, not cheaper by measured cost.
    NotCheaperMeasured {
        /// The cost basis both suites were measured on.
        basis: String,
        /// The old suite's measured cost.
        old: f64,
        /// The new suite's measured cost.
        new: f64,
    },
    /// Kept: same goals, not cheaper by proxy cost.
    NotCheaperProxy {
        /// The old suite's proxy cost.
        old: f64,
        /// The new suite's proxy cost.
        new: f64,
    },
    /// Replaced: same goals, kills more of frugal's own mutants.
    MoreKills {
        /// Mutants the old suite kills.
        old: u32,
        /// Mutants the new suite kills.
        new: u32,
    },
    /// Kept: same goals, kills fewer of frugal's own mutants.
    FewerKills {
        /// Mutants the old suite kills.
        old: u32,
        /// Mutants the new suite kills.
        new: u32,
    },
    /// Nothing stored: the job had stored this suite already (it ran again after a crash).
    AlreadyStored,
    /// Kept: the new suite records behaviour changes that await review (`frugal accept`).
    Held,
}

impl BestReason {
    /// Whether this reason means the new suite became the best one.
    pub fn replaces(&self) -> bool {
        matches!(
            self,
            BestReason::First
                | BestReason::Forced
                | BestReason::GainsGoals { .. }
                | BestReason::MoreKills { .. }
                | BestReason::CheaperMeasured { .. }
                | BestReason::CheaperProxy { .. }
        )
    }
}

impl fmt::Display for BestReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BestReason::First => write!(f, "first suite for this crate"),
            BestReason::Held => write!(
                f,
                "kept the old best: this suite records behaviour changes that await review \
                 (frugal accept)"
            ),
            BestReason::Forced => write!(f, "set as best explicitly"),
            BestReason::GainsGoals { gained, lost } => {
                write!(f, "covers {gained} goal(s) the old best missed")?;
                if *lost > 0 {
                    write!(f, " (and misses {lost} it covered)")?;
                }
                Ok(())
            }
            BestReason::MoreKills { old, new } => write!(
                f,
                "same goals, kills more of frugal's mutants ({new} > {old})"
            ),
            BestReason::FewerKills { old, new } => write!(
                f,
                "kept old best: same goals, kills fewer of frugal's mutants ({new} < {old})"
            ),
            BestReason::CheaperMeasured { basis, old, new } => {
                write!(
                    f,
                    "same goals, cheaper measured cost ({new} < {old} {basis})"
                )
            }
            BestReason::CheaperProxy { old, new } => write!(
                f,
                "same goals, no comparable profile, cheaper proxy cost ({new} < {old})"
            ),
            BestReason::MissesGoals { lost } => {
                write!(
                    f,
                    "kept old best: new suite misses {lost} goal(s) it covers"
                )
            }
            BestReason::NotCheaperMeasured { basis, old, new } => write!(
                f,
                "kept old best: same goals, measured cost not lower ({new} >= {old} {basis})"
            ),
            BestReason::NotCheaperProxy { old, new } => write!(
                f,
                "kept old best: same goals, proxy cost not lower ({new} >= {old})"
            ),
            BestReason::AlreadyStored => write!(
                f,
                "the job had stored this suite already (run again after a crash); nothing new stored"
            ),
        }
    }
}

/// Applies the best-suite rule: should `new` replace `old`?
pub fn judge(old: &SuiteRecord, new: &SuiteRecord) -> BestReason {
    let gained = new.goals_covered.count_missing_from(&old.goals_covered);
    let lost = old.goals_covered.count_missing_from(&new.goals_covered);
    if gained > 0 {
        return BestReason::GainsGoals { gained, lost };
    }
    if lost > 0 {
        return BestReason::MissesGoals { lost };
    }
    if let (Some(o), Some(n)) = (&old.mutation, &new.mutation)
        && o.mutants == n.mutants
        && o.killed != n.killed
    {
        let (old, new) = (o.killed, n.killed);
        return if new > old {
            BestReason::MoreKills { old, new }
        } else {
            BestReason::FewerKills { old, new }
        };
    }
    match (&old.total_cost, &new.total_cost) {
        (Some(o), Some(n)) if o.basis == n.basis => {
            let (basis, old, new) = (n.basis.clone(), o.value, n.value);
            if new < old {
                BestReason::CheaperMeasured { basis, old, new }
            } else {
                BestReason::NotCheaperMeasured { basis, old, new }
            }
        }
        _ => {
            let (old, new) = (old.proxy_cost, new.proxy_cost);
            if new < old {
                BestReason::CheaperProxy { old, new }
            } else {
                BestReason::NotCheaperProxy { old, new }
            }
        }
    }
}
