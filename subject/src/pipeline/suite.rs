//! The emitted suite of one run: verification of the minimised tests, the file written (and
//! copied into the crate when asked), and what the kept tests cover and kill between them,
//! including the verdicts on the crate's own survivors.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::{Artifacts, RunError, RunOptions, header};
use crate::criteria;
use crate::emit::{self, minimise::Kept, verify};
use crate::environment::{self, RunEnvironment};
use crate::harness::registry::Registry;
use crate::run_summary::{TestGoals, proxies_by_name};

/// The verified suite with what each kept test is, covers and costs, by test name.
pub(super) struct Suite {
    pub(super) verified: verify::Verified,
    pub(super) tests_by_name: BTreeMap<String, frugal_search::TestCase>,
    pub(super) goals_by_name: BTreeMap<String, Vec<u32>>,
    pub(super) proxies_by_name: BTreeMap<String, frugal_search::Proxies>,
    /// The mutants each test kills (strong mutation), by search goal id.
    pub(super) kills_by_name: BTreeMap<String, BTreeSet<u32>>,
}

/// Phase 6: renders the minimised tests and keeps those that compile and pass twice.
pub(super) fn verify_suite(
    opts: &RunOptions,
    work: &Path,
    model: &crate::model::ApiModel,
    registry: &Registry,
    schema: &frugal_search::Schema,
    kept: &mut [Kept],
    verify_opts: &verify::VerifyOptions,
) -> Result<Suite, RunError> {
    let header = header(&model.crate_name, opts);
    let passing_on = environment::forget(&RunEnvironment::new(work), kept);
    let kept: &[Kept] = kept;
    let (_, rendered) = emit::file(kept, registry, model, &header);
    let refused: Vec<(String, String)> = passing_on
        .iter()
        .map(|&k| {
            (
                rendered[k].name.clone(),
                environment::PASSES_ON_ENVIRONMENT.into(),
            )
        })
        .chain(
            rendered
                .iter()
                .filter_map(|r| Some((r.name.clone(), r.home.refusal()?))),
        )
        .collect();
    let proxies_by_name = rendered
        .iter()
        .zip(kept)
        .map(|(r, k)| {
            let proxies = frugal_search::proxies(&k.test, &k.result, schema);
            (r.name.clone(), proxies)
        })
        .collect();
    let goals_by_name = rendered
        .iter()
        .zip(kept)
        .map(|(r, k)| (r.name.clone(), k.result.covered().collect()))
        .collect();
    let tests_by_name = rendered
        .iter()
        .zip(kept)
        .map(|(r, k)| (r.name.clone(), k.test.clone()))
        .collect();
    let kills_by_name = rendered
        .iter()
        .zip(kept)
        .map(|(r, k)| (r.name.clone(), k.kills.clone()))
        .collect();
    let verified = verify::verify(
        &opts.crate_dir,
        work,
        &header,
        rendered,
        &refused,
        verify_opts,
    )?;
    Ok(Suite {
        verified,
        tests_by_name,
        goals_by_name,
        proxies_by_name,
        kills_by_name,
    })
}

/// Where the suite was written.
pub(super) struct Written {
    pub(super) output: PathBuf,
    pub(super) into_crate: Option<PathBuf>,
    pub(super) homes: Vec<PathBuf>,
}

/// Writes the suite and the dropped tests to the out dir, and into the crate if asked.
pub(super) fn write_suite(
    opts: &RunOptions,
    artifacts: &Artifacts,
    verified: &verify::Verified,
) -> Result<Written, RunError> {
    artifacts.create_out_dir()?;
    let output = artifacts.output(&format!("{}.rs", verify::TEST_TARGET), &verified.text)?;
    artifacts.output("dropped.rs", &verified.dropped_text)?;
    let mut files = match opts.write {
        true => {
            crate::emit::suite_copy::write_into(&opts.crate_dir, opts.placement, &verified.text)?
        }
        false => Vec::new(),
    };
    // The suite's file first; module files holding a home's invocation after it.
    let homes = files.split_off(files.len().min(1));
    Ok(Written {
        output,
        into_crate: files.pop(),
        homes,
    })
}

impl Suite {
    /// Goals the kept tests cover.
    pub(super) fn covered(&self) -> BTreeSet<u32> {
        self.union_over_kept(&self.goals_by_name)
    }

    /// The verdicts on the own suite's survivors, from what each kept test covers and kills.
    pub(super) fn survivors(
        &self,
        survivors: &[crate::survivors::Survivor],
        goals: &[criteria::GoalInfo],
        seen: crate::survivors::RunSeen<'_>,
    ) -> crate::survivors::SurvivorReport {
        let covers: Vec<(&String, BTreeSet<u32>)> = self
            .verified
            .kept
            .iter()
            .map(|n| {
                let goals = self.goals_by_name.get(n).into_iter().flatten().copied();
                (n, goals.collect())
            })
            .collect();
        let none = BTreeSet::new();
        let tests: Vec<crate::survivors::TestView> = covers
            .iter()
            .map(|(n, covers)| crate::survivors::TestView {
                name: n,
                covers,
                kills: self.kills_by_name.get(*n).unwrap_or(&none),
            })
            .collect();
        crate::survivors::report(survivors, goals, &tests, seen)
    }

    /// The mutants the kept tests kill between them.
    pub(super) fn killed(&self) -> BTreeSet<u32> {
        self.union_over_kept(&self.kills_by_name)
    }

    /// The union of the kept tests' goal sets in `by_name`.
    pub(super) fn union_over_kept<'a, C>(
        &'a self,
        by_name: &'a BTreeMap<String, C>,
    ) -> BTreeSet<u32>
    where
        &'a C: IntoIterator<Item = &'a u32>,
    {
        self.verified
            .kept
            .iter()
            .filter_map(|n| by_name.get(n))
            .flatten()
            .copied()
            .collect()
    }

    /// The kept tests' proxies, in suite order.
    pub(super) fn proxies(&self) -> Vec<frugal_search::Proxies> {
        self.verified
            .kept
            .iter()
            .filter_map(|n| self.proxies_by_name.get(n))
            .copied()
            .collect()
    }

    /// The tests verification kept, by name, in suite order: what the test model holds.
    pub(super) fn verified_tests(&self) -> Vec<(String, frugal_search::TestCase)> {
        self.verified
            .kept
            .iter()
            .filter_map(|n| Some((n.clone(), self.tests_by_name.get(n)?.clone())))
            .collect()
    }

    pub(super) fn test_goals(&self) -> Vec<TestGoals> {
        self.verified
            .kept
            .iter()
            .map(|n| TestGoals {
                name: n.clone(),
                goals: self.goals_by_name.get(n).cloned().unwrap_or_default(),
                proxies: self
                    .proxies_by_name
                    .get(n)
                    .map(proxies_by_name)
                    .unwrap_or_default(),
                kills: self
                    .kills_by_name
                    .get(n)
                    .map(|k| k.iter().copied().collect())
                    .unwrap_or_default(),
            })
            .collect()
    }
}
