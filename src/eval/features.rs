//! The evaluation's features. The same visitor feeds the evaluation (a weighted sum) and the
//! tuner (sparse feature lists), so what is trained is exactly what is evaluated.
//!
//! Every feature is seen from its owner's side: a White piece is looked at on the board rotated
//! by 180 degrees, so one table serves both colours. Black's features count +1, White's -1, and
//! the sum is Black's advantage.
//!
//! Layout (see the `*_BASE` constants):
//! - material on the board, per kind;
//! - pieces in hand, per kind and count (one-hot: count n uses entry n);
//! - each piece relative to its own king and relative to the enemy king (file and rank offset,
//!   17 x 17 per kind): the king-relative piece-square terms;
//! - the king's own square;
//! - king safety: attack units on the king's neighbourhood, by the attacker's non-pawn hand;
//! - own golds and silvers next to the king, escape squares, attacked neighbours, the open
//!   file in front of the king;
//! - each piece on its square (owner's view), per kind;
//! - control of the squares around each king (5 x 5): who attacks each square and how often
//!   (0, 1, 2 or more per side), what stands on it, and what the attacker holds in hand;
//! - tempo (the side to move).
//!
//! A side without a king (the attacker of a mate problem) simply has none of the terms that
//! look at its king: no offsets from it, no king square, safety or control features; its
//! hand and its pieces' material and squares count as usual.

use crate::shogi::attacks::{attacks_of, king_attacks};
use crate::shogi::bitboard::{Bitboard, FILES};
use crate::shogi::{Color, PieceType, Position, Square};

pub const MATERIAL_BASE: usize = 0;
const MATERIAL_SIZE: usize = 15;
pub const HAND_BASE: usize = MATERIAL_BASE + MATERIAL_SIZE;
/// Counts 0..=18 per hand kind 0..8.
pub const HAND_COUNTS: usize = 19;
const HAND_SIZE: usize = 8 * HAND_COUNTS;
/// 17 file offsets x 17 rank offsets.
pub const REL: usize = 17 * 17;
pub const KP_OWN_BASE: usize = HAND_BASE + HAND_SIZE;
const KP_SIZE: usize = 15 * REL;
pub const KP_ENEMY_BASE: usize = KP_OWN_BASE + KP_SIZE;
pub const KING_SQ_BASE: usize = KP_ENEMY_BASE + KP_SIZE;
pub const ATTACK_UNITS: usize = 24;
pub const ATTACK_HAND: usize = 4;
pub const KING_ATTACK_BASE: usize = KING_SQ_BASE + 81;
pub const DEFENDERS: usize = 9;
pub const DEFENDER_BASE: usize = KING_ATTACK_BASE + ATTACK_UNITS * ATTACK_HAND;
/// Escape squares: king neighbours neither held by own pieces nor attacked (0..=8).
pub const ESCAPE_BASE: usize = DEFENDER_BASE + DEFENDERS;
/// Attacked king neighbours (0..=8) by the attacker's non-pawn hand bucket.
pub const ATTACKED_BASE: usize = ESCAPE_BASE + 9;
/// The file in front of the king has no own pawn, by whether the enemy has a rook or lance
/// (on the board or in hand) to use it.
pub const OPEN_FILE_BASE: usize = ATTACKED_BASE + 9 * ATTACK_HAND;
/// Each piece on its square (owner's view), per kind: placement that does not depend on
/// where the kings stand (advanced pawns, a rook on the enemy's camp).
pub const PSQ_BASE: usize = OPEN_FILE_BASE + 2;
/// Control of the king's 5 x 5 area: square offset (25) x occupant (empty, owner's, enemy's) x
/// enemy attackers (0..=2) x owner's attackers (0..=2) x enemy non-pawn hand (0..=2).
pub const CONTROL_BASE: usize = PSQ_BASE + 15 * 81;
pub const CONTROL_HAND: usize = 3;
const CONTROL_SIZE: usize = 25 * 3 * 3 * 3 * CONTROL_HAND;
pub const TEMPO_INDEX: usize = CONTROL_BASE + CONTROL_SIZE;
/// Number of weights.
pub const NUM_FEATURES: usize = TEMPO_INDEX + 1;
// Feature indices travel as u16 (`FeatureSink::add_all`).
const _: () = assert!(NUM_FEATURES <= u16::MAX as usize);

/// Receives features: `index` into the weight table, `coef` its multiplicity with sign.
pub trait FeatureSink {
    fn add(&mut self, index: usize, coef: i32);

