//! The mutants each operator and site gets, shown on instrumented snippets.

use super::super::{Options, instrument_source};

/// The rewritten text, then one line per goal.
fn show(src: &str) -> String {
    let opts = Options {
        mutants: true,
        line_goals: false,
        ..Options::default()
    };
    let (text, m) = instrument_source(src, "src/lib.rs", &opts);
    let mut out = text.expect("snippet parses");
    assert_eq!(out.matches('\n').count(), src.matches('\n').count());
    out.push_str("----\n");
    for g in &m.goals {
        let parent = g.parent.map_or("-".to_string(), |p| p.to_string());
        out.push_str(&format!(
            "{} {:?} parent={parent} line={} {}\n",
            g.id, g.kind, g.line, g.label
        ));
    }
    out
}

fn check(src: &str, expected: &str) {
    let got = show(src);
    assert!(got == expected, "rewritten:\n{got}\nexpected:\n{expected}");
}

// The snippets of the ROR and AOR tests return types FBR has no value for (`impl Flag`,
// `impl N`, ...), so their text shows those sites alone; `bodies_get_fbr_mutants` is FBR's.

/// A comparison passes its order and magnitude through `ror`; its two subsuming mutants are
/// goals under the enclosing goal, since the comparison runs whenever the `if` is reached.
#[test]
fn comparison_gets_ror_mutants() {
    check(
        "fn f(a: u32, b: u32) -> impl Flag {\n    if a < b { true } else { false }\n}\n",
        "fn f(a: u32, b: u32) -> impl Flag {\n    let __frugal_guard = ::frugal_probe::enter(0, 0); \
if { use ::frugal_probe::{Mag as _, Order as _}; match (&(a ), &( b)) \
{ (__frugal_l, __frugal_r) => ::frugal_probe::branch_cmp(1, 2, ::frugal_probe::op::LT, \
::frugal_probe::mutants::ror_strong(3, ::frugal_probe::op::LT, *__frugal_l < *__frugal_r, \
|| (&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).ord()), ::frugal_probe::ror(3, ::frugal_probe::op::LT, (&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).ord(), \
(&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).mag())) } } { true } else { false }\n}\n\
----
0 Function parent=- line=1 fn entry
1 Branch parent=0 line=2 if true
2 Branch parent=0 line=2 if false
3 Mutant parent=0 line=2 ROR < -> <=
4 Mutant parent=0 line=2 ROR < -> !=
",
    );
}

/// `A op B` evaluates both operands once, in order, lets the probe see them, then computes
/// the original; nested sites nest, outer goals first; the parent is the enclosing branch.
#[test]
fn arithmetic_gets_aor_mutants() {
    check(
        "fn f(a: u32, b: u32) -> impl N {\n    if a == 0 {\n        return a * 2 + b;\n    }\n    a % b\n}\n",
        "fn f(a: u32, b: u32) -> impl N {\n    let __frugal_guard = ::frugal_probe::enter(0, 0); \
if { use ::frugal_probe::{Mag as _, Order as _}; match (&(a ), &( 0)) \
{ (__frugal_l, __frugal_r) => ::frugal_probe::branch_cmp(1, 2, ::frugal_probe::op::EQ, \
::frugal_probe::mutants::ror_strong(3, ::frugal_probe::op::EQ, *__frugal_l == *__frugal_r, \
|| (&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).ord()), ::frugal_probe::ror(3, ::frugal_probe::op::EQ, (&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).ord(), \
(&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).mag())) } } {\n        \
return ::frugal_probe::arith(match (::frugal_probe::arith(match (a , 2) { (__frugal_a, __frugal_b) => \
{ use ::frugal_probe::Arith as _; let __frugal_m = (&&&::frugal_probe::Probe(&__frugal_a, &__frugal_b))\
.aor(7, ::frugal_probe::mutants::aop::MUL); match __frugal_m { Some(__frugal_m) => __frugal_m.value(), \
None => __frugal_a * __frugal_b } } }) , b) \
{ (__frugal_a, __frugal_b) => { use ::frugal_probe::Arith as _; \
let __frugal_m = (&&&::frugal_probe::Probe(&__frugal_a, &__frugal_b)).aor(5, ::frugal_probe::mutants::aop::ADD); \
match __frugal_m { Some(__frugal_m) => __frugal_m.value(), None => __frugal_a + __frugal_b } } });\n    }\n    \
::frugal_probe::arith(match (a , b) { (__frugal_a, __frugal_b) => { use ::frugal_probe::Arith as _; \
let __frugal_m = (&&&::frugal_probe::Probe(&__frugal_a, &__frugal_b)).aor(9, ::frugal_probe::mutants::aop::REM); \
match __frugal_m { Some(__frugal_m) => __frugal_m.value(), None => __frugal_a % __frugal_b } } })\n}\n\
----
0 Function parent=- line=1 fn entry
1 Branch parent=0 line=2 if true
2 Branch parent=0 line=2 if false
3 Mutant parent=0 line=2 ROR == -> <=
4 Mutant parent=0 line=2 ROR == -> >=
5 Mutant parent=1 line=3 AOR + -> -
6 Mutant parent=1 line=3 AOR + -> *
7 Mutant parent=1 line=3 AOR * -> +
8 Mutant parent=1 line=3 AOR * -> /
9 Mutant parent=2 line=5 AOR % -> -
10 Mutant parent=2 line=5 AOR % -> /
",
    );
}

