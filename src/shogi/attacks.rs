//! Attack tables.
//!
//! - Step pieces (pawn, knight, silver, gold, king): tables computed at compile time.
//! - Lance: computed from the file's word with two bit scans (no table; see `lance_attacks`).
//! - Rook: the file's two rays as for lances, the rank's from a 20 KiB compile-time table
//!   indexed by the rank's inner occupancy (see `rank_attacks`). A magic table for the rook
//!   held 9 MiB: most lookups missed the caches, beside the network's 64 MB.
//! - Bishop: magic bitboards (0.4 MiB). The magic numbers live in `magics.rs` and are produced
//!   by `find_magics` (run `cargo run --release --bin find_magics > src/shogi/magics.rs`); the
//!   lookup table is filled once at start-up from the slow reference attack function.
//! - `between` / `line`: compile-time tables for pins, interpositions and alignment.
//!
//! Every table also takes `Square::NONE` (a missing king) and gives the empty board for it:
//! nothing attacks from it or to it and nothing lies between it and a square, so a side
//! without a king has no checkers and no pins without a test in the hot paths.

use super::bitboard::Bitboard;
use super::magics::BISHOP_MAGICS;
use super::types::{Color, PieceType, Square};
use once_cell::sync::Lazy;

const ROOK_DIRS: [(i8, i8); 4] = [(0, -1), (0, 1), (-1, 0), (1, 0)];
const BISHOP_DIRS: [(i8, i8); 4] = [(-1, -1), (1, -1), (-1, 1), (1, 1)];

/// Square reached from `sq` by (file delta, rank delta), if on the board.
const fn offset(sq: Square, df: i8, dr: i8) -> Option<Square> {
    let f = sq.file() as i8 + df;
    let r = sq.rank() as i8 + dr;
    if f >= 0 && f < 9 && r >= 0 && r < 9 { Some(Square::from_file_rank(f as u8, r as u8)) } else { None }
}

/// Step deltas for Black; White mirrors the rank delta.
const fn step_deltas(pt: PieceType) -> &'static [(i8, i8)] {
    match pt {
        PieceType::Pawn => &[(0, -1)],
        PieceType::Knight => &[(-1, -2), (1, -2)],
        PieceType::Silver => &[(0, -1), (-1, -1), (1, -1), (-1, 1), (1, 1)],
        PieceType::Gold => &[(0, -1), (-1, -1), (1, -1), (-1, 0), (1, 0), (0, 1)],
        PieceType::King => &[(0, -1), (-1, -1), (1, -1), (-1, 0), (1, 0), (0, 1), (-1, 1), (1, 1)],
        _ => &[],
    }
}

/// Table entries per colour: the 81 squares and `Square::NONE`.
const SQ_ENTRIES: usize = Square::NUM + 1;

const fn step_table(pt: PieceType) -> [[Bitboard; SQ_ENTRIES]; 2] {
    let mut out = [[Bitboard::EMPTY; SQ_ENTRIES]; 2];
    let deltas = step_deltas(pt);
    let mut c = 0;
    while c < 2 {
        let mut s = 0;
        while s < 81 {
            let mut bb = Bitboard::EMPTY;
            let mut i = 0;
            while i < deltas.len() {
                let (df, dr) = deltas[i];
                let dr = if c == 0 { dr } else { -dr };
                if let Some(t) = offset(Square::new(s as u8), df, dr) {
                    bb = bb.const_or(Bitboard::from_square(t));
                }
                i += 1;
            }
            out[c][s] = bb;
            s += 1;
        }
        c += 1;
    }
    out
}

static PAWN: [[Bitboard; SQ_ENTRIES]; 2] = step_table(PieceType::Pawn);
static KNIGHT: [[Bitboard; SQ_ENTRIES]; 2] = step_table(PieceType::Knight);
static SILVER: [[Bitboard; SQ_ENTRIES]; 2] = step_table(PieceType::Silver);
static GOLD: [[Bitboard; SQ_ENTRIES]; 2] = step_table(PieceType::Gold);
static KING: [[Bitboard; SQ_ENTRIES]; 2] = step_table(PieceType::King);

