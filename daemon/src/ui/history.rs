//! A crate's history (`/ui/repos/{id}/crates/{krate}`): coverage by goal kind and the measured
//! suite cost over commits, as two aligned charts with one point per stored suite (a point
//! opens its suite), and the same figures as a table.
//!
//! Coverage by kind comes from the summary of the run that stored each suite (the pipeline
//! counts goals by kind); the "all goals" line from the suite itself, so a suite whose run is
//! gone still has a point. The answer carries `Server-Timing: render;dur=<ms>` (store reads and
//! rendering), which the load test reads.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Instant;

use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum_extra::extract::cookie::CookieJar;
use frugal_storage::{GoalCount, SuiteSummary};
use maud::{Markup, html};

use super::chart::{self, Chart, Series};
use super::{Ui, UiError, UiResult, Viewer, cost_text, layout, percent, short};
use crate::api::repo_of;

/// Coverage of one suite by goal kind, in percent.
type KindCoverage = BTreeMap<String, f64>;

pub async fn page(
    State(ui): State<Ui>,
    jar: CookieJar,
    UrlPath((id, krate)): UrlPath<(String, String)>,
) -> UiResult<Response> {
    let t = Instant::now();
    let viewer = Viewer::of(&ui, &jar);
    viewer.require_read()?;
    super::blocking(move || render(&ui, &viewer, &id, &krate, t)).await
}

fn render(ui: &Ui, viewer: &Viewer, id: &str, krate: &str, t: Instant) -> UiResult<Response> {
    let repo = repo_of(&ui.app, id)?;
    if !repo.crates.iter().any(|c| c.name == krate) {
        return Err(UiError::not_found(format!(
            "repository {} has no crate `{krate}`",
            repo.id
        )));
    }
    let store = ui.app.sched.store();
    let suites = store.suite_summaries(repo.id, krate)?;
    let best = store.best_id(repo.id, krate)?;
    let kinds = kind_coverage(ui, &suites)?;
    let body = html! {
        h1 { (krate) " over commits" }
        p { "Repository #" (repo.id) " " code { (repo.path) } ". " (suites.len()) " stored suites, oldest first; "
            "each point opens its suite. "
            a href=(format!("/ui/repos/{}/badge.svg?crate={krate}", repo.id)) { "Coverage badge" } }
        @if suites.is_empty() { p { "No suite is stored for this crate yet." } }
        @else {
            (charts(&suites, &kinds))
            (table(&suites, &kinds, best.map(|b| b.0)))
        }
    };
    let mut r = layout(&format!("{krate} history"), Some(viewer), body).into_response();
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    if let Ok(v) = HeaderValue::from_str(&format!("render;dur={ms:.2}")) {
        r.headers_mut().insert("server-timing", v);
    }
    *r.status_mut() = StatusCode::OK;
    Ok(r)
}

/// Per suite, coverage by kind from its run's summary (empty when the run has none).
fn kind_coverage(ui: &Ui, suites: &[SuiteSummary]) -> UiResult<Vec<KindCoverage>> {
    let Some(first) = suites.first() else {
        return Ok(Vec::new());
    };
    let counts = ui
        .app
        .sched
        .store()
        .run_goal_counts(first.repo, &first.krate)?;
    Ok(suites
        .iter()
        .map(|s| {
            s.run
                .and_then(|r| counts.get(&r))
                .map(percentages)
                .unwrap_or_default()
        })
        .collect())
}

/// Goal counts by kind as percentages; a kind without goals has no share.
fn percentages(counts: &BTreeMap<String, GoalCount>) -> KindCoverage {
    counts
        .iter()
        .filter(|(_, g)| g.total > 0)
        .map(|(kind, g)| (kind.clone(), 100.0 * g.covered as f64 / g.total as f64))
        .collect()
}

/// The cost basis most suites were measured on: only costs on one basis compare.
fn main_basis(suites: &[SuiteSummary]) -> Option<String> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for c in suites.iter().filter_map(|s| s.total_cost.as_ref()) {
        *count.entry(c.basis.as_str()).or_default() += 1;
    }
    count
        .into_iter()
        .max_by_key(|(b, n)| (*n, std::cmp::Reverse(*b)))
        .map(|(b, _)| b.to_string())
}

