//! Static evaluation, in centipawns from the side to move's point of view.
//!
//! A weighted sum of the features in `features.rs`: material on the board and in hand, every
//! piece's placement relative to both kings and on its own square, the king's square, king
//! safety (attack units on the king's neighbourhood scaled by the attacker's hand, defenders
//! next to the king, escape squares, the open file), control of the squares around each king,
//! tempo. The weights are compiled in from
//! `weights.rs`, which `hayate tune` writes: fitted to the results of the engine's games
//! against Fairy-Stockfish (`data/games-vs-fsf/`), starting from hand-made weights (see
//! `crate::learn::linear` and README, "Evaluation").

pub mod features;

use crate::shogi::{Color, PieceType, Position};
use features::{Control, FeatureSink, NUM_FEATURES};

pub type Value = i32;

/// Largest static evaluation: static values stay clear of the search's mate range.
pub const MAX_STATIC: Value = 20_000;

/// Board value per `PieceType as usize` (0 unused, king 0): the fixed values that move
/// ordering and exchange evaluation use.
pub const PIECE_VALUE: [Value; 15] = [0, 90, 315, 405, 495, 855, 990, 540, 0, 540, 540, 540, 540, 945, 1395];

/// Value of a piece in hand per hand kind (`PieceType as usize`, 1..=7).
pub const HAND_VALUE: [Value; 8] = [0, 105, 340, 440, 560, 960, 1120, 610];

/// Value a capture of this piece wins: its board value plus its worth in the captor's hand.
/// The king, which is never captured, counts as more than everything else together.
#[inline]
pub fn capture_value(pt: PieceType) -> Value {
    if pt == PieceType::King { 30_000 } else { PIECE_VALUE[pt.index()] + HAND_VALUE[pt.unpromote().index()] }
}

/// The learned weights (centipawns per feature).
pub static WEIGHTS: [i16; NUM_FEATURES] = include!("weights.rs");

struct WeightedSum<'a> {
    weights: &'a [i16],
    total: i32,
}

impl FeatureSink for WeightedSum<'_> {
    #[inline(always)]
    fn add(&mut self, index: usize, coef: i32) {
        self.total += self.weights[index] as i32 * coef;
    }

    #[inline(always)]
    fn add_all(&mut self, indices: &[u16], coef: i32) {
        let sum: i32 = indices.iter().map(|&i| self.weights[i as usize] as i32).sum();
        self.total += sum * coef;
    }
}

/// Evaluation from Black's point of view with the given weights.
pub fn evaluate_black_with(pos: &Position, weights: &[i16]) -> Value {
    let mut sum = WeightedSum { weights, total: 0 };
    features::visit(pos, &mut sum);
    sum.total
}

/// Evaluation from Black's point of view.
pub fn evaluate_black(pos: &Position) -> Value {
    evaluate_black_with(pos, &WEIGHTS)
}

/// Evaluation from the side to move's point of view.
#[inline]
pub fn evaluate(pos: &Position) -> Value {
    evaluate_with(pos, piece_sum(pos))
}

/// The sum of the per-piece terms (`features::visit_pieces`, Black's view): the part of the
/// evaluation that a move changes only where pieces come and go, unless a king moves. The
/// search carries it from a node to its children (`piece_sum_after`).
pub fn piece_sum(pos: &Position) -> Value {
    let mut sum = WeightedSum { weights: &WEIGHTS, total: 0 };
    for c in Color::ALL {
        features::visit_pieces(pos, c, &mut sum);
    }
    sum.total
}

/// `piece_sum` of `pos` from that of the position before its last move (or before a null
/// move); None when the last move was a king's, which changes every piece's terms.
#[inline]
pub fn piece_sum_after(pos: &Position, before: Value) -> Option<Value> {
    let Some(m) = pos.last_move() else { return Some(before) };
    let to = m.to();
    let moved = pos.piece_on(to);
    let (us, pt) = (moved.color(), moved.kind());
    if pt == PieceType::King {
        return None;
    }
    let kings = |c: Color| [pos.king_square(c), pos.king_square(!c)];
    let sign = |c: Color| if c == Color::Black { 1 } else { -1 };
    let mut sum = WeightedSum { weights: &WEIGHTS, total: before };
    features::visit_piece(us, pt, to, kings(us), sign(us), &mut sum);
    if !m.is_drop() {
        let old = if m.is_promotion() { pt.unpromote() } else { pt };
        features::visit_piece(us, old, m.from(), kings(us), -sign(us), &mut sum);
        let captured = pos.captured_piece();
        if !captured.is_empty() {
            let them = captured.color();
            features::visit_piece(them, captured.kind(), to, kings(them), -sign(them), &mut sum);
        }
    }
    Some(sum.total)
}

