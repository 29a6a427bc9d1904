//! Snapshot tests of the rewriting rules: one small snippet per rule, the rewritten text and
//! the goals (id, kind, parent, line, label) it numbered.

use super::{Options, instrument_source};

/// The rewritten text, then one line per goal and per skipped spot.
fn show(src: &str) -> String {
    // The rules other than observers, alone; observers have their own tests (`show_observed`).
    let opts = Options {
        testability: false,
        ..Options::default()
    };
    show_with(src, &opts)
}

fn show_with(src: &str, opts: &Options) -> String {
    let (text, m) = instrument_source(src, "src/lib.rs", opts);
    let text = text.expect("snippet parses");
    assert_eq!(
        text.matches('\n').count(),
        src.matches('\n').count(),
        "line count changed"
    );
    let lines: Vec<&str> = src.lines().collect();
    let mut out = text;
    out.push_str("----\n");
    for g in &m.goals {
        assert!(
            !lines[g.line - 1].trim().is_empty(),
            "goal {} on a blank line",
            g.id
        );
        let parent = g.parent.map_or("-".to_string(), |p| p.to_string());
        out.push_str(&format!(
            "{} {:?} parent={parent} line={} {}\n",
            g.id, g.kind, g.line, g.label
        ));
    }
    for s in &m.skipped {
        out.push_str(&format!("skipped {}:{} {}\n", s.file, s.line, s.reason));
    }
    out
}

fn check(src: &str, expected: &str) {
    let got = show(src);
    assert!(got == expected, "rewritten:\n{got}\nexpected:\n{expected}");
}

/// `enter` goes after inner attributes; statements sharing a line share one line goal.
#[test]
fn fn_entry_and_lines() {
    check(
        r#"fn f(x: u32) -> u32 {
    #![allow(unused)]
    let y = x + 1; let z = y;
    z
}
"#,
        r#"fn f(x: u32) -> u32 {
    #![allow(unused)]
    let __frugal_guard = ::frugal_probe::enter(0, 0); ::frugal_probe::line(1); let y = x + 1; let z = y;
    ::frugal_probe::line(2); z
}
----
0 Function parent=- line=1 fn entry
1 Line parent=0 line=3 line
2 Line parent=0 line=4 line
"#,
    );
}

/// `if` conditions go through `branch`; an `else if` depends on the outer false goal.
#[test]
fn if_else_chain() {
    check(
        r#"fn f(x: i32) -> i32 {
    if x < 0 {
        -1
    } else if x == 0 {
        0
    } else {
        1
    }
}
"#,
        r#"fn f(x: i32) -> i32 {
    let __frugal_guard = ::frugal_probe::enter(0, 0); ::frugal_probe::line(1); if { use ::frugal_probe::Mag as _; match (&(x ), &( 0)) { (__frugal_l, __frugal_r) => ::frugal_probe::branch_cmp(2, 3, ::frugal_probe::op::LT, *__frugal_l < *__frugal_r, (&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).mag()) } } {
        ::frugal_probe::line(4); -1
    } else if { use ::frugal_probe::Mag as _; match (&(x ), &( 0)) { (__frugal_l, __frugal_r) => ::frugal_probe::branch_cmp(5, 6, ::frugal_probe::op::EQ, *__frugal_l == *__frugal_r, (&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).mag()) } } {
        ::frugal_probe::line(7); 0
    } else {
        ::frugal_probe::line(8); 1
    }
}
----
0 Function parent=- line=1 fn entry
1 Line parent=0 line=2 line
2 Branch parent=0 line=2 if true
3 Branch parent=0 line=2 if false
4 Line parent=2 line=3 line
5 Branch parent=3 line=4 if true
6 Branch parent=3 line=4 if false
7 Line parent=5 line=5 line
8 Line parent=6 line=7 line
"#,
    );
}

