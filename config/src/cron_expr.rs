//! Cron expressions: crontab's 5 fields, or the `cron` crate's 6 (with seconds) and 7 (with
//! years) fields, or its `@daily`-style shorthands.

use std::fmt;
use std::str::FromStr;

/// A validated cron expression.
///
/// A 5-field crontab line gets a seconds field `0` in front, and its numeric days of the week are
/// rewritten to names, because crontab counts `0`/`7` = Sunday, `1` = Monday while the `cron`
/// crate counts `1` = Sunday: `0 3 * * 1` keeps meaning Mondays at 03:00. (Unlike crontab, a line
/// restricting both day of month and day of week needs both to match.)
#[derive(Clone)]
pub struct CronExpr {
    source: String,
    normalized: String,
    schedule: cron::Schedule,
}

const DAYS: [&str; 8] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"];

fn crontab_day_of_week(field: &str) -> Result<String, String> {
    let mut out = Vec::new();
    for part in field.split(',') {
        if part.contains('*') || part.contains('?') || part.chars().any(|c| c.is_alphabetic()) {
            out.push(part.to_string());
            continue;
        }
        let (range, step) = match part.split_once('/') {
            Some((r, s)) => (r, Some(s)),
            None => (part, None),
        };
        let num = |s: &str| -> Result<usize, String> {
            s.parse::<usize>()
                .ok()
                .filter(|n| *n <= 7)
                .ok_or_else(|| format!("day of week `{s}` is not 0-7 or a name"))
        };
        let (lo, hi) = match range.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None if step.is_some() => (num(range)?, 7),
            None => (num(range)?, num(range)?),
        };
        if lo > hi {
            return Err(format!("day-of-week range `{range}` runs backwards"));
        }
        let step = match step {
            Some(s) => s
                .parse::<usize>()
                .ok()
                .filter(|s| *s > 0)
                .ok_or_else(|| format!("step `{s}` is not a positive number"))?,
            None => 1,
        };
        for d in (lo..=hi).step_by(step) {
            if !out.iter().any(|o| o == DAYS[d]) {
                out.push(DAYS[d].to_string());
            }
        }
    }
    Ok(out.join(","))
}

impl CronExpr {
    /// Parses 5, 6 or 7 fields, or an `@`-shorthand (`@daily`, `@hourly`, `@weekly`, ...).
    pub fn parse(expr: &str) -> Result<CronExpr, String> {
        let source = expr.trim().to_string();
        let fields: Vec<&str> = source.split_whitespace().collect();
        let normalized = if source.starts_with('@') {
            source.clone()
        } else {
            match fields.len() {
                5 => format!(
                    "0 {} {} {} {} {}",
                    fields[0],
                    fields[1],
                    fields[2],
                    fields[3],
                    crontab_day_of_week(fields[4])?
                ),
                6 | 7 => fields.join(" "),
                n => {
                    return Err(format!(
                        "`{source}` has {n} field(s): use 5 (crontab: min hour day month weekday), \
                         6 (sec first) or 7 (sec first, year last)"
                    ));
                }
            }
        };
        let schedule = cron::Schedule::from_str(&normalized)
            .map_err(|e| format!("`{source}` is not a valid cron expression: {e}"))?;
        Ok(CronExpr {
            source,
            normalized,
            schedule,
        })
    }

    /// The expression as written.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The expression the `cron` crate parsed (6 or 7 fields).
    pub fn normalized(&self) -> &str {
        &self.normalized
    }

    /// The parsed schedule.
    pub fn schedule(&self) -> &cron::Schedule {
        &self.schedule
    }
}

impl fmt::Debug for CronExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CronExpr({:?})", self.source)
    }
}

impl fmt::Display for CronExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl PartialEq for CronExpr {
    fn eq(&self, other: &Self) -> bool {
        self.normalized == other.normalized
    }
}

impl FromStr for CronExpr {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CronExpr::parse(s)
    }
}
