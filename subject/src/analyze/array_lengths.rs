//! Callables stamped out once per array length: hex's `FromHex for [u8; N]` over 140 sizes,
//! smallvec's `Array for [T; N]` over 50. Each is the same code at another length, so keeping
//! them all would spread the search over copies and count the same function 140 times. Of
//! each such family, the shortest, the one nearest a length of 4 and the longest are kept;
//! lengths the harness cannot build (past its limit) are dropped rather than reported when a
//! kept length calls the same function.
//!
//! It must not know how the callables were found: it sees the lowered set.

use std::collections::{BTreeMap, BTreeSet};

use super::arrays::chosen_length;
use super::callables::CallableSet;
use super::types::reason;
use crate::harness::std_values::ARRAY;
use crate::model::{Callable, CallableKind, Ty};

/// A family larger than this is thinned to three.
const KEPT: usize = 3;

/// Keeps three lengths of each family of callables differing only in array lengths.
pub(super) fn thin(set: &mut CallableSet) {
    let mut families: BTreeMap<String, Vec<(usize, u64)>> = BTreeMap::new();
    for (i, c) in set.callables.iter().enumerate() {
        let (key, lengths) = erased(c);
        if let Some(&longest) = lengths.iter().max() {
            families.entry(key).or_default().push((i, longest));
        }
    }
    let mut dropped = BTreeSet::new();
    for members in families.values().filter(|m| m.len() > KEPT) {
        let keep = kept(members);
        dropped.extend(
            members
                .iter()
                .map(|(i, _)| *i)
                .filter(|i| !keep.contains(i)),
        );
    }
    let mut index = 0;
    set.callables.retain(|_| {
        index += 1;
        !dropped.contains(&(index - 1))
    });
    let called: BTreeSet<&str> = set.callables.iter().map(|c| c.path.as_str()).collect();
    set.unsupported.retain(|u| {
        !(u.reason == reason::STD && is_array(&u.detail) && called.contains(u.path.as_str()))
    });
}

/// The members kept: the shortest, the nearest to 4, the longest.
fn kept(members: &[(usize, u64)]) -> BTreeSet<usize> {
    let lengths: Vec<u64> = members.iter().map(|(_, n)| *n).collect();
    let preferred = chosen_length(&lengths);
    let shortest = lengths.iter().min().copied();
    let longest = lengths.iter().max().copied();
    let mut keep = BTreeSet::new();
    for wanted in [shortest, Some(preferred), longest].into_iter().flatten() {
        if let Some((i, _)) = members.iter().find(|(_, n)| *n == wanted) {
            keep.insert(*i);
        }
    }
    keep
}

/// An array type as a signature's source text writes it (`[u8;1048576]`).
fn is_array(detail: &str) -> bool {
    detail.starts_with('[') && detail.ends_with(']') && detail.contains(';')
}

/// The callable with every array length replaced by `N`, as text (the family's key), and the
/// lengths replaced.
fn erased(c: &Callable) -> (String, Vec<u64>) {
    let mut lengths = Vec::new();
    let mut e = c.clone();
    if let CallableKind::Method { self_ty, .. } | CallableKind::Assoc { self_ty } = &mut e.kind {
        erase(self_ty, &mut lengths);
    }
    for p in &mut e.params {
        erase(&mut p.ty, &mut lengths);
    }
    for t in e.ret.iter_mut().chain(&mut e.turbofish) {
        erase(t, &mut lengths);
    }
    for (_, t) in &mut e.instantiation {
        erase(t, &mut lengths);
    }
    (format!("{e:?}"), lengths)
}

fn erase(ty: &mut Ty, lengths: &mut Vec<u64>) {
    match ty {
        Ty::Adt { path, args } if path == ARRAY => {
            if let [elem, Ty::Other(n)] = args.as_mut_slice() {
                erase(elem, lengths);
                if let Ok(len) = n.parse::<u64>() {
                    lengths.push(len);
                    *n = "N".to_string();
                }
            }
        }
        Ty::Adt { args, .. } | Ty::Tuple(args) => args.iter_mut().for_each(|a| erase(a, lengths)),
        Ty::Ref { inner: t, .. } | Ty::Slice(t) | Ty::Vec(t) | Ty::Option(t) => erase(t, lengths),
        Ty::Result(a, b) => {
            erase(a, lengths);
            erase(b, lengths);
        }
        Ty::Unit | Ty::Prim(_) | Ty::Str | Ty::String | Ty::Other(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shortest_the_nearest_to_four_and_the_longest_are_kept() {
        let members: Vec<(usize, u64)> = [1, 2, 3, 5, 8, 16, 64].into_iter().enumerate().collect();
        let keep = kept(&members);
        assert_eq!(keep, BTreeSet::from([0, 2, 6]));
    }

    #[test]
    fn array_details_are_told_from_other_types() {
        assert!(is_array("[u8;1048576]"));
        assert!(!is_array("Vec<u8>"));
    }
}
