//! JKF, the JSON kifu format of Kifu for JS (json-kifu-format), which ShogiHome's record
//! library tsshogi also reads and writes.
//!
//! A record is an object `{"header": {...}, "initial": {...}, "moves": [...]}`. `header` holds
//! KIF's header keys (`先手`, `後手`, `下手`, `上手` name the players). `initial` is absent or
//! null for an even game, else a `preset` (the KIF handicaps: `HIRATE`, `KY`, `KY_R`, `KA`,
//! `HI`, `HIKY`, `2`, `3`, `4`, `5`, `5_L`, `6`, `7_L`, `7_R`, `8`, `10`) or `OTHER` with
//! `data`: `color` to move (0 Black, 1 White), `board` with `board[x-1][y-1]` the square of
//! file x and rank y (`{}` when empty, else `{"color", "kind"}` with CSA piece codes), and
//! `hands`, Black's and White's `{kind: count}`. `moves[0]` holds the comments on the start
//! position; each later entry a `move` (`color`, `from` (none for a drop), `to`, `piece` (the
//! kind before moving), `promote`, `capture`, `same`, `relative`), or a `special` that ends the
//! game (`TORYO`, `SENNICHITE`, `KACHI`, ... as in CSA), with `comments`, `time` and `forks`
//! (variations, skipped like KIF's). Errors name the entry of `moves`, which is the move
//! number.

use super::Game;
use super::csa::piece as piece_code;
use super::notation::{self, JaMove, Relative};
use crate::shogi::{Color, Hand, Move, Piece, PieceType, Position, Setup, Square};
use serde_json::{Map, Value};
use std::fmt;

/// Why a JKF record could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JkfError {
    pub at: JkfPlace,
    pub kind: JkfErrorKind,
}

/// Where in the record the fault is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum JkfPlace {
    Record,
    Initial,
    /// `moves[i]`: move number `i`.
    Move(usize),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JkfErrorKind {
    /// Not JSON at all (serde_json's message, with line and column).
    Json(String),
    /// A field missing or of the wrong type: what was expected.
    Shape(String),
    UnknownPreset(String),
    BadPiece(String),
    BadSquare(String),
    BadStartPosition(String),
    /// The move is marked for the side that is not to move.
    WrongSide(String),
    /// The move (as written) and why it cannot be played.
    IllegalMove {
        mv: String,
        why: String,
    },
}

impl fmt::Display for JkfError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.at {
            JkfPlace::Record => write!(f, "JKF: ")?,
            JkfPlace::Initial => write!(f, "JKF initial position: ")?,
            JkfPlace::Move(i) => write!(f, "JKF move {i}: ")?,
        }
        match &self.kind {
            JkfErrorKind::Json(e) => write!(f, "bad JSON: {e}"),
            JkfErrorKind::Shape(s) => write!(f, "{s}"),
            JkfErrorKind::UnknownPreset(p) => write!(f, "unknown preset '{p}'"),
            JkfErrorKind::BadPiece(p) => write!(f, "bad piece {p}"),
            JkfErrorKind::BadSquare(s) => write!(f, "bad square {s}"),
            JkfErrorKind::BadStartPosition(why) => write!(f, "{why}"),
            JkfErrorKind::WrongSide(m) => write!(f, "{m} is marked for the side not to move"),
            JkfErrorKind::IllegalMove { mv, why } => write!(f, "illegal move {mv}: {why}"),
        }
    }
}

impl std::error::Error for JkfError {}

/// Whether `text` is meant as JKF: a JSON object with `header`, `moves` or `initial`, or text
/// that opens with `{` but is no valid JSON (no other format starts so; reading it as JKF
/// reports where the JSON breaks).
pub fn looks_like_jkf(text: &str) -> bool {
    if !text.trim_start().starts_with('{') {
        return false;
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(o)) => ["header", "moves", "initial"].iter().any(|k| o.contains_key(*k)),
        Ok(_) => false,
        Err(_) => true,
    }
}

