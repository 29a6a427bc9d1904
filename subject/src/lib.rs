//! The Rust crate under test: API analysis, instrumentation, harness generation and build, the
//! executor (a pool of harness processes), and emission of the final test file.
//!
//! It implements the `frugal-search` traits for a real crate and is the only part of frugal that
//! reads Rust source or drives cargo. It must know nothing about storage, scheduling or HTTP.
//! Every file it reads from the user's crate goes through `tree::read_in_tree`, which never
//! follows a link or `..` out of the crate's tree, or is met by the copy's walk, which copies a
//! link as a link and never reads through one.

pub mod analyze;
pub mod cargo;
pub mod criteria;
pub mod emit;
pub mod environment;
pub mod executor;
pub mod harness;
pub mod instrument;
mod libtest;
pub mod manifest;
pub mod model;
mod modtree;
pub mod own_mutants;
pub mod pipeline;
pub mod probe_src;
pub mod regress;
pub mod run_summary;
pub mod strong;
pub mod suite_model;
pub mod survivors;
pub mod tree;
