//! SVG line charts drawn on the server: one point per stored suite, on an x axis shared by every
//! chart of a page so that charts stacked above each other align point for point.
//!
//! Decision: SVG in the page, not a chart script: it renders without JavaScript, each point of
//! the main series is a link (keyboard-focusable, with a `<title>` a screen reader reads), and
//! it costs a few microseconds per point. Colours are the Okabe–Ito palette (distinguishable
//! with colour-blindness, at least 3:1 against white), and series differ by dash pattern too.

use maud::{Markup, html};

/// Width and height of the drawing, in SVG units (scaled to the page by CSS).
const W: f64 = 800.0;
const H: f64 = 220.0;
/// Room for the y labels on the left and the x labels below.
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 28.0;

/// Series colours and dash patterns, in order.
const STYLES: [(&str, &str); 8] = [
    ("#000000", ""),
    ("#0072B2", "6 3"),
    ("#D55E00", "2 2"),
    ("#009E73", "8 3 2 3"),
    ("#CC79A7", "4 4"),
    ("#8a6d00", "1 3"),
    ("#56B4E9", "10 2"),
    ("#E69F00", "3 1"),
];

/// One line of a chart; `None` where the point has no value.
pub struct Series {
    pub name: String,
    pub values: Vec<Option<f64>>,
}

/// A chart over `n` points: the first series is the main one, its points link to `links[i]`
/// and carry `labels[i]` as their title.
pub struct Chart<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub unit: &'a str,
    pub series: Vec<Series>,
    pub links: &'a [String],
    pub labels: &'a [String],
    /// Fixed y range (coverage: 0..100), or `None` to fit the data from 0.
    pub y_max: Option<f64>,
}

/// The x position of point `i` of `n`: the same on every chart of a page.
fn x_of(i: usize, n: usize) -> f64 {
    if n <= 1 {
        return LEFT + (W - LEFT - RIGHT) / 2.0;
    }
    LEFT + (W - LEFT - RIGHT) * i as f64 / (n - 1) as f64
}

fn y_of(v: f64, max: f64) -> f64 {
    let top = if max > 0.0 { max } else { 1.0 };
    H - BOTTOM - (H - TOP - BOTTOM) * (v / top).clamp(0.0, 1.0)
}

/// The maximum of the y axis: the fixed one, or the data's maximum rounded up.
fn y_max(chart: &Chart<'_>) -> f64 {
    if let Some(m) = chart.y_max {
        return m;
    }
    let max = chart
        .series
        .iter()
        .flat_map(|s| s.values.iter().flatten())
        .fold(0.0_f64, |a, b| a.max(*b));
    nice_ceiling(max)
}

/// 1, 2 or 5 times a power of ten, at or above `v`.
fn nice_ceiling(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|c| *c >= v)
        .unwrap_or(10.0 * p)
}

/// The `d` of a path through the series' points; a missing value breaks the line.
fn path_of(values: &[Option<f64>], max: f64) -> String {
    let n = values.len();
    let mut d = String::with_capacity(n * 16);
    let mut pen_down = false;
    for (i, v) in values.iter().enumerate() {
        match v {
            Some(v) => {
                let cmd = if pen_down { 'L' } else { 'M' };
                d.push_str(&format!("{cmd}{:.1} {:.1}", x_of(i, n), y_of(*v, max)));
                pen_down = true;
            }
            None => pen_down = false,
        }
    }
    d
}

/// The chart as an `<svg>` with a legend.
pub fn render(chart: &Chart<'_>) -> Markup {
    let max = y_max(chart);
    let n = chart.links.len();
    let ticks = [0.0, 0.25, 0.5, 0.75, 1.0];
    html! {
        figure.chart {
            figcaption id=(format!("{}-title", chart.id)) { (chart.title) }
            svg id=(chart.id) viewBox=(format!("0 0 {W} {H}")) role="group"
                aria-labelledby=(format!("{}-title", chart.id)) {
                @for t in ticks {
                    @let y = y_of(t * max, max);
                    line.grid x1=(LEFT) x2=(W - RIGHT) y1=(y) y2=(y) {}
                    text.tick x=(LEFT - 6.0) y=(y + 4.0) text-anchor="end" {
                        (tick_text(t * max)) (chart.unit)
                    }
                }
                (x_labels(chart.labels, n))
                @for (k, s) in chart.series.iter().enumerate().rev() {
                    @let (colour, dash) = STYLES[k % STYLES.len()];
                    path.line d=(path_of(&s.values, max)) stroke=(colour)
                        stroke-dasharray=(dash) {}
                }
                @if let Some(main) = chart.series.first() {
                    @for (i, v) in main.values.iter().enumerate() {
                        @if let Some(v) = v {
                            a.point href=(chart.links.get(i).map(String::as_str).unwrap_or("#")) {
                                title { (chart.labels.get(i).map(String::as_str).unwrap_or("")) ": "
                                    (super::figure(*v)) (chart.unit) }
                                circle cx=(format!("{:.1}", x_of(i, n)))
                                    cy=(format!("{:.1}", y_of(*v, max))) r="4" {}
                            }
                        }
                    }
                }
            }
            ul.legend {
                @for (k, s) in chart.series.iter().enumerate() {
                    @let (colour, dash) = STYLES[k % STYLES.len()];
                    li {
                        svg.swatch viewBox="0 0 24 8" aria-hidden="true" {
                            line x1="0" x2="24" y1="4" y2="4" stroke=(colour)
                                stroke-dasharray=(dash) stroke-width="3" {}
                        }
                        (s.name)
                    }
                }
            }
        }
    }
}

/// An axis figure: whole numbers without decimals.
fn tick_text(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e7 {
        format!("{v:.0}")
    } else {
        super::figure(v)
    }
}

/// At most 8 x labels (the commits), evenly spread.
fn x_labels(labels: &[String], n: usize) -> Markup {
    let step = n.div_ceil(8).max(1);
    html! {
        @for (i, l) in labels.iter().enumerate() {
            @if i % step == 0 || i + 1 == n {
                @let anchor = if n > 1 && i == 0 { "start" } else if n > 1 && i + 1 == n { "end" } else { "middle" };
                text.tick x=(format!("{:.1}", x_of(i, n))) y=(H - 8.0) text-anchor=(anchor) {
                    (l.get(..7).unwrap_or(l))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_round_up_to_readable_figures() {
        assert_eq!(nice_ceiling(0.0), 1.0);
        assert_eq!(nice_ceiling(3.2), 5.0);
        assert_eq!(nice_ceiling(120.0), 200.0);
        assert_eq!(nice_ceiling(1000.0), 1000.0);
    }

    #[test]
    fn a_missing_value_breaks_the_line() {
        let d = path_of(&[Some(1.0), None, Some(2.0), Some(3.0)], 4.0);
        assert_eq!(d.matches('M').count(), 2, "{d}");
        assert_eq!(d.matches('L').count(), 1, "{d}");
    }

    #[test]
    fn points_of_the_main_series_link_to_their_suites() {
        let links = vec!["/ui/suites/1".to_string(), "/ui/suites/2".to_string()];
        let labels = vec!["abc".to_string(), "def".to_string()];
        let chart = Chart {
            id: "c",
            title: "Coverage",
            unit: "%",
            series: vec![Series {
                name: "all".into(),
                values: vec![Some(50.0), Some(60.0)],
            }],
            links: &links,
            labels: &labels,
            y_max: Some(100.0),
        };
        let svg = render(&chart).into_string();
        assert!(svg.contains("href=\"/ui/suites/2\""), "{svg}");
        assert!(svg.contains("<title>def: 60.00%</title>"), "{svg}");
    }
}
