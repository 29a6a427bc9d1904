//! The goals manifest: what the instrumenter numbered, and how goals depend on each other.
//!
//! Goal, function and loop ids are dense indices (`goals[i].id == i`), shared with the probe
//! runtime, which knows them only as numbers.

use serde::{Deserialize, Serialize};

/// Everything the instrumenter numbered in one crate.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Manifest {
    /// Every goal, indexed by id.
    pub goals: Vec<Goal>,
    /// Every instrumented function, indexed by function id.
    pub functions: Vec<FnInfo>,
    /// Every instrumented loop, indexed by loop id.
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
    /// File relative to the crate root.
    pub file: String,
    /// First compiled-out line, 1-based.
    pub start: usize,
    /// Last compiled-out line, 1-based.
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
    /// Dense id: the goal's index in [`Manifest::goals`].
    pub id: u32,
    /// Which criterion it belongs to.
    pub kind: GoalKind,
    /// The innermost enclosing branch goal (or the function-entry goal); `None` for function
    /// entries, which are the roots of the control-dependency forest.
    pub parent: Option<u32>,
    /// Source file relative to the crate root, and the user's 1-based line.
    pub file: String,
    /// The 1-based line in `file`.
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
    /// One outcome of a decision: an `if` side, a `match` arm, a `?`, a loop body, a `&&`/`||` operand.
    Branch,
    /// A line of code executed.
    Line,
    /// A function entered.
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
    /// Source file relative to the crate root.
    pub file: String,
    /// 1-based line of the `fn`.
    pub line: usize,
    /// Its function-entry goal.
    pub entry_goal: u32,
}

/// An instrumented loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoopInfo {
    /// Source file relative to the crate root.
    pub file: String,
    /// 1-based line of the loop.
    pub line: usize,
}

/// A spot left uninstrumented.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    /// Source file relative to the crate root.
    pub file: String,
    /// 1-based line of the spot.
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
