//! Plan numbering and derived goals on a hand-made crate: `k::Acct::take(&mut self, amount:
//! i64) -> Result<i64, String>` and `k::open(owner: &str) -> k::Acct`, with expectations
//! computed by hand from fake harness outcomes.

use frugal_search::{Counters, ExecResult, Executor, Status, Stmt, TestCase, Value};

use super::derive::{file_line, relative};
use super::*;
use crate::manifest::{FnInfo, Goal};
use crate::model::{Callable, Field, Param, Receiver, Ty, TypeDef, TypeKind};

fn acct() -> Ty {
    Ty::Adt {
        path: "k::Acct".into(),
        args: vec![],
    }
}

fn model() -> ApiModel {
    let take = Callable {
        kind: CallableKind::Method {
            self_ty: acct(),
            receiver: Receiver::RefMut,
        },
        params: vec![Param::new("amount", Ty::Prim("i64".into()))],
        ret: Some(Ty::Result(
            Box::new(Ty::Prim("i64".into())),
            Box::new(Ty::String),
        )),
        ..Callable::free("k::Acct::take", "src/lib.rs", 10)
    };
    let owner = Ty::Ref {
        mutable: false,
        inner: Box::new(Ty::Str),
    };
    let open = Callable {
        params: vec![Param::new("owner", owner)],
        ret: Some(acct()),
        ..Callable::free("k::open", "src/lib.rs", 3)
    };
    ApiModel {
        crate_name: "k".into(),
        callables: vec![take, open],
        types: vec![TypeDef {
            path: "k::Acct".into(),
            kind: TypeKind::Struct {
                fields: Some(vec![Field {
                    name: "balance".into(),
                    ty: Ty::Prim("i64".into()),
                }]),
                tuple: false,
            },
            traits: vec!["Debug".into()],
            generic: false,
            params: Vec::new(),
            unsized_tail: false,
        }],
        ..ApiModel::default()
    }
}

/// Goals: 0 `open` entry, 1 `take` entry, 2 a branch in `take`, 3 a line under it.
fn manifest() -> Manifest {
    let goal = |id: u32, kind, parent, line| Goal {
        id,
        kind,
        parent,
        file: "src/lib.rs".into(),
        line,
        function: None,
        label: String::new(),
    };
    let f = |name: &str, line, entry_goal| FnInfo {
        name: name.into(),
        file: "src/lib.rs".into(),
        line,
        entry_goal,
    };
    Manifest {
        goals: vec![
            goal(0, manifest::GoalKind::Function, None, 3),
            goal(1, manifest::GoalKind::Function, None, 10),
            goal(2, manifest::GoalKind::Branch, Some(1), 11),
            goal(3, manifest::GoalKind::Line, Some(2), 12),
        ],
        functions: vec![f("open", 3, 0), f("Acct::take", 10, 1)],
        ..Manifest::default()
    }
}

/// Operation ids of the registry built from [`model`].
struct Ops {
    take: u32,
    open: u32,
    int: u32,
    string: u32,
}

impl Ops {
    /// `s0 = owner; s1 = open(s0)`: the account every test case here starts from.
    fn opened(&self, owner: &str) -> Vec<Stmt> {
        vec![
            stmt(self.string, &[], Some(Value::Str(owner.into()))),
            stmt(self.open, &[0], None),
        ]
    }
}

fn ops(reg: &Registry) -> Ops {
    let find =
        |pred: &dyn Fn(&OpCode) -> bool| reg.ops.iter().position(|o| pred(&o.code)).unwrap() as u32;
    Ops {
        take: find(&|c| *c == OpCode::Call(0)),
        open: find(&|c| *c == OpCode::Call(1)),
        int: find(&|c| *c == OpCode::Literal(Ty::Prim("i64".into()))),
        string: find(&|c| *c == OpCode::Literal(Ty::String)),
    }
}

fn labels_of(plan: &Plan, kind: GoalKind) -> Vec<String> {
    plan.goals
        .iter()
        .filter(|g| g.kind == kind)
        .map(|g| g.label.clone())
        .collect()
}

