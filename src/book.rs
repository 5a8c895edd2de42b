//! Opening books in YaneuraOu's text format (`#YANEURAOU-DB2016 1.00`): a header line, then
//! for each position a `sfen <board> <side> <hands> <ply>` line followed by its moves, one per
//! line: `move ponder value depth count` (`ponder` may be `none`; `value` in centipawns from
//! the side to move's view; `count` how often the move was played or chosen). Lines starting
//! with `#` (after the header) are comments.
//!
//! A file that cannot be read as such a book is refused whole (`BookError`, with the line);
//! a move that is illegal in its position, or a ponder move illegal after it, is left out and
//! counted, so that a book move can never be illegal.

use crate::shogi::{Move, Position, parse_move_syntax};
use std::collections::HashMap;
use std::fmt;

/// The first line of a book file.
pub const HEADER: &str = "#YANEURAOU-DB2016 1.00";

/// One move of a book position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    pub mv: Move,
    pub ponder: Option<Move>,
    pub value: i32,
    pub depth: i32,
    pub count: u64,
}

/// A position's moves, and the ply its `sfen` line gave.
#[derive(Clone, Debug)]
struct Entry {
    ply: u32,
    moves: Vec<BookMove>,
}

#[derive(Clone, Debug, Default)]
pub struct Book {
    /// By position key (board, hands, side to move); several entries for one key differ in ply.
    positions: HashMap<u64, Vec<Entry>>,
    /// Book moves left out because they were illegal in their position.
    pub illegal_moves: usize,
}

/// Why a book file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookError {
    /// 1-based; 0 for the file as a whole.
    pub line: usize,
    pub what: String,
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.line == 0 { write!(f, "{}", self.what) } else { write!(f, "line {}: {}", self.line, self.what) }
    }
}

impl std::error::Error for BookError {}

/// How book moves are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookPolicy {
    /// Positions whose move number is above this are not looked up.
    pub last_ply: u32,
    /// Only moves whose value is within this of the best move's (centipawns).
    pub eval_diff: i32,
    /// Match a position whatever the ply of its `sfen` line.
    pub ignore_ply: bool,
}

impl Book {
    /// Reads a whole book file.
    pub fn load(path: &str) -> Result<Book, BookError> {
        let bytes = std::fs::read(path).map_err(|e| BookError { line: 0, what: format!("cannot read: {e}") })?;
        let text = std::str::from_utf8(&bytes).map_err(|_| BookError { line: 0, what: "not UTF-8 text".into() })?;
        Book::parse(text)
    }