/// A sum written over lines with leading operators gets a site per operator, each on its
/// operator's line (the site's last, where its overflow panics); an operator ending a
/// line does not (its rewrite would move the panic to the next line). Operands whose
/// type a later use decides take the generic probe.
#[test]
fn sums_over_lines_and_inferred_operands_get_aor_mutants() {
    let got = show(
        "fn f(a: u64, b: u64) -> impl N {\n    a\n        + 1\n        + b;\n    a +\n        b;\n    let mut n = 0;\n    let m = n + 2;\n}\n",
    );
    let (text, goals) = got.split_once("----\n").unwrap();
    let aor: Vec<&str> = goals.lines().filter(|l| l.contains("AOR")).collect();
    assert_eq!(
        aor,
        [
            "1 Mutant parent=0 line=4 AOR + -> -",
            "2 Mutant parent=0 line=4 AOR + -> *",
            "3 Mutant parent=0 line=3 AOR + -> -",
            "4 Mutant parent=0 line=3 AOR + -> *",
            "5 Mutant parent=0 line=8 AOR + -> -",
            "6 Mutant parent=0 line=8 AOR + -> *",
        ]
    );
    assert!(
        text.contains("aor_inferred(5, ::frugal_probe::mutants::aop::ADD, __frugal_a, __frugal_b)"),
        "{text}"
    );
    assert!(text.contains("    a +\n        b;"), "{text}");
}

/// Operands of `&&` depend on the previous operand's goal, and so do their mutants. A
/// comparison outside a condition gets its ROR mutants (no branch goals), its arithmetic
/// its AOR ones.
#[test]
fn mutants_in_a_chain_hang_under_the_previous_operand() {
    let got = show(
        "fn f(a: i64, b: i64) -> impl Flag {\n    a > 0 && b - a >= 3\n}\nfn g(a: i64) -> impl Unit {\n    if a > 0 && a - 1 >= 3 {}\n}\n",
    );
    let goals = got.split("----\n").nth(1).unwrap();
    assert_eq!(
        goals,
        "0 Function parent=- line=1 fn entry
1 Mutant parent=0 line=2 LOR && -> ||
2 Mutant parent=0 line=2 ROR > -> >=
3 Mutant parent=0 line=2 ROR > -> !=
4 Mutant parent=0 line=2 ROR > -> false
5 Mutant parent=0 line=2 ROR >= -> >
6 Mutant parent=0 line=2 ROR >= -> ==
7 Mutant parent=0 line=2 ROR >= -> true
8 Mutant parent=0 line=2 AOR - -> +
9 Mutant parent=0 line=2 AOR - -> /
10 Mutant parent=0 line=2 AOR - -> %
11 Function parent=- line=4 fn entry
12 Branch parent=11 line=5 if true
13 Branch parent=11 line=5 if false
14 Mutant parent=11 line=5 LOR && -> ||
15 Branch parent=11 line=5 && operand true
16 Branch parent=11 line=5 && operand false
17 Mutant parent=11 line=5 ROR > -> >=
18 Mutant parent=11 line=5 ROR > -> !=
19 Branch parent=15 line=5 && operand true
20 Branch parent=15 line=5 && operand false
21 Mutant parent=15 line=5 ROR >= -> >
22 Mutant parent=15 line=5 ROR >= -> ==
23 Mutant parent=15 line=5 AOR - -> +
24 Mutant parent=15 line=5 AOR - -> /
25 Mutant parent=15 line=5 AOR - -> %
"
    );
}

