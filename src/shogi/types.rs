//! Basic value types: colours, squares, pieces, hands and moves.
//!
//! Square layout (shared by every table): `index = file_index * 9 + rank_index`, where
//! `file_index` 0..=8 stands for files 1..=9 and `rank_index` 0..=8 for ranks a..=i.
//! So `1a` = 0, `1i` = 8, `2a` = 9, `9i` = 80.

use std::fmt;
use std::num::NonZeroU16;

/// The two sides. Black (sente) moves first and sits at the bottom (ranks g-i).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    Black = 0,
    White = 1,
}

impl Color {
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    #[inline]
    pub const fn flip(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// "black" or "white", for messages.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.flip()
    }
}

/// A square of the 9x9 board.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    pub const NUM: usize = 81;

    /// Stands for a missing king (tsume positions give the attacker none): what
    /// `Position::king_square` returns for a side without a king. It is no square of the board;
    /// the attack, `between` and `line` tables take it and give the empty board for it, and
    /// `Bitboard::contains` is false for it, so the hot paths need no test for a missing king.
    /// Anything else (board arrays, `rotate`, per-square tables of other modules) must not be
    /// given it: ask `Position::king_square_opt` first.
    pub const NONE: Square = Square(81);

    /// Square from an index 0..81. Panics (debug) on out-of-range input; callers hold indices
    /// produced by the board iteration.
    #[inline]
    pub const fn new(index: u8) -> Square {
        debug_assert!(index < 81);
        Square(index)
    }

    /// Square from a file index (0 = file 1) and a rank index (0 = rank a).
    #[inline]
    pub const fn from_file_rank(file: u8, rank: u8) -> Square {
        debug_assert!(file < 9 && rank < 9);
        Square(file * 9 + rank)
    }

    #[inline]
    pub fn try_from_index(index: usize) -> Option<Square> {
        (index < 81).then_some(Square(index as u8))
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// File index: 0 = file 1 .. 8 = file 9.
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 / 9
    }

    /// Rank index: 0 = rank a .. 8 = rank i.
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 % 9
    }

    /// The same square seen from the other side (board rotated by 180 degrees).
    #[inline]
    pub const fn rotate(self) -> Square {
        Square(80 - self.0)
    }

    /// Rank index as seen by `c`: 0 is the rank farthest from `c` (the opponent's back rank).
    #[inline]
    pub const fn relative_rank(self, c: Color) -> u8 {
        match c {
            Color::Black => self.rank(),
            Color::White => 8 - self.rank(),
        }
    }

    /// Whether this square lies in the promotion zone of `c`.
    #[inline]
    pub const fn in_zone(self, c: Color) -> bool {
        self.relative_rank(c) < 3
    }

    /// The square one step forward for `c`, if any.
    #[inline]
    pub const fn forward(self, c: Color) -> Option<Square> {
        match c {
            Color::Black if self.rank() > 0 => Some(Square(self.0 - 1)),
            Color::White if self.rank() < 8 => Some(Square(self.0 + 1)),
            _ => None,
        }
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..81u8).map(Square)
    }

    /// Parses two characters such as `7g`.
    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let file = b[0].wrapping_sub(b'1');
        let rank = b[1].wrapping_sub(b'a');
        (file < 9 && rank < 9).then(|| Square::from_file_rank(file, rank))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if *self == Square::NONE {
            return write!(f, "none");
        }
        write!(f, "{}{}", (b'1' + self.file()) as char, (b'a' + self.rank()) as char)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Kinds of piece, unpromoted (1..=8) and promoted (9..=14). Numbering follows the usual
/// computer-shogi order so that `promoted = unpromoted + 8`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PieceType {
    Pawn = 1,
    Lance = 2,
    Knight = 3,
    Silver = 4,
    Bishop = 5,
    Rook = 6,
    Gold = 7,
    King = 8,
    ProPawn = 9,
    ProLance = 10,
    ProKnight = 11,
    ProSilver = 12,
    Horse = 13,
    Dragon = 14,
}

impl PieceType {
    pub const NUM: usize = 15;

    pub const ALL: [PieceType; 14] = [
        PieceType::Pawn,
        PieceType::Lance,
        PieceType::Knight,
        PieceType::Silver,
        PieceType::Bishop,
        PieceType::Rook,
        PieceType::Gold,
        PieceType::King,
        PieceType::ProPawn,
        PieceType::ProLance,
        PieceType::ProKnight,
        PieceType::ProSilver,
        PieceType::Horse,
        PieceType::Dragon,
    ];

