//! A bounded open-loop load generator for frugald's read endpoints.
//!
//! Requests go out on a fixed schedule (request `i` at `start + i / rate`), spread over a pool
//! of threads with keep-alive connections. Latency is measured from the *scheduled* send time,
//! not the actual one, so a stalled server shows up as latency instead of silently lowering the
//! request rate (coordinated omission). The run is bounded by its request count and by a hard
//! deadline of the duration plus 10 s, so it always stops by itself. Loopback targets only.

use std::time::{Duration, Instant};

use anyhow::bail;

/// What to run.
#[derive(Clone, Debug)]
pub struct LoadSpec {
    /// `http://127.0.0.1:port`; anything not on loopback is refused.
    pub base: String,
    /// Paths requested in turn.
    pub paths: Vec<String>,
    /// Requests per second.
    pub rate: u32,
    /// How long to send for; `rate × duration` requests are sent in all.
    pub duration: Duration,
    /// Sending threads, each with its own keep-alive connection and every `threads`-th
    /// request: a slow answer holds back only its own thread's next requests.
    pub threads: usize,
}

/// What a run measured.
#[derive(Clone, Debug)]
pub struct LoadReport {
    /// Requests scheduled (`rate × duration`); each is counted in `ok` or `errors`.
    pub sent: usize,
    /// Requests answered 200 with a body read in full.
    pub ok: usize,
    /// Requests that failed, answered another status, or were skipped at the hard deadline.
    pub errors: usize,
    /// Wall-clock time from the first scheduled send to the end of the last request.
    pub elapsed: Duration,
    /// `ok` requests per second of `elapsed`.
    pub achieved_rps: f64,
    /// Median latency of the ok requests, from their scheduled send time (zero if none).
    pub p50: Duration,
    /// 99th percentile latency of the ok requests, measured like `p50`.
    pub p99: Duration,
    /// Highest latency of the ok requests.
    pub max: Duration,
    /// Per path: (path, p50, p99, max), in the order of [`LoadSpec::paths`].
    pub by_path: Vec<(String, Duration, Duration, Duration)>,
}

impl std::fmt::Display for LoadReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} requests in {:.2}s = {:.0} req/s, {} errors, latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            self.sent,
            self.elapsed.as_secs_f64(),
            self.achieved_rps,
            self.errors,
            ms(self.p50),
            ms(self.p99),
            ms(self.max)
        )?;
        for (path, p50, p99, max) in &self.by_path {
            write!(
                f,
                "\n  {path}: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
                ms(*p50),
                ms(*p99),
                ms(*max)
            )?;
        }
        Ok(())
    }
}

/// The `p` quantile of sorted latencies (zero when there are none).
fn quantile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn is_loopback(base: &str) -> bool {
    let rest = base.trim_start_matches("http://");
    rest.starts_with("127.") || rest.starts_with("localhost:") || rest.starts_with("[::1]:")
}

/// Runs the load; every request must answer 200 to count as ok.
pub fn run(spec: &LoadSpec) -> anyhow::Result<LoadReport> {
    if !is_loopback(&spec.base) {
        bail!("load tests only target loopback, not {}", spec.base);
    }
    if spec.paths.is_empty() || spec.rate == 0 || spec.threads == 0 {
        bail!("nothing to send");
    }
    let total = (spec.rate as f64 * spec.duration.as_secs_f64()).round() as usize;
    let interval = Duration::from_secs_f64(1.0 / spec.rate as f64);
    let start = Instant::now() + Duration::from_millis(50);
    let deadline = start + spec.duration + Duration::from_secs(10);
    let results: Vec<(Vec<(usize, Duration)>, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..spec.threads)
            .map(|k| {
                s.spawn(move || {
                    let agent: ureq::Agent = ureq::Agent::config_builder()
                        .http_status_as_error(false)
                        .timeout_global(Some(Duration::from_secs(5)))
                        .build()
                        .into();
                    let mut lat = Vec::new();
                    let mut errors = 0;
                    for i in (k..total).step_by(spec.threads) {
                        let at = start + interval * i as u32;
                        let now = Instant::now();
                        if now >= deadline {
                            errors += 1;
                            continue;
                        }
                        if at > now {
                            std::thread::sleep(at - now);
                        }
                        let which = i % spec.paths.len();
                        let path = &spec.paths[which];
                        let ok = agent
                            .get(format!("{}{path}", spec.base))
                            .call()
                            .ok()
                            .and_then(|mut r| {
                                let st = r.status().as_u16();
                                r.body_mut().read_to_vec().ok().map(|_| st)
                            })
                            == Some(200);
                        if ok {
                            lat.push((which, Instant::now().saturating_duration_since(at)));
                        } else {
                            errors += 1;
                        }
                    }
                    (lat, errors)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let elapsed = start.elapsed();
    let errors = results.iter().map(|r| r.1).sum();
    let tagged: Vec<(usize, Duration)> = results.into_iter().flat_map(|r| r.0).collect();
    let by_path = spec
        .paths
        .iter()
        .enumerate()
        .map(|(k, path)| {
            let mut l: Vec<Duration> = tagged.iter().filter(|t| t.0 == k).map(|t| t.1).collect();
            l.sort();
            let max = l.last().copied().unwrap_or_default();
            (path.clone(), quantile(&l, 0.50), quantile(&l, 0.99), max)
        })
        .collect();
    let mut lat: Vec<Duration> = tagged.into_iter().map(|t| t.1).collect();
    lat.sort();
    let pct = |p: f64| quantile(&lat, p);
    Ok(LoadReport {
        sent: total,
        ok: lat.len(),
        errors,
        elapsed,
        achieved_rps: lat.len() as f64 / elapsed.as_secs_f64().max(1e-9),
        p50: pct(0.50),
        p99: pct(0.99),
        max: lat.last().copied().unwrap_or_default(),
        by_path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_is_a_target() {
        assert!(is_loopback("http://127.0.0.1:7878"));
        assert!(is_loopback("http://[::1]:1"));
        assert!(!is_loopback("http://10.0.0.1:7878"));
        let spec = LoadSpec {
            base: "http://192.168.1.1:80".into(),
            paths: vec!["/".into()],
            rate: 1,
            duration: Duration::from_millis(1),
            threads: 1,
        };
        assert!(run(&spec).is_err());
    }
}
