//! What `analyze` prints: one record per analysed position (JSON lines or a text table row)
//! and a summary at the end; also the judgement of played moves (loss and label).
//!
//! Scores are in centipawns or in plies to mate, as USI reports them: `score` is from the
//! side to move's view (positive = good for the side to move), `score_black` from Black's.
//!
//! Played moves are judged by the drop in win chance, `1 / (1 + exp(-cp / 600))` of the score
//! (scores clipped to ±3000 cp, a mate counting as ±3000): a drop of at least 0.10 is an
//! inaccuracy, 0.20 a mistake, 0.30 a blunder. `loss_cp` is the plain difference of the clipped
//! scores of the best move and the played move.

use super::engine::{Analysis, Line, Outcome};
use crate::records::notation::{line_ja, move_ja};
use crate::search::Score;
use crate::shogi::{Color, Move, Position, Verdict};
use serde::Serialize;
use std::fmt::Write as _;

/// Scores beyond this many centipawns (and mates) count as this much, for losses and the plot.
pub const EVAL_CLIP_CP: i32 = 3000;
/// Centipawns per logistic unit of the win-chance curve (the usual scale of shogi engines).
pub const WIN_CHANCE_SCALE: f64 = 600.0;
pub const INACCURACY_DROP: f64 = 0.10;
pub const MISTAKE_DROP: f64 = 0.20;
pub const BLUNDER_DROP: f64 = 0.30;

/// A score as JSON: `{"cp": 35}` or `{"mate": 5}` (plies; negative when getting mated).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ScoreJson {
    Cp(i32),
    Mate(i32),
}

impl From<Score> for ScoreJson {
    fn from(s: Score) -> Self {
        match s {
            Score::Cp(v) => ScoreJson::Cp(v),
            Score::Mate(n) => ScoreJson::Mate(n),
        }
    }
}

fn negate(s: Score) -> Score {
    match s {
        Score::Cp(v) => Score::Cp(-v),
        Score::Mate(n) => Score::Mate(-n),
    }
}

/// `s` (side to move's view) from Black's view.
pub fn black_view(s: Score, side: Color) -> Score {
    if side == Color::Black { s } else { negate(s) }
}

/// The score of the previous mover, given the score of the position its move led to.
fn after_move(next: Score) -> Score {
    match next {
        Score::Cp(v) => Score::Cp(-v),
        Score::Mate(n) if n > 0 => Score::Mate(-(n + 1)),
        Score::Mate(n) => Score::Mate(-n + 1),
    }
}

/// Centipawns clipped to ±`EVAL_CLIP_CP`, mates counting as the clip.
pub fn clipped_cp(s: Score) -> i32 {
    match s {
        Score::Cp(v) => v.clamp(-EVAL_CLIP_CP, EVAL_CLIP_CP),
        Score::Mate(n) if n > 0 => EVAL_CLIP_CP,
        Score::Mate(_) => -EVAL_CLIP_CP,
    }
}

