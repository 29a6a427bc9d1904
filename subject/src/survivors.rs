//! The crate's own survivors as targets (`frugal run --kill-survivors <outcomes.json>`): the
//! mutants cargo-mutants says the crate's own suite misses, matched to frugal's own mutants by
//! place and operator, and after the run a verdict for each: which emitted test kills it, or
//! why none does.
//!
//! Matching, by cargo-mutants' `genre`:
//! - `FnValue` (a body replaced by a value): the FBR mutant of the same fn (its `fn` line lies in
//!   the fn's span, before the replaced body) with the same value;
//! - `BinaryOperator` on arithmetic: the AOR mutant on the same line with the same operator pair;
//!   on a comparison: both ROR mutants of that comparison, the subsuming pair, since a test
//!   killing both kills every other replacement of the operator ([smart-goals]);
//!   `&&`/`||` swapped: the LOR mutant on that line;
//! - `UnaryOperator` `delete !`: the NOT-deletion mutant on that line;
//! - `MatchArm` (an arm deleted): the arm's deletion mutant, or for a guarded arm its guard
//!   made false; `MatchArmGuard`: the guard mutant with the same value;
//! - anything else (`-` deleted, a struct field deleted, values of crate types): no
//!   counterpart; the verdict says whether some test reaches its line.
//!
//! It must not know how cargo-mutants is run: it reads the file cargo-mutants writes.

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::criteria::GoalInfo;

/// Verdicts listed in the summary at most; the counts cover them all.
const LISTED: usize = 100;

/// A mutant the crate's own suite misses, as cargo-mutants describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Survivor {
    /// cargo-mutants' name: `src/lib.rs:399:35: replace - with + in Slab<T>::reserve_exact`.
    pub name: String,
    /// The file, relative to the crate's root.
    pub file: String,
    /// The replaced code's first line.
    pub line: usize,
    /// The enclosing fn's first line (its attributes included), when cargo-mutants names one.
    pub fn_line: Option<usize>,
    /// `FnValue`, `BinaryOperator`, `UnaryOperator`, `MatchArm`, ...
    pub genre: String,
    /// The replacement text: a value, or an operator.
    pub replacement: String,
}

/// An outcomes file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SurvivorsError {
    /// The outcomes file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file, as given.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not cargo-mutants' `outcomes.json` as this reader knows it.
    #[error("{path} is not cargo-mutants' outcomes.json (line {line}, column {column}: {problem})")]
    Format {
        /// The file, as given.
        path: String,
        /// 1-based line of the JSON problem.
        line: usize,
        /// 1-based column of the JSON problem.
        column: usize,
        /// What the JSON parser said.
        problem: String,
    },
}

#[derive(Deserialize)]
struct Outcomes {
    outcomes: Vec<Outcome>,
}

#[derive(Deserialize)]
struct Outcome {
    scenario: serde_json::Value,
    summary: String,
}

#[derive(Deserialize)]
struct Mutant {
    name: String,
    file: String,
    #[serde(default)]
    function: Option<Function>,
    span: Span,
    replacement: String,
    genre: String,
}

#[derive(Deserialize)]
struct Function {
    span: Span,
}

#[derive(Deserialize)]
struct Span {
    start: LineColumn,
}

#[derive(Deserialize)]
struct LineColumn {
    line: usize,
}

/// The missed mutants of a cargo-mutants `outcomes.json` (`mutants.out/outcomes.json`).
pub fn read_outcomes(path: &Path) -> Result<Vec<Survivor>, SurvivorsError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| SurvivorsError::Read {
        path: shown.clone(),
        source,
    })?;
    parse_outcomes_at(path, &text)
}

/// The missed mutants of an `outcomes.json` already read from `path` (named in errors).
pub fn parse_outcomes_at(path: &Path, text: &str) -> Result<Vec<Survivor>, SurvivorsError> {
    parse_outcomes(text).map_err(|e| SurvivorsError::Format {
        path: path.display().to_string(),
        line: e.line(),
        column: e.column(),
        problem: e.to_string(),
    })
}

