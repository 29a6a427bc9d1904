//! The value parsers: the syntax of each kind of setting (budgets, durations, sizes, uid
//! ranges, addresses, names from a fixed list), checked once at the boundary. Each returns a
//! message that names the value, never a position: the resolver adds where it came from.

use std::net::SocketAddr;
use std::time::Duration;

use crate::{CronExpr, LogFormat, RegressionPolicy};

/// A search budget: wall time or executions (the syntax of `frugal run --budget`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// Wall time of the search; [`Budget::parse`] gives at most [`MAX_BUDGET_TIME`], never zero.
    Time(Duration),
    /// Test executions; [`Budget::parse`] gives at most [`MAX_BUDGET_EXECUTIONS`], never zero.
    Executions(u64),
}

/// Longest time budget (the search's `MAX_TIME`; this crate knows no engine crate).
pub const MAX_BUDGET_TIME: Duration = Duration::from_secs(24 * 3600);

/// Largest execution budget (the search's `MAX_EXECUTIONS`).
pub const MAX_BUDGET_EXECUTIONS: u64 = 1_000_000_000_000;

impl Budget {
    /// `30s`, `5m`, `1h`, `250ms`, or a plain number of executions; at most
    /// [`MAX_BUDGET_TIME`] or [`MAX_BUDGET_EXECUTIONS`].
    pub fn parse(s: &str) -> Result<Budget, String> {
        let s = s.trim();
        let (n, unit) = number_and_unit(s);
        let n: u64 =
            n.map_err(|_| format!("`{s}` must start with a number, e.g. 30s, 5m or 20000"))?;
        if n == 0 {
            return Err(format!("`{s}` is zero"));
        }
        let too_long = || format!("`{s}` is too long: a budget is at most 24 h (86400s)");
        match unit.trim() {
            "" if n > MAX_BUDGET_EXECUTIONS => Err(format!(
                "`{s}` is too large: a budget is at most {MAX_BUDGET_EXECUTIONS} executions"
            )),
            "" => Ok(Budget::Executions(n)),
            other => match duration_of(n, other) {
                None => Err(format!(
                    "unknown unit `{other}` in `{s}`: use ms, s, m, h or none"
                )),
                Some(Some(d)) if d <= MAX_BUDGET_TIME => Ok(Budget::Time(d)),
                Some(_) => Err(too_long()),
            },
        }
    }

    /// The form [`Budget::parse`] reads (what the search's and CLI's budget parsers read too).
    pub fn to_arg(&self) -> String {
        match self {
            Budget::Time(d) if d.subsec_millis() != 0 => format!("{}ms", d.as_millis()),
            Budget::Time(d) => format!("{}s", d.as_secs()),
            Budget::Executions(n) => n.to_string(),
        }
    }
}

/// `s` split into its leading whole number (parsed) and the rest: `5m` -> (5, "m").
pub(crate) fn number_and_unit(s: &str) -> (Result<u64, std::num::ParseIntError>, &str) {
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(digits);
    (num.parse(), unit)
}

/// `n` of `unit`: `None` for an unknown unit, `Some(None)` when it overflows.
pub(crate) fn duration_of(n: u64, unit: &str) -> Option<Option<Duration>> {
    let ms_per_unit: u64 = match unit {
        "ms" => 1,
        "s" => 1000,
        "m" | "min" => 60_000,
        "h" => 3_600_000,
        _ => return None,
    };
    Some(n.checked_mul(ms_per_unit).map(Duration::from_millis))
}

/// `90s`, `5m`, `1h`, `500ms`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (n, unit) = number_and_unit(s);
    let n: u64 = n.map_err(|_| format!("`{s}` is not a duration such as 30s, 5m or 1h"))?;
    match duration_of(n, unit.trim()) {
        None => Err(format!("`{s}` needs a unit: ms, s, m or h (e.g. 60s)")),
        Some(None) => Err(format!("`{s}` is too long")),
        Some(Some(d)) => Ok(d),
    }
}

/// Algorithms the configuration accepts, one name per search algorithm of the design (the
/// `--algorithm` flag in docs/run.md lists them); the daemon rejects those its search does not
/// implement yet.
pub const ALGORITHMS: &[&str] = &[
    "random",
    "wholesuite",
    "memetic",
    "mosa",
    "dynamosa",
    "adynamosa",
    "mio",
];

pub(crate) fn cron(s: &str) -> Result<Option<CronExpr>, String> {
    match s.trim() {
        "" | "off" | "none" => Ok(None),
        s => CronExpr::parse(s).map(Some),
    }
}

/// A duration of at least a millisecond.
pub(crate) fn positive_duration(v: &str) -> Result<Duration, String> {
    match parse_duration(v)? {
        Duration::ZERO => Err(format!(
            "`{}` is zero: a timeout must be positive",
            v.trim()
        )),
        d => Ok(d),
    }
}

/// Comma-separated host names (from a TOML array joined, or an environment variable): lower
/// case, without a port; `*` allows any.
pub(crate) fn host_list(v: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for h in v.split(',').map(str::trim).filter(|h| !h.is_empty()) {
        let bare = h.trim_start_matches('[').trim_end_matches(']');
        // A colon is only allowed inside an IPv6 address: anything else carries a port.
        let with_port = bare.contains(':') && bare.parse::<std::net::Ipv6Addr>().is_err();
        if with_port || bare.contains(['/', ' ', '@']) {
            return Err(format!(
                "`{h}` is not a host name: give names or addresses without a scheme or port \
                 (e.g. \"ci.example.com\"), or \"*\" for any"
            ));
        }
        out.push(bare.to_ascii_lowercase());
    }
    Ok(out)
}

