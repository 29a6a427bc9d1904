use numeric::*;

#[test]
fn stats_and_runs() {
    let s = stats(&[5, -2, 2000, 1]).unwrap();
    assert_eq!(s.count, 4);
    assert_eq!(s.min, -2);
    assert_eq!(s.max, 2000);
    assert_eq!(s.negatives, 1);
    assert_eq!(s.outliers, 1);
    assert!(stats(&[]).is_none());
    assert_eq!(longest_increasing_run(vec![1, 2, 3, 1, 2]), 3);
    assert_eq!(longest_increasing_run(vec![]), 0);
}

#[test]
fn arithmetic() {
    assert_eq!(checked_pow(2, 10), Some(1024));
    assert_eq!(checked_pow(10, 30), None);
    assert_eq!(weighted_sum(1, 0, 2, 0), None);
    assert_eq!(weighted_sum(3, 2, 4, 1), Some(10));
    assert_eq!(gcd(-12, 18), 6);
    assert_eq!(quadrant(-1.0, -1.0), 3);
    assert_eq!(quadrant(0.0, 5.0), 0);
}

#[test]
fn meter() {
    let mut m = Meter::new(100);
    assert_eq!(m.average(), None);
    assert!(!m.record(101));
    assert!(m.record(10));
    assert!(m.record(30));
    assert!(!m.record(20_000));
    assert_eq!(m.average(), Some(20));
    assert_eq!(m.peak, 30);
    assert_eq!(Meter::default().limit, 1_000);
}