#[inline]
pub fn pawn_attacks(c: Color, sq: Square) -> Bitboard {
    PAWN[c.index()][sq.index()]
}
#[inline]
pub fn knight_attacks(c: Color, sq: Square) -> Bitboard {
    KNIGHT[c.index()][sq.index()]
}
#[inline]
pub fn silver_attacks(c: Color, sq: Square) -> Bitboard {
    SILVER[c.index()][sq.index()]
}
#[inline]
pub fn gold_attacks(c: Color, sq: Square) -> Bitboard {
    GOLD[c.index()][sq.index()]
}
#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    KING[0][sq.index()]
}

/// Slow reference: squares a slider on `sq` reaches along `dirs`, stopping at (and including)
/// the first occupied square. Used to fill and to test the fast tables.
pub fn slider_attacks_slow(sq: Square, occ: Bitboard, dirs: &[(i8, i8)]) -> Bitboard {
    let mut bb = Bitboard::EMPTY;
    for &(df, dr) in dirs {
        let mut cur = sq;
        while let Some(t) = offset(cur, df, dr) {
            bb.set(t);
            if occ.contains(t) {
                break;
            }
            cur = t;
        }
    }
    bb
}

pub fn rook_attacks_slow(sq: Square, occ: Bitboard) -> Bitboard {
    slider_attacks_slow(sq, occ, &ROOK_DIRS)
}

pub fn bishop_attacks_slow(sq: Square, occ: Bitboard) -> Bitboard {
    slider_attacks_slow(sq, occ, &BISHOP_DIRS)
}

pub fn lance_attacks_slow(c: Color, sq: Square, occ: Bitboard) -> Bitboard {
    let dir = if c == Color::Black { (0, -1) } else { (0, 1) };
    slider_attacks_slow(sq, occ, &[dir])
}

/// Occupancy squares that matter for a slider on `sq`: its rays without the last square.
pub fn relevant_mask(sq: Square, dirs: &[(i8, i8)]) -> Bitboard {
    let mut bb = Bitboard::EMPTY;
    for &(df, dr) in dirs {
        let mut cur = sq;
        while let Some(t) = offset(cur, df, dr) {
            if offset(t, df, dr).is_none() {
                break;
            }
            bb.set(t);
            cur = t;
        }
    }
    bb
}

pub fn rook_mask(sq: Square) -> Bitboard {
    relevant_mask(sq, &ROOK_DIRS)
}

pub fn bishop_mask(sq: Square) -> Bitboard {
    relevant_mask(sq, &BISHOP_DIRS)
}

/// The `index`-th subset of `mask` (bit i of `index` selects the i-th square of the mask).
pub fn mask_subset(mask_squares: &[Square], index: usize) -> Bitboard {
    let mut bb = Bitboard::EMPTY;
    for (i, sq) in mask_squares.iter().enumerate() {
        if index >> i & 1 != 0 {
            bb.set(*sq);
        }
    }
    bb
}

#[inline]
fn magic_index(occ: Bitboard, mask: Bitboard, magic: u64, shift: u32) -> usize {
    ((occ & mask).merge().wrapping_mul(magic) >> shift) as usize
}

#[derive(Copy, Clone, Default)]
struct MagicEntry {
    mask: Bitboard,
    magic: u64,
    shift: u32,
    offset: u32,
}

struct SliderTables {
    bishop: [MagicEntry; SQ_ENTRIES],
    attacks: Vec<Bitboard>,
}

fn fill_magic(
    entries: &mut [MagicEntry; SQ_ENTRIES],
    attacks: &mut Vec<Bitboard>,
    magics: &[(u64, u32); 81],
    dirs: &[(i8, i8)],
) {
    for sq in Square::all() {
        let mask = relevant_mask(sq, dirs);
        let squares: Vec<Square> = mask.iter().collect();
        let (magic, index_bits) = magics[sq.index()];
        let offset = attacks.len();
        attacks.resize(offset + (1usize << index_bits), Bitboard::EMPTY);
        let e = MagicEntry { mask, magic, shift: 64 - index_bits, offset: offset as u32 };
        for i in 0..(1usize << squares.len()) {
            let occ = mask_subset(&squares, i);
            let idx = offset + magic_index(occ, mask, e.magic, e.shift);
            attacks[idx] = slider_attacks_slow(sq, occ, dirs);
        }
        entries[sq.index()] = e;
    }
}