    /// `add(i, coef)` for every `i` of `indices`.
    #[inline]
    fn add_all(&mut self, indices: &[u16], coef: i32) {
        for &i in indices {
            self.add(i as usize, coef);
        }
    }
}

/// `sq` as seen by `c` (White looks at the rotated board).
#[inline]
fn view(c: Color, sq: Square) -> Square {
    if c == Color::Black { sq } else { sq.rotate() }
}

/// Offset of `sq` from `king`, both already in the owner's view.
#[inline]
pub fn relative(sq: Square, king: Square) -> usize {
    let df = sq.file() as i32 - king.file() as i32 + 8;
    let dr = sq.rank() as i32 - king.rank() as i32 + 8;
    (df * 17 + dr) as usize
}

/// Pieces that count as the king's guards (golds and gold-movers, silvers).
#[inline]
pub fn is_defender(pt: PieceType) -> bool {
    matches!(
        pt,
        PieceType::Gold
            | PieceType::Silver
            | PieceType::ProPawn
            | PieceType::ProLance
            | PieceType::ProKnight
            | PieceType::ProSilver
    )
}

/// Per square, the squares within Chebyshev distance `radius` of it (the square itself
/// included or not).
const fn squares_near(radius: i32, include_self: bool) -> [Bitboard; 81] {
    let mut t = [Bitboard::EMPTY; 81];
    let mut k: usize = 0;
    while k < 81 {
        let (kf, kr) = ((k / 9) as i32, (k % 9) as i32);
        let mut s: usize = 0;
        while s < 81 {
            let (f, r) = ((s / 9) as i32, (s % 9) as i32);
            if (f - kf).abs() <= radius && (r - kr).abs() <= radius && (include_self || s != k) {
                t[k] = t[k].const_or(Bitboard::from_square(Square::new(s as u8)));
            }
            s += 1;
        }
        k += 1;
    }
    t
}

/// The area around a king whose control the evaluation looks at (5x5, the king's square
/// excluded).
#[cfg(test)]
static NEAR2: [Bitboard; 81] = squares_near(2, false);

/// Offset index `(file offset + 2) * 5 + (rank offset + 2)` of a square of a king's 5x5 area,
/// by the difference of the square indices plus 20 (`index = file * 9 + rank`; with rank
/// offsets of at most 2 the difference determines both offsets).
#[cfg(test)]
static ZONE_OFFSET: [u8; 41] = {
    let mut t = [0u8; 41];
    let mut df: i32 = -2;
    while df <= 2 {
        let mut dr: i32 = -2;
        while dr <= 2 {
            t[(df * 9 + dr + 20) as usize] = ((df + 2) * 5 + dr + 2) as u8;
            dr += 1;
        }
        df += 1;
    }
    t
};

/// Where a step piece (a knight at most two ranks further) can stand to reach a king's 5x5
/// area.
static NEAR4: [Bitboard; 81] = squares_near(4, true);

/// Who controls the kings' surroundings: per colour, the squares it attacks at least once and
/// at least twice (bit-sliced counters; exact on both kings' 5x5 areas, where only pieces that
/// can reach them are looked at: step pieces nearby and sliders anywhere), and the attack units
/// of the enemy on each king's 3x3 area (each attacked square of it counts once per attacking
/// piece, the king's own attacks excluded).
pub struct Control {
    once: [Bitboard; 2],
    twice: [Bitboard; 2],
    units: [u32; 2],
}

impl Control {
    pub fn of(pos: &Position) -> Control {
        let occ = pos.occupied();
        let kings = Color::ALL.map(|c| pos.king_square_opt(c));
        let zones = kings.map(|k| k.map_or(Bitboard::EMPTY, |k| king_attacks(k) | Bitboard::from_square(k)));
        let near = |k: Option<Square>| k.map_or(Bitboard::EMPTY, |k| NEAR4[k.index()]);
        let sliders = pos.pieces_kind(PieceType::Lance) | pos.bishops_horses() | pos.rooks_dragons();
        let mut ctl = Control { once: [Bitboard::EMPTY; 2], twice: [Bitboard::EMPTY; 2], units: [0; 2] };
        // Pawns all at once: no two of one side attack the same square.
        for c in Color::ALL {
            let a = pos.pieces(c, PieceType::Pawn).shift_forward(c);
            ctl.once[c.index()] = a;
            ctl.units[(!c).index()] = (a & zones[(!c).index()]).count();
        }
        let pawns = pos.pieces_kind(PieceType::Pawn);
        let candidates = (near(kings[0]) | near(kings[1]) | sliders) & occ.and_not(pawns);
        for sq in candidates {
            let piece = pos.piece_on(sq);
            let (x, pt) = (piece.color().index(), piece.kind());
            let a = attacks_of(piece.color(), pt, sq, occ);
            ctl.twice[x] |= ctl.once[x] & a;
            ctl.once[x] |= a;
            if pt != PieceType::King {
                ctl.units[1 - x] += (a & zones[1 - x]).count();
            }
        }
        ctl
    }
}

