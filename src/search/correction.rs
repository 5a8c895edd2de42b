//! Correction history: what the search learned about the static evaluation's errors in
//! positions that share a structure. After a node's search, the difference between its result
//! and its static evaluation is filed under the node's pawn structure, under each side's king
//! and guards (king, golds and silvers: the castle), under both hands, and under the move that
//! led to the node; later static evaluations of positions that share these are shifted by what
//! was filed. A linear evaluation misjudges whole families of positions (a castle shape, a
//! pawn structure, a hand) the same way; the search corrects it within the game.

use super::params::{CORRECTION_GRAIN, CORRECTION_LIMIT, CORRECTION_MAX_BONUS, corr_cont, correction_pct};
use crate::eval::Value;
use crate::shogi::{Color, PieceType, Position};
use std::sync::atomic::{AtomicI16, Ordering};

const SIZE: usize = 16384;

/// A structure hashed to a table index.
#[inline]
fn index(a: u128, b: u128) -> usize {
    let mix = |x: u128| {
        let lo = x as u64;
        let hi = (x >> 64) as u64;
        (lo ^ hi.wrapping_mul(0x9e37_79b9_7f4a_7c15)).wrapping_mul(0xbf58_476d_1ce4_e5b9)
    };
    let h = mix(a) ^ mix(b).rotate_left(29).wrapping_mul(0x94d0_49bb_1331_11eb);
    (h >> 50) as usize % SIZE
}

/// Tables per side to move.
const KINDS: usize = 7;

/// The moves that led to a node, as piece-to indices: the last one, the one before it and
/// the one four plies back (None at the root, after a null move, or where there is none).
pub type LastMoves = [Option<usize>; 3];

/// The tables in use: the five of the position, then (`corr_cont` 1 or 2) the last move with
/// the one before it, and (2) the last move with the one four plies back.
#[inline]
fn kinds_used() -> usize {
    KINDS - 2 + corr_cont().clamp(0, 2) as usize
}

/// A pair of moves' piece-to indices hashed to a table index (0 where one is missing).
#[inline]
fn pair_index(a: Option<usize>, b: Option<usize>) -> usize {
    match (a, b) {
        (Some(a), Some(b)) => ((a * 2593 + b + 1) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) as usize >> 50,
        _ => 0,
    }
}

/// Indices of a position's structures: both sides' pawns, the side to move's castle and the
/// opponent's, both hands, the move that led here, and that move with the one before it and
/// with the one four plies back.
#[inline]
fn structures(pos: &Position, last: LastMoves) -> [usize; KINDS] {
    let us = pos.side_to_move();
    let castle = |c: Color| {
        let guards = (pos.golds() | pos.pieces_kind(PieceType::Silver)) & pos.pieces_of(c);
        index(guards.to_u128(), 1u128 << pos.king_square(c).index())
    };
    [
        index(pos.pieces(us, PieceType::Pawn).to_u128(), pos.pieces(!us, PieceType::Pawn).to_u128()),
        castle(us),
        castle(!us),
        (pos.hand_key() >> 50) as usize % SIZE,
        last[0].map_or(0, |p| p + 1) % SIZE,
        pair_index(last[0], last[1]),
        pair_index(last[0], last[2]),
    ]
}

/// The tables of one search thread, or (`shared_correction`) of all of a search's threads
/// (kept from move to move within a game). Entries are read and written with relaxed atomics:
/// threads sharing them may lose each other's updates, never corrupt an entry.
pub struct Correction {
    /// [side to move][structure kind][index]
    tables: Vec<AtomicI16>,
}

impl Default for Correction {
    fn default() -> Self {
        Correction { tables: (0..2 * KINDS * SIZE).map(|_| AtomicI16::new(0)).collect() }
    }
}

impl Correction {
    pub fn clear(&self) {
        for e in &self.tables {
            e.store(0, Ordering::Relaxed);
        }
    }

    /// A table of its own with the same entries (for a thread that stops sharing).
    pub fn copy(&self) -> Correction {
        Correction { tables: self.tables.iter().map(|e| AtomicI16::new(e.load(Ordering::Relaxed))).collect() }
    }

    #[inline]
    fn slot(pos: &Position, kind: usize, i: usize) -> usize {
        (pos.side_to_move().index() * KINDS + kind) * SIZE + i
    }