static SLIDERS: Lazy<SliderTables> = Lazy::new(|| {
    let mut t = SliderTables { bishop: [MagicEntry::default(); SQ_ENTRIES], attacks: Vec::with_capacity(26_000) };
    fill_magic(&mut t.bishop, &mut t.attacks, &BISHOP_MAGICS, &BISHOP_DIRS);
    // `Square::NONE`: an empty mask and a zero magic always index one empty entry.
    let none = MagicEntry { mask: Bitboard::EMPTY, magic: 0, shift: 0, offset: t.attacks.len() as u32 };
    t.attacks.push(Bitboard::EMPTY);
    t.bishop[Square::NONE.index()] = none;
    t
});

/// Builds the slider tables now (they are otherwise built on first use).
pub fn init() {
    Lazy::force(&SLIDERS);
}

/// A rook's attacks: along its file (both rays at once, as `lance_attacks` finds one) and
/// along its rank (`rank_attacks`).
#[inline]
pub fn rook_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    file_attacks(sq, occ) | rank_attacks(sq, occ)
}

/// Both rays along the file of `sq` (the two lances' rays; inlined, they share the word).
#[inline]
pub fn file_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    lance_attacks(Color::Black, sq, occ) | lance_attacks(Color::White, sq, occ)
}

/// Files 2-7 on the first rank of the first word (bits 9, 18, .. 54): the inner squares of a
/// rank there, once the rank is shifted down to the first.
const RANK_INNER_WORD0: u64 = 0x0040_2010_0804_0200;
/// Multiplier that gathers those six bits (9 i for i in 1..=6) onto bits 58-63: bit 9 i goes
/// to 57 + i through the term 2^(57 - 8 i); every other product lands on a distinct bit below
/// 58 or beyond the word, so no carry reaches the gathered bits.
const RANK_GATHER: u64 = (1 << 49) | (1 << 41) | (1 << 33) | (1 << 25) | (1 << 17) | (1 << 9);

/// `RANK_TABLE[file][inner]`: a rook's attacks along the first rank from `file` when the rank's
/// inner squares (files 2-8, bit k for file k + 2) hold `inner`; file 9 of the table stands for
/// `Square::NONE`, which attacks nothing. 10 x 128 bitboards, 20 KiB.
static RANK_TABLE: [[Bitboard; 128]; 10] = rank_table();

const fn rank_table() -> [[Bitboard; 128]; 10] {
    let mut t = [[Bitboard::EMPTY; 128]; 10];
    let mut file = 0;
    while file < 9 {
        let mut inner = 0;
        while inner < 128 {
            let mut att = Bitboard::EMPTY;
            let mut dir = 0;
            while dir < 2 {
                let step: i32 = if dir == 0 { -1 } else { 1 };
                let mut f = file as i32 + step;
                while f >= 0 && f < 9 {
                    att = att.const_or(Bitboard::from_square(Square::from_file_rank(f as u8, 0)));
                    // Files 1 and 9 (indices 0 and 8) end the rank; the inner ones may block.
                    if f == 0 || f == 8 || inner >> (f - 1) & 1 != 0 {
                        break;
                    }
                    f += step;
                }
                dir += 1;
            }
            t[file][inner] = att;
            inner += 1;
        }
        file += 1;
    }
    t
}

/// A rook's attacks along the rank of `sq`: the rank's inner occupancy gathered into 7 bits
/// (six from the first word by one multiplication, file 8's from the second), the first rank's
/// answer looked up, then shifted up to the rank.
#[inline]
pub fn rank_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let r = sq.rank() as u32;
    let low = ((occ.part(0) >> r) & RANK_INNER_WORD0).wrapping_mul(RANK_GATHER) >> 58;
    let high = (occ.part(1) >> r) & 1; // file 8 (index 7) is the second word's first file
    let att = RANK_TABLE[sq.file() as usize][(low | high << 6) as usize];
    Bitboard::from_parts(att.part(0) << r, att.part(1) << r)
}

#[inline]
pub fn bishop_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let t = &*SLIDERS;
    let e = &t.bishop[sq.index()];
    t.attacks[e.offset as usize + magic_index(occ, e.mask, e.magic, e.shift)]
}

#[inline]
pub fn dragon_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    rook_attacks(sq, occ) | king_attacks(sq)
}

#[inline]
pub fn horse_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    bishop_attacks(sq, occ) | king_attacks(sq)
}