    pub fn parse(text: &str) -> Result<Book, BookError> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
        match lines.next() {
            Some((_, l)) if l.trim_start_matches('\u{feff}') == HEADER => {}
            _ => return Err(BookError { line: 1, what: format!("not a book: the first line must be '{HEADER}'") }),
        }
        let mut book = Book::default();
        // The position of the latest `sfen` line, its key and its entry's index.
        let mut current: Option<(Position, u64, usize)> = None;
        for (n, line) in lines {
            let err = |what: String| BookError { line: n, what };
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(sfen) = line.strip_prefix("sfen ") {
                let pos = Position::from_sfen(sfen).map_err(|e| err(format!("bad SFEN: {e}")))?;
                let key = pos.key();
                let entries = book.positions.entry(key).or_default();
                let ply = pos.game_ply();
                let index = match entries.iter().position(|e| e.ply == ply) {
                    Some(i) => i,
                    None => {
                        entries.push(Entry { ply, moves: Vec::new() });
                        entries.len() - 1
                    }
                };
                current = Some((pos, key, index));
                continue;
            }
            let Some((pos, key, index)) = &mut current else {
                return Err(err("a move before any 'sfen' line".into()));
            };
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() < 2 {
                return Err(err(format!("a move line needs 'move ponder [value depth count]': '{line}'")));
            }
            let number = |i: usize| -> Result<i64, BookError> {
                fields.get(i).map_or(Ok(0), |t| t.parse().map_err(|_| err(format!("bad number '{t}'"))))
            };
            let (value, depth, count) = (number(2)?, number(3)?, number(4)?);
            let mv = parse_move_syntax(fields[0]).map_err(|e| err(e.to_string()))?;
            let ponder = match fields[1] {
                "none" | "None" => None,
                p => Some(parse_move_syntax(p).map_err(|e| err(e.to_string()))?),
            };
            if !pos.is_legal(mv) {
                book.illegal_moves += 1;
                continue;
            }
            pos.do_move(mv);
            let ponder = ponder.filter(|&p| pos.is_legal(p));
            pos.undo_move(mv);
            let entry = &mut book.positions.get_mut(key).expect("entry made at its sfen line")[*index];
            entry.moves.push(BookMove {
                mv,
                ponder,
                value: value.clamp(-1_000_000, 1_000_000) as i32,
                depth: depth.clamp(0, 1_000_000) as i32,
                count: count.max(0) as u64,
            });
        }
        Ok(book)
    }

    /// Number of positions with at least one move.
    pub fn len(&self) -> usize {
        self.positions.values().flatten().filter(|e| !e.moves.is_empty()).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The book moves of `pos` (those of every ply when `ignore_ply`).
    pub fn moves(&self, pos: &Position, ignore_ply: bool) -> Vec<BookMove> {
        let Some(entries) = self.positions.get(&pos.key()) else { return Vec::new() };
        let mut out: Vec<BookMove> = Vec::new();
        for e in entries.iter().filter(|e| ignore_ply || e.ply == pos.game_ply()) {
            for m in &e.moves {
                // Checked when read; checked again, since only the key matched.
                if pos.is_legal(m.mv) && !out.iter().any(|o| o.mv == m.mv) {
                    out.push(*m);
                }
            }
        }
        out
    }

    /// The moves that `policy` lets the engine play in `pos`: within `eval_diff` of the best
    /// value, best first.
    pub fn candidates(&self, pos: &Position, policy: &BookPolicy) -> Vec<BookMove> {
        if pos.game_ply() > policy.last_ply {
            return Vec::new();
        }
        let mut moves = self.moves(pos, policy.ignore_ply);
        let Some(best) = moves.iter().map(|m| m.value).max() else { return moves };
        moves.retain(|m| m.value >= best.saturating_sub(policy.eval_diff.max(0)));
        moves.sort_by_key(|m| std::cmp::Reverse((m.value, m.count)));
        moves
    }

    /// A move to play in `pos`, if the book has one: among the candidates, chosen at random
    /// in proportion to their counts (evenly when no count is given). `random` is a number
    /// drawn uniformly from all `u64`s.
    pub fn choose(&self, pos: &Position, policy: &BookPolicy, random: u64) -> Option<(BookMove, usize)> {
        let candidates = self.candidates(pos, policy);
        let total: u64 = candidates.iter().map(|m| m.count.max(1)).sum();
        if total == 0 {
            return None;
        }
        let mut pick = random % total;
        for m in &candidates {
            let w = m.count.max(1);
            if pick < w {
                return Some((*m, candidates.len()));
            }
            pick -= w;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

    fn policy() -> BookPolicy {
        BookPolicy { last_ply: 16, eval_diff: 30, ignore_ply: false }
    }

    #[test]
    fn reads_positions_and_moves() {
        let text = format!(
            "{HEADER}\n# a comment\nsfen {START}\n7g7f 3c3d 20 32 10\n2g2f 8c8d 0 30 5\n5i5h none -200 10 1\n\
             sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2\n3c3d 2g2f 0 20 3\n"
        );
        let book = Book::parse(&text).unwrap();
        assert_eq!(book.len(), 2);
        let start = Position::startpos();
        let c = book.candidates(&start, &policy());
        let names: Vec<String> = c.iter().map(|m| m.mv.to_string()).collect();
        assert_eq!(names, ["7g7f", "2g2f"], "5h is 220 below the best");
        assert_eq!(c[0].ponder.map(|p| p.to_string()).as_deref(), Some("3c3d"));
        assert_eq!((c[0].value, c[0].depth, c[0].count), (20, 32, 10));
        // Choices follow the counts: 10 of 15 draws give 7g7f.
        let picks: Vec<String> = (0..15).map(|r| book.choose(&start, &policy(), r).unwrap().0.mv.to_string()).collect();
        assert_eq!(picks.iter().filter(|m| *m == "7g7f").count(), 10);
        // Beyond BookMoves, nothing.
        let late = BookPolicy { last_ply: 0, ..policy() };
        assert!(book.candidates(&start, &late).is_empty());
    }

    #[test]
    fn the_ply_counts_unless_ignored() {
        let text = format!("{HEADER}\nsfen {}\n7g7f none 0 1 1\n", START.replace(" 1", " 9"));
        let book = Book::parse(&text).unwrap();
        let start = Position::startpos();
        assert!(book.candidates(&start, &policy()).is_empty());
        let any_ply = BookPolicy { ignore_ply: true, ..policy() };
        assert_eq!(book.candidates(&start, &any_ply).len(), 1);
    }

    #[test]
    fn illegal_moves_are_left_out_and_bad_files_refused() {
        let text = format!("{HEADER}\nsfen {START}\n7g7f 3c3d 0 0 1\n7g7e none 0 0 1\n2g2f 2g2f 0 0 1\n");
        let book = Book::parse(&text).unwrap();
        assert_eq!(book.illegal_moves, 1);
        let c = book.candidates(&Position::startpos(), &policy());
        assert_eq!(c.len(), 2);
        assert_eq!(c.iter().find(|m| m.mv.to_string() == "2g2f").unwrap().ponder, None, "illegal ponder dropped");
        for (text, line) in [
            ("hello\n".to_string(), 1),
            (format!("{HEADER}\n7g7f none 0 0 1\n"), 2),
            (format!("{HEADER}\nsfen nonsense\n"), 2),
            (format!("{HEADER}\nsfen {START}\n7g7f none x 0 1\n"), 3),
            (format!("{HEADER}\nsfen {START}\n7g\n"), 3),
            (format!("{HEADER}\nsfen {START}\nK*5e none 0 0 1\n"), 3),
        ] {
            assert_eq!(Book::parse(&text).map(|_| ()).unwrap_err().line, line, "{text}");
        }
    }
}