/// The JKF presets as KIF handicap names (`kif::handicap_sfen` knows their positions).
const PRESETS: [(&str, &str); 16] = [
    ("HIRATE", "平手"),
    ("KY", "香落ち"),
    ("KY_R", "右香落ち"),
    ("KA", "角落ち"),
    ("HI", "飛車落ち"),
    ("HIKY", "飛香落ち"),
    ("2", "二枚落ち"),
    ("3", "三枚落ち"),
    ("4", "四枚落ち"),
    ("5", "五枚落ち"),
    ("5_L", "左五枚落ち"),
    ("6", "六枚落ち"),
    ("7_L", "左七枚落ち"),
    ("7_R", "右七枚落ち"),
    ("8", "八枚落ち"),
    ("10", "十枚落ち"),
];

/// Moves and other values are quoted in errors as JSON, cut to this many characters.
const QUOTE_CHARS: usize = 160;

fn quote(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(QUOTE_CHARS) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

fn shape(at: JkfPlace, what: impl Into<String>) -> JkfError {
    JkfError { at, kind: JkfErrorKind::Shape(what.into()) }
}

/// A field that may be absent or null.
fn field<'a>(o: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    o.get(key).filter(|v| !v.is_null())
}

fn color(v: &Value) -> Option<Color> {
    match v.as_u64()? {
        0 => Some(Color::Black),
        1 => Some(Color::White),
        _ => None,
    }
}

fn kind(v: &Value, at: JkfPlace) -> Result<PieceType, JkfError> {
    v.as_str().and_then(piece_code).ok_or_else(|| JkfError { at, kind: JkfErrorKind::BadPiece(quote(v)) })
}

/// `{"x": 7, "y": 6}`: file 7, rank 6 (7f).
fn square(v: &Value, at: JkfPlace) -> Result<Square, JkfError> {
    let bad = || JkfError { at, kind: JkfErrorKind::BadSquare(quote(v)) };
    let coord = |k: &str| v.get(k).and_then(Value::as_u64).filter(|n| (1..=9).contains(n)).map(|n| n as u8 - 1);
    match (coord("x"), coord("y")) {
        (Some(file), Some(rank)) => Ok(Square::from_file_rank(file, rank)),
        _ => Err(bad()),
    }
}

fn start_position(initial: Option<&Value>) -> Result<Position, JkfError> {
    let at = JkfPlace::Initial;
    let Some(initial) = initial else { return Ok(Position::startpos()) };
    let initial = initial.as_object().ok_or_else(|| shape(at, "'initial' is not an object"))?;
    let preset = field(initial, "preset").ok_or_else(|| shape(at, "no 'preset'"))?;
    let preset = preset.as_str().ok_or_else(|| shape(at, format!("preset {} is not a string", quote(preset))))?;
    if preset == "OTHER" {
        let data = field(initial, "data").ok_or_else(|| shape(at, "preset OTHER without 'data'"))?;
        return custom_position(data);
    }
    // Like Kifu for JS and tsshogi, a named preset's `data` (if any) is not looked at.
    let sfen = PRESETS
        .iter()
        .find(|(p, _)| *p == preset)
        .and_then(|(_, name)| super::kif::handicap_sfen(name))
        .ok_or_else(|| JkfError { at, kind: JkfErrorKind::UnknownPreset(preset.to_string()) })?;
    Position::from_sfen(&sfen).map_err(|e| JkfError { at, kind: JkfErrorKind::BadStartPosition(e.to_string()) })
}

