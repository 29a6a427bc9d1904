//! Public paths: how an integration test names each crate item, if it can at all.
//!
//! A breadth-first walk from the crate root over what each module exports (`pub` items of
//! `pub` modules, `pub use` names and globs) gives every reachable item its shortest path.
//! `pub(crate)` and `pub(super)` export nothing, so items behind them stay unnamed.

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
}

impl PublicPaths {
    pub(crate) fn compute(ix: &Index, crate_name: &str) -> Self {
        let mut paths = PublicPaths::default();
        let mut seen_mods = BTreeSet::from([0]);
        let mut queue = VecDeque::from([(0, crate_name.to_string())]);
        while let Some((m, prefix)) = queue.pop_front() {
            for (name, target) in exports(ix, m, &mut BTreeSet::new()) {
                let path = format!("{prefix}::{name}");
                match target {
                    Target::Mod(x) => {
                        if seen_mods.insert(x) {
                            queue.push_back((x, path));
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

/// Names module `m` makes public, with what they name. Own items come first so that, at equal
/// length, a definition's own path wins over a re-export.
fn exports(ix: &Index, m: ModId, visiting: &mut BTreeSet<ModId>) -> Vec<(String, Target)> {
    if !visiting.insert(m) {
        return Vec::new();
    }
    let mut out: Vec<(String, Target)> = ix.defs[m]
        .iter()
        .filter(|d| d.public && !d.hidden)
        .map(|d| (d.name.clone(), d.target))
        .collect();
    for u in ix.uses[m].iter().filter(|u| u.public && !u.hidden) {
        match &u.name {
            Some(name) => {
                for ns in [Ns::Type, Ns::Value] {
                    if let Some(Resolved::Local(t)) =
                        ix.resolve_use(m, u, ns, &mut Guard::default())
                        && !ix.is_hidden(t)
                        && !out.contains(&(name.clone(), t))
                    {
                        out.push((name.clone(), t));
                    }
                }
            }
            None => {
                if let Some(Resolved::Local(Target::Mod(x))) =
                    ix.resolve_use(m, u, Ns::Type, &mut Guard::default())
                {
                    out.extend(exports(ix, x, visiting));
                }
            }
        }
    }
    visiting.remove(&m);
    out
}
