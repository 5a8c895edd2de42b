//! Game records and position lists: KIF, KI2, CSA, JKF (JSON), a USI `position` line, and
//! lists of positions (one SFEN or `position` line per line), with the Japanese move notation
//! they use.
//! Text is decoded from UTF-8 or Shift_JIS first; the format is detected from the content
//! unless the caller forces one. The analysis (`hayate analyze`) and the tuner read records
//! through this module.

pub mod csa;
pub mod jkf;
pub mod kif;
pub mod notation;
pub mod packed_sfen;
pub mod usi;

use crate::shogi::{Declaration, EnteringKingRule, JudgeOptions, Move, Position, Referee, Verdict};
use std::fmt;

/// Input format names for `--format`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Kif,
    Ki2,
    Csa,
    /// The JSON kifu format of Kifu for JS and tsshogi (ShogiHome).
    Jkf,
    /// One `position ...` line (or SFEN) with moves: a game.
    Usi,
    /// One SFEN or `position` line per line: a list of positions.
    Sfen,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Format::Kif => "kif",
            Format::Ki2 => "ki2",
            Format::Csa => "csa",
            Format::Jkf => "jkf",
            Format::Usi => "usi",
            Format::Sfen => "sfen",
        })
    }
}

/// A game: a start position and the moves played from it (main line only).
#[derive(Clone)]
pub struct Game {
    pub start: Position,
    pub moves: Vec<Move>,
    pub black: Option<String>,
    pub white: Option<String>,
    /// How the record says the game ended (`投了`, `%TORYO`, `resign`, ...), if it says.
    pub result: Option<String>,
    /// The record says that the side to move after the last move declared a win by entering
    /// king (USI `win`, CSA `%KACHI`, JKF `KACHI`, KIF `入玉勝ち`).
    pub declaration: bool,
    /// Evaluation comments (CSA `'** <score> <pv>`, the floodgate form, Black's view):
    /// `scores[i]` is the score written just before move `i`, i.e. for the position after `i`
    /// moves. Empty where the format keeps none; None where a move has none.
    pub scores: Vec<Option<i32>>,
}

impl fmt::Debug for Game {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("Game")
            .field("start", &self.start.to_sfen())
            .field("moves", &self.moves)
            .field("black", &self.black)
            .field("white", &self.white)
            .field("result", &self.result)
            .field("declaration", &self.declaration)
            .finish()
    }
}

impl Game {
    pub fn new(start: Position) -> Game {
        Game {
            start,
            moves: Vec::new(),
            black: None,
            white: None,
            result: None,
            declaration: false,
            scores: Vec::new(),
        }
    }

    /// The positions the game goes through: the start, then one after each move (each with
    /// the moves before it as history).
    pub fn positions(&self) -> Vec<Position> {
        let mut p = self.start.clone();
        let mut out = Vec::with_capacity(self.moves.len() + 1);
        out.push(p.clone());
        for &m in &self.moves {
            p.do_move(m);
            out.push(p.clone());
        }
        out
    }

    /// Where the game had already ended, per position of `positions()`: the rules' referee
    /// (`Referee`, the one repetition count) replays the moves and reports a fourfold
    /// repetition (or perpetual check), a side without legal moves, or the try rule's try;
    /// and when the record says the game ended by a declaration, its final position is a
    /// declaration win (or draw) if the declaration holds under `rule`. An invalid one is
    /// left alone: the game may have been played under another rule.
    pub fn endings(&self, rule: EnteringKingRule) -> Vec<Option<Verdict>> {
        let mut pos = self.start.clone();
        let mut referee = Referee::new(&pos, JudgeOptions { rule, ..JudgeOptions::default() });
        let mut out = Vec::with_capacity(self.moves.len() + 1);
        out.push(Referee::without_moves(&pos));
        for &m in &self.moves {
            pos.do_move(m);
            out.push(referee.after_move(&pos));
        }
        if let Some(last @ None) = out.last_mut()
            && self.declaration
        {
            *last = match pos.declaration(rule) {
                Declaration::Win => Some(Verdict::WinDeclaration),
                Declaration::Draw => Some(Verdict::DrawDeclaration),
                Declaration::Invalid => None,
            };
        }
        out
    }

    /// The position after the last move, with the moves as its history.
    pub fn final_position(&self) -> Position {
        let mut p = self.start.clone();
        for &m in &self.moves {
            p.do_move(m);
        }
        p
    }
}

/// What to analyse.
#[derive(Clone)]
pub enum Input {
    Game(Box<Game>),
    /// A list of positions, each as the line's game that leads to it: the position analysed
    /// is its final one.
    Positions(Vec<Game>),
}

/// Why the input could not be read.
#[derive(Debug)]
pub enum InputError {
    /// Neither UTF-8 nor Shift_JIS.
    Encoding,
    Empty,
    /// No format fits; `--format` can force one.
    Unrecognized,
    Kif(kif::KifError),
    Csa(csa::CsaError),
    Jkf(jkf::JkfError),
    Usi(usi::UsiInputError),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            InputError::Encoding => write!(f, "input is neither UTF-8 nor Shift_JIS text"),
            InputError::Empty => write!(f, "input is empty"),
            InputError::Unrecognized => {
                write!(f, "cannot tell the input format (KIF, KI2, CSA, JKF, USI, SFEN list); use --format")
            }
            InputError::Kif(e) => write!(f, "{e}"),
            InputError::Csa(e) => write!(f, "{e}"),
            InputError::Jkf(e) => write!(f, "{e}"),
            InputError::Usi(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for InputError {}

/// Decodes a record: UTF-8 (with or without BOM) when valid, else Shift_JIS (the Windows
/// code page 932 that Kifu for Windows writes).
pub fn decode(bytes: &[u8]) -> Result<String, InputError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Ok(s.to_string());
    }
    let (text, had_errors) = encoding_rs::SHIFT_JIS.decode_without_bom_handling(bytes);
    if had_errors { Err(InputError::Encoding) } else { Ok(text.into_owned()) }
}

