//! The configuration checks algorithm names as strings (it does not depend on the search) and
//! the daemon parses them into `AlgorithmKind`: the two lists must name the same algorithms.

use frugal_config::ALGORITHMS;
use frugal_search::AlgorithmKind;

#[test]
fn every_configured_algorithm_parses() {
    for name in ALGORITHMS {
        let parsed = name.parse::<AlgorithmKind>();
        assert!(parsed.is_ok(), "config accepts `{name}`: {parsed:?}");
    }
}

#[test]
fn every_algorithm_is_configurable_by_its_name() {
    for kind in AlgorithmKind::ALL {
        assert!(ALGORITHMS.contains(&kind.name()), "config rejects `{kind}`");
        assert_eq!(kind.name().parse::<AlgorithmKind>(), Ok(kind));
    }
}
