//! What the threads of one search share, and what each thread keeps from one search to the
//! next.

use super::movepick::History;
use super::root::RootMove;
use super::{Control, Limits, Score, SearchConfig, SearchInfo, correction};
use crate::eval::Value;
use crate::nnue::AccumulatorStack;
use crate::tt::Bound;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// What every thread of one search shares.
pub(super) struct Shared<'a> {
    pub(super) tt: &'a crate::tt::TranspositionTable,
    pub(super) control: &'a Control,
    /// Nodes searched, one counter per thread (each written by its own thread only).
    pub(super) nodes: Vec<NodeCounter>,
    pub(super) limits: Limits,
    pub(super) config: SearchConfig,
    /// Keys of positions played before the root, mapped to their latest index in the history.
    pub(super) game_keys: KeyMap,
}

impl Shared<'_> {
    pub(super) fn total_nodes(&self) -> u64 {
        self.nodes.iter().map(|n| n.0.load(Ordering::Relaxed)).sum()
    }

    /// The `info` line of one root move's line: `depth`, `score` and `bound` as the caller
    /// judges them, the search's nodes, speed and table use as of now.
    pub(super) fn info_line(
        &self,
        start: Instant,
        depth: i32,
        multipv: usize,
        score: Value,
        bound: Option<Bound>,
        rm: &RootMove,
    ) -> SearchInfo {
        let elapsed = start.elapsed().as_millis() as u64;
        let nodes = self.total_nodes();
        SearchInfo {
            depth,
            seldepth: rm.seldepth.max(depth),
            multipv,
            score: Score::from_value(score),
            bound,
            nodes,
            nps: nodes * 1000 / elapsed.max(1),
            time_ms: elapsed,
            hashfull: self.tt.hashfull(),
            pv: rm.pv.clone(),
        }
    }
}

/// A node counter on a cache line of its own: every thread writes its own counter at every
/// node, and counters sharing a line would make the cores pass that line back and forth.
#[derive(Default)]
#[repr(align(64))]
pub(super) struct NodeCounter(pub(super) AtomicU64);

/// Data a search thread keeps from one search to the next.
#[derive(Default)]
pub struct ThreadData {
    pub history: Box<History>,
    /// Correction tables: the thread's own, or one shared by every thread of the search
    /// (`shared_correction`).
    pub correction: std::sync::Arc<correction::Correction>,
    /// The main thread's root mate probe solver (allocated on first use).
    pub mate_probe: Option<crate::mate::MateSolver>,
    /// The NNUE accumulators along the search path (allocated when a network is first used).
    pub nnue: Option<Box<AccumulatorStack>>,
}

/// Hasher for keys that are already uniformly random (Zobrist keys).
#[derive(Default, Clone, Copy)]
pub(super) struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// Position keys to indices in the game's history.
pub(super) type KeyMap = HashMap<u64, usize, std::hash::BuildHasherDefault<KeyHasher>>;
