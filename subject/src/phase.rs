//! Canonical names of the run phases, as the daemon stores and reports them.
//!
//! The enum is declared in `pipeline.rs`; its names are kept in this file so that they have
//! one home without touching that module while it is being restructured. They can move next
//! to the enum afterwards.

use std::fmt;

use crate::pipeline::Phase;

impl Phase {
    /// The phase's name in run records and the API (`build-harness`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Analyse => "analyse",
            Phase::Instrument => "instrument",
            Phase::BuildHarness => "build-harness",
            Phase::Search => "search",
            Phase::Minimise => "minimise",
            Phase::Verify => "verify",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
