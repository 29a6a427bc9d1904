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
use frugal_storage::{RunId, SuiteRecord};
use maud::{Markup, html};
use serde_json::Value;

use super::chart::{self, Chart, Series};
use super::commit::api;
use super::{Ui, UiError, UiResult, Viewer, cost_text, layout, percent, short};
use crate::server::repo_of;

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
    let repo = api(repo_of(&ui.app, &id)).await?;
    if !repo.crates.iter().any(|c| c.name == krate) {
        return Err(UiError::not_found(format!(
            "repository {} has no crate `{krate}`",
            repo.id
        )));
    }
    let store = ui.app.sched.store();
    let suites = store.suites(repo.id, Some(&krate))?;
    let best = store.best_id(repo.id, &krate)?;
    let kinds = kind_coverage(&ui, &suites)?;
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
    let mut r = layout(&format!("{krate} history"), Some(&viewer), body).into_response();
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    if let Ok(v) = HeaderValue::from_str(&format!("render;dur={ms:.2}")) {
        r.headers_mut().insert("server-timing", v);
    }
    *r.status_mut() = StatusCode::OK;
    Ok(r)
}

/// Per suite, coverage by kind from its run's summary (empty when the run has none).
fn kind_coverage(ui: &Ui, suites: &[SuiteRecord]) -> UiResult<Vec<KindCoverage>> {
    let store = ui.app.sched.store();
    let wanted: BTreeSet<RunId> = suites.iter().filter_map(|s| s.run).collect();
    let mut by_run: HashMap<RunId, KindCoverage> = HashMap::new();
    if let Some(first) = suites.first() {
        for run in store.runs(first.repo, Some(&first.krate))? {
            if wanted.contains(&run.id) {
                by_run.insert(run.id, kinds_of(run.summary_json.as_ref()));
            }
        }
    }
    Ok(suites
        .iter()
        .map(|s| s.run.and_then(|r| by_run.remove(&r)).unwrap_or_default())
        .collect())
}

/// `pipeline.goals` of a run summary: `{kind: {covered, total}}` as percentages.
fn kinds_of(summary: Option<&Value>) -> KindCoverage {
    let Some(goals) = summary
        .and_then(|s| s.pointer("/pipeline/goals"))
        .and_then(Value::as_object)
    else {
        return KindCoverage::new();
    };
    goals
        .iter()
        .filter_map(|(kind, g)| {
            let total = g["total"].as_f64()?;
            let covered = g["covered"].as_f64()?;
            (total > 0.0).then(|| (kind.clone(), 100.0 * covered / total))
        })
        .collect()
}

/// The cost basis most suites were measured on: only costs on one basis compare.
fn main_basis(suites: &[SuiteRecord]) -> Option<String> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for c in suites.iter().filter_map(|s| s.total_cost.as_ref()) {
        *count.entry(c.basis.as_str()).or_default() += 1;
    }
    count
        .into_iter()
        .max_by_key(|(b, n)| (*n, std::cmp::Reverse(*b)))
        .map(|(b, _)| b.to_string())
}

fn charts(suites: &[SuiteRecord], kinds: &[KindCoverage]) -> Markup {
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
fn cost_series(suites: &[SuiteRecord]) -> (Series, String, String) {
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

fn coverage(s: &SuiteRecord) -> Option<f64> {
    (s.goals_total > 0).then(|| 100.0 * s.goals_covered.len() as f64 / f64::from(s.goals_total))
}

fn table(suites: &[SuiteRecord], kinds: &[KindCoverage], best: Option<u64>) -> Markup {
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
                        td.num { (percent(s.goals_covered.len(), s.goals_total)) }
                        td { @for (kind, pct) in k { (kind) " " (format!("{pct:.0}%")) " " } }
                        td.num { (s.tests.len()) }
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
    fn kinds_come_from_the_run_summary() {
        let s = serde_json::json!({"pipeline": {"goals": {
            "branch": {"covered": 3, "total": 4}, "line": {"covered": 0, "total": 0}}}});
        let k = kinds_of(Some(&s));
        assert_eq!(k.get("branch"), Some(&75.0));
        assert!(!k.contains_key("line"), "a kind without goals has no share");
        assert!(kinds_of(None).is_empty());
    }
}