/// The 5 x 5 window of `b` around the square at `file`, `rank`: bit `(df + 2) * 5 + (dr + 2)`
/// is the square at file offset `df` and rank offset `dr` (Black's view); squares off the
/// board read as empty.
#[inline(always)]
fn window(b: u128, file: i32, rank: u32) -> u32 {
    let mut w = 0u32;
    for df in -2..=2i32 {
        let f = file + df;
        if (0..9).contains(&f) {
            let column = (b >> (f * 9)) as u32 & 0x1ff;
            w |= (((column << 2) >> rank) & 0x1f) << ((df + 2) * 5);
        }
    }
    w
}

/// Per king square, the window bits (`window`) of the squares of its 5x5 area on the board.
static ZONE_WINDOW: [u32; 81] = {
    let mut t = [0u32; 81];
    let mut k = 0;
    while k < 81 {
        let (kf, kr) = ((k / 9) as i32, (k % 9) as i32);
        let mut df: i32 = -2;
        while df <= 2 {
            let mut dr: i32 = -2;
            while dr <= 2 {
                let (f, r) = (kf + df, kr + dr);
                if f >= 0 && f < 9 && r >= 0 && r < 9 && (df != 0 || dr != 0) {
                    t[k] |= 1 << ((df + 2) * 5 + dr + 2);
                }
                dr += 1;
            }
            df += 1;
        }
        k += 1;
    }
    t
};

/// Control features of `c`'s king on `ksq`: for every square of its 5x5 area, the square's
/// offset (owner's view), the attackers of both sides on it (0, 1, 2 or more), its occupant,
/// and the enemy's non-pawn hand.
#[inline]
fn visit_control<S: FeatureSink>(
    pos: &Position,
    ctl: &Control,
    ksq: Square,
    c: Color,
    enemy_hand: usize,
    sign: i32,
    sink: &mut S,
) {
    let (me, them) = (c.index(), (!c).index());
    let (f, r) = (ksq.file() as i32, ksq.rank() as u32);
    let w = |b: Bitboard| window(b.to_u128(), f, r);
    let own_once = w(ctl.once[me]);
    let own_twice = w(ctl.twice[me]);
    let enemy_once = w(ctl.once[them]);
    let enemy_twice = w(ctl.twice[them]);
    let own = w(pos.pieces_of(c));
    let enemy = w(pos.pieces_of(!c));
    let hand = enemy_hand.min(CONTROL_HAND - 1);
    let mut squares = ZONE_WINDOW[ksq.index()];
    let mut cells = [0u16; 24];
    let mut n = 0;
    while squares != 0 {
        let j = squares.trailing_zeros();
        squares &= squares - 1;
        let bit = |b: u32| (b >> j) as usize & 1;
        // Offset in Black's view; White's view is the board turned round.
        let rel = if c == Color::Black { j as usize } else { 24 - j as usize };
        let cell = rel * 27
            + (bit(own) + 2 * bit(enemy)) * 9
            + (bit(enemy_once) + bit(enemy_twice)) * 3
            + bit(own_once)
            + bit(own_twice);
        cells[n] = (CONTROL_BASE + cell * CONTROL_HAND + hand) as u16;
        n += 1;
    }
    sink.add_all(&cells[..n], sign);
}

/// Non-pawn pieces in hand, bucketed 0..=3.
fn hand_bucket(pos: &Position, c: Color) -> usize {
    let h = pos.hand(c);
    let n: u32 =
        [PieceType::Lance, PieceType::Knight, PieceType::Silver, PieceType::Gold, PieceType::Bishop, PieceType::Rook]
            .iter()
            .map(|&pt| h.count(pt))
            .sum();
    (n as usize).min(ATTACK_HAND - 1)
}

/// Visits every feature of `pos`.
#[inline]
pub fn visit<S: FeatureSink>(pos: &Position, sink: &mut S) {
    let ctl = Control::of(pos);
    for c in Color::ALL {
        visit_pieces(pos, c, sink);
        visit_king(pos, &ctl, c, sink);
    }
    visit_tempo(pos, sink);
}

