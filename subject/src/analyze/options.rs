//! Which cargo features the analysis treats as enabled, resolved like cargo does.
//!
//! `#[cfg(feature = "x")]` items exist only when `x` is on, so the API model depends on the
//! feature set; gamie exposes nothing without its opt-in features.

use std::collections::{BTreeMap, BTreeSet};

/// How to analyse a crate.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnalyzeOptions {
    /// Features enabled on top of the defaults (cargo's `--features`).
    pub features: BTreeSet<String>,
    /// Every `cfg(feature = ..)` counts as enabled (cargo's `--all-features`).
    pub all_features: bool,
    /// Leave out the manifest's `default` feature (cargo's `--no-default-features`).
    pub no_default_features: bool,
    /// The tests live in a `#[cfg(test)]` module at the crate root (in-crate placement), so
    /// crate-private items they can name count as callable, and a binary crate's `main.rs`
    /// is analysed when there is no library.
    pub in_crate: bool,
}

impl AnalyzeOptions {
    /// cargo's flags for these features (`--features a,b`, `--all-features`,
    /// `--no-default-features`), for every cargo command that builds the crate: the
    /// instrumented copy, the harness's dependency and the emitted suite are built with the
    /// features the model was analysed with.
    pub fn cargo_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        if self.all_features {
            args.push("--all-features".to_string());
        } else if !self.features.is_empty() {
            args.push("--features".to_string());
            args.push(self.features.iter().cloned().collect::<Vec<_>>().join(","));
        }
        if self.no_default_features {
            args.push("--no-default-features".to_string());
        }
        args
    }
}

/// The resolved feature set a `cfg` predicate is evaluated against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EnabledFeatures {
    All,
    Set(BTreeSet<String>),
}

impl EnabledFeatures {
    /// Closes the requested features over the manifest's `[features]` table, so that enabling
    /// `full = ["parse", "render"]` also enables `parse` and `render`.
    pub(crate) fn resolve(opts: &AnalyzeOptions, table: &BTreeMap<String, Vec<String>>) -> Self {
        if opts.all_features {
            return EnabledFeatures::All;
        }
        let mut todo: Vec<String> = opts.features.iter().cloned().collect();
        if !opts.no_default_features {
            todo.push("default".to_string());
        }
        let mut on = BTreeSet::new();
        while let Some(feature) = todo.pop() {
            if !on.insert(feature.clone()) {
                continue;
            }
            for implied in table.get(&feature).into_iter().flatten() {
                // `dep:x` and `x/y` name dependencies; `x?/y` too. Only plain names are ours.
                if let Some(name) = implied.strip_prefix("dep:") {
                    todo.push(name.to_string());
                } else if let Some((name, _)) = implied.split_once('/') {
                    todo.push(name.trim_end_matches('?').to_string());
                } else {
                    todo.push(implied.clone());
                }
            }
        }
        EnabledFeatures::Set(on)
    }

    pub(crate) fn contains(&self, feature: &str) -> bool {
        match self {
            EnabledFeatures::All => true,
            EnabledFeatures::Set(set) => set.contains(feature),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_become_cargo_flags() {
        let some = AnalyzeOptions {
            features: ["b", "a"].map(String::from).into(),
            no_default_features: true,
            ..AnalyzeOptions::default()
        };
        assert_eq!(
            some.cargo_args(),
            ["--features", "a,b", "--no-default-features"]
        );
        let all = AnalyzeOptions {
            all_features: true,
            features: ["a"].map(String::from).into(),
            ..AnalyzeOptions::default()
        };
        assert_eq!(all.cargo_args(), ["--all-features"]);
        assert!(AnalyzeOptions::default().cargo_args().is_empty());
    }
}
