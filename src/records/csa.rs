//! CSA game records (standard V2.2 and the floodgate server's files).
//!
//! A record is a series of statements, one per line or separated by commas: version (`V2.2`),
//! players (`N+`, `N-`), attributes (`$EVENT:`), the start position (`PI` with optional
//! removed pieces, or rows `P1`..`P9`, plus `P+`/`P-` additions), the side to move (`+`/`-`),
//! then moves (`+7776FU`, piece after the move), times (`T12`) and an ending (`%TORYO`).
//! Lines starting with `'` are comments; the score of an evaluation comment (`'** <score> <pv>`,
//! as floodgate and cshogi write them) is kept for the next move (`Game::scores`). Only the
//! first game of a file is read (games are separated by `/`).

use super::Game;
use crate::shogi::{Color, Move, Piece, PieceType, Position, Setup, Square};
use std::fmt;

/// Why a CSA record could not be read; `line` counts from 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsaError {
    pub line: usize,
    pub kind: CsaErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CsaErrorKind {
    BadPiece(String),
    BadSquare(String),
    BadRow(String),
    BadStartPosition(String),
    MissingSideToMove,
    /// A move marked for the side that is not to move.
    WrongSide(String),
    BadMove(String),
    IllegalMove(String),
    Unknown(String),
}

impl fmt::Display for CsaError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "line {}: ", self.line)?;
        match &self.kind {
            CsaErrorKind::BadPiece(s) => write!(f, "unknown piece '{s}'"),
            CsaErrorKind::BadSquare(s) => write!(f, "bad square in '{s}'"),
            CsaErrorKind::BadRow(s) => write!(f, "bad board row '{s}'"),
            CsaErrorKind::BadStartPosition(s) => write!(f, "{s}"),
            CsaErrorKind::MissingSideToMove => write!(f, "moves before the side to move ('+' or '-')"),
            CsaErrorKind::WrongSide(s) => write!(f, "'{s}' is played by the side not to move"),
            CsaErrorKind::BadMove(s) => write!(f, "cannot read move '{s}'"),
            CsaErrorKind::IllegalMove(s) => write!(f, "illegal move '{s}'"),
            CsaErrorKind::Unknown(s) => write!(f, "unknown statement '{s}'"),
        }
    }
}

impl std::error::Error for CsaError {}

/// Whether a line is typical of CSA (used to detect the format).
pub fn looks_like_csa(line: &str) -> bool {
    let b = line.as_bytes();
    line.starts_with("V2")
        || line.starts_with("V3")
        || line.starts_with("PI")
        || line.starts_with("P1")
        || line.starts_with("N+")
        || line.starts_with("N-")
        || line.starts_with("$EVENT")
        || line.starts_with("$START_TIME")
        || (b.len() >= 7
            && (b[0] == b'+' || b[0] == b'-')
            && b[1..5].iter().all(u8::is_ascii_digit)
            && piece(&line[5..7]).is_some())
}

/// A CSA piece code (`FU`, `RY`, ...); JKF uses the same codes.
pub(super) fn piece(code: &str) -> Option<PieceType> {
    Some(match code {
        "FU" => PieceType::Pawn,
        "KY" => PieceType::Lance,
        "KE" => PieceType::Knight,
        "GI" => PieceType::Silver,
        "KI" => PieceType::Gold,
        "KA" => PieceType::Bishop,
        "HI" => PieceType::Rook,
        "OU" => PieceType::King,
        "TO" => PieceType::ProPawn,
        "NY" => PieceType::ProLance,
        "NK" => PieceType::ProKnight,
        "NG" => PieceType::ProSilver,
        "UM" => PieceType::Horse,
        "RY" => PieceType::Dragon,
        _ => return None,
    })
}

fn color(c: u8) -> Option<Color> {
    match c {
        b'+' => Some(Color::Black),
        b'-' => Some(Color::White),
        _ => None,
    }
}

/// `77` -> 7g; `00` -> None (the hand). Errors on anything else.
fn square(s: &str) -> Result<Option<Square>, ()> {
    let b = s.as_bytes();
    if b.len() != 2 || !b.iter().all(u8::is_ascii_digit) {
        return Err(());
    }
    match (b[0] - b'0', b[1] - b'0') {
        (0, 0) => Ok(None),
        (f @ 1..=9, r @ 1..=9) => Ok(Some(Square::from_file_rank(f - 1, r - 1))),
        _ => Err(()),
    }
}

struct Parser {
    setup: Setup,
    /// The side to move once the `+` or `-` line came.
    side: Option<Color>,
    /// Whether a position statement (`PI`, `P1`..`P9`, `P+`) was seen.
    has_position: bool,
    pos: Option<Position>,
    game: Option<Game>,
    black: Option<String>,
    white: Option<String>,
    ended: bool,
    /// The score of the last `'**` comment, for the next move.
    pending_score: Option<i32>,
}

