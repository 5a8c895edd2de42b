//! 81-square bitboards.
//!
//! Two words: `p[0]` holds squares 0..63 (files 1-7), `p[1]` squares 63..81 (files 8-9). A file
//! never straddles the two words, so per-file work (lances, pawns, nifu) touches one word, and a
//! one-square step along a file is a shift of each word on its own. For the bishop's magic lookup
//! the two words are OR-ed into one 64-bit key (`merge`): the layout guarantees that no bishop
//! occupancy mask has two squares that fall on the same bit.

use super::types::{Color, Square};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Bitboard {
    p: [u64; 2],
}

const P0_MASK: u64 = (1u64 << 63) - 1;
const P1_MASK: u64 = (1u64 << 18) - 1;

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard { p: [0, 0] };
    pub const ALL: Bitboard = Bitboard { p: [P0_MASK, P1_MASK] };

    #[inline]
    pub const fn from_parts(p0: u64, p1: u64) -> Bitboard {
        Bitboard { p: [p0 & P0_MASK, p1 & P1_MASK] }
    }

    /// The squares as one 81-bit number, bit `i` for the square of index `i` (cheap single-bit
    /// tests when many squares of one board are looked at).
    #[inline]
    pub const fn to_u128(self) -> u128 {
        self.p[0] as u128 | (self.p[1] as u128) << 63
    }

    #[inline]
    pub const fn part(&self, i: usize) -> u64 {
        self.p[i]
    }

    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        let i = sq.index();
        if i < 63 { Bitboard { p: [1 << i, 0] } } else { Bitboard { p: [0, 1 << (i - 63)] } }
    }

    #[inline]
    pub const fn contains(&self, sq: Square) -> bool {
        let i = sq.index();
        if i < 63 { self.p[0] >> i & 1 != 0 } else { self.p[1] >> (i - 63) & 1 != 0 }
    }

    #[inline]
    pub fn set(&mut self, sq: Square) {
        let i = sq.index();
        if i < 63 {
            self.p[0] |= 1 << i;
        } else {
            self.p[1] |= 1 << (i - 63);
        }
    }

    #[inline]
    pub fn clear(&mut self, sq: Square) {
        let i = sq.index();
        if i < 63 {
            self.p[0] &= !(1 << i);
        } else {
            self.p[1] &= !(1 << (i - 63));
        }
    }

    #[inline]
    pub fn toggle(&mut self, sq: Square) {
        let i = sq.index();
        if i < 63 {
            self.p[0] ^= 1 << i;
        } else {
            self.p[1] ^= 1 << (i - 63);
        }
    }

    #[inline]
    pub const fn is_empty(&self) -> bool {
        (self.p[0] | self.p[1]) == 0
    }

    #[inline]
    pub const fn is_nonempty(&self) -> bool {
        !self.is_empty()
    }

    #[inline]
    pub const fn count(&self) -> u32 {
        self.p[0].count_ones() + self.p[1].count_ones()
    }

    /// More than one square set.
    #[inline]
    pub const fn more_than_one(&self) -> bool {
        (self.p[0] & self.p[0].wrapping_sub(1)) != 0
            || (self.p[1] & self.p[1].wrapping_sub(1)) != 0
            || (self.p[0] != 0 && self.p[1] != 0)
    }

    /// Lowest square (only for non-empty boards).
    #[inline]
    pub fn lsb(&self) -> Square {
        debug_assert!(self.is_nonempty());
        if self.p[0] != 0 {
            Square::new(self.p[0].trailing_zeros() as u8)
        } else {
            Square::new(63 + self.p[1].trailing_zeros() as u8)
        }
    }

    /// Removes and returns the lowest square.
    #[inline]
    pub fn pop(&mut self) -> Option<Square> {
        if self.p[0] != 0 {
            let i = self.p[0].trailing_zeros();
            self.p[0] &= self.p[0] - 1;
            Some(Square::new(i as u8))
        } else if self.p[1] != 0 {
            let i = self.p[1].trailing_zeros();
            self.p[1] &= self.p[1] - 1;
            Some(Square::new(63 + i as u8))
        } else {
            None
        }
    }

    /// The two words OR-ed together: the key that slider magics multiply.
    #[inline]
    pub const fn merge(&self) -> u64 {
        self.p[0] | self.p[1]
    }

    #[inline]
    pub const fn and_not(self, other: Bitboard) -> Bitboard {
        Bitboard { p: [self.p[0] & !other.p[0], self.p[1] & !other.p[1]] }
    }

    /// Every square shifted one step forward for `c` (towards rank a for Black). Squares on
    /// the last rank would wrap into the neighbouring file; callers only shift pieces that
    /// cannot stand there (pawns), or mask the result.
    #[inline]
    pub const fn shift_forward(self, c: Color) -> Bitboard {
        match c {
            Color::Black => Bitboard { p: [self.p[0] >> 1, self.p[1] >> 1] },
            Color::White => Bitboard { p: [(self.p[0] << 1) & P0_MASK, (self.p[1] << 1) & P1_MASK] },
        }
    }

    pub const fn const_or(self, o: Bitboard) -> Bitboard {
        Bitboard { p: [self.p[0] | o.p[0], self.p[1] | o.p[1]] }
    }

    pub const fn const_and(self, o: Bitboard) -> Bitboard {
        Bitboard { p: [self.p[0] & o.p[0], self.p[1] & o.p[1]] }
    }

    pub const fn const_not(self) -> Bitboard {
        Bitboard { p: [!self.p[0] & P0_MASK, !self.p[1] & P1_MASK] }
    }

    /// All squares of file index `f` (0 = file 1).
    pub const fn file_mask(f: u8) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        let mut r = 0;
        while r < 9 {
            bb = bb.const_or(Bitboard::from_square(Square::from_file_rank(f, r)));
            r += 1;
        }
        bb
    }

    /// All squares of rank index `r` (0 = rank a).
    pub const fn rank_mask(r: u8) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        let mut f = 0;
        while f < 9 {
            bb = bb.const_or(Bitboard::from_square(Square::from_file_rank(f, r)));
            f += 1;
        }
        bb
    }

    /// Ranks whose relative rank for `c` is below `n` (n = 3: the promotion zone of `c`).
    pub const fn forward_ranks(c: Color, n: u8) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        let mut i = 0;
        while i < n {
            let r = match c {
                Color::Black => i,
                Color::White => 8 - i,
            };
            bb = bb.const_or(Bitboard::rank_mask(r));
            i += 1;
        }
        bb
    }

    /// For every occupied square, its whole file (used for the nifu rule).
    #[inline]
    pub fn fill_files(self) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for f in 0..9u8 {
            let fm = FILES[f as usize];
            if (self & fm).is_nonempty() {
                out |= fm;
            }
        }
        out
    }

    pub fn iter(self) -> BitboardIter {
        BitboardIter(self)
    }
}

