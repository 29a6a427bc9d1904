//! Emission: minimise the archive, render the survivors as a Rust test file, and prove the file
//! compiles and passes against the uninstrumented crate before anyone sees it.

mod executor;
mod expected;
pub mod home;
pub mod minimise;
mod names;
pub mod render;
pub mod shrink;
pub mod split;
pub mod suite_copy;
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
        .map(|k| rendered(&k.test, &k.result, reg, model, &mut names))
        .collect();
    (assemble(header, &tests), tests)
}

/// One test rendered, with the module it must live in.
fn rendered(
    test: &frugal_search::TestCase,
    result: &frugal_search::ExecResult,
    reg: &Registry,
    model: &ApiModel,
    names: &mut BTreeSet<String>,
) -> render::RenderedTest {
    let mut t = render::render_test(test, result, reg, model, names);
    // Method calls do not write their path: the callables name their homes.
    let calls = test
        .stmts
        .iter()
        .filter_map(|s| match reg.ops.get(s.op as usize)?.code {
            crate::harness::registry::OpCode::Call(c) => {
                Some(model.callables.get(c)?.path.as_str())
            }
            _ => None,
        });
    t.home = home::of_test(&t.text, calls, model);
    t
}

/// Where the emitted tests live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Placement {
    /// An integration test, `tests/frugal_generated.rs`: public API only.
    #[default]
    Tests,
    /// A `#[cfg(test)] mod frugal_generated` declared at the crate root (`src/lib.rs`, or
    /// `src/main.rs` of a binary crate): crate-private items the root can name are callable.
    InCrate,
}

impl Placement {
    /// The placement's name on the command line and in messages (`tests`, `in-crate`).
    pub fn name(self) -> &'static str {
        match self {
            Placement::Tests => "tests",
            Placement::InCrate => "in-crate",
        }
    }

    /// The lines after the doc header: lint allowances, and for in-crate placement the crate
    /// under its own name, so the rendered `krate::path` paths resolve inside it as well.
    pub fn prelude(self, krate: &str) -> String {
        match self {
            Placement::Tests => {
                "#![allow(unused_mut, unused_variables, unused_parens, clippy::all)]\n".into()
            }
            Placement::InCrate => {
                format!("#![allow({IN_CRATE_ALLOWS})]\n{STD_IN_MODULE}use crate as {krate};\n")
            }
        }
    }
}

/// Lints a crate may deny at its root that generated code inside it would trip: the crate's
/// `#![deny(..)]` reaches its test modules, and cargo-llvm-cov and the user's `cargo test`
/// build without the `--cap-lints=warn` frugal's own builds use (base64 denies
/// `trivial_numeric_casts`; calling a deprecated item is a `deprecated` warning, an error under
/// `deny(warnings)`; httparse's `cfg_attr(test, deny(warnings))` met a predicate closure
/// `move |e| e < 0` on a `u8`, an `unused_comparisons` warning; a variant taken apart by a
/// `match` with a `_` arm is `unreachable_patterns` where the other variants are empty).
pub(crate) const IN_CRATE_ALLOWS: &str = "unused, clippy::all, non_snake_case, unused_results, \
     unused_qualifications, missing_docs, trivial_casts, trivial_numeric_casts, deprecated, \
     rust_2018_idioms, unreachable_pub, missing_debug_implementations, unused_comparisons, \
     unreachable_patterns, irrefutable_let_patterns";

/// std and its prelude named by a test module inside the crate: a `no_std` crate's modules
/// have core's prelude (no `vec!`, `String` or `to_string`), while its tests link std anyway.
/// `self::std` resolves in every edition.
pub(crate) const STD_IN_MODULE: &str =
    "extern crate std;\nuse self::std::prelude::rust_2021::*;\nuse self::std::{format, vec};\n";

impl std::str::FromStr for Placement {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "tests" | "integration" => Ok(Placement::Tests),
            "in-crate" | "incrate" | "unit" => Ok(Placement::InCrate),
            other => Err(format!(
                "unknown placement `{other}`: expected `tests` or `in-crate`"
            )),
        }
    }
}

/// The file text for a set of rendered tests. `header` ends with the placement's prelude.
pub fn assemble(header: &str, tests: &[render::RenderedTest]) -> String {
    layout(header, tests).0
}

/// The file text, and the line each test starts on (in the order of `tests`): the tests of the
/// placement's own module first, then one section per module holding the others
/// ([`home`]), in module order.
pub fn layout(header: &str, tests: &[render::RenderedTest]) -> (String, Vec<usize>) {
    let mut text = String::from(header);
    // In the preamble, which every cut of the file keeps (`frugal_replace::generated`).
    if tests
        .iter()
        .any(|t| t.executor && t.home.module().is_none())
    {
        text.push_str(&executor::helper());
    }
    let mut starts = vec![0; tests.len()];
    let mut push = |text: &mut String, i: usize, body: &str| {
        text.push('\n');
        starts[i] = text.matches('\n').count() + 1;
        text.push_str(body);
    };
    let mut by_home: std::collections::BTreeMap<&crate::model::Home, Vec<usize>> =
        std::collections::BTreeMap::new();
    for (i, t) in tests.iter().enumerate() {
        match t.home.module() {
            Some(h) => by_home.entry(h).or_default().push(i),
            None => push(&mut text, i, &t.text),
        }
    }
    let krate = header_crate(header);
    for (h, members) in by_home {
        let (open, close) = home::section(h, krate);
        text.push('\n');
        text.push_str(&open);
        if members.iter().any(|&i| tests[i].executor) {
            text.push_str(&home::indent(&executor::helper()));
        }
        for i in members {
            push(&mut text, i, &home::indent(&tests[i].text));
        }
        text.push_str(&close);
    }
    (text, starts)
}

/// The crate's name as the in-crate prelude binds it (`use crate as name;`).
fn header_crate(header: &str) -> &str {
    header
        .lines()
        .find_map(|l| l.strip_prefix("use crate as ")?.strip_suffix(';'))
        .unwrap_or("krate")
}