/// Lance attacks from the file's word alone: Black looks towards lower bits and stops at the
/// highest blocker below it, White looks up and stops at the lowest blocker above it.
/// `Square::NONE` (bit 18 of the second word, just past the board) gets an empty ray: Black's
/// ray below it is empty, White's lies above the board and `from_parts` masks it off.
#[inline]
pub fn lance_attacks(c: Color, sq: Square, occ: Bitboard) -> Bitboard {
    let i = sq.index();
    let (word, bit) = if i < 63 { (0, i) } else { (1, i - 63) };
    let file_base = bit - sq.rank() as usize; // bit of rank a of this file
    let file_bits: u64 = 0x1ff << file_base;
    let o = occ.part(word);
    // Branch-free: an empty blocker set is padded with a bit that selects the whole ray.
    let att = match c {
        Color::Black => {
            let below = file_bits & ((1u64 << bit) - 1);
            let b = 63 - ((o & below) | 1).leading_zeros();
            below & !((1u64 << b) - 1)
        }
        Color::White => {
            let above = file_bits & !((2u64 << bit) - 1);
            let b = ((o & above) | (1 << 63)).trailing_zeros();
            above & (2u64 << b).wrapping_sub(1)
        }
    };
    if word == 0 { Bitboard::from_parts(att, 0) } else { Bitboard::from_parts(0, att) }
}

/// Lance attacks on an empty board.
#[inline]
pub fn lance_pseudo_attacks(c: Color, sq: Square) -> Bitboard {
    lance_attacks(c, sq, Bitboard::EMPTY)
}

/// Attacks of any piece kind of colour `c` on `sq` with occupancy `occ`.
#[inline]
pub fn attacks_of(c: Color, pt: PieceType, sq: Square, occ: Bitboard) -> Bitboard {
    match pt {
        PieceType::Pawn => pawn_attacks(c, sq),
        PieceType::Lance => lance_attacks(c, sq, occ),
        PieceType::Knight => knight_attacks(c, sq),
        PieceType::Silver => silver_attacks(c, sq),
        PieceType::Bishop => bishop_attacks(sq, occ),
        PieceType::Rook => rook_attacks(sq, occ),
        PieceType::King => king_attacks(sq),
        PieceType::Horse => horse_attacks(sq, occ),
        PieceType::Dragon => dragon_attacks(sq, occ),
        PieceType::Gold | PieceType::ProPawn | PieceType::ProLance | PieceType::ProKnight | PieceType::ProSilver => {
            gold_attacks(c, sq)
        }
    }
}

type LineTable = [[Bitboard; SQ_ENTRIES]; SQ_ENTRIES];

/// `between` and `line` for every pair of squares; the rows and columns of `Square::NONE`
/// stay empty.
const fn line_tables() -> (LineTable, LineTable) {
    let mut between = [[Bitboard::EMPTY; SQ_ENTRIES]; SQ_ENTRIES];
    let mut line = [[Bitboard::EMPTY; SQ_ENTRIES]; SQ_ENTRIES];
    let dirs: [(i8, i8); 8] = [(0, -1), (0, 1), (-1, 0), (1, 0), (-1, -1), (1, -1), (-1, 1), (1, 1)];
    let mut a = 0;
    while a < 81 {
        let sa = Square::new(a as u8);
        let mut d = 0;
        while d < 8 {
            let (df, dr) = dirs[d];
            // Full line through `a` in this direction and the opposite one.
            let mut full = Bitboard::from_square(sa);
            let mut cur = offset(sa, df, dr);
            while let Some(t) = cur {
                full = full.const_or(Bitboard::from_square(t));
                cur = offset(t, df, dr);
            }
            let mut cur = offset(sa, -df, -dr);
            while let Some(t) = cur {
                full = full.const_or(Bitboard::from_square(t));
                cur = offset(t, -df, -dr);
            }
            let mut btw = Bitboard::EMPTY;
            let mut cur = offset(sa, df, dr);
            while let Some(t) = cur {
                between[a][t.index()] = btw;
                line[a][t.index()] = full;
                btw = btw.const_or(Bitboard::from_square(t));
                cur = offset(t, df, dr);
            }
            d += 1;
        }
        a += 1;
    }
    (between, line)
}

static LINES: (LineTable, LineTable) = line_tables();

