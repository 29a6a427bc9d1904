//! The coverage badge (`/ui/repos/{id}/badge.svg[?crate=]`): a small SVG with the best suite's
//! share of covered goals, for READMEs and CI pages. Colour by share; grey without a suite.

use axum::extract::{Path as UrlPath, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum_extra::extract::cookie::CookieJar;
use maud::html;

use super::{Ui, UiResult, Viewer};
use crate::api::{CrateQuery, crate_of, repo_of};

/// Width of one character of the badge's 11 px font, near enough for the box around it.
const CHAR_W: usize = 7;

pub async fn badge(
    State(ui): State<Ui>,
    jar: CookieJar,
    UrlPath(id): UrlPath<String>,
    Query(q): Query<CrateQuery>,
) -> UiResult<Response> {
    Viewer::of(&ui, &jar).require_read()?;
    let best = super::blocking(move || {
        let repo = repo_of(&ui.app, &id)?;
        let krate = crate_of(&repo, &q)?;
        Ok(ui.app.sched.store().best(repo.id, &krate)?)
    })
    .await?;
    let share = best
        .filter(|b| b.goals_total > 0)
        .map(|b| 100.0 * b.goals_covered.len() as f64 / f64::from(b.goals_total));
    let svg = render("frugal coverage", share);
    Ok((
        [
            (header::CONTENT_TYPE, "image/svg+xml; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        svg,
    )
        .into_response())
}

/// The badge for a share in percent (`None`: no suite yet).
pub fn render(label: &str, share: Option<f64>) -> String {
    let value = share.map_or("no suite".to_string(), |s| format!("{s:.0}%"));
    // Dark enough under white text for 4.5:1 contrast.
    let colour = match share {
        None => "#555555",
        Some(s) if s >= 80.0 => "#1a7f37",
        Some(s) if s >= 50.0 => "#8a6100",
        Some(_) => "#b42318",
    };
    let lw = label.len() * CHAR_W + 10;
    let vw = value.len() * CHAR_W + 10;
    let w = lw + vw;
    html! {
        svg xmlns="http://www.w3.org/2000/svg" width=(w) height="20" role="img"
            aria-label=(format!("{label}: {value}")) {
            title { (label) ": " (value) }
            rect width=(lw) height="20" fill="#333333" {}
            rect x=(lw) width=(vw) height="20" fill=(colour) {}
            g fill="#ffffff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11"
                text-anchor="middle" {
                text x=(lw / 2) y="14" { (label) }
                text x=(lw + vw / 2) y="14" { (value) }
            }
        }
    }
    .into_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_badge_says_the_share_and_its_colour() {
        let b = render("frugal coverage", Some(83.4));
        assert!(b.contains(">83%<") && b.contains("#1a7f37"), "{b}");
        let none = render("frugal coverage", None);
        assert!(
            none.contains("no suite") && none.contains("#555555"),
            "{none}"
        );
    }
}