/// `initial.data`: side to move, board, hands.
fn custom_position(data: &Value) -> Result<Position, JkfError> {
    let at = JkfPlace::Initial;
    let data = data.as_object().ok_or_else(|| shape(at, "'data' is not an object"))?;
    let side = field(data, "color").ok_or_else(|| shape(at, "no 'color' to move"))?;
    let side = color(side).ok_or_else(|| shape(at, format!("color {} is neither 0 nor 1", quote(side))))?;
    let mut setup = Setup { side, ..Setup::default() };
    match field(data, "board") {
        // An empty object stands for an empty board.
        None => {}
        Some(Value::Object(o)) if o.is_empty() => {}
        Some(Value::Array(files)) => {
            if files.len() != 9 {
                return Err(shape(at, format!("the board has {} files, not 9", files.len())));
            }
            for (x, file) in files.iter().enumerate() {
                let file = file
                    .as_array()
                    .filter(|f| f.len() == 9)
                    .ok_or_else(|| shape(at, format!("board[{x}] is not an array of 9 squares: {}", quote(file))))?;
                for (y, cell) in file.iter().enumerate() {
                    let sq = Square::from_file_rank(x as u8, y as u8);
                    if let Some(pc) = board_piece(cell, sq)? {
                        setup.put(sq, pc);
                    }
                }
            }
        }
        Some(other) => return Err(shape(at, format!("board {} is not an array of files", quote(other)))),
    }
    match field(data, "hands") {
        None => {}
        Some(Value::Array(hands)) if hands.len() == 2 => {
            for (c, hand) in Color::ALL.into_iter().zip(hands) {
                read_hand(hand, &mut setup.hands[c.index()])?;
            }
        }
        Some(other) => return Err(shape(at, format!("hands {} is not an array of two hands", quote(other)))),
    }
    Position::from_setup(&setup).map_err(|e| JkfError {
        at,
        kind: JkfErrorKind::BadStartPosition(format!("bad start position ({}): {e}", setup.to_sfen())),
    })
}

/// A board cell: `{}` (or null kind) when empty, else `{"color": 0|1, "kind": "FU"}`.
fn board_piece(cell: &Value, sq: Square) -> Result<Option<Piece>, JkfError> {
    let at = JkfPlace::Initial;
    let o = cell.as_object().ok_or_else(|| shape(at, format!("square {sq}: {} is not an object", quote(cell))))?;
    let Some(k) = field(o, "kind") else { return Ok(None) };
    let pt = kind(k, at)?;
    let c = field(o, "color")
        .and_then(color)
        .ok_or_else(|| shape(at, format!("square {sq}: {} has no colour 0 or 1", quote(cell))))?;
    Ok(Some(Piece::new(c, pt)))
}

/// `{"FU": 2, "KI": 1}`: counts per kind; kings and promoted kinds only with 0.
fn read_hand(hand: &Value, counts: &mut [u32; 8]) -> Result<(), JkfError> {
    let at = JkfPlace::Initial;
    let hand = hand.as_object().ok_or_else(|| shape(at, format!("hand {} is not an object", quote(hand))))?;
    for (k, v) in hand {
        let pt =
            piece_code(k).ok_or_else(|| JkfError { at, kind: JkfErrorKind::BadPiece(format!("'{k}' in hand")) })?;
        let n = v.as_u64().ok_or_else(|| shape(at, format!("hand count {k}: {} is not a count", quote(v))))?;
        if n == 0 {
            continue;
        }
        if pt.is_promoted() || pt == PieceType::King {
            return Err(JkfError { at, kind: JkfErrorKind::BadPiece(format!("'{k}' in hand")) });
        }
        // Bounded here so that the totals of the validation cannot overflow.
        if n > Hand::capacity(pt) as u64 {
            return Err(JkfError { at, kind: JkfErrorKind::BadStartPosition(format!("{n} pieces '{k}' in hand")) });
        }
        counts[pt.index()] = n as u32;
    }
    Ok(())
}

/// JKF's relative letters as KI2's words (`H`, a drop, is handled apart).
fn relative(c: char) -> Option<Relative> {
    Some(match c {
        'L' => Relative::Left,
        'C' => Relative::Straight,
        'R' => Relative::Right,
        'U' => Relative::Up,
        'M' => Relative::Sideways,
        'D' => Relative::Back,
        _ => return None,
    })
}

