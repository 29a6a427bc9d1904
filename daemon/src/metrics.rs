//! Prometheus metrics of `frugald`: HTTP requests by route and status, request latency
//! histograms, finished jobs by outcome, and gauges read from the store at scrape time.
//!
//! Decision: a few counters behind one mutex and the text exposition format written by hand,
//! rather than a metrics framework: the set is small and fixed, a scrape is rare, and the lock
//! is held for a map update (well under a microsecond next to a request).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Upper bounds of the latency histogram buckets, in seconds.
const BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

#[derive(Default)]
struct Histogram {
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

impl Histogram {
    fn observe(&mut self, secs: f64) {
        if self.counts.is_empty() {
            self.counts = vec![0; BUCKETS.len()];
        }
        for (i, b) in BUCKETS.iter().enumerate() {
            if secs <= *b {
                self.counts[i] += 1;
            }
        }
        self.sum += secs;
        self.count += 1;
    }
}

#[derive(Default)]
struct Inner {
    /// (route, method, status) -> count
    requests: BTreeMap<(String, String, u16), u64>,
    latency: BTreeMap<String, Histogram>,
    /// outcome -> count
    jobs: BTreeMap<String, u64>,
    suites_stored: u64,
    best_replaced: u64,
    /// Garbage collection passes (not dry runs), bytes they freed, records by kind.
    gc_passes: u64,
    gc_freed_bytes: u64,
    gc_records: BTreeMap<String, u64>,
    /// Bytes of the budgeted work dirs after the last pass.
    gc_kept_bytes: u64,
}

/// Gauges the caller reads from the store when scraped.
#[derive(Clone, Debug, Default)]
pub struct Gauges {
    /// Registered repositories.
    pub repos: usize,
    /// Jobs waiting to be claimed.
    pub jobs_queued: usize,
    /// Jobs claimed by the runner and not finished.
    pub jobs_running: usize,
    /// Runs with live progress ([`crate::live::Live`]).
    pub runs_live: usize,
    /// Replacement computations queued or running.
    pub replacements: usize,
}

/// The daemon's metrics.
pub struct Metrics {
    started: Instant,
    inner: Mutex<Inner>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            started: Instant::now(),
            inner: Mutex::new(Inner::default()),
        }
    }
}

impl Metrics {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts one answered request. The method becomes a label through [`method_label`], so a
    /// client cannot grow the map with methods of its own.
    pub fn request(&self, route: &str, method: &str, status: u16, took: Duration) {
        let mut m = self.lock();
        *m.requests
            .entry((route.to_string(), method_label(method).to_string(), status))
            .or_default() += 1;
        m.latency
            .entry(route.to_string())
            .or_default()
            .observe(took.as_secs_f64());
    }

    /// Counts a finished job (`succeeded`, `failed`, `interrupted`).
    pub fn job_finished(&self, outcome: &str) {
        *self.lock().jobs.entry(outcome.to_string()).or_default() += 1;
    }

    /// Counts a stored suite.
    pub fn suite_stored(&self, replaced_best: bool) {
        let mut m = self.lock();
        m.suites_stored += 1;
        if replaced_best {
            m.best_replaced += 1;
        }
    }

    /// Counts a garbage collection pass that deleted (not a dry run).
    pub fn gc_pass(&self, r: &frugal_api::v1::GcReport) {
        let mut m = self.lock();
        m.gc_passes += 1;
        m.gc_freed_bytes += r.bytes_freed;
        m.gc_kept_bytes = r.bytes_kept;
        for (kind, n) in &r.records {
            *m.gc_records.entry(kind.clone()).or_default() += n;
        }
    }