/// A condition spread over lines keeps every line where it was.
#[test]
fn multiline_condition() {
    check(
        r#"fn f(a: u8,
     b: u8) -> bool {
    if a
        ==
        b
    { true } else { false }
}
"#,
        r#"fn f(a: u8,
     b: u8) -> bool {
    let __frugal_guard = ::frugal_probe::enter(0, 0); ::frugal_probe::line(1); if { use ::frugal_probe::Mag as _; match (&(a
        ), &(
        b)) { (__frugal_l, __frugal_r) => ::frugal_probe::branch_cmp(2, 3, ::frugal_probe::op::EQ, *__frugal_l == *__frugal_r, (&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).mag()) } }
    { ::frugal_probe::line(4); true } else { ::frugal_probe::line(5); false }
}
----
0 Function parent=- line=1 fn entry
1 Line parent=0 line=3 line
2 Branch parent=0 line=3 if true
3 Branch parent=0 line=3 if false
4 Line parent=2 line=6 line
5 Line parent=3 line=6 line
"#,
    );
}

/// `&&`/`||` groups fold two operands each; leaf operands get goal pairs, swapped under `!`.
#[test]
fn and_or_not() {
    check(
        r#"fn f(a: bool, b: i32, c: bool) {
    if a && !(b > 2) || c {}
}
"#,
        r#"fn f(a: bool, b: i32, c: bool) {
    let __frugal_guard = ::frugal_probe::enter(0, 0); ::frugal_probe::line(1); if ::frugal_probe::branch(2, 3, ::frugal_probe::close_or(::frugal_probe::open() && (::frugal_probe::close_and(::frugal_probe::open() && ::frugal_probe::leaf_goal(4, 5, a) && ::frugal_probe::not(!({ use ::frugal_probe::Mag as _; match (&(b ), &( 2)) { (__frugal_l, __frugal_r) => ::frugal_probe::cmp_goal(7, 6, ::frugal_probe::op::GT, *__frugal_l > *__frugal_r, (&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).mag()) } }))) || ::frugal_probe::leaf_goal(8, 9, c)))) {}
}
----
0 Function parent=- line=1 fn entry
1 Line parent=0 line=2 line
2 Branch parent=0 line=2 if true
3 Branch parent=0 line=2 if false
4 Branch parent=0 line=2 && operand true
5 Branch parent=0 line=2 && operand false
6 Branch parent=4 line=2 && operand true
7 Branch parent=4 line=2 && operand false
8 Branch parent=0 line=2 || operand true
9 Branch parent=0 line=2 || operand false
"#,
    );
}

/// `if let` records its own hits; a missing `else` is added, an `else if` is wrapped.
#[test]
fn if_let() {
    check(
        r#"fn f(x: Option<u8>, y: Option<u8>) {
    if let Some(a) = x { drop(a) }
    if let Some(b) = y { drop(b) } else if x.is_none() { }
}
"#,
        r#"fn f(x: Option<u8>, y: Option<u8>) {
    let __frugal_guard = ::frugal_probe::enter(0, 0); ::frugal_probe::line(1); if let Some(a) = x { ::frugal_probe::hit(2); ::frugal_probe::line(4); drop(a) } else { ::frugal_probe::hit(3); }
    ::frugal_probe::line(5); if let Some(b) = y { ::frugal_probe::hit(6); ::frugal_probe::line(8); drop(b) } else { ::frugal_probe::hit(7); if ::frugal_probe::branch(9, 10, ::frugal_probe::leaf(x.is_none())) { } }
}
----
0 Function parent=- line=1 fn entry
1 Line parent=0 line=2 line
2 Branch parent=0 line=2 if let true
3 Branch parent=0 line=2 if let false
4 Line parent=2 line=2 line
5 Line parent=0 line=3 line
6 Branch parent=0 line=3 if let true
7 Branch parent=0 line=3 if let false
8 Line parent=6 line=3 line
9 Branch parent=7 line=3 if true
10 Branch parent=7 line=3 if false
"#,
    );
}