#[test]
fn derived_goals_follow_the_manifest_and_hang_under_entries() {
    let (m, model) = (manifest(), model());
    let reg = Registry::build(&model);
    let plan = Plan::new(&model, &reg, &m, &Criteria::default());
    // Manifest goals keep their ids; the placeholder comes next.
    let ids: Vec<Option<u32>> = plan.goals.iter().take(4).map(|g| g.manifest).collect();
    assert_eq!(ids, vec![Some(0), Some(1), Some(2), Some(3)]);
    assert_eq!(plan.placeholder, Some(4));
    let o = ops(&reg);
    let take = &plan.by_op[&o.take];
    assert_eq!(plan.goals[take.returns.unwrap() as usize].parent, Some(1));
    assert_eq!(take.panic_slots.len(), PANIC_SLOTS);
    assert!(
        take.panic_slots
            .iter()
            .all(|&g| plan.goals[g as usize].parent == Some(4))
    );
    // The receiver is argument 0; `amount` is argument 1.
    assert_eq!(take.inputs[0].0, 1);
    let mut want: Vec<String> = ["Ok(negative)", "Ok(zero)", "Ok(positive)", "Err"]
        .iter()
        .map(|l| format!("Acct::take returns {l}"))
        .collect();
    want.push("open returns any".into());
    let mut got = labels_of(&plan, GoalKind::Output);
    got.sort();
    want.sort();
    assert_eq!(got, want);
    assert_eq!(
        labels_of(&plan, GoalKind::Input),
        vec![
            "Acct::take gets amount negative",
            "Acct::take gets amount zero",
            "Acct::take gets amount positive",
            "open gets owner empty",
            "open gets owner non-empty",
        ]
    );
    // 4 manifest + placeholder + 2 callables x (1 no-panic + 8 slots) + 5 output + 5 input.
    assert_eq!(plan.goals.len(), 4 + 1 + 18 + 5 + 5);
}

#[test]
fn unselected_criteria_are_left_out_and_parents_skip_them() {
    let (m, model) = (manifest(), model());
    let reg = Registry::build(&model);
    let only: Criteria = "line,output".parse().unwrap();
    let plan = Plan::new(&model, &reg, &m, &only);
    let kinds: BTreeSet<GoalKind> = plan.goals.iter().map(|g| g.kind).collect();
    assert_eq!(kinds, [GoalKind::Line, GoalKind::Output].into());
    // The line under the dropped branch (under the dropped entry) is a root now.
    assert_eq!(plan.goals[0].manifest, Some(3));
    assert_eq!(plan.goals[0].parent, None);
    assert_eq!(plan.from_manifest, vec![None, None, None, Some(0)]);
    assert!(plan.goals.iter().all(|g| g.parent.is_none()));
    assert!(plan.placeholder.is_none());
}

#[test]
fn criteria_parse_names_and_reject_unknown_ones() {
    let c: Criteria = "branch, panic".parse().unwrap();
    assert_eq!(c.to_string(), "branch,panic");
    assert_eq!("all".parse::<Criteria>().unwrap(), Criteria::default());
    assert!("branch,mutation".parse::<Criteria>().is_err());
    assert!("".parse::<Criteria>().is_err());
}

/// Replays canned outcomes; the probes report goals 1 and 2 (manifest ids).
struct Canned(Vec<ExecResult>);

impl Executor for Canned {
    fn execute(&mut self, tests: &[TestCase]) -> Vec<ExecResult> {
        self.0.drain(..tests.len()).collect()
    }
}

fn outcome(status: Status, completed: usize, summaries: &[Option<&str>]) -> ExecResult {
    ExecResult {
        status,
        completed,
        goals: vec![(0, 0.0), (1, 0.0), (2, 0.25)],
        summaries: summaries.iter().map(|s| s.map(String::from)).collect(),
        observed: Vec::new(),
        counters: Counters::default(),
        seen: Vec::new(),
    }
}

fn stmt(op: u32, args: &[u32], value: Option<Value>) -> Stmt {
    Stmt {
        op,
        args: args.to_vec(),
        value,
    }
}

