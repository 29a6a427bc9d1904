//! Search budgets: wall time or a number of executions.

use std::time::{Duration, Instant};

/// What bounds a search. An execution budget makes a run reproducible from its seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// Wall-clock time from the start of the search.
    Time(Duration),
    /// A number of test executions (seeds included).
    Executions(u64),
}

/// Longest time budget: a day (a longer search belongs to several runs).
pub const MAX_TIME: Duration = Duration::from_secs(24 * 3600);
/// Largest execution budget (well beyond what a day affords, far below any overflow).
pub const MAX_EXECUTIONS: u64 = 1_000_000_000_000;

impl std::str::FromStr for Budget {
    type Err = String;

    /// `30s`, `5m`, `1h`, `250ms` or a plain number of executions, at most [`MAX_TIME`] or
    /// [`MAX_EXECUTIONS`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let (num, unit) = s.split_at(digits);
        let n: u64 = num
            .parse()
            .map_err(|_| format!("budget `{s}` must start with a number, e.g. 30s, 5m or 20000"))?;
        let too_long = || format!("budget `{s}` is too long: at most 24 h (86400s)");
        let time = |ms_per_unit: u64| {
            if n == 0 {
                return Err(format!("budget `{s}` is zero"));
            }
            match n.checked_mul(ms_per_unit).map(Duration::from_millis) {
                Some(d) if d <= MAX_TIME => Ok(Budget::Time(d)),
                _ => Err(too_long()),
            }
        };
        match unit {
            "" if n > MAX_EXECUTIONS => Err(format!(
                "budget `{s}` is too large: at most {MAX_EXECUTIONS} executions"
            )),
            "" if n > 0 => Ok(Budget::Executions(n)),
            "" => Err("a budget of 0 executions does nothing".to_string()),
            "ms" => time(1),
            "s" => time(1000),
            "m" | "min" => time(60_000),
            "h" => time(3_600_000),
            other => Err(format!(
                "unknown budget unit `{other}` in `{s}`: use ms, s, m, h or none for executions"
            )),
        }
    }
}

impl std::fmt::Display for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Budget::Time(d) => write!(f, "{:.0?}", d),
            Budget::Executions(n) => write!(f, "{n} executions"),
        }
    }
}

/// Tracks consumption of a budget.
#[derive(Debug, Clone)]
pub struct BudgetClock {
    /// The budget being consumed.
    pub budget: Budget,
    /// When the search started; time budgets are measured from here.
    pub started: Instant,
    /// Executions so far, which the search's context counts up.
    pub executions: u64,
}

impl BudgetClock {
    /// Starts the clock now, with no executions counted.
    pub fn start(budget: Budget) -> Self {
        BudgetClock {
            budget,
            started: Instant::now(),
            executions: 0,
        }
    }

    /// Whether the budget is used up: the time elapsed or the executions reached.
    pub fn spent(&self) -> bool {
        match self.budget {
            Budget::Time(d) => self.started.elapsed() >= d,
            Budget::Executions(n) => self.executions >= n,
        }
    }

    /// Executions still allowed (unbounded for time budgets).
    pub fn remaining_executions(&self) -> u64 {
        match self.budget {
            Budget::Time(_) => u64::MAX,
            Budget::Executions(n) => n.saturating_sub(self.executions),
        }
    }

    /// Share of the budget used, in `[0, 1]`.
    pub fn progress(&self) -> f64 {
        let p = match self.budget {
            Budget::Time(d) => self.started.elapsed().as_secs_f64() / d.as_secs_f64(),
            Budget::Executions(n) => self.executions as f64 / n as f64,
        };
        p.min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_parse_times_and_counts() {
        assert_eq!("30s".parse(), Ok(Budget::Time(Duration::from_secs(30))));
        assert_eq!("5m".parse(), Ok(Budget::Time(Duration::from_secs(300))));
        assert_eq!(
            "250ms".parse(),
            Ok(Budget::Time(Duration::from_millis(250)))
        );
        assert_eq!("20000".parse(), Ok(Budget::Executions(20000)));
        assert!("".parse::<Budget>().is_err());
        assert!("5x".parse::<Budget>().is_err());
        assert!("0".parse::<Budget>().is_err());
        assert!("m5".parse::<Budget>().is_err());
    }

    #[test]
    fn huge_budgets_are_refused_not_overflowed() {
        for (text, says) in [
            ("18446744073709551615h", "at most 24 h"),
            ("5124095576030432h", "at most 24 h"),
            ("18446744073709551615m", "at most 24 h"),
            ("25h", "at most 24 h"),
            ("1441m", "at most 24 h"),
            ("86400001ms", "at most 24 h"),
            ("1000000000001", "at most 1000000000000 executions"),
            ("18446744073709551615", "at most 1000000000000 executions"),
            ("99999999999999999999999s", "must start with a number"),
            ("1e30s", "unknown budget unit"),
        ] {
            let e = text.parse::<Budget>().expect_err(text);
            assert!(e.contains(says), "{text}: {e}");
        }
        let day = Duration::from_secs(24 * 3600);
        assert_eq!("24h".parse(), Ok(Budget::Time(day)));
        assert_eq!("86400s".parse(), Ok(Budget::Time(day)));
        assert_eq!(
            "1000000000000".parse(),
            Ok(Budget::Executions(1_000_000_000_000))
        );
    }
}
