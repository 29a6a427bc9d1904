//! Observers record through the real tables (a process of their own: the tables are global).

#[expect(unused_imports)]
use frugal_probe::observe::{
    CollFlags as _, Fallback1 as _, Fallback2 as _, TextFlags as _, TextFlags1 as _, Went as _,
};
use frugal_probe::observe::{Obs1, Obs2, Out, parsed, site, site_cond, tried, type_of};
use frugal_probe::{Snapshot, branch, init, reset, snapshot};

fn goals() -> Vec<(u32, f64)> {
    let mut s = Snapshot::default();
    snapshot(&mut s);
    s.goals
}

fn distance(goal: u32) -> Option<f64> {
    goals()
        .into_iter()
        .find(|(g, _)| *g == goal)
        .map(|(_, d)| d)
}

#[test]
fn sites_cover_the_outcome_and_grade_the_other() {
    init(16, 1, 1);

    // `s.starts_with("ab")` on "ax": false, 'x' is 22 code points from 'b'.
    reset();
    let (s, p) = ("ax", "ab");
    let d = (&&&Obs2(&s, &p)).d_starts_with();
    let v = s.starts_with(p);
    site(0, 1, d, (&&Out(&v)).went());
    assert_eq!(distance(1), Some(0.0));
    assert_eq!(distance(0), Some(22.0 / 23.0));

    // Satisfied: the true goal is covered, the false one gets the flag distance.
    reset();
    site(0, 1, Some(0.0), Some(true));
    assert_eq!(distance(0), Some(0.0));
    assert_eq!(distance(1), Some(0.5));

    // A distance of 0 the result contradicts is a flag, never a cover.
    reset();
    site(0, 1, Some(0.0), Some(false));
    assert_eq!(distance(0), Some(0.5));

    // `parse` grades by the target type it reads from the result.
    reset();
    let r = "4x".parse::<u8>();
    parsed(2, 3, (&&&Obs1(&"4x")).d_text(), &r);
    assert_eq!(distance(3), Some(0.0));
    assert!(distance(2).is_some_and(|d| d > 0.0 && d < 1.0));

    // `u32::try_from(x: u64)`: Ok, and the Err side is graded towards the upper bound only.
    reset();
    let x: u64 = 42;
    let r = u32::try_from(x);
    tried(4, 5, Some(42.0), type_of(&x), &r);
    let far = distance(5).unwrap();
    reset();
    let y: u64 = 4_000_000_000;
    tried(4, 5, Some(y as f64), type_of(&y), &u32::try_from(y));
    let near = distance(5).unwrap();
    assert!(near < far, "{near} {far}");

    // A condition leaf pushes its pair, which the `if` takes.
    reset();
    let c = {
        let d = (&&&Obs1(&"abc")).d_is_empty();
        site_cond(6, 7, None, d, Some(false));
        false
    };
    assert!(!branch(8, 9, c));
    assert_eq!(distance(9), Some(0.0));
    assert_eq!(distance(8), Some(3.0 / 4.0));
}