/// After a let-else or an `if` whose block returns, the rest of the block depends on the goal that lets it run.
#[test]
fn let_else_and_early_return() {
    check(
        r#"fn f(x: Option<u8>) -> u8 {
    let Some(v) = x else { return 0 };
    if v > 9 { return 9; }
    v
}
"#,
        r#"fn f(x: Option<u8>) -> u8 {
    let __frugal_guard = ::frugal_probe::enter(0, 0); ::frugal_probe::line(1); let Some(v) = x else { ::frugal_probe::hit(3); ::frugal_probe::line(4); return 0 }; ::frugal_probe::hit(2);
    ::frugal_probe::line(5); if { use ::frugal_probe::Mag as _; match (&(v ), &( 9)) { (__frugal_l, __frugal_r) => ::frugal_probe::branch_cmp(6, 7, ::frugal_probe::op::GT, *__frugal_l > *__frugal_r, (&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).mag()) } } { ::frugal_probe::line(8); return 9; }
    ::frugal_probe::line(9); v
}
----
0 Function parent=- line=1 fn entry
1 Line parent=0 line=2 line
2 Branch parent=0 line=2 let else true
3 Branch parent=0 line=2 let else false
4 Line parent=3 line=2 line
5 Line parent=2 line=3 line
6 Branch parent=2 line=3 if true
7 Branch parent=2 line=3 if false
8 Line parent=6 line=3 line
9 Line parent=7 line=4 line
"#,
    );
}

/// Every arm gets a goal; a guard is a condition and the arm depends on its true goal.
#[test]
fn match_arms() {
    check(
        r#"fn f(x: Option<i32>) -> i32 {
    match x {
        Some(n) if n > 0 => n,
        Some(_) => { 0 }
        None => return -1,
    }
}
"#,
        r#"fn f(x: Option<i32>) -> i32 {
    let __frugal_guard = ::frugal_probe::enter(0, 0); ::frugal_probe::line(1); match x {
        Some(n) if { use ::frugal_probe::Mag as _; match (&(n ), &( 0)) { (__frugal_l, __frugal_r) => ::frugal_probe::branch_cmp(2, 3, ::frugal_probe::op::GT, *__frugal_l > *__frugal_r, (&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).mag()) } } => { ::frugal_probe::hit(4); ::frugal_probe::line(5); n },
        Some(_) => { ::frugal_probe::hit(6); ::frugal_probe::line(7); 0 }
        None => { ::frugal_probe::hit(8); ::frugal_probe::line(9); return -1 },
    }
}
----
0 Function parent=- line=1 fn entry
1 Line parent=0 line=2 line
2 Branch parent=0 line=3 guard true
3 Branch parent=0 line=3 guard false
4 Branch parent=2 line=3 match arm Some(n)
5 Line parent=4 line=3 line
6 Branch parent=0 line=4 match arm Some(_)
7 Line parent=6 line=4 line
8 Branch parent=0 line=5 match arm None
9 Line parent=8 line=5 line
"#,
    );
}

/// A match on byte string literals hands its scrutinee to `bytes_arms`, each literal as a slice.
#[test]
fn byte_string_arms() {
    check_observed(
        r#"fn f(s: &[u8]) -> u8 {
    match &s[..4] { b"Jan " | b"jan " => 1, b"Feb " => 2, _ => 0 }
}
"#,
        r#"fn f(s: &[u8]) -> u8 {
    let __frugal_guard = ::frugal_probe::enter(0, 0); match ::frugal_probe::bytes_arms(&[(1, &b"Jan "[..]), (1, &b"jan "[..]), (2, &b"Feb "[..])], &s[..4]) { b"Jan " | b"jan " => { ::frugal_probe::hit(1); 1 }, b"Feb " => { ::frugal_probe::hit(2); 2 }, _ => { ::frugal_probe::hit(3); 0 } }
}
----
0 Function parent=- line=1 fn entry
1 Branch parent=0 line=2 match arm b"Jan " | b"jan "
2 Branch parent=0 line=2 match arm b"Feb "
3 Branch parent=0 line=2 match arm _
"#,
    );
}

