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

/// The legal moves of `root`, not yet searched: the table's move first, promotions before
/// their non-promotion twins (so that ties prefer the promotion).
pub(super) fn root_move_list(root: &Position, tt: &TranspositionTable) -> Vec<RootMove> {
    let mut list = MoveList::new();
    movegen::generate_legal(root, &mut list);
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
