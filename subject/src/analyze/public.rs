//! Public paths: how an integration test names each crate item, if it can at all.
//!
//! A breadth-first walk from the crate root over what each module exports (`pub` items of
//! `pub` modules, `pub use` names and globs) gives every reachable item its shortest path.
//! `pub(crate)` and `pub(super)` export nothing, so items behind them stay unnamed, except
//! for in-crate tests, which see what the crate root sees, and with in-module placement what a
//! test module inside each module file sees: such paths get a home.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::index::{Guard, Index, Ns, Resolved, Target};
use super::walk::ModId;

/// Shortest public path of every reachable type, function, trait and value.
#[derive(Debug, Default)]
pub(crate) struct PublicPaths {
    pub types: BTreeMap<usize, String>,
    pub fns: BTreeMap<usize, String>,
    pub traits: BTreeMap<usize, String>,
    /// `const` and `static` items (index into `Index::values`).
    pub values: BTreeMap<usize, String>,
    /// Paths only a test inside a module can name, with that module (the deepest one the
    /// path needs: every module it crosses is that one or encloses it).
    pub homes: BTreeMap<String, ModId>,
}

impl PublicPaths {
    pub(crate) fn compute(ix: &Index, crate_name: &str) -> Self {
        let mut paths = PublicPaths::default();
        let mut seen_mods = BTreeSet::from([0]);
        let mut queue = VecDeque::from([(0, crate_name.to_string(), 0)]);
        while let Some((m, prefix, home)) = queue.pop_front() {
            for (name, target, needs) in exports(ix, m, &mut BTreeSet::new()) {
                let path = format!("{prefix}::{name}");
                let home = needs.map_or(home, |n| ix.deeper(n, home));
                if home != 0 {
                    paths.homes.entry(path.clone()).or_insert(home);
                }
                match target {
                    Target::Mod(x) => {
                        if seen_mods.insert(x) {
                            queue.push_back((x, path, home));
                        }
                    }
                    Target::Type(t) => {
                        paths.types.entry(t).or_insert(path);
                    }
                    Target::Fn(f) => {
                        paths.fns.entry(f).or_insert(path);
                    }
                    Target::Trait(t) => {
                        paths.traits.entry(t).or_insert(path);
                    }
                    Target::Value(v) => {
                        paths.values.entry(v).or_insert(path);
                    }
                    Target::Alias(_) => {}
                }
            }
        }
        paths
    }
}

/// Names module `m` makes public, with what they name and the module a test must be in to use
/// them, if not the root. Own items come first so that, at equal length, a definition's own
/// path wins over a re-export.
fn exports(
    ix: &Index,
    m: ModId,
    visiting: &mut BTreeSet<ModId>,
) -> Vec<(String, Target, Option<ModId>)> {
    if !visiting.insert(m) {
        return Vec::new();
    }
    let mut out: Vec<(String, Target, Option<ModId>)> = ix.defs[m]
        .iter()
        .filter(|d| d.public && !d.hidden)
        .map(|d| (d.name.clone(), d.target, d.home))
        .collect();
    for u in ix.uses[m].iter().filter(|u| u.public && !u.hidden) {
        match &u.name {
            Some(name) => {
                for ns in [Ns::Type, Ns::Value] {
                    if let Some(Resolved::Local(t)) =
                        ix.resolve_use(m, u, ns, &mut Guard::default())
                        && !ix.is_hidden(t)
                        && !out.iter().any(|(n, x, _)| n == name && *x == t)
                    {
                        out.push((name.clone(), t, None));
                    }
                }
            }
            // A glob imports only what `m` may name: not the private items of `x` that a
            // test inside `x` could (httparse's `pub use self::runtime::*`).
            None => {
                if let Some(Resolved::Local(Target::Mod(x))) =
                    ix.resolve_use(m, u, Ns::Type, &mut Guard::default())
                {
                    let exported = exports(ix, x, visiting).into_iter();
                    out.extend(
                        exported
                            .filter(|(_, _, needs)| needs.is_none_or(|home| ix.within(m, home))),
                    );
                }
            }
        }
    }
    visiting.remove(&m);
    out
}
