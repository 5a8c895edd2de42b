//! Static evaluation, in centipawns from the side to move's point of view.
//!
//! Terms: material on the board and in hand (a piece in hand is worth more than the same piece
//! on the board: it can go anywhere), placement relative to both kings (pieces close to the
//! enemy king attack, golds and silvers close to their own king defend), king exposure, and a
//! small bonus for the side to move.

use crate::shogi::{Color, PieceType, Position, Square};

pub type Value = i32;

/// Board value per `PieceType as usize` (0 unused, king 0).
pub const PIECE_VALUE: [Value; 15] = [0, 90, 315, 405, 495, 855, 990, 540, 0, 540, 540, 540, 540, 945, 1395];

/// Value of a piece in hand per hand kind (`PieceType as usize`, 1..=7).
pub const HAND_VALUE: [Value; 8] = [0, 105, 340, 440, 560, 960, 1120, 610];

/// Value a capture of this piece wins: its board value plus its worth in the captor's hand.
/// The king, which is never captured, counts as more than everything else together.
#[inline]
pub fn capture_value(pt: PieceType) -> Value {
    if pt == PieceType::King { 30_000 } else { PIECE_VALUE[pt.index()] + HAND_VALUE[pt.unpromote().index()] }
}

const TEMPO: Value = 20;

/// Bonus for a piece by its king distance (Chebyshev, index 0..=8) from the enemy king.
const ATTACK_NEAR: [Value; 9] = [0, 52, 34, 14, 4, 0, 0, 0, 0];
/// Bonus for a gold or silver by its distance from its own king.
const DEFEND_NEAR: [Value; 9] = [0, 38, 22, 6, 0, 0, 0, 0, 0];

/// Attack weight per kind (percent): golds and promoted minors attack best at close range.
const ATTACK_WEIGHT: [Value; 15] = [0, 45, 60, 70, 90, 55, 55, 100, 0, 100, 100, 100, 100, 80, 90];

fn distance(a: Square, b: Square) -> usize {
    let df = (a.file() as i32 - b.file() as i32).unsigned_abs();
    let dr = (a.rank() as i32 - b.rank() as i32).unsigned_abs();
    df.max(dr) as usize
}

/// Evaluation from Black's point of view.
pub fn evaluate_black(pos: &Position) -> Value {
    let mut score = [0 as Value; 2];
    let ksq = [pos.king_square(Color::Black), pos.king_square(Color::White)];
    for c in Color::ALL {
        let ci = c.index();
        let own_king = ksq[ci];
        let enemy_king = ksq[(!c).index()];
        let mut s = 0;
        for sq in pos.pieces_of(c) {
            let pt = pos.piece_on(sq).kind();
            if pt == PieceType::King {
                continue;
            }
            s += PIECE_VALUE[pt.index()];
            s += ATTACK_NEAR[distance(sq, enemy_king)] * ATTACK_WEIGHT[pt.index()] / 100;
            if matches!(
                pt,
                PieceType::Gold
                    | PieceType::Silver
                    | PieceType::ProPawn
                    | PieceType::ProLance
                    | PieceType::ProKnight
                    | PieceType::ProSilver
            ) {
                s += DEFEND_NEAR[distance(sq, own_king)];
            }
        }
        let hand = pos.hand(c);
        for pt in PieceType::HAND {
            let n = hand.count(pt) as Value;
            if n > 0 {
                // Diminishing returns for many copies of the same piece.
                let v = HAND_VALUE[pt.index()];
                s += v * n - if n > 2 { v * (n - 2) / 8 } else { 0 };
            }
        }
        // A king that has left its camp while the enemy still has attackers is exposed.
        let rel = own_king.relative_rank(c) as Value; // 8 = own back rank
        s -= (6 - rel).max(0) * 12;
        score[ci] = s;
    }
    score[0] - score[1]
}

/// Evaluation from the side to move's point of view.
pub fn evaluate(pos: &Position) -> Value {
    let v = evaluate_black(pos);
    (if pos.side_to_move() == Color::Black { v } else { -v }) + TEMPO
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_balanced_and_symmetric() {
        let pos = Position::startpos();
        assert_eq!(evaluate_black(&pos), 0);
        let mirrored = Position::from_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1").unwrap();
        assert_eq!(evaluate(&pos), evaluate(&mirrored));
    }

    #[test]
    fn extra_material_is_better() {
        let up_rook = Position::from_sfen("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1").unwrap();
        assert!(evaluate(&up_rook) > 800);
        let rook_in_hand =
            Position::from_sfen("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b R 1").unwrap();
        assert!(evaluate(&rook_in_hand) > evaluate(&up_rook));
    }
}
