//! Cron schedules per repository.

use chrono::{DateTime, Utc};
use frugal_config::CronExpr;

use crate::SchedulerError;

/// A repository's schedule: crontab's 5 fields (a seconds field `0` is put in front, weekday
/// numbers keep crontab's meaning) or the `cron` crate's 6/7 fields. Times are UTC, in unix
/// milliseconds as everywhere in storage.
#[derive(Clone, Debug, PartialEq)]
pub struct CronSchedule(CronExpr);

fn to_dt(ms: u64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms as i64).unwrap_or(DateTime::<Utc>::MAX_UTC)
}

impl CronSchedule {
    /// Parses a crontab (5 fields) or `cron` crate (6/7 fields) expression;
    /// [`SchedulerError::Cron`] says why one is refused.
    pub fn parse(expr: &str) -> Result<CronSchedule, SchedulerError> {
        CronExpr::parse(expr)
            .map(CronSchedule)
            .map_err(SchedulerError::Cron)
    }

    /// The expression as written.
    pub fn source(&self) -> &str {
        self.0.source()
    }

    /// The first fire time strictly after `after` (unix ms), if the schedule fires again.
    pub fn next_due(&self, after: u64) -> Option<u64> {
        self.0
            .schedule()
            .after(&to_dt(after))
            .next()
            .map(|t| t.timestamp_millis().max(0) as u64)
    }

    /// Whether the schedule fired in `(last, now]`: call with the time of the previous check.
    pub fn due_between(&self, last: u64, now: u64) -> bool {
        self.next_due(last).is_some_and(|t| t <= now)
    }
}

impl From<CronExpr> for CronSchedule {
    fn from(e: CronExpr) -> Self {
        CronSchedule(e)
    }
}

/// Whether a repository's stored schedule is `off` (or `none`): no scheduled regeneration, not
/// even the default one (`config::RepoSchedule::Off`).
pub fn schedule_is_off(schedule: &str) -> bool {
    matches!(schedule.trim(), "off" | "none")
}