/// Guesses the format from the content.
pub fn detect(text: &str) -> Option<Format> {
    // JSON first: no other format opens with `{`.
    if text.trim_start().starts_with('{') {
        return jkf::looks_like_jkf(text).then_some(Format::Jkf);
    }
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if lines.is_empty() {
        return None;
    }
    let significant: Vec<&str> = lines.iter().copied().filter(|l| !l.starts_with('#')).collect();
    if !significant.is_empty() && significant.iter().all(|l| usi::looks_like_position(l)) {
        let one_game = significant.len() == 1 && significant[0].split_whitespace().any(|t| t == "moves");
        return Some(if one_game { Format::Usi } else { Format::Sfen });
    }
    if lines.iter().any(|l| csa::looks_like_csa(l)) {
        return Some(Format::Csa);
    }
    if lines.iter().any(|l| kif::is_kif_move_line(l) || l.starts_with("手数----")) {
        return Some(Format::Kif);
    }
    if lines.iter().any(|l| kif::is_ki2_move_line(l)) {
        return Some(Format::Ki2);
    }
    // A record with headers or a board diagram but no moves yet.
    if lines.iter().any(|l| l.contains('：') || l.starts_with('|')) {
        return Some(Format::Kif);
    }
    None
}

/// Parses `text` as `format`, or as the detected format.
pub fn parse(text: &str, format: Option<Format>) -> Result<(Format, Input), InputError> {
    if text.trim().is_empty() {
        return Err(InputError::Empty);
    }
    let format = match format {
        Some(f) => f,
        None => detect(text).ok_or(InputError::Unrecognized)?,
    };
    let input = match format {
        Format::Kif => Input::Game(Box::new(kif::parse_kif(text).map_err(InputError::Kif)?)),
        Format::Ki2 => Input::Game(Box::new(kif::parse_ki2(text).map_err(InputError::Kif)?)),
        Format::Csa => Input::Game(Box::new(csa::parse(text).map_err(InputError::Csa)?)),
        Format::Jkf => Input::Game(Box::new(jkf::parse(text).map_err(InputError::Jkf)?)),
        Format::Usi => Input::Game(Box::new(usi::parse_game(text).map_err(InputError::Usi)?)),
        Format::Sfen => Input::Positions(usi::parse_list(text).map_err(InputError::Usi)?),
    };
    Ok((format, input))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_both_encodings() {
        let text = "手合割：平手\n";
        let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode(text);
        assert_eq!(decode(&sjis).unwrap(), text);
        assert_eq!(decode(text.as_bytes()).unwrap(), text);
        assert_eq!(decode(&[0xEF, 0xBB, 0xBF, b'a']).unwrap(), "a");
        assert!(matches!(decode(&[0x81, 0x20, 0xFF]), Err(InputError::Encoding)));
    }

    #[test]
    fn endings_use_the_referee_and_the_declared_result() {
        let rule = EnteringKingRule::DEFAULT;
        let cycle = " 2h3h 8b7b 3h2h 7b8b";
        let g = usi::parse_game(&format!("startpos moves 7g7f 3c3d{}", cycle.repeat(3))).unwrap();
        let ends = g.endings(rule);
        assert_eq!(ends.len(), 15);
        assert!(ends[..14].iter().all(Option::is_none));
        assert_eq!(ends[14], Some(Verdict::DrawRepetition));
        let g = usi::parse_game("sfen 8k/9/7P1/9/9/9/9/9/K8 b GS 1 moves G*2b").unwrap();
        assert_eq!(g.endings(rule), [None, Some(Verdict::LossCheckmate)]);
        // Black's king and ten pieces in White's camp, 28 points with the hand: a valid
        // declaration under CSARule27 only when the record says it was made.
        let declared = "sfen +R+B+P+P+P+P+P+P1/4K4/+P+P7/9/9/9/9/9/k8 b RBGS 1 moves win";
        let g = usi::parse_game(declared).unwrap();
        assert_eq!(g.endings(rule), [Some(Verdict::WinDeclaration)]);
        assert_eq!(g.endings(EnteringKingRule::NoEnteringKing), [None]);
        let g = usi::parse_game(declared.trim_end_matches(" moves win")).unwrap();
        assert_eq!(g.endings(rule), [None]);
    }

    #[test]
    fn detects_formats() {
        assert_eq!(detect("position startpos moves 7g7f 3c3d"), Some(Format::Usi));
        assert_eq!(detect("startpos\nsfen 4k4/9/9/9/9/9/9/9/4K4 b G 1\n"), Some(Format::Sfen));
        assert_eq!(detect("4k4/9/9/9/9/9/9/9/4K4 b G 1"), Some(Format::Sfen));
        assert_eq!(detect("V2.2\nPI\n+\n+7776FU\n"), Some(Format::Csa));
        assert_eq!(detect("手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n"), Some(Format::Kif));
        assert_eq!(detect("手合割：平手\n▲７六歩    △３四歩\n"), Some(Format::Ki2));
        assert_eq!(detect("hello world"), None);
        assert_eq!(detect("{\"header\":{},\"moves\":[{}]}"), Some(Format::Jkf));
        assert_eq!(detect("\n {\"header\":{},\"moves\":[{}"), Some(Format::Jkf), "broken JSON: its error is shown");
        assert_eq!(detect("{\"positions\":[]}"), None);
    }
}