fn charts(suites: &[SuiteSummary], kinds: &[KindCoverage]) -> Markup {
    let links: Vec<String> = suites
        .iter()
        .map(|s| format!("/ui/suites/{}", s.id))
        .collect();
    let labels: Vec<String> = suites
        .iter()
        .map(|s| match &s.commit {
            Some(c) => short(c).to_string(),
            None => format!("#{}", s.id),
        })
        .collect();
    let mut series = vec![Series {
        name: "all goals".into(),
        values: suites.iter().map(coverage).collect(),
    }];
    let names: BTreeSet<&String> = kinds.iter().flat_map(|k| k.keys()).collect();
    for name in names {
        series.push(Series {
            name: name.clone(),
            values: kinds.iter().map(|k| k.get(name).copied()).collect(),
        });
    }
    let (cost_series, unit, title) = cost_series(suites);
    html! {
        (chart::render(&Chart {
            id: "coverage", title: "Coverage by goal kind (%)", unit: "%",
            series, links: &links, labels: &labels, y_max: Some(100.0),
        }))
        (chart::render(&Chart {
            id: "cost", title: &title, unit: "",
            series: vec![cost_series], links: &links, labels: &labels, y_max: None,
        }))
        @if unit.is_empty() { p.note { "No suite has a measured cost: the chart shows the search's proxy estimate." } }
    }
}

/// The measured cost on the main basis, or the proxy estimate when nothing was measured.
fn cost_series(suites: &[SuiteSummary]) -> (Series, String, String) {
    match main_basis(suites) {
        Some(basis) => {
            // Nanoseconds read better as milliseconds.
            let scale = if basis.split('/').next().is_some_and(|m| m.ends_with("-ns")) {
                1e-6
            } else {
                1.0
            };
            let values = suites
                .iter()
                .map(|s| {
                    s.total_cost
                        .as_ref()
                        .filter(|c| c.basis == basis)
                        .map(|c| c.value * scale)
                })
                .collect();
            let unit = if scale == 1.0 { "" } else { ", ms" };
            let title = format!("Measured suite cost ({basis}{unit})");
            (
                Series {
                    name: basis.clone(),
                    values,
                },
                basis,
                title,
            )
        }
        None => (
            Series {
                name: "proxy estimate".into(),
                values: suites.iter().map(|s| Some(s.proxy_cost)).collect(),
            },
            String::new(),
            "Suite cost: the search's proxy estimate".into(),
        ),
    }
}

fn coverage(s: &SuiteSummary) -> Option<f64> {
    (s.goals_total > 0).then(|| 100.0 * s.goals_covered as f64 / f64::from(s.goals_total))
}

fn table(suites: &[SuiteSummary], kinds: &[KindCoverage], best: Option<u64>) -> Markup {
    html! {
        h2 { "Suites, newest first" }
        div.scroll { table {
            thead { tr {
                th scope="col" { "Suite" } th scope="col" { "Commit" } th scope="col" { "Coverage" }
                th scope="col" { "By kind" } th scope="col" { "Tests" } th scope="col" { "Cost" }
            } }
            tbody {
                @for (s, k) in suites.iter().zip(kinds).rev() {
                    tr {
                        th scope="row" { a href=(format!("/ui/suites/{}", s.id)) { "#" (s.id) }
                            @if best == Some(s.id.0) { " " span.ok { "best" } } }
                        td { @if let Some(c) = &s.commit {
                            a href=(format!("/ui/repos/{}/commits/{c}", s.repo)) { code { (short(c)) } } } }
                        td.num { (percent(s.goals_covered, s.goals_total)) }
                        td { @for (kind, pct) in k { (kind) " " (format!("{pct:.0}%")) " " } }
                        td.num { (s.test_count) }
                        td { @match &s.total_cost {
                            Some(c) => (cost_text(c.value, &c.basis)),
                            None => "not measured",
                        } }
                    }
                }
            }
        } }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_without_goals_has_no_share() {
        let counts = BTreeMap::from([
            (
                "branch".to_string(),
                GoalCount {
                    covered: 3,
                    total: 4,
                },
            ),
            (
                "line".to_string(),
                GoalCount {
                    covered: 0,
                    total: 0,
                },
            ),
        ]);
        let k = percentages(&counts);
        assert_eq!(k.get("branch"), Some(&75.0));
        assert!(!k.contains_key("line"));
    }
}
