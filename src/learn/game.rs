//! One self-play game, the loop both data generators play (`nnue::gensfen` for networks,
//! `linear::selfplay` for the linear evaluation): the engine against itself from a start
//! position, the first `random_plies` moves chosen at random among those the search scores
//! near the best, then the search's best move until the rules end the game, a side resigns
//! or declares, the score passes `adjudicate`, or the game reaches `max_game_ply`. The
//! generators differ only in where games start, how long they search and which moves they
//! keep (`on_move`).

use super::rng::Rng;
use crate::engine::Engine;
use crate::search::{BestMove, Limits, NullReporter, Reporter, Score, SearchInfo};
use crate::shogi::{Color, JudgeOptions, Move, Position, Referee};
use std::sync::Arc;

/// Keeps the last report of every MultiPV line of a search: self-play's random opening moves.
#[derive(Default)]
pub struct MultiPvLines(parking_lot::Mutex<Vec<(usize, i32, Move)>>);

impl Reporter for MultiPvLines {
    fn info(&self, info: &SearchInfo) {
        let score = match info.score {
            Score::Cp(v) => v,
            Score::Mate(n) if n > 0 => 30_000 - n,
            Score::Mate(n) => -30_000 - n,
        };
        if let Some(&m) = info.pv.first() {
            let mut v = self.0.lock();
            v.retain(|(k, _, _)| *k != info.multipv);
            v.push((info.multipv, score, m));
        }
    }
    fn bestmove(&self, _: &BestMove, _: Option<i32>) {}
    fn message(&self, _: &str) {}
}

impl MultiPvLines {
    /// One of the lines' first moves scored within `margin` of the best, drawn from `rng`;
    /// `None` (and `rng` untouched) when no line was reported.
    pub fn random_near_best(&self, margin: i32, rng: &mut Rng) -> Option<Move> {
        let lines = self.0.lock();
        let best = lines.iter().map(|l| l.1).max()?;
        let near: Vec<Move> = lines.iter().filter(|l| l.1 >= best - margin).map(|l| l.2).collect();
        Some(near[(rng.next_u64() % near.len() as u64) as usize])
    }
}

/// A position worth training on after move `mv`: not in check, and `mv` neither a capture nor
/// a promotion, so that the static evaluation should match the search's score.
pub fn is_quiet(pos: &Position, mv: Move) -> bool {
    !pos.in_check() && !mv.is_promotion() && (mv.is_drop() || pos.piece_on(mv.to()).is_empty())
}

/// How a generator's games are played.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// Moves chosen at random after the start position.
    pub random_plies: u32,
    /// A random move is one of the (four) lines scored within this of the best (centipawns).
    pub random_margin: i32,
    /// The search of a random move (four lines).
    pub random_limits: Limits,
    /// The search of every other move.
    pub limits: Limits,
    /// With a node limit: each move's nodes are drawn from within this percentage of it (0:
    /// exactly the limit), so that games through the same position part ways.
    pub nodes_jitter: u32,
    /// A score beyond this after the random moves ends the game: a win for the side ahead.
    pub adjudicate: i32,
    /// A game that reaches this game ply is a draw.
    pub max_game_ply: u32,
}

/// A move about to be played, for the generator to keep or not.
pub struct Turn<'a> {
    /// The position before the move.
    pub pos: &'a Position,
    pub mv: Move,
    /// The search's score, side to move's view.
    pub score: i32,
    /// Whether the move was one of the random ones.
    pub random: bool,
    /// Moves played since the start position.
    pub played: u32,
}

/// Plays a game from `start`, showing each move to `on_move` before it is played; returns the
/// winner (`None` for a draw).
pub fn play_game(
    engine: &mut Engine,
    start: Position,
    settings: &GameSettings,
    rng: &mut Rng,
    mut on_move: impl FnMut(&Turn),
) -> Option<Color> {
    let mut pos = start;
    let mut referee = Referee::new(&pos, JudgeOptions::default());
    let _ = engine.new_game(Box::new(|| {}));
    let mut played = 0u32;
    loop {
        if pos.game_ply() >= settings.max_game_ply {
            return None;
        }
        let random = played < settings.random_plies;
        engine.options.multipv = if random { 4 } else { 1 };
        let lines = Arc::new(MultiPvLines::default());
        let reporter: Arc<dyn Reporter> = if random { lines.clone() } else { Arc::new(NullReporter) };
        let mut limits = if random { settings.random_limits.clone() } else { settings.limits.clone() };
        if let (Some(nodes), j @ 1..) = (limits.nodes, settings.nodes_jitter.min(100) as u64) {
            let percent = 100 - j + rng.next_u64() % (2 * j + 1);
            limits.nodes = Some((nodes * percent / 100).max(1));
        }
        let result = engine.search(pos.clone(), limits, reporter);
        let us = pos.side_to_move();
        let (mut mv, score) = match result.best {
            BestMove::Resign => return Some(!us),
            BestMove::Win => return Some(us),
            BestMove::Move { mv, .. } => (mv, result.score.unwrap_or(0)),
        };
        if random {
            mv = lines.random_near_best(settings.random_margin, rng).unwrap_or(mv);
        } else if score.abs() >= settings.adjudicate {
            return Some(if score > 0 { us } else { !us });
        }
        on_move(&Turn { pos: &pos, mv, score, random, played });
        pos.do_move(mv);
        played += 1;
        if let Some(winner) = referee.after_move(&pos).and_then(|v| v.winner(pos.side_to_move())) {
            return winner;
        }
    }
}