fn parse_outcomes(text: &str) -> Result<Vec<Survivor>, serde_json::Error> {
    let outcomes: Outcomes = serde_json::from_str(text)?;
    let mut out = Vec::new();
    for o in outcomes
        .outcomes
        .iter()
        .filter(|o| o.summary == "MissedMutant")
    {
        // The baseline's scenario is the string "Baseline"; a mutant's is `{"Mutant": {..}}`.
        let Some(m) = o.scenario.get("Mutant") else {
            continue;
        };
        let m: Mutant = serde_json::from_value(m.clone())?;
        out.push(Survivor {
            name: m.name,
            file: m.file,
            line: m.span.start.line,
            fn_line: m.function.map(|f| f.span.start.line),
            genre: m.genre,
            replacement: m.replacement,
        });
    }
    Ok(out)
}

/// frugal's mutants that stand for a survivor (all must be killed), or none.
pub fn counterparts(s: &Survivor, goals: &[GoalInfo]) -> Vec<u32> {
    let mutants = goals
        .iter()
        .filter(|g| g.kind.is_mutant() && g.file == s.file);
    match s.genre.as_str() {
        "FnValue" => {
            let from = s.fn_line.unwrap_or(s.line);
            let wanted = format!("FBR body -> {}", same_value(&s.replacement));
            mutants
                .filter(|g| (from..=s.line).contains(&g.line) && g.label == wanted)
                .map(|g| g.id)
                .take(1)
                .collect()
        }
        "BinaryOperator" => {
            let Some(original) = replaced_operator(&s.name) else {
                return Vec::new();
            };
            let on_line: Vec<&GoalInfo> = mutants.filter(|g| g.line == s.line).collect();
            let aor = format!("AOR {original} -> {}", s.replacement);
            let lor = format!("LOR {original} -> {}", s.replacement);
            if let Some(g) = on_line.iter().find(|g| g.label == aor || g.label == lor) {
                return vec![g.id];
            }
            // The subsuming pair of the comparison: the first two ROR goals with its operator.
            let ror = format!("ROR {original} -> ");
            let pair: Vec<u32> = on_line
                .iter()
                .filter(|g| g.label.starts_with(&ror))
                .map(|g| g.id)
                .take(2)
                .collect();
            if pair.len() == 2 { pair } else { Vec::new() }
        }
        // `delete !`: the NOT-deletion mutant on that line (the first, when there are more).
        "UnaryOperator" if s.name.contains(": delete ! ") => mutants
            .filter(|g| g.line == s.line && g.label == "delete !")
            .map(|g| g.id)
            .take(1)
            .collect(),
        // A deleted arm: its deletion mutant, or for a guarded arm its guard made false (the
        // same mutant); a guard replaced: the guard mutant with that value.
        "MatchArm" => mutants
            .filter(|g| {
                g.line == s.line
                    && (g.label == "delete match arm" || g.label == "match guard -> false")
            })
            .map(|g| g.id)
            .take(1)
            .collect(),
        "MatchArmGuard" => {
            let wanted = format!("match guard -> {}", s.replacement);
            mutants
                .filter(|g| g.line == s.line && g.label == wanted)
                .map(|g| g.id)
                .take(1)
                .collect()
        }
        _ => Vec::new(),
    }
}

/// cargo-mutants' value written as frugal's FBR label writes it.
fn same_value(replacement: &str) -> &str {
    match replacement {
        "vec![]" => "Vec::new()",
        other => other,
    }
}

/// The operator a `BinaryOperator` mutant replaces: `replace - with + in f` gives `-`.
fn replaced_operator(name: &str) -> Option<&str> {
    let rest = &name[name.find(": replace ")? + ": replace ".len()..];
    let (op, _) = rest.split_once(" with ")?;
    Some(op)
}

/// What became of one survivor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// An emitted test fails on it.
    Killed {
        /// The name of the first test found that fails on it.
        test: String,
    },
    /// frugal's counterpart is infected but no emitted test tells it apart within the
    /// budget: possibly equivalent.
    PossiblyEquivalent,
    /// No emitted test reaches frugal's counterpart.
    NotReached,
    /// frugal has no mutant of this kind here; `reached_by` is a test running its line.
    NoCounterpart {
        /// A test running the survivor's line, if any.
        reached_by: Option<String>,
    },
    /// In code the run's features compile out (`#[cfg(feature = "serde")]`): no test of this
    /// build can reach it, so cargo-mutants' "missed" says nothing about the suite.
    NotCompiled,
}

