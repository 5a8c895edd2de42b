//! USI texts: a `position` command (or a bare SFEN, or `startpos`), optionally with
//! `moves ...`. One such line with moves is a game; a file of such lines, one position per
//! line, is a list of positions (each line's moves are played first). Empty lines and lines
//! starting with `#` are skipped. A move list may end with `resign`, `win` (the side to move
//! declares a win by entering king) or `draw`, as GUIs write finished games (tsshogi's
//! `getUSI({resign: true})`): the word is the game's result, and nothing may follow it.

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
    /// A token after the word that ended the moves.
    AfterEnding {
        word: String,
        next: String,
    },
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
            UsiInputErrorKind::AfterEnding { word, next } => write!(f, "'{next}' after '{word}', which ends the moves"),
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

/// Words that end a move list instead of a move.
pub const END_WORDS: [&str; 3] = ["resign", "win", "draw"];

/// A line as a game: its start position, its moves and the word that ended them, if any.
fn parse_line(text: &str, line: usize) -> Result<Game, UsiInputError> {
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
    let mut game = Game::new(start);
    for (i, m) in moves.iter().enumerate() {
        if let Some(word) = END_WORDS.iter().find(|w| *w == m) {
            if let Some(next) = moves.get(i + 1) {
                return Err(err(UsiInputErrorKind::AfterEnding { word: word.to_string(), next: next.to_string() }));
            }
            game.result = Some(word.to_string());
            game.declaration = *word == "win";
            break;
        }
        let mv = pos
            .parse_usi_move(m)
            .map_err(|e| err(UsiInputErrorKind::BadMove { index: i + 1, mv: m.to_string(), why: e.to_string() }))?;
        pos.do_move(mv);
        game.moves.push(mv);
    }
    Ok(game)
}

fn significant(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
}

/// One game line: its start position, moves and ending.
pub fn parse_game(text: &str) -> Result<Game, UsiInputError> {
    let lines: Vec<(usize, &str)> = significant(text).collect();
    match lines[..] {
        [(line, l)] => parse_line(l, line),
        [] => Err(UsiInputError { line: 1, kind: UsiInputErrorKind::Empty }),
        _ => Err(UsiInputError { line: lines[1].0, kind: UsiInputErrorKind::NotOneLine(lines.len()) }),
    }
}

/// One position per line, as the game that leads to it: the position is the one after the
/// line's moves, which are its history (so that repetitions count like in a game), and a
/// `win` at the end says that its side to move declared.
pub fn parse_list(text: &str) -> Result<Vec<Game>, UsiInputError> {
    let out: Vec<Game> = significant(text).map(|(line, l)| parse_line(l, line)).collect::<Result<_, _>>()?;
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
        assert_eq!(
            list[1].final_position().to_sfen(),
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
        );
    }

    #[test]
    fn move_lists_may_end_with_a_result_word() {
        let g = parse_game("position startpos moves 7g7f 3c3d resign\n").unwrap();
        assert_eq!((g.moves.len(), g.result.as_deref(), g.declaration), (2, Some("resign"), false));
        let g = parse_game("position startpos moves resign").unwrap();
        assert_eq!((g.moves.len(), g.result.as_deref()), (0, Some("resign")));
        let g = parse_game("startpos moves 7g7f draw").unwrap();
        assert_eq!(g.result.as_deref(), Some("draw"));
        let g = parse_game("sfen 4k4/9/9/9/9/9/9/9/4K4 b - 1 moves 5i5h win").unwrap();
        assert_eq!((g.result.as_deref(), g.declaration), (Some("win"), true));
        let e = parse_game("position startpos moves 7g7f resign 3c3d").unwrap_err();
        assert_eq!(e.kind, UsiInputErrorKind::AfterEnding { word: "resign".into(), next: "3c3d".into() });
        assert_eq!(e.to_string(), "line 1: '3c3d' after 'resign', which ends the moves");
        assert!(parse_game("position startpos moves win win").is_err());
        // Lists take them at the end of a line too.
        let list = parse_list("startpos moves 7g7f resign\nstartpos moves 7g7f 3c3d win\n").unwrap();
        assert_eq!(
            list[0].final_position().to_sfen(),
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
        );
        assert!(!list[0].declaration && list[1].declaration);
        assert!(parse_list("startpos moves resign 7g7f\n").is_err());
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
