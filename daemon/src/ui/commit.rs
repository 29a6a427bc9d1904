//! The commit page (`/ui/repos/{id}/commits/{sha}`): per crate the regression report (each
//! changed behaviour with the test body and the value diff, tests that no longer compile,
//! crashes, flaky passes), the accept form, and the runs of the commit with their phases and
//! times. `POST .../accept` accepts through the API's own accept.

use axum::Form;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Redirect, Response};
use axum_extra::extract::cookie::CookieJar;
use frugal_api::summary::RunSummary;
use frugal_storage::{RepoRecord, ReportRecord, RunRecord};
use frugal_subject::regress::{Change, Outcome, Report, TestReport};
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::Value;

use super::repos::run_cell;
use super::session::same_origin;
use super::{Need, Ui, UiResult, Viewer, csrf_field, figure, from_api, highlight, layout, short};
use crate::api::{CrateQuery, repo_of};

/// An API result as a page result (the API's message kept).
pub async fn api<T>(r: crate::api::ApiResult<T>) -> UiResult<T> {
    match r {
        Ok(v) => Ok(v),
        Err(e) => Err(from_api(e.into_response()).await),
    }
}

pub async fn page(
    State(ui): State<Ui>,
    jar: CookieJar,
    UrlPath((id, sha)): UrlPath<(String, String)>,
) -> UiResult<Response> {
    let viewer = Viewer::of(&ui, &jar);
    viewer.require_read()?;
    let app = ui.app.clone();
    let repo = super::blocking(move || Ok(repo_of(&app, &id)?)).await?;
    let commit = crate::api::reports::full_commit(&ui.app, &repo, &sha).await?;
    super::blocking(move || render(&ui, &viewer, &repo, &commit)).await
}

fn render(ui: &Ui, viewer: &Viewer, repo: &RepoRecord, commit: &str) -> UiResult<Response> {
    let store = ui.app.sched.store();
    let reports = store.reports_of_commit(repo.id, commit)?;
    let runs: Vec<RunRecord> = store
        .runs(repo.id, None)?
        .into_iter()
        .filter(|r| r.commit.as_deref() == Some(commit))
        .collect();
    let body = html! {
        h1 { "Commit " code { (short(commit)) } }
        p { "Repository #" (repo.id) " " code { (repo.path) } ". Full id " code.wrap { (commit) } "." }
        h2 { "Regression report" }
        @if reports.is_empty() {
            p { "No job has checked this commit yet." }
        }
        @for r in &reports { (crate_report(repo.id.0, commit, r, viewer)) }
        h2 { "Runs" }
        @if runs.is_empty() { p { "No run for this commit." } }
        @for r in &runs { (run_section(r)) }
    };
    let title = format!("Commit {}", short(commit));
    Ok(layout(&title, Some(viewer), body).into_response())
}

fn crate_report(repo: u64, commit: &str, r: &ReportRecord, viewer: &Viewer) -> Markup {
    let report: Option<Report> = r
        .report
        .as_ref()
        .and_then(|v| serde_json::from_value(v.clone()).ok());
    let shown: Vec<&TestReport> = report
        .iter()
        .flat_map(|rep| rep.tests.iter())
        .filter(|t| !matches!(t.outcome, Outcome::Passed))
        .collect();
    let passed = report.as_ref().map_or(0, |rep| {
        rep.tests
            .iter()
            .filter(|t| matches!(t.outcome, Outcome::Passed))
            .count()
    });
    html! {
        section.report aria-labelledby=(format!("report-{}", r.krate)) {
            h3 id=(format!("report-{}", r.krate)) {
                (r.krate) ": "
                @if r.changed == 0 { span.ok { "no behaviour changed" } }
                @else { span.bad { (r.changed) " behaviours changed" } }
                @if r.accepted.is_some() { " " span.warn { "(accepted " (super::when(r.accepted.unwrap_or(0))) ")" } }
            }
            p {
                @if let (Some(b), Some(c)) = (r.baseline, &r.baseline_commit) {
                    "Checked with suite " a href=(format!("/ui/suites/{b}")) { "#" (b) }
                    " of commit " a href=(format!("/ui/repos/{repo}/commits/{c}")) { code { (short(c)) } } ". "
                }
                @if let Some(rep) = &report { (passed) " of " (rep.tests.len()) " tests pass. " }
                @if let Some(s) = r.suite { "New suite: " a href=(format!("/ui/suites/{s}")) { "#" (s) } }
                @if r.held { " (held until accepted)" }
            }
            @if let Some(n) = &r.note { p.note { (n) } }
            @if r.gates() {
                form.inline method="post" action=(format!("/ui/repos/{repo}/commits/{commit}/accept")) {
                    (csrf_field(viewer))
                    input type="hidden" name="crate" value=(r.krate);
                    button type="submit" { "Accept these changes" }
                    @if !viewer.may(Need::Accept) { " " small { "(needs " a href="/ui/login" { "login" } ")" } }
                }
            }
            @for t in &shown { (test_outcome(t)) }
        }
    }
}

fn test_outcome(t: &TestReport) -> Markup {
    html! {
        article.outcome {
            h4 { code { (t.name) } ": " span.bad { (t.outcome.label()) } }
            (outcome_detail(&t.outcome))
            details {
                summary { "Test body" }
                pre.code { code { (highlight::rust(&t.body)) } }
            }
        }
    }
}