/// Evaluation from the side to move's point of view, given `piece_sum(pos)`.
#[inline]
pub fn evaluate_with(pos: &Position, piece_sum: Value) -> Value {
    let mut sum = WeightedSum { weights: &WEIGHTS, total: piece_sum };
    let ctl = Control::of(pos);
    for c in Color::ALL {
        features::visit_king(pos, &ctl, c, &mut sum);
    }
    features::visit_tempo(pos, &mut sum);
    let v = sum.total.clamp(-MAX_STATIC, MAX_STATIC);
    if pos.side_to_move() == Color::Black { v } else { -v }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_symmetric() {
        for sfen in [
            crate::shogi::STARTPOS,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
        ] {
            let p = Position::from_sfen(sfen).unwrap();
            assert_eq!(evaluate(&p), evaluate(&p.flipped()), "{sfen}");
            let full = evaluate_black(&p).clamp(-20_000, 20_000);
            assert_eq!(evaluate(&p), if p.side_to_move() == Color::Black { full } else { -full }, "{sfen}");
        }
    }

    /// The piece sum carried through moves (captures, promotions, drops, king moves, null
    /// moves) equals the sum computed afresh.
    #[test]
    fn incremental_piece_sum_matches_a_recompute() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let (mut kings, mut captures, mut drops) = (0, 0, 0);
        for game in 0..40 {
            let mut pos = Position::startpos();
            let mut sum = piece_sum(&pos);
            for _ in 0..160 {
                let mut moves = crate::shogi::movegen::MoveList::new();
                crate::shogi::movegen::generate_legal(&pos, &mut moves);
                if moves.is_empty() {
                    break;
                }
                if game % 4 == 0 && !pos.in_check() && next() % 8 == 0 {
                    pos.do_null_move();
                    sum = piece_sum_after(&pos, sum).expect("null move");
                    pos.undo_null_move();
                }
                let m = moves[(next() % moves.len() as u64) as usize];
                let king = !m.is_drop() && pos.piece_on(m.from()).kind() == PieceType::King;
                captures += (!m.is_drop() && !pos.piece_on(m.to()).is_empty()) as u32;
                drops += m.is_drop() as u32;
                pos.do_move(m);
                sum = match piece_sum_after(&pos, sum) {
                    Some(s) => s,
                    None => {
                        assert!(king, "only king moves need a recompute");
                        kings += 1;
                        piece_sum(&pos)
                    }
                };
                assert_eq!(sum, piece_sum(&pos));
                let full = evaluate_black(&pos).clamp(-20_000, 20_000);
                let stm = if pos.side_to_move() == Color::Black { full } else { -full };
                assert_eq!(evaluate_with(&pos, sum), stm);
            }
        }
        assert!(kings > 50 && captures > 200 && drops > 200, "{kings} {captures} {drops}");
    }

    /// Tsume positions: the attacker (either colour, either side to move) without a king.
    const KINGLESS: [&str; 5] = [
        "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1",
        "9/9/9/9/9/9/4p4/9/4K4 w 2R2B3G4S4N4L17Pg 1",
        "+N1+R2pSS1/+P7+P/1+S2P2bp/LNGNp3S/1p1r3G1/pLPp2p2/3+nl4/K4P3/4+b1g2 w Lg6p 1",
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSG1GSNL b - 1",
        "lnsg1gsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    ];

    #[test]
    fn kingless_positions_have_finite_symmetric_values() {
        for sfen in KINGLESS {
            let p = Position::from_sfen(sfen).unwrap();
            let v = evaluate(&p);
            assert!(v.abs() < 20_000, "{sfen}: {v}");
            assert_eq!(v, evaluate(&p.flipped()), "{sfen}");
            let full = evaluate_black(&p).clamp(-20_000, 20_000);
            assert_eq!(v, if p.side_to_move() == Color::Black { full } else { -full }, "{sfen}");
        }
        // More in the attacker's hand is better for it.
        let one = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G 1").unwrap();
        let two = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b RG 1").unwrap();
        assert!(evaluate(&two) > evaluate(&one) + 500, "{} {}", evaluate(&two), evaluate(&one));
    }

    /// The incremental piece sum along random games from kingless positions.
    #[test]
    fn incremental_piece_sum_without_a_king() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        for (game, sfen) in KINGLESS.iter().cycle().take(20).enumerate() {
            let mut pos = Position::from_sfen(sfen).unwrap();
            let mut sum = piece_sum(&pos);
            for _ in 0..80 {
                let mut moves = crate::shogi::movegen::MoveList::new();
                crate::shogi::movegen::generate_legal(&pos, &mut moves);
                if moves.is_empty() {
                    break;
                }
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let m = moves[((rng >> 8) % moves.len() as u64) as usize];
                pos.do_move(m);
                sum = piece_sum_after(&pos, sum).unwrap_or_else(|| piece_sum(&pos));
                assert_eq!(sum, piece_sum(&pos), "game {game} from {sfen}");
                let full = evaluate_black(&pos).clamp(-20_000, 20_000);
                let stm = if pos.side_to_move() == Color::Black { full } else { -full };
                assert_eq!(evaluate_with(&pos, sum), stm);
                assert_eq!(evaluate(&pos), evaluate(&pos.flipped()));
            }
        }
    }

    #[test]
    fn extra_material_is_better() {
        let up_rook = Position::from_sfen("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1").unwrap();
        assert!(evaluate(&up_rook) > 600, "{}", evaluate(&up_rook));
        let start = Position::startpos();
        assert!(evaluate(&start).abs() < 100);
    }
}
