//! Coverage criteria beyond the probes' own goals, and the numbering of every goal the search
//! sees. It owns the criteria selection (`--criteria`), the goal plan (which goals exist, their
//! kinds, parents and labels), and the executor wrapper ([`DerivingExecutor`]) that computes the derived
//! goals after each execution from the test, the registry and the harness's outcome; the probes
//! and the wire format do not change.
//!
//! Criteria (EvoSuite's many-criteria set, as DynaMOSA uses it; \[evosuite\], \[dynamosa\]):
//! - `branch`, `line`, `function`: the instrumenter's goals (manifest), reported by the probes.
//! - `weak-mutation` (opt-in, not in `all`): the instrumenter's mutant goals (ROR at
//!   comparisons, AOR at arithmetic, `instrument/mutants.rs`), killed inside the probes. Only
//!   instrumented when selected ([`Criteria::mutants`]).
//! - `strong-mutation` (opt-in): the same mutants, covered only when a test *kills* one: what
//!   it observes differs with the mutant switched on (`strong::propagate`). A test that only
//!   infects it is closer than one that does not, so the search is guided by the infection
//!   distance, then by whether the difference reaches what the test observes.
//! - `function-no-panic`: per callable, one goal: it returned normally at least once.
//! - `panic`: per callable, one goal per distinct panic location (`file:line`) reached through
//!   it, i.e. panicking in the statement calling it. Locations are found at run time; see
//!   "Dynamic goals" below.
//! - `output`: per callable with a return type, one goal per class of the returned value
//!   ([`classes`]).
//! - `input`: per callable parameter (receivers excluded, as in EvoSuite), one goal per class
//!   of the argument, from the literal or the producing statement's summary. The summary is
//!   taken when the argument was produced: a value changed in place by a later `&mut` call is
//!   classed as it was built.
//!
//! Numbering: the selected manifest goals keep their order, then the derived goals follow; with
//! every criterion selected (the default) manifest ids are unchanged and derived goals are
//! numbered `manifest.goals.len()..`. Parents of kept manifest goals are their nearest kept
//! ancestor; derived goals hang under their callable's function-entry goal (roots when it is not
//! selected or not instrumented), so DynaMOSA targets them once the callable is reached.
//!
//! Dynamic goals: the search's goal list is fixed, so every callable gets [`PANIC_SLOTS`] panic
//! slots up front. The wrapper assigns the n-th distinct location seen through a callable to its
//! n-th slot, in the order results come back, which is input order: the same seed and execution
//! budget assign the same slots. Locations past the last slot are not counted. Undiscovered
//! slots must not be search targets (no test can be steered towards a panic nobody has seen, as
//! in EvoSuite, where exception goals are only ever archived), so they hang under one
//! placeholder goal that nothing covers; every test is equally far from them, which leaves
//! rankings alone. Discovery stops when the search ends ([`DerivingExecutor::freeze`]); the summary counts
//! discovered locations only.

pub mod classes;
mod derive;

use std::collections::{BTreeMap, BTreeSet};

use frugal_search::{GoalKind, Goals};
use serde::Serialize;

use crate::harness::registry::{OpCode, Registry};
use crate::manifest::{self, Manifest};
use crate::model::{ApiModel, CallableKind};
pub use classes::Scheme;
pub use derive::{DerivingExecutor, Discovered};

/// Panic locations tracked per callable.
pub const PANIC_SLOTS: usize = 8;

/// Every criterion, in reporting order.
pub const ALL: [GoalKind; 7] = [
    GoalKind::Branch,
    GoalKind::Line,
    GoalKind::Function,
    GoalKind::FunctionNoPanic,
    GoalKind::Panic,
    GoalKind::Output,
    GoalKind::Input,
];

/// Criteria that exist but are not in `all` (the default): named one by one. Weak mutation
/// adds two or three goals per comparison and arithmetic site and a probe per evaluation,
/// for little coverage the branch goals do not already steer towards (see docs/run.md).
pub const OPT_IN: [GoalKind; 2] = [GoalKind::WeakMutation, GoalKind::StrongMutation];