/// For each square, every square on its rank, file and diagonals (itself excluded): the union
/// of its lines; empty for `Square::NONE`.
static QUEEN_LINES: [Bitboard; SQ_ENTRIES] = {
    let mut out = [Bitboard::EMPTY; SQ_ENTRIES];
    let mut a = 0;
    while a < 81 {
        let mut b = 0;
        while b < 81 {
            out[a] = out[a].const_or(LINES.1[a][b]);
            b += 1;
        }
        out[a] = out[a].const_and(Bitboard::from_square(Square::new(a as u8)).const_not());
        a += 1;
    }
    out
};

/// Every square on a rank, file or diagonal through `sq` (`sq` itself excluded).
#[inline]
pub fn queen_lines(sq: Square) -> Bitboard {
    QUEEN_LINES[sq.index()]
}

/// Squares strictly between `a` and `b` when they share a rank, file or diagonal; else empty.
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    LINES.0[a.index()][b.index()]
}

/// The whole line through `a` and `b` (edge to edge) when aligned; else empty.
#[inline]
pub fn line(a: Square, b: Square) -> Bitboard {
    LINES.1[a.index()][b.index()]
}

#[inline]
pub fn aligned(a: Square, b: Square, c: Square) -> bool {
    line(a, b).contains(c)
}

/// Magic search: a deterministic xorshift generator, sparse candidates, and the collision
/// test against the reference attack function. Used by `src/bin/find_magics.rs`.
pub mod finder {
    use super::*;

    pub struct XorShift(u64);

    impl XorShift {
        pub fn new(seed: u64) -> Self {
            XorShift(seed | 1)
        }
        pub fn next_u64(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }
        /// Candidates of varying density: sparse ones suit masks in the low bits, denser
        /// ones the masks whose bits sit near the top of the word.
        pub fn candidate(&mut self, round: u32) -> u64 {
            match round % 3 {
                0 => self.next_u64() & self.next_u64() & self.next_u64(),
                1 => self.next_u64() & self.next_u64(),
                _ => self.next_u64(),
            }
        }
    }

    /// Finds a magic for `sq` with rook (`rook = true`) or bishop rays.
    /// Returns the magic and its index width. A few squares resist the minimal width (the
    /// merged key puts their mask bits near the top of the word); after a bounded search they
    /// get one index bit more, which costs a little table space and no lookup time.
    pub fn find(sq: Square, rook: bool, rng: &mut XorShift) -> (u64, u32) {
        let bits = if rook { rook_mask(sq) } else { bishop_mask(sq) }.count();
        for extra in 0.. {
            let budget = if extra == 0 { 1_000_000 } else { u32::MAX };
            if let Some(m) = find_with(sq, rook, rng, extra, budget) {
                return (m, bits + extra);
            }
        }
        unreachable!("the unbounded round always returns")
    }

