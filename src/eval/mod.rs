//! Static evaluation, in centipawns from the side to move's point of view.
//!
//! A weighted sum of the features in `features.rs`: material on the board and in hand, every
//! piece's placement relative to both kings and on its own square, the king's square, king
//! safety (attack units on the king's neighbourhood scaled by the attacker's hand, defenders
//! next to the king, escape squares, the open file), control of the squares around each king,
//! tempo. The weights are compiled in from
//! `weights.rs`, which `hayate tune` writes: fitted to the results of the engine's games
//! against Fairy-Stockfish (`data/games-vs-fsf/`), starting from hand-made weights (see
//! `crate::tune` and README, "Evaluation").

pub mod features;

use crate::shogi::{Color, PieceType, Position};
use features::{FeatureSink, NUM_FEATURES};

pub type Value = i32;

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
    let v = evaluate_black(pos);
    // Keep static values clear of the mate range.
    let v = v.clamp(-20_000, 20_000);
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