    /// Kinds that can be held in hand, pawn to rook: the order in which PackedSfenValue writes
    /// a hand (SFEN writes them rook to pawn).
    pub const HAND: [PieceType; 7] = [
        PieceType::Pawn,
        PieceType::Lance,
        PieceType::Knight,
        PieceType::Silver,
        PieceType::Gold,
        PieceType::Bishop,
        PieceType::Rook,
    ];

    #[inline]
    pub const fn from_index(i: u8) -> Option<PieceType> {
        Some(match i {
            1 => PieceType::Pawn,
            2 => PieceType::Lance,
            3 => PieceType::Knight,
            4 => PieceType::Silver,
            5 => PieceType::Bishop,
            6 => PieceType::Rook,
            7 => PieceType::Gold,
            8 => PieceType::King,
            9 => PieceType::ProPawn,
            10 => PieceType::ProLance,
            11 => PieceType::ProKnight,
            12 => PieceType::ProSilver,
            13 => PieceType::Horse,
            14 => PieceType::Dragon,
            _ => return None,
        })
    }

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline]
    pub const fn can_promote(self) -> bool {
        matches!(
            self,
            PieceType::Pawn
                | PieceType::Lance
                | PieceType::Knight
                | PieceType::Silver
                | PieceType::Bishop
                | PieceType::Rook
        )
    }

    #[inline]
    pub const fn is_promoted(self) -> bool {
        self as u8 > 8
    }

    /// The promoted kind. Only meaningful when `can_promote()`.
    #[inline]
    pub const fn promote(self) -> PieceType {
        match self {
            PieceType::Pawn => PieceType::ProPawn,
            PieceType::Lance => PieceType::ProLance,
            PieceType::Knight => PieceType::ProKnight,
            PieceType::Silver => PieceType::ProSilver,
            PieceType::Bishop => PieceType::Horse,
            PieceType::Rook => PieceType::Dragon,
            other => other,
        }
    }

    /// The unpromoted kind (what a captured piece becomes in hand).
    #[inline]
    pub const fn unpromote(self) -> PieceType {
        match self {
            PieceType::ProPawn => PieceType::Pawn,
            PieceType::ProLance => PieceType::Lance,
            PieceType::ProKnight => PieceType::Knight,
            PieceType::ProSilver => PieceType::Silver,
            PieceType::Horse => PieceType::Bishop,
            PieceType::Dragon => PieceType::Rook,
            other => other,
        }
    }

    /// Upper-case SFEN letter of the unpromoted kind.
    pub const fn letter(self) -> char {
        match self.unpromote() {
            PieceType::Pawn => 'P',
            PieceType::Lance => 'L',
            PieceType::Knight => 'N',
            PieceType::Silver => 'S',
            PieceType::Bishop => 'B',
            PieceType::Rook => 'R',
            PieceType::Gold => 'G',
            _ => 'K',
        }
    }

    /// Unpromoted kind from an SFEN letter of either case.
    pub fn from_letter(c: char) -> Option<PieceType> {
        Some(match c.to_ascii_uppercase() {
            'P' => PieceType::Pawn,
            'L' => PieceType::Lance,
            'N' => PieceType::Knight,
            'S' => PieceType::Silver,
            'B' => PieceType::Bishop,
            'R' => PieceType::Rook,
            'G' => PieceType::Gold,
            'K' => PieceType::King,
            _ => return None,
        })
    }

    /// Whether a piece of this kind on `sq` (owned by `c`) would never be able to move again.
    #[inline]
    pub const fn is_dead_on(self, c: Color, sq: Square) -> bool {
        let r = sq.relative_rank(c);
        match self {
            PieceType::Pawn | PieceType::Lance => r == 0,
            PieceType::Knight => r < 2,
            _ => false,
        }
    }
}

/// A coloured piece: `kind + 16 * colour`; 0 is the empty square.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
pub struct Piece(u8);

impl Piece {
    /// The bytes of a run of pieces (one per piece), for comparing boards in bulk.
    #[inline]
    pub fn as_bytes(pieces: &[Piece]) -> &[u8] {
        // SAFETY: `Piece` is `repr(transparent)` over `u8`, so a slice of pieces is a slice of
        // as many bytes, with the same lifetime.
        unsafe { std::slice::from_raw_parts(pieces.as_ptr().cast::<u8>(), pieces.len()) }
    }

    pub const EMPTY: Piece = Piece(0);
    pub const NUM: usize = 32;

