//! A suite's page (`/ui/suites/{id}`): its figures, the per-test table (measured cost, goals
//! covered, proxies), the replacement's before-and-after costs where one was computed, and the
//! highlighted source with a download link (`/ui/suites/{id}/source`, which follows the pages'
//! read rule rather than the API's bearer header, so a logged-in browser can fetch it).

use axum::extract::{Path as UrlPath, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum_extra::extract::cookie::CookieJar;
use frugal_api::summary::{CiCostReport, RunTimes};
use frugal_storage::{SuiteId, SuiteRecord, TestRecord};
use maud::{Markup, html};
use serde_json::Value;

use super::{Ui, UiError, UiResult, Viewer, cost_text, figure, highlight, layout, percent, short};

/// The metrics and cover targets a replacement may have been computed for.
const METRICS: [&str; 4] = ["cpu", "instructions", "wall", "memory"];
const COVERS: [&str; 2] = ["own", "all"];

fn suite_of(ui: &Ui, raw: &str) -> UiResult<SuiteRecord> {
    let id: u64 = raw
        .parse()
        .map_err(|_| UiError::not_found(format!("suite id `{raw}` is not a number")))?;
    ui.app
        .sched
        .store()
        .suite(SuiteId(id))?
        .ok_or_else(|| UiError::not_found(format!("no suite with id {id}")))
}

pub async fn page(
    State(ui): State<Ui>,
    jar: CookieJar,
    UrlPath(id): UrlPath<String>,
) -> UiResult<Response> {
    let viewer = Viewer::of(&ui, &jar);
    viewer.require_read()?;
    super::blocking(move || render(&ui, &viewer, &id)).await
}

fn render(ui: &Ui, viewer: &Viewer, id: &str) -> UiResult<Response> {
    let suite = suite_of(ui, id)?;
    let store = ui.app.sched.store();
    let tests = store.suite_tests(&suite)?;
    let is_best = store.best_id(suite.repo, &suite.krate)? == Some(suite.id);
    let mut replacements = Vec::new();
    for metric in METRICS {
        for cover in COVERS {
            if let Some(r) = store.replacement(suite.repo, &suite.krate, suite.id, metric, cover)? {
                replacements.push((metric, cover, r.replacement, r.error));
            }
        }
    }
    let ci = ci_cost_of(store, &suite)?;
    let body = html! {
        h1 { "Suite #" (suite.id) " of " (suite.krate) @if is_best { " " span.ok { "best" } } }
        (summary(&suite))
        @if let Some(ci) = &ci { (ci_cost_panel(ci)) }
        h2 { "Tests" }
        (tests_table(&tests))
        h2 { "Replacement of the crate's own suite" }
        @if replacements.is_empty() {
            p { "None computed for this suite (" code { "frugal replace --repo " (suite.repo) } ")." }
        }
        @for (metric, cover, rep, err) in &replacements {
            (replacement(metric, cover, rep.as_ref(), err.as_deref()))
        }
        h2 { "Source" }
        p { a href=(format!("/ui/suites/{}/source", suite.id)) download="frugal_generated.rs" {
            "Download frugal_generated.rs" } " (" (suite.source.len()) " bytes)" }
        pre.code tabindex="0" aria-label="suite source" { code { (highlight::rust(&suite.source)) } }
    };
    let title = format!("Suite {} of {}", suite.id, suite.krate);
    Ok(layout(&title, Some(viewer), body).into_response())
}

fn summary(s: &SuiteRecord) -> Markup {
    html! {
        dl.facts {
            dt { "Repository" } dd { a href="/ui" { "#" (s.repo) } " · "
                a href=(format!("/ui/repos/{}/crates/{}", s.repo, s.krate)) { "history of " (s.krate) } }
            dt { "Commit" } dd { @match &s.commit {
                Some(c) => a href=(format!("/ui/repos/{}/commits/{c}", s.repo)) { code { (short(c)) } },
                None => "unknown",
            } }
            dt { "Stored" } dd { (super::when(s.created)) }
            dt { "Coverage" } dd { (percent(s.goals_covered.len(), s.goals_total)) " ("
                (s.goals_covered.len()) " of " (s.goals_total) " goals)" }
            dt { "Measured cost" } dd { @match &s.total_cost {
                Some(c) => (cost_text(c.value, &c.basis)),
                None => "not measured",
            } }
            dt { "Proxy estimate" } dd { (figure(s.proxy_cost)) }
        }
        (mutation_panel(s))
    }
}

/// What CI pays for the suite and the crate's own tests, from the summary of the run that
/// stored it (`jobs.ci_cost`); `None` when that run did not measure it.
fn ci_cost_of(store: &frugal_storage::Store, s: &SuiteRecord) -> UiResult<Option<CiCostReport>> {
    let Some(run) = s.run else {
        return Ok(None);
    };
    let summary = store.run(run)?.and_then(|r| r.summary_json);
    Ok(summary
        .and_then(|v| serde_json::from_value::<frugal_api::summary::RunSummary>(v).ok())
        .and_then(|r| r.pipeline.ci_cost))
}

/// The CI cost panel: one row per suite (generated, own), builds and runs side by side.
fn ci_cost_panel(ci: &CiCostReport) -> Markup {
    let times = |t: &Option<RunTimes>| {
        t.as_ref()
            .map_or_else(|| "not run".into(), RunTimes::describe)
    };
    let rows = [
        ("This suite", &ci.generated),
        ("The crate's own tests", &ci.own),
    ];
    html! {
        section #ci-cost {
            h2 { "What CI pays" }
            div.scroll { table {
                thead { tr {
                    th scope="col" { "Tests" } th scope="col" { "Build, clean" }
                    th scope="col" { "Build after a one-line change" }
                    th scope="col" { "cargo test" }
                    th scope="col" { "cargo nextest run" }
                } }
                tbody { @for (label, cost) in rows { @if let Some(c) = cost {
                    tr {
                        th scope="row" { (label) }
                        td.num { (format!("{:.1} s", c.build_clean_seconds)) }
                        td.num { (format!("{:.1} s", c.build_incremental_seconds)) }
                        td.num { (times(&c.cargo_test)) }
                        td.num { (times(&c.nextest)) }
                    }
                } } }
            } }
            @for n in ci.notes.iter().chain(ci.generated.iter().flat_map(|c| &c.notes))
                .chain(ci.own.iter().flat_map(|c| &c.notes)) {
                p.note { (n) }
            }
        }
    }
}