/// A match on byte, char and integer literals and ranges hands its scrutinee to `num_arms`,
/// which records the distance to every unguarded literal arm; a `ref` binding leaves the
/// match as it was, since it would bind the probe's copy.
#[test]
fn number_literal_arms() {
    check_observed(
        r#"fn f(b: u8, c: &char) -> u8 {
    let k = match b { b'a' | 0x41 => 1, b'0'..=b'9' => 2, 200.. => 3, x @ 10..20 if x > 12 => 4, _ => 0 };
    match *c { 'z' => k, ref other => other.len_utf8() as u8 }
}
"#,
        r#"fn f(b: u8, c: &char) -> u8 {
    let __frugal_guard = ::frugal_probe::enter(0, 0); let k = match ::frugal_probe::num_arms(&[(1, 97.0, 97.0), (1, 65.0, 65.0), (2, 48.0, 57.0), (3, 200.0, f64::INFINITY)], b) { b'a' | 0x41 => { ::frugal_probe::hit(1); 1 }, b'0'..=b'9' => { ::frugal_probe::hit(2); 2 }, 200.. => { ::frugal_probe::hit(3); 3 }, x @ 10..20 if { use ::frugal_probe::Mag as _; match (&(x ), &( 12)) { (__frugal_l, __frugal_r) => ::frugal_probe::branch_cmp(4, 5, ::frugal_probe::op::GT, *__frugal_l > *__frugal_r, (&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).mag()) } } => { ::frugal_probe::hit(6); 4 }, _ => { ::frugal_probe::hit(7); 0 } };
    match *c { 'z' => { ::frugal_probe::hit(8); k }, ref other => { ::frugal_probe::hit(9); other.len_utf8() as u8 } }
}
----
0 Function parent=- line=1 fn entry
1 Branch parent=0 line=2 match arm b'a' | 0x41
2 Branch parent=0 line=2 match arm b'0'..=b'9'
3 Branch parent=0 line=2 match arm 200..
4 Branch parent=0 line=2 guard true
5 Branch parent=0 line=2 guard false
6 Branch parent=4 line=2 match arm x @ 10..20
7 Branch parent=0 line=2 match arm _
8 Branch parent=0 line=3 match arm 'z'
9 Branch parent=0 line=3 match arm ref other
"#,
    );
}

/// Each `?` gets ok/err goals; chained `?` nest outer-first.
#[test]
fn question_mark() {
    check(
        r#"fn f(s: &str) -> Option<char> {
    let c = s.parse::<u8>().ok()?.checked_add(1)?;
    char::from_u32(c as u32)
}
"#,
        r#"fn f(s: &str) -> Option<char> {
    let __frugal_guard = ::frugal_probe::enter(0, 0); ::frugal_probe::line(1); let c = ::frugal_probe::q(2, 3, ::frugal_probe::q(4, 5, s.parse::<u8>().ok())?.checked_add(1))?;
    ::frugal_probe::line(6); char::from_u32(c as u32)
}
----
0 Function parent=- line=1 fn entry
1 Line parent=0 line=2 line
2 Branch parent=0 line=2 ? ok
3 Branch parent=0 line=2 ? err
4 Branch parent=0 line=2 ? ok
5 Branch parent=0 line=2 ? err
6 Line parent=0 line=3 line
"#,
    );
}

/// Loop bodies count iterations; `while` reuses its true goal as the body goal.
#[test]
fn loops() {
    check(
        r#"fn f(n: u32) {
    for i in 0..n { drop(i) }
    while n > 3 { break }
    let mut it = 0..n;
    while let Some(_) = it.next() {}
    loop { break }
}
"#,
        r#"fn f(n: u32) {
    let __frugal_guard = ::frugal_probe::enter(0, 0); ::frugal_probe::line(1); for i in 0..n { ::frugal_probe::iter(0, 2); ::frugal_probe::line(3); drop(i) }
    ::frugal_probe::line(4); while { use ::frugal_probe::Mag as _; match (&(n ), &( 3)) { (__frugal_l, __frugal_r) => ::frugal_probe::branch_cmp(5, 6, ::frugal_probe::op::GT, *__frugal_l > *__frugal_r, (&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).mag()) } } { ::frugal_probe::iter(1, 5); ::frugal_probe::line(7); break }
    ::frugal_probe::line(8); let mut it = 0..n;
    ::frugal_probe::line(9); while let Some(_) = it.next() {::frugal_probe::iter(2, 10); }
    ::frugal_probe::line(11); loop { ::frugal_probe::iter(3, 12); ::frugal_probe::line(13); break }
}
----
0 Function parent=- line=1 fn entry
1 Line parent=0 line=2 line
2 Branch parent=0 line=2 loop body
3 Line parent=2 line=2 line
4 Line parent=0 line=3 line
5 Branch parent=0 line=3 while true
6 Branch parent=0 line=3 while false
7 Line parent=5 line=3 line
8 Line parent=0 line=4 line
9 Line parent=0 line=5 line
10 Branch parent=0 line=5 while let true
11 Line parent=0 line=6 line
12 Branch parent=0 line=6 loop body
13 Line parent=12 line=6 line
"#,
    );
}

