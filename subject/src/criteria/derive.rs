//! [`DerivingExecutor`]: the executor wrapper that renumbers the probes' goals for the search and appends
//! the derived goals (function-no-panic, panic, output, input) to every result, in one place, so
//! the search, the archive and the minimiser all see the same goals.

use std::collections::BTreeMap;

use frugal_search::{ExecResult, Executor, Status, TestCase};

use super::classes::literal_text;
use super::{OpGoals, Plan};

/// Distance of a callable that was called but panicked, for its function-no-panic goal.
const PANICKED: f64 = 0.5;

/// Panic locations found so far and the slots they took.
#[derive(Debug, Clone, Default)]
pub struct Discovered {
    /// (operation, `file:line`) -> slot goal.
    slots: BTreeMap<(u32, String), u32>,
    /// Slot goal -> label naming the location and the first message seen there.
    labels: BTreeMap<u32, String>,
    /// Slots taken per operation.
    used: BTreeMap<u32, usize>,
}

impl Discovered {
    /// Whether a panic slot holds a location.
    pub fn has(&self, goal: u32) -> bool {
        self.labels.contains_key(&goal)
    }

    /// The label of panic slot `goal`: the location and the first message seen there, once found.
    pub fn label(&self, goal: u32) -> Option<&str> {
        self.labels.get(&goal).map(String::as_str)
    }

    /// Number of locations found.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether no location has been found.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }
}

/// Wraps an executor: the search and the minimiser run tests through it.
pub struct DerivingExecutor<'a> {
    inner: &'a mut dyn Executor,
    goals: Deriver<'a>,
}

/// What [`DerivingExecutor`] adds to each result, apart from the executor it wraps (so results can be
/// augmented while that executor still delivers them).
struct Deriver<'a> {
    plan: &'a Plan,
    found: Discovered,
    frozen: bool,
}

impl<'a> DerivingExecutor<'a> {
    /// Wraps `inner`, deriving `plan`'s goals from each result; nothing is found yet.
    pub fn new(inner: &'a mut dyn Executor, plan: &'a Plan) -> Self {
        DerivingExecutor {
            inner,
            goals: Deriver {
                plan,
                found: Discovered::default(),
                frozen: false,
            },
        }
    }

    /// Stops assigning panic slots: after the search nothing could archive a new location, and
    /// counting it would report a goal the suite was never asked to cover.
    pub fn freeze(&mut self) {
        self.goals.frozen = true;
    }

    /// The panic locations found so far, by slot.
    pub fn discovered(&self) -> &Discovered {
        &self.goals.found
    }
}

impl Deriver<'_> {
    /// The probes' goals under search ids, then the derived goals, sorted by id.
    fn augment(&mut self, t: &TestCase, mut r: ExecResult) -> ExecResult {
        let map = &self.plan.from_manifest;
        let mut goals: Vec<(u32, f64)> = r
            .goals
            .iter()
            .filter_map(|&(g, d)| map.get(g as usize).copied().flatten().map(|id| (id, d)))
            .collect();
        let mut derived = Vec::new();
        self.derive(t, &r, &mut derived);
        goals.extend(closest_per_goal(derived));
        goals.sort_by_key(|&(g, _)| g);
        r.goals = goals;
        r
    }

    fn derive(&mut self, t: &TestCase, r: &ExecResult, out: &mut Vec<(u32, f64)>) {
        // Statements that were entered: the completed ones, plus the one that stopped the test.
        let entered = match r.status {
            Status::Completed => r.completed,
            Status::Panicked { .. } | Status::Timeout => r.completed + 1,
            Status::Crashed { .. } | Status::Invalid { .. } => return,
        };
        let plan = self.plan;
        for (i, s) in t.stmts.iter().enumerate().take(entered) {
            let Some(og) = plan.by_op.get(&s.op) else {
                continue;
            };
            for (k, scheme, ids) in &og.inputs {
                let text = s.args.get(*k).and_then(|&a| arg_text(t, r, a as usize));
                put(out, ids, scheme.distances(text.as_deref()));
            }
            let returned = i < r.completed;
            if let Some(g) = og.returns {
                out.push((g, if returned { 0.0 } else { PANICKED }));
            }
            if returned {
                if let Some((scheme, ids)) = &og.output {
                    let text = r.summaries.get(i).and_then(|s| s.as_deref());
                    put(out, ids, scheme.distances(text));
                }
            } else if let Status::Panicked { message, location } = &r.status
                && let Some(g) = self.slot(s.op, og, location, message)
            {
                out.push((g, 0.0));
            }
        }
    }

    /// The slot of a panic location reached through operation `op`, taking a free one for a
    /// location not seen before.
    fn slot(&mut self, op: u32, og: &OpGoals, location: &str, message: &str) -> Option<u32> {
        let at = relative(file_line(location), &self.plan.files);
        if let Some(&g) = self.found.slots.get(&(op, at.clone())) {
            return Some(g);
        }
        if self.frozen {
            return None;
        }
        let used = self.found.used.entry(op).or_default();
        let g = *og.panic_slots.get(*used)?;
        *used += 1;
        let label = format!("{} panics at {at}: {}", og.name, brief(message));
        self.found.labels.insert(g, label);
        self.found.slots.insert((op, at), g);
        Some(g)
    }
}

