//! Mate search (tsume): the answer to `go mate` and `hayate mate`, and the fast mate-in-one
//! probe for the main search.
//!
//! - `mate1`: `mate_in_one`, allocation-free, on `&Position`.
//! - `checks`: a direct generator of every legal check.
//! - `dfpn`: the proof-number search with a bound on the mate length.
//! - `table`: its own transposition table, fixed in size.
//! - `pv`: the main line of a proven mate.
//!
//! `MateSolver::solve` first proves a mate (a quick pass up to 15 plies, then any length up
//! to `MateLimits::max_ply`), then shortens it: it asks for a mate two plies shorter than the best one known until that is
//! disproven, which makes the last length the shortest mate. The line it returns has exactly
//! that length, with the defender resisting as long as possible. The attacker checks on every
//! move; the defender may play any legal move, useless interpositions included. A mate line is
//! replayed and checked before it is returned, so a table fault can never produce a false mate.

mod checks;
mod dfpn;
mod mate1;
mod pv;
mod table;

pub use checks::generate_checks;
pub use mate1::mate_in_one;

use crate::memory::AllocError;
use crate::shogi::{Move, Position};
use dfpn::{Budget, Dfpn};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use table::MateTable;

/// Longest mate searched for (plies) unless told otherwise.
pub const DEFAULT_MAX_PLY: u16 = 255;
/// Table size for `go mate` and the CLI unless told otherwise (MiB).
pub const DEFAULT_MATE_HASH_MIB: usize = 64;
/// Longest mate accepted in `MateLimits::max_ply`: the search recurses once per ply.
pub const MAX_SUPPORTED_PLY: u16 = 1023;
/// Stack for a thread that runs `MateSolver::solve` (enough for `MAX_SUPPORTED_PLY` plies).
pub const SOLVER_STACK_BYTES: usize = 64 << 20;
/// A first pass looks for mates up to this many plies. A bounded search needs no repetition
/// rule, so it stores all it finds, and it does not chase the king across the board; short
/// mates come faster (a third fewer nodes over the public problems). Longer ones are then
/// found by the search bounded by the ply cap alone, which keeps the first pass's results.
const FIRST_PASS_PLY: u16 = 15;
/// The first pass gives up after this many nodes, so that a long mate is not held up.
const FIRST_PASS_NODES: u64 = 1_000_000;
/// Nodes granted to finish the line of a proven mate after the budget ran out: the proof is in
/// the table, so this is mostly lookups.
const LINE_RESCUE_NODES: u64 = 500_000;

/// How long to search.
#[derive(Clone, Copy, Debug)]
pub struct MateLimits {
    pub time: Option<Duration>,
    pub nodes: Option<u64>,
    /// Longest mate (plies) considered, at most `MAX_SUPPORTED_PLY`. A position whose only
    /// disproofs run into this bound is answered `timeout`, not `nomate`.
    pub max_ply: u16,
}

impl Default for MateLimits {
    fn default() -> Self {
        MateLimits { time: None, nodes: None, max_ply: DEFAULT_MAX_PLY }
    }
}

/// The three answers of `go mate`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MateAnswer {
    /// A mating line: attacker and defender moves, ending in mate.
    Mate(Vec<Move>),
    /// Proven: the attacker has no forced mate at any length.
    NoMate,
    /// Not decided within the limits (or stopped).
    Timeout,
}

