//! The repositories page (`/ui`): per repository its crates, each with the best suite's
//! coverage and cost, the last run, and whether behaviour changed at the last commit checked;
//! and the trigger form (`POST /ui/repos/{id}/trigger`), which queues jobs as the API does.

use axum::Form;
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum_extra::extract::cookie::CookieJar;
use frugal_storage::{RepoRecord, RunRecord, RunStatus, Store};
use maud::{Markup, html};
use serde::Deserialize;

use super::session::same_origin;
use super::{Need, Ui, UiResult, Viewer, cost_text, csrf_field, from_api, layout, percent, short};

pub async fn page(State(ui): State<Ui>, jar: CookieJar) -> UiResult<Response> {
    let viewer = Viewer::of(&ui, &jar);
    viewer.require_read()?;
    super::blocking(move || render(&ui, &viewer)).await
}

fn render(ui: &Ui, viewer: &Viewer) -> UiResult<Response> {
    let store = ui.app.sched.store();
    let repos = store.repos()?;
    let runs = all_runs(store, &repos)?;
    let body = html! {
        h1 { "Repositories" }
        @if repos.is_empty() {
            p { "No repository is registered yet: " code { "frugal repo add <path>" } "." }
        }
        @for repo in &repos {
            (repo_section(store, repo, &runs, viewer)?)
        }
    };
    Ok(layout("Repositories", Some(viewer), body).into_response())
}

/// Every run, oldest first (one scan of the store for the whole page).
fn all_runs(store: &Store, repos: &[RepoRecord]) -> UiResult<Vec<RunRecord>> {
    let mut runs = Vec::new();
    for r in repos {
        runs.extend(store.runs(r.id, None)?);
    }
    runs.sort_by_key(|r| r.id);
    Ok(runs)
}

fn repo_section(
    store: &Store,
    repo: &RepoRecord,
    runs: &[RunRecord],
    viewer: &Viewer,
) -> UiResult<Markup> {
    let mut rows = Vec::new();
    for c in &repo.crates {
        rows.push(crate_row(store, repo, &c.name, runs)?);
    }
    Ok(html! {
        section.repo aria-labelledby=(format!("repo-{}", repo.id)) {
            h2 id=(format!("repo-{}", repo.id)) { "#" (repo.id) " " code { (repo.path) } }
            div.scroll {
                table {
                    thead { tr {
                        th scope="col" { "Crate" }
                        th scope="col" { "Best suite: coverage" }
                        th scope="col" { "Cost" }
                        th scope="col" { "Last run" }
                        th scope="col" { "Behaviour at the last commit" }
                    } }
                    tbody { @for r in &rows { (r) } }
                }
            }
            form.inline method="post" action=(format!("/ui/repos/{}/trigger", repo.id)) {
                (csrf_field(viewer))
                label for=(format!("commit-{}", repo.id)) { "Commit (default HEAD)" }
                input id=(format!("commit-{}", repo.id)) name="commit" size="12"
                    autocomplete="off" spellcheck="false";
                button type="submit" { "Trigger" }
                @if !viewer.may(Need::Trigger) {
                    " " small { "(needs " a href="/ui/login" { "login" } ")" }
                }
            }
        }
    })
}

fn crate_row(
    store: &Store,
    repo: &RepoRecord,
    krate: &str,
    runs: &[RunRecord],
) -> UiResult<Markup> {
    let best = store.best(repo.id, krate)?;
    let last = runs
        .iter()
        .rev()
        .find(|r| r.repo == repo.id && r.krate == krate);
    let report = match last.and_then(|r| r.commit.as_deref()) {
        Some(c) => store.report(repo.id, c, krate)?,
        None => None,
    };
    let history = format!("/ui/repos/{}/crates/{}", repo.id, krate);
    Ok(html! {
        tr {
            th scope="row" { a href=(history) { (krate) } }
            td {
                @if let Some(b) = &best {
                    a href=(format!("/ui/suites/{}", b.id)) {
                        (percent(b.goals_covered.len(), b.goals_total))
                    }
                    " of " (b.goals_total) " goals, " (b.tests.len()) " tests"
                } @else { "no suite yet" }
            }
            td {
                @match best.as_ref().and_then(|b| b.total_cost.as_ref()) {
                    Some(c) => (cost_text(c.value, &c.basis)),
                    None => "not measured",
                }
            }
            td { (run_cell(last)) }
            td {
                @match (&report, last.and_then(|r| r.commit.as_deref())) {
                    (Some(rep), Some(c)) => {
                        a href=(format!("/ui/repos/{}/commits/{}", repo.id, c)) {
                            @if rep.changed == 0 { span.ok { "unchanged" } }
                            @else if rep.accepted.is_some() { span.warn { (rep.changed) " changed, accepted" } }
                            @else { span.bad { (rep.changed) " changed" } }
                        }
                    }
                    _ => "not checked",
                }
            }
        }
    })
}

/// A run in a table cell: status, commit and start.
pub fn run_cell(run: Option<&RunRecord>) -> Markup {
    let Some(r) = run else {
        return html! { "none" };
    };
    let status = match &r.status {
        RunStatus::Running => "running",
        RunStatus::Succeeded => "succeeded",
        RunStatus::Failed { .. } => "failed",
        RunStatus::Cancelled => "cancelled",
    };
    html! {
        span class=(format!("status {status}")) { (status) }
        @if let Some(c) = &r.commit {
            " at " a href=(format!("/ui/repos/{}/commits/{c}", r.repo)) { code { (short(c)) } }
        }
        " " small { (super::when(r.started)) }
    }
}

#[derive(Debug, Deserialize)]
pub struct TriggerForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    commit: String,
}

/// Queues jobs for every crate of the repository through the API's own trigger, then shows
/// the live page.
pub async fn trigger(
    State(ui): State<Ui>,
    jar: CookieJar,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
    Form(f): Form<TriggerForm>,
) -> UiResult<Response> {
    same_origin(&headers)?;
    let viewer = Viewer::of(&ui, &jar);
    viewer.require_action(Need::Trigger, &f.csrf)?;
    let commit = f.commit.trim();
    let body = serde_json::json!({
        "commit": (!commit.is_empty()).then_some(commit),
        "reason": "api",
    });
    let answer = crate::api::jobs::trigger(
        State(ui.app.clone()),
        UrlPath(id),
        // The session's token takes its share of the queue, as over the API.
        viewer.holder().cloned().map(axum::Extension),
        Bytes::from(body.to_string()),
    )
    .await;
    let answer = match answer {
        Ok(r) if r.status() == StatusCode::ACCEPTED => r,
        Ok(r) => return Err(from_api(r).await),
        Err(e) => return Err(from_api(e.into_response()).await),
    };
    drop(answer);
    Ok(Redirect::to("/ui/live").into_response())
}