/// The move of a `move` entry in `pos`.
fn read_move(pos: &Position, v: &Value, at: JkfPlace) -> Result<Move, JkfError> {
    let o = v.as_object().ok_or_else(|| shape(at, format!("move {} is not an object", quote(v))))?;
    let illegal = |why: &str| JkfError { at, kind: JkfErrorKind::IllegalMove { mv: quote(v), why: why.to_string() } };
    let side = pos.side_to_move();
    if let Some(c) = field(o, "color") {
        match color(c) {
            Some(c) if c == side => {}
            Some(_) => return Err(JkfError { at, kind: JkfErrorKind::WrongSide(quote(v)) }),
            None => return Err(shape(at, format!("move color {} is neither 0 nor 1", quote(c)))),
        }
    }
    let pt = kind(field(o, "piece").ok_or_else(|| shape(at, format!("move {} has no 'piece'", quote(v))))?, at)?;
    let to = match field(o, "to") {
        Some(to) => square(to, at)?,
        None if field(o, "same").and_then(Value::as_bool) == Some(true) => {
            pos.last_move().map(|m| m.to()).ok_or_else(|| illegal("'same' with no previous move"))?
        }
        None => return Err(shape(at, format!("move {} has no 'to'", quote(v)))),
    };
    let promote = match field(o, "promote") {
        None => None,
        Some(p) => Some(p.as_bool().ok_or_else(|| shape(at, format!("promote {} is not true or false", quote(p))))?),
    };
    let rel = match field(o, "relative") {
        None => "",
        Some(r) => r.as_str().ok_or_else(|| shape(at, format!("relative {} is not a string", quote(r))))?,
    };
    let mv = match field(o, "from") {
        Some(from) => {
            let from = square(from, at)?;
            let on = pos.piece_on(from);
            if on.is_empty() || on.color() != side {
                return Err(illegal("no piece of the side to move on its 'from' square"));
            }
            if on.kind() != pt {
                return Err(illegal(&format!("the piece on 'from' is {}", notation::piece_ja(on.kind()))));
            }
            Move::normal(from, to, promote == Some(true))
        }
        // Without `from` a move is a drop (normalized JKF, which tools write), unless its
        // relative letters place a piece on the board (as KI2 converters write it).
        None if rel.is_empty() || rel.contains('H') => {
            if pt.is_promoted() || pt == PieceType::King || promote == Some(true) {
                return Err(illegal("only unpromoted pieces other than the king are dropped"));
            }
            Move::drop(pt, to)
        }
        None => {
            let relatives = rel
                .chars()
                .map(relative)
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| shape(at, format!("relative '{rel}' is not made of the letters L C R U M D H")))?;
            let ja = JaMove { to: Some(to), piece: pt, promote, drop: false, relatives, from: None };
            let m = notation::resolve(pos, &ja, &quote(v)).map_err(|e| illegal(&e.to_string()))?;
            if m.is_drop() {
                return Err(illegal("no piece on the board fits its 'relative'"));
            }
            m
        }
    };
    if let Some(why) = pos.illegal_reason(mv) {
        return Err(illegal(why));
    }
    // `capture` repeats what stands on the square; a record where it does not is damaged.
    if let Some(c) = field(o, "capture") {
        let captured = kind(c, at)?;
        let there = pos.piece_on(to);
        if there.is_empty() || there.kind().unpromote() != captured.unpromote() {
            return Err(illegal("'capture' does not match the piece on the square"));
        }
    }
    Ok(mv)
}