    #[inline]
    pub const fn new(c: Color, pt: PieceType) -> Piece {
        Piece(pt as u8 + ((c as u8) << 4))
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Colour of a non-empty piece.
    #[inline]
    pub const fn color(self) -> Color {
        if self.0 & 16 != 0 { Color::White } else { Color::Black }
    }

    /// Kind of a non-empty piece.
    #[inline]
    pub fn kind(self) -> PieceType {
        // SAFETY-free: the constructor only builds valid kinds; EMPTY maps to a debug panic.
        match PieceType::from_index(self.0 & 15) {
            Some(pt) => pt,
            None => {
                debug_assert!(false, "kind() of the empty square");
                PieceType::King
            }
        }
    }

    /// Parses an SFEN piece token such as `p`, `+R`.
    pub fn from_sfen(promoted: bool, c: char) -> Option<Piece> {
        let pt = PieceType::from_letter(c)?;
        let color = if c.is_ascii_uppercase() { Color::Black } else { Color::White };
        if promoted {
            if !pt.can_promote() {
                return None;
            }
            Some(Piece::new(color, pt.promote()))
        } else {
            Some(Piece::new(color, pt))
        }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.is_empty() {
            return write!(f, ".");
        }
        let pt = self.kind();
        if pt.is_promoted() {
            write!(f, "+")?;
        }
        let l = pt.letter();
        let l = if self.color() == Color::White { l.to_ascii_lowercase() } else { l };
        write!(f, "{l}")
    }
}

impl fmt::Debug for Piece {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Pieces in hand, packed into one word: a bit field per kind, with a spare bit above each
/// field so that "hand A holds at least hand B" is one subtraction and mask.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Hand(u32);

impl Hand {
    pub const EMPTY: Hand = Hand(0);

    /// (shift, field mask) per hand kind, indexed by `PieceType as usize` (1..=7).
    const SHIFT: [u32; 8] = [0, 0, 6, 10, 14, 22, 26, 18];
    const MASK: [u32; 8] = [0, 0x1f, 0x7, 0x7, 0x7, 0x3, 0x3, 0x7];
    /// Bits just above every field; a borrow into one of them means "fewer".
    const BORROW: u32 = (1 << 5) | (1 << 9) | (1 << 13) | (1 << 17) | (1 << 21) | (1 << 24) | (1 << 28);

    /// Pieces of a kind in one set (18 pawns, 4 of each small piece, 2 rooks and bishops).
    pub const fn set_count(pt: PieceType) -> u32 {
        match pt {
            PieceType::Pawn => 18,
            PieceType::Lance | PieceType::Knight | PieceType::Silver | PieceType::Gold => 4,
            PieceType::Bishop | PieceType::Rook => 2,
            _ => 0,
        }
    }

    /// Largest count the packed field can hold. Problem and test positions sometimes hold more
    /// than a set (three bishops, say); any count up to this is representable, and a position
    /// whose total per kind stays within it can never overflow a hand by capturing.
    pub const fn capacity(pt: PieceType) -> u32 {
        Self::MASK[pt as usize]
    }

    #[inline]
    pub const fn count(self, pt: PieceType) -> u32 {
        (self.0 >> Self::SHIFT[pt as usize]) & Self::MASK[pt as usize]
    }

    #[inline]
    pub const fn has(self, pt: PieceType) -> bool {
        self.count(pt) != 0
    }

    #[inline]
    pub fn add(&mut self, pt: PieceType) {
        debug_assert!(self.count(pt) < Self::capacity(pt));
        self.0 += 1 << Self::SHIFT[pt as usize];
    }

    #[inline]
    pub fn remove(&mut self, pt: PieceType) {
        debug_assert!(self.count(pt) > 0);
        self.0 -= 1 << Self::SHIFT[pt as usize];
    }

    /// Sets a count; the caller guarantees `n <= capacity(pt)`.
    pub fn set(&mut self, pt: PieceType, n: u32) {
        let s = Self::SHIFT[pt as usize];
        self.0 = (self.0 & !(Self::MASK[pt as usize] << s)) | (n << s);
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether every kind is held at least as often as in `other`.
    #[inline]
    pub const fn dominates(self, other: Hand) -> bool {
        (self.0.wrapping_sub(other.0)) & Self::BORROW == 0
    }

    /// Whether the hand holds any piece other than pawns.
    #[inline]
    pub const fn has_non_pawn(self) -> bool {
        self.0 & !Self::MASK[1] != 0
    }

    pub const fn raw(self) -> u32 {
        self.0
    }

    /// Total number of pieces held.
    pub fn total(self) -> u32 {
        PieceType::HAND.iter().map(|&pt| self.count(pt)).sum()
    }
}

impl fmt::Debug for Hand {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let mut any = false;
        for pt in PieceType::HAND.iter().rev() {
            let n = self.count(*pt);
            if n > 0 {
                any = true;
                write!(f, "{}{}", pt.letter(), n)?;
            }
        }
        if !any {
            write!(f, "-")?;
        }
        Ok(())
    }
}

/// A move in 16 bits: bits 0-6 destination, bits 7-13 origin square or `81 + kind - 1` for a
/// drop, bit 14 the promotion flag. Never zero (origin and destination differ), so
/// `Option<Move>` takes no extra space.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Move(NonZeroU16);

impl Move {
    const PROMOTE: u16 = 1 << 14;
    const DROP_BASE: u16 = 81;