/// An `async fn` is entered with `enter_async`, which returns no guard to hold across the
/// body's awaits; its body gets line and branch probes as any other.
#[test]
fn async_fns_enter_without_a_guard() {
    check(
        r#"async fn f(x: u8) -> u8 {
    if x > 1 { g().await } else { 0 }
}
"#,
        r#"async fn f(x: u8) -> u8 {
    ::frugal_probe::enter_async(0, 0); ::frugal_probe::line(1); if { use ::frugal_probe::Mag as _; match (&(x ), &( 1)) { (__frugal_l, __frugal_r) => ::frugal_probe::branch_cmp(2, 3, ::frugal_probe::op::GT, *__frugal_l > *__frugal_r, (&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).mag()) } } { ::frugal_probe::line(4); g().await } else { ::frugal_probe::line(5); 0 }
}
----
0 Function parent=- line=1 fn entry
1 Line parent=0 line=2 line
2 Branch parent=0 line=2 if true
3 Branch parent=0 line=2 if false
4 Line parent=2 line=2 line
5 Line parent=3 line=2 line
"#,
    );
}

/// Closure bodies get line and branch probes but no `enter`.
#[test]
fn closures() {
    check(
        r#"fn f(v: &[u8]) -> usize {
    v.iter().filter(|x| { **x > 3 }).count()
}
"#,
        r#"fn f(v: &[u8]) -> usize {
    let __frugal_guard = ::frugal_probe::enter(0, 0); ::frugal_probe::line(1); v.iter().filter(|x| { ::frugal_probe::line(1); **x > 3 }).count()
}
----
0 Function parent=- line=1 fn entry
1 Line parent=0 line=2 line
"#,
    );
}

/// A `const fn` no const context calls loses its `const` (same columns) and gets probes; one
/// a constant calls keeps it and stays as written.
#[test]
fn const_fns_called_only_at_run_time_are_instrumented() {
    check(
        "const K: u8 = c();\nconst fn c() -> u8 { 1 }\npub const fn d(n: u8) -> u8 { n }\n",
        "const K: u8 = c();\nconst fn c() -> u8 { 1 }\npub       fn d(n: u8) -> u8 { let __frugal_guard = ::frugal_probe::enter(0, 0); ::frugal_probe::line(1); n }\n\
----
0 Function parent=- line=3 fn entry
1 Line parent=0 line=3 line
skipped src/lib.rs:2 const fn
",
    );
}

/// Test code, const contexts, `#[frugal::skip]` and macro bodies stay as written.
#[test]
fn skips() {
    check(
        r#"#[cfg(test)]
mod tests { fn t() { if true {} } }
#[test]
fn t() {}
const fn c() -> u8 { 1 }
// (async fns: see `async_fns_enter_without_a_guard`)
const K: u8 = if true { c() } else { 2 };
#[frugal::skip]
fn s() { if true {} }
fn m() { println!("{}", 1); let a = [0u8; 3 + 1]; drop(a); }
"#,
        r#"#[cfg(test)]
mod tests { fn t() { if true {} } }
#[test]
fn t() {}
const fn c() -> u8 { 1 }
// (async fns: see `async_fns_enter_without_a_guard`)
const K: u8 = if true { c() } else { 2 };
#[frugal::skip]
fn s() { if true {} }
fn m() { let __frugal_guard = ::frugal_probe::enter(0, 0); ::frugal_probe::line(1); println!("{}", 1); let a = [0u8; 3 + 1]; drop(a); }
----
0 Function parent=- line=10 fn entry
1 Line parent=0 line=10 line
skipped src/lib.rs:2 cfg(test)
skipped src/lib.rs:4 test
skipped src/lib.rs:5 const fn
skipped src/lib.rs:7 const initialiser
skipped src/lib.rs:9 frugal::skip
skipped src/lib.rs:10 macro body
"#,
    );
}

