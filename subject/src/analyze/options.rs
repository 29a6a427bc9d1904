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
    /// The features of cargo's `--features`/`-F`, `--all-features` and
    /// `--no-default-features` flags: instrumentation is told how the copy is built, and must
    /// drop the modules that build compiles out just as analysis does.
    pub(crate) fn from_cargo_args(args: &[String]) -> Self {
        let mut opts = AnalyzeOptions::default();
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let list = match arg.as_str() {
                "--all-features" => {
                    opts.all_features = true;
                    continue;
                }
                "--no-default-features" => {
                    opts.no_default_features = true;
                    continue;
                }
                "--features" | "-F" => args.next().map(String::as_str),
                other => other.strip_prefix("--features="),
            };
            let names = list.into_iter().flat_map(|l| l.split([',', ' ']));
            opts.features
                .extend(names.filter(|n| !n.is_empty()).map(str::to_string));
        }
        opts
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
    fn cargo_feature_flags_read_back() {
        let args: Vec<String> = ["--features", "a,b", "-F", "c", "--features=d e"]
            .iter()
            .chain(&["--no-default-features"])
            .map(|s| s.to_string())
            .collect();
        let opts = AnalyzeOptions::from_cargo_args(&args);
        let want: BTreeSet<String> = ["a", "b", "c", "d", "e"].map(String::from).into();
        assert_eq!(opts.features, want);
        assert!(opts.no_default_features && !opts.all_features);
        assert!(AnalyzeOptions::from_cargo_args(&["--all-features".into()]).all_features);
    }
}