pub const FILES: [Bitboard; 9] = {
    let mut out = [Bitboard::EMPTY; 9];
    let mut f = 0;
    while f < 9 {
        out[f] = Bitboard::file_mask(f as u8);
        f += 1;
    }
    out
};

pub const RANKS: [Bitboard; 9] = {
    let mut out = [Bitboard::EMPTY; 9];
    let mut r = 0;
    while r < 9 {
        out[r] = Bitboard::rank_mask(r as u8);
        r += 1;
    }
    out
};

/// Promotion zone per colour.
pub const ZONE: [Bitboard; 2] = [Bitboard::forward_ranks(Color::Black, 3), Bitboard::forward_ranks(Color::White, 3)];

pub struct BitboardIter(Bitboard);

impl Iterator for BitboardIter {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        self.0.pop()
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = BitboardIter;
    fn into_iter(self) -> BitboardIter {
        BitboardIter(self)
    }
}

macro_rules! binop {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, o: Bitboard) -> Bitboard {
                Bitboard { p: [self.p[0] $op o.p[0], self.p[1] $op o.p[1]] }
            }
        }
        impl $atr for Bitboard {
            #[inline]
            fn $af(&mut self, o: Bitboard) {
                self.p[0] = self.p[0] $op o.p[0];
                self.p[1] = self.p[1] $op o.p[1];
            }
        }
    };
}
binop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
binop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        self.const_not()
    }
}

impl std::fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        for r in 0..9 {
            for file in (0..9).rev() {
                let c = if self.contains(Square::from_file_rank(file, r)) { '1' } else { '.' };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_pop_count() {
        let mut bb = Bitboard::EMPTY;
        for sq in Square::all() {
            bb.set(sq);
        }
        assert_eq!(bb, Bitboard::ALL);
        assert_eq!(bb.count(), 81);
        let squares: Vec<_> = bb.iter().collect();
        assert_eq!(squares, Square::all().collect::<Vec<_>>());
        assert!(!Bitboard::from_square(Square::new(70)).more_than_one());
        assert!((Bitboard::from_square(Square::new(3)) | Bitboard::from_square(Square::new(70))).more_than_one());
    }

    #[test]
    fn files_stay_in_one_word() {
        for fm in FILES {
            assert_eq!(fm.count(), 9);
            assert!(fm.part(0) == 0 || fm.part(1) == 0);
        }
        assert_eq!(ZONE[0].count(), 27);
        assert!(ZONE[0].contains(Square::parse("5c").unwrap()));
        assert!(ZONE[1].contains(Square::parse("5g").unwrap()));
    }
}
