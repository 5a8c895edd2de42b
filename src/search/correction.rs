//! Correction history: what the search learned about the static evaluation's errors in
//! positions that share a structure. After a node's search, the difference between its result
//! and its static evaluation is filed under the node's pawn structure and under each side's
//! king and guards (king, golds and silvers: the castle); later static evaluations of positions
//! with the same structures are shifted by what was filed. A linear evaluation misjudges whole
//! families of positions (a castle shape, a pawn structure) the same way; the search corrects
//! it within the game.

use super::params::{CORRECTION_GRAIN, CORRECTION_LIMIT, CORRECTION_MAX_BONUS};
use crate::eval::Value;
use crate::shogi::{Color, PieceType, Position};

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

/// Indices of a position's structures: both sides' pawns, then the side to move's castle and
/// the opponent's.
#[inline]
fn structures(pos: &Position) -> [usize; 3] {
    let us = pos.side_to_move();
    let castle = |c: Color| {
        let guards = (pos.golds() | pos.pieces_kind(PieceType::Silver)) & pos.pieces_of(c);
        index(guards.to_u128(), 1u128 << pos.king_square(c).index())
    };
    [
        index(pos.pieces(us, PieceType::Pawn).to_u128(), pos.pieces(!us, PieceType::Pawn).to_u128()),
        castle(us),
        castle(!us),
    ]
}

/// The tables of one search thread (kept from move to move within a game).
pub struct Correction {
    /// [side to move][structure kind][index]
    tables: Vec<i16>,
}

impl Default for Correction {
    fn default() -> Self {
        Correction { tables: vec![0; 2 * 3 * SIZE] }
    }
}

impl Correction {
    pub fn clear(&mut self) {
        self.tables.fill(0);
    }

    #[inline]
    fn slot(pos: &Position, kind: usize, i: usize) -> usize {
        (pos.side_to_move().index() * 3 + kind) * SIZE + i
    }

    /// The static evaluation `raw` shifted by what the tables hold for `pos`.
    #[inline]
    pub fn corrected(&self, pos: &Position, raw: Value) -> Value {
        let s = structures(pos);
        let total: i32 = (0..3).map(|k| self.tables[Self::slot(pos, k, s[k])] as i32).sum();
        (raw + total / CORRECTION_GRAIN).clamp(-20_000, 20_000)
    }

    /// Files the result of a node's search (`searched`, against its corrected static
    /// evaluation `eval`) at `depth`.
    pub fn update(&mut self, pos: &Position, eval: Value, searched: Value, depth: i32) {
        let bonus = ((searched - eval) * depth / 8).clamp(-CORRECTION_MAX_BONUS, CORRECTION_MAX_BONUS);
        let s = structures(pos);
        for (k, &i) in s.iter().enumerate() {
            let e = &mut self.tables[Self::slot(pos, k, i)];
            let v = *e as i32;
            *e = (v + bonus - v * bonus.abs() / CORRECTION_LIMIT) as i16;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_the_sign_and_size_of_an_error_and_stays_bounded() {
        let pos = Position::startpos();
        let mut c = Correction::default();
        assert_eq!(c.corrected(&pos, 100), 100);
        for _ in 0..1000 {
            c.update(&pos, c.corrected(&pos, 100), 400, 10);
        }
        let shifted = c.corrected(&pos, 100);
        assert!(shifted > 150 && shifted <= 100 + 3 * CORRECTION_LIMIT / CORRECTION_GRAIN, "{shifted}");
        for _ in 0..1000 {
            c.update(&pos, c.corrected(&pos, 100), -200, 10);
        }
        assert!(c.corrected(&pos, 100) < 50);
        // Other pawns and castles, the same side to move: untouched.
        let mut other = Position::startpos();
        for m in ["7g7f", "3c3d", "6i7h", "4a3b"] {
            let m = other.parse_usi_move(m).unwrap();
            other.do_move(m);
        }
        assert_eq!(c.corrected(&other, 100), 100);
        // The same castles with other pawns: the castles' share only.
        let mut pawns = Position::startpos();
        for m in ["7g7f", "3c3d"] {
            let m = pawns.parse_usi_move(m).unwrap();
            pawns.do_move(m);
        }
        let shift = c.corrected(&pos, 100) - 100;
        let castles_only = c.corrected(&pawns, 100) - 100;
        assert!(castles_only != 0 && castles_only.abs() < shift.abs() + 2, "{castles_only} {shift}");
        c.clear();
        assert_eq!(c.corrected(&pos, 100), 100);
    }
}
