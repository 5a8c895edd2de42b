//! KIF and KI2 game records, as Kifu for Windows, ShogiGUI and ShogiHome write them.
//!
//! Both share the header (`key：value` lines), the handicap names of `手合割` and the board
//! diagram used for other start positions. KIF then numbers its moves and gives each move's
//! origin (`   1 ７六歩(77)   ( 0:01/00:00:01)`); KI2 writes moves in JSA notation
//! (`▲７六歩    △３四歩`), so their origins come from the relative words. Only the main line
//! is read: variations (`変化：`) come after it and are skipped.

use super::Game;
use super::notation::{self, NotationError, piece_from_char};
use crate::shogi::{Color, Piece, PieceType, Position, Setup, Square};
use std::fmt;

/// Why a KIF or KI2 record could not be read; `line` counts from 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KifError {
    pub line: usize,
    pub kind: KifErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KifErrorKind {
    UnknownHandicap(String),
    BadDiagramRow(String),
    BadHand(String),
    BadStartPosition(String),
    BadMoveNumber { expected: u32, found: u32 },
    WrongSide(String),
    BadMove { text: String, why: NotationError },
    UnexpectedLine(String),
}

impl fmt::Display for KifError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "line {}: ", self.line)?;
        match &self.kind {
            KifErrorKind::UnknownHandicap(h) => write!(f, "unknown handicap '{h}'"),
            KifErrorKind::BadDiagramRow(r) => write!(f, "bad board diagram row '{r}'"),
            KifErrorKind::BadHand(h) => write!(f, "bad pieces in hand '{h}'"),
            KifErrorKind::BadStartPosition(why) => write!(f, "{why}"),
            KifErrorKind::BadMoveNumber { expected, found } => {
                write!(f, "move number {found} where {expected} was expected")
            }
            KifErrorKind::WrongSide(t) => write!(f, "'{t}' is marked for the side not to move"),
            KifErrorKind::BadMove { text, why } => write!(f, "move '{text}': {why}"),
            KifErrorKind::UnexpectedLine(l) => write!(f, "unexpected line '{l}'"),
        }
    }
}

impl std::error::Error for KifError {}

/// Words that end the move list of a KIF record instead of a move.
const END_WORDS: [&str; 15] = [
    "投了",
    "中断",
    "千日手",
    "持将棋",
    "詰み",
    "不詰",
    "切れ負け",
    "時間切れ",
    "反則勝ち",
    "反則負け",
    "入玉勝ち",
    "不戦勝",
    "不戦敗",
    "封じ手",
    "宣言勝ち",
];

const MARKS: [char; 6] = ['▲', '△', '☗', '☖', '▼', '▽'];

fn mark_color(c: char) -> Option<Color> {
    match c {
        '▲' | '☗' | '▼' => Some(Color::Black),
        '△' | '☖' | '▽' => Some(Color::White),
        _ => None,
    }
}

/// Start positions of the handicap names (the handicap giver, White, moves first). "Left"
/// is the giver's left, files 1-3: 香落ち drops the lance on 1a, 左五枚落ち the knight on 2a
/// and 左七枚落ち the silver on 3a; 五枚落ち drops the knight on 8a (as Kifu for JS,
/// json-kifu-format and the other record tools have it).
pub(super) fn handicap_sfen(name: &str) -> Option<String> {
    let (rank1, rank2) = match name {
        "平手" => return Some(crate::shogi::STARTPOS.to_string()),
        "香落ち" => ("lnsgkgsn1", "1r5b1"),
        "右香落ち" => ("1nsgkgsnl", "1r5b1"),
        "角落ち" => ("lnsgkgsnl", "1r7"),
        "飛車落ち" => ("lnsgkgsnl", "7b1"),
        "飛香落ち" => ("lnsgkgsn1", "7b1"),
        "二枚落ち" => ("lnsgkgsnl", "9"),
        "三枚落ち" => ("lnsgkgsn1", "9"),
        "四枚落ち" => ("1nsgkgsn1", "9"),
        "五枚落ち" => ("2sgkgsn1", "9"),
        "左五枚落ち" => ("1nsgkgs2", "9"),
        "六枚落ち" => ("2sgkgs2", "9"),
        "左七枚落ち" => ("2sgkg3", "9"),
        "右七枚落ち" => ("3gkgs2", "9"),
        "八枚落ち" => ("3gkg3", "9"),
        "十枚落ち" => ("4k4", "9"),
        _ => return None,
    };
    Some(format!("{rank1}/{rank2}/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"))
}