#[test]
fn derive_adds_classes_returns_and_panic_slots_in_order() {
    let (m, model) = (manifest(), model());
    let reg = Registry::build(&model);
    let plan = Plan::new(&model, &reg, &m, &Criteria::default());
    let o = ops(&reg);
    // s0 = "ann"; s1 = open(s0); s2 = 5; s3 = s1.take(s2); s4 = -1; s5 = s1.take(s4)
    let test = TestCase {
        stmts: [
            o.opened("ann"),
            vec![
                stmt(o.int, &[], Some(Value::Int(5))),
                stmt(o.take, &[1, 2], None),
                stmt(o.int, &[], Some(Value::Int(-1))),
                stmt(o.take, &[1, 4], None),
            ],
        ]
        .concat(),
    };
    let returned = outcome(
        Status::Completed,
        6,
        &[
            Some("\"ann\""),
            Some("Acct { balance: 0 }"),
            Some("5"),
            Some("Err(\"short\")"),
            Some("-1"),
            Some("Ok(1)"),
        ],
    );
    let panicked = |loc: &str| {
        outcome(
            Status::Panicked {
                message: "bad amount\nmore".into(),
                location: loc.into(),
            },
            5,
            &[
                Some("\"ann\""),
                Some("Acct { balance: 0 }"),
                Some("5"),
                Some("Err(\"short\")"),
                Some("-1"),
            ],
        )
    };
    let mut inner = Canned(vec![
        returned,
        panicked("/w/crate/src/lib.rs:12:9"),
        panicked("/w/crate/src/lib.rs:12:30"),
        panicked("/w/crate/src/lib.rs:14:5"),
    ]);
    let mut d = DerivingExecutor::new(&mut inner, &plan);
    let rs = d.execute(&vec![test.clone(); 4]);
    let take = &plan.by_op[&o.take];
    let open = &plan.by_op[&o.open];
    let (out, inp) = (&take.output.as_ref().unwrap().1, &take.inputs[0].2);
    let r = &rs[0];
    // Probe goals keep their (identical) ids, sorted, then the derived ones.
    assert_eq!(&r.goals[..3], &[(0, 0.0), (1, 0.0), (2, 0.25)]);
    assert!(r.goals.windows(2).all(|w| w[0].0 < w[1].0));
    assert!(r.covers(take.returns.unwrap()) && r.covers(open.returns.unwrap()));
    // Outputs: Err("short") and Ok(1) -> Ok(positive), Err covered; payload distances are
    // halved: Ok(zero) at 1/2 * 1/2 (from 1), Ok(negative) at 1/2 * 2/3 (the other variant
    // is at 3/4).
    assert_eq!(r.distance(out[2]), Some(0.0));
    assert_eq!(r.distance(out[3]), Some(0.0));
    assert_eq!(r.distance(out[1]), Some(0.25));
    assert_eq!(r.distance(out[0]), Some((2.0 / 3.0) * 0.5));
    // Inputs 5 and -1: negative and positive covered, zero at min(5/6, 1/2).
    assert_eq!(r.distance(inp[0]), Some(0.0));
    assert_eq!(r.distance(inp[2]), Some(0.0));
    assert_eq!(r.distance(inp[1]), Some(0.5));
    // `open` got a non-empty owner and returned a struct.
    assert!(r.covers(open.inputs[0].2[1]) && !r.covers(open.inputs[0].2[0]));
    assert!(r.covers(open.output.as_ref().unwrap().1[0]));
    assert!(take.panic_slots.iter().all(|&g| r.distance(g).is_none()));

    // Panics in the second `take`: its input counts, its output does not, it did not return
    // every time (but it did once, in statement 3), and the location takes slot 0.
    let p = &rs[1];
    assert_eq!(p.distance(take.returns.unwrap()), Some(0.0));
    assert_eq!(p.distance(inp[0]), Some(0.0));
    assert_eq!(p.distance(out[2]), Some(0.75));
    assert!(p.covers(take.panic_slots[0]));
    // Same line, another column: same slot. Another line: the next slot.
    assert!(rs[2].covers(take.panic_slots[0]));
    assert!(rs[3].covers(take.panic_slots[1]) && !rs[3].covers(take.panic_slots[0]));
    let found = d.discovered();
    assert_eq!(found.len(), 2);
    assert_eq!(
        found.label(take.panic_slots[0]),
        Some("Acct::take panics at src/lib.rs:12: bad amount")
    );
    let covered: BTreeSet<u32> = rs[0].covered().chain(rs[1].covered()).collect();
    let counts = plan.counts(&Criteria::default(), found, &covered);
    assert_eq!(counts["panic"], (1, 2));
    assert_eq!(counts["function-no-panic"], (2, 2));
    assert_eq!(counts["output"], (3, 5));
    assert_eq!(counts["branch"], (0, 1));
}

#[test]
fn frozen_discovery_ignores_new_locations_and_single_calls_without_return() {
    let (m, model) = (manifest(), model());
    let reg = Registry::build(&model);
    let plan = Plan::new(&model, &reg, &m, &Criteria::default());
    let o = ops(&reg);
    let test = TestCase {
        stmts: o.opened(""),
    };
    let panicked = ExecResult {
        status: Status::Panicked {
            message: "owner required".into(),
            location: "src/lib.rs:4:5".into(),
        },
        completed: 1,
        goals: vec![(0, 0.0)],
        summaries: vec![Some("\"\"".into())],
        observed: Vec::new(),
        counters: Counters::default(),
        seen: Vec::new(),
    };
    let mut inner = Canned(vec![panicked.clone(), panicked]);
    let mut d = DerivingExecutor::new(&mut inner, &plan);
    d.freeze();
    let r = d.execute(std::slice::from_ref(&test)).remove(0);
    let open = &plan.by_op[&o.open];
    assert_eq!(r.distance(open.returns.unwrap()), Some(0.5));
    assert!(r.covers(open.inputs[0].2[0]));
    assert!(open.panic_slots.iter().all(|&g| r.distance(g).is_none()));
    assert!(d.discovered().is_empty());
}