    #[inline]
    pub fn normal(from: Square, to: Square, promote: bool) -> Move {
        debug_assert!(from != to);
        let v = to.0 as u16 | ((from.0 as u16) << 7) | if promote { Self::PROMOTE } else { 0 };
        Move(NonZeroU16::new(v).expect("from != to makes the code non-zero"))
    }

    #[inline]
    pub fn drop(pt: PieceType, to: Square) -> Move {
        debug_assert!((pt as u8) >= 1 && (pt as u8) <= 7);
        let v = to.0 as u16 | ((Self::DROP_BASE + pt as u16 - 1) << 7);
        Move(NonZeroU16::new(v).expect("drop codes are never zero"))
    }

    /// Rebuilds a move from its raw code if the code is well formed (a TT or fuzz input).
    /// Well formed is not legal: check with `Position::is_legal`.
    pub fn from_raw(v: u16) -> Option<Move> {
        let to = v & 0x7f;
        let from = (v >> 7) & 0x7f;
        if v >> 15 != 0 || to >= 81 || from >= Self::DROP_BASE + 7 {
            return None;
        }
        if from >= Self::DROP_BASE {
            if v & Self::PROMOTE != 0 {
                return None;
            }
        } else if from == to {
            return None;
        }
        NonZeroU16::new(v).map(Move)
    }

    #[inline]
    pub const fn raw(self) -> u16 {
        self.0.get()
    }

    #[inline]
    pub const fn to(self) -> Square {
        Square((self.0.get() & 0x7f) as u8)
    }

    #[inline]
    pub const fn is_drop(self) -> bool {
        (self.0.get() >> 7) & 0x7f >= Self::DROP_BASE
    }

    /// Origin square of a board move.
    #[inline]
    pub const fn from(self) -> Square {
        Square(((self.0.get() >> 7) & 0x7f) as u8)
    }

    /// Kind dropped by a drop move.
    #[inline]
    pub fn drop_kind(self) -> PieceType {
        let k = ((self.0.get() >> 7) & 0x7f) - Self::DROP_BASE + 1;
        PieceType::from_index(k as u8).unwrap_or(PieceType::Pawn)
    }

    #[inline]
    pub const fn is_promotion(self) -> bool {
        self.0.get() & Self::PROMOTE != 0
    }
}

impl fmt::Display for Move {
    /// USI notation: `7g7f`, `8h2b+`, `P*5e`.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.is_drop() {
            write!(f, "{}*{}", self.drop_kind().letter(), self.to())
        } else {
            write!(f, "{}{}{}", self.from(), self.to(), if self.is_promotion() { "+" } else { "" })
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_move_is_two_bytes() {
        assert_eq!(std::mem::size_of::<Option<Move>>(), 2);
    }

    #[test]
    fn hand_fields_are_independent() {
        let mut h = Hand::EMPTY;
        for pt in PieceType::HAND {
            for _ in 0..Hand::capacity(pt) {
                h.add(pt);
            }
        }
        for pt in PieceType::HAND {
            assert_eq!(h.count(pt), Hand::capacity(pt));
        }
        let full = h;
        h.remove(PieceType::Gold);
        assert!(full.dominates(h));
        assert!(!h.dominates(full));
        assert_eq!(h.count(PieceType::Gold), 6);
        assert_eq!(h.count(PieceType::Rook), 3);
    }

    #[test]
    fn move_codes_round_trip() {
        for from in Square::all() {
            for to in Square::all() {
                if from == to {
                    continue;
                }
                for promote in [false, true] {
                    let m = Move::normal(from, to, promote);
                    assert_eq!((m.from(), m.to(), m.is_promotion(), m.is_drop()), (from, to, promote, false));
                    assert_eq!(Move::from_raw(m.raw()), Some(m));
                }
            }
            for pt in &PieceType::HAND {
                let m = Move::drop(*pt, from);
                assert!(m.is_drop());
                assert_eq!((m.drop_kind(), m.to()), (*pt, from));
            }
        }
    }

    #[test]
    fn square_names() {
        assert_eq!(Square::parse("1a").map(|s| s.index()), Some(0));
        assert_eq!(Square::parse("9i").map(|s| s.index()), Some(80));
        assert_eq!(Square::parse("7g").map(|s| s.to_string()), Some("7g".to_string()));
        assert_eq!(Square::parse("0a"), None);
        assert_eq!(Square::parse("1j"), None);
    }
}