/// The features that are a sum over the board's pieces and do not look at the rest of the
/// board: every feature that `PieceTerms` sums.
#[inline]
pub fn visit_pieces<S: FeatureSink>(pos: &Position, c: Color, sink: &mut S) {
    let sign = if c == Color::Black { 1 } else { -1 };
    let kings = [pos.king_square(c), pos.king_square(!c)];
    for sq in pos.pieces_of(c) {
        let pt = pos.piece_on(sq).kind();
        if pt != PieceType::King {
            visit_piece(c, pt, sq, kings, sign, sink);
        }
    }
}

/// One piece's features: material, its offsets from both kings, its square. `kings`: the
/// owner's king, then the enemy's (`Square::NONE` for a missing one, which has no offsets).
#[inline(always)]
pub fn visit_piece<S: FeatureSink>(c: Color, pt: PieceType, sq: Square, kings: [Square; 2], sign: i32, sink: &mut S) {
    let v = view(c, sq);
    let k = pt.index();
    sink.add(MATERIAL_BASE + k, sign);
    if kings[0] != Square::NONE {
        sink.add(KP_OWN_BASE + k * REL + relative(v, view(c, kings[0])), sign);
    }
    if kings[1] != Square::NONE {
        sink.add(KP_ENEMY_BASE + k * REL + relative(v, view(c, kings[1])), sign);
    }
    sink.add(PSQ_BASE + k * 81 + v.index(), sign);
}

/// The hand and king features of `c`: hand counts, the king's square, king safety and the
/// control of its surroundings.
#[inline]
pub fn visit_king<S: FeatureSink>(pos: &Position, ctl: &Control, c: Color, sink: &mut S) {
    let sign = if c == Color::Black { 1 } else { -1 };
    let hand = pos.hand(c);
    for pt in PieceType::HAND {
        let n = hand.count(pt) as usize;
        if n > 0 {
            sink.add(HAND_BASE + pt.index() * HAND_COUNTS + n.min(HAND_COUNTS - 1), sign);
        }
    }
    let Some(ksq) = pos.king_square_opt(c) else { return };
    sink.add(KING_SQ_BASE + view(c, ksq).index(), sign);
    let attacked = ctl.once[(!c).index()];
    let units = (ctl.units[c.index()] as usize).min(ATTACK_UNITS - 1);
    let enemy_hand = hand_bucket(pos, !c);
    // Attacks on c's king count against c.
    sink.add(KING_ATTACK_BASE + units * ATTACK_HAND + enemy_hand, sign);
    let neighbours = king_attacks(ksq);
    let guards = (pos.golds() | pos.pieces_kind(PieceType::Silver)) & pos.pieces_of(c);
    let defenders = (guards & neighbours).count() as usize;
    sink.add(DEFENDER_BASE + defenders.min(DEFENDERS - 1), sign);
    let escapes = neighbours.and_not(pos.pieces_of(c) | attacked).count() as usize;
    sink.add(ESCAPE_BASE + escapes, sign);
    sink.add(ATTACKED_BASE + (neighbours & attacked).count() as usize * ATTACK_HAND + enemy_hand, sign);
    let own_pawn_on_file = (pos.pieces(c, PieceType::Pawn) & FILES[ksq.file() as usize]).is_nonempty();
    if !own_pawn_on_file {
        let e = !c;
        let enemy_line = pos.hand(e).has(PieceType::Rook)
            || pos.hand(e).has(PieceType::Lance)
            || (pos.rooks_dragons() & pos.pieces_of(e)).is_nonempty()
            || pos.pieces(e, PieceType::Lance).is_nonempty();
        sink.add(OPEN_FILE_BASE + enemy_line as usize, sign);
    }
    visit_control(pos, ctl, ksq, c, enemy_hand, sign, sink);
}

#[inline]
pub fn visit_tempo<S: FeatureSink>(pos: &Position, sink: &mut S) {
    sink.add(TEMPO_INDEX, if pos.side_to_move() == Color::Black { 1 } else { -1 });
}

/// Collects features as a sparse list (for the tuner).
#[derive(Default, Debug, Clone)]
pub struct FeatureList(pub Vec<(u32, i8)>);

