//! A search thread: iterative deepening with aspiration windows, the main thread's decisions
//! (time, mate probes at the root, reports), and the node bookkeeping the alpha-beta search
//! (`alphabeta`) relies on: repetitions, rule endings, the carried evaluation terms.

mod alphabeta;

use super::params::*;
use super::root::{RootMove, answer_of};
use super::shared::{Shared, ThreadData};
use super::*;
use crate::eval::{self, Value};
use crate::nnue::{AccumulatorStack, Network};
use crate::shogi::{Color, EnteringKingRule, Move, PieceType, Position, RepetitionKind};
use crate::tt::Bound;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

#[derive(Clone, Copy, Default)]
pub(super) struct Frame {
    pub(super) killers: [Option<Move>; 2],
    pub(super) static_eval: Value,
    pub(super) current: Option<Move>,
    /// Piece-to index of `current`, for counter moves.
    pub(super) current_piece_to: Option<usize>,
    /// Kind-to index of `current`, for continuation history.
    pub(super) current_kind_to: Option<usize>,
    /// `current` is neither a capture nor a pawn's promotion.
    pub(super) current_quiet: bool,
    pub(super) excluded: Option<Move>,
    pub(super) null_moved: bool,
    /// Double singular extensions on the line to this node.
    pub(super) double_extensions: i32,
    /// Replies that failed high at this node's children so far (this frame belongs to the
    /// children of the node one ply up, which resets it before its move loop).
    pub(super) cutoffs: i32,
    /// `eval::piece_sum` of this node's position, VALUE_NONE until known: carried from the
    /// parent's when only a non-king piece moved, so children evaluate incrementally.
    pub(super) piece_sum: Value,
    /// This node is in check.
    pub(super) in_check: bool,
    /// Moves tried at this node so far.
    pub(super) move_count: usize,
    /// The reduction (plies) of the zero-window search of this node's move under way (0
    /// otherwise): the child's hindsight depth reads it.
    pub(super) reduction: i32,
    /// This node is on the table's PV (`tt_pv`), as its search began.
    pub(super) tt_pv: bool,
}

pub(super) struct Worker<'a> {
    pub(super) id: usize,
    pub(super) shared: &'a Shared<'a>,
    pub(super) pos: Position,
    pub(super) data: ThreadData,
    pub(super) stack: Vec<Frame>,
    pub(super) pv: Vec<[Option<Move>; MAX_PLY + 1]>,
    pub(super) pv_len: Vec<usize>,
    pub(super) root_moves: Vec<RootMove>,
    pub(super) root_depth: i32,
    pub(super) pv_idx: usize,
    pub(super) seldepth: i32,
    pub(super) nodes: u64,
    pub(super) completed_depth: i32,
    // Main thread only: timing.
    pub(super) start: Instant,
    pub(super) plan: Option<TimePlan>,
    /// The limits the clock decisions use (updated by `ponderhit`).
    pub(super) clock: Limits,
    pub(super) check_counter: u32,
    pub(super) reductions: Arc<[[i32; 64]; 64]>,
    /// Main thread of a single-PV search: the root mate probes' solver, and the root moves
    /// probed so far with the opponent's mating line they allow (None: none found).
    pub(super) mate_probe: Option<crate::mate::MateSolver>,
    pub(super) probed: Vec<(Move, Option<Vec<Move>>)>,
    /// The move of the answer this (main) thread last published.
    published: Option<Move>,
    /// The network that evaluates this search's positions (`None`: the linear evaluation);
    /// its accumulators are `data.nnue`, pushed and popped with every move.
    pub(super) network: Option<&'a Network>,
}

/// How a repetition found in search scores for the side to move: a perpetual check loses for
/// the checking side (scored like a mate), anything else is a draw.
fn repetition_value(pos: &Position, distance: usize, draw: Value, ply: usize) -> Value {
    match pos.repetition_kind(distance) {
        RepetitionKind::WinForSideToMove => mate_in(ply),
        RepetitionKind::LossForSideToMove => mated_in(ply),
        RepetitionKind::Draw => draw,
    }
}

