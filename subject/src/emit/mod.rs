//! Emission: minimise the archive, render the survivors as a Rust test file, and prove the file
//! compiles and passes against the uninstrumented crate before anyone sees it.

pub mod minimise;
pub mod render;
pub mod verify;

use std::collections::BTreeSet;

use crate::harness::registry::Registry;
use crate::model::ApiModel;
use minimise::Kept;

/// Header and test functions, with the names in file order.
pub fn file(
    kept: &[Kept],
    reg: &Registry,
    model: &ApiModel,
    header: &str,
) -> (String, Vec<render::RenderedTest>) {
    let mut names = BTreeSet::new();
    let tests: Vec<render::RenderedTest> = kept
        .iter()
        .map(|k| render::render_test(&k.test, &k.result, reg, model, &mut names))
        .collect();
    (assemble(header, &tests), tests)
}

/// The file text for a set of rendered tests.
pub fn assemble(header: &str, tests: &[render::RenderedTest]) -> String {
    let mut text = String::from(header);
    text.push_str("#![allow(unused_mut, unused_variables, clippy::all)]\n");
    for t in tests {
        text.push('\n');
        text.push_str(&t.text);
    }
    text
}
