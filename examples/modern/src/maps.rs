//! Std maps and sets as parameters: an inventory keyed by item name, and tag sets.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Total stock of the items named in `wanted`, and how many of them are unknown.
pub fn stock(inventory: &HashMap<String, u32>, wanted: &[String]) -> (u32, usize) {
    let mut total = 0;
    let mut unknown = 0;
    for name in wanted {
        match inventory.get(name) {
            Some(n) => total += n,
            None => unknown += 1,
        }
    }
    (total, unknown)
}

/// The first key at or after `from` whose value is over `limit`.
pub fn first_over(levels: BTreeMap<u16, i64>, from: u16, limit: i64) -> Option<u16> {
    levels
        .range(from..)
        .find(|(_, v)| **v > limit)
        .map(|(k, _)| *k)
}

/// Whether a post tagged `tags` passes the filter: it has every `required` tag.
pub fn passes(tags: &HashSet<char>, required: &BTreeSet<char>) -> bool {
    if required.is_empty() {
        return true;
    }
    required.iter().all(|t| tags.contains(t))
}
