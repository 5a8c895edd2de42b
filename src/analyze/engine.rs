//! Runs the engine's search on one position after another, the way USI mode runs a `go`
//! with the same options, and keeps the last report of every MultiPV line.

use crate::engine::options::RESIGN_VALUE;
use crate::engine::{Engine, EngineOptions};
use crate::eval::Value;
use crate::search::{BestMove, Limits, Reporter, Score, SearchInfo};
use crate::shogi::{Move, MoveList, Position, Verdict, movegen};
use crate::tt::Bound;
use parking_lot::Mutex;
use std::sync::Arc;
use std::time::Instant;

/// One MultiPV line as last reported.
#[derive(Clone, Debug)]
pub struct Line {
    pub score: Score,
    /// `Some` when the score is only a bound (an interrupted aspiration search).
    pub bound: Option<Bound>,
    pub depth: i32,
    pub seldepth: i32,
    pub pv: Vec<Move>,
}

/// What the analysis of one position found.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The best move and its score (side to move's view), and the MultiPV lines, best first.
    Best { mv: Move, score: Score, lines: Vec<Line> },
    /// The side to move wins by an entering-king declaration.
    Declaration,
    /// No legal move: the side to move has lost (checkmate when in check).
    NoLegalMoves { in_check: bool },
    /// The game had already ended here (`Game::endings`): not searched.
    GameEnd(Verdict),
}

#[derive(Clone, Debug)]
pub struct Analysis {
    pub outcome: Outcome,
    pub nodes: u64,
    pub time_ms: u64,
    pub depth: i32,
    pub seldepth: i32,
}

/// Keeps the latest `info` of each MultiPV index.
#[derive(Default)]
struct Collector {
    lines: Mutex<Vec<Option<SearchInfo>>>,
}

impl Reporter for Collector {
    fn info(&self, info: &SearchInfo) {
        let mut lines = self.lines.lock();
        let i = info.multipv.saturating_sub(1);
        if lines.len() <= i {
            lines.resize(i + 1, None);
        }
        lines[i] = Some(info.clone());
    }
    fn bestmove(&self, _: &BestMove, _: Option<Value>) {}
    fn message(&self, _: &str) {}
}

/// The engine, whose tables are kept from one position to the next like in a USI session.
pub struct Analyzer {
    engine: Engine,
    limits: Limits,
}

impl Analysis {
    /// A position where the game had ended: nothing searched.
    pub fn game_end(v: Verdict) -> Analysis {
        Analysis { outcome: Outcome::GameEnd(v), nodes: 0, time_ms: 0, depth: 0, seldepth: 0 }
    }
}

impl Analyzer {
    pub fn new(options: &EngineOptions, limits: Limits) -> Analyzer {
        let mut options = options.clone();
        // An analysis always wants the best move, however lost the position is: scores stay
        // within the mate range, far from the largest resign value.
        options.resign_value = RESIGN_VALUE.range().1 as i32;
        let mut engine = Engine::with_options(options);
        // The network (the options were checked by the caller; a table that cannot be had
        // falls back to a small one, as the search would).
        engine.prepare_and_wait();
        Analyzer { engine, limits }
    }

    pub fn analyse(&mut self, pos: &Position) -> Analysis {
        let start = Instant::now();
        let mut list = MoveList::new();
        movegen::generate_legal(pos, &mut list);
        if list.is_empty() && !pos.can_declare_win(self.engine.options.entering_king_rule) {
            let outcome = Outcome::NoLegalMoves { in_check: pos.in_check() };
            return Analysis { outcome, nodes: 0, time_ms: 0, depth: 0, seldepth: 0 };
        }
        let collector = Arc::new(Collector::default());
        let result = self.engine.search(pos.clone(), self.limits.clone(), collector.clone());
        let time_ms = start.elapsed().as_millis() as u64;
        let lines: Vec<Line> = std::mem::take(&mut *collector.lines.lock())
            .into_iter()
            .flatten()
            .filter(|i| !i.pv.is_empty())
            .map(|i| Line { score: i.score, bound: i.bound, depth: i.depth, seldepth: i.seldepth, pv: i.pv })
            .collect();
        let (depth, seldepth) = lines.first().map_or((result.depth, result.depth), |l| (l.depth, l.seldepth));
        let outcome = match result.best {
            BestMove::Win => Outcome::Declaration,
            BestMove::Move { mv, .. } => {
                let score = match lines.first() {
                    Some(l) if l.pv[0] == mv => l.score,
                    _ => Score::from_value(result.score.unwrap_or(0)),
                };
                Outcome::Best { mv, score, lines }
            }
            // Never asked for (no resign value); a search without any move cannot happen here.
            BestMove::Resign => Outcome::NoLegalMoves { in_check: pos.in_check() },
        };
        Analysis { outcome, nodes: result.nodes, time_ms, depth, seldepth }
    }
}