fn outcome_detail(o: &Outcome) -> Markup {
    match o {
        Outcome::Changed { change } => change_detail(change),
        Outcome::NoLongerCompiles { item, error } => html! {
            @if let Some(i) = item { p { "The API of " code { (i) } " changed." } }
            pre.diff { (error) }
        },
        Outcome::Crashed { detail } => html! { pre.diff { (detail) } },
        Outcome::Flaky { first } => html! { p { "Failed once, then passed: " (first) } },
        Outcome::TimedOut => html! { p { "Did not finish within the per-test timeout." } },
        Outcome::Passed => html! {},
    }
}

/// The value diff: what was recorded, what it is now.
fn change_detail(c: &Change) -> Markup {
    match c {
        Change::Value {
            subject,
            expected,
            actual,
            ..
        } => html! {
            p { code { (subject) } }
            pre.diff aria-label="value diff" {
                span.del { "- was " (expected) } "\n"
                span.ins { "+ now " (actual) }
            }
        },
        Change::UnexpectedPanic { message } => html! {
            pre.diff { span.del { "- returned normally" } "\n" span.ins { "+ panics: " (message) } }
        },
        Change::MissingPanic { expected } => html! {
            pre.diff {
                span.del { "- panicked" @if let Some(e) = expected { ": " (e) } } "\n"
                span.ins { "+ returns normally" }
            }
        },
        Change::PanicMessage { expected, actual } => html! {
            pre.diff { span.del { "- panicked: " (expected) } "\n" span.ins { "+ panics: " (actual) } }
        },
    }
}

/// The pipeline's phases and their seconds, from a run's typed summary (none where the run
/// has no summary or one this version cannot read).
fn phases(summary: Option<&Value>) -> Vec<(&'static str, f64)> {
    let Some(s) = summary.and_then(|v| RunSummary::from_stored(v).ok()) else {
        return Vec::new();
    };
    let t = s.pipeline.seconds;
    if t == Default::default() {
        return Vec::new();
    }
    vec![
        ("analyse", t.analyse),
        ("instrument", t.instrument),
        ("build harness", t.build_harness),
        ("search", t.search),
        ("minimise", t.minimise),
        ("verify", t.verify),
    ]
}

fn run_section(r: &RunRecord) -> Markup {
    let wall = r
        .finished
        .map(|f| f.saturating_sub(r.started) as f64 / 1000.0);
    let mut rows = phases(r.summary_json.as_ref());
    if let Some(w) = wall
        && !rows.is_empty()
    {
        let inside: f64 = rows.iter().map(|(_, s)| s).sum();
        rows.push(("snapshot, check, profile, store", (w - inside).max(0.0)));
    }
    let total: f64 = rows.iter().map(|(_, s)| s).sum();
    html! {
        section.run {
            h3 { "Run #" (r.id) " of " (r.krate) }
            p { (run_cell(Some(r)))
                @if let Some(w) = wall { ", " (figure(w)) " s in all" }
                @if let Some(s) = r.suite { ", stored suite " a href=(format!("/ui/suites/{s}")) { "#" (s) } }
            }
            @if let frugal_storage::RunStatus::Failed { error } = &r.status { pre.diff { (error) } }
            @if !rows.is_empty() {
                div.scroll { table {
                    thead { tr { th scope="col" { "Phase" } th scope="col" { "Seconds" } th scope="col" { "Share" } } }
                    tbody {
                        @for (label, secs) in &rows {
                            tr {
                                th scope="row" { (label) }
                                td.num { (figure(*secs)) }
                                td { (bar(*secs, total)) }
                            }
                        }
                    }
                } }
            }
        }
    }
}

/// A horizontal bar for a share of a whole.
fn bar(part: f64, whole: f64) -> Markup {
    let pct = if whole > 0.0 {
        100.0 * part / whole
    } else {
        0.0
    };
    html! {
        svg.bar viewBox="0 0 100 10" preserveAspectRatio="none" role="img"
            aria-label=(format!("{pct:.0}%")) {
            rect x="0" y="0" width=(format!("{pct:.1}")) height="10" {}
        }
        " " (format!("{pct:.0}%"))
    }
}

#[derive(Debug, Deserialize)]
pub struct AcceptForm {
    #[serde(default)]
    csrf: String,
    #[serde(rename = "crate")]
    krate: Option<String>,
}

pub async fn accept(
    State(ui): State<Ui>,
    jar: CookieJar,
    headers: HeaderMap,
    UrlPath((id, sha)): UrlPath<(String, String)>,
    Form(f): Form<AcceptForm>,
) -> UiResult<Response> {
    same_origin(&headers)?;
    Viewer::of(&ui, &jar).require_action(Need::Accept, &f.csrf)?;
    let q = CrateQuery {
        krate: f.krate.filter(|k| !k.is_empty()),
    };
    let answer =
        api(
            crate::api::reports::accept(State(ui.app.clone()), UrlPath((id, sha)), Ok(Query(q)))
                .await,
        )
        .await?;
    // The resolved commit, not the URL's text: it is a plain hex id, safe in a header.
    let back = format!("/ui/repos/{}/commits/{}", answer.0.repo, answer.0.commit);
    Ok(Redirect::to(&back).into_response())
}
