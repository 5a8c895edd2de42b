//! The root of a search: its move list, and the answer made of the best of it.

use super::{BestMove, VALUE_INF};
use crate::eval::Value;
use crate::shogi::movegen::{self, MoveList};
use crate::shogi::{Move, Position};
use crate::tt::{Bound, TranspositionTable};

/// A legal move at the root with what the search found for it.
#[derive(Clone, Debug)]
pub(super) struct RootMove {
    pub(super) mv: Move,
    pub(super) score: Value,
    pub(super) prev_score: Value,
    pub(super) bound: Option<Bound>,
    pub(super) seldepth: i32,
    pub(super) pv: Vec<Move>,
}

/// The legal moves of `root` but the never-better non-promotions (of a pawn, bishop or rook,
/// and a lance on its second-to-last rank: the tree below the root never tries them either),
/// not yet searched: the table's move first, promotions before other moves.
pub(super) fn root_move_list(root: &Position, tt: &TranspositionTable) -> Vec<RootMove> {
    let mut list = MoveList::new();
    movegen::generate_searched(root, &mut list);
    let tt_move = tt.probe(root.key()).and_then(|h| h.mv);
    let mut rms: Vec<RootMove> = list
        .iter()
        .map(|&m| RootMove { mv: m, score: -VALUE_INF, prev_score: -VALUE_INF, bound: None, seldepth: 0, pv: vec![m] })
        .collect();
    rms.sort_by_key(|rm| !rm.mv.is_promotion());
    if let Some(t) = tt_move
        && let Some(i) = rms.iter().position(|rm| rm.mv == t)
    {
        rms.swap(0, i);
    }
    rms
}

/// The bestmove for a root move list sorted best first: resign when lost beyond the resign
/// value, else the first move with its ponder move.
pub(super) fn answer_of(rm: &RootMove, root: &Position, tt: &TranspositionTable, resign_value: Value) -> BestMove {
    // A score of -INF means the move was never finished (stopped at once): play it.
    if rm.score != -VALUE_INF && rm.score <= -resign_value {
        BestMove::Resign
    } else {
        let ponder = rm.pv.get(1).copied().or_else(|| ponder_from_tt(root, rm.mv, tt));
        BestMove::Move { mv: rm.mv, ponder }
    }
}

/// The table's move in the position after `best`, if it is legal there.
fn ponder_from_tt(root: &Position, best: Move, tt: &TranspositionTable) -> Option<Move> {
    let mut pos = root.clone();
    pos.do_move(best);
    tt.probe(pos.key()).and_then(|h| h.mv).filter(|&m| pos.is_legal(m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::PieceType;

    /// The root tries what the tree below it tries: every legal move but the non-promotions
    /// that are never better than their promotion, each once, and none of those.
    #[test]
    fn root_moves_leave_out_never_better_non_promotions() {
        let tt = TranspositionTable::new(1).unwrap();
        // White's bishop on 5e can take the silver on 8h promoting or not, and its rook on
        // 5d reaches the promotion zone.
        let pos = Position::from_sfen("ln1g2snl/2s1g1k2/1pp1pp1p1/p3r1p1p/4b4/P1P6/1P1SBPPPP/1S2RKG2/LN2G2NL w P2p 34")
            .unwrap();
        let roots: Vec<Move> = root_move_list(&pos, &tt).iter().map(|rm| rm.mv).collect();
        let usi: Vec<String> = roots.iter().map(|m| m.to_string()).collect();
        assert!(usi.contains(&"5e8h+".to_string()) && !usi.contains(&"5e8h".to_string()), "{usi:?}");
        let mut legal = MoveList::new();
        movegen::generate_legal(&pos, &mut legal);
        assert!(roots.iter().all(|&m| legal.contains(&m)));
        // What the root leaves out is exactly the non-promotions of a pawn, bishop, rook or
        // lance whose promotion it keeps (each root move once).
        let mut raws: Vec<u16> = roots.iter().map(|m| m.raw()).collect();
        raws.sort();
        raws.dedup();
        assert_eq!(raws.len(), roots.len(), "a root move twice");
        let left_out: Vec<Move> = legal.iter().copied().filter(|m| !roots.contains(m)).collect();
        assert!(!left_out.is_empty());
        for m in left_out {
            assert!(!m.is_drop() && !m.is_promotion(), "{m}");
            assert!(roots.contains(&Move::normal(m.from(), m.to(), true)), "{m}");
            let kind = pos.piece_on(m.from()).kind();
            assert!(
                [PieceType::Pawn, PieceType::Bishop, PieceType::Rook, PieceType::Lance].contains(&kind),
                "{m}: {kind:?}"
            );
        }
        // In check: the evasions, still without the never-better twins.
        let check = Position::from_sfen("4k4/4P4/9/9/9/9/9/9/4K4 w - 1").unwrap();
        assert!(check.in_check());
        let evasions: Vec<Move> = root_move_list(&check, &tt).iter().map(|rm| rm.mv).collect();
        let mut all = MoveList::new();
        movegen::generate_legal(&check, &mut all);
        assert!(!evasions.is_empty() && evasions.iter().all(|m| all.contains(m)));
    }
}
