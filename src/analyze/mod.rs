//! `hayate analyze`: scripted analysis of a game record or a list of positions.
//!
//! The input (KIF, KI2, CSA, JKF, a USI `position` line, or SFEN lines; UTF-8 or Shift_JIS) is
//! read by `crate::records`; every position is searched by `engine` with the options of USI
//! mode, except where the game had already ended (`records::Game::endings`: the rules'
//! referee, and a declaration the record gives), which is reported with its `game_end`;
//! `report` writes one JSON line (or text row) per position and a summary, judging played
//! moves; `plot` draws the evaluation graph. The command line is read by the `cli` module.

pub mod engine;
pub mod plot;
pub mod report;

use crate::engine::EngineOptions;
use crate::records::{self, Format, Input, InputError};
use crate::search::Limits;
use report::{LimitsRecord, PositionRecord, SummaryRecord, Thresholds};
use std::fmt;
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;

#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputKind {
    /// One JSON object per line: a record per position, then a summary.
    Json,
    /// A readable table.
    Text,
}

/// What to analyse and how.
#[derive(Clone, Debug)]
pub struct AnalyzeSettings {
    /// The record or position list; `None` reads standard input.
    pub input: Option<PathBuf>,
    /// `None`: detected from the content.
    pub format: Option<Format>,
    pub options: EngineOptions,
    /// Per position.
    pub limits: Limits,
    pub output: OutputKind,
    /// Also write an evaluation graph (SVG) here.
    pub plot: Option<PathBuf>,
    /// No progress bar.
    pub quiet: bool,
}

/// Why `analyze` stopped.
#[derive(Debug)]
pub enum AnalyzeError {
    Usage(String),
    Read { name: String, err: std::io::Error },
    Input { name: String, err: InputError },
    Write(std::io::Error),
    Plot { path: PathBuf, err: std::io::Error },
}

impl fmt::Display for AnalyzeError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            AnalyzeError::Usage(s) => write!(f, "{s}"),
            AnalyzeError::Read { name, err } => write!(f, "cannot read {name}: {err}"),
            AnalyzeError::Input { name, err } => write!(f, "{name}: {err}"),
            AnalyzeError::Write(e) => write!(f, "writing the output: {e}"),
            AnalyzeError::Plot { path, err } => write!(f, "cannot write {}: {err}", path.display()),
        }
    }
}

impl std::error::Error for AnalyzeError {}

fn read_input(args: &AnalyzeSettings) -> Result<(String, Vec<u8>), AnalyzeError> {
    let mut bytes = Vec::new();
    match args.input.as_ref() {
        Some(path) => {
            let name = path.display().to_string();
            bytes = std::fs::read(path).map_err(|err| AnalyzeError::Read { name: name.clone(), err })?;
            Ok((name, bytes))
        }
        None => {
            let name = "<stdin>".to_string();
            std::io::stdin().read_to_end(&mut bytes).map_err(|err| AnalyzeError::Read { name: name.clone(), err })?;
            Ok((name, bytes))
        }
    }
}

/// Where records go: JSON lines or text rows.
struct Sink<'a> {
    out: &'a mut dyn Write,
    kind: OutputKind,
    header_done: bool,
}

impl Sink<'_> {
    fn record(&mut self, r: &PositionRecord) -> Result<(), AnalyzeError> {
        let line = match self.kind {
            OutputKind::Json => serde_json::to_string(r).map_err(|e| AnalyzeError::Write(e.into()))?,
            OutputKind::Text => {
                let row = report::text_row(r);
                if self.header_done {
                    row
                } else {
                    self.header_done = true;
                    format!("{}\n{row}", report::text_header())
                }
            }
        };
        writeln!(self.out, "{line}").and_then(|_| self.out.flush()).map_err(AnalyzeError::Write)
    }

    fn summary(&mut self, s: &SummaryRecord) -> Result<(), AnalyzeError> {
        let text = match self.kind {
            OutputKind::Json => serde_json::to_string(s).map_err(|e| AnalyzeError::Write(e.into()))?,
            OutputKind::Text => report::text_summary(s),
        };
        writeln!(self.out, "{text}").and_then(|_| self.out.flush()).map_err(AnalyzeError::Write)
    }
}

fn progress_bar(len: usize, quiet: bool) -> indicatif::ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len as u64);
    let style = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} positions  {elapsed} (eta {eta})  {msg}")
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