impl Executor for DerivingExecutor<'_> {
    fn execute(&mut self, tests: &[TestCase]) -> Vec<ExecResult> {
        let results = self.inner.execute(tests);
        self.goals.augment_all(tests, results)
    }

    fn start(&mut self, tests: &[TestCase]) -> bool {
        self.inner.start(tests)
    }

    fn finish(&mut self, tests: &[TestCase]) -> Vec<ExecResult> {
        let results = self.inner.finish(tests);
        self.goals.augment_all(tests, results)
    }

    fn finish_each(&mut self, tests: &[TestCase], each: &mut dyn FnMut(usize, ExecResult)) {
        let goals = &mut self.goals;
        // In input order, as `augment_all`: the inner executor delivers them so.
        self.inner
            .finish_each(tests, &mut |i, r| each(i, goals.augment(&tests[i], r)));
    }

    fn environment_ops(&mut self) -> Vec<u32> {
        self.inner.environment_ops()
    }
}

impl Deriver<'_> {
    fn augment_all(&mut self, tests: &[TestCase], results: Vec<ExecResult>) -> Vec<ExecResult> {
        // In input order: slot assignment depends on it, and input order is reproducible.
        tests
            .iter()
            .zip(results)
            .map(|(t, r)| self.augment(t, r))
            .collect()
    }
}

/// The value of argument `a` as `Debug` text: its literal, or its statement's summary.
fn arg_text(t: &TestCase, r: &ExecResult, a: usize) -> Option<String> {
    let lit = t.stmts.get(a)?.value.as_ref().map(literal_text);
    lit.or_else(|| r.summaries.get(a).cloned().flatten())
}

/// Records distances to class goals ([`closest_per_goal`] keeps the closest).
fn put(out: &mut Vec<(u32, f64)>, ids: &[u32], distances: Option<Vec<f64>>) {
    out.extend(ids.iter().copied().zip(distances.unwrap_or_default()));
}

/// One entry per goal, in goal order, with the closest distance recorded for it.
fn closest_per_goal(mut recorded: Vec<(u32, f64)>) -> Vec<(u32, f64)> {
    recorded.sort_by_key(|&(g, _)| g);
    recorded.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1 = kept.1.min(later.1);
        }
        same
    });
    recorded
}

/// `file:line:col` -> `file:line`: one goal per line, as for the other criteria.
pub(crate) fn file_line(location: &str) -> &str {
    match location.rsplit_once(':') {
        Some((head, col)) if col.bytes().all(|b| b.is_ascii_digit()) && head.contains(':') => head,
        _ => location,
    }
}

/// A location in the instrumented copy, relative to the crate root like every other goal's file;
/// locations elsewhere (the standard library) stay as they are.
pub(crate) fn relative(location: &str, files: &std::collections::BTreeSet<String>) -> String {
    let Some((path, line)) = location.rsplit_once(':') else {
        return location.to_string();
    };
    files
        .iter()
        .filter(|f| path == f.as_str() || path.ends_with(&format!("/{f}")))
        .max_by_key(|f| f.len())
        .map_or_else(|| location.to_string(), |f| format!("{f}:{line}"))
}

/// First line of a panic message, cut to a readable length.
fn brief(message: &str) -> String {
    let line = message.lines().next().unwrap_or("");
    match line.char_indices().nth(80) {
        Some((at, _)) => format!("{}...", &line[..at]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod closest_tests {
    use super::closest_per_goal;

    #[test]
    fn each_goal_keeps_its_closest_distance_in_goal_order() {
        let recorded = vec![(7, 0.5), (2, 0.25), (7, 0.0), (2, 0.75), (3, 1.0)];
        assert_eq!(
            closest_per_goal(recorded),
            vec![(2, 0.25), (3, 1.0), (7, 0.0)]
        );
    }
}
