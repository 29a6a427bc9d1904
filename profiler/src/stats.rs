//! Median and spread of a handful of repetitions.

use crate::report::Stats;

/// Median, min, max and median absolute deviation; `None` for no values.
pub(crate) fn summarize(values: &[f64]) -> Option<Stats> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = median_of_sorted(&sorted);
    let mut deviations: Vec<f64> = sorted.iter().map(|v| (v - median).abs()).collect();
    deviations.sort_by(f64::total_cmp);
    Some(Stats {
        n: u32::try_from(sorted.len()).unwrap_or(u32::MAX),
        median,
        min: sorted[0],
        max: sorted[sorted.len() - 1],
        mad: median_of_sorted(&deviations),
    })
}

fn median_of_sorted(sorted: &[f64]) -> f64 {
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_and_even_counts() {
        let s = summarize(&[5.0, 1.0, 3.0]).unwrap();
        assert_eq!(
            (s.n, s.median, s.min, s.max, s.mad),
            (3, 3.0, 1.0, 5.0, 2.0)
        );
        let s = summarize(&[4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!(s.median, 2.5);
        assert_eq!(s.mad, 1.0);
    }

    #[test]
    fn empty_is_none() {
        assert!(summarize(&[]).is_none());
    }

    #[test]
    fn outlier_does_not_move_median_or_mad_much() {
        let s = summarize(&[10.0, 11.0, 10.0, 12.0, 1000.0]).unwrap();
        assert_eq!(s.median, 11.0);
        assert_eq!(s.mad, 1.0);
        assert_eq!(s.max, 1000.0);
    }
}
