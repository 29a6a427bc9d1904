//! The analysis in order: manifest, module tree, index, public paths, types, callables,
//! constants. Each pass reads what the previous ones built and nothing else.

use std::path::Path;

use super::attrs::CfgEval;
use super::bounds::{ArrayCandidate, Candidates};
use super::error::{AnalyzeError, AnalyzeWarning};
use super::index::Index;
use super::options::{AnalyzeOptions, EnabledFeatures};
use super::public::PublicPaths;
use super::types::Lowering;
use super::walk::ModId;
use super::{
    arrays, callables, cargo_toml, closure_impls, constants, macros, produced, range_impls,
    typedefs, unsized_types, walk,
};
use crate::model::{ApiModel, Home};
use std::collections::BTreeMap;

/// The model and what the analysis had to skip on the way.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// The crate's API model.
    pub model: ApiModel,
    /// Module files missing or failing to parse; their items are absent from the model.
    pub warnings: Vec<AnalyzeWarning>,
}

/// Analyses the library crate in `crate_dir`; warnings are logged (see [`analyze_detailed`]).
pub fn analyze(crate_dir: &Path, opts: &AnalyzeOptions) -> Result<ApiModel, AnalyzeError> {
    analyze_detailed(crate_dir, opts).map(|analysis| analysis.model)
}

/// Analyses the library crate in `crate_dir`, returning the warnings with the model.
pub fn analyze_detailed(crate_dir: &Path, opts: &AnalyzeOptions) -> Result<Analysis, AnalyzeError> {
    let lib = cargo_toml::read_lib_target(crate_dir, opts.in_crate)?;
    let cfg = CfgEval::new(EnabledFeatures::resolve(opts, &lib.features));
    let tree = walk::walk(crate_dir, &lib.root, &cfg)?;
    let ix = Index::build(tree.modules, opts.in_crate, lib.edition >= 2018);
    let public = PublicPaths::compute(&ix, &lib.crate_name);

    let made = macros::macro_impls(&ix);
    // Trait keys need lowering, and lowering `impl Trait` needs the candidates the keys make:
    // a first lowering without crate candidates computes the keys.
    let no_candidates = Candidates::default();
    let keys = typedefs::trait_keys(&Lowering {
        ix: &ix,
        public: &public,
        candidates: &no_candidates,
    });
    let candidates = Candidates::new(typedefs::candidate_types(
        &Lowering {
            ix: &ix,
            public: &public,
            candidates: &no_candidates,
        },
        &keys,
    ))
    .with_borrowing_types(typedefs::borrowing_types(
        &Lowering {
            ix: &ix,
            public: &public,
            candidates: &no_candidates,
        },
        &keys,
    ))
    .with_dependencies(&lib.dependencies)
    .with_primitives(macros::primitive_impls(
        &Lowering {
            ix: &ix,
            public: &public,
            candidates: &no_candidates,
        },
        &made,
    ))
    .with_ranges(range_impls::range_candidates(&Lowering {
        ix: &ix,
        public: &public,
        candidates: &no_candidates,
    }))
    .with_closure_impls(closure_impls::closure_candidates(&Lowering {
        ix: &ix,
        public: &public,
        candidates: &no_candidates,
    }))
    .with_arrays(array_candidates(
        &Lowering {
            ix: &ix,
            public: &public,
            candidates: &no_candidates,
        },
        arrays::array_impls(&ix),
    ));
    let low = Lowering {
        ix: &ix,
        public: &public,
        candidates: &candidates,
    };

    let mut callables = callables::collect(&low, &cfg, &made);
    for d in typedefs::derived_defaults(&low) {
        if !callables.callables.iter().any(|c| c.path == d.path) {
            callables.callables.push(d);
        }
    }
    let homes = homes(&ix, &public, &callables.homes);
    let mut model = ApiModel {
        homes,
        crate_name: lib.crate_name,
        callables: callables.callables,
        types: typedefs::type_defs(&low, &cfg, &keys),
        constants: constants::collect(&cfg, ix.modules.iter().map(|m| m.items.as_slice())),
        unsupported: callables.unsupported,
        values: typedefs::crate_values(&low, &cfg),
    };
    unsized_types::borrow_through_box(&mut model);
    produced::move_to_produced(&mut model);
    Ok(Analysis {
        model,
        warnings: tree.warnings,
    })
}

/// The crate's array impls as candidates: their trait keys and lengths.
fn array_candidates(low: &Lowering<'_>, impls: Vec<arrays::ArrayImpl>) -> Vec<ArrayCandidate> {
    let empty = BTreeMap::new();
    impls
        .into_iter()
        .map(|imp| {
            let scope = super::types::Scope {
                module: imp.module,
                self_ty: None,
                subst: &empty,
            };
            ArrayCandidate {
                key: low.trait_key(scope, &imp.trait_path),
                length: arrays::chosen_length(&imp.lengths),
                element_types: imp.element_types,
            }
        })
        .collect()
}

/// Every path a test must be inside a module to name, with the module and its file: the
/// public paths' homes and the private methods', which also need their type's.
fn homes(
    ix: &Index,
    public: &PublicPaths,
    methods: &BTreeMap<String, ModId>,
) -> BTreeMap<String, Home> {
    let mut all = public.homes.clone();
    for (path, &m) in methods {
        let owner = path.rsplit_once("::").map_or("", |(owner, _)| owner);
        let home = public.homes.get(owner).map_or(m, |&t| ix.deeper(t, m));
        all.insert(path.clone(), home);
    }
    all.into_iter()
        .map(|(path, m)| {
            let home = Home {
                module: ix.module_path(m),
                file: ix.modules[m].file.clone(),
            };
            (path, home)
        })
        .collect()
}
