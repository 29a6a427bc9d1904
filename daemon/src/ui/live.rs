//! The live page (`/ui/live`): runs in flight with their progress (phase, generation,
//! executions, covered goals, share of the search budget) and the queue. The page is complete
//! as served; `/ui/live/events` is a server-sent event stream that sends the runs again (event
//! `runs`, JSON) whenever they change, which the bundled `live.js` writes into the table.
//! Without JavaScript the page reloads itself every 5 seconds instead (`<noscript>`).

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum_extra::extract::cookie::CookieJar;
use futures_util::stream::{self, Stream};
use maud::{Markup, html};
use serde::Serialize;

use super::{Ui, UiError, UiResult, Viewer, figure, layout_with, short};

/// How often the stream looks at the runs (it sends only changes).
const TICK: Duration = Duration::from_millis(500);

/// One run in flight, as the table and the event stream show it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiveRow {
    pub id: u64,
    pub repo: u64,
    #[serde(rename = "crate")]
    pub krate: String,
    pub commit: Option<String>,
    pub phase: String,
    pub generation: u64,
    pub executions: u64,
    pub covered: u32,
    pub goals: u32,
    pub search_fraction: f64,
    pub elapsed_s: u64,
}

/// The runs in flight, by id.
fn rows(ui: &Ui) -> Vec<LiveRow> {
    let store = ui.app.sched.store();
    ui.app
        .live
        .runs()
        .into_iter()
        .filter_map(|id| {
            let run = store.run(id).ok()??;
            let l = ui.app.live.get(id)?;
            Some(LiveRow {
                id: id.0,
                repo: run.repo.0,
                krate: run.krate,
                commit: run.commit,
                phase: l.phase,
                generation: l.generation,
                executions: l.executions,
                covered: l.covered,
                goals: l.goals,
                search_fraction: l.search_fraction,
                // Whole seconds: the stream sends a change, not every tick of the clock.
                elapsed_s: l.started.elapsed().as_secs(),
            })
        })
        .collect()
}

pub async fn page(State(ui): State<Ui>, jar: CookieJar) -> UiResult<Response> {
    let viewer = Viewer::of(&ui, &jar);
    viewer.require_read()?;
    let runs = rows(&ui);
    let queued: Vec<_> = ui
        .app
        .sched
        .active()
        .map_err(UiError::internal)?
        .into_iter()
        .filter(|j| j.state == frugal_storage::JobState::Queued)
        .collect();
    let body = html! {
        h1 { "Live" }
        p #live-status aria-live="polite" { (runs.len()) " runs in flight." }
        div.scroll { table #live-runs data-events="/ui/live/events" {
            thead { tr {
                th scope="col" { "Run" } th scope="col" { "Crate" } th scope="col" { "Commit" }
                th scope="col" { "Phase" } th scope="col" { "Generation" } th scope="col" { "Executions" }
                th scope="col" { "Covered goals" } th scope="col" { "Search" } th scope="col" { "Elapsed" }
            } }
            tbody { @for r in &runs { (row(r)) } }
        } }
        h2 { "Queue" }
        @if queued.is_empty() { p { "No job is waiting." } }
        @else {
            ul { @for j in &queued {
                li { "Job #" (j.id) ": " (j.krate) " of repository #" (j.repo)
                    @if let Some(c) = &j.commit { " at " code { (short(c)) } }
                    " (" (j.reason) ")" }
            } }
        }
    };
    let head = html! {
        script src="/ui/static/live.js" defer {}
        noscript { meta http-equiv="refresh" content="5"; }
    };
    Ok(layout_with("Live", Some(&viewer), body, head).into_response())
}

/// A table row; `live.js` builds the same cells from the event's JSON.
fn row(r: &LiveRow) -> Markup {
    html! {
        tr data-run=(r.id) {
            th scope="row" { "#" (r.id) }
            td { a href=(format!("/ui/repos/{}/crates/{}", r.repo, r.krate)) { (r.krate) } }
            td { @if let Some(c) = &r.commit {
                a href=(format!("/ui/repos/{}/commits/{c}", r.repo)) { code { (short(c)) } } } }
            td.phase { (r.phase) }
            td.num { (r.generation) }
            td.num { (r.executions) }
            td.num { (r.covered) " / " (r.goals) }
            td { progress max="1" value=(format!("{:.3}", r.search_fraction)) {
                (format!("{:.0}%", 100.0 * r.search_fraction)) } }
            td.num { (figure(r.elapsed_s as f64)) " s" }
        }
    }
}

/// `GET /ui/live/events`: the runs in flight (event `runs`) at once and on every change.
pub async fn events(
    State(ui): State<Ui>,
    jar: CookieJar,
) -> UiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    Viewer::of(&ui, &jar).require_read()?;
    let stream = stream::unfold((ui, None::<Vec<LiveRow>>), |(ui, last)| async move {
        loop {
            if last.is_some() {
                tokio::time::sleep(TICK).await;
            }
            let now = rows(&ui);
            if last.as_ref() != Some(&now) {
                let event = Event::default()
                    .event("runs")
                    .json_data(&now)
                    .unwrap_or_else(|_| Event::default().comment("unserialisable"));
                return Some((Ok(event), (ui, Some(now))));
            }
        }
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}