/// The name of a criterion on the command line and in `summary.json`.
pub fn name(kind: GoalKind) -> &'static str {
    match kind {
        GoalKind::Branch => "branch",
        GoalKind::Line => "line",
        GoalKind::Function => "function",
        GoalKind::FunctionNoPanic => "function-no-panic",
        GoalKind::Panic => "panic",
        GoalKind::Output => "output",
        GoalKind::Input => "input",
        GoalKind::WeakMutation => "weak-mutation",
        GoalKind::StrongMutation => "strong-mutation",
    }
}

/// The criteria a run searches for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Criteria(pub BTreeSet<GoalKind>);

impl Default for Criteria {
    fn default() -> Self {
        Criteria(ALL.into_iter().collect())
    }
}

impl Criteria {
    /// Whether criterion `kind` is selected.
    pub fn has(&self, kind: GoalKind) -> bool {
        self.0.contains(&kind)
    }

    /// Whether the instrumenter must make mutant goals (`instrument::Options::mutants`).
    pub fn mutants(&self) -> bool {
        self.has(GoalKind::WeakMutation) || self.strong()
    }

    /// Whether mutants are goals only once killed (`strong-mutation`; it wins over
    /// `weak-mutation` when both are named: a mutant is one goal).
    pub fn strong(&self) -> bool {
        self.has(GoalKind::StrongMutation)
    }

    /// The kind a manifest goal has in a run with these criteria.
    pub fn kind_of(&self, k: manifest::GoalKind) -> GoalKind {
        match search_kind(k) {
            GoalKind::WeakMutation if self.strong() => GoalKind::StrongMutation,
            kind => kind,
        }
    }
}

impl std::str::FromStr for Criteria {
    type Err = String;
    /// A comma-separated list of criterion names; `all` selects every one.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut set = BTreeSet::new();
        for word in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            if word == "all" {
                set.extend(ALL);
                continue;
            }
            let known = || ALL.into_iter().chain(OPT_IN);
            let kind = known().find(|&k| name(k) == word).ok_or_else(|| {
                let names: Vec<&str> = known().map(name).collect();
                format!(
                    "unknown criterion `{word}`: expected some of {}",
                    names.join(", ")
                )
            })?;
            set.insert(kind);
        }
        if set.is_empty() {
            return Err("no criterion selected".into());
        }
        Ok(Criteria(set))
    }
}

impl std::fmt::Display for Criteria {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.0.iter().map(|&k| name(k)).collect();
        f.write_str(&names.join(","))
    }
}

/// The smart-selection mask over `goals` (see [`Plan::smart_deferred`]).
pub fn deferred_lines(goals: &[GoalInfo]) -> Vec<bool> {
    let mut blocks: BTreeMap<(Option<u32>, &str), (usize, usize)> = BTreeMap::new();
    for g in goals.iter().filter(|g| g.kind == GoalKind::Line) {
        let span = blocks
            .entry((g.parent, g.file.as_str()))
            .or_insert((g.line, g.line));
        span.0 = span.0.min(g.line);
        span.1 = span.1.max(g.line);
    }
    goals
        .iter()
        .map(|g| {
            if g.kind != GoalKind::Line {
                return false;
            }
            let (first, last) = blocks[&(g.parent, g.file.as_str())];
            !(g.line == last && last - first >= LINE_SPAN)
        })
        .collect()
}

/// Smallest span (last line minus first) of a block whose last line stays a goal under smart
/// selection: `lineThreshold` of \[smart-goals\].
pub const LINE_SPAN: usize = 8;

/// One goal as the search numbers it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GoalInfo {
    /// The search's id: the goal's index in [`Plan::goals`].
    pub id: u32,
    /// The criterion it belongs to (serialized by name).
    #[serde(serialize_with = "kind_name")]
    pub kind: GoalKind,
    /// The search id of its nearest enclosing goal the run keeps; `None` for roots.
    pub parent: Option<u32>,
    /// Where to look: the goal's line, or the callable's `fn` line for derived goals.
    pub file: String,
    /// The 1-based line in `file`.
    pub line: usize,
    /// Human-readable description (`if true`, `returns`, a panic slot, ...).
    pub label: String,
    /// The manifest goal behind it, for probe goals.
    pub manifest: Option<u32>,
}