    /// The static evaluation `raw` shifted by what the tables hold for `pos`.
    #[inline]
    pub fn corrected(&self, pos: &Position, last: LastMoves, raw: Value) -> Value {
        let s = structures(pos, last);
        let total: i32 =
            (0..kinds_used()).map(|k| self.tables[Self::slot(pos, k, s[k])].load(Ordering::Relaxed) as i32).sum();
        (raw + total * correction_pct() / (100 * CORRECTION_GRAIN)).clamp(-20_000, 20_000)
    }

    /// Files the result of a node's search (`searched`, against its corrected static
    /// evaluation `eval`) at `depth`.
    pub fn update(&self, pos: &Position, last: LastMoves, eval: Value, searched: Value, depth: i32) {
        let bonus = ((searched - eval) * depth / 8).clamp(-CORRECTION_MAX_BONUS, CORRECTION_MAX_BONUS);
        let s = structures(pos, last);
        for (k, &i) in s.iter().enumerate().take(kinds_used()) {
            let e = &self.tables[Self::slot(pos, k, i)];
            let v = e.load(Ordering::Relaxed) as i32;
            e.store((v + bonus - v * bonus.abs() / CORRECTION_LIMIT) as i16, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(moves: &[&str]) -> Position {
        let mut pos = Position::startpos();
        for m in moves {
            let m = pos.parse_usi_move(m).unwrap();
            pos.do_move(m);
        }
        pos
    }

    #[test]
    fn learns_the_sign_and_size_of_an_error_and_stays_bounded() {
        let pos = Position::startpos();
        let c = Correction::default();
        assert_eq!(c.corrected(&pos, [None; 3], 100), 100);
        for _ in 0..1000 {
            c.update(&pos, [None; 3], c.corrected(&pos, [None; 3], 100), 400, 10);
        }
        let shifted = c.corrected(&pos, [None; 3], 100);
        assert!(shifted > 150 && shifted <= 100 + KINDS as i32 * CORRECTION_LIMIT / CORRECTION_GRAIN, "{shifted}");
        for _ in 0..1000 {
            c.update(&pos, [None; 3], c.corrected(&pos, [None; 3], 100), -200, 10);
        }
        let shift = c.corrected(&pos, [None; 3], 100) - 100;
        assert!(shift < -50, "{shift}");
        // Each table holds a share: a position that shares only some structures gets a part.
        // Other pawns, castles and previous move, the same (empty) hands: the hands' share.
        let other = c.corrected(&after(&["7g7f", "3c3d", "6i7h", "4a3b"]), [Some(7), None, None], 100) - 100;
        // Other pawns only: everything but the pawns' share.
        let pawns = c.corrected(&after(&["7g7f", "3c3d"]), [None; 3], 100) - 100;
        assert!(other < 0 && pawns < other && shift < pawns, "{other} {pawns} {shift}");
        // The other side to move has tables of its own.
        assert_eq!(c.corrected(&after(&["7g7f"]), [None; 3], 100), 100);
        c.clear();
        assert_eq!(c.corrected(&pos, [None; 3], 100), 100);
    }

    /// The last move together with the one before it has a table of its own: a node reached
    /// by the same last move after another move before it shares every table but that one.
    #[test]
    fn the_last_two_moves_together_have_a_table_of_their_own() {
        let pos = Position::startpos();
        let c = Correction::default();
        let learned_after = [Some(100), Some(200), None];
        for _ in 0..200 {
            c.update(&pos, learned_after, c.corrected(&pos, learned_after, 0), 300, 10);
        }
        let same = c.corrected(&pos, learned_after, 0);
        let other_before = c.corrected(&pos, [Some(100), Some(201), None], 0);
        let other_last = c.corrected(&pos, [Some(101), Some(200), None], 0);
        assert!(same > other_before && other_before > 0, "{same} {other_before}");
        // Another last move loses its own table and the pair's: less again.
        assert!(other_before > other_last && other_last > 0, "{other_before} {other_last}");
    }

    #[test]
    fn a_copy_starts_with_the_same_entries_and_then_learns_on_its_own() {
        let pos = Position::startpos();
        let c = Correction::default();
        for _ in 0..100 {
            c.update(&pos, [None; 3], c.corrected(&pos, [None; 3], 0), 300, 10);
        }
        let learned = c.corrected(&pos, [None; 3], 0);
        assert!(learned > 0);
        let own = c.copy();
        assert_eq!(own.corrected(&pos, [None; 3], 0), learned);
        for _ in 0..100 {
            own.update(&pos, [None; 3], own.corrected(&pos, [None; 3], 0), -300, 10);
        }
        assert!(own.corrected(&pos, [None; 3], 0) < 0);
        assert_eq!(c.corrected(&pos, [None; 3], 0), learned);
    }
}
