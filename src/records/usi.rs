//! USI texts: a `position` command (or a bare SFEN, or `startpos`), optionally with
//! `moves ...`. One such line with moves is a game; a file of such lines, one position per
//! line, is a list of positions (each line's moves are played first). Empty lines and lines
//! starting with `#` are skipped.

use super::Game;
use crate::shogi::Position;
use std::fmt;

/// Why a USI line could not be read; `line` counts from 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsiInputError {
    pub line: usize,
    pub kind: UsiInputErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UsiInputErrorKind {
    BadSfen {
        sfen: String,
        why: String,
    },
    BadMove {
        index: usize,
        mv: String,
        why: String,
    },
    UnexpectedToken(String),
    /// `--format usi` takes exactly one game line.
    NotOneLine(usize),
    Empty,
}

impl fmt::Display for UsiInputError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "line {}: ", self.line)?;
        match &self.kind {
            UsiInputErrorKind::BadSfen { sfen, why } => write!(f, "bad SFEN '{sfen}': {why}"),
            UsiInputErrorKind::BadMove { index, mv, why } => write!(f, "move {index} ('{mv}'): {why}"),
            UsiInputErrorKind::UnexpectedToken(t) => write!(f, "unexpected '{t}'"),
            UsiInputErrorKind::NotOneLine(n) => write!(f, "a USI game is one line, found {n}"),
            UsiInputErrorKind::Empty => write!(f, "no position"),
        }
    }
}

impl std::error::Error for UsiInputError {}

/// Whether a line reads as a position: `position ...`, `startpos ...`, `sfen ...` or a bare SFEN.
pub fn looks_like_position(line: &str) -> bool {
    let mut tokens = line.split_whitespace();
    let first = match tokens.next() {
        Some("position") => tokens.next(),
        other => other,
    };
    match first {
        Some("startpos") | Some("sfen") => true,
        Some(board) => board.split('/').count() == 9 && tokens.next().is_some_and(|s| s == "b" || s == "w"),
        None => false,
    }
}

/// A line's start position and its moves.
fn parse_line(text: &str, line: usize) -> Result<(Position, Vec<crate::shogi::Move>), UsiInputError> {
    let err = |kind| UsiInputError { line, kind };
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let mut rest: &[&str] = &tokens;
    if rest.first() == Some(&"position") {
        rest = &rest[1..];
    }
    let moves_at = rest.iter().position(|&t| t == "moves").unwrap_or(rest.len());
    let (spec, moves) = (&rest[..moves_at], rest.get(moves_at + 1..).unwrap_or(&[]));
    let start = match spec {
        [] => return Err(err(UsiInputErrorKind::Empty)),
        ["startpos"] => Position::startpos(),
        ["startpos", extra, ..] => return Err(err(UsiInputErrorKind::UnexpectedToken(extra.to_string()))),
        ["sfen", fields @ ..] | fields => {
            let sfen = fields.join(" ");
            Position::from_sfen(&sfen).map_err(|e| err(UsiInputErrorKind::BadSfen { sfen, why: e.to_string() }))?
        }
    };
    let mut pos = start.clone();
    let mut played = Vec::with_capacity(moves.len());
    for (i, m) in moves.iter().enumerate() {
        let mv = pos
            .parse_usi_move(m)
            .map_err(|e| err(UsiInputErrorKind::BadMove { index: i + 1, mv: m.to_string(), why: e.to_string() }))?;
        pos.do_move(mv);
        played.push(mv);
    }
    Ok((start, played))
}

fn significant(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
}

/// One game line: its start position and moves.
pub fn parse_game(text: &str) -> Result<Game, UsiInputError> {
    let lines: Vec<(usize, &str)> = significant(text).collect();
    match lines[..] {
        [(line, l)] => {
            let (start, moves) = parse_line(l, line)?;
            let mut g = Game::new(start);
            g.moves = moves;
            Ok(g)
        }
        [] => Err(UsiInputError { line: 1, kind: UsiInputErrorKind::Empty }),
        _ => Err(UsiInputError { line: lines[1].0, kind: UsiInputErrorKind::NotOneLine(lines.len()) }),
    }
}

/// One position per line, each after its line's moves (keeping them as history, so that
/// repetitions count like in a game).
pub fn parse_list(text: &str) -> Result<Vec<Position>, UsiInputError> {
    let mut out = Vec::new();
    for (line, l) in significant(text) {
        let (mut pos, moves) = parse_line(l, line)?;
        for m in moves {
            pos.do_move(m);
        }
        out.push(pos);
    }
    if out.is_empty() {
        return Err(UsiInputError { line: 1, kind: UsiInputErrorKind::Empty });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_games_and_lists() {
        let g = parse_game("position startpos moves 7g7f 3c3d\n").unwrap();
        assert_eq!(g.moves.len(), 2);
        let g = parse_game("sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1 moves G*5b").unwrap();
        assert_eq!(g.moves[0].to_string(), "G*5b");
        let g = parse_game("4k4/9/4P4/9/9/9/9/9/4K4 b G moves G*5b").unwrap();
        assert_eq!(g.start.to_sfen(), "4k4/9/4P4/9/9/9/9/9/4K4 b G 1");
        let list =
            parse_list("# mate in one\n4k4/9/4P4/9/9/9/9/9/4K4 b G 1\n\nposition startpos moves 7g7f\n").unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[1].to_sfen(), "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2");
    }

    #[test]
    fn errors_name_line_and_move() {
        let Err(e) = parse_list("startpos\nposition startpos moves 7g7f 3c3d 7f7e 3d3e 5i5j\n") else { panic!() };
        assert_eq!(e.line, 2);
        assert!(matches!(e.kind, UsiInputErrorKind::BadMove { index: 5, .. }), "{e}");
        let Err(e) = parse_list("sfen 9/9 b - 1") else { panic!() };
        assert!(matches!(e.kind, UsiInputErrorKind::BadSfen { .. }));
        let e = parse_game("startpos moves 7g7f\nstartpos\n").unwrap_err();
        assert_eq!(e.kind, UsiInputErrorKind::NotOneLine(2));
        assert!(!looks_like_position("hello"));
        assert!(looks_like_position("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"));
    }
}