/// `   1 ７六歩(77)   ( 0:01/00:00:01)` and `  12 投了`.
pub fn is_kif_move_line(line: &str) -> bool {
    kif_move_parts(line).is_some()
}

/// Splits a KIF move line into its number and the move text.
fn kif_move_parts(line: &str) -> Option<(u32, &str)> {
    let t = line.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 6 {
        return None;
    }
    let rest = &t[digits..];
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let text = rest.trim_start_matches([' ', '\t']);
    let first = text.chars().next()?;
    let is_move = matches!(first, '１'..='９' | '1'..='9' | '同');
    if !is_move && !END_WORDS.iter().any(|w| text.starts_with(w)) {
        return None;
    }
    Some((t[..digits].parse().ok()?, text))
}

/// `▲７六歩    △３四歩`.
pub fn is_ki2_move_line(line: &str) -> bool {
    let mut chars = line.trim_start().chars();
    chars.next().is_some_and(|c| MARKS.contains(&c))
        && chars.next().is_some_and(|c| matches!(c, '１'..='９' | '1'..='9' | '同'))
}

/// Count of pieces in hand: `` (one), `二`, `十`, `十八`.
fn kanji_count(s: &str) -> Option<u32> {
    const DIGITS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
    let d = |c: char| DIGITS.iter().position(|&k| k == c).map(|i| i as u32 + 1);
    let chars: Vec<char> = s.chars().collect();
    match chars[..] {
        [] => Some(1),
        ['十'] => Some(10),
        ['十', u] => d(u).map(|u| 10 + u),
        [u] => d(u),
        _ => s.parse().ok(),
    }
}

/// A hand line's content.
#[derive(Clone, Copy)]
enum HandLine {
    Pieces([u32; 8]),
    /// Every piece of the set not on the board or in the other hand: the defender's hand in
    /// tsume collections (`残りの駒全部`).
    RestOfSet,
}

/// How tsume collections write "all the remaining pieces" (Kifu for Windows' words first).
const REST_OF_SET: [&str; 6] = ["残りの駒全部", "残り駒全部", "残駒全部", "残り全部", "残りすべて", "残り全て"];

/// `角　歩二`, `なし` or `残りの駒全部`.
fn parse_hand_line(value: &str) -> Option<HandLine> {
    if REST_OF_SET.contains(&value) {
        return Some(HandLine::RestOfSet);
    }
    parse_hand(value).map(HandLine::Pieces)
}

/// `角　歩二` or `なし`.
fn parse_hand(value: &str) -> Option<[u32; 8]> {
    let mut hand = [0u32; 8];
    for item in value.split([' ', '\u{3000}']).filter(|s| !s.is_empty()) {
        if item == "なし" {
            continue;
        }
        let mut chars = item.chars();
        let pt = chars.next().and_then(piece_from_char)?;
        if pt.is_promoted() || pt == PieceType::King {
            return None;
        }
        hand[pt.index()] += kanji_count(chars.as_str())?;
    }
    Some(hand)
}

/// `|v香v桂v銀v金v玉v金v銀v桂v香|一`: nine cells from file 9 to file 1.
fn parse_diagram_row(line: &str) -> Option<[Option<(Color, PieceType)>; 9]> {
    let inner = line.strip_prefix('|')?;
    let inner = &inner[..inner.find('|')?];
    let chars: Vec<char> = inner.chars().collect();
    if chars.len() != 18 {
        return None;
    }
    let mut row = [None; 9];
    for (i, cell) in chars.chunks(2).enumerate() {
        let color = match cell[0] {
            ' ' | '\u{3000}' | '^' => Color::Black,
            'v' | 'V' => Color::White,
            _ => return None,
        };
        // Cells run from file 9 (index 8) down to file 1 (index 0).
        row[8 - i] = match cell[1] {
            '・' => None,
            c => Some((color, piece_from_char(c)?)),
        };
    }
    Some(row)
}