/// No mutants but LOR: with the option off; for `==` on enum variants, structs and tuples; for
/// arithmetic over lines with the operator ending one, on strings, in macros and in const
/// contexts.
#[test]
fn sites_without_mutants() {
    let src = "fn f(s: String, k: Kind, n: usize) -> impl Len {\n    if k == Kind::A || (n, n) != (1, 2) {}\n    let t = s + \"x\";\n    let a = [0u8; 2 + 3];\n    let v = vec![n + 1];\n    n +\n        1\n}\n";
    let got = show(src);
    let goals = got.split("----\n").nth(1).unwrap();
    // The `||` has its LOR mutant; its operands have none.
    let mutants: Vec<&str> = goals.lines().filter(|l| l.contains("Mutant")).collect();
    assert_eq!(
        mutants,
        ["3 Mutant parent=0 line=2 LOR || -> &&"],
        "{goals}"
    );
    let (text, m) = instrument_source(
        "fn f(a: u32) -> u32 {\n    if a < 1 { a + 1 } else { 0 }\n}\n",
        "src/lib.rs",
        &Options::default(),
    );
    assert!(!text.unwrap().contains("ror("));
    assert!(
        m.goals
            .iter()
            .all(|g| g.kind != crate::manifest::GoalKind::Mutant)
    );
}

/// `x += y` evaluates `y`, then borrows the place and lets the probe see both; its AOR
/// goals are named as cargo-mutants names them. Places that are not plain (a call in
/// them) get none, nor sites whose operands' types are all still being inferred
/// (`let mut n = 0; n += 1`).
#[test]
fn compound_assignments_get_aor_mutants() {
    let got = show(
        "fn f(v: &mut [u32], x: u32) -> impl Unit {\n    v[0] -= x;\n    next(v).len += 1;\n    let mut n = 0;\n    n += 1;\n}\n",
    );
    let (text, goals) = got.split_once("----\n").unwrap();
    assert!(
        text.contains(
            "::frugal_probe::arith(match (x) { __frugal_b => { let __frugal_p = &mut v[0]; \
use ::frugal_probe::Arith as _; let __frugal_m = (&&&::frugal_probe::Probe(&*__frugal_p, &__frugal_b))\
.aor(1, ::frugal_probe::mutants::aop::SUB); match __frugal_m { Some(__frugal_m) => *__frugal_p = \
__frugal_m.value(), None => *__frugal_p -= __frugal_b } } });"
        ),
        "{text}"
    );
    assert!(text.contains("next(v).len += 1;"), "{text}");
    // A local whose type later uses decide: the generic probe leaves it open.
    assert!(
        text.contains(
            "::frugal_probe::arith(match (1) { __frugal_b => { let __frugal_p = &mut n; \
let __frugal_m = ::frugal_probe::mutants::aor_inferred(4, ::frugal_probe::mutants::aop::ADD, \
*__frugal_p, __frugal_b); match __frugal_m"
        ),
        "an untyped local: {text}"
    );
    let aor: Vec<&str> = goals.lines().filter(|l| l.contains("AOR")).collect();
    assert_eq!(
        aor,
        [
            "1 Mutant parent=0 line=2 AOR -= -> +=",
            "2 Mutant parent=0 line=2 AOR -= -> /=",
            "3 Mutant parent=0 line=2 AOR -= -> %=",
            "4 Mutant parent=0 line=5 AOR += -> -=",
            "5 Mutant parent=0 line=5 AOR += -> *=",
        ]
    );
}

/// Every `!` gets a NOT-deletion mutant, in a condition (around the probe's `not`) and
/// outside one; `!&x` does not.
#[test]
fn negations_get_deletion_mutants() {
    let got = show(
        "fn f(a: bool, b: &bool) -> impl Unit {\n    if !a {}\n    let c = !a;\n    let d = !&b;\n}\n",
    );
    let (text, goals) = got.split_once("----\n").unwrap();
    assert!(
        text.contains(
            "::frugal_probe::mutants::negation(3, ::frugal_probe::not(!::frugal_probe::leaf(a)))"
        ),
        "{text}"
    );
    assert!(
        text.contains("let c = ::frugal_probe::mutants::negation(4, !a);"),
        "{text}"
    );
    assert!(text.contains("let d = !&b;"), "{text}");
    let deleted: Vec<&str> = goals.lines().filter(|l| l.contains("delete !")).collect();
    assert_eq!(
        deleted,
        [
            "3 Mutant parent=0 line=2 delete !",
            "4 Mutant parent=0 line=3 delete !",
        ]
    );
}