pub fn win_chance(s: Score) -> f64 {
    1.0 / (1.0 + (-(clipped_cp(s) as f64) / WIN_CHANCE_SCALE).exp())
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Label {
    pub fn from_drop(drop: f64) -> Option<Label> {
        if drop >= BLUNDER_DROP {
            Some(Label::Blunder)
        } else if drop >= MISTAKE_DROP {
            Some(Label::Mistake)
        } else if drop >= INACCURACY_DROP {
            Some(Label::Inaccuracy)
        } else {
            None
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Label::Inaccuracy => "inaccuracy",
            Label::Mistake => "mistake",
            Label::Blunder => "blunder",
        }
    }
}

fn side_word(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn usi_moves(moves: &[Move]) -> Vec<String> {
    moves.iter().map(|m| m.to_string()).collect()
}

#[derive(Clone, Debug, Serialize)]
pub struct LineRecord {
    pub multipv: usize,
    #[serde(rename = "move")]
    pub mv: String,
    pub move_ja: String,
    pub score: ScoreJson,
    pub score_black: ScoreJson,
    /// `"lower"`/`"upper"` when the score is only a bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<&'static str>,
    pub depth: i32,
    pub seldepth: i32,
    pub pv: Vec<String>,
    pub pv_ja: Vec<String>,
}

/// How the played move was judged.
#[derive(Clone, Debug, Serialize)]
pub struct PlayedRecord {
    pub played_move: String,
    pub played_move_ja: String,
    pub played_score: Option<ScoreJson>,
    pub played_score_black: Option<ScoreJson>,
    pub loss_cp: i32,
    pub win_chance_loss: f64,
    pub label: Option<Label>,
    /// Where the played score comes from: `best` (it is the best move), `multipv` (one of the
    /// MultiPV lines) or `next_position` (the analysis of the position it led to, negated).
    pub played_score_source: &'static str,
}

#[derive(Clone, Debug, Serialize)]
pub struct PositionRecord {
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Order in the input, from 0.
    pub index: usize,
    /// Plies played before this position (the SFEN move number minus one).
    pub ply: u32,
    pub sfen: String,
    pub side_to_move: &'static str,
    /// `checkmate`, `no_legal_moves` or `declaration_win` when the game is over here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal: Option<&'static str>,
    /// How the game had already ended here, in `hayate judge`'s words (`Verdict::word`):
    /// such a position is not searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_end: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<&'static str>,
    pub best_move: Option<String>,
    pub best_move_ja: Option<String>,
    pub score: Option<ScoreJson>,
    pub score_black: Option<ScoreJson>,
    pub depth: i32,
    pub seldepth: i32,
    pub nodes: u64,
    pub time_ms: u64,
    pub nps: u64,
    pub pv: Vec<String>,
    pub pv_ja: Vec<String>,
    pub multipv: Vec<LineRecord>,
    #[serde(flatten)]
    pub played: Option<PlayedRecord>,
}

fn line_record(pos: &Position, i: usize, l: &Line) -> LineRecord {
    let side = pos.side_to_move();
    LineRecord {
        multipv: i + 1,
        mv: l.pv[0].to_string(),
        move_ja: move_ja(pos, l.pv[0]),
        score: l.score.into(),
        score_black: black_view(l.score, side).into(),
        bound: match l.bound {
            Some(crate::tt::Bound::Lower) => Some("lower"),
            Some(crate::tt::Bound::Upper) => Some("upper"),
            _ => None,
        },
        depth: l.depth,
        seldepth: l.seldepth,
        pv: usi_moves(&l.pv),
        pv_ja: line_ja(pos, &l.pv),
    }
}

/// The record of one analysed position (without the played move).
pub fn position_record(index: usize, pos: &Position, a: &Analysis) -> PositionRecord {
    let side = pos.side_to_move();
    let mut r = PositionRecord {
        kind: "position",
        index,
        ply: pos.game_ply().saturating_sub(1),
        sfen: pos.to_sfen(),
        side_to_move: side_word(side),
        terminal: None,
        game_end: None,
        winner: None,
        best_move: None,
        best_move_ja: None,
        score: None,
        score_black: None,
        depth: a.depth,
        seldepth: a.seldepth,
        nodes: a.nodes,
        time_ms: a.time_ms,
        nps: a.nodes * 1000 / a.time_ms.max(1),
        pv: Vec::new(),
        pv_ja: Vec::new(),
        multipv: Vec::new(),
        played: None,
    };
    match &a.outcome {
        Outcome::Best { mv, score, lines } => {
            r.best_move = Some(mv.to_string());
            r.best_move_ja = Some(move_ja(pos, *mv));
            r.score = Some((*score).into());
            r.score_black = Some(black_view(*score, side).into());
            r.multipv = lines.iter().enumerate().map(|(i, l)| line_record(pos, i, l)).collect();
            let pv = lines.first().filter(|l| l.pv[0] == *mv).map_or_else(|| vec![*mv], |l| l.pv.clone());
            r.pv = usi_moves(&pv);
            r.pv_ja = line_ja(pos, &pv);
        }
        Outcome::Declaration => {
            r.terminal = Some("declaration_win");
            r.winner = Some(side_word(side));
            r.best_move = Some("win".into());
            r.best_move_ja = Some("入玉宣言".into());
            r.score = Some(ScoreJson::Mate(1));
            r.score_black = Some(black_view(Score::Mate(1), side).into());
        }
        Outcome::NoLegalMoves { in_check } => {
            r.terminal = Some(if *in_check { "checkmate" } else { "no_legal_moves" });
            r.winner = Some(side_word(!side));
        }
        Outcome::GameEnd(v) => {
            r.game_end = Some(v.word());
            r.winner = v.winner(side).flatten().map(side_word);
            r.terminal = match v {
                Verdict::LossCheckmate => Some("checkmate"),
                Verdict::LossNoLegalMoves => Some("no_legal_moves"),
                _ => None,
            };
        }
    }
    r
}

/// The score of the side to move, if the analysis has one (a lost position without legal
/// moves, or a game already over, has none).
pub fn outcome_score(o: &Outcome) -> Option<Score> {
    match o {
        Outcome::Best { score, .. } => Some(*score),
        Outcome::Declaration => Some(Score::Mate(1)),
        Outcome::NoLegalMoves { .. } | Outcome::GameEnd(_) => None,
    }
}

/// Judges the move `mv` played in `pos` (analysed as `here`), using the analysis of the
/// position it led to (`next`) when the move is not among the analysed lines.
pub fn judge_played(pos: &Position, here: &Analysis, mv: Move, next: Option<&Analysis>) -> PlayedRecord {
    let side = pos.side_to_move();
    let (best_score, found) = match &here.outcome {
        Outcome::Best { mv: best, score, .. } if *best == mv => (Some(*score), Some((*score, "best"))),
        Outcome::Best { score, lines, .. } => {
            let in_lines = lines.iter().find(|l| l.pv[0] == mv && l.bound.is_none()).map(|l| (l.score, "multipv"));
            (Some(*score), in_lines)
        }
        _ => (None, None),
    };
    let played = found.or_else(|| {
        let s = match &next?.outcome {
            Outcome::NoLegalMoves { .. } => Score::Mate(1), // the move mated
            // The move ended the game: won at once, lost at once, or drawn.
            Outcome::GameEnd(v) => match v.winner(!side)? {
                None => Score::Cp(0),
                Some(c) if c == side => Score::Mate(1),
                Some(_) => Score::Mate(-1),
            },
            o => after_move(outcome_score(o)?),
        };
        Some((s, "next_position"))
    });
    let (loss_cp, drop) = match (best_score, played) {
        (Some(b), Some((p, _))) => ((clipped_cp(b) - clipped_cp(p)).max(0), (win_chance(b) - win_chance(p)).max(0.0)),
        _ => (0, 0.0),
    };
    PlayedRecord {
        played_move: mv.to_string(),
        played_move_ja: move_ja(pos, mv),
        played_score: played.map(|(s, _)| s.into()),
        played_score_black: played.map(|(s, _)| black_view(s, side).into()),
        loss_cp,
        win_chance_loss: (drop * 1000.0).round() / 1000.0,
        label: Label::from_drop(drop),
        played_score_source: played.map_or("none", |(_, src)| src),
    }
}

/// Per-side counts of the summary.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SideSummary {
    pub name: Option<String>,
    pub moves: usize,
    pub inaccuracies: usize,
    pub mistakes: usize,
    pub blunders: usize,
    pub average_loss_cp: f64,
    /// Plies of the positions where this side blundered.
    pub blunder_plies: Vec<u32>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Thresholds {
    pub win_chance_scale_cp: f64,
    pub clip_cp: i32,
    pub inaccuracy: f64,
    pub mistake: f64,
    pub blunder: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            win_chance_scale_cp: WIN_CHANCE_SCALE,
            clip_cp: EVAL_CLIP_CP,
            inaccuracy: INACCURACY_DROP,
            mistake: MISTAKE_DROP,
            blunder: BLUNDER_DROP,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct LimitsRecord {
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    pub movetime_ms: Option<u64>,
    pub multipv: usize,
    pub threads: usize,
    pub hash_mib: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct SummaryRecord {
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// `game` or `positions`.
    pub input: &'static str,
    pub format: String,
    pub positions: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_sfen: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Positions where the game had already ended (`game_end`), which were not searched.
    pub game_ends: usize,
    pub nodes: u64,
    pub time_ms: u64,
    pub limits: LimitsRecord,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub black: Option<SideSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub white: Option<SideSummary>,
    pub thresholds: Thresholds,
}

/// Adds the judged moves of `records` to the per-side summaries.
pub fn side_summaries(records: &[PositionRecord], names: [Option<String>; 2]) -> [SideSummary; 2] {
    let [b, w] = names;
    let mut sides = [SideSummary { name: b, ..Default::default() }, SideSummary { name: w, ..Default::default() }];
    let mut loss_sum = [0i64; 2];
    for r in records {
        // A move played after the game had ended has nothing to be judged against.
        let Some(p) = r.played.as_ref().filter(|_| r.game_end.is_none()) else { continue };
        let i = if r.side_to_move == "black" { 0 } else { 1 };
        let s = &mut sides[i];
        s.moves += 1;
        loss_sum[i] += p.loss_cp as i64;
        match p.label {
            Some(Label::Inaccuracy) => s.inaccuracies += 1,
            Some(Label::Mistake) => s.mistakes += 1,
            Some(Label::Blunder) => {
                s.blunders += 1;
                s.blunder_plies.push(r.ply);
            }
            None => {}
        }
    }
    for (s, sum) in sides.iter_mut().zip(loss_sum) {
        s.average_loss_cp = if s.moves > 0 { (sum as f64 / s.moves as f64 * 10.0).round() / 10.0 } else { 0.0 };
    }
    sides
}

// ----- text output -----

pub fn score_text(s: Option<ScoreJson>) -> String {
    match s {
        None => "-".into(),
        Some(ScoreJson::Cp(v)) => format!("{v:+}"),
        Some(ScoreJson::Mate(n)) if n >= 0 => format!("M{n}"),
        Some(ScoreJson::Mate(n)) => format!("-M{}", -n),
    }
}

pub fn text_header() -> String {
    format!(
        "{:>4} {:<5} {:<7} {:<7} {:>7} {:>7} {:>5} {:<10} {:>5} {:>10} {:>6}  {}",
        "ply", "side", "played", "best", "eval(B)", "play(B)", "loss", "label", "depth", "nodes", "ms", "moves"
    )
}

pub fn text_row(r: &PositionRecord) -> String {
    let p = r.played.as_ref();
    let mut moves = String::new();
    if let Some(p) = p {
        let _ = write!(moves, "{} | ", p.played_move_ja);
    }
    match r.game_end.or(r.terminal) {
        Some(t) => moves += t,
        None => moves += &r.pv_ja.iter().take(8).cloned().collect::<Vec<_>>().join(" "),
    }
    format!(
        "{:>4} {:<5} {:<7} {:<7} {:>7} {:>7} {:>5} {:<10} {:>5} {:>10} {:>6}  {}",
        r.ply,
        r.side_to_move,
        p.map_or("-", |p| p.played_move.as_str()),
        r.best_move.as_deref().unwrap_or("-"),
        score_text(r.score_black),
        score_text(p.and_then(|p| p.played_score_black)),
        p.map_or("-".to_string(), |p| p.loss_cp.to_string()),
        p.and_then(|p| p.label).map_or("", Label::word),
        r.depth,
        r.nodes,
        r.time_ms,
        moves
    )
}

pub fn text_summary(s: &SummaryRecord) -> String {
    let mut out = format!(
        "summary: {} {} ({}), {} positions, {} nodes, {:.1} s",
        s.input,
        if s.input == "game" { "record" } else { "list" },
        s.format,
        s.positions,
        s.nodes,
        s.time_ms as f64 / 1000.0
    );
    if let Some(r) = &s.result {
        let _ = write!(out, ", result {r}");
    }
    if s.game_ends > 0 {
        let plural = if s.game_ends == 1 { "" } else { "s" };
        let _ = write!(out, ", {} game-over position{plural} not searched", s.game_ends);
    }
    for (word, side) in [("black", &s.black), ("white", &s.white)] {
        if let Some(side) = side {
            let _ = write!(
                out,
                "\n  {word}{}: {} moves, {} inaccuracies, {} mistakes, {} blunders, average loss {} cp",
                side.name.as_ref().map_or(String::new(), |n| format!(" ({n})")),
                side.moves,
                side.inaccuracies,
                side.mistakes,
                side.blunders,
                side.average_loss_cp
            );
        }
    }
    let t = &s.thresholds;
    let _ = write!(
        out,
        "\n  labels by win-chance drop (1/(1+exp(-cp/{}))): inaccuracy >= {}, mistake >= {}, blunder >= {}",
        t.win_chance_scale_cp, t.inaccuracy, t.mistake, t.blunder
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_after_a_move() {
        assert_eq!(after_move(Score::Cp(120)), Score::Cp(-120));
        // The opponent mates in 3 plies after the move: the mover is mated in 4.
        assert_eq!(after_move(Score::Mate(3)), Score::Mate(-4));
        // The opponent is mated in 2 plies: the mover mates in 3.
        assert_eq!(after_move(Score::Mate(-2)), Score::Mate(3));
    }

    #[test]
    fn labels_follow_the_win_chance_drop() {
        assert_eq!(Label::from_drop(0.05), None);
        assert_eq!(Label::from_drop(0.10), Some(Label::Inaccuracy));
        assert_eq!(Label::from_drop(0.25), Some(Label::Mistake));
        assert_eq!(Label::from_drop(0.5), Some(Label::Blunder));
        assert!((win_chance(Score::Cp(0)) - 0.5).abs() < 1e-9);
        assert_eq!(clipped_cp(Score::Mate(-7)), -EVAL_CLIP_CP);
        assert_eq!(clipped_cp(Score::Cp(123_456)), EVAL_CLIP_CP);
        // A rook's worth from an even position is a blunder; a pawn's is nothing.
        let drop = |cp: i32| win_chance(Score::Cp(0)) - win_chance(Score::Cp(-cp));
        assert_eq!(Label::from_drop(drop(1000)), Some(Label::Blunder));
        assert_eq!(Label::from_drop(drop(90)), None);
    }

    #[test]
    fn a_game_end_is_not_scored_and_the_move_into_it_is() {
        let pos = Position::startpos();
        let (played, best) = (pos.parse_usi_move("7g7f").unwrap(), pos.parse_usi_move("2g2f").unwrap());
        let outcome = Outcome::Best { mv: best, score: Score::Cp(300), lines: Vec::new() };
        let here = Analysis { outcome, nodes: 1, time_ms: 1, depth: 1, seldepth: 1 };
        let drawn = Analysis::game_end(Verdict::DrawRepetition);
        let p = judge_played(&pos, &here, played, Some(&drawn));
        assert_eq!((p.played_score, p.played_score_source, p.loss_cp), (Some(ScoreJson::Cp(0)), "next_position", 300));
        let mut after = pos.clone();
        after.do_move(played);
        let r = position_record(1, &after, &drawn);
        assert_eq!((r.game_end, r.winner, r.terminal), (Some("draw_repetition"), None, None));
        assert!(r.best_move.is_none() && r.score.is_none() && r.nodes == 0);
        // The side to move wins by the mover's perpetual check: the move lost at once.
        let p = judge_played(&pos, &here, played, Some(&Analysis::game_end(Verdict::WinPerpetualCheck)));
        assert_eq!((p.played_score, p.label), (Some(ScoreJson::Mate(-1)), Some(Label::Blunder)));
        let r = position_record(1, &after, &Analysis::game_end(Verdict::LossCheckmate));
        assert_eq!((r.terminal, r.winner), (Some("checkmate"), Some("black")));
    }

    #[test]
    fn score_json_shapes() {
        assert_eq!(serde_json::to_string(&ScoreJson::Cp(-35)).unwrap(), r#"{"cp":-35}"#);
        assert_eq!(serde_json::to_string(&ScoreJson::Mate(5)).unwrap(), r#"{"mate":5}"#);
        assert_eq!(score_text(Some(ScoreJson::Mate(-3))), "-M3");
    }
}
