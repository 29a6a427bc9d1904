//! The report as a terminal table.

use std::fmt::Write;

use crate::report::{Figure, Metric, Reading, Report, Source, TestReport};

/// Renders the report for people: header lines, one row per test, then what was not profiled
/// and the output of failures.
pub fn render_table(report: &Report) -> String {
    let mut out = String::new();
    header(report, &mut out);
    rows(report, &mut out);
    footer(report, &mut out);
    out
}

fn header(report: &Report, out: &mut String) {
    let _ = writeln!(
        out,
        "crate {} ({}), suite {:?}, {} repetition(s), timeout {} s, {} build",
        report.crate_name,
        report.crate_dir,
        report.suite,
        report.repeat,
        report.timeout_ms / 1000,
        report.build_profile
    );
    match &report.hardware_unavailable {
        None => {
            let _ = writeln!(out, "hardware counters: available");
        }
        Some(reason) => {
            let _ = writeln!(
                out,
                "hardware counters: UNAVAILABLE ({reason}); using software counters and wait4"
            );
        }
    }
    let _ = writeln!(
        out,
        "cost basis: {} from {}; columns marked (net) have the empty-test baseline subtracted",
        metric_name(report.cost_basis.metric),
        source_name(report.cost_basis.source)
    );
    for baseline in &report.baselines {
        let _ = writeln!(
            out,
            "baseline (empty test) {}: task-clock {}, wall {}, max RSS {}",
            baseline.binary.label(),
            raw(
                baseline.figure(Metric::TaskClockNs, Source::SoftwarePerf),
                ms
            ),
            raw(baseline.figure(Metric::WallNs, Source::WallClock), ms),
            raw(baseline.figure(Metric::MaxRssBytes, Source::Wait4), mib),
        );
    }
    if let Some(o) = &report.overhead {
        let _ = writeln!(
            out,
            "profiler overhead per test process: {} median ({} set-up before release) vs test \
             wall {} median",
            ms(o.per_process_ns.median),
            ms(o.setup_ns.median),
            ms(o.test_wall_ns_median)
        );
    }
    if let Some(v) = &report.valgrind {
        let _ = writeln!(out, "valgrind: {v}");
    }
    let _ = writeln!(out);
}

fn rows(report: &Report, out: &mut String) {
    let columns = [
        "test",
        "runs",
        "cost (net) [min..max raw]",
        "task-clock (net)",
        "wall (net)",
        "max RSS",
        "instr hw (net)",
        "instr cg (net)",
        "heap peak",
    ];
    let mut table: Vec<Vec<String>> = vec![columns.iter().map(|c| c.to_string()).collect()];
    for test in &report.tests {
        let basis = test.figure(report.cost_basis.metric, report.cost_basis.source);
        let unit = unit_of(report.cost_basis.metric);
        table.push(vec![
            format!("{} {}", test.binary.label(), test.name),
            runs(test),
            cost(basis, unit),
            net(test.figure(Metric::TaskClockNs, Source::SoftwarePerf), ms),
            net(test.figure(Metric::WallNs, Source::WallClock), ms),
            raw(test.figure(Metric::MaxRssBytes, Source::Wait4), mib),
            net(
                test.figure(Metric::Instructions, Source::HardwarePerf),
                count,
            ),
            net(test.figure(Metric::Instructions, Source::Cachegrind), count),
            raw(test.figure(Metric::HeapPeakBytes, Source::Dhat), mib),
        ]);
    }
    let widths: Vec<usize> = (0..columns.len())
        .map(|c| {
            table
                .iter()
                .map(|r| r[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in &table {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (cell, w))| match i {
                0 => format!("{cell:<w$}"),
                _ => format!("{cell:>w$}"),
            })
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
}

fn footer(report: &Report, out: &mut String) {
    if !report.not_profiled.is_empty() {
        let _ = writeln!(out, "\nnot profiled:");
        for n in &report.not_profiled {
            let _ = writeln!(
                out,
                "  {} {}: {}",
                n.binary,
                n.name.as_deref().unwrap_or("(whole target)"),
                n.reason
            );
        }
    }
    for test in report.tests.iter().filter(|t| t.failure_output.is_some()) {
        let outcomes: Vec<String> = test.outcomes.iter().map(|o| o.label()).collect();
        let _ = writeln!(
            out,
            "\n{} {}: {}; last output:",
            test.binary.label(),
            test.name,
            outcomes.join(", ")
        );
        let tail = test.failure_output.as_deref().unwrap_or_default();
        let lines: Vec<&str> = tail.lines().collect();
        for line in &lines[lines.len().saturating_sub(12)..] {
            let _ = writeln!(out, "  | {line}");
        }
    }
    for note in &report.notes {
        let _ = writeln!(out, "\nnote: {note}");
    }
}

fn runs(test: &TestReport) -> String {
    let passes = test.passes();
    if passes == test.outcomes.len() {
        format!("{passes}/{} pass", test.outcomes.len())
    } else {
        // Name the first non-pass outcome: that is what the reader needs to act on.
        let bad = test
            .outcomes
            .iter()
            .find(|o| !o.is_pass())
            .map(|o| o.label())
            .unwrap_or_default();
        format!("{passes}/{} {bad}", test.outcomes.len())
    }
}

fn cost(figure: Option<&Figure>, unit: fn(f64) -> String) -> String {
    match figure.map(|f| &f.reading) {
        Some(Reading::Measured { stats, net_median }) => format!(
            "{} [{}..{}]",
            unit(net_median.unwrap_or(stats.median)),
            unit(stats.min),
            unit(stats.max)
        ),
        Some(Reading::Unavailable { .. }) => "n/a".into(),
        None => "-".into(),
    }
}

fn net(figure: Option<&Figure>, unit: fn(f64) -> String) -> String {
    match figure.and_then(Figure::net_or_raw_median) {
        Some(v) => unit(v),
        None if figure.is_some() => "n/a".into(),
        None => "-".into(),
    }
}

fn raw(figure: Option<&Figure>, unit: fn(f64) -> String) -> String {
    match figure {
        Some(f) => f.stats().map_or_else(|| "n/a".into(), |s| unit(s.median)),
        None => "-".into(),
    }
}

fn unit_of(metric: Metric) -> fn(f64) -> String {
    match metric.unit() {
        "ns" => ms,
        "bytes" => mib,
        _ => count,
    }
}

fn ms(ns: f64) -> String {
    format!("{:.3} ms", ns / 1e6)
}

fn mib(bytes: f64) -> String {
    format!("{:.1} MiB", bytes / (1024.0 * 1024.0))
}

fn count(n: f64) -> String {
    let abs = n.abs();
    if abs >= 1e9 {
        format!("{:.2}G", n / 1e9)
    } else if abs >= 1e6 {
        format!("{:.2}M", n / 1e6)
    } else if abs >= 1e3 {
        format!("{:.1}k", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

fn metric_name(metric: Metric) -> String {
    serde_json::to_value(metric)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_else(|| format!("{metric:?}"))
}

fn source_name(source: Source) -> String {
    serde_json::to_value(source)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_else(|| format!("{source:?}"))
}