impl Parser {
    fn statement(&mut self, s: &str, line: usize) -> Result<bool, CsaError> {
        let err = |kind| CsaError { line, kind };
        let b = s.as_bytes();
        if s == "/" {
            return Ok(false); // the next game of a multi-game file
        }
        if self.ended {
            return Ok(true);
        }
        if let Some(name) = s.strip_prefix("N+") {
            self.black = Some(name.to_string());
        } else if let Some(name) = s.strip_prefix("N-") {
            self.white = Some(name.to_string());
        } else if s.starts_with('V') || s.starts_with('$') || s.starts_with('T') {
            // Version, attributes and times carry nothing the analysis needs.
        } else if let Some(rest) = s.strip_prefix("PI") {
            self.has_position = true;
            self.setup = Position::startpos().to_setup();
            for chunk in rest.as_bytes().chunks(4) {
                let item = std::str::from_utf8(chunk).unwrap_or("");
                let sq = square(item.get(..2).unwrap_or(""))
                    .ok()
                    .flatten()
                    .ok_or_else(|| err(CsaErrorKind::BadSquare(s.to_string())))?;
                let pt = piece(item.get(2..).unwrap_or("")).ok_or_else(|| err(CsaErrorKind::BadPiece(item.into())))?;
                let cell = self.setup.piece_on(sq);
                if cell.is_empty() || cell.kind() != pt {
                    return Err(err(CsaErrorKind::BadStartPosition(format!("'{s}': no {item} to remove"))));
                }
                self.setup.put(sq, Piece::EMPTY);
            }
        } else if b.len() >= 2 && b[0] == b'P' && (b'1'..=b'9').contains(&b[1]) {
            self.has_position = true;
            self.row(s, (b[1] - b'1') as usize).map_err(|_| err(CsaErrorKind::BadRow(s.to_string())))?;
        } else if b.len() >= 2 && b[0] == b'P' && (b[1] == b'+' || b[1] == b'-') {
            self.has_position = true;
            let c = color(b[1]).unwrap_or(Color::Black);
            self.add_pieces(c, &s[2..]).map_err(err)?;
        } else if s == "+" || s == "-" {
            self.side = color(b[0]);
            self.start(line)?;
        } else if b[0] == b'+' || b[0] == b'-' {
            self.play(s, line)?;
        } else if let Some(word) = s.strip_prefix('%') {
            if let Some(g) = self.game.as_mut() {
                g.result = Some(format!("%{word}"));
                // The side to move declares (CSA protocol: `%KACHI` is sent on one's turn).
                g.declaration = word == "KACHI";
            }
            self.ended = true;
        } else {
            return Err(err(CsaErrorKind::Unknown(s.to_string())));
        }
        Ok(true)
    }

    /// `P1-KY-KE-GI-KI-OU-KI-GI-KE-KY`: cells of 3 characters from file 9 to file 1.
    fn row(&mut self, s: &str, rank: usize) -> Result<(), ()> {
        let cells = s.get(2..).ok_or(())?;
        // Trailing spaces are often trimmed from the last ` * `.
        let padded = format!("{cells:<27}");
        if padded.len() != 27 || !padded.is_ascii() {
            return Err(());
        }
        for i in 0..9 {
            let cell = &padded[i * 3..i * 3 + 3];
            let content = if cell.trim() == "*" {
                Piece::EMPTY
            } else {
                Piece::new(color(cell.as_bytes()[0]).ok_or(())?, piece(&cell[1..]).ok_or(())?)
            };
            self.setup.put(Square::from_file_rank(8 - i as u8, rank as u8), content);
        }
        Ok(())
    }

    /// `P+00KI00FU` or `P-51OU`; `00AL` puts every piece not yet placed into the hand.
    fn add_pieces(&mut self, c: Color, items: &str) -> Result<(), CsaErrorKind> {
        if !items.is_ascii() || !items.len().is_multiple_of(4) {
            return Err(CsaErrorKind::BadRow(items.to_string()));
        }
        for i in (0..items.len()).step_by(4) {
            let item = &items[i..i + 4];
            let sq = square(&item[..2]).map_err(|_| CsaErrorKind::BadSquare(item.to_string()))?;
            if &item[2..] == "AL" {
                self.setup.give_rest_to(c);
                continue;
            }
            let pt = piece(&item[2..]).ok_or_else(|| CsaErrorKind::BadPiece(item.to_string()))?;
            match sq {
                Some(sq) => self.setup.put(sq, Piece::new(c, pt)),
                None if !pt.is_promoted() && pt != PieceType::King => self.setup.hands[c.index()][pt.index()] += 1,
                None => return Err(CsaErrorKind::BadPiece(item.to_string())),
            }
        }
        Ok(())
    }

