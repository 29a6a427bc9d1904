//! The goals manifest: what the instrumenter numbered, and how goals depend on each other.
//!
//! Goal, function and loop ids are dense indices (`goals[i].id == i`), shared with the probe
//! runtime, which knows them only as numbers.

use serde::{Deserialize, Serialize};

/// Everything the instrumenter numbered in one crate.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Manifest {
    pub goals: Vec<Goal>,
    pub functions: Vec<FnInfo>,
    pub loops: Vec<LoopInfo>,
    /// Items or sites left without probes, and why.
    pub skipped: Vec<Skipped>,
    /// Code the run's features compile out (`#[cfg(feature = "serde")]` items, modules and
    /// files): no test can reach it, so a mutant there is no target (`survivors.rs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compiled_out: Vec<CompiledOut>,
}

/// Lines of one file the run's features compile out, both ends included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompiledOut {
    pub file: String,
    pub start: usize,
    pub end: usize,
}

impl Manifest {
    /// Whether `line` of `file` lies in code the run's features compile out.
    pub fn is_compiled_out(&self, file: &str, line: usize) -> bool {
        self.compiled_out
            .iter()
            .any(|c| c.file == file && c.start <= line && line <= c.end)
    }
}

/// One coverage goal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Goal {
    pub id: u32,
    pub kind: GoalKind,
    /// The innermost enclosing branch goal (or the function-entry goal); `None` for function
    /// entries, which are the roots of the control-dependency forest.
    pub parent: Option<u32>,
    /// Source file relative to the crate root, and the user's 1-based line.
    pub file: String,
    pub line: usize,
    /// The function the goal is in (index into [`Manifest::functions`]).
    pub function: Option<u32>,
    /// Human-readable: `if true`, `if false`, `match arm Some(_)`, `? ok`, `? err`, `loop body`,
    /// `&& operand true`, `fn entry`, `line`, `ROR < -> <=`, `AOR + -> *`.
    pub label: String,
}

/// Criterion a goal belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GoalKind {
    Branch,
    Line,
    Function,
    /// A weak mutant (ROR at a comparison, AOR at an arithmetic site), killed when its state
    /// differs from the original's; only with `Options::mutants`.
    Mutant,
}

/// An instrumented function.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FnInfo {
    /// `module::Type::name` style, for messages.
    pub name: String,
    pub file: String,
    pub line: usize,
    /// Its function-entry goal.
    pub entry_goal: u32,
}

/// An instrumented loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoopInfo {
    pub file: String,
    pub line: usize,
}

/// A spot left uninstrumented.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub file: String,
    pub line: usize,
    /// `const fn`, `macro body`, `cfg(test)`, `compile error after instrumentation`, ...
    pub reason: String,
}

impl Manifest {
    /// Number of goals of one kind.
    pub fn count(&self, kind: GoalKind) -> usize {
        self.goals.iter().filter(|g| g.kind == kind).count()
    }
}