/// Git hosts (`jobs.git_hosts`): as [`host_list`], but without `*`: a wildcard would let a
/// committed URL name any host, internal ones included, for the daemon's unconfined fetch.
pub(crate) fn git_host_list(v: &str) -> Result<Vec<String>, String> {
    let hosts = host_list(v)?;
    if hosts.iter().any(|h| h == "*") {
        return Err(
            "`*` is not allowed here: name each host git dependencies may be fetched from \
             (e.g. \"github.com\")"
                .into(),
        );
    }
    Ok(hosts)
}

/// A size in bytes: a number with an optional `K`, `M`, `G` or `T` suffix (powers of 1024,
/// an optional `iB`/`B` after it), e.g. `500M`, `20G`, `1048576`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (n, unit) = number_and_unit(t);
    let n: u64 = n.map_err(|_| format!("`{t}` is not a size such as 500M, 20G or 1048576"))?;
    let unit = unit.trim();
    let unit = unit
        .strip_suffix("iB")
        .or_else(|| unit.strip_suffix('B'))
        .unwrap_or(unit);
    let shift = match unit {
        "" => 0,
        "K" | "k" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        other => {
            return Err(format!(
                "unknown unit `{other}` in `{t}`: use K, M, G, T or none"
            ));
        }
    };
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("`{t}` is too large"))
}

/// `"FIRST-LAST"`: uids above 0 (root is never a job's), first at most last, last below the
/// kernel's `(uid_t) -1`.
pub(crate) fn uid_range(s: &str) -> Result<(u32, u32), String> {
    let form = || format!("`{s}` is not a uid range: use \"FIRST-LAST\", as \"200000-200999\"");
    let (first, last) = s.trim().split_once('-').ok_or_else(form)?;
    let (first, last) = match (first.trim().parse::<u32>(), last.trim().parse::<u32>()) {
        (Ok(f), Ok(l)) => (f, l),
        _ => return Err(form()),
    };
    if first == 0 || first > last || last == u32::MAX {
        return Err(format!(
            "`{s}`: the uids must lie between 1 and {}, the first not above the last",
            u32::MAX - 1
        ));
    }
    Ok((first, last))
}

pub(crate) fn regression_policy(s: &str) -> Result<RegressionPolicy, String> {
    match s.trim() {
        "record" => Ok(RegressionPolicy::Record),
        "hold" => Ok(RegressionPolicy::Hold),
        other => Err(format!(
            "`{other}` is not a policy: use \"record\" or \"hold\""
        )),
    }
}

pub(crate) fn boolean(s: &str) -> Result<bool, String> {
    match s.trim() {
        "true" => Ok(true),
        "false" => Ok(false),
        other => Err(format!("`{other}` is neither true nor false")),
    }
}

pub(crate) fn socket_addr(v: &str) -> Result<SocketAddr, String> {
    v.trim().parse::<SocketAddr>().map_err(|e| {
        format!("`{v}` is not a socket address ({e}); use host:port such as 127.0.0.1:7878")
    })
}

pub(crate) fn non_empty(v: &str) -> Result<String, String> {
    if v.trim().is_empty() {
        Err("must not be empty".to_string())
    } else {
        Ok(v.trim().to_string())
    }
}

pub(crate) fn log_format(v: &str) -> Result<LogFormat, String> {
    match v.trim() {
        "text" => Ok(LogFormat::Text),
        "json" => Ok(LogFormat::Json),
        other => Err(format!("`{other}` is not a log format: use text or json")),
    }
}

pub(crate) fn algorithm(v: &str) -> Result<String, String> {
    let v = v.trim();
    if ALGORITHMS.contains(&v) {
        Ok(v.to_string())
    } else {
        Err(format!(
            "`{v}` is not an algorithm: use one of {}",
            ALGORITHMS.join(", ")
        ))
    }
}

pub(crate) fn mutants_mode(v: &str) -> Result<String, String> {
    match v.trim() {
        v @ ("off" | "weak" | "strong") => Ok(v.to_string()),
        v => Err(format!(
            "`{v}` is not a mutants mode: use off, weak or strong"
        )),
    }
}

pub(crate) fn goal_selection(v: &str) -> Result<String, String> {
    match v.trim() {
        v @ ("all" | "smart") => Ok(v.to_string()),
        v => Err(format!("`{v}` is not a goal selection: use all or smart")),
    }
}

/// `off` (or `0`) turns polling (or a periodic task) off; otherwise a duration of at least a
/// second.
pub(crate) fn poll_interval(v: &str) -> Result<Option<Duration>, String> {
    match v.trim() {
        "off" | "0" => Ok(None),
        v => parse_duration(v).and_then(|d| {
            if d < Duration::from_secs(1) {
                Err(format!(
                    "`{v}` is below the 1s minimum (use `off` to disable polling)"
                ))
            } else {
                Ok(Some(d))
            }
        }),
    }
}
