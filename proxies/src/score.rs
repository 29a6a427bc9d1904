//! Aggregations of the proxies of \[adynamosa\]: the archive's performance-score (Eq. 1) and the within-front
//! performance-heuristic (Eq. 2).

use crate::Proxies;

/// Eq. 1 of the paper (§3.2.1), the performance-score the archive compares:
/// `Σ_{k=1..7} I_k / (I_k + 1)`. Each proxy is normalised by `x / (x + 1)`; lower is better; the
/// value lies in `[0, 7)`.
pub fn archive_score(p: &Proxies) -> f64 {
    p.values()
        .iter()
        .map(|&x| {
            let x = x as f64;
            x / (x + 1.0)
        })
        .sum()
}

/// The archive's replacement rule for a target it already covers (paper §3.2.2, last paragraph
/// before §4): the candidate replaces the stored test "if and only if its performance-score
/// (Equation 1) is lower". Strictly lower: on a tie the stored test stays. A target not yet in the
/// archive takes any covering test without a comparison; that part is the caller's.
pub fn archive_replaces(candidate: &Proxies, incumbent: &Proxies) -> bool {
    archive_score(candidate) < archive_score(incumbent)
}

/// What a proxy adds to every test of a front when its maximum equals its minimum there. The
/// paper leaves `0/0` undefined; the authors' reference code for the paper in \[evosuite\] adds 0.5 (the midpoint of
/// the term's range `[0, 1]`). Any constant gives the same order within the front; 0.5 keeps
/// the score in `[0, 7]` and a one-test front at 3.5.
pub const EQUAL_RANGE_TERM: f64 = 0.5;

/// Eq. 2 of the paper (§3.2.2), the performance-heuristic of each test of one front `F_d`:
/// `Σ_k (I_k^max(F_d) − I_k(t)) / (I_k^max(F_d) − I_k^min(F_d))`, max and min taken over the
/// front; a proxy whose max equals its min adds [`EQUAL_RANGE_TERM`]. Higher is better: 7 for a
/// test with the smallest value of every proxy, 0 for one with the largest of every proxy.
/// Scores come back in the order of `front`.
pub fn performance_heuristic(front: &[Proxies]) -> Vec<f64> {
    let Some(first) = front.first() else {
        return Vec::new();
    };
    let mut min = first.values();
    let mut max = min;
    for p in &front[1..] {
        for (k, v) in p.values().into_iter().enumerate() {
            min[k] = min[k].min(v);
            max[k] = max[k].max(v);
        }
    }
    front
        .iter()
        .map(|p| {
            p.values()
                .into_iter()
                .enumerate()
                .map(|(k, v)| {
                    let range = max[k] - min[k];
                    if range == 0 {
                        EQUAL_RANGE_TERM
                    } else {
                        (max[k] - v) as f64 / range as f64
                    }
                })
                .sum()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxies(v: [u64; 7]) -> Proxies {
        Proxies {
            loop_cycles: v[0],
            covered_calls: v[1],
            test_calls: v[2],
            allocations: v[3],
            covered_statements: v[4],
            test_statements: v[5],
            test_length: v[6],
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn eq1_by_hand() {
        assert_eq!(archive_score(&proxies([0; 7])), 0.0);
        assert!(close(archive_score(&proxies([1; 7])), 3.5));
        // 1/2 + 3/4 + 0 + 4/5 + 9/10 + 1/2 + 2/3
        let s = archive_score(&proxies([1, 3, 0, 4, 9, 1, 2]));
        assert!(
            close(s, 0.5 + 0.75 + 0.0 + 0.8 + 0.9 + 0.5 + 2.0 / 3.0),
            "{s}"
        );
        assert!(close(s, 4.116_666_666_666_667), "{s}");
    }

    #[test]
    fn eq1_saturates_at_seven() {
        // Past 2^53, x / (x + 1) rounds to 1 in f64: the bound is reached, not passed.
        let s = archive_score(&proxies([u64::MAX / 2; 7]));
        assert!(s <= 7.0 && s > 6.99, "{s}");
        let s = archive_score(&proxies([1_000_000; 7]));
        assert!(s < 7.0, "{s}");
    }

    #[test]
    fn archive_replaces_only_on_a_strictly_lower_score() {
        let cheap = proxies([0, 3, 1, 0, 10, 1, 2]);
        let dear = proxies([5, 3, 1, 0, 10, 1, 2]);
        assert!(archive_replaces(&cheap, &dear));
        assert!(!archive_replaces(&dear, &cheap));
        assert!(!archive_replaces(&cheap, &cheap));
        // Same score from different proxies: a tie, the stored test stays.
        let a = proxies([1, 0, 0, 0, 0, 0, 0]);
        let b = proxies([0, 0, 0, 0, 0, 0, 1]);
        assert!(!archive_replaces(&a, &b) && !archive_replaces(&b, &a));
    }

    #[test]
    fn eq2_by_hand() {
        // I3, I6, I7 are equal over the front: 3 × 0.5 = 1.5 for every test.
        let a = proxies([0, 10, 1, 2, 100, 3, 4]);
        let b = proxies([5, 20, 1, 0, 25, 3, 4]);
        let c = proxies([10, 30, 1, 4, 0, 3, 4]);
        // I1 max 10 min 0:   a 10/10 = 1,   b 5/10 = 0.5,   c 0
        // I2 max 30 min 10:  a 20/20 = 1,   b 10/20 = 0.5,  c 0
        // I4 max 4 min 0:    a 2/4 = 0.5,   b 4/4 = 1,      c 0
        // I5 max 100 min 0:  a 0,           b 75/100 = 0.75, c 100/100 = 1
        let h = performance_heuristic(&[a, b, c]);
        let expected = [1.5 + 2.5, 1.5 + 2.75, 1.5 + 1.0];
        assert_eq!(h.len(), 3);
        for (got, want) in h.iter().zip(expected) {
            assert!(close(*got, want), "{h:?}");
        }
    }

    #[test]
    fn eq2_extremes_are_seven_and_zero() {
        let best = proxies([0, 1, 2, 3, 4, 5, 6]);
        let worst = proxies([1, 2, 3, 4, 5, 6, 7]);
        let mid = proxies([1, 1, 3, 3, 5, 5, 7]);
        let h = performance_heuristic(&[worst, mid, best]);
        assert!(
            close(h[0], 0.0) && close(h[1], 3.0) && close(h[2], 7.0),
            "{h:?}"
        );
    }

    #[test]
    fn eq2_equal_max_and_min() {
        assert!(performance_heuristic(&[]).is_empty());
        // One test: every proxy has max = min.
        assert_eq!(performance_heuristic(&[proxies([9; 7])]), vec![3.5]);
        // Identical tests all score 3.5.
        let p = proxies([1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(performance_heuristic(&[p, p, p]), vec![3.5; 3]);
        // Only I1 differs: 6 × 0.5 plus 1 or 0.
        let q = Proxies {
            loop_cycles: 8,
            ..p
        };
        assert_eq!(performance_heuristic(&[p, q]), vec![4.0, 3.0]);
    }

    #[test]
    fn eq2_handles_the_full_u64_range() {
        let lo = proxies([0; 7]);
        let hi = proxies([u64::MAX; 7]);
        assert_eq!(performance_heuristic(&[lo, hi]), vec![7.0, 0.0]);
    }
}