/// Runs the analysis described by `args`, writing records to `out`.
pub fn run(args: &AnalyzeSettings, out: &mut dyn Write) -> Result<(), AnalyzeError> {
    let (options, limits) = (&args.options, &args.limits);
    let (name, bytes) = read_input(args)?;
    let text = records::decode(&bytes).map_err(|err| AnalyzeError::Input { name: name.clone(), err })?;
    let (format, input) = records::parse(&text, args.format).map_err(|err| AnalyzeError::Input { name, err })?;
    let mut analyzer = engine::Analyzer::new(options, limits.clone());

    // The positions to analyse (for a game, each before its move and the final one) and
    // where the game had already ended (a list line's own moves count as its history).
    let rule = options.entering_king_rule;
    let (positions, moves, ends, game) = match &input {
        Input::Game(g) => (g.positions(), g.moves.clone(), g.endings(rule), Some(g)),
        Input::Positions(lines) => (
            lines.iter().map(records::Game::final_position).collect(),
            Vec::new(),
            lines.iter().map(|g| g.endings(rule).pop().flatten()).collect(),
            None,
        ),
    };
    let bar = progress_bar(positions.len(), args.quiet);
    let mut sink = Sink { out, kind: args.output, header_done: false };
    let mut records: Vec<PositionRecord> = Vec::with_capacity(positions.len());
    let mut previous: Option<(usize, engine::Analysis)> = None;
    let (mut nodes, mut time_ms) = (0u64, 0u64);
    for (i, pos) in positions.iter().enumerate() {
        bar.set_message(format!("ply {}", pos.game_ply().saturating_sub(1)));
        let a = match &ends[i] {
            Some(v) => engine::Analysis::game_end(v.clone()),
            None => analyzer.analyse(pos),
        };
        nodes += a.nodes;
        time_ms += a.time_ms;
        // A game's record waits for the next analysis, which judges its played move.
        if let Some((j, prev)) = previous.take() {
            let mut r = report::position_record(j, &positions[j], &prev);
            r.played = Some(report::judge_played(&positions[j], &prev, moves[j], Some(&a)));
            sink.record(&r)?;
            records.push(r);
        }
        if game.is_some() && i < moves.len() {
            previous = Some((i, a));
        } else {
            let r = report::position_record(i, pos, &a);
            sink.record(&r)?;
            records.push(r);
        }
        bar.inc(1);
    }
    bar.finish_and_clear();

    let limits_record = LimitsRecord {
        depth: limits.depth,
        nodes: limits.nodes,
        movetime_ms: limits.movetime,
        multipv: options.multipv,
        threads: options.threads,
        hash_mib: options.hash_mib,
    };
    let (black, white) = match game {
        Some(g) => {
            let [b, w] = report::side_summaries(&records, [g.black.clone(), g.white.clone()]);
            (Some(b), Some(w))
        }
        None => (None, None),
    };
    let summary = SummaryRecord {
        kind: "summary",
        input: if game.is_some() { "game" } else { "positions" },
        format: format.to_string(),
        positions: records.len(),
        start_sfen: game.map(|g| g.start.to_sfen()),
        moves: game.map(|g| g.moves.len()),
        result: game.and_then(|g| g.result.clone()),
        game_ends: records.iter().filter(|r| r.game_end.is_some()).count(),
        nodes,
        time_ms,
        limits: limits_record,
        black,
        white,
        thresholds: Thresholds::default(),
    };
    sink.summary(&summary)?;

    if let Some(path) = &args.plot {
        let title = match game {
            Some(g) => format!(
                "hayate analysis: {} vs {}",
                g.black.as_deref().unwrap_or("Black"),
                g.white.as_deref().unwrap_or("White")
            ),
            None => "hayate analysis".to_string(),
        };
        let svg = plot::svg(&title, &plot_points(&records), &plot_marks(&records));
        std::fs::write(path, svg).map_err(|err| AnalyzeError::Plot { path: path.clone(), err })?;
    }
    Ok(())
}

/// Black's view of each record, clipped; a finished game counts for its winner.
fn plot_points(records: &[PositionRecord]) -> Vec<plot::Point> {
    let clip = report::EVAL_CLIP_CP;
    records
        .iter()
        .map(|r| {
            let value = match (r.score_black, r.winner) {
                (Some(report::ScoreJson::Cp(v)), _) => Some(v.clamp(-clip, clip)),
                (Some(report::ScoreJson::Mate(n)), _) => Some(if n > 0 { clip } else { -clip }),
                (None, Some("black")) => Some(clip),
                (None, Some(_)) => Some(-clip),
                // A game drawn here (repetition, declaration under the H rules).
                (None, None) if r.game_end.is_some() => Some(0),
                (None, None) => None,
            };
            plot::Point { ply: r.ply, value }
        })
        .collect()
}

/// Judged moves, drawn at the position each led to.
fn plot_marks(records: &[PositionRecord]) -> Vec<plot::Mark> {
    records
        .iter()
        .filter_map(|r| {
            let p = r.played.as_ref()?;
            Some(plot::Mark { ply: r.ply + 1, label: p.label?, text: format!("{} {}", r.ply + 1, p.played_move_ja) })
        })
        .collect()
}