impl MateAnswer {
    /// The USI reply: `checkmate M1 M2 ...`, `checkmate nomate` or `checkmate timeout`.
    pub fn to_usi(&self) -> String {
        match self {
            MateAnswer::Mate(line) => {
                let moves: Vec<String> = line.iter().map(|m| m.to_string()).collect();
                format!("checkmate {}", moves.join(" "))
            }
            MateAnswer::NoMate => "checkmate nomate".to_string(),
            MateAnswer::Timeout => "checkmate timeout".to_string(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct MateReport {
    pub answer: MateAnswer,
    pub nodes: u64,
    pub elapsed: Duration,
    /// The mate line is proven to be the shortest.
    pub shortest: bool,
    /// The first mate proven (plies) and the nodes it took, before shortening.
    pub first_mate: Option<(u16, u64)>,
    /// Permille of the table in use at the end (USI `hashfull`).
    pub hashfull: usize,
}

impl MateReport {
    /// The report of a mate search that could not run.
    pub fn timeout() -> MateReport {
        MateReport {
            answer: MateAnswer::Timeout,
            nodes: 0,
            elapsed: Duration::ZERO,
            shortest: false,
            first_mate: None,
            hashfull: 0,
        }
    }
}

/// A mate solver with its table, kept between searches.
pub struct MateSolver {
    table: MateTable,
}

impl MateSolver {
    pub fn new(hash_mib: usize) -> Result<MateSolver, AllocError> {
        Ok(MateSolver { table: MateTable::new(hash_mib)? })
    }

    pub fn hash_mib(&self) -> usize {
        self.table.size_mib()
    }

    /// Searches a mate for the side to move in `pos`. `stop` ends the search early (a mate
    /// already proven is still answered).
    pub fn solve(&mut self, pos: &Position, limits: &MateLimits, stop: &AtomicBool) -> MateReport {
        let start = Instant::now();
        self.table.new_search();
        let mut root = pos.clone();
        root.forget_history(); // repetitions count within the mate search only
        let report = |answer, s: &Dfpn, shortest, first_mate| MateReport {
            answer,
            nodes: s.nodes,
            elapsed: start.elapsed(),
            shortest,
            first_mate,
            hashfull: s.hashfull(),
        };
        if let Some(m) = mate_in_one(&root) {
            let answer = MateAnswer::Mate(vec![m]);
            return MateReport {
                answer,
                nodes: 1,
                elapsed: start.elapsed(),
                shortest: true,
                first_mate: Some((1, 1)),
                hashfull: 0,
            };
        }
        let budget = Budget {
            node_limit: limits.nodes.unwrap_or(u64::MAX),
            deadline: limits.time.map(|t| start + t),
            honour_stop: true,
        };
        let mut s = Dfpn::new(&mut self.table, stop, root.side_to_move());
        s.set_budget(budget);
        let max_ply = limits.max_ply.min(MAX_SUPPORTED_PLY);
        let mut first = None;
        if FIRST_PASS_PLY < max_ply {
            s.set_repetition_detection(false);
            s.set_budget(Budget { node_limit: budget.node_limit.min(FIRST_PASS_NODES), ..budget });
            s.reset_path(&root);
            let v = s.prove(&mut root, true, FIRST_PASS_PLY);
            if v.is_proven() || (v.is_disproven() && v.depth == table::INFINITE_DEPTH) {
                first = Some(v);
            }
            s.set_budget(budget);
        }
        let v = first.unwrap_or_else(|| {
            s.set_repetition_detection(true);
            s.reset_path(&root);
            s.prove(&mut root, true, max_ply)
        });
        if !v.is_proven() {
            let answer = if v.is_disproven() && v.depth == table::INFINITE_DEPTH {
                MateAnswer::NoMate
            } else {
                MateAnswer::Timeout
            };
            return report(answer, &s, false, None);
        }
        let first_mate = Some((v.len, s.nodes));
        let (len, mut shortest) = shorten(&mut s, &mut root, v.len);
        let mut line = if shortest { pv::extract(&mut s, &mut root, len, true) } else { None };
        if line.is_none() {
            // Out of budget: finish a line of the proven mate anyway, from the table.
            shortest = false;
            s.set_budget(Budget { node_limit: s.nodes + LINE_RESCUE_NODES, deadline: None, honour_stop: false });
            line = pv::extract(&mut s, &mut root, len, false);
        }
        let line = line.filter(|l| verify_mate_line(pos, l).is_ok());
        debug_assert!(line.is_some(), "proven mate without a valid line in {}", pos.to_sfen());
        match line {
            Some(l) => report(MateAnswer::Mate(l), &s, shortest, first_mate),
            None => report(MateAnswer::Timeout, &s, false, first_mate),
        }
    }

    /// A quick look for a short mate by the side to move, for the main search: at most
    /// `max_ply` plies and about `nodes` nodes (the line's extraction may take as many again).
    /// Returns a checked mating line, or None (no mate, or none found within the budget, or
    /// `stop` set). The game's history is not consulted: a bounded search needs no repetition
    /// rule.
    pub fn probe(&mut self, pos: &Position, nodes: u64, max_ply: u16, stop: &AtomicBool) -> Option<Vec<Move>> {
        self.table.new_search();
        let mut root = pos.clone();
        root.forget_history();
        if let Some(m) = mate_in_one(&root) {
            return Some(vec![m]);
        }
        let mut s = Dfpn::new(&mut self.table, stop, root.side_to_move());
        s.set_repetition_detection(false);
        s.set_budget(Budget { node_limit: nodes, deadline: None, honour_stop: true });
        s.reset_path(&root);
        let v = s.prove(&mut root, true, max_ply.min(MAX_SUPPORTED_PLY));
        if !v.is_proven() {
            return None;
        }
        s.set_budget(Budget { node_limit: s.nodes + nodes, deadline: None, honour_stop: true });
        let line = pv::extract(&mut s, &mut root, v.len, false)?;
        verify_mate_line(pos, &line).is_ok().then_some(line)
    }

    /// After `probe` found a mate of `len` plies in `pos`, shortens it as `solve` does, on
    /// what the probe stored, with up to `nodes` nodes: a checked line shorter than `len` and
    /// whether it is proven to be the shortest there is, or None (none shorter found within
    /// the budget, or `stop` set).
    pub fn shorten_probed(
        &mut self,
        pos: &Position,
        len: usize,
        nodes: u64,
        stop: &AtomicBool,
    ) -> Option<(Vec<Move>, bool)> {
        let len = u16::try_from(len).ok().filter(|&l| l > 1)?;
        let mut root = pos.clone();
        root.forget_history();
        let mut s = Dfpn::new(&mut self.table, stop, root.side_to_move());
        s.set_budget(Budget { node_limit: nodes, deadline: None, honour_stop: true });
        let (shorter, mut shortest) = shorten(&mut s, &mut root, len);
        if shorter >= len {
            return None;
        }
        s.set_budget(Budget { node_limit: s.nodes + nodes, deadline: None, honour_stop: true });
        let mut line = if shortest { pv::extract(&mut s, &mut root, shorter, true) } else { None };
        if line.is_none() {
            shortest = false;
            line = pv::extract(&mut s, &mut root, shorter, false);
        }
        let line = line?;
        verify_mate_line(pos, &line).is_ok().then_some((line, shortest))
    }
}

/// Shortens a proven mate of `len` plies from `root`: asks for one two plies shorter until
/// that is disproven or the budget ends. Returns the shortest length proven and whether it is
/// proven to be the shortest there is.
fn shorten(s: &mut Dfpn, root: &mut Position, mut len: u16) -> (u16, bool) {
    let mut shortest = len <= 1;
    // Bounded searches end by themselves and need no repetition rule; without it every
    // result they reach holds on any path and can be kept.
    s.set_repetition_detection(false);
    while !shortest && !s.aborted() {
        s.reset_path(root);
        let w = s.prove(root, true, len - 2);
        if w.is_proven() {
            len = w.len;
            shortest = len <= 1;
        } else if w.is_disproven() {
            shortest = true;
        } else {
            break;
        }
    }
    (len, shortest)
}

/// Checks a mating line from `pos`: every move legal, every attacker move a check, and the
/// defender checkmated after the last move.
pub fn verify_mate_line(pos: &Position, line: &[Move]) -> Result<(), String> {
    let mut p = pos.clone();
    if line.len().is_multiple_of(2) {
        return Err(format!("a mate line has an odd number of plies, this one {}", line.len()));
    }
    for (i, &m) in line.iter().enumerate() {
        if !p.is_legal(m) {
            return Err(format!("ply {}: {m} is illegal", i + 1));
        }
        p.do_move(m);
        if i % 2 == 0 && !p.in_check() {
            return Err(format!("ply {}: {m} does not give check", i + 1));
        }
    }
    if p.is_checkmate() { Ok(()) } else { Err("the line does not end in checkmate".to_string()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solve(sfen: &str, nodes: u64) -> MateReport {
        let pos = Position::from_sfen(sfen).unwrap();
        let mut solver = MateSolver::new(4).unwrap();
        let limits = MateLimits { nodes: Some(nodes), ..MateLimits::default() };
        solver.solve(&pos, &limits, &AtomicBool::new(false))
    }

    fn line_of(r: &MateReport) -> Vec<String> {
        match &r.answer {
            MateAnswer::Mate(l) => l.iter().map(|m| m.to_string()).collect(),
            other => panic!("no mate: {other:?}"),
        }
    }

    #[test]
    fn probe_finds_short_mates_and_nothing_else() {
        let mut solver = MateSolver::new(1).unwrap();
        let go = AtomicBool::new(false);
        // Public corpus mate0441: mate in 7.
        let pos = Position::from_sfen("1k7/9/9/2G6/9/9/4K4/9/9 b B2G2rbg4s4n4l18p 1").unwrap();
        let line = solver.probe(&pos, 100_000, 15, &go).expect("mate in 7");
        assert!(line.len() >= 7 && line.len() % 2 == 1, "{line:?}");
        assert!(verify_mate_line(&pos, &line).is_ok());
        // Too small a budget, too short a bound, or stopped: nothing.
        assert_eq!(solver.probe(&pos, 10, 15, &go), None);
        assert_eq!(solver.probe(&pos, 100_000, 5, &go), None);
        assert_eq!(solver.probe(&pos, 100_000, 15, &AtomicBool::new(true)), None);
        // The initial position has no mate.
        assert_eq!(solver.probe(&Position::startpos(), 10_000, 15, &go), None);
    }

    #[test]
    fn mate_in_one_is_answered_at_once() {
        let r = solve("4k4/9/3S5/9/9/9/9/9/4K4 b G 1", 1000);
        assert_eq!(r.answer.to_usi(), "checkmate G*5b");
        assert!(r.shortest);
    }

    #[test]
    fn shortest_line_with_the_longest_defence() {
        // Public corpus mate0441: mate in 7; the solver first finds a longer one and shortens it.
        let sfen = "1k7/9/9/2G6/9/9/4K4/9/9 b B2G2rbg4s4n4l18p 1";
        let r = solve(sfen, 1_000_000);
        assert!(r.shortest);
        let line = line_of(&r);
        assert_eq!(line.len(), 7, "{line:?}");
    }

    #[test]
    fn useless_interpositions_count() {
        // Public corpus mate0573: the defender's pawn and knight drops make it a mate in 11.
        let sfen = "6k2/9/8S/9/9/3+B5/9/8K/9 b RGn12p 1";
        let r = solve(sfen, 2_000_000);
        assert_eq!(line_of(&r).len(), 11);
        assert!(r.shortest);
    }

    #[test]
    fn pawn_drop_mate_is_no_mate() {
        // P*1b would mate in one but is illegal; the mate takes three plies.
        let r = solve("4R2sk/9/7G1/9/9/9/9/9/4K4 b P 1", 10_000);
        assert_eq!(line_of(&r), ["5a2a+", "1a2a", "S*2b"]);
        // Without the rook there is nothing else.
        assert_eq!(solve("7sk/9/7G1/9/9/9/9/9/4K4 b P 1", 10_000).answer, MateAnswer::NoMate);
    }

    #[test]
    fn kingless_problems() {
        // The attacker without a king, either colour.
        let r = solve("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1", 1000);
        assert_eq!(r.answer.to_usi(), "checkmate G*5b");
        let r = solve("9/9/9/9/9/9/4p4/9/4K4 w 2R2B3G4S4N4L17Pg 1", 1000);
        assert_eq!(r.answer.to_usi(), "checkmate G*5h");
        // The pawn-drop mate stays illegal; the same answers as with the attacker's king.
        let r = solve("4R2sk/9/7G1/9/9/9/9/9/9 b P 1", 10_000);
        assert_eq!(line_of(&r), ["5a2a+", "1a2a", "S*2b"]);
        assert_eq!(solve("7sk/9/7G1/9/9/9/9/9/9 b P 1", 10_000).answer, MateAnswer::NoMate);
        // Public kingless problem mate0433k: with White's king on 5f the shortest mate takes
        // 7 plies (the king is in the way); without it, 5.
        let r = solve("+N1+R2pSS1/+P7+P/1+S2P2bp/LNGNp3S/1p1r3G1/pLPp2p2/3+nl4/K4P3/4+b1g2 w Lg6p 1", 200_000);
        assert!(r.shortest);
        assert_eq!(line_of(&r).len(), 5);
        // mate0120k: with Black's king on 3e guarding 2d, G*1c mates at once; without it the
        // mate takes 3 plies.
        let r = solve("G2G2+L1b/p5s2/7k1/8N/1sP4N1/3P2SPN/3bPPlSL/3R4P/+l3g4 b GN11Pr 1", 200_000);
        assert!(r.shortest);
        assert_eq!(line_of(&r).len(), 3);
    }

    #[test]
    fn answers_in_usi_form() {
        assert_eq!(MateAnswer::NoMate.to_usi(), "checkmate nomate");
        assert_eq!(MateAnswer::Timeout.to_usi(), "checkmate timeout");
        // The start position: not a single check.
        assert_eq!(solve(crate::shogi::STARTPOS, 10).answer, MateAnswer::NoMate);
    }

    #[test]
    fn budget_and_stop_give_timeout() {
        let hard = "6k2/9/4+bs3/9/9/9/7K1/9/9 b 2RLb4g3s4n3l18p 1";
        assert_eq!(solve(hard, 5_000).answer, MateAnswer::Timeout);
        let pos = Position::from_sfen(hard).unwrap();
        let mut solver = MateSolver::new(4).unwrap();
        let r = solver.solve(&pos, &MateLimits::default(), &AtomicBool::new(true));
        assert_eq!(r.answer, MateAnswer::Timeout);
        assert!(r.nodes < 10_000, "stopped after {} nodes", r.nodes);
    }

    #[test]
    fn verify_rejects_wrong_lines() {
        let pos = Position::from_sfen("4k4/9/3S5/9/9/9/9/9/4K4 b G 1").unwrap();
        let m = |s: &str| crate::shogi::sfen::parse_move_syntax(s).unwrap();
        assert!(verify_mate_line(&pos, &[m("G*5b")]).is_ok());
        assert!(verify_mate_line(&pos, &[m("G*4b")]).is_err(), "not mate");
        assert!(verify_mate_line(&pos, &[m("G*5h")]).is_err(), "no check");
        assert!(verify_mate_line(&pos, &[m("S*5b")]).is_err(), "illegal");
        assert!(verify_mate_line(&pos, &[]).is_err());
    }
}