impl FeatureSink for FeatureList {
    #[inline]
    fn add(&mut self, index: usize, coef: i32) {
        self.0.push((index as u32, coef as i8));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_read_the_squares_around_each_king() {
        let pos = Position::from_sfen("8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124")
            .unwrap();
        let occ = pos.occupied();
        for k in 0..81u8 {
            let ksq = Square::new(k);
            let w = window(occ.to_u128(), ksq.file() as i32, ksq.rank() as u32);
            let zone = ZONE_WINDOW[k as usize];
            assert_eq!(zone.count_ones(), NEAR2[k as usize].count());
            for sq in NEAR2[k as usize] {
                let j = ZONE_OFFSET[sq.index() + 20 - ksq.index()];
                assert!(zone >> j & 1 == 1);
                assert_eq!(w >> j & 1 == 1, occ.contains(sq), "{sq:?} around {ksq:?}");
            }
        }
    }

    #[test]
    fn zone_offsets_follow_files_and_ranks() {
        for k in 0..81u8 {
            let ksq = Square::new(k);
            for sq in NEAR2[k as usize] {
                let df = sq.file() as i32 - ksq.file() as i32 + 2;
                let dr = sq.rank() as i32 - ksq.rank() as i32 + 2;
                assert_eq!(ZONE_OFFSET[sq.index() + 20 - ksq.index()] as i32, df * 5 + dr);
            }
            assert!(!NEAR2[k as usize].contains(ksq));
        }
    }

    #[test]
    fn control_counts_the_attackers_around_both_kings() {
        for sfen in [
            crate::shogi::STARTPOS,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
            "l7l/3s5/prnp2kp1/2p1Gppnp/1P7/PnPP1P3/3BP2PP/1S1G5/LN1K1G1+rL b SBG3ps 91",
        ] {
            let pos = Position::from_sfen(sfen).unwrap();
            let ctl = Control::of(&pos);
            for k in Color::ALL {
                let ksq = pos.king_square(k);
                for sq in NEAR2[ksq.index()] {
                    for c in Color::ALL {
                        let n = pos.attackers_to(c, sq).count().min(2);
                        let got = ctl.once[c.index()].contains(sq) as u32 + ctl.twice[c.index()].contains(sq) as u32;
                        assert_eq!(got, n, "{sfen}: {c:?} on {sq:?}");
                    }
                }
                // Units: every attacker of each square of the 3x3 area counts once, the king's
                // own attacks aside.
                let zone = king_attacks(ksq) | Bitboard::from_square(ksq);
                let units: u32 = zone
                    .into_iter()
                    .map(|sq| pos.attackers_to(!k, sq).and_not(pos.pieces_kind(PieceType::King)).count())
                    .sum();
                assert_eq!(ctl.units[k.index()], units, "{sfen}: units on {k:?}'s king");
            }
        }
    }

    #[test]
    fn a_missing_king_has_no_king_features() {
        // Black has no king, one pawn on the board and a gold in hand; White only its king.
        let p = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G 1").unwrap();
        let mut l = FeatureList::default();
        visit(&p, &mut l);
        let of =
            |lo: usize, hi: usize| l.0.iter().filter(|(i, _)| (lo..hi).contains(&(*i as usize))).collect::<Vec<_>>();
        // White's king square, safety and control features only.
        assert!(of(KING_SQ_BASE, KING_SQ_BASE + 81).iter().all(|(_, c)| *c == -1));
        assert_eq!(of(KING_SQ_BASE, KING_SQ_BASE + 81).len(), 1);
        assert_eq!(of(KING_ATTACK_BASE, DEFENDER_BASE).len(), 1);
        assert!(of(CONTROL_BASE, TEMPO_INDEX).iter().all(|(_, c)| *c == -1));
        // The pawn: material, its square, its offset from White's king and none from its own.
        assert_eq!(of(KP_OWN_BASE, KP_ENEMY_BASE).len(), 0);
        assert_eq!(of(KP_ENEMY_BASE, KING_SQ_BASE).len(), 1);
        assert_eq!(of(PSQ_BASE, CONTROL_BASE).len(), 1);
        assert_eq!(of(HAND_BASE, KP_OWN_BASE).len(), 1);
        let ctl = Control::of(&p);
        assert_eq!(ctl.units[Color::Black.index()], 0);
        assert_eq!(ctl.units[Color::White.index()], 1, "the pawn attacks 5b next to White's king");
    }

    #[test]
    fn rotated_position_has_opposite_features() {
        let a = Position::from_sfen("l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1").unwrap();
        let b = a.flipped();
        let sum = |p: &Position| {
            let mut l = FeatureList::default();
            visit(p, &mut l);
            let mut m = std::collections::BTreeMap::new();
            for (i, c) in l.0 {
                *m.entry(i).or_insert(0i32) += c as i32;
            }
            m.retain(|_, v| *v != 0);
            m
        };
        let fa = sum(&a);
        let fb: std::collections::BTreeMap<u32, i32> = sum(&b).into_iter().map(|(i, c)| (i, -c)).collect();
        assert_eq!(fa, fb);
    }
}