/// Reads a JKF record's main line.
pub fn parse(text: &str) -> Result<Game, JkfError> {
    let at = JkfPlace::Record;
    let root: Value =
        serde_json::from_str(text).map_err(|e| JkfError { at, kind: JkfErrorKind::Json(e.to_string()) })?;
    let root = root.as_object().ok_or_else(|| shape(at, "the record is not a JSON object"))?;
    let start = start_position(field(root, "initial"))?;
    let mut game = Game::new(start.clone());
    match field(root, "header") {
        None => {}
        Some(Value::Object(header)) => {
            let name = |keys: [&str; 2]| {
                keys.iter().find_map(|k| header.get(*k)?.as_str()).map(str::trim).filter(|s| !s.is_empty())
            };
            game.black = name(["先手", "下手"]).map(String::from);
            game.white = name(["後手", "上手"]).map(String::from);
        }
        Some(other) => return Err(shape(at, format!("header {} is not an object", quote(other)))),
    }
    let moves = field(root, "moves").ok_or_else(|| shape(at, "no 'moves'"))?;
    let moves = moves.as_array().ok_or_else(|| shape(at, "'moves' is not an array"))?;
    let mut pos = start;
    for (i, entry) in moves.iter().enumerate() {
        let at = JkfPlace::Move(i);
        let entry = entry.as_object().ok_or_else(|| shape(at, format!("{} is not an object", quote(entry))))?;
        // Comments, times and forks (variations) carry nothing the analysis needs.
        if let Some(mv) = field(entry, "move") {
            let m = read_move(&pos, mv, at)?;
            pos.do_move(m);
            game.moves.push(m);
        }
        if let Some(special) = field(entry, "special") {
            let word =
                special.as_str().ok_or_else(|| shape(at, format!("special {} is not a string", quote(special))))?;
            game.result = Some(word.to_string());
            // Like CSA's %KACHI: the side to move declares.
            game.declaration = word == "KACHI";
            break;
        }
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usi(g: &Game) -> Vec<String> {
        g.moves.iter().map(|m| m.to_string()).collect()
    }

    fn mv(color: u8, piece: &str, from: Option<(u8, u8)>, to: (u8, u8), extra: &str) -> String {
        let from = from.map_or(String::new(), |(x, y)| format!(r#","from":{{"x":{x},"y":{y}}}"#));
        format!(r#"{{"move":{{"color":{color},"piece":"{piece}","to":{{"x":{},"y":{}}}{from}{extra}}}}}"#, to.0, to.1)
    }

    fn record(initial: &str, moves: &[String]) -> String {
        let entries: Vec<&str> = std::iter::once("{}").chain(moves.iter().map(String::as_str)).collect();
        format!(r#"{{"header":{{"先手":"A","後手":"B"}},{initial}"moves":[{}]}}"#, entries.join(","))
    }

    #[test]
    fn reads_moves_drops_promotions_same_and_specials() {
        let moves = [
            mv(0, "FU", Some((7, 7)), (7, 6), ""),
            mv(1, "FU", Some((3, 3)), (3, 4), ""),
            mv(0, "KA", Some((8, 8)), (2, 2), r#","promote":true,"capture":"KA""#),
            // `same` without `to`: the square of the previous move.
            r#"{"move":{"color":1,"piece":"GI","from":{"x":3,"y":1},"same":true,"capture":"UM"}}"#.to_string(),
            mv(0, "KA", None, (4, 5), ""),
            r#"{"special":"TORYO","comments":["先手の負け"]}"#.to_string(),
            mv(1, "FU", Some((8, 3)), (8, 4), ""),
        ];
        let g = parse(&record("", &moves)).unwrap();
        assert_eq!(usi(&g), ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"]);
        assert_eq!((g.black.as_deref(), g.white.as_deref()), (Some("A"), Some("B")));
        assert_eq!((g.result.as_deref(), g.declaration), (Some("TORYO"), false));
        assert_eq!(g.start.to_sfen(), crate::shogi::STARTPOS);
    }

    #[test]
    fn presets_and_custom_positions() {
        let g = parse(&record(r#""initial":{"preset":"5_L"},"#, &[mv(1, "GI", Some((7, 1)), (6, 2), "")])).unwrap();
        assert_eq!(g.start.to_sfen(), "1nsgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
        assert_eq!(usi(&g), ["7a6b"]);
        for (preset, rank_a, rank_b) in
            [("KY", "lnsgkgsn1", "1r5b1"), ("KY_R", "1nsgkgsnl", "1r5b1"), ("7_R", "3gkgs2", "9")]
        {
            let g = parse(&record(&format!(r#""initial":{{"preset":"{preset}"}},"#), &[])).unwrap();
            assert!(g.start.to_sfen().starts_with(&format!("{rank_a}/{rank_b}/")), "{preset}");
        }
        assert_eq!(
            parse(r#"{"header":{},"initial":null,"moves":[]}"#).unwrap().start.to_sfen(),
            crate::shogi::STARTPOS
        );
        // White king on 1a (board[0][0]), Black king on 9i, a Black tokin on 3c; hands.
        let mut board = vec![vec!["{}".to_string(); 9]; 9];
        board[0][0] = r#"{"color":1,"kind":"OU"}"#.into();
        board[8][8] = r#"{"color":0,"kind":"OU"}"#.into();
        board[2][2] = r#"{"color":0,"kind":"TO"}"#.into();
        let board: Vec<String> = board.iter().map(|f| format!("[{}]", f.join(","))).collect();
        let data = format!(
            r#""initial":{{"preset":"OTHER","data":{{"color":1,"board":[{}],"hands":[{{"KI":1,"TO":0}},{{"FU":2}}]}}}},"#,
            board.join(",")
        );
        let g = parse(&record(&data, &[mv(1, "FU", None, (8, 7), "")])).unwrap();
        assert_eq!(g.start.to_sfen(), "8k/9/6+P2/9/9/9/9/9/K8 w G2p 1");
        assert_eq!(usi(&g), ["P*8g"]);
    }

    #[test]
    fn unnormalized_moves_resolve_their_relative_letters() {
        // Both golds can go to 5h; `relative: "R"` is the right one (4i), seen from Black.
        let g = parse(&record("", &[r#"{"move":{"color":0,"piece":"KI","to":{"x":5,"y":8},"relative":"R"}}"#.into()]))
            .unwrap();
        assert_eq!(usi(&g), ["4i5h"]);
        let e = parse(&record("", &[r#"{"move":{"color":0,"piece":"KI","to":{"x":5,"y":8},"relative":"Q"}}"#.into()]))
            .unwrap_err();
        assert!(matches!(e.kind, JkfErrorKind::Shape(_)), "{e}");
    }

    #[test]
    fn declarations_and_errors() {
        let g = parse(r#"{"header":{},"moves":[{},{"special":"KACHI"}]}"#).unwrap();
        assert!(g.declaration);
        let err = |text: &str| parse(text).unwrap_err();
        let e = err("{\"header\":{},\"moves\":[{},");
        assert!(matches!(e.kind, JkfErrorKind::Json(_)) && e.to_string().starts_with("JKF: bad JSON"), "{e}");
        let e = err(&record("", &[mv(0, "FU", Some((7, 7)), (7, 5), "")]));
        assert_eq!(e.at, JkfPlace::Move(1));
        assert!(e.to_string().starts_with("JKF move 1: illegal move {"), "{e}");
        let e = err(&record("", &[mv(1, "FU", Some((3, 3)), (3, 4), "")]));
        assert!(matches!(e.kind, JkfErrorKind::WrongSide(_)), "{e}");
        let e = err(&record("", &[mv(0, "XX", Some((7, 7)), (7, 6), "")]));
        assert!(matches!(e.kind, JkfErrorKind::BadPiece(_)), "{e}");
        let e = err(&record("", &[mv(0, "FU", Some((7, 7)), (7, 10), "")]));
        assert!(matches!(e.kind, JkfErrorKind::BadSquare(_)), "{e}");
        let e = err(&record("", &[mv(0, "KI", Some((7, 7)), (7, 6), "")]));
        assert!(e.to_string().contains("the piece on 'from' is 歩"), "{e}");
        let e = err(&record("", &[mv(0, "FU", Some((7, 7)), (7, 6), r#","capture":"FU""#)]));
        assert!(e.to_string().contains("'capture'"), "{e}");
        let e = err(&record(r#""initial":{"preset":"9"},"#, &[]));
        assert_eq!((e.at, e.kind), (JkfPlace::Initial, JkfErrorKind::UnknownPreset("9".into())));
        let e = err(
            r#"{"header":{},"initial":{"preset":"OTHER","data":{"color":0,"board":{},"hands":[{},{}]}},"moves":[]}"#,
        );
        assert!(e.to_string().contains("no king"), "{e}");
        let e = err(
            r#"{"header":{},"initial":{"preset":"OTHER","data":{"color":0,"board":{},"hands":[{"FU":99999999999},{}]}},"moves":[]}"#,
        );
        assert!(matches!(e.kind, JkfErrorKind::BadStartPosition(_)), "{e}");
        let e = err(r#"{"header":{},"moves":{}}"#);
        assert!(matches!(e.kind, JkfErrorKind::Shape(_)), "{e}");
        assert!(looks_like_jkf(" {\"moves\": []}") && looks_like_jkf("{ broken") && !looks_like_jkf("{\"a\":1}"));
        assert!(!looks_like_jkf("position startpos"));
    }
}