fn kind_name<S: serde::Serializer>(k: &GoalKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(name(*k))
}

/// Derived goals of one call operation.
#[derive(Debug, Clone, Default)]
pub(crate) struct OpGoals {
    /// The callable's path without the crate, for labels.
    pub name: String,
    pub returns: Option<u32>,
    pub panic_slots: Vec<u32>,
    pub output: Option<(Scheme, Vec<u32>)>,
    /// Per parameter: its index among the statement's arguments, scheme and goals.
    pub inputs: Vec<(usize, Scheme, Vec<u32>)>,
}

/// Every goal of a run, numbered for the search, and how derived goals are computed.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Every goal, indexed by search id.
    pub goals: Vec<GoalInfo>,
    /// Manifest id -> search id, `None` for goals of unselected criteria.
    pub(crate) from_manifest: Vec<Option<u32>>,
    /// Registry operation id -> its derived goals.
    pub(crate) by_op: BTreeMap<u32, OpGoals>,
    /// The parent of undiscovered panic slots, which nothing covers.
    pub placeholder: Option<u32>,
    /// Source files of the crate (relative), to name panic locations the same in every work dir.
    pub(crate) files: BTreeSet<String>,
}

impl Plan {
    /// Numbers the selected goals of a crate.
    pub fn new(model: &ApiModel, reg: &Registry, m: &Manifest, criteria: &Criteria) -> Plan {
        let mut plan = Plan {
            goals: Vec::new(),
            from_manifest: vec![None; m.goals.len()],
            by_op: BTreeMap::new(),
            placeholder: None,
            files: m.goals.iter().map(|g| g.file.clone()).collect(),
        };
        plan.add_manifest(m, criteria);
        let entries: BTreeMap<(&str, usize), u32> = m
            .functions
            .iter()
            .map(|f| ((f.file.as_str(), f.line), f.entry_goal))
            .collect();
        if criteria.has(GoalKind::Panic) {
            let id = plan.push(GoalKind::Panic, None, "", 0, "undiscovered panic locations");
            plan.placeholder = Some(id);
        }
        for (op, o) in reg.ops.iter().enumerate() {
            let OpCode::Call(i) = o.code else { continue };
            let c = &model.callables[i];
            plan.files.insert(c.file.clone());
            let entry = entries
                .get(&(c.file.as_str(), c.line))
                .and_then(|&g| plan.from_manifest.get(g as usize).copied().flatten());
            let og = plan.op_goals(model, i, entry, criteria);
            plan.by_op.insert(op as u32, og);
        }
        plan
    }

    /// Kept manifest goals, each under its nearest kept ancestor.
    fn add_manifest(&mut self, m: &Manifest, criteria: &Criteria) {
        for g in &m.goals {
            let kind = criteria.kind_of(g.kind);
            if !criteria.has(kind) {
                continue;
            }
            let mut parent = g.parent;
            while let Some(p) = parent {
                if let Some(id) = self.from_manifest[p as usize] {
                    parent = Some(id);
                    break;
                }
                parent = m.goals[p as usize].parent;
            }
            let id = self.push(kind, parent, &g.file, g.line, &g.label);
            self.goals[id as usize].manifest = Some(g.id);
            self.from_manifest[g.id as usize] = Some(id);
        }
    }