#[derive(Default)]
struct Header {
    handicap: Option<(usize, String)>,
    rows: Vec<[Option<(Color, PieceType)>; 9]>,
    rows_line: usize,
    hands: [Option<HandLine>; 2],
    side: Option<Color>,
    black: Option<String>,
    white: Option<String>,
}

impl Header {
    /// Reads a header line; false if it is none.
    fn read(&mut self, t: &str, line: usize) -> Result<bool, KifError> {
        let err = |kind| KifError { line, kind };
        if t.starts_with('|') {
            let row = parse_diagram_row(t).ok_or_else(|| err(KifErrorKind::BadDiagramRow(t.to_string())))?;
            if self.rows.len() == 9 {
                return Err(err(KifErrorKind::BadDiagramRow(t.to_string())));
            }
            self.rows.push(row);
            self.rows_line = line;
            return Ok(true);
        }
        // Diagram frame and file numbers.
        if t.starts_with("+---") || t.starts_with('９') || t.starts_with("手数----") {
            return Ok(true);
        }
        match t {
            "先手番" | "下手番" => {
                self.side = Some(Color::Black);
                return Ok(true);
            }
            "後手番" | "上手番" => {
                self.side = Some(Color::White);
                return Ok(true);
            }
            _ => {}
        }
        let Some((key, value)) = t.split_once('：').or_else(|| t.split_once(':')) else {
            return Ok(false);
        };
        let value = value.trim_matches([' ', '\u{3000}']);
        match key {
            "手合割" => self.handicap = Some((line, value.to_string())),
            "先手" | "下手" => self.black = Some(value.to_string()),
            "後手" | "上手" => self.white = Some(value.to_string()),
            "先手の持駒" | "下手の持駒" | "後手の持駒" | "上手の持駒" => {
                let hand = parse_hand_line(value).ok_or_else(|| err(KifErrorKind::BadHand(value.to_string())))?;
                let c = if key.starts_with('先') || key.starts_with('下') { Color::Black } else { Color::White };
                self.hands[c.index()] = Some(hand);
            }
            _ => {} // dates, event, comments on the game: not needed here
        }
        Ok(true)
    }