impl<'a> Worker<'a> {
    pub(super) fn new(
        id: usize,
        shared: &'a Shared<'a>,
        pos: Position,
        data: ThreadData,
        root_moves: Vec<RootMove>,
        reductions: Arc<[[i32; 64]; 64]>,
    ) -> Worker<'a> {
        let mut data = data;
        data.history.clear_low_ply();
        if fresh_search() & 1 != 0 {
            data.history.clear();
        }
        if fresh_search() & 2 != 0 {
            data.correction.clear();
        }
        let network = match &shared.config.evaluator {
            Evaluator::Nnue { network, fv_scale } => {
                let acc = data.nnue.get_or_insert_with(|| Box::new(AccumulatorStack::new()));
                acc.set_fv_scale(*fv_scale);
                acc.reset(&pos);
                acc.is_evaluable().then_some(&**network)
            }
            Evaluator::Linear => None,
        };
        Worker {
            id,
            shared,
            pos,
            data,
            stack: vec![Frame { piece_sum: VALUE_NONE, ..Frame::default() }; MAX_PLY + 8],
            pv: vec![[None; MAX_PLY + 1]; MAX_PLY + 2],
            pv_len: vec![0; MAX_PLY + 2],
            root_moves,
            root_depth: 0,
            pv_idx: 0,
            seldepth: 0,
            nodes: 0,
            completed_depth: 0,
            start: Instant::now(),
            plan: None,
            clock: shared.limits.clone(),
            check_counter: 0,
            reductions,
            mate_probe: None,
            probed: Vec::new(),
            published: None,
            network,
        }
    }

    /// Plays `m` on the position and on the NNUE accumulators.
    #[inline]
    pub(super) fn do_move(&mut self, m: Move) {
        if self.network.is_some()
            && let Some(acc) = &mut self.data.nnue
        {
            acc.push(&self.pos, m);
        }
        self.pos.do_move(m);
    }

    #[inline]
    pub(super) fn undo_move(&mut self, m: Move) {
        self.pos.undo_move(m);
        if self.network.is_some()
            && let Some(acc) = &mut self.data.nnue
        {
            acc.pop();
        }
    }

    #[inline]
    pub(super) fn do_null_move(&mut self) {
        if self.network.is_some()
            && let Some(acc) = &mut self.data.nnue
        {
            acc.push_null();
        }
        self.pos.do_null_move();
    }

    #[inline]
    pub(super) fn undo_null_move(&mut self) {
        self.pos.undo_null_move();
        if self.network.is_some()
            && let Some(acc) = &mut self.data.nnue
        {
            acc.pop();
        }
    }

    #[inline]
    fn is_main(&self) -> bool {
        self.id == 0
    }

    #[inline]
    fn stopped(&self) -> bool {
        self.shared.control.stop.load(Ordering::Relaxed)
    }

    fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// After `ponderhit` the clock starts anew (from when `ponderhit` came, not from when
    /// this thread noticed it), with the clock values it brought if any.
    fn poll_ponderhit(&mut self) {
        let control = self.shared.control;
        if control.ponderhit.swap(false, Ordering::SeqCst) {
            let info = control.ponderhit_info.lock().clone();
            let (at, new) = info.unwrap_or((Instant::now(), None));
            self.start = at;
            let limits = self.shared.limits.after_ponderhit(new.as_ref());
            self.plan = time::plan(&limits, self.pos.side_to_move(), self.pos.game_ply(), &self.shared.config.time);
            self.clock = limits;
        }
    }

    /// Main thread: every so often, check the clock and the node limit.
    fn check_limits(&mut self) {
        self.check_counter += 1;
        if self.check_counter < 64 {
            return;
        }
        self.check_counter = 0;
        self.poll_ponderhit();
        let control = self.shared.control;
        if let Some(n) = self.shared.limits.nodes
            && self.completed_depth >= 1
            && self.shared.total_nodes() >= n
        {
            control.stop.store(true, Ordering::SeqCst);
        }
        if control.hold.load(Ordering::Relaxed) && self.shared.limits.ponder {
            return; // still pondering: the clock does not run
        }
        if let Some(plan) = self.plan
            && self.completed_depth >= 1
            && self.elapsed_ms() >= plan.maximum
        {
            control.stop.store(true, Ordering::SeqCst);
        }
    }

    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        self.shared.nodes[self.id].0.store(self.nodes, Ordering::Relaxed);
        if self.is_main() {
            self.check_limits();
        }
    }

    pub(super) fn iterative_deepening(&mut self, reporter: Option<&dyn Reporter>) {
        let limits = self.shared.limits.clone();
        let max_depth = limits.depth.unwrap_or(MAX_PLY as i32 - 10).clamp(1, MAX_PLY as i32 - 10);
        let multipv = self.shared.config.multipv.clamp(1, self.root_moves.len());
        let single_reply = self.root_moves.len() == 1;
        let mut last_best: Option<Move> = None;
        let mut best_changes = 0.0f64;
        let mut prev_best_score = VALUE_NONE;

        if self.is_main() && multipv == 1 && root_mate_probes() != 0 {
            // The solver is kept with the thread's data between searches (each probe forgets
            // what the previous one stored).
            self.mate_probe = self.data.mate_probe.take().or_else(|| crate::mate::MateSolver::new(MATE_PROBE_MIB).ok());
            if self.play_own_mate(reporter) {
                return;
            }
        }

        let mut depth = 0;
        while depth < max_depth {
            depth += 1;
            // Helpers skip some depths so the threads spread over different iterations.
            if self.id > 0
                && helper_skip_period() > 0
                && (depth + self.id as i32) % helper_skip_period() == 0
                && depth > 2
                && depth < max_depth
            {
                continue;
            }
            self.root_depth = depth;
            for rm in &mut self.root_moves {
                rm.prev_score = rm.score;
            }
            for pv_idx in 0..multipv {
                self.pv_idx = pv_idx;
                self.seldepth = 0;
                let prev = self.root_moves[pv_idx].prev_score;
                // Threads start from windows of different widths, so that their searches part
                // ways sooner.
                let mut delta = aspiration_delta() + (self.id % 8) as Value * asp_thread_spread();
                let (mut alpha, mut beta) = if depth >= aspiration_min_depth() && prev.abs() < VALUE_MATE_IN_MAX_PLY {
                    ((prev - delta).max(-VALUE_INF), (prev + delta).min(VALUE_INF))
                } else {
                    (-VALUE_INF, VALUE_INF)
                };
                let mut failed_high = 0;
                loop {
                    // After a fail high the re-search may go a ply shallower per fail high: the
                    // move that failed high is usually confirmed, and sooner.
                    let search_depth = (depth - failed_high * asp_fail_high_reduce()).max(1);
                    let v = self.search::<true>(alpha, beta, search_depth, 0, false);
                    // Stable sort keeps the order of equal (unsearched) moves.
                    self.root_moves[pv_idx..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
                    if self.stopped() {
                        break;
                    }
                    if v <= alpha {
                        beta = (alpha + beta) / 2;
                        alpha = (v - delta).max(-VALUE_INF);
                        failed_high = 0;
                        if let Some(r) = reporter
                            && self.elapsed_ms() > 2000
                        {
                            self.report(r, depth, pv_idx, pv_idx + 1);
                        }
                    } else if v >= beta {
                        beta = (v + delta).min(VALUE_INF);
                        failed_high += 1;
                        if let Some(r) = reporter
                            && self.elapsed_ms() > 2000
                        {
                            self.report(r, depth, pv_idx, pv_idx + 1);
                        }
                    } else {
                        break;
                    }
                    delta += delta / 2 + 10;
                }
                self.root_moves[..=pv_idx].sort_by_key(|rm| std::cmp::Reverse(rm.score));
                if self.stopped() {
                    break;
                }
            }
            if self.stopped() && depth > 1 {
                // An interrupted iteration: its first move was searched in full if it now
                // leads with a real score; report what the answer will be.
                if let Some(r) = reporter {
                    self.report(r, depth - 1, 0, multipv);
                }
                break;
            }
            self.completed_depth = depth;
            if let Some(r) = reporter {
                self.report(r, depth, 0, multipv);
            }
            if !self.is_main() {
                continue;
            }
            self.publish_answer(0);
            // ----- main thread: decide whether to go on -----
            self.poll_ponderhit();
            let best = self.root_moves[0].mv;
            let score = self.root_moves[0].score;
            if last_best != Some(best) {
                best_changes += 1.0;
            }
            best_changes *= 0.6;
            last_best = Some(best);
            // A proven mate needs no deeper search (an infinite or pondering search then
            // waits for its release in `run`).
            if score.abs() >= VALUE_MATE_IN_MAX_PLY && VALUE_MATE - score.abs() <= depth {
                if score > 0 && multipv == 1 {
                    self.shorten_found_mate(reporter);
                }
                break;
            }
            let hold = self.shared.control.hold.load(Ordering::Relaxed);
            let stop_allowed = !(limits.infinite || (limits.ponder && hold));
            if stop_allowed {
                let limits = &self.clock;
                if single_reply && limits.uses_clock() {
                    break;
                }
                if let Some(plan) = self.plan
                    && limits.movetime.is_none()
                {
                    let drop = if prev_best_score != VALUE_NONE { (prev_best_score - score).clamp(0, 200) } else { 0 };
                    let factor = (1.0 + best_changes) * (1.0 + drop as f64 / 250.0);
                    let target = (plan.optimum as f64 * factor.min(3.0)) as u64;
                    let is_pure_byoyomi = limits.time[self.pos.side_to_move().index()].unwrap_or(0) == 0
                        && limits.byoyomi[self.pos.side_to_move().index()] > 0;
                    if !is_pure_byoyomi && self.elapsed_ms() >= target.min(plan.maximum) {
                        break;
                    }
                    // Next iteration would take much longer than what is left: stop now.
                    if !is_pure_byoyomi && self.elapsed_ms() * 2 >= plan.maximum {
                        break;
                    }
                }
            }
            prev_best_score = score;
        }
    }

    /// A short mate for the side to move found by the probe goes to the front of the root
    /// moves with its line, then is shortened as far as the solver proves within its budget
    /// (as `go mate` does); true when there is one (the search is then over).
    fn play_own_mate(&mut self, reporter: Option<&dyn Reporter>) -> bool {
        // On a tsume position (a problem, not a game) finding the mate is the point.
        let tsume = Color::ALL.into_iter().any(|c| !self.pos.has_king(c));
        let (nodes, max_ply) =
            if tsume { (TSUME_PROBE_NODES, TSUME_PROBE_PLY) } else { (OWN_MATE_NODES, MATE_PROBE_PLY) };
        let Some(solver) = self.mate_probe.as_mut() else { return false };
        let stop = &self.shared.control.stop;
        let Some(line) = solver.probe(&self.pos, nodes, max_ply, stop) else { return false };
        let len = line.len();
        if !self.lead_with_mate(line, reporter) {
            return false;
        }
        self.shorten_mate(len, nodes.max(OWN_MATE_SHORTEN_NODES), reporter);
        true
    }

    /// Shortens the mate of `len` plies the probe just proved, within `nodes`: a shorter line
    /// found leads the root moves instead.
    fn shorten_mate(&mut self, len: usize, nodes: u64, reporter: Option<&dyn Reporter>) {
        let Some(solver) = self.mate_probe.as_mut() else { return };
        let stop = &self.shared.control.stop;
        if let Some((line, _)) = solver.shorten_probed(&self.pos, len, nodes, stop) {
            self.lead_with_mate(line, reporter);
        }
    }

    /// Puts the root move that starts the mating `line` first, with the line as its PV, reports
    /// it and makes it the answer. False (nothing changed) when `line` starts with no root move.
    fn lead_with_mate(&mut self, line: Vec<Move>, reporter: Option<&dyn Reporter>) -> bool {
        let Some(i) = self.root_moves.iter().position(|rm| rm.mv == line[0]) else { return false };
        self.root_moves[..=i].rotate_right(1);
        let len = line.len();
        let rm = &mut self.root_moves[0];
        rm.score = mate_in(len);
        rm.prev_score = rm.score;
        rm.bound = None;
        rm.seldepth = len as i32;
        rm.pv = line;
        self.completed_depth = self.completed_depth.max(len as i32);
        if let Some(r) = reporter {
            self.report(r, len as i32, 0, 1);
        }
        self.publish_answer(0);
        true
    }

    /// A mate the tree search found for the side to move, replaced by a shorter one by checks
    /// where the mate solver proves one (the search stops at the first mate it proves, which
    /// need not be the shortest).
    fn shorten_found_mate(&mut self, reporter: Option<&dyn Reporter>) {
        let len = (VALUE_MATE - self.root_moves[0].score) as usize;
        if len < 3 {
            return;
        }
        let Some(solver) = self.mate_probe.as_mut() else { return };
        let stop = &self.shared.control.stop;
        let shorter = (len - 2).min(MAX_PLY) as u16;
        let Some(line) = solver.probe(&self.pos, OWN_MATE_SHORTEN_NODES, shorter, stop) else { return };
        let found = line.len();
        if found < len && self.lead_with_mate(line, reporter) {
            self.shorten_mate(found, OWN_MATE_SHORTEN_NODES, reporter);
        }
    }

    /// The opponent's mating line after the root move `m`, if the probe finds one (each root
    /// move is probed once per search).
    fn mate_allowed_by(&mut self, m: Move) -> Option<Vec<Move>> {
        if let Some((_, line)) = self.probed.iter().find(|(mv, _)| *mv == m) {
            return line.clone();
        }
        let solver = self.mate_probe.as_mut()?;
        self.pos.do_move(m);
        let stop = &self.shared.control.stop;
        let line = solver.probe(&self.pos, REFUTE_MATE_NODES, MATE_PROBE_PLY, stop);
        self.pos.undo_move(m);
        self.probed.push((m, line.clone()));
        line
    }

    /// Makes root move `i` (the root position's, which `self.pos` must be) the answer to give
    /// if the search is stopped now.
    fn publish_answer(&mut self, i: usize) {
        let rm = &self.root_moves[i];
        self.published = Some(rm.mv);
        self.shared.control.publish(answer_of(rm, &self.pos, self.shared.tt, self.shared.config.resign_value));
    }

    /// At the root after root move `idx` was searched (`updated`: its score and line were set):
    /// the main thread, searching the first PV line, publishes the move it would play if
    /// stopped now, the first of the highest score (as the stable sort after a stop leaves
    /// them), when that changed. A best move found by an unfinished iteration is then not lost
    /// when the timekeeper answers.
    pub(super) fn publish_leader(&mut self, idx: usize, updated: bool) {
        if !self.is_main() || self.pv_idx != 0 {
            return;
        }
        let rms = &self.root_moves;
        let Some(lead) = (0..rms.len()).min_by_key(|&i| std::cmp::Reverse(rms[i].score)) else { return };
        if (updated && lead == idx) || self.published != Some(rms[lead].mv) {
            self.publish_answer(lead);
        }
    }

    fn report(&self, r: &dyn Reporter, depth: i32, from: usize, to: usize) {
        // Nothing after the bestmove (given early by `stop_and_take_answer`).
        if self.shared.control.is_answered() {
            return;
        }
        for (i, rm) in self.root_moves.iter().enumerate().take(to).skip(from) {
            let searched = rm.score != -VALUE_INF;
            let (d, v) = if searched { (depth, rm.score) } else { ((depth - 1).max(1), rm.prev_score) };
            if v == -VALUE_INF {
                continue;
            }
            let bound = if i == self.pv_idx { rm.bound } else { None };
            r.info(&self.shared.info_line(self.start, d, i + 1, v, bound, rm));
        }
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let child_len = self.pv_len[ply + 1];
        self.pv[ply][0] = Some(m);
        for i in 0..child_len {
            self.pv[ply][i + 1] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len + 1;
    }

    /// Repetition of the current position: first in the search path, then in the game played
    /// before the root. Returns the distance in plies to the earlier occurrence.
    fn repetition_distance(&self, ply: usize) -> Option<usize> {
        let hist = self.pos.history();
        let n = hist.len();
        let key = self.pos.key();
        let mut i = 4;
        while i <= ply.min(n) {
            let st = &hist[n - i];
            if st.board_key ^ st.hand_key == key {
                return Some(i);
            }
            i += 2;
        }
        self.shared.game_keys.get(&key).map(|&j| n - j)
    }

    /// Rule endings that score a node without search: repetition (draw or perpetual check),
    /// a winning declaration, the move limit.
    fn game_end_value(&self, ply: usize, in_check: bool) -> Option<Value> {
        if let Some(d) = self.repetition_distance(ply) {
            return Some(repetition_value(&self.pos, d, self.draw_value(ply), ply));
        }
        let cfg = &self.shared.config;
        if cfg.entering_king_rule != EnteringKingRule::NoEnteringKing
            && self.pos.can_declare_win(cfg.entering_king_rule)
        {
            return Some(mate_in(ply + 1));
        }
        if cfg.max_moves_to_draw > 0 && self.pos.game_ply().saturating_sub(1) >= cfg.max_moves_to_draw {
            // The game is over: a mate delivered by the last move still counts.
            if in_check && !self.pos.has_legal_move() {
                return Some(mated_in(ply));
            }
            return Some(self.draw_value(ply));
        }
        None
    }

    fn draw_value(&self, ply: usize) -> Value {
        // The draw value is from the root side's view; flip it on the other side's plies.
        let v = self.shared.config.draw_value;
        if ply.is_multiple_of(2) { v } else { -v }
    }

    /// Sets this node's piece sum from its parent's where a move of a non-king piece (or a
    /// null move) leads here; unknown otherwise (`static_eval` computes it when needed). Only
    /// the linear evaluation (alone or under a correction network) has one.
    #[inline]
    fn carry_piece_sum(&mut self, ply: usize) {
        if self.network.is_some() && nnue_on_linear() == 0 {
            return;
        }
        let parent = if ply > 0 { self.stack[ply - 1].piece_sum } else { VALUE_NONE };
        self.stack[ply].piece_sum = if parent == VALUE_NONE {
            VALUE_NONE
        } else {
            eval::piece_sum_after(&self.pos, parent).unwrap_or(VALUE_NONE)
        };
    }

    /// Piece-to indices of the move that led to the node at `ply`, of the one before it and of
    /// the one four plies back (None at the root and after a null move), for the correction
    /// history.
    #[inline]
    fn last_moves(&self, ply: usize) -> crate::search::correction::LastMoves {
        let back = |n: usize| if ply >= n { self.stack[ply - n].current_piece_to } else { None };
        [back(1), back(2), back(4)]
    }

    /// The static evaluation of the current position without the carried piece sums (at the
    /// depth limit, where the node's own sum is not set).
    fn evaluate_afresh(&mut self) -> Value {
        if let Some(net) = self.network
            && let Some(acc) = &mut self.data.nnue
            && let Some(v) = acc.evaluate(&self.pos, net)
        {
            let base = if nnue_on_linear() != 0 { eval::evaluate(&self.pos) } else { 0 } - nnue_offset();
            return (v + base).clamp(-eval::MAX_STATIC, eval::MAX_STATIC);
        }
        eval::evaluate(&self.pos)
    }

    /// The static evaluation of the node at `ply` (side to move's view), from its piece sum.
    #[inline]
    fn static_eval(&mut self, ply: usize) -> Value {
        if let Some(net) = self.network
            && let Some(acc) = &mut self.data.nnue
            && let Some(v) = acc.evaluate(&self.pos, net)
        {
            // The accumulators carried along the search path give what a fresh computation
            // gives (checked at every evaluation in the unit tests).
            #[cfg(test)]
            assert_eq!(Some(v), net.evaluate(&self.pos, acc.fv_scale()), "{}", self.pos.to_sfen());
            let base = if nnue_on_linear() != 0 { self.linear_eval(ply) } else { 0 } - nnue_offset();
            // Clear of the mate range, like the linear evaluation.
            return (v + base).clamp(-eval::MAX_STATIC, eval::MAX_STATIC);
        }
        self.linear_eval(ply)
    }

    /// The linear evaluation of the node at `ply`, from its piece sum.
    #[inline]
    fn linear_eval(&mut self, ply: usize) -> Value {
        let mut sum = self.stack[ply].piece_sum;
        if sum == VALUE_NONE {
            sum = eval::piece_sum(&self.pos);
            self.stack[ply].piece_sum = sum;
        }
        eval::evaluate_with(&self.pos, sum)
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use crate::engine::EngineOptions;
    use crate::nnue::Network;
    use crate::shogi::Position;
    use crate::tt::TranspositionTable;
    use std::io::Read;
    use std::sync::Arc;
    use std::time::Instant;

    /// Searches with the public random network, 2 threads: every evaluation made from the
    /// accumulators carried along the search (moves, captures, drops, promotions, king moves,
    /// null moves, undo) equals the network's evaluation from scratch (`static_eval` asserts
    /// it in test builds), and the answer is a legal move.
    #[test]
    fn nnue_search_evaluates_like_a_fresh_computation() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/nnue/random_sparse_nn.bin.gz");
        let mut gz = Vec::new();
        std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut gz)).expect("network fixture");
        let network = Arc::new(Network::from_gzip_bytes(&gz).expect("fixture loads"));
        let mut config = EngineOptions { threads: 2, ..Default::default() }.search_config();
        config.evaluator = Evaluator::Nnue { network, fv_scale: 16 };
        for sfen in [
            crate::shogi::STARTPOS,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
            // Nineteen pawns: a feature more than a set.
            "lnsgk1snl/6gb1/p1pppp2p/6pR1/9/1rP6/P2PPPP1P/1BG6/LNS1KGSNL w 3P2p 16",
        ] {
            let root = Position::from_sfen(sfen).unwrap();
            let job = SearchJob {
                root: root.clone(),
                limits: Limits { depth: Some(7), ..Default::default() },
                config: config.clone(),
                tt: Arc::new(TranspositionTable::new(4).unwrap()),
                control: Control::new(),
                threads: Vec::new(),
                start: Instant::now(),
            };
            let r = run(job, &NullReporter);
            assert!(r.nodes > 1000, "{sfen}: {} nodes", r.nodes);
            match r.best {
                BestMove::Move { mv, .. } => assert!(root.is_legal(mv), "{sfen}: {mv}"),
                other => panic!("{sfen}: {other:?}"),
            }
        }
    }
}