#[test]
fn locations_lose_their_column_and_work_dir() {
    assert_eq!(file_line("src/lib.rs:12:9"), "src/lib.rs:12");
    assert_eq!(file_line("src/lib.rs:12"), "src/lib.rs:12");
    let files: BTreeSet<String> = ["src/lib.rs".to_string(), "src/a/lib.rs".into()].into();
    assert_eq!(
        relative("/w/crate/src/a/lib.rs:3", &files),
        "src/a/lib.rs:3"
    );
    assert_eq!(relative("src/lib.rs:3", &files), "src/lib.rs:3");
    assert_eq!(
        relative("/rustc/x/library/core/src/num.rs:3", &files),
        "/rustc/x/library/core/src/num.rs:3"
    );
}

#[test]
fn smart_selection_keeps_only_last_lines_of_long_blocks() {
    let goal = |id: u32, kind: GoalKind, parent: Option<u32>, line: usize| GoalInfo {
        id,
        kind,
        parent,
        file: "src/lib.rs".into(),
        line,
        label: String::new(),
        manifest: None,
    };
    // Block under goal 0 spans lines 2..=10 (span 8: its last line stays); block under goal 5
    // spans 20..=23 (span 3: every line is deferred). Branches are never deferred.
    let goals = vec![
        goal(0, GoalKind::Function, None, 1),
        goal(1, GoalKind::Line, Some(0), 2),
        goal(2, GoalKind::Line, Some(0), 6),
        goal(3, GoalKind::Line, Some(0), 10),
        goal(4, GoalKind::Branch, Some(0), 10),
        goal(5, GoalKind::Branch, Some(0), 19),
        goal(6, GoalKind::Line, Some(5), 20),
        goal(7, GoalKind::Line, Some(5), 23),
    ];
    assert_eq!(
        deferred_lines(&goals),
        vec![false, true, true, false, false, false, true, true]
    );
}

#[test]
fn weak_mutation_is_opt_in_and_mutants_keep_their_branch_parent() {
    let all: Criteria = "all".parse().unwrap();
    assert_eq!(all, Criteria::default());
    assert!(!all.mutants());
    let wm: Criteria = "branch,weak-mutation".parse().unwrap();
    assert!(wm.mutants());
    assert_eq!(wm.to_string(), "branch,weak-mutation");
    let both: Criteria = "all,weak-mutation".parse().unwrap();
    assert_eq!(both.0.len(), ALL.len() + 1);

    // Mutant 4 under the branch (2) of `take`; mutant 5 under `take`'s entry (1).
    let mut m = manifest();
    for (id, parent, line) in [(4, 2, 11), (5, 1, 10)] {
        m.goals.push(Goal {
            id,
            kind: manifest::GoalKind::Mutant,
            parent: Some(parent),
            file: "src/lib.rs".into(),
            line,
            function: Some(1),
            label: format!("ROR < -> <= #{id}"),
        });
    }
    let model = model();
    let reg = Registry::build(&model);
    let plan = Plan::new(&model, &reg, &m, &wm);
    // Kept: branch 2 -> 0 (its entry is not selected: a root), mutant 4 -> 1 under it,
    // mutant 5 -> 2 (its entry is not selected: a root). No derived criteria.
    let got: Vec<(GoalKind, Option<u32>, Option<u32>)> = plan
        .goals
        .iter()
        .map(|g| (g.kind, g.parent, g.manifest))
        .collect();
    assert_eq!(
        got,
        vec![
            (GoalKind::Branch, None, Some(2)),
            (GoalKind::WeakMutation, Some(0), Some(4)),
            (GoalKind::WeakMutation, None, Some(5)),
        ]
    );
    let covered: BTreeSet<u32> = [1].into();
    let counts = plan.counts(&wm, &Discovered::default(), &covered);
    assert_eq!(counts["branch"], (0, 1));
    assert_eq!(counts["weak-mutation"], (1, 2));
    // Without the criterion, mutant goals are not numbered at all.
    let plan = Plan::new(&model, &reg, &m, &"branch".parse().unwrap());
    assert_eq!(plan.goals.len(), 1);
}
