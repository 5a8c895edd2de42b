//! The evaluation graph of `--plot`: plain SVG, Black's view, scores clipped to
//! ±`EVAL_CLIP_CP` (mates at the clip), blunders labelled and mistakes marked.
//!
//! Plain SVG rather than a plotting crate: the chart is a handful of lines and texts, and SVG
//! text needs no font files at build or run time.

use super::report::{EVAL_CLIP_CP, Label};
use std::fmt::Write as _;

/// One analysed position on the x axis.
#[derive(Clone, Debug)]
pub struct Point {
    pub ply: u32,
    /// Black's view in centipawns, already clipped; `None` when not scored.
    pub value: Option<i32>,
}

/// A judged move, drawn at the position it led to (where its cost shows).
#[derive(Clone, Debug)]
pub struct Mark {
    pub ply: u32,
    pub label: Label,
    pub text: String,
}

const WIDTH: f64 = 900.0;
const HEIGHT: f64 = 420.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 44.0;

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// Draws the graph; `title` goes on top.
pub fn svg(title: &str, points: &[Point], marks: &[Mark]) -> String {
    let clip = EVAL_CLIP_CP as f64;
    let min_ply = points.iter().map(|p| p.ply).min().unwrap_or(0);
    let max_ply = points.iter().map(|p| p.ply).max().unwrap_or(0).max(min_ply + 1);
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let x = |ply: u32| LEFT + (ply - min_ply) as f64 / (max_ply - min_ply) as f64 * plot_w;
    let y = |v: i32| TOP + (clip - (v as f64).clamp(-clip, clip)) / (2.0 * clip) * plot_h;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<title>{}</title>"#, escape(title));
    let _ = writeln!(s, r##"<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>"##);
    let _ = writeln!(
        s,
        r##"<text x="{}" y="24" text-anchor="middle" font-size="15">{}</text>"##,
        WIDTH / 2.0,
        escape(title)
    );
    // Black's half above, White's below.
    let _ = writeln!(s, r##"<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{}" fill="#f4f4f4"/>"##, plot_h / 2.0);
    let _ = writeln!(
        s,
        r##"<rect x="{LEFT}" y="{}" width="{plot_w}" height="{}" fill="#e4e4ea"/>"##,
        TOP + plot_h / 2.0,
        plot_h / 2.0
    );
    // Horizontal grid with score labels.
    let step = EVAL_CLIP_CP / 3;
    for i in -3..=3 {
        let v = i * step;
        let yy = y(v);
        let stroke = if v == 0 { "#555555" } else { "#bbbbbb" };
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="{stroke}" stroke-width="1"/>"##,
            LEFT + plot_w
        );
        let _ = writeln!(s, r##"<text x="{:.1}" y="{:.1}" text-anchor="end">{v:+}</text>"##, LEFT - 6.0, yy + 4.0);
    }
    // Ply ticks: about ten of them.
    let span = max_ply - min_ply;
    let tick = [1, 2, 5, 10, 20, 50, 100, 200, 500].into_iter().find(|t| span / t <= 12).unwrap_or(1000);
    let first = min_ply.div_ceil(tick) * tick;
    for ply in (first..=max_ply).step_by(tick as usize) {
        let xx = x(ply);
        let _ = writeln!(
            s,
            r##"<line x1="{xx:.1}" y1="{:.1}" x2="{xx:.1}" y2="{:.1}" stroke="#555555"/>"##,
            TOP + plot_h,
            TOP + plot_h + 5.0
        );
        let _ = writeln!(s, r##"<text x="{xx:.1}" y="{:.1}" text-anchor="middle">{ply}</text>"##, TOP + plot_h + 18.0);
    }
    let _ = writeln!(
        s,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle">ply</text>"##,
        LEFT + plot_w / 2.0,
        HEIGHT - 8.0
    );
    let _ = writeln!(
        s,
        r##"<text x="14" y="{:.1}" text-anchor="middle" transform="rotate(-90 14 {:.1})">Black's view (cp)</text>"##,
        TOP + plot_h / 2.0,
        TOP + plot_h / 2.0
    );
    // The evaluation line; unscored positions break it.
    let mut segments: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for p in points {
        match p.value {
            Some(v) => {
                if let Some(seg) = segments.last_mut() {
                    seg.push((x(p.ply), y(v)));
                }
            }
            None => segments.push(Vec::new()),
        }
    }
    for seg in segments.iter().filter(|s| !s.is_empty()) {
        let coords: Vec<String> = seg.iter().map(|(a, b)| format!("{a:.1},{b:.1}")).collect();
        let _ =
            writeln!(s, r##"<polyline points="{}" fill="none" stroke="#1f5fbf" stroke-width="2"/>"##, coords.join(" "));
        for (a, b) in seg {
            let _ = writeln!(s, r##"<circle cx="{a:.1}" cy="{b:.1}" r="2" fill="#1f5fbf"/>"##);
        }
    }
    // Judged moves: blunders red with their text, mistakes orange.
    for m in marks {
        let Some(p) = points.iter().find(|p| p.ply == m.ply) else { continue };
        let Some(v) = p.value else { continue };
        let (color, r) = match m.label {
            Label::Blunder => ("#d62728", 6.0),
            Label::Mistake => ("#ff7f0e", 5.0),
            Label::Inaccuracy => ("#bcbd22", 4.0),
        };
        let (cx, cy) = (x(m.ply), y(v));
        let _ = writeln!(
            s,
            r##"<circle cx="{cx:.1}" cy="{cy:.1}" r="{r}" fill="none" stroke="{color}" stroke-width="2"><title>{}</title></circle>"##,
            escape(&m.text)
        );
        if m.label == Label::Blunder {
            // Above the point when it is low, below when it is high, to stay inside the chart.
            let ty = if cy > TOP + plot_h / 2.0 { cy - 12.0 } else { cy + 20.0 };
            let _ = writeln!(
                s,
                r##"<text x="{cx:.1}" y="{ty:.1}" text-anchor="middle" fill="{color}">{}</text>"##,
                escape(&m.text)
            );
        }
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_text_and_closes_the_document() {
        let pts =
            [Point { ply: 0, value: Some(30) }, Point { ply: 1, value: None }, Point { ply: 2, value: Some(-3000) }];
        let marks = [Mark { ply: 2, label: Label::Blunder, text: "1 △５五角 <&>".into() }];
        let out = svg("A & B", &pts, &marks);
        assert!(out.starts_with("<svg"));
        assert!(out.trim_end().ends_with("</svg>"));
        assert!(out.contains("A &amp; B"));
        assert!(out.contains("&lt;&amp;&gt;"));
        assert_eq!(out.matches("<polyline").count(), 2);
        // A single position still gives a drawable axis.
        assert!(svg("one", &pts[..1], &[]).contains("<polyline"));
    }
}