#[test]
fn crlf_is_normalised_without_moving_lines() {
    let (text, m) = instrument_source(
        "fn f() {\r\n    g();\r\n}\r\n",
        "src/lib.rs",
        &Options::default(),
    );
    let text = text.unwrap();
    assert_eq!(
        text,
        "fn f() {\n    let __frugal_guard = ::frugal_probe::enter(0, 0); ::frugal_probe::line(1); g();\n}\n"
    );
    assert_eq!(m.goals[1].line, 2);
}

#[test]
fn a_file_that_does_not_parse_is_recorded_not_fatal() {
    let (text, m) = instrument_source("fn f( {", "src/bad.rs", &Options::default());
    assert_eq!(text, None);
    assert_eq!(m.skipped.len(), 1);
    assert!(
        m.skipped[0].reason.starts_with("parse error"),
        "{:?}",
        m.skipped
    );
}

#[test]
fn line_goals_can_be_turned_off() {
    let opts = Options {
        line_goals: false,
        ..Options::default()
    };
    let (text, m) = instrument_source(
        "fn f(x: bool) -> u8 {\n    if x { 1 } else { 2 }\n}\n",
        "src/lib.rs",
        &opts,
    );
    assert!(!text.unwrap().contains("line("));
    assert_eq!(m.goals.len(), 3);
}

#[test]
fn methods_are_named_by_their_impl() {
    let src = "struct S;\nimpl S { fn a(&self) {} }\nimpl Clone for S { fn clone(&self) -> S { S } }\ntrait T { fn d(&self) {} fn e(&self); }\nmod m { fn inner() {} }\n";
    let (_, m) = instrument_source(src, "src/lib.rs", &Options::default());
    let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["S::a", "<S as Clone>::clone", "T::d", "m::inner"]);
}

/// A statement with an outer attribute gets no line probe: `cfg` may remove it, and a probe
/// left behind would stop the kept block from being the value.
#[test]
fn attributed_statements() {
    check(
        r#"fn f(x: u32) -> usize {
    #[cfg(unix)]
    {
        x as usize
    }
    #[cfg(not(unix))]
    {
        0
    }
}
"#,
        r#"fn f(x: u32) -> usize {
    let __frugal_guard = ::frugal_probe::enter(0, 0); #[cfg(unix)]
    {
        ::frugal_probe::line(1); x as usize
    }
    #[cfg(not(unix))]
    {
        ::frugal_probe::line(2); 0
    }
}
----
0 Function parent=- line=1 fn entry
1 Line parent=0 line=4 line
2 Line parent=0 line=8 line
"#,
    );
}

fn check_observed(src: &str, expected: &str) {
    let opts = Options {
        line_goals: false,
        ..Options::default()
    };
    let got = show_with(src, &opts);
    assert!(got == expected, "rewritten:\n{got}\nexpected:\n{expected}");
    assert_parses(&got);
}

/// The rewritten text (before the goal listing) is still Rust.
fn assert_parses(shown: &str) {
    let text = shown.split("----\n").next().unwrap_or("");
    if let Err(e) = syn::parse_file(text) {
        panic!("the rewritten text does not parse: {e}\n{text}");
    }
}