    fn start(&mut self, line: usize) -> Result<(), CsaError> {
        if self.game.is_some() {
            return Err(CsaError { line, kind: CsaErrorKind::Unknown("a second side-to-move line".into()) });
        }
        if !self.has_position {
            // No position statements: the standard start position.
            self.setup = Position::startpos().to_setup();
        }
        self.setup.side = self.side.unwrap_or(Color::Black);
        let start = Position::from_setup(&self.setup).map_err(|e| CsaError {
            line,
            kind: CsaErrorKind::BadStartPosition(format!("bad start position ({}): {e}", self.setup.to_sfen())),
        })?;
        let mut g = Game::new(start.clone());
        g.black = self.black.take();
        g.white = self.white.take();
        self.game = Some(g);
        self.pos = Some(start);
        Ok(())
    }

    /// `+7776FU`: side, origin (`00` for a drop), destination, piece after the move.
    fn play(&mut self, s: &str, line: usize) -> Result<(), CsaError> {
        let err = |kind| CsaError { line, kind };
        let (Some(pos), Some(game)) = (self.pos.as_mut(), self.game.as_mut()) else {
            return Err(err(CsaErrorKind::MissingSideToMove));
        };
        let b = s.as_bytes();
        if b.len() != 7 || !s.is_ascii() {
            return Err(err(CsaErrorKind::BadMove(s.to_string())));
        }
        let side = color(b[0]).ok_or_else(|| err(CsaErrorKind::BadMove(s.to_string())))?;
        if side != pos.side_to_move() {
            return Err(err(CsaErrorKind::WrongSide(s.to_string())));
        }
        let bad = || err(CsaErrorKind::BadMove(s.to_string()));
        let from = square(&s[1..3]).map_err(|_| bad())?;
        let to = square(&s[3..5]).map_err(|_| bad())?.ok_or_else(bad)?;
        let pt = piece(&s[5..7]).ok_or_else(|| err(CsaErrorKind::BadPiece(s[5..7].to_string())))?;
        let illegal = || err(CsaErrorKind::IllegalMove(s.to_string()));
        let mv = match from {
            None => {
                if pt.is_promoted() || pt == PieceType::King {
                    return Err(illegal());
                }
                Move::drop(pt, to)
            }
            Some(from) => {
                let on = pos.piece_on(from);
                if on.is_empty() || on.color() != side || from == to {
                    return Err(illegal());
                }
                let promote = if on.kind() == pt {
                    false
                } else if on.kind().can_promote() && on.kind().promote() == pt {
                    true
                } else {
                    return Err(illegal());
                };
                Move::normal(from, to, promote)
            }
        };
        if !pos.is_legal(mv) {
            return Err(illegal());
        }
        pos.do_move(mv);
        game.moves.push(mv);
        game.scores.push(self.pending_score.take());
        Ok(())
    }
}

/// Reads the first game of a CSA record.
pub fn parse(text: &str) -> Result<Game, CsaError> {
    let lines: Vec<&str> = text.lines().collect();
    match parse_at(&lines, 0)?.0 {
        Some(g) => Ok(g),
        None => Err(CsaError { line: lines.len().max(1), kind: CsaErrorKind::MissingSideToMove }),
    }
}

/// Reads every game of a multi-game CSA record (games separated by `/` lines), in order, up
/// to and including the first one that fails. Lines are numbered from the top of `text`.
pub fn parse_all(text: &str) -> Vec<Result<Game, CsaError>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut games = Vec::new();
    let mut from = 0;
    while from < lines.len() {
        match parse_at(&lines, from) {
            Ok((Some(g), next)) => {
                games.push(Ok(g));
                from = next;
            }
            Ok((None, next)) if !has_statement(&lines[from..next]) => from = next,
            Ok((None, next)) => {
                games.push(Err(CsaError { line: next, kind: CsaErrorKind::MissingSideToMove }));
                break;
            }
            Err(e) => {
                games.push(Err(e));
                break;
            }
        }
    }
    games
}

/// Whether `lines` hold anything but blanks, comments and game separators.
fn has_statement(lines: &[&str]) -> bool {
    lines.iter().map(|l| l.trim()).any(|t| !t.is_empty() && !t.starts_with('\'') && t != "/")
}

