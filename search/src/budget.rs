//! Search budgets: wall time or a number of executions.

use std::time::{Duration, Instant};

/// What bounds a search. An execution budget makes a run reproducible from its seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    Time(Duration),
    Executions(u64),
}

impl std::str::FromStr for Budget {
    type Err = String;

    /// `30s`, `5m`, `1h`, `250ms` or a plain number of executions.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let (num, unit) = s.split_at(digits);
        let n: u64 = num
            .parse()
            .map_err(|_| format!("budget `{s}` must start with a number, e.g. 30s, 5m or 20000"))?;
        let time = |d: Duration| {
            if n == 0 {
                Err(format!("budget `{s}` is zero"))
            } else {
                Ok(Budget::Time(d))
            }
        };
        match unit {
            "" if n > 0 => Ok(Budget::Executions(n)),
            "" => Err("a budget of 0 executions does nothing".to_string()),
            "ms" => time(Duration::from_millis(n)),
            "s" => time(Duration::from_secs(n)),
            "m" | "min" => time(Duration::from_secs(n * 60)),
            "h" => time(Duration::from_secs(n * 3600)),
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
    pub budget: Budget,
    pub started: Instant,
    pub executions: u64,
}

impl BudgetClock {
    pub fn start(budget: Budget) -> Self {
        BudgetClock {
            budget,
            started: Instant::now(),
            executions: 0,
        }
    }

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
}