/// The mutation panel beside coverage: frugal's own mutants the suite kills, when its run had
/// mutant goals (`search.mutants`).
fn mutation_panel(s: &SuiteRecord) -> Markup {
    let Some(m) = &s.mutation else {
        return html! {};
    };
    html! {
        section #mutation {
            h2 { "Mutants" }
            dl.facts {
                dt { "Killed" } dd { (percent(m.killed as usize, m.mutants)) " ("
                    (m.killed) " of " (m.mutants) " of frugal's own mutants)" }
                dt { "Survived" } dd { (m.survived) " infected, killed by no test" }
                dt { "Not infected" } dd { (m.not_infected) }
            }
        }
    }
}

fn tests_table(tests: &[TestRecord]) -> Markup {
    html! {
        div.scroll { table #tests {
            thead { tr {
                th scope="col" { "Test" } th scope="col" { "Measured cost" }
                th scope="col" { "Goals" } th scope="col" { "Proxies" }
            } }
            tbody {
                @for t in tests {
                    tr {
                        th scope="row" { code { (t.name) } }
                        td.num { @match &t.cost {
                            Some(c) => (cost_text(c.value, &c.basis)),
                            None => "–",
                        } }
                        td.num { (t.goals.len()) }
                        td { small { @for (k, v) in &t.proxies { (k) "=" (figure(*v)) " " } } }
                    }
                }
            }
        } }
    }
}

/// Before and after of one replacement (`frugal_replace::Replacement` as stored).
fn replacement(metric: &str, cover: &str, rep: Option<&Value>, error: Option<&str>) -> Markup {
    let Some(r) = rep else {
        return html! { p { (metric) ", cover " (cover) ": failed: " (error.unwrap_or("unknown")) } };
    };
    let unit = r["unit"].as_str().unwrap_or("");
    let side = |k: &str| {
        (
            r[k]["tests"].as_u64().unwrap_or(0),
            r[k]["cost"].as_f64().unwrap_or(0.0),
            r[k]["goals"].as_u64().unwrap_or(0),
        )
    };
    let (bt, bc, bg) = side("before");
    let (at, ac, ag) = side("after");
    let ratio = r["cost_ratio"].as_f64().unwrap_or(0.0);
    html! {
        section.replacement {
            h3 { (metric) ", cover " (cover) ": " (format!("{:.1}%", 100.0 * ratio)) " of the cost" }
            div.scroll { table {
                thead { tr { th scope="col" { "" } th scope="col" { "Tests" }
                    th scope="col" { "Cost (" (unit) ")" } th scope="col" { "Goals" } th scope="col" { "" } } }
                tbody {
                    tr { th scope="row" { "Own suite (before)" } td.num { (bt) } td.num { (figure(bc)) } td.num { (bg) }
                        td { (cost_bar(bc, bc.max(ac))) } }
                    tr { th scope="row" { "Replacement (after)" } td.num { (at) } td.num { (figure(ac)) } td.num { (ag) }
                        td { (cost_bar(ac, bc.max(ac))) } }
                }
            } }
        }
    }
}

fn cost_bar(v: f64, max: f64) -> Markup {
    let w = if max > 0.0 { 100.0 * v / max } else { 0.0 };
    html! {
        svg.bar viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" {
            rect x="0" y="0" width=(format!("{w:.1}")) height="10" {}
        }
    }
}

/// The suite's Rust source as a download.
pub async fn source(
    State(ui): State<Ui>,
    jar: CookieJar,
    UrlPath(id): UrlPath<String>,
) -> UiResult<Response> {
    Viewer::of(&ui, &jar).require_read()?;
    let suite = super::blocking(move || suite_of(&ui, &id)).await?;
    let headers = [
        (header::CONTENT_TYPE, "text/x-rust; charset=utf-8"),
        (
            header::CONTENT_DISPOSITION,
            "attachment; filename=\"frugal_generated.rs\"",
        ),
    ];
    Ok((headers, suite.source).into_response())
}
