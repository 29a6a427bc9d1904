//! The live page (`/ui/live`): runs in flight with their progress (phase, generation,
//! executions, covered goals, share of the search budget) and the queue. The page is complete
//! as served; `/ui/live/events` is a server-sent event stream that sends the runs again (event
//! `runs`, JSON) whenever they change, which the bundled `live.js` writes into the table. When a
//! fleet shares the store, the page also lists its nodes with their heartbeats and jobs.
//! Without JavaScript the page reloads itself every 5 seconds instead (`<noscript>`).

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum_extra::extract::cookie::CookieJar;
use futures_util::stream::{self, Stream};
use maud::{Markup, html};

use super::{Need, Ui, UiError, UiResult, Viewer, figure, layout_with, short};
use frugal_api::v1;

/// How often the stream looks at the runs (it sends only changes).
const TICK: Duration = Duration::from_millis(500);

/// The runs in flight with their live progress, as the API's `/v1/status` shows them.
fn rows(ui: &Ui) -> Vec<v1::Run> {
    let mut runs =
        crate::api::runs::in_flight(ui.app.sched.store(), &ui.app.live).unwrap_or_default();
    for run in &mut runs {
        // Whole seconds: the stream sends a change, not every tick of the clock.
        run.progress.elapsed_s = run.progress.elapsed_s.floor();
    }
    runs
}

pub async fn page(State(ui): State<Ui>, jar: CookieJar) -> UiResult<Response> {
    let viewer = Viewer::of(&ui, &jar);
    viewer.require_read()?;
    super::blocking(move || render(&ui, &viewer)).await
}

fn render(ui: &Ui, viewer: &Viewer) -> UiResult<Response> {
    let runs = rows(ui);
    let queued: Vec<_> = ui
        .app
        .sched
        .active()
        .map_err(UiError::internal)?
        .into_iter()
        .filter(|j| j.state == frugal_storage::JobState::Queued)
        .collect();
    let now = frugal_storage::now_ms();
    let nodes: Vec<v1::Node> = ui
        .app
        .sched
        .store()
        .nodes()
        .map_err(UiError::internal)?
        .iter()
        .map(|n| crate::api::wire::node(n, now))
        .collect();
    let this = &ui.app.sched.options().node;
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
    let body = html! {
        (body)
        @if nodes.len() > 1 {
            h2 { "Nodes" }
            div.scroll { table #nodes {
                thead { tr {
                    th scope="col" { "Node" } th scope="col" { "Address" } th scope="col" { "State" }
                    th scope="col" { "Heartbeat" } th scope="col" { "Jobs" }
                } }
                tbody { @for n in &nodes { tr {
                    th scope="row" { (n.id) @if &n.id == this { " (this node)" } }
                    td { (n.addr.as_deref().unwrap_or("?")) }
                    td { @if n.alive { "alive" } @else { strong { "not responding" } } }
                    td.num { (figure(n.heartbeat_age_s)) " s ago" }
                    td { @if n.jobs.is_empty() { "none" } @else {
                        @for (i, j) in n.jobs.iter().enumerate() {
                            @if i > 0 { ", " } "#" (j) } } }
                } } }
            } }
        }
    };
    let head = html! {
        script src="/ui/static/live.js" defer {}
        noscript { meta http-equiv="refresh" content="5"; }
    };
    Ok(layout_with("Live", Some(viewer), body, head).into_response())
}

/// A table row; `live.js` builds the same cells from the event's JSON.
fn row(r: &v1::Run) -> Markup {
    let p = &r.progress;
    html! {
        tr data-run=(r.id) {
            th scope="row" { "#" (r.id) }
            td { a href=(format!("/ui/repos/{}/crates/{}", r.repo, r.krate)) { (r.krate) } }
            td { @if let Some(c) = &r.commit {
                a href=(format!("/ui/repos/{}/commits/{c}", r.repo)) { code { (short(c)) } } } }
            td.phase { (p.phase) }
            td.num { (p.generation) }
            td.num { (p.executions) }
            td.num { (p.covered) " / " (p.goals) }
            td { progress max="1" value=(format!("{:.3}", p.search_fraction)) {
                (format!("{:.0}%", 100.0 * p.search_fraction)) } }
            td.num { (figure(p.elapsed_s)) " s" }
        }
    }
}

/// How long one stream lasts: the browser's `EventSource` then reconnects, through the
/// session check again, so no connection is held for ever.
const STREAM_LIFETIME: Duration = Duration::from_secs(300);

/// `GET /ui/live/events`: the runs in flight (event `runs`) at once and on every change.
///
/// The store is read off the async workers (the watchdog shares them), the viewer is checked
/// again on every tick (a revoked token's session stops reading), and the stream ends after
/// [`STREAM_LIFETIME`].
pub async fn events(
    State(ui): State<Ui>,
    jar: CookieJar,
) -> UiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    Viewer::of(&ui, &jar).require_read()?;
    let ends = tokio::time::Instant::now() + STREAM_LIFETIME;
    // Runs are compared as the JSON sent: `v1::Run` is a wire type without `PartialEq`.
    let stream = stream::unfold(
        (ui, jar, None::<String>),
        move |(ui, jar, last)| async move {
            loop {
                if last.is_some() {
                    tokio::time::sleep(TICK).await;
                }
                if tokio::time::Instant::now() >= ends || !Viewer::of(&ui, &jar).may(Need::Read) {
                    return None;
                }
                let reader = ui.clone();
                let runs = tokio::task::spawn_blocking(move || rows(&reader))
                    .await
                    .unwrap_or_default();
                let now = serde_json::to_string(&runs).unwrap_or_else(|_| "[]".to_string());
                if last.as_ref() != Some(&now) {
                    let event = Event::default().event("runs").data(now.clone());
                    return Some((Ok(event), (ui, jar, Some(now))));
                }
            }
        },
    );
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}