/// A one-argument flag call binds receiver and argument once, measures, calls the original
/// and records two goals under the enclosing branch; newlines inside the call are kept.
#[test]
fn observed_method_with_an_argument() {
    check_observed(
        r#"fn f(s: &str) -> bool {
    if s.len() > 2 {
        return s
            .trim()
            .starts_with("ab");
    }
    false
}
"#,
        r#"fn f(s: &str) -> bool {
    let __frugal_guard = ::frugal_probe::enter(0, 0); if { use ::frugal_probe::Mag as _; match (&(s.len() ), &( 2)) { (__frugal_l, __frugal_r) => ::frugal_probe::branch_cmp(1, 2, ::frugal_probe::op::GT, *__frugal_l > *__frugal_r, (&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).mag()) } } {
        return ({ use ::frugal_probe::observe::{TextFlags as _, CollFlags as _, DigitFlags as _, Fallback2 as _, Went as _}; match (&(s
            .trim()), 
"ab") { (__frugal_or, __frugal_oa) => { let __frugal_od = if ::frugal_probe::observe::on() { (&&&::frugal_probe::observe::Obs2(__frugal_or, &__frugal_oa)).d_starts_with() } else { None }; let __frugal_ov = __frugal_or.starts_with(__frugal_oa); ::frugal_probe::observe::site(3, 4, __frugal_od, (&&::frugal_probe::observe::Out(&__frugal_ov)).went()); __frugal_ov } } });
    }
    false
}
----
0 Function parent=- line=1 fn entry
1 Branch parent=0 line=2 if true
2 Branch parent=0 line=2 if false
3 Branch parent=1 line=5 starts_with true
4 Branch parent=1 line=5 starts_with false
"#,
    );
}

/// `parse` measures after the call (its target type may be inferred from later code), and
/// `T::try_from(x)` measures `x` against `T`'s range.
#[test]
fn observed_parse_and_try_from() {
    check_observed(
        r#"fn f(s: &str, x: i64) -> Option<u8> {
    let n: u32 = s.parse().ok()?;
    u8::try_from(x).ok()
}
"#,
        r#"fn f(s: &str, x: i64) -> Option<u8> {
    let __frugal_guard = ::frugal_probe::enter(0, 0); let n: u32 = ::frugal_probe::q(1, 2, ({ use ::frugal_probe::observe::{TextFlags1 as _, ScalarFlags1 as _, CharFlags1 as _, CollFlags1 as _, Fallback1 as _, Went as _}; match (&(s),) { (__frugal_or,) => {  let __frugal_ov = s.parse(); ::frugal_probe::observe::parsed(3, 4, (&&&::frugal_probe::observe::Obs1(__frugal_or)).d_text(), &__frugal_ov); __frugal_ov } } }).ok())?;
    ({ use ::frugal_probe::observe::{TextFlags1 as _, ScalarFlags1 as _, CharFlags1 as _, CollFlags1 as _, Fallback1 as _, Went as _}; match (x,) { (__frugal_oa,) => { let __frugal_od = if ::frugal_probe::observe::on() { (&&&::frugal_probe::observe::Obs1(&__frugal_oa)).d_num() } else { None }; let __frugal_ot = ::frugal_probe::observe::type_of(&__frugal_oa); let __frugal_ov = u8::try_from(__frugal_oa); ::frugal_probe::observe::tried(5, 6, __frugal_od, __frugal_ot, &__frugal_ov); __frugal_ov } } }).ok()
}
----
0 Function parent=- line=1 fn entry
1 Branch parent=0 line=2 ? ok
2 Branch parent=0 line=2 ? err
3 Branch parent=0 line=2 parse ok
4 Branch parent=0 line=2 parse err
5 Branch parent=0 line=3 try_from ok
6 Branch parent=0 line=3 try_from err
"#,
    );
}

/// Observers are off with `testability: false`, and calls with other names or arities are
/// left alone.
#[test]
fn unknown_calls_and_disabled_observers_are_left_alone() {
    let src =
        "fn f(s: &str, v: &[u8]) -> bool {\n    s.starts_with(\"a\") && v.contains(&1, 2)\n}\n";
    let opts = Options {
        testability: false,
        line_goals: false,
        ..Options::default()
    };
    let off = show_with(src, &opts);
    assert!(!off.contains("observe"), "{off}");
    let on = show_with(
        src,
        &Options {
            line_goals: false,
            ..Options::default()
        },
    );
    assert_eq!(on.matches("observe::site").count(), 1, "{on}");
}

