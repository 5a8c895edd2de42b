//! What the search shows the outside: score values and their limits, the reports and the
//! bestmove, the `Reporter` they go through, and the settings a search runs with.

use super::TimeOptions;
use crate::eval::Value;
use crate::nnue::Network;
use crate::shogi::{EnteringKingRule, Move};
use crate::tt::Bound;
use std::sync::Arc;

pub const MAX_PLY: usize = 240;
pub const VALUE_MATE: Value = 32000;
pub const VALUE_INF: Value = 32001;
pub const VALUE_NONE: Value = 32002;
pub const VALUE_MATE_IN_MAX_PLY: Value = VALUE_MATE - MAX_PLY as Value;
pub const VALUE_DRAW: Value = 0;
/// Depth of a table entry stored without a search below it (an evaluation, or quiescence's
/// stand-pat bound): below every depth the main search asks for.
pub const DEPTH_UNSEARCHED: i32 = -1;

#[inline]
pub const fn mate_in(ply: usize) -> Value {
    VALUE_MATE - ply as Value
}

#[inline]
pub const fn mated_in(ply: usize) -> Value {
    -VALUE_MATE + ply as Value
}

#[inline]
pub(super) fn value_to_tt(v: Value, ply: usize) -> Value {
    if v == VALUE_NONE {
        v
    } else if v >= VALUE_MATE_IN_MAX_PLY {
        v + ply as Value
    } else if v <= -VALUE_MATE_IN_MAX_PLY {
        v - ply as Value
    } else {
        v
    }
}

#[inline]
pub(super) fn value_from_tt(v: Value, ply: usize) -> Value {
    if v == VALUE_NONE {
        v
    } else if v >= VALUE_MATE_IN_MAX_PLY {
        v - ply as Value
    } else if v <= -VALUE_MATE_IN_MAX_PLY {
        v + ply as Value
    } else {
        v
    }
}

/// A score as the protocol shows it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(Value),
    /// Plies to mate: positive when the side to move mates, negative when it is mated.
    Mate(i32),
}

impl Score {
    pub fn from_value(v: Value) -> Score {
        if v >= VALUE_MATE_IN_MAX_PLY {
            Score::Mate(VALUE_MATE - v)
        } else if v <= -VALUE_MATE_IN_MAX_PLY {
            Score::Mate(-(VALUE_MATE + v))
        } else {
            Score::Cp(v)
        }
    }
}

/// One `info` report.
#[derive(Clone, Debug)]
pub struct SearchInfo {
    pub depth: i32,
    pub seldepth: i32,
    pub multipv: usize,
    pub score: Score,
    pub bound: Option<Bound>,
    pub nodes: u64,
    pub nps: u64,
    pub time_ms: u64,
    pub hashfull: u32,
    pub pv: Vec<Move>,
}

/// The final answer of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BestMove {
    Move {
        mv: Move,
        ponder: Option<Move>,
    },
    Resign,
    /// Entering-king declaration.
    Win,
}

/// Where search results go. Called from search threads.
pub trait Reporter: Send + Sync {
    fn info(&self, info: &SearchInfo);
    fn bestmove(&self, best: &BestMove, score: Option<Value>);
    fn message(&self, text: &str);
}

/// What the search evaluates positions with.
#[derive(Clone, Default)]
pub enum Evaluator {
    /// The built-in linear evaluation (`crate::eval`).
    #[default]
    Linear,
    /// A standard NNUE network, its output divided by `fv_scale`. Positions it cannot
    /// evaluate (no king on a side) fall back to the linear evaluation.
    Nnue { network: Arc<Network>, fv_scale: i32 },
}

impl std::fmt::Debug for Evaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Evaluator::Linear => f.write_str("Linear"),
            Evaluator::Nnue { network, fv_scale } => {
                write!(f, "Nnue {{ {:016x}, fv_scale {fv_scale} }}", network.checksum())
            }
        }
    }
}

/// Options that change what the search does.
#[derive(Clone, Debug)]
pub struct SearchConfig {
    pub threads: usize,
    pub multipv: usize,
    pub time: TimeOptions,
    /// Score of a draw from the side to move's view at the root (centipawns).
    pub draw_value: Value,
    /// Resign when the best score is at or below minus this value (centipawns).
    pub resign_value: Value,
    /// Impasse rule: positions where the side to move can declare are wins.
    pub entering_king_rule: EnteringKingRule,
    /// Game length (plies) at which the game is drawn; 0 = no limit.
    pub max_moves_to_draw: u32,
    pub evaluator: Evaluator,
}

/// Silent reporter for bench and tests.
pub struct NullReporter;

impl Reporter for NullReporter {
    fn info(&self, _: &SearchInfo) {}
    fn bestmove(&self, _: &BestMove, _: Option<Value>) {}
    fn message(&self, _: &str) {}
}
