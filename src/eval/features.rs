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
//! - tempo (the side to move).

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
pub const TEMPO_INDEX: usize = PSQ_BASE + 15 * 81;
/// Number of weights.
pub const NUM_FEATURES: usize = TEMPO_INDEX + 1;

/// Receives features: `index` into the weight table, `coef` its multiplicity with sign.
pub trait FeatureSink {
    fn add(&mut self, index: usize, coef: i32);
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

/// Squares within Chebyshev distance 3 of each square: where a step piece (a knight at most
/// three ranks away) can stand to reach a king's 3x3 neighbourhood.
static NEAR3: [Bitboard; 81] = {
    let mut t = [Bitboard::EMPTY; 81];
    let mut k: usize = 0;
    while k < 81 {
        let (kf, kr) = ((k / 9) as i32, (k % 9) as i32);
        let mut s: usize = 0;
        while s < 81 {
            let (f, r) = ((s / 9) as i32, (s % 9) as i32);
            let (df, dr) = ((f - kf).abs(), (r - kr).abs());
            if df <= 3 && dr <= 3 {
                t[k] = t[k].const_or(Bitboard::from_square(Square::new(s as u8)));
            }
            s += 1;
        }
        k += 1;
    }
    t
};

/// Attack units of the enemy on the neighbourhood of `c`'s king (each attacked square of the
/// king's 3x3 area counts once per attacking piece) and the set of attacked squares there. Only
/// pieces that can reach it are looked at: step pieces nearby and sliders anywhere.
fn king_attacks_by_enemy(pos: &Position, c: Color) -> (u32, Bitboard) {
    let ksq = pos.king_square(c);
    let zone = king_attacks(ksq) | Bitboard::from_square(ksq);
    let occ = pos.occupied();
    let attacker = !c;
    let sliders = pos.pieces_kind(PieceType::Lance) | pos.bishops_horses() | pos.rooks_dragons();
    let candidates = (NEAR3[ksq.index()] | sliders) & pos.pieces_of(attacker);
    let mut units = 0;
    let mut attacked = Bitboard::EMPTY;
    for sq in candidates {
        let pt = pos.piece_on(sq).kind();
        let a = attacks_of(attacker, pt, sq, occ) & zone;
        if pt != PieceType::King {
            units += a.count();
        }
        attacked |= a;
    }
    (units, attacked)
}

#[inline]
fn chebyshev(a: Square, b: Square) -> u32 {
    let df = (a.file() as i32 - b.file() as i32).unsigned_abs();
    let dr = (a.rank() as i32 - b.rank() as i32).unsigned_abs();
    df.max(dr)
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
    for c in Color::ALL {
        let sign = if c == Color::Black { 1 } else { -1 };
        let own_king = view(c, pos.king_square(c));
        let enemy_king = view(c, pos.king_square(!c));
        let mut defenders = 0usize;
        for sq in pos.pieces_of(c) {
            let pt = pos.piece_on(sq).kind();
            if pt == PieceType::King {
                continue;
            }
            let v = view(c, sq);
            let k = pt.index();
            sink.add(MATERIAL_BASE + k, sign);
            sink.add(KP_OWN_BASE + k * REL + relative(v, own_king), sign);
            sink.add(KP_ENEMY_BASE + k * REL + relative(v, enemy_king), sign);
            sink.add(PSQ_BASE + k * 81 + v.index(), sign);
            if is_defender(pt) && chebyshev(v, own_king) == 1 {
                defenders += 1;
            }
        }
        let hand = pos.hand(c);
        for pt in PieceType::HAND {
            let n = hand.count(pt) as usize;
            if n > 0 {
                sink.add(HAND_BASE + pt.index() * HAND_COUNTS + n.min(HAND_COUNTS - 1), sign);
            }
        }
        sink.add(KING_SQ_BASE + own_king.index(), sign);
        let (units, attacked) = king_attacks_by_enemy(pos, c);
        let units = (units as usize).min(ATTACK_UNITS - 1);
        let enemy_hand = hand_bucket(pos, !c);
        // Attacks on c's king count against c.
        sink.add(KING_ATTACK_BASE + units * ATTACK_HAND + enemy_hand, sign);
        sink.add(DEFENDER_BASE + defenders.min(DEFENDERS - 1), sign);
        let ksq = pos.king_square(c);
        let neighbours = king_attacks(ksq);
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
    }
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
