//! The principal-variation alpha-beta search and quiescence search of one thread: table
//! cutoffs, static-evaluation pruning (reverse futility, null move), move-loop pruning, singular
//! and check extensions, late move reductions, history and correction updates.

use super::super::movepick::{Conts, MovePicker, is_capture, is_tactical, kind_to_index, piece_to_index};
use super::super::params::*;
use super::super::see::see_ge;
use super::super::*;
use super::*;

/// Counts an event of `stats` (in `--features tune` builds only; nothing otherwise).
macro_rules! count {
    ($stat:ident) => {
        count!($stat, 1)
    };
    ($stat:ident, $v:expr) => {
        #[cfg(feature = "tune")]
        crate::search::stats::add(crate::search::stats::Stat::$stat, $v as i64);
    };
}

impl Worker<'_> {
    pub(super) fn search<const PV: bool>(
        &mut self,
        mut alpha: Value,
        mut beta: Value,
        depth: i32,
        ply: usize,
        cut_node: bool,
    ) -> Value {
        if ply > 0 {
            count!(Calls);
        }
        if depth <= 0 {
            return self.qsearch::<PV>(alpha, beta, ply, 0);
        }
        let root = ply == 0;
        if PV {
            self.pv_len[ply] = 0;
        }
        self.count_node();
        if PV && ply as i32 + 1 > self.seldepth {
            self.seldepth = ply as i32 + 1;
        }
        let in_check = self.pos.in_check();
        self.stack[ply].in_check = in_check;
        self.stack[ply].move_count = 0;
        // The reduction that led here, read once (the parent's search of this node may be
        // followed by a re-search at full depth, which must not see it).
        let prior_reduction = if ply > 0 { std::mem::take(&mut self.stack[ply - 1].reduction) } else { 0 };
        count!(MainNodes);
        #[cfg(feature = "tune")]
        crate::search::stats::at_ply(false, ply);
        if in_check {
            count!(InCheck);
        }
        if !root {
            if self.stopped() {
                return 0;
            }
            if let Some(v) = self.game_end_value(ply, in_check) {
                return v;
            }
            if ply >= MAX_PLY - 4 {
                return if in_check { 0 } else { self.evaluate_afresh() };
            }
            // Mate distance pruning.
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        self.carry_piece_sum(ply);
        let excluded = self.stack[ply].excluded;
        let key = self.pos.key() ^ excluded.map_or(0, |m| (m.raw() as u64) << 16);
        let tt_hit = self.shared.tt.probe(key);
        let tt_move = if root {
            Some(self.root_moves[self.pv_idx].mv)
        } else {
            tt_hit.and_then(|h| h.mv).filter(|&m| self.pos.is_legal(m))
        };
        let tt_value = tt_hit.map_or(VALUE_NONE, |h| value_from_tt(h.value, ply));
        let mut tt_pv = PV || tt_hit.is_some_and(|h| h.is_pv);
        if tt_pv_inherit() != 0 {
            // Read only by the children's inheritance (off: a constant, no store per node).
            self.stack[ply].tt_pv = tt_pv;
        }
        if !PV
            && excluded.is_none()
            && let Some(h) = tt_hit
            && (if tt_cut_strict() != 0 {
                h.depth > depth - (tt_value <= beta) as i32 && (cut_node == (tt_value >= beta) || depth > 5)
            } else {
                h.depth >= depth
            })
            && cuts_off(h.bound, tt_value, alpha, beta)
        {
            count!(TableCut);
            if tt_cut_hist() > 0 && tt_value >= beta {
                self.reward_table_cut(ply, depth, tt_move);
            }
            return tt_value;
        }

        // A mate in one ends the node at once (the table knows it from the last visit).
        if mate1_main() != 0
            && !root
            && !in_check
            && tt_hit.is_none()
            && excluded.is_none()
            && let Some(m) = crate::mate::mate_in_one(&self.pos)
        {
            let v = mate_in(ply + 1);
            self.shared.tt.store(key, Some(m), value_to_tt(v, ply), VALUE_NONE, depth + 6, Bound::Exact, tt_pv);
            return v;
        }

        // Static evaluation (the table keeps it uncorrected), then shifted by the correction
        // history.
        let raw_eval = if in_check {
            VALUE_NONE
        } else if let Some(h) = tt_hit
            && h.eval.abs() < VALUE_MATE_IN_MAX_PLY
        {
            h.eval
        } else {
            self.static_eval(ply)
        };
        let static_eval = if raw_eval == VALUE_NONE {
            VALUE_NONE
        } else {
            self.data.correction.corrected(&self.pos, self.last_moves(ply), raw_eval)
        };
        if raw_eval != VALUE_NONE && tt_hit.is_none() && excluded.is_none() {
            // Keep the evaluation at once: this node may be pruned below without a store, and
            // the next visit then finds the evaluation instead of computing it again.
            self.shared.tt.store(key, None, VALUE_NONE, raw_eval, DEPTH_UNSEARCHED, Bound::EvalOnly, tt_pv);
        }
        // A TT bound can sharpen the static estimate.
        let eval_est = if !in_check
            && tt_value != VALUE_NONE
            && tt_value.abs() < VALUE_MATE_IN_MAX_PLY
            && let Some(h) = tt_hit
            && (h.bound == Bound::Exact
                || (h.bound == Bound::Lower && tt_value > static_eval)
                || (h.bound == Bound::Upper && tt_value < static_eval))
        {
            tt_value
        } else {
            static_eval
        };
        if static_eval != VALUE_NONE {
            count!(Corrected);
            count!(CorrectionSum, (static_eval - raw_eval).abs());
        }
        self.stack[ply].static_eval =
            if in_check && check_eval_gp() != 0 && ply >= 2 { self.stack[ply - 2].static_eval } else { static_eval };
        let mut depth = depth;
        // Both read the parent's frame; off (constants) in a normal build, so free there.
        if (eval_diff_hist() > 0 || prior_reduction_adjust() != 0) && !in_check && excluded.is_none() && ply >= 1 {
            let prev = self.stack[ply - 1];
            if eval_diff_hist() > 0
                && let Some(pm) = prev.current
                && !prev.in_check
                && prev.static_eval != VALUE_NONE
                && self.pos.captured_piece().is_empty()
            {
                let diff = (-(prev.static_eval + static_eval)).clamp(-214, 171) + 60;
                let bonus = diff * 10 * eval_diff_hist() / 100;
                let hist = &mut self.data.history;
                hist.update_quiet(!self.pos.side_to_move(), pm, bonus);
                if tt_hit.is_none()
                    && !pm.is_promotion()
                    && self.pos.piece_on(pm.to()).kind() != PieceType::Pawn
                    && let Some(pt) = prev.current_piece_to
                {
                    hist.update_pawn_played(&self.pos, pt, bonus * 12 / 10);
                }
            }
            if prior_reduction_adjust() != 0 && !root && prev.static_eval != VALUE_NONE && !prev.in_check {
                let opponent_worsening = static_eval > -prev.static_eval;
                if prior_reduction >= 3 && !opponent_worsening {
                    depth += 1;
                }
                if prior_reduction >= 2 && depth >= 2 && static_eval + prev.static_eval > 173 {
                    depth -= 1;
                }
            }
        }
        let improving = !in_check
            && ply >= 2
            && self.stack[ply - 2].static_eval != VALUE_NONE
            && static_eval > self.stack[ply - 2].static_eval;
        self.stack[ply + 1].killers = [None; 2];
        self.stack[ply + 2].killers = [None; 2];
        self.stack[ply + 1].cutoffs = 0;

        if !PV && !in_check && excluded.is_none() {
            // Reverse futility pruning, as YaneuraOu: off the table's PV, where the table's
            // move (if any) is a capture, a margin smaller where the table knows the node,
            // returning a value between beta and the evaluation.
            if rfp_yo() != 0 {
                let opponent_worsening = ply >= 1
                    && self.stack[ply - 1].static_eval != VALUE_NONE
                    && static_eval > -self.stack[ply - 1].static_eval;
                let mult = 76 - if tt_hit.is_none() { 21 } else { 0 };
                let margin = mult * depth - (2686 * improving as i32 + 362 * opponent_worsening as i32) * mult / 1024;
                if !tt_pv
                    && depth < rfp_depth()
                    && eval_est >= beta
                    && eval_est - margin >= beta
                    && tt_move.is_none_or(|m| is_capture(&self.pos, m))
                    && beta > -VALUE_MATE_IN_MAX_PLY
                    && eval_est < VALUE_MATE_IN_MAX_PLY
                {
                    count!(ReverseFutility);
                    return (2 * beta + eval_est) / 3;
                }
            } else if depth < rfp_depth()
                && eval_est - rfp_margin() * (depth - improving as i32) >= beta
                && eval_est < VALUE_MATE_IN_MAX_PLY
            {
                count!(ReverseFutility);
                return eval_est;
            }
            // Razoring: far below alpha, only captures can save this node.
            if razor_margin() > 0 && depth <= 3 && eval_est + razor_margin() * depth * depth < alpha {
                let v = self.qsearch::<false>(alpha - 1, alpha, ply, 0);
                if v < alpha && v.abs() < VALUE_MATE_IN_MAX_PLY {
                    return v;
                }
            }
            count!(NonPvNodes);
            if static_eval >= beta {
                count!(NonPvEvalAboveBeta);
            }
            // Null move pruning.
            if depth >= nmp_min_depth()
                && (nmp_cut_only() == 0 || cut_node)
                && eval_est >= beta
                && static_eval >= beta + nmp_static_margin() - nmp_static_per_depth() * depth
                && !self.stack[ply].null_moved
                && beta > -VALUE_MATE_IN_MAX_PLY
            {
                let r = nmp_base_r() + depth / nmp_depth_div() + ((eval_est - beta) / nmp_eval_div()).min(3);
                count!(NullTried);
                self.enter_child(ply, None, 0);
                self.stack[ply + 1].null_moved = true;
                self.do_null_move();
                let v = -self.search::<false>(-beta, -beta + 1, depth - r, ply + 1, !cut_node);
                self.undo_null_move();
                self.stack[ply + 1].null_moved = false;
                if self.stopped() {
                    return 0;
                }
                if v >= beta {
                    count!(NullCut);
                    return if v >= VALUE_MATE_IN_MAX_PLY { beta } else { v };
                }
            }
        }

        // ProbCut: a capture that beats beta by a margin in a reduced search very likely
        // beats beta in the full one.
        let probcut_beta = beta + probcut_margin();
        if !PV
            && !in_check
            && excluded.is_none()
            && probcut_margin() > 0
            && depth >= probcut_depth()
            && beta.abs() < VALUE_MATE_IN_MAX_PLY
            && !(tt_hit.is_some_and(|h| h.depth >= depth - 3) && tt_value != VALUE_NONE && tt_value < probcut_beta)
        {
            let mut picker = MovePicker::new_qsearch(&self.pos, tt_move);
            while let Some(m) = picker.next(&self.pos, &self.data.history) {
                if !see_ge(&self.pos, m, probcut_beta - static_eval) {
                    continue;
                }
                self.enter_child(ply, Some(m), 0);
                self.shared.tt.prefetch(self.pos.key_after(m));
                self.do_move(m);
                let mut v = -self.qsearch::<false>(-probcut_beta, -probcut_beta + 1, ply + 1, 0);
                if v >= probcut_beta {
                    v = -self.search::<false>(-probcut_beta, -probcut_beta + 1, depth - 4, ply + 1, !cut_node);
                }
                self.undo_move(m);
                if self.stopped() {
                    return 0;
                }
                if v >= probcut_beta {
                    let stored = value_to_tt(v, ply);
                    self.shared.tt.store(key, Some(m), stored, raw_eval, depth - 3, Bound::Lower, tt_pv);
                    count!(ProbCut);
                    return if v.abs() < VALUE_MATE_IN_MAX_PLY { v - (probcut_beta - beta) } else { v };
                }
            }
        }

        // A table entry far above beta from nearly this depth cuts at once (YaneuraOu's
        // small ProbCut).
        if small_probcut() > 0
            && excluded.is_none()
            && !root
            && let Some(h) = tt_hit
            && matches!(h.bound, Bound::Lower | Bound::Exact)
            && h.depth >= depth - 4
            && tt_value != VALUE_NONE
            && tt_value.abs() < VALUE_MATE_IN_MAX_PLY
            && beta.abs() < VALUE_MATE_IN_MAX_PLY
            && tt_value >= beta + small_probcut()
        {
            return beta + small_probcut();
        }

        // Internal iterative reduction: no TT move means this node was not searched before.
        if !root && tt_move.is_none() && depth >= iir_depth() && (PV || cut_node) {
            depth -= 1;
        }

        let prev_piece_to = self.last_moves(ply)[0];
        let killers = self.stack[ply].killers;
        let counter = self.data.history.counter_move(prev_piece_to);
        let conts = self.conts_at(ply);
        let tt_capture = lmr_tt_capture() != 0 && tt_move.is_some_and(|m| is_capture(&self.pos, m));
        // With `quiet_sort_per_depth`, deeper nodes sort more of their quiet moves (there a
        // move's subtree costs far more than sorting); a constant 0 in a normal build.
        let check_info = self.pos.check_info();
        let refutations = if killer_moves() != 0 { [killers[0], killers[1], counter] } else { [None; 3] };
        let mut picker = MovePicker::new(&self.pos, tt_move, refutations, conts)
            .with_quiet_sort_limit(-quiet_sort_per_depth() * depth)
            .with_check_bonus(&check_info)
            .with_ply(ply);

        let mut best_value = -VALUE_INF;
        let mut best_move: Option<Move> = None;
        let mut move_count = 0;
        let mut quiets_tried: arrayvec::ArrayVec<Move, 64> = arrayvec::ArrayVec::new();
        let mut captures_tried: arrayvec::ArrayVec<Move, 32> = arrayvec::ArrayVec::new();
        let orig_alpha = alpha;
        // Extensions only on lines shorter than a multiple of the iteration's depth, so that
        // checking sequences do not grow the tree without end.
        let may_extend = ext_ply_limit() == 0 || (ply as i32) * 100 < self.root_depth * ext_ply_limit();

        // Late move pruning (below) drops every quiet move that does not give check once
        // `move_count` passes this limit and some move has a score; the picker then stops
        // producing them, and does not generate them at all if it has not yet.
        let lmp_limit = (lmp_base() + depth * depth * lmp_scale()) * if improving { 2 } else { 1 } / 2 + 1;
        loop {
            if !root && depth < lmp_depth() && best_value > -VALUE_MATE_IN_MAX_PLY && move_count as i32 >= lmp_limit {
                picker.skip_quiets(&check_info);
            }
            let m = if root {
                // The root walks its own list (in order of the last iteration), from pv_idx on.
                let i = self.pv_idx + move_count;
                if i >= self.root_moves.len() {
                    break;
                }
                self.root_moves[i].mv
            } else {
                match picker.next(&self.pos, &self.data.history) {
                    Some(m) => m,
                    None => break,
                }
            };
            if Some(m) == excluded {
                continue;
            }
            move_count += 1;
            self.stack[ply].move_count = move_count;
            let capture = is_capture(&self.pos, m);
            let tactical = is_tactical(&self.pos, m);
            let gives_check = self.pos.gives_check_with(&check_info, m);
            // Late move reductions may apply to this move (deep enough, not the first).
            let lmr_fine_scheme = lmr_fine() != 0;
            let lmr_candidate =
                depth >= if lmr_fine_scheme { lmr_f_min_depth() } else { 3 } && move_count > 1 + root as usize;
            // With `lmr_tactical` 2, captures that lose material are reduced at every node;
            // the exchange is evaluated only where that decides it (cut nodes reduce them all).
            let losing_tactical =
                tactical && lmr_tactical() == 2 && lmr_candidate && !cut_node && !see_ge(&self.pos, m, 0);
            let hist_score = if tactical {
                0
            } else if let Some(s) = picker.last_quiet_score().filter(|_| !root) {
                s
            } else {
                self.data.history.quiet_score(&self.pos, m, &conts)
                    + self.data.history.pawn_score(picker.pawn_index(), &self.pos, m)
            };

            // ----- shallow pruning -----
            if !root && best_value > -VALUE_MATE_IN_MAX_PLY {
                if in_check && lmp_evasions() != 0 && !capture && depth < lmp_depth() && move_count as i32 > lmp_limit {
                    continue;
                }
                if !tactical && gives_check && prune_quiet_checks() != 0 {
                    if prune_quiet_checks() & 1 != 0 && depth < lmp_depth() && move_count as i32 > lmp_limit {
                        continue;
                    }
                    if prune_quiet_checks() & 2 != 0
                        && !in_check
                        && depth < futility_depth()
                        && static_eval + futility_base() + futility_per_depth() * depth <= alpha
                        && hist_score < 4000
                    {
                        continue;
                    }
                }
                if !tactical && !gives_check {
                    if depth < lmp_depth() && move_count as i32 > lmp_limit {
                        continue;
                    }
                    if cont_prune() > 0 && hist_score < -cont_prune() * depth {
                        continue;
                    }
                    let judged_depth = self.judged_depth(depth, move_count, hist_score);
                    let futility_depth_of_move = if futility_lmr_depth() != 0 { judged_depth } else { depth };
                    let margin = futility_base()
                        + futility_per_depth() * futility_depth_of_move
                        + if best_move.is_none() { fut_no_best() } else { 0 }
                        + if static_eval > alpha { fut_eval_above() } else { 0 };
                    if !in_check
                        && futility_depth_of_move < futility_depth()
                        && static_eval + margin <= alpha
                        && (fut_hist_div() > 0 || hist_score < 4000)
                    {
                        let futility_value = static_eval + margin;
                        if futility_best_value() != 0
                            && best_value <= futility_value
                            && futility_value < VALUE_MATE_IN_MAX_PLY
                        {
                            best_value = futility_value;
                        }
                        continue;
                    }
                    let judged_depth = judged_depth.max(0);
                    // Quiet moves with a bad history, at small depth after reduction.
                    if hist_prune() > 0 && judged_depth < 4 && hist_score < -hist_prune() * depth {
                        continue;
                    }
                    let see_margin = if see_quiet_lmr() > 0 {
                        -see_quiet_lmr() * judged_depth * judged_depth
                    } else {
                        see_quiet_margin() * depth
                    };
                    if depth < see_prune_depth() && !see_ge(&self.pos, m, see_margin) {
                        continue;
                    }
                } else if !in_check {
                    let cap_hist = if capture && (cap_fut_base() > 0 || cap_see_hist() != 0) {
                        self.data.history.capture(&self.pos, m)
                    } else {
                        0
                    };
                    if cap_fut_base() > 0 && capture && !gives_check {
                        let judged_depth = self.reduced_depth(depth, move_count);
                        let victim = eval::PIECE_VALUE[self.pos.piece_on(m.to()).kind().index()];
                        if judged_depth < 7
                            && static_eval + cap_fut_base() + cap_fut_per_depth() * judged_depth + victim + cap_hist / 8
                                <= alpha
                        {
                            continue;
                        }
                    }
                    let margin = if tactical {
                        see_capture_margin() * depth - cap_hist * cap_see_hist() / 1024
                    } else if check_see_prune() == 1 {
                        see_capture_margin() * depth * check_see_pct() / 100
                    } else {
                        // A quiet check held to the quiet moves' bar, at its judged depth.
                        let judged = self.judged_depth(depth, move_count, hist_score).max(0);
                        -see_quiet_lmr() * judged * judged
                    };
                    if depth < see_prune_depth()
                        && (tactical || check_see_prune() != 0)
                        && !see_ge(&self.pos, m, margin.min(0))
                    {
                        continue;
                    }
                }
            }

            // ----- extensions -----
            let mut extension = 0;
            let mut deepen_node = false;
            if !root
                && may_extend
                && depth >= singular_depth()
                && Some(m) == tt_move
                && excluded.is_none()
                && let Some(h) = tt_hit
                && h.bound != Bound::Upper
                && h.depth >= depth - 3
                && tt_value.abs() < VALUE_MATE_IN_MAX_PLY
            {
                let extra = if tt_pv && !PV { singular_margin_tt_pv() * depth / 64 } else { 0 };
                let singular_beta = tt_value - singular_margin() * depth - extra;
                count!(SingularTest);
                self.stack[ply].excluded = Some(m);
                let v = self.search::<false>(singular_beta - 1, singular_beta, (depth - 1) / 2, ply, cut_node);
                self.stack[ply].excluded = None;
                if v < singular_beta && se_yo() != 0 {
                    // YaneuraOu's: one ply, a second and a third unless the other moves came
                    // close (margins smaller at PV nodes, where the table's move is a capture,
                    // and beyond the iteration's depth), and the node itself a ply deeper.
                    count!(SingularExtended);
                    let tt_move_capture = capture;
                    let beyond = (ply as i32 > self.root_depth) as i32;
                    let double_margin = -4 + 212 * PV as i32 - 182 * !tt_move_capture as i32 - 44 * beyond;
                    let triple_margin =
                        73 + 320 * PV as i32 - 218 * !tt_move_capture as i32 + 92 * tt_pv as i32 - 45 * beyond;
                    extension =
                        1 + (v < singular_beta - double_margin) as i32 + (v < singular_beta - triple_margin) as i32;
                    deepen_node = true;
                } else if v < singular_beta {
                    count!(SingularExtended);
                    extension = 1;
                    // Far below: the only move by a wide margin, worth two plies (a bounded
                    // number of times on a line, so that lines do not grow without end).
                    if !PV
                        && se_double_margin() > 0
                        && v < singular_beta - se_double_margin()
                        && self.stack[ply].double_extensions < se_double_limit()
                    {
                        extension = 2;
                    }
                } else if singular_beta >= beta {
                    // Multi-cut: another move also beats beta.
                    count!(MultiCut);
                    return singular_beta;
                } else if se_multicut_value() != 0 && v >= beta && v.abs() < VALUE_MATE_IN_MAX_PLY {
                    return v;
                } else if se_negative() > 0 && tt_value >= beta {
                    // Another move nearly as good, and the table's move beats beta anyway:
                    // it needs less depth to show it.
                    extension = -se_negative();
                } else if se_negative() > 0 && cut_node {
                    extension = -se_negative_cut();
                }
            } else if gives_check
                && may_extend
                && depth < check_ext_depth()
                && depth >= check_ext_min_depth()
                && see_ge(&self.pos, m, 0)
            {
                count!(CheckExtended);
                extension = 1;
            }

            count!(MovesSearched);
            if gives_check {
                count!(ChecksSearched);
            }
            // The child's table entry, fetched only for a move that is searched: a fetch for
            // each pruned move cost more (an address translation each) than the overlap with
            // the pruning decisions gained (nodes/s 1.034 in the middle game, 2026-12-07).
            self.shared.tt.prefetch(self.pos.key_after(m));
            self.enter_child(ply, Some(m), extension);
            self.do_move(m);
            let mut new_depth = depth - 1 + extension;
            if deepen_node {
                depth += 1;
            }
            let mut value;
            if move_count == 1 {
                // Below a PV node the first move leads the PV; elsewhere an expected cut node's
                // first move leads to an expected all node, and an all node's to a cut node.
                let child_cut = !PV && cut_node_first_child() != 0 && !cut_node;
                value = -self.search::<PV>(-beta, -alpha, new_depth, ply + 1, child_cut);
            } else {
                // Zero-window searches leave the child's line alone; without a full re-search
                // below (a fail high), the line must not come from an earlier sibling.
                if PV {
                    self.pv_len[ply + 1] = 0;
                }
                // Late move reductions.
                let mut r = 0;
                let reduce_tactical = cut_node || lmr_tactical() == 1 || losing_tactical;
                let reduced = lmr_candidate && (!tactical || reduce_tactical);
                if reduced && lmr_fine_scheme {
                    r = self.fine_reduction(ply, depth, move_count, cut_node, tt_pv, improving, hist_score);
                    if gives_check || in_check {
                        r -= lmr_f_check();
                    }
                    if tt_capture && !tactical {
                        r += LMR_GRAIN;
                    }
                    // Whole plies; a reduction below zero may extend, within limits.
                    r = r.div_euclid(LMR_GRAIN).min(new_depth - 1).max(-lmr_f_max_extension());
                } else if reduced {
                    let unsure = if lmr_correction() != 0 && static_eval != VALUE_NONE {
                        lmr_correction() * (static_eval - raw_eval).abs()
                    } else {
                        0
                    };
                    r = (self.base_reduction(depth, move_count) - unsure) / LMR_GRAIN;
                    if cut_node {
                        r += lmr_cut_node();
                    }
                    if tt_pv {
                        r -= lmr_tt_pv();
                    }
                    if !improving {
                        r += lmr_not_improving();
                    }
                    if gives_check || in_check {
                        r -= lmr_check();
                    }
                    if tt_capture && !tactical {
                        r += 1;
                    }
                    r -= hist_score / lmr_history_div();
                    r = r.min(new_depth - 1).max(0);
                }
                if reduced {
                    count!(Reduced);
                    count!(ReductionPlies, r);
                    if !tactical {
                        count!(QuietReduced);
                        count!(QuietHistory, hist_score);
                    }
                }
                self.stack[ply].reduction = r;
                value = -self.search::<false>(-alpha - 1, -alpha, new_depth - r, ply + 1, true);
                self.stack[ply].reduction = 0;
                if value > alpha && reduced && post_lmr_cont() > 0 && !tactical {
                    // The reduced search beat alpha: the move deserved better than its order.
                    let kt = self.stack[ply].current_kind_to.unwrap_or(0);
                    self.data.history.update_cont_played(!self.pos.side_to_move(), kt, &conts, post_lmr_cont());
                }
                if value > alpha && r > 0 {
                    count!(ReducedFailHigh);
                    // The reduced search's margin decides how deep the re-search goes.
                    if lmr_deeper() != 0 {
                        if value > best_value + lmr_deeper_margin() + 2 * new_depth {
                            new_depth += 1;
                        } else if value < best_value + new_depth {
                            new_depth -= 1;
                        }
                    }
                    value = -self.search::<false>(-alpha - 1, -alpha, new_depth, ply + 1, !cut_node);
                }
                if PV && value > alpha && (root || value < beta) {
                    value = -self.search::<true>(-beta, -alpha, new_depth, ply + 1, false);
                }
            }
            self.undo_move(m);

            if self.stopped() {
                return 0;
            }

            // A move about to become the best at the root must not allow a mate that the
            // search cannot see: it scores as mated, with the mating line as its PV.
            let mut mating_line = None;
            if root
                && self.mate_probe.is_some()
                && depth >= REFUTE_MIN_DEPTH
                && (move_count == 1 || value > alpha)
                && value.abs() < VALUE_MATE_IN_MAX_PLY
                && let Some(line) = self.mate_allowed_by(m)
            {
                value = mated_in(line.len() + 1);
                mating_line = Some(line);
            }

            if root {
                let seldepth = self.seldepth;
                let child_pv: Vec<Move> =
                    mating_line.unwrap_or_else(|| self.pv[1][..self.pv_len[1]].iter().flatten().copied().collect());
                let idx = self.pv_idx + move_count - 1;
                let rm = &mut self.root_moves[idx];
                if move_count == 1 || value > alpha {
                    rm.score = value;
                    rm.seldepth = seldepth;
                    rm.bound = if value >= beta {
                        Some(Bound::Lower)
                    } else if value <= alpha {
                        Some(Bound::Upper)
                    } else {
                        None
                    };
                    rm.pv.clear();
                    rm.pv.push(m);
                    rm.pv.extend(child_pv);
                } else {
                    rm.score = -VALUE_INF;
                }
                self.publish_leader(idx, move_count == 1 || value > alpha);
            }

            if value > best_value {
                best_value = value;
                if value > alpha {
                    best_move = Some(m);
                    if PV && !root {
                        self.update_pv(ply, m);
                    }
                    if value >= beta {
                        self.stack[ply].cutoffs += 1;
                        if !root {
                            count!(FailHigh);
                            count!(FailHighMoveSum, move_count);
                            if move_count == 1 {
                                count!(FailHighFirst);
                            }
                        }
                        break;
                    }
                    alpha = value;
                }
            }
            if Some(m) != best_move {
                if capture {
                    let _ = captures_tried.try_push(m);
                } else if !tactical {
                    let _ = quiets_tried.try_push(m);
                }
            }
        }

        if move_count == 0 {
            // No legal move (or only the excluded one): a loss, in check or not.
            return if excluded.is_some() { alpha } else { mated_in(ply) };
        }

        if let Some(bm) = best_move
            && (best_value >= beta || hist_on_alpha() != 0)
        {
            // The best move's bonus and the other moves' malus: equal and quadratic in depth,
            // or (`hist_yo`) YaneuraOu's, linear, the malus several times the bonus and
            // decaying over the quiet moves tried, scaled by `hist_yo_pct`.
            let yo = hist_yo() != 0;
            let (bonus, malus) = if yo {
                let b = (128 * depth - 77).min(1529) + if Some(bm) == tt_move { 353 } else { 0 };
                let m = (882 * depth - 204).min(2122);
                (b * hist_yo_pct() / 100, m * hist_yo_pct() / 100)
            } else {
                let b = (history_bonus_mul() * depth * depth).min(history_bonus_max());
                (b, b)
            };
            let hist = &mut self.data.history;
            if !is_tactical(&self.pos, bm) {
                let fr = &mut self.stack[ply];
                if fr.killers[0] != Some(bm) {
                    fr.killers[1] = fr.killers[0];
                    fr.killers[0] = Some(bm);
                }
                let quiet_bonus = if yo { bonus * 806 / 1024 } else { bonus };
                hist.update_quiet_all(&self.pos, bm, &conts, quiet_bonus);
                hist.update_low_ply(ply, bm, quiet_bonus);
                hist.set_counter_move(prev_piece_to, bm);
                let mut quiet_malus = if yo { malus * 1113 / 1024 } else { malus };
                for &q in &quiets_tried {
                    if yo {
                        quiet_malus = quiet_malus * 977 / 1024;
                    }
                    hist.update_quiet_all(&self.pos, q, &conts, -quiet_malus);
                    hist.update_low_ply(ply, q, -quiet_malus);
                }
            } else if is_capture(&self.pos, bm) {
                hist.update_capture(&self.pos, bm, if yo { bonus * 1286 / 1024 } else { bonus });
            }
            let capture_malus = if yo { malus * 1559 / 1024 } else { malus };
            for &c in &captures_tried {
                hist.update_capture(&self.pos, c, -capture_malus);
            }
        } else if best_move.is_none() && prior_quiet_bonus() > 0 && !root && excluded.is_none() {
            // Every move failed low: the quiet move that led here was a good one for its side.
            let prev = self.stack[ply - 1];
            if let (Some(pm), Some(kt), true) = (prev.current, prev.current_kind_to, prev.current_quiet) {
                let bonus = (history_bonus_mul() * depth * depth).min(history_bonus_max()) * prior_quiet_bonus() / 100;
                let prev_conts = self.conts_at(ply - 1);
                self.data.history.update_quiet_played(!self.pos.side_to_move(), pm, kt, &prev_conts, bonus);
            }
        }

        if beta_pull() & 2 != 0
            && !root
            && best_value >= beta
            && best_value.abs() < VALUE_MATE_IN_MAX_PLY
            && beta.abs() < VALUE_MATE_IN_MAX_PLY
            && alpha.abs() < VALUE_MATE_IN_MAX_PLY
        {
            best_value = pulled_to_beta(best_value, beta, depth);
        }

        // What the search found against the static evaluation, where the bound says which way
        // it errs and no capture or promotion explains the difference.
        if !in_check
            && excluded.is_none()
            && best_value.abs() < VALUE_MATE_IN_MAX_PLY
            && best_move.is_none_or(|m| !is_tactical(&self.pos, m))
            && ((best_value < static_eval && best_value < beta) || (best_value > static_eval && best_move.is_some()))
        {
            self.data.correction.update(&self.pos, self.last_moves(ply), static_eval, best_value, depth);
        }

        // A node that fails low below a table-PV node is kept on the table's PV too: the
        // opponent's move that led here is probably good (Stockfish's, `tt_pv_inherit`).
        if tt_pv_inherit() != 0 && !root && best_value <= orig_alpha && depth > 3 && self.stack[ply - 1].tt_pv {
            tt_pv = true;
        }
        if excluded.is_none() && !(root && self.pv_idx > 0) {
            let result = NodeResult { key, best_move, best_value, orig_alpha, beta, raw_eval };
            self.store_result::<PV>(&result, depth, ply, tt_pv);
        }
        best_value
    }

    pub(super) fn qsearch<const PV: bool>(&mut self, mut alpha: Value, beta: Value, ply: usize, qdepth: i32) -> Value {
        self.count_node();
        if PV {
            self.pv_len[ply] = 0;
            if ply as i32 + 1 > self.seldepth {
                self.seldepth = ply as i32 + 1;
            }
        }
        if self.stopped() {
            return 0;
        }
        let in_check = self.pos.in_check();
        count!(QuiescenceCalls);
        #[cfg(feature = "tune")]
        crate::search::stats::at_ply(true, ply);
        if in_check {
            count!(QuiescenceInCheck);
        }
        if let Some(v) = self.game_end_value(ply, in_check) {
            return v;
        }
        if ply >= MAX_PLY - 4 {
            return if in_check { 0 } else { self.evaluate_afresh() };
        }
        self.carry_piece_sum(ply);
        let key = self.pos.key();
        let tt_hit = self.shared.tt.probe(key);
        let tt_value = tt_hit.map_or(VALUE_NONE, |h| value_from_tt(h.value, ply));
        if !PV
            && let Some(h) = tt_hit
            && cuts_off(h.bound, tt_value, alpha, beta)
        {
            return tt_value;
        }
        if mate1_qs() != 0
            && !in_check
            && tt_hit.is_none()
            && let Some(m) = crate::mate::mate_in_one(&self.pos)
        {
            let v = mate_in(ply + 1);
            self.shared.tt.store(key, Some(m), value_to_tt(v, ply), VALUE_NONE, 0, Bound::Exact, PV);
            return v;
        }
        let mut best_value;
        let (raw_eval, static_eval);
        if in_check {
            best_value = -VALUE_INF;
            (raw_eval, static_eval) = (VALUE_NONE, VALUE_NONE);
        } else {
            raw_eval = match tt_hit {
                Some(h) if h.eval.abs() < VALUE_MATE_IN_MAX_PLY => h.eval,
                _ => self.static_eval(ply),
            };
            static_eval = self.data.correction.corrected(&self.pos, self.last_moves(ply), raw_eval);
            best_value = static_eval;
            if best_value >= beta {
                if beta_pull() & 1 != 0 && best_value.abs() < VALUE_MATE_IN_MAX_PLY {
                    best_value = pulled_to_beta(best_value, beta, 1);
                }
                // Standing pat is a lower bound for quiescence; keep it with the evaluation.
                if tt_hit.is_none() {
                    let v = value_to_tt(best_value, ply);
                    self.shared.tt.store(key, None, v, raw_eval, DEPTH_UNSEARCHED, Bound::Lower, false);
                }
                return best_value;
            }
            alpha = alpha.max(best_value);
        }
        let tt_move = tt_hit.and_then(|h| h.mv);
        let mut picker = MovePicker::new_qsearch(&self.pos, tt_move);
        let mut best_move = None;
        let mut move_count = 0;
        let orig_alpha = alpha;
        while let Some(m) = picker.next(&self.pos, &self.data.history) {
            move_count += 1;
            if in_check
                && qs_evasion_captures_only() != 0
                && best_value > -VALUE_MATE_IN_MAX_PLY
                && !is_capture(&self.pos, m)
            {
                continue;
            }
            if !in_check && qs_yo() != 0 {
                // YaneuraOu's: moves that neither check nor take back on the last move's
                // square are tried only among the first two, and only where they may reach
                // alpha (those cut raise the best value to what they could reach); the
                // exchange bar for all moves follows below.
                let recapture = self.pos.last_move().is_some_and(|last| last.to() == m.to());
                if best_value > -VALUE_MATE_IN_MAX_PLY && !recapture && !self.pos.gives_check(m) {
                    if move_count > 2 {
                        continue;
                    }
                    let futility_base = static_eval + qs_yo_margin();
                    let victim = self.pos.piece_on(m.to());
                    let futility_value =
                        futility_base + if victim.is_empty() { 0 } else { eval::PIECE_VALUE[victim.kind().index()] };
                    if futility_value <= alpha {
                        best_value = best_value.max(futility_value);
                        continue;
                    }
                    if !see_ge(&self.pos, m, alpha - futility_base) {
                        best_value = best_value.max(alpha.min(futility_base));
                        continue;
                    }
                }
            } else if !in_check {
                if qs_move_limit() > 0
                    && move_count > qs_move_limit() + PV as i32
                    && best_value > -VALUE_MATE_IN_MAX_PLY
                    && !m.is_promotion()
                    && self.pos.last_move().is_none_or(|last| last.to() != m.to())
                    && !self.pos.gives_check(m)
                {
                    continue;
                }
                // Delta pruning and losing captures.
                let victim = self.pos.piece_on(m.to());
                let gain = if victim.is_empty() { 0 } else { eval::capture_value(victim.kind()) };
                if !m.is_promotion() && static_eval + gain + qs_delta_margin() <= alpha {
                    continue;
                }
                if !see_ge(&self.pos, m, 0) {
                    continue;
                }
            }
            // YaneuraOu's last rules: once the best value is not a loss, only captures (with
            // `qs_yo_all`; in check too), and no capture losing more than `qs_yo_see`.
            if qs_yo() != 0 && (!in_check || qs_yo_all() != 0) && best_value > -VALUE_MATE_IN_MAX_PLY {
                if qs_yo_all() != 0 && !is_capture(&self.pos, m) {
                    continue;
                }
                if !see_ge(&self.pos, m, -qs_yo_see()) {
                    continue;
                }
            }
            // Deep in quiescence, only recaptures (under either pruning scheme).
            if !in_check
                && qdepth <= -6
                && let Some(last) = self.pos.last_move()
                && last.to() != m.to()
            {
                continue;
            }
            // As in the main search: fetched only for a move that is searched.
            self.shared.tt.prefetch(self.pos.key_after(m));
            self.do_move(m);
            let v = -self.qsearch::<PV>(-beta, -alpha, ply + 1, qdepth - 1);
            self.undo_move(m);
            if self.stopped() {
                return 0;
            }
            if v > best_value {
                best_value = v;
                if v > alpha {
                    best_move = Some(m);
                    if PV {
                        self.update_pv(ply, m);
                    }
                    if v >= beta {
                        break;
                    }
                    alpha = v;
                }
            }
        }
        if in_check && move_count == 0 {
            return mated_in(ply);
        }
        if beta_pull() & 1 != 0 && best_value > beta && best_value.abs() < VALUE_MATE_IN_MAX_PLY {
            best_value = pulled_to_beta(best_value, beta, 1);
        }
        let result = NodeResult { key, best_move, best_value, orig_alpha, beta, raw_eval };
        self.store_result::<PV>(&result, 0, ply, PV);
        best_value
    }

    /// A table cutoff above beta at `ply`: the table's quiet move earns history as a cutoff
    /// would, and the opponent's quiet move before it, tried among its node's first four,
    /// loses continuation history (it let this node refute it at once).
    fn reward_table_cut(&mut self, ply: usize, depth: i32, tt_move: Option<Move>) {
        let pct = tt_cut_hist();
        if let Some(m) = tt_move
            && !is_tactical(&self.pos, m)
        {
            let conts = self.conts_at(ply);
            let bonus = (130 * depth - 71).min(1043) * pct / 100;
            self.data.history.update_quiet_all(&self.pos, m, &conts, bonus);
        }
        if ply >= 1 {
            let prev = self.stack[ply - 1];
            if let (Some(_), Some(kt)) = (prev.current, prev.current_kind_to)
                && prev.move_count <= 4
                && self.pos.captured_piece().is_empty()
            {
                let prev_conts = self.conts_at(ply - 1);
                self.data.history.update_cont_played(!self.pos.side_to_move(), kt, &prev_conts, -2142 * pct / 400);
            }
        }
    }

    /// The reduction table's entry for `depth` and `move_count` (1024ths of a ply).
    fn base_reduction(&self, depth: i32, move_count: usize) -> i32 {
        self.reductions[(depth as usize).min(63)][move_count.min(63)]
    }

    /// The depth a late move is searched to after the reduction table's entry alone (it may be
    /// negative): the depth shallow pruning judges it at.
    fn reduced_depth(&self, depth: i32, move_count: usize) -> i32 {
        depth - 1 - self.base_reduction(depth, move_count) / LMR_GRAIN
    }

    /// The depth quiet-move pruning judges a move at: its reduced depth, moved by its history
    /// with `fut_hist_div` (YaneuraOu's judged depth; it may be negative), or else the reduced
    /// depth, at least 0.
    fn judged_depth(&self, depth: i32, move_count: usize, hist_score: i32) -> i32 {
        let reduced = self.reduced_depth(depth, move_count);
        if fut_hist_div() > 0 { reduced + hist_score / fut_hist_div() } else { reduced.max(0) }
    }

    /// The late move reduction of the fine scheme (1024ths of a ply), before the terms that
    /// depend on the move's kind.
    #[allow(clippy::too_many_arguments)]
    fn fine_reduction(
        &self,
        ply: usize,
        depth: i32,
        move_count: usize,
        cut_node: bool,
        tt_pv: bool,
        improving: bool,
        hist_score: i32,
    ) -> i32 {
        let mut r = self.base_reduction(depth, move_count);
        if cut_node {
            r += lmr_f_cut_node();
        }
        if self.stack[ply + 1].cutoffs > 2 {
            r += lmr_f_cutoffs();
        }
        if tt_pv {
            r -= lmr_f_tt_pv();
        }
        if !improving {
            r += lmr_f_not_improving();
        }
        r -= lmr_f_move_count() * move_count as i32;
        r - hist_score * LMR_GRAIN / lmr_history_div()
    }

    /// Kind-to indices of the earlier moves whose continuation histories score a quiet move at
    /// `ply`: one, two and (with `cont_ply4`) four plies back, and (with `cont_more`) three and
    /// six.
    fn conts_at(&self, ply: usize) -> Conts {
        let back = |n: usize| if ply >= n { self.stack[ply - n].current_kind_to } else { None };
        let more = cont_more() != 0;
        [
            back(1),
            back(2),
            if cont_ply4() != 0 { back(4) } else { None },
            if more { back(3) } else { None },
            if more { back(6) } else { None },
        ]
    }

    /// Notes the move about to be played at `ply` (`None`: a null move) for the child's
    /// counter-move and continuation histories, and carries the line's double extensions
    /// (`extension` 2 adds one). Called before the move is made.
    fn enter_child(&mut self, ply: usize, m: Option<Move>, extension: i32) {
        let frame = &mut self.stack[ply];
        frame.current = m;
        frame.current_piece_to = m.map(|m| piece_to_index(&self.pos, m));
        frame.current_kind_to = m.map(|m| kind_to_index(&self.pos, m));
        // Read only by the prior-quiet bonus (off by default, so free in a normal build).
        frame.current_quiet = prior_quiet_bonus() > 0 && m.is_some_and(|m| !is_tactical(&self.pos, m));
        let doubles = frame.double_extensions + (extension >= 2) as i32;
        self.stack[ply + 1].double_extensions = doubles;
    }

    /// Stores a searched node in the table: a lower bound when it failed high, exact in a PV
    /// node that raised alpha, an upper bound otherwise.
    fn store_result<const PV: bool>(&self, r: &NodeResult, depth: i32, ply: usize, is_pv: bool) {
        let bound = if r.best_value >= r.beta {
            Bound::Lower
        } else if PV && r.best_value > r.orig_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let eval = if r.raw_eval == VALUE_NONE { 0 } else { r.raw_eval };
        self.shared.tt.store(r.key, r.best_move, value_to_tt(r.best_value, ply), eval, depth, bound, is_pv);
    }
}

/// Whether a table entry's value, with its bound, settles a node searched with the window
/// `alpha..beta` (a value of VALUE_NONE, an evaluation only, settles nothing).
fn cuts_off(bound: Bound, value: Value, alpha: Value, beta: Value) -> bool {
    value != VALUE_NONE
        && match bound {
            Bound::Exact => true,
            Bound::Lower => value >= beta,
            Bound::Upper => value <= alpha,
            Bound::EvalOnly => false,
        }
}

/// A value above beta moved towards it, by `1 / (weight + 1)` of the distance (`beta_pull`).
fn pulled_to_beta(value: Value, beta: Value, weight: i32) -> Value {
    (value * weight + beta) / (weight + 1)
}

/// What a finished node stores in the table.
struct NodeResult {
    key: u64,
    best_move: Option<Move>,
    best_value: Value,
    /// The window the node was searched with.
    orig_alpha: Value,
    beta: Value,
    /// The static evaluation before correction (VALUE_NONE in check).
    raw_eval: Value,
}