/// Reads the game that starts at `lines[from]`: the game, if its side to move was given, and
/// the index of the line after its `/` separator (or the end).
fn parse_at(lines: &[&str], from: usize) -> Result<(Option<Game>, usize), CsaError> {
    let mut p = Parser {
        setup: Setup::default(),
        side: None,
        has_position: false,
        pos: None,
        game: None,
        black: None,
        white: None,
        ended: false,
        pending_score: None,
    };
    let mut i = from;
    'lines: while i < lines.len() {
        let line = i + 1;
        i += 1;
        let t = lines[line - 1].trim_end_matches(['\r', '\n']);
        if let Some(comment) = t.strip_prefix("'**") {
            p.pending_score = comment.split_whitespace().next().and_then(|w| w.parse().ok());
            continue;
        }
        if t.trim().is_empty() || t.starts_with('\'') {
            continue;
        }
        // Board rows keep their spaces; other statements may share a line, comma-separated.
        if t.starts_with('P') && t.as_bytes().get(1).is_some_and(u8::is_ascii_digit) {
            p.statement(t, line)?;
            continue;
        }
        for s in t.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if !p.statement(s, line)? {
                break 'lines;
            }
        }
    }
    Ok((p.game, i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usi(g: &Game) -> Vec<String> {
        g.moves.iter().map(|m| m.to_string()).collect()
    }

    #[test]
    fn reads_floodgate_style_records() {
        let text = "\
'Version 2.2? no: floodgate writes V2
V2
N+alpha
N-beta
$EVENT:wdoor+floodgate-300-10F+alpha+beta+20240302100003
$START_TIME:2024/03/02 10:00:03
'Max_Moves:256
P1-KY-KE-GI-KI-OU-KI-GI-KE-KY
P2 * -HI *  *  *  *  * -KA * 
P3-FU-FU-FU-FU-FU-FU-FU-FU-FU
P4 *  *  *  *  *  *  *  *  * 
P5 *  *  *  *  *  *  *  *  * 
P6 *  *  *  *  *  *  *  *  * 
P7+FU+FU+FU+FU+FU+FU+FU+FU+FU
P8 * +KA *  *  *  *  * +HI * 
P9+KY+KE+GI+KI+OU+KI+GI+KE+KY
P+
P-
+
+7776FU
T3
'** 50 -3334FU
-3334FU,T2
+8822UM
T1
-3122GI
T0
+0045KA
T5
%TORYO
'$END_TIME:2024/03/02 10:01:00
";
        let g = parse(text).unwrap();
        assert_eq!(usi(&g), ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"]);
        assert_eq!(g.black.as_deref(), Some("alpha"));
        assert_eq!(g.result.as_deref(), Some("%TORYO"));
        assert_eq!(g.start.to_sfen(), crate::shogi::STARTPOS);
    }

    #[test]
    fn multi_game_records() {
        let text = "V2\nPI\n+\n+7776FU\n%TORYO\n/\n'comment only\n/\nPI\n-\n-3334FU\n/\n";
        let games: Vec<Game> = parse_all(text).into_iter().map(Result::unwrap).collect();
        assert_eq!(games.len(), 2);
        assert_eq!((usi(&games[0]), games[0].result.as_deref()), (vec!["7g7f".to_string()], Some("%TORYO")));
        assert_eq!((usi(&games[1]), games[1].result.as_deref()), (vec!["3c3d".to_string()], None));
        // The first game alone, as before.
        assert_eq!(usi(&parse(text).unwrap()), ["7g7f"]);
        // Errors carry the line number in the whole text, and end the list.
        let got = parse_all("PI\n+\n+7776FU\n/\nPI\n+\n+7775FU\n/\nPI\n+\n");
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].as_ref().unwrap_err().line, 7);
        // A game with statements but no side to move is an error too.
        let got = parse_all("PI\n+\n/\nN+someone\n");
        assert_eq!(got[1].as_ref().unwrap_err().kind, CsaErrorKind::MissingSideToMove);
    }

    #[test]
    fn handicap_and_piece_lists() {
        let g = parse("PI82HI22KA\n-\n-5142OU\n").unwrap();
        assert_eq!(g.start.to_sfen(), "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
        assert_eq!(usi(&g), ["5a4b"]);
        let g = parse("P-51OU\nP+19OU53GI00KI\nP-00AL\n+\n+0052KI\n%TSUMI\n").unwrap();
        assert_eq!(g.start.to_sfen(), "4k4/9/4S4/9/9/9/9/9/8K b G2r2b3g3s4n4l18p 1");
        assert_eq!(usi(&g), ["G*5b"]);
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse("PI\n+\n+7776FU\n+3334FU\n").unwrap_err();
        assert_eq!((e.line, e.kind.clone()), (4, CsaErrorKind::WrongSide("+3334FU".into())));
        let e = parse("PI\n+\n+7775FU\n").unwrap_err();
        assert_eq!(e.kind, CsaErrorKind::IllegalMove("+7775FU".into()));
        let e = parse("PI\n+\n+7776XX\n").unwrap_err();
        assert_eq!(e.kind, CsaErrorKind::BadPiece("XX".into()));
        let e = parse("PI\n+7776FU\n").unwrap_err();
        assert_eq!(e.kind, CsaErrorKind::MissingSideToMove);
        let e = parse("PI\n+\nhello\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(parse("T99999999999999999999999\nPI\n+\n").is_ok());
    }
}