/// A `Display` or `Debug` impl's `fmt` can return `Ok(())` without writing, as
/// cargo-mutants' `Ok(Default::default())` does.
#[test]
fn formatting_bodies_get_an_fbr_mutant() {
    let got = show(
        "fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n    f.write_str(\"x\")\n}\n",
    );
    let (text, goals) = got.split_once("----\n").unwrap();
    assert!(
        text.contains("if ::frugal_probe::mutants::body(1) { return Ok(Default::default()); }"),
        "{text}"
    );
    assert!(
        goals.contains("1 Mutant parent=0 line=1 FBR body -> Ok(Default::default())"),
        "{goals}"
    );
}

/// A comparison whose value is used (`return a > b;`) gets the ROR mutants a condition's
/// would, and the constant of its subsuming set, which no branch goal stands in for; one
/// whose operands are all still being inferred gets none.
#[test]
fn value_comparisons_get_ror_mutants() {
    let got = show(
        "fn f(a: u32, b: u32) -> impl Flag {\n    let mut n = 0;\n    let z = n == 0;\n    return a > b;\n}\n",
    );
    let (text, goals) = got.split_once("----\n").unwrap();
    assert!(text.contains("let z = n == 0;"), "{text}");
    assert!(
        text.contains("return ::frugal_probe::mutants::ror_constant(3, { use ::frugal_probe::{Mag as _, Order as _}; match (&(a ), &( b)) { (__frugal_l, __frugal_r) => { let _ = ::frugal_probe::ror(1, ::frugal_probe::op::GT, "),
        "{text}"
    );
    assert!(text.contains(") } } }, false);"), "{text}");
    assert!(
        text.contains("::frugal_probe::mutants::ror_strong(1, ::frugal_probe::op::GT, *__frugal_l > *__frugal_r, "),
        "{text}"
    );
    let ror: Vec<&str> = goals.lines().filter(|l| l.contains("ROR")).collect();
    assert_eq!(
        ror,
        [
            "1 Mutant parent=0 line=4 ROR > -> >=",
            "2 Mutant parent=0 line=4 ROR > -> !=",
            "3 Mutant parent=0 line=4 ROR > -> false",
        ]
    );
}

/// Every lazy `&&`/`||` gets a LOR mutant, in a condition (inside the fold of its distance
/// entries) and outside one; a `let` chain does not.
#[test]
fn lazy_operators_get_lor_mutants() {
    let got = show(
        "fn f(a: bool, b: bool, o: Option<u8>) -> impl Unit {\n    if a && b {}\n    let c = a || b;\n    if let Some(x) = o && a {}\n}\n",
    );
    let (text, goals) = got.split_once("----\n").unwrap();
    assert!(
        text.contains(
            "::frugal_probe::close_and(::frugal_probe::open() && (match (::frugal_probe::leaf_goal("
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "let c = (match (a ) { __frugal_l => match ::frugal_probe::mutants::logical("
        ),
        "{text}"
    );
    assert!(text.contains("if let Some(x) = o && a"), "{text}");
    let lor: Vec<&str> = goals.lines().filter(|l| l.contains("LOR")).collect();
    assert_eq!(lor.len(), 2, "{goals}");
    assert!(lor[0].ends_with("line=2 LOR && -> ||"), "{lor:?}");
    assert!(lor[1].ends_with("line=3 LOR || -> &&"), "{lor:?}");
}