/// A survivor and its verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SurvivorVerdict {
    /// cargo-mutants' name of the survivor ([`Survivor::name`]).
    pub name: String,
    /// What became of it.
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// The verdicts on the own suite's survivors, counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SurvivorReport {
    /// Survivors judged, all of them.
    pub survivors: usize,
    /// Of them, killed by an emitted test.
    pub killed: usize,
    /// Of them, possibly equivalent: infected but not told apart.
    pub possibly_equivalent: usize,
    /// Of them, with a counterpart no emitted test reaches.
    pub not_reached: usize,
    /// Of them, without a counterpart among frugal's mutants.
    pub no_counterpart: usize,
    /// Of them, in code the run's features compile out.
    pub not_compiled: usize,
    /// The first [`LISTED`] verdicts, killed ones first.
    pub verdicts: Vec<SurvivorVerdict>,
}

/// One emitted test as the report needs it: its name, the goals it covers, what it kills.
pub struct TestView<'a> {
    /// The test function's name.
    pub name: &'a str,
    /// Ids of the goals it covers (the run's goal ids, as in `goals`).
    pub covers: &'a BTreeSet<u32>,
    /// Ids of frugal's own mutant goals it kills.
    pub kills: &'a BTreeSet<u32>,
}

/// What the run saw beside the kept tests: the mutants some execution infected (weakly
/// killed), and which code its features compile out.
pub struct RunSeen<'a> {
    /// Ids of the mutant goals some execution of the run infected.
    pub infected: &'a BTreeSet<u32>,
    /// Whether a line (file relative to the crate root, 1-based line) is compiled out.
    pub compiled_out: &'a dyn Fn(&str, usize) -> bool,
}

/// The verdict on each survivor, from the emitted tests' covered goals and kills and what the
/// run saw.
pub fn report(
    survivors: &[Survivor],
    goals: &[GoalInfo],
    tests: &[TestView],
    seen: RunSeen<'_>,
) -> SurvivorReport {
    let mut r = SurvivorReport {
        survivors: survivors.len(),
        ..SurvivorReport::default()
    };
    let mut verdicts = Vec::new();
    for s in survivors {
        let verdict = if (seen.compiled_out)(&s.file, s.line) {
            Verdict::NotCompiled
        } else {
            verdict(s, goals, tests, seen.infected)
        };
        match &verdict {
            Verdict::Killed { .. } => r.killed += 1,
            Verdict::PossiblyEquivalent => r.possibly_equivalent += 1,
            Verdict::NotReached => r.not_reached += 1,
            Verdict::NoCounterpart { .. } => r.no_counterpart += 1,
            Verdict::NotCompiled => r.not_compiled += 1,
        }
        verdicts.push(SurvivorVerdict {
            name: s.name.clone(),
            verdict,
        });
    }
    verdicts.sort_by_key(|v| !matches!(v.verdict, Verdict::Killed { .. }));
    verdicts.truncate(LISTED);
    r.verdicts = verdicts;
    r
}

fn verdict(
    s: &Survivor,
    goals: &[GoalInfo],
    tests: &[TestView],
    infected: &BTreeSet<u32>,
) -> Verdict {
    let mutants = counterparts(s, goals);
    if mutants.is_empty() {
        let reached_by = line_reached_by(s, goals, tests).map(str::to_string);
        return Verdict::NoCounterpart { reached_by };
    }
    // One test killing all of them fails on the survivor itself; for a comparison's pair,
    // two tests between them kill every replacement of the operator.
    if let Some(t) = tests
        .iter()
        .find(|t| mutants.iter().all(|m| t.kills.contains(m)))
    {
        return Verdict::Killed {
            test: t.name.to_string(),
        };
    }
    let killers: Option<Vec<&str>> = mutants
        .iter()
        .map(|m| tests.iter().find(|t| t.kills.contains(m)).map(|t| t.name))
        .collect();
    if let Some(mut killers) = killers {
        killers.dedup();
        return Verdict::Killed {
            test: killers.join(", "),
        };
    }
    // Reached but never told apart: infected in the search or by a kept test (a strong goal
    // counts as covered only once killed, so infection is passed in), or its line run.
    let infected = mutants
        .iter()
        .all(|m| infected.contains(m) || tests.iter().any(|t| t.covers.contains(m)));
    if infected || line_reached_by(s, goals, tests).is_some() {
        Verdict::PossiblyEquivalent
    } else {
        Verdict::NotReached
    }
}