    fn start(&self) -> Result<Position, KifError> {
        if !self.rows.is_empty() {
            let bad = |why| KifError { line: self.rows_line, kind: KifErrorKind::BadStartPosition(why) };
            if self.rows.len() != 9 {
                return Err(bad(format!("board diagram has {} rows, not 9", self.rows.len())));
            }
            let mut setup = Setup { side: self.side.unwrap_or(Color::Black), ..Setup::default() };
            for (rank, row) in self.rows.iter().enumerate() {
                for (file, cell) in row.iter().enumerate() {
                    if let Some((c, pt)) = *cell {
                        setup.put(Square::from_file_rank(file as u8, rank as u8), Piece::new(c, pt));
                    }
                }
            }
            for c in Color::ALL {
                if let Some(HandLine::Pieces(hand)) = self.hands[c.index()] {
                    setup.hands[c.index()] = hand;
                }
            }
            // The rest of the set once the board and the other hand are known.
            match self.hands.map(|h| matches!(h, Some(HandLine::RestOfSet))) {
                [true, true] => return Err(bad("both hands hold the rest of the pieces".to_string())),
                [true, false] => setup.give_rest_to(Color::Black),
                [false, true] => setup.give_rest_to(Color::White),
                [false, false] => {}
            }
            return Position::from_setup(&setup)
                .map_err(|e| bad(format!("bad start position ({}): {e}", setup.to_sfen())));
        }
        match &self.handicap {
            None => Ok(Position::startpos()),
            Some((line, name)) => {
                let sfen = handicap_sfen(name)
                    .ok_or_else(|| KifError { line: *line, kind: KifErrorKind::UnknownHandicap(name.clone()) })?;
                Position::from_sfen(&sfen).map_err(|e| KifError {
                    line: *line,
                    kind: KifErrorKind::BadStartPosition(format!("handicap '{name}': {e}")),
                })
            }
        }
    }
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Style {
    Kif,
    Ki2,
}

/// Reads a KIF record.
pub fn parse_kif(text: &str) -> Result<Game, KifError> {
    parse_record(text, Style::Kif)
}

/// Reads a KI2 record.
pub fn parse_ki2(text: &str) -> Result<Game, KifError> {
    parse_record(text, Style::Ki2)
}

fn parse_record(text: &str, style: Style) -> Result<Game, KifError> {
    let mut header = Header::default();
    let mut game: Option<Game> = None;
    let mut pos: Option<Position> = None;
    let mut last_number: Option<u32> = None;
    let mut ended = false;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let err = |kind| KifError { line, kind };
        let t = raw.trim_matches([' ', '\t', '\r', '\u{3000}', '\u{feff}']);
        if t.is_empty() || t.starts_with(['#', '*', '&']) {
            continue;
        }
        if t.starts_with("変化") {
            break; // variations follow the main line
        }
        if let Some(rest) = t.strip_prefix("まで") {
            if let Some(g) = game.as_mut().filter(|g| g.result.is_none()) {
                g.result = Some(format!("まで{rest}"));
            }
            ended = true;
            continue;
        }
        let is_move = match style {
            Style::Kif => is_kif_move_line(t),
            Style::Ki2 => is_ki2_move_line(t),
        };
        if !is_move {
            if game.is_none() && header.read(t, line)? {
                continue;
            }
            // Lines after the moves (or unknown ones before them) that carry no move.
            if game.is_none() || ended {
                continue;
            }
            return Err(err(KifErrorKind::UnexpectedLine(t.to_string())));
        }
        if ended {
            continue;
        }
        if game.is_none() {
            let start = header.start()?;
            let mut g = Game::new(start.clone());
            g.black = header.black.clone().filter(|s| !s.is_empty());
            g.white = header.white.clone().filter(|s| !s.is_empty());
            game = Some(g);
            pos = Some(start);
        }
        let (Some(g), Some(p)) = (game.as_mut(), pos.as_mut()) else { continue };
        match style {
            Style::Kif => {
                let Some((number, mtext)) = kif_move_parts(t) else { continue };
                if let Some(prev) = last_number
                    && number != prev + 1
                {
                    return Err(err(KifErrorKind::BadMoveNumber { expected: prev + 1, found: number }));
                }
                last_number = Some(number);
                if let Some(w) = END_WORDS.iter().find(|w| mtext.starts_with(**w)) {
                    g.result = Some(w.to_string());
                    // Written in the declaring side's turn, like a move.
                    g.declaration = matches!(*w, "入玉勝ち" | "宣言勝ち");
                    ended = true;
                    continue;
                }
                let shown = mtext.split([' ', '\t']).next().unwrap_or(mtext);
                let bad = |why| err(KifErrorKind::BadMove { text: shown.to_string(), why });
                let (jm, _) = notation::parse_ja(mtext).map_err(bad)?;
                let mv = notation::resolve(p, &jm, shown).map_err(bad)?;
                p.do_move(mv);
                g.moves.push(mv);
            }
            Style::Ki2 => {
                // Split at the marks: `▲７六歩    △３四歩`, `▲同　銀`.
                let mut starts: Vec<usize> =
                    t.char_indices().filter(|(_, c)| MARKS.contains(c)).map(|(i, _)| i).collect();
                starts.push(t.len());
                for w in starts.windows(2) {
                    let token = t[w[0]..w[1]].trim_end_matches([' ', '\t', '\u{3000}']);
                    let mark = token.chars().next().and_then(mark_color);
                    if mark.is_some_and(|c| c != p.side_to_move()) {
                        return Err(err(KifErrorKind::WrongSide(token.to_string())));
                    }
                    let mv = notation::parse_move(p, token)
                        .map_err(|why| err(KifErrorKind::BadMove { text: token.to_string(), why }))?;
                    p.do_move(mv);
                    g.moves.push(mv);
                }
            }
        }
    }
    match game {
        Some(g) => Ok(g),
        None => {
            // A record without moves: just its start position.
            let mut g = Game::new(header.start()?);
            g.black = header.black.filter(|s| !s.is_empty());
            g.white = header.white.filter(|s| !s.is_empty());
            Ok(g)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usi(g: &Game) -> Vec<String> {
        g.moves.iter().map(|m| m.to_string()).collect()
    }

    const KIF: &str = "\
# ---- Kifu for Windows V7 V7.70 棋譜ファイル ----
開始日時：2024/03/02 10:00:00
手合割：平手　　
先手：先手太郎
後手：後手花子
手数----指手---------消費時間--
   1 ７六歩(77)   ( 0:03/00:00:03)
   2 ３四歩(33)   ( 0:02/00:00:02)
*コメント
   3 ２二角成(88)   ( 0:05/00:00:08)
   4 同　銀(31)   ( 0:01/00:00:03)
   5 ４五角打   ( 0:04/00:00:12)+
   6 中断   ( 0:10/00:00:13)
まで5手で中断

変化：5手
   5 ６八銀(79)   ( 0:00/00:00:08)
";

    #[test]
    fn reads_a_kif_game() {
        let g = parse_kif(KIF).unwrap();
        assert_eq!(usi(&g), ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"]);
        assert_eq!(g.black.as_deref(), Some("先手太郎"));
        assert_eq!(g.white.as_deref(), Some("後手花子"));
        assert_eq!(g.result.as_deref(), Some("中断"));
    }

    #[test]
    fn reads_the_same_game_as_ki2() {
        let ki2 =
            "手合割：平手\n先手：A\n後手：B\n\n▲７六歩    △３四歩    ▲２二角成  △同　銀\n▲４五角\nまで5手で中断\n";
        let g = parse_ki2(ki2).unwrap();
        assert_eq!(usi(&g), ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e"]);
        assert_eq!(g.result.as_deref(), Some("まで5手で中断"));
    }

    #[test]
    fn handicap_and_diagram_starts() {
        // The left five-piece handicap keeps the knight on 8a; the plain one the one on 2a.
        let g = parse_kif("手合割：左五枚落ち\n").unwrap();
        assert_eq!(g.start.to_sfen(), "1nsgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
        let g = parse_kif("手合割：五枚落ち\n").unwrap();
        assert_eq!(g.start.to_sfen(), "2sgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
        let g = parse_kif("手合割：香落ち\n手数----指手--\n   1 ３四歩(33)\n").unwrap();
        assert_eq!(g.start.to_sfen(), "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
        assert_eq!(usi(&g), ["3c3d"]);
        let diagram = "\
後手の持駒：飛二　角　金三　銀三　桂四　香四　歩十八　
  ９ ８ ７ ６ ５ ４ ３ ２ １
+---------------------------+
| ・ ・ ・ ・v玉 ・ ・ ・ ・|一
| ・ ・ ・ ・ ・ ・ ・ ・ ・|二
| ・ ・ ・ ・ 銀 ・ ・ ・ ・|三
| ・ ・ ・ ・ ・ ・ ・ ・ ・|四
| ・ ・ ・ ・ ・ ・ ・ ・ ・|五
| ・ ・ ・ ・ ・ ・ ・ ・ ・|六
| ・ ・ ・ ・ ・ ・ ・ ・ ・|七
| ・ ・ ・ ・ ・ ・ ・ ・ ・|八
| ・ ・ ・ ・ ・ ・ ・ ・ 玉|九
+---------------------------+
先手の持駒：金　
先手番
手数----指手---------消費時間--
   1 ５二金打   ( 0:00/00:00:00)
   2 詰み
";
        let g = parse_kif(diagram).unwrap();
        assert_eq!(g.start.to_sfen(), "4k4/9/4S4/9/9/9/9/9/8K b G2rb3g3s4n4l18p 1");
        assert_eq!(usi(&g), ["G*5b"]);
        assert_eq!(g.result.as_deref(), Some("詰み"));
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse_kif("手合割：平手\n   1 ７六歩(77)\n   2 ３五歩(33)\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(matches!(e.kind, KifErrorKind::BadMove { .. }), "{e}");
        let e = parse_kif("   1 ７六歩(77)\n   3 ３四歩(33)\n").unwrap_err();
        assert_eq!(e.kind, KifErrorKind::BadMoveNumber { expected: 2, found: 3 });
        let e = parse_kif("手合割：九十九枚落ち\n   1 ３四歩(33)\n").unwrap_err();
        assert_eq!(e.line, 1);
        let e = parse_ki2("▲７六歩 ▲３四歩\n").unwrap_err();
        assert!(matches!(e.kind, KifErrorKind::WrongSide(_)), "{e}");
        let e = parse_kif("| ・ ・|一\n").unwrap_err();
        assert!(matches!(e.kind, KifErrorKind::BadDiagramRow(_)));
    }
}