/// An observed call that is a condition leaf pushes its distance for the condition (no
/// `leaf` wrapper), with its operand goals under `&&` (swapped under `!`), so the `if` gets
/// the gradient too; a call after `&&` hangs under the operand before it.
#[test]
fn observed_condition_leaves_push_their_distance() {
    let opts = Options {
        line_goals: false,
        ..Options::default()
    };
    let got = show_with(
        "fn f(s: &str) -> u8 {\n    if !s.is_empty() && s.starts_with('#') { 1 } else { 0 }\n}\n",
        &opts,
    );
    assert!(!got.contains("::frugal_probe::leaf"), "{got}");
    assert_eq!(got.matches("observe::site_cond(").count(), 2, "{got}");
    assert!(got.contains("::frugal_probe::not(!({ use"), "{got}");
    assert!(got.contains("site_cond(5, 6, Some((4, 3)),"), "{got}");
    assert!(
        got.contains("5 Branch parent=0 line=2 is_empty true"),
        "{got}"
    );
    assert!(
        got.contains("9 Branch parent=3 line=2 starts_with true"),
        "{got}"
    );
}

/// Observed calls stay expressions where a block would not: a statement starting with one,
/// and the initialiser of `let .. else` (which may not end with `}`).
#[test]
fn observed_calls_are_parenthesised() {
    let opts = Options {
        line_goals: false,
        ..Options::default()
    };
    let got = show_with(
        "fn f(s: &str, c: char, x: i64) -> u32 {\n    s.parse::<u8>().unwrap();\n    let Some(d) = c.to_digit(10) else { return 0 };\n    u8::try_from(x).unwrap();\n    d\n}\n",
        &opts,
    );
    assert!(got.contains("(&(s),) {"), "{got}");
    assert!(got.contains("__frugal_ov } } }).unwrap();"), "{got}");
    assert!(got.contains("__frugal_ov } } }) else {"), "{got}");
    assert_parses(&got);
}

/// A `macro_rules!` body that stamps out impls gets probes in its text, around `$t` and inside
/// `$( .. )*`, so every expansion runs them; an expression macro and an invocation are left
/// alone.
#[test]
fn macro_rules_bodies_of_items() {
    check(
        r#"macro_rules! digits {
    ($($t:ty),*) => {$(
        impl Digits for $t {
            fn digits(self) -> u32 {
                let mut n = self; let mut c = 1;
                while n > 9 { n /= 10; c += 1; }
                c
            }
        }
    )*};
}
macro_rules! twice { ($e:expr) => { $e * 2 }; }
digits!(u8, u16);
"#,
        r#"macro_rules! digits {
    ($($t:ty),*) => {$(
        impl Digits for $t {
            fn digits(self) -> u32 {
                let __frugal_guard = ::frugal_probe::enter(0, 0); ::frugal_probe::line(1); let mut n = self; let mut c = 1;
                ::frugal_probe::line(2); while { use ::frugal_probe::Mag as _; match (&(n ), &( 9)) { (__frugal_l, __frugal_r) => ::frugal_probe::branch_cmp(3, 4, ::frugal_probe::op::GT, *__frugal_l > *__frugal_r, (&&&::frugal_probe::Probe(__frugal_l, __frugal_r)).mag()) } } { ::frugal_probe::iter(0, 3); ::frugal_probe::line(5); n /= 10; c += 1; }
                ::frugal_probe::line(6); c
            }
        }
    )*};
}
macro_rules! twice { ($e:expr) => { $e * 2 }; }
digits!(u8, u16);
----
0 Function parent=- line=4 fn entry
1 Line parent=0 line=5 line
2 Line parent=0 line=6 line
3 Branch parent=0 line=6 while true
4 Branch parent=0 line=6 while false
5 Line parent=3 line=6 line
6 Line parent=0 line=7 line
skipped src/lib.rs:12 macro body
skipped src/lib.rs:13 macro body
"#,
    );
}