/// A kept test that runs the survivor's line, if one does.
fn line_reached_by<'t>(
    s: &Survivor,
    goals: &[GoalInfo],
    tests: &[TestView<'t>],
) -> Option<&'t str> {
    let line: Vec<u32> = goals
        .iter()
        .filter(|g| g.file == s.file && g.line == s.line)
        .map(|g| g.id)
        .collect();
    tests
        .iter()
        .find(|t| line.iter().any(|g| t.covers.contains(g)))
        .map(|t| t.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use frugal_search::GoalKind;

    fn goal(id: u32, kind: GoalKind, line: usize, label: &str) -> GoalInfo {
        GoalInfo {
            id,
            kind,
            parent: None,
            file: "src/lib.rs".into(),
            line,
            label: label.into(),
            manifest: None,
        }
    }

    fn survivor(name: &str, line: usize, fn_line: usize, genre: &str, repl: &str) -> Survivor {
        Survivor {
            name: name.into(),
            file: "src/lib.rs".into(),
            line,
            fn_line: Some(fn_line),
            genre: genre.into(),
            replacement: repl.into(),
        }
    }

    const OUTCOMES: &str = r#"{"outcomes": [
        {"scenario": "Baseline", "summary": "Success"},
        {"scenario": {"Mutant": {"name": "src/lib.rs:399:35: replace - with + in Slab<T>::reserve_exact",
          "package": "slab", "file": "src/lib.rs",
          "function": {"function_name": "Slab<T>::reserve_exact", "return_type": "",
                       "span": {"start": {"line": 369, "column": 5}, "end": {"line": 401, "column": 6}}},
          "span": {"start": {"line": 399, "column": 35}, "end": {"line": 399, "column": 36}},
          "replacement": "+", "genre": "BinaryOperator"}}, "summary": "MissedMutant"},
        {"scenario": {"Mutant": {"name": "src/lib.rs:10:5: replace f -> bool with true",
          "package": "slab", "file": "src/lib.rs",
          "span": {"start": {"line": 10, "column": 5}, "end": {"line": 10, "column": 9}},
          "replacement": "true", "genre": "FnValue"}}, "summary": "CaughtMutant"}
    ], "total_mutants": 2}"#;

    #[test]
    fn only_missed_mutants_are_survivors() {
        let s = parse_outcomes(OUTCOMES).unwrap();
        assert_eq!(
            s,
            [survivor(
                "src/lib.rs:399:35: replace - with + in Slab<T>::reserve_exact",
                399,
                369,
                "BinaryOperator",
                "+"
            )]
        );
        assert!(parse_outcomes("{\"outcomes\": 3}").is_err());
    }

    #[test]
    fn survivors_meet_their_counterparts_by_place_and_operator() {
        use GoalKind::{Line, WeakMutation as M};
        let goals = [
            goal(0, M, 5, "FBR body -> 0"),
            goal(1, M, 5, "FBR body -> 1"),
            goal(2, M, 9, "AOR - -> +"),
            goal(3, M, 9, "AOR - -> /"),
            goal(4, M, 12, "ROR < -> <="),
            goal(5, M, 12, "ROR < -> !="),
            goal(6, Line, 14, "line"),
            goal(7, M, 16, "LOR && -> ||"),
            goal(8, M, 18, "delete match arm"),
            goal(9, M, 19, "match guard -> true"),
            goal(10, M, 19, "match guard -> false"),
            goal(11, M, 21, "FBR body -> (0, Some(1))"),
        ];
        // A tuple's value is named as cargo-mutants writes it.
        let size_hint = survivor(
            "src/lib.rs:22:9: replace <impl Iterator for Iter<'a, T>>::size_hint -> (usize, Option<usize>) with (0, Some(1))",
            22,
            21,
            "FnValue",
            "(0, Some(1))",
        );
        assert_eq!(counterparts(&size_hint, &goals), [11]);
        let fbr = survivor(
            "src/lib.rs:6:9: replace f -> u8 with 1",
            6,
            4,
            "FnValue",
            "1",
        );
        assert_eq!(counterparts(&fbr, &goals), [1]);
        let other_fn = survivor(
            "src/lib.rs:6:9: replace g -> u8 with 1",
            6,
            6,
            "FnValue",
            "1",
        );
        assert_eq!(counterparts(&other_fn, &goals), [] as [u32; 0]);
        let aor = survivor(
            "src/lib.rs:9:5: replace - with + in f",
            9,
            4,
            "BinaryOperator",
            "+",
        );
        assert_eq!(counterparts(&aor, &goals), [2]);
        let ror = survivor(
            "src/lib.rs:12:5: replace < with > in f",
            12,
            4,
            "BinaryOperator",
            ">",
        );
        assert_eq!(counterparts(&ror, &goals), [4, 5]);
        let arm = survivor("src/lib.rs:14:5: delete match arm", 14, 4, "MatchArm", "");
        assert_eq!(counterparts(&arm, &goals), [] as [u32; 0]);
        let lor = survivor(
            "src/lib.rs:16:9: replace && with || in f",
            16,
            4,
            "BinaryOperator",
            "||",
        );
        assert_eq!(counterparts(&lor, &goals), [7]);
        let deleted = survivor("src/lib.rs:18:9: delete match arm", 18, 4, "MatchArm", "");
        assert_eq!(counterparts(&deleted, &goals), [8]);
        let guarded = survivor("src/lib.rs:19:9: delete match arm", 19, 4, "MatchArm", "");
        assert_eq!(counterparts(&guarded, &goals), [10]);
        let guard = survivor(
            "src/lib.rs:19:18: replace match guard x > 1 with true in f",
            19,
            4,
            "MatchArmGuard",
            "true",
        );
        assert_eq!(counterparts(&guard, &goals), [9]);

        let (none, covers_a, kills_a) = (
            BTreeSet::new(),
            BTreeSet::from([1, 2, 3, 4, 5, 6]),
            BTreeSet::from([1, 4]),
        );
        let kills_b = BTreeSet::from([5]);
        let tests = [
            TestView {
                name: "a",
                covers: &covers_a,
                kills: &kills_a,
            },
            TestView {
                name: "b",
                covers: &covers_a,
                kills: &kills_b,
            },
            TestView {
                name: "c",
                covers: &none,
                kills: &none,
            },
        ];
        // A survivor in code the features compile out gets that verdict, whatever matches it.
        let mut gated = arm.clone();
        gated.line = 40;
        let compiled_out = |_: &str, line: usize| line == 40;
        // `lor`'s mutant was never infected nor its line run: not reached. `guard`'s was
        // infected in the search, never killed: possibly equivalent.
        let r = report(
            &[fbr, aor, ror, arm, gated, lor, guard],
            &goals,
            &tests,
            RunSeen {
                infected: &BTreeSet::from([9]),
                compiled_out: &compiled_out,
            },
        );
        let verdicts: Vec<&Verdict> = r.verdicts.iter().map(|v| &v.verdict).collect();
        assert_eq!(
            verdicts,
            [
                &Verdict::Killed { test: "a".into() },
                // Each ROR mutant is killed, by another test.
                &Verdict::Killed {
                    test: "a, b".into()
                },
                &Verdict::PossiblyEquivalent,
                &Verdict::NoCounterpart {
                    reached_by: Some("a".into())
                },
                &Verdict::NotCompiled,
                &Verdict::NotReached,
                &Verdict::PossiblyEquivalent,
            ]
        );
        assert_eq!(
            (
                r.killed,
                r.possibly_equivalent,
                r.no_counterpart,
                r.not_compiled,
                r.not_reached
            ),
            (2, 2, 1, 1, 1)
        );
    }
}