/// In a match with a `_` arm, every other unguarded arm gets a deletion mutant as a guard,
/// and every guard its two mutants; a match without `_` (or with a `_` under `#[cfg]`) gets
/// no deletions.
#[test]
fn match_arms_get_deletion_and_guard_mutants() {
    let got = show(
        "fn f(n: u8) -> impl Unit {\n    match n {\n        0 => {}\n        k if k > 3 => {}\n        _ => {}\n    }\n    match n {\n        0 => {}\n        1..=255 => {}\n        #[cfg(old)]\n        _ => {}\n    }\n}\n",
    );
    let (text, goals) = got.split_once("----\n").unwrap();
    assert!(
        text.contains("0 if ::frugal_probe::mutants::arm_kept("),
        "{text}"
    );
    assert!(
        text.contains("k if ::frugal_probe::mutants::guard("),
        "{text}"
    );
    let arms: Vec<&str> = goals
        .lines()
        .filter(|l| l.contains("delete match arm") || l.contains("match guard"))
        .collect();
    assert_eq!(arms.len(), 3, "{goals}");
    assert!(arms[0].ends_with("line=3 delete match arm"), "{arms:?}");
    assert!(arms[1].ends_with("line=4 match guard -> true"), "{arms:?}");
    assert!(arms[2].ends_with("line=4 match guard -> false"), "{arms:?}");
}

/// A body gets one mutant per value of its return type, under its entry goal, on the `fn`
/// line; other named types (`Self`, a path FBR does not know) get `Default::default()`.
#[test]
fn bodies_get_fbr_mutants() {
    let got = show(
        "fn f(a: u8) -> bool {\n    a.is_power_of_two()\n}\nfn g(v: &mut Vec<u8>) {\n    v.clear()\n}\nfn h(s: &str) -> &str {\n    s\n}\nfn k(n: u8) -> Option<u8> {\n    Some(n)\n}\nfn m() -> Self {\n    todo!()\n}\nfn n() -> alloc::vec::Vec<u8> {\n    todo!()\n}\nfn p() -> i8 {\n    -3\n}\nfn q(&self) -> (usize, Option<usize>) {\n    (0, None)\n}\nfn r(&self) -> Result<(), fmt::Error> {\n    Ok(())\n}\nfn c(&self) -> borrow::Cow<'_, str> {\n    todo!()\n}\n",
    );
    let (text, goals) = got.split_once("----\n").unwrap();
    assert!(
        text.contains("let __frugal_guard = ::frugal_probe::enter(0, 0); if ::frugal_probe::mutants::body(1) { return true; } if ::frugal_probe::mutants::body(2) { return false; } "),
        "{text}"
    );
    assert!(
        text.contains("if ::frugal_probe::mutants::body(4) { return; } "),
        "{text}"
    );
    let fbr: Vec<&str> = goals.lines().filter(|l| l.contains("FBR")).collect();
    assert_eq!(
        fbr,
        [
            "1 Mutant parent=0 line=1 FBR body -> true",
            "2 Mutant parent=0 line=1 FBR body -> false",
            "4 Mutant parent=3 line=4 FBR body -> ()",
            "6 Mutant parent=5 line=7 FBR body -> \"\"",
            "7 Mutant parent=5 line=7 FBR body -> \"xyzzy\"",
            "9 Mutant parent=8 line=10 FBR body -> None",
            "10 Mutant parent=8 line=10 FBR body -> Some(0)",
            "11 Mutant parent=8 line=10 FBR body -> Some(1)",
            "13 Mutant parent=12 line=13 FBR body -> Default::default()",
            "15 Mutant parent=14 line=16 FBR body -> Default::default()",
            "17 Mutant parent=16 line=19 FBR body -> 0",
            "18 Mutant parent=16 line=19 FBR body -> 1",
            "19 Mutant parent=16 line=19 FBR body -> -1",
            "21 Mutant parent=20 line=22 FBR body -> (0, None)",
            "22 Mutant parent=20 line=22 FBR body -> (0, Some(0))",
            "23 Mutant parent=20 line=22 FBR body -> (0, Some(1))",
            "24 Mutant parent=20 line=22 FBR body -> (1, None)",
            "25 Mutant parent=20 line=22 FBR body -> (1, Some(0))",
            "26 Mutant parent=20 line=22 FBR body -> (1, Some(1))",
            "28 Mutant parent=27 line=25 FBR body -> Ok(())",
            "30 Mutant parent=29 line=28 FBR body -> Cow::Borrowed(\"\")",
            "31 Mutant parent=29 line=28 FBR body -> Cow::Owned(\"\".to_owned())",
            "32 Mutant parent=29 line=28 FBR body -> Cow::Borrowed(\"xyzzy\")",
            "33 Mutant parent=29 line=28 FBR body -> Cow::Owned(\"xyzzy\".to_owned())",
        ]
    );
    // The code names `Cow` as the signature does and builds the owned string with `into`.
    assert!(
        text.contains("return borrow::Cow::Owned(\"xyzzy\".into());"),
        "{text}"
    );
}
