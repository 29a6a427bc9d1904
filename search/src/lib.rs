//! Search-based test generation: the test-case model, its operators, the archive, the goals and
//! the algorithms that evolve tests against them.
//!
//! It owns everything that is generic over the thing under test. It sees a crate only through a
//! [`Schema`] (types and operations it can build tests from), a [`Goals`] graph, and an
//! [`Executor`] that runs test cases and reports distances; it knows nothing about Rust source,
//! cargo or processes, and nothing about the probe wire format.
//!
//! Decision: a test case is a flat list of statements over a value pool, each naming an
//! operation of the schema and earlier statements as arguments. Ownership is modelled only as
//! far as emitted Rust needs it: arguments passed by value consume non-`Copy` values, and every
//! statement's arguments are distinct. [`TestCase::repair`] restores these rules after any
//! operator, so operators stay simple.

mod algorithm;
mod archive;
mod budget;
mod dynamosa;
mod exec;
mod goals;
mod hypermutation;
mod local_search;
mod mio;
mod model;
mod operators;
mod perf;
mod random;
mod schema;
mod wholesuite;

pub use algorithm::{
    Algorithm, AlgorithmKind, Evaluated, Generation, Observer, SearchOutcome, SearchParams,
    StopReason, run_search,
};
pub use archive::{Archive, ArchivePolicy, Entry};
pub use budget::{Budget, BudgetClock, MAX_EXECUTIONS, MAX_TIME};
pub use exec::{Counters, ExecResult, Executor, Look, Observation, Status};
pub use frugal_proxies::{CostModel, INSTRUCTIONS, Proxies};
pub use goals::{GoalKind, GoalSelection, Goals};
pub use mio::MioParams;
pub use model::{Stmt, TestCase, Value};
pub use operators::{Builder, OperatorParams, is_boundary_int};
pub use perf::{proxies, suite_total};
pub use schema::{Constants, OpInfo, OpKind, Pass, Schema, TypeInfo, ValueKind};
pub use wholesuite::WholeSuiteParams;

#[cfg(test)]
mod toy;