    fn op_goals(
        &mut self,
        model: &ApiModel,
        i: usize,
        entry: Option<u32>,
        criteria: &Criteria,
    ) -> OpGoals {
        let c = &model.callables[i];
        let short = c
            .path
            .strip_prefix(&format!("{}::", model.crate_name))
            .unwrap_or(&c.path);
        let (file, line) = (c.file.as_str(), c.line);
        let mut og = OpGoals {
            name: short.to_string(),
            ..OpGoals::default()
        };
        if criteria.has(GoalKind::FunctionNoPanic) {
            let label = format!("{short} returns normally");
            og.returns = Some(self.push(GoalKind::FunctionNoPanic, entry, file, line, &label));
        }
        if let Some(ph) = self.placeholder {
            og.panic_slots = (0..PANIC_SLOTS)
                .map(|k| {
                    let label = format!("{short} panics (location #{k}, not found)");
                    self.push(GoalKind::Panic, Some(ph), file, line, &label)
                })
                .collect();
        }
        if let Some(ret) = c.ret.as_ref().filter(|_| criteria.has(GoalKind::Output)) {
            let scheme = Scheme::of(ret, model);
            let ids = scheme
                .labels()
                .iter()
                .map(|l| {
                    let label = format!("{short} returns {l}");
                    self.push(GoalKind::Output, entry, file, line, &label)
                })
                .collect();
            og.output = Some((scheme, ids));
        }
        if criteria.has(GoalKind::Input) {
            let receiver = matches!(c.kind, CallableKind::Method { .. }) as usize;
            for (k, p) in c.params.iter().enumerate() {
                let scheme = Scheme::of(&p.ty, model);
                let ids = scheme
                    .labels()
                    .iter()
                    .map(|l| {
                        let label = format!("{short} gets {} {l}", p.name);
                        self.push(GoalKind::Input, entry, file, line, &label)
                    })
                    .collect();
                og.inputs.push((k + receiver, scheme, ids));
            }
        }
        og
    }

    fn push(
        &mut self,
        kind: GoalKind,
        parent: Option<u32>,
        file: &str,
        line: usize,
        label: &str,
    ) -> u32 {
        let id = self.goals.len() as u32;
        self.goals.push(GoalInfo {
            id,
            kind,
            parent,
            file: file.to_string(),
            line,
            label: label.to_string(),
            manifest: None,
        });
        id
    }

    /// Line goals smart selection defers (\[smart-goals\] §3, step 3): every line goal except the
    /// last line of a block spanning at least [`LINE_SPAN`] lines, since the last line of a
    /// block subsumes the others and branch goals already guide towards them. Lines are
    /// grouped into blocks by their controlling goal.
    pub fn smart_deferred(&self) -> Vec<bool> {
        deferred_lines(&self.goals)
    }

    /// The search's view of the goals.
    pub fn search_goals(&self) -> Goals {
        Goals::new(
            self.goals.iter().map(|g| g.kind).collect(),
            self.goals.iter().map(|g| g.parent).collect(),
        )
    }

    /// Goals that count in totals: everything but the placeholder and undiscovered panic slots.
    pub fn counted<'p>(&'p self, found: &'p Discovered) -> impl Iterator<Item = &'p GoalInfo> {
        self.goals.iter().filter(move |g| {
            Some(g.id) != self.placeholder && (g.kind != GoalKind::Panic || found.has(g.id))
        })
    }

    /// Covered and total goals per criterion name (every selected criterion appears).
    pub fn counts(
        &self,
        criteria: &Criteria,
        found: &Discovered,
        covered: &BTreeSet<u32>,
    ) -> BTreeMap<String, (usize, usize)> {
        let mut out: BTreeMap<String, (usize, usize)> = criteria
            .0
            .iter()
            .map(|&k| (name(k).to_string(), (0, 0)))
            .collect();
        for g in self.counted(found) {
            let e = out.entry(name(g.kind).to_string()).or_default();
            e.1 += 1;
            e.0 += covered.contains(&g.id) as usize;
        }
        out
    }

    /// The selected mutant goals (weak or strong): (manifest id, search id).
    pub(crate) fn mutants(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.from_manifest
            .iter()
            .enumerate()
            .filter_map(|(manifest, search)| Some((manifest as u32, (*search)?)))
            .filter(|&(_, search)| self.goals[search as usize].kind.is_mutant())
    }

    /// The label of a goal, with panic slots named by the location found.
    pub fn label(&self, id: u32, found: &Discovered) -> String {
        found
            .label(id)
            .map(str::to_string)
            .unwrap_or_else(|| self.goals[id as usize].label.clone())
    }
}

/// The search's kind of a manifest goal.
pub fn search_kind(k: manifest::GoalKind) -> GoalKind {
    match k {
        manifest::GoalKind::Branch => GoalKind::Branch,
        manifest::GoalKind::Line => GoalKind::Line,
        manifest::GoalKind::Function => GoalKind::Function,
        manifest::GoalKind::Mutant => GoalKind::WeakMutation,
    }
}

#[cfg(test)]
mod tests;