    /// Like `find` with `extra` index bits and at most `max_tries` candidates.
    pub fn find_with(sq: Square, rook: bool, rng: &mut XorShift, extra: u32, max_tries: u32) -> Option<u64> {
        let dirs: &[(i8, i8)] = if rook { &ROOK_DIRS } else { &BISHOP_DIRS };
        let mask = relevant_mask(sq, dirs);
        let squares: Vec<Square> = mask.iter().collect();
        let bits = squares.len() as u32;
        let n = 1usize << bits;
        let slots = 1usize << (bits + extra);
        let occs: Vec<Bitboard> = (0..n).map(|i| mask_subset(&squares, i)).collect();
        let atts: Vec<Bitboard> = occs.iter().map(|&o| slider_attacks_slow(sq, o, dirs)).collect();
        let mut used = vec![None::<Bitboard>; slots];
        let mut epoch = vec![0u32; slots];
        let mut tries = 0u32;
        loop {
            tries += 1;
            let magic = rng.candidate(tries);
            let mut ok = true;
            for i in 0..n {
                let idx = magic_index(occs[i], mask, magic, 64 - bits - extra);
                if epoch[idx] != tries {
                    epoch[idx] = tries;
                    used[idx] = Some(atts[i]);
                } else if used[idx] != Some(atts[i]) {
                    ok = false;
                    break;
                }
            }
            if ok {
                return Some(magic);
            }
            if tries >= max_tries {
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queen_lines_are_the_empty_board_slider_attacks() {
        for sq in Square::all() {
            let want = rook_attacks_slow(sq, Bitboard::EMPTY) | bishop_attacks_slow(sq, Bitboard::EMPTY);
            assert_eq!(queen_lines(sq), want, "{sq}");
        }
        assert!(queen_lines(Square::NONE).is_empty());
    }

    fn random_occupancies(n: usize) -> Vec<Bitboard> {
        let mut rng = finder::XorShift::new(0x9e37_79b9_7f4a_7c15);
        let mut v = vec![Bitboard::EMPTY, Bitboard::ALL];
        for i in 0..n {
            let dense = i % 3;
            let mut p0 = rng.next_u64();
            let mut p1 = rng.next_u64();
            for _ in 0..dense {
                p0 &= rng.next_u64();
                p1 &= rng.next_u64();
            }
            v.push(Bitboard::from_parts(p0, p1));
        }
        v
    }

    #[test]
    fn sliders_match_reference() {
        let occs = random_occupancies(3000);
        for sq in Square::all() {
            for &occ in &occs {
                assert_eq!(rook_attacks(sq, occ), rook_attacks_slow(sq, occ), "rook {sq}");
                assert_eq!(bishop_attacks(sq, occ), bishop_attacks_slow(sq, occ), "bishop {sq}");
                for c in Color::ALL {
                    assert_eq!(lance_attacks(c, sq, occ), lance_attacks_slow(c, sq, occ), "lance {sq}");
                }
            }
        }
    }

    #[test]
    fn every_mask_subset_matches_reference() {
        for sq in Square::all() {
            for (rook, mask) in [(true, rook_mask(sq)), (false, bishop_mask(sq))] {
                let squares: Vec<Square> = mask.iter().collect();
                for i in 0..(1usize << squares.len()) {
                    let occ = mask_subset(&squares, i);
                    if rook {
                        assert_eq!(rook_attacks(sq, occ), rook_attacks_slow(sq, occ));
                    } else {
                        assert_eq!(bishop_attacks(sq, occ), bishop_attacks_slow(sq, occ));
                    }
                }
            }
        }
    }

    #[test]
    fn masks_do_not_collide_when_merged() {
        for sq in Square::all() {
            let mask = bishop_mask(sq);
            assert_eq!(mask.merge().count_ones(), mask.count(), "{sq}");
        }
    }

    #[test]
    fn step_tables() {
        let sq = Square::parse("5e").unwrap();
        assert_eq!(king_attacks(sq).count(), 8);
        assert_eq!(gold_attacks(Color::Black, sq).count(), 6);
        assert_eq!(silver_attacks(Color::White, sq).count(), 5);
        assert!(pawn_attacks(Color::Black, sq).contains(Square::parse("5d").unwrap()));
        assert!(pawn_attacks(Color::White, sq).contains(Square::parse("5f").unwrap()));
        let n = knight_attacks(Color::Black, sq);
        assert!(n.contains(Square::parse("4c").unwrap()) && n.contains(Square::parse("6c").unwrap()));
        assert!(knight_attacks(Color::Black, Square::parse("5b").unwrap()).is_empty());
    }

    #[test]
    fn a_missing_king_attacks_nothing_and_lines_up_with_nothing() {
        let none = Square::NONE;
        for occ in random_occupancies(200) {
            assert!(rook_attacks(none, occ).is_empty() && bishop_attacks(none, occ).is_empty());
            for c in Color::ALL {
                assert!(lance_attacks(c, none, occ).is_empty());
            }
        }
        for c in Color::ALL {
            for pt in PieceType::ALL {
                assert!(attacks_of(c, pt, none, Bitboard::EMPTY).is_empty(), "{pt:?}");
            }
            assert!(lance_pseudo_attacks(c, none).is_empty());
        }
        for sq in Square::all() {
            assert!(between(none, sq).is_empty() && between(sq, none).is_empty());
            assert!(line(none, sq).is_empty() && line(sq, none).is_empty());
            assert!(!Bitboard::ALL.contains(none));
        }
    }

    #[test]
    fn between_and_line() {
        let a = Square::parse("1a").unwrap();
        let b = Square::parse("9i").unwrap();
        assert_eq!(between(a, b).count(), 7);
        assert_eq!(line(a, b).count(), 9);
        assert!(between(a, Square::parse("2c").unwrap()).is_empty());
        assert!(aligned(a, b, Square::parse("5e").unwrap()));
    }
}