    /// Time since the metrics were made, that is since the daemon started.
    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    /// The Prometheus text exposition.
    pub fn render(&self, g: &Gauges) -> String {
        let m = self.lock();
        let mut out = String::new();
        let v = env!("CARGO_PKG_VERSION");
        gauge(
            &mut out,
            "frugal_build_info",
            "Version of frugald.",
            &[(&format!("{{version=\"{v}\"}}"), 1.0)],
        );
        gauge(
            &mut out,
            "frugal_uptime_seconds",
            "Seconds since frugald started.",
            &[("", self.uptime().as_secs_f64())],
        );
        gauge(
            &mut out,
            "frugal_repos",
            "Registered repositories.",
            &[("", g.repos as f64)],
        );
        gauge(
            &mut out,
            "frugal_jobs",
            "Jobs in the queue by state.",
            &[
                ("{state=\"queued\"}", g.jobs_queued as f64),
                ("{state=\"running\"}", g.jobs_running as f64),
            ],
        );
        gauge(
            &mut out,
            "frugal_runs_live",
            "Runs in flight in this process.",
            &[("", g.runs_live as f64)],
        );
        gauge(
            &mut out,
            "frugal_replacements_in_flight",
            "Replacement computations queued or running.",
            &[("", g.replacements as f64)],
        );
        let _ = writeln!(
            out,
            "# HELP frugal_http_requests_total HTTP requests answered."
        );
        let _ = writeln!(out, "# TYPE frugal_http_requests_total counter");
        for ((route, method, status), n) in &m.requests {
            let _ = writeln!(
                out,
                "frugal_http_requests_total{{route=\"{}\",method=\"{method}\",status=\"{status}\"}} {n}",
                escape(route)
            );
        }
        let _ = writeln!(
            out,
            "# HELP frugal_http_request_duration_seconds Time to answer a request."
        );
        let _ = writeln!(out, "# TYPE frugal_http_request_duration_seconds histogram");
        for (route, h) in &m.latency {
            let route = escape(route);
            for (b, c) in BUCKETS.iter().zip(&h.counts) {
                let _ = writeln!(
                    out,
                    "frugal_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"{b}\"}} {c}"
                );
            }
            let _ = writeln!(
                out,
                "frugal_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}",
                h.count
            );
            let _ = writeln!(
                out,
                "frugal_http_request_duration_seconds_sum{{route=\"{route}\"}} {}",
                h.sum
            );
            let _ = writeln!(
                out,
                "frugal_http_request_duration_seconds_count{{route=\"{route}\"}} {}",
                h.count
            );
        }
        let _ = writeln!(
            out,
            "# HELP frugal_jobs_finished_total Jobs finished by outcome."
        );
        let _ = writeln!(out, "# TYPE frugal_jobs_finished_total counter");
        for (outcome, n) in &m.jobs {
            let _ = writeln!(
                out,
                "frugal_jobs_finished_total{{outcome=\"{outcome}\"}} {n}"
            );
        }
        let _ = writeln!(out, "# HELP frugal_suites_stored_total Suites stored.");
        let _ = writeln!(out, "# TYPE frugal_suites_stored_total counter");
        let _ = writeln!(out, "frugal_suites_stored_total {}", m.suites_stored);
        let _ = writeln!(
            out,
            "# HELP frugal_best_replaced_total Stored suites that became the best one."
        );
        let _ = writeln!(out, "# TYPE frugal_best_replaced_total counter");
        let _ = writeln!(out, "frugal_best_replaced_total {}", m.best_replaced);
        render_gc(&mut out, &m);
        out
    }
}

/// The garbage collection's counters (`gc.rs`).
fn render_gc(out: &mut String, m: &Inner) {
    let counter = |out: &mut String, name: &str, help: &str, v: u64| {
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} counter");
        let _ = writeln!(out, "{name} {v}");
    };
    counter(
        out,
        "frugal_gc_runs_total",
        "Garbage collection passes.",
        m.gc_passes,
    );
    counter(
        out,
        "frugal_gc_freed_bytes_total",
        "Bytes of directories garbage collection deleted.",
        m.gc_freed_bytes,
    );
    let _ = writeln!(
        out,
        "# HELP frugal_gc_removed_records_total Store records garbage collection deleted, by kind."
    );
    let _ = writeln!(out, "# TYPE frugal_gc_removed_records_total counter");
    for (kind, n) in &m.gc_records {
        let _ = writeln!(
            out,
            "frugal_gc_removed_records_total{{kind=\"{kind}\"}} {n}"
        );
    }
    gauge(
        out,
        "frugal_gc_work_bytes",
        "Bytes of the work dirs after the last garbage collection pass.",
        &[("", m.gc_kept_bytes as f64)],
    );
}

/// The metrics label of an HTTP method: one of the nine standard methods (RFC 9110 and PATCH),
/// or `other` for any other token.
pub fn method_label(method: &str) -> &'static str {
    const STANDARD: &[&str] = &[
        "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
    ];
    STANDARD
        .iter()
        .find(|m| **m == method)
        .copied()
        .unwrap_or("other")
}

fn gauge(out: &mut String, name: &str, help: &str, values: &[(&str, f64)]) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} gauge");
    for (labels, v) in values {
        let _ = writeln!(out, "{name}{labels} {v}");
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_has_counters_and_cumulative_buckets() {
        let m = Metrics::default();
        m.request("/v1/repos", "GET", 200, Duration::from_micros(700));
        m.request("/v1/repos", "GET", 200, Duration::from_millis(30));
        let text = m.render(&Gauges::default());
        assert!(text.contains(
            "frugal_http_requests_total{route=\"/v1/repos\",method=\"GET\",status=\"200\"} 2"
        ));
        assert!(text.contains("route=\"/v1/repos\",le=\"0.001\"} 1"));
        assert!(text.contains("route=\"/v1/repos\",le=\"0.05\"} 2"));
        assert!(text.contains("frugal_http_request_duration_seconds_count{route=\"/v1/repos\"} 2"));
    }

    #[test]
    fn methods_outside_the_standard_ones_are_one_label() {
        assert_eq!(method_label("GET"), "GET");
        assert_eq!(method_label("PATCH"), "PATCH");
        assert_eq!(method_label("get"), "other");
        assert_eq!(method_label("CUSTOM1"), "other");
        let m = Metrics::default();
        for i in 0..1000 {
            m.request("/v1/repos", &format!("X{i}"), 401, Duration::ZERO);
        }
        m.request("/v1/repos", "GET", 200, Duration::ZERO);
        assert_eq!(m.lock().requests.len(), 2);
        let text = m.render(&Gauges::default());
        assert!(text.contains(
            "frugal_http_requests_total{route=\"/v1/repos\",method=\"other\",status=\"401\"} 1000"
        ));
    }
}
