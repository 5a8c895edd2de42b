//! One search: the root move list, the Lazy SMP threads around a main thread, the timekeeper
//! that answers on time when the main thread waits for a CPU, and the answer itself.

use super::params::*;
use super::root::{RootMove, answer_of, root_move_list};
use super::shared::{KeyMap, NodeCounter, Shared, ThreadData};
use super::worker::Worker;
use super::*;
use crate::eval::Value;
use crate::shogi::{EnteringKingRule, Move, Position};
use crate::tt::TranspositionTable;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Gives the bestmove through `reporter` unless `stop_and_take_answer` gave one already;
/// returns the bestmove that was given.
fn deliver(control: &Control, reporter: &dyn Reporter, best: BestMove, score: Option<Value>) -> BestMove {
    if control.claim_answer() {
        reporter.bestmove(&best, score);
        best
    } else {
        control.answer().unwrap_or(best)
    }
}

/// Stack of every thread that runs a search (the main thread and the helpers): the recursion
/// is at most `MAX_PLY` deep with a few KiB per frame.
pub const SEARCH_STACK_BYTES: usize = 16 << 20;

fn reduction_table() -> [[i32; 64]; 64] {
    let mut t = [[0; 64]; 64];
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            // Both in hundredths (`lmr_base` 140: every reduced move loses one ply more than
            // the base of 40 that the linear evaluation was tuned with); the table holds
            // 1024ths of a ply.
            let (base, div) = (lmr_base() as f64 / 100.0, lmr_div() as f64 / 100.0);
            *r = ((base + (d as f64).ln() * (m as f64).ln() / div) * LMR_GRAIN as f64) as i32;
        }
    }
    t
}

/// A search request.
pub struct SearchJob {
    pub root: Position,
    pub limits: Limits,
    pub config: SearchConfig,
    pub tt: Arc<TranspositionTable>,
    pub control: Arc<Control>,
    pub threads: Vec<ThreadData>,
    /// When the clock started (the `go` command).
    pub start: Instant,
}

/// The outcome handed back to the caller (besides the reporter's calls).
pub struct SearchResult {
    pub best: BestMove,
    pub score: Option<Value>,
    pub nodes: u64,
    pub depth: i32,
    pub threads: Vec<ThreadData>,
}

/// Gives `best` as the answer of a search that needs none (a declaration, no legal move, a
/// book move): at once, or when `stop` or `ponderhit` releases a pondering or infinite one.
/// Returns the bestmove that was given.
pub fn answer_without_search(
    control: &Control,
    limits: &Limits,
    reporter: &dyn Reporter,
    best: BestMove,
    score: Option<Value>,
) -> BestMove {
    control.publish(best.clone());
    wait_for_release(control, limits);
    deliver(control, reporter, best, score)
}

/// Runs a whole search on the calling thread (spawning helpers for Lazy SMP), reports through
/// `reporter`, and returns when the bestmove has been reported.
pub fn run(job: SearchJob, reporter: &dyn Reporter) -> SearchResult {
    let SearchJob { root, limits, config, tt, control, mut threads, start } = job;
    let nthreads = config.threads.max(1);
    threads.resize_with(nthreads, ThreadData::default);
    share_corrections(&mut threads);
    tt.new_search();

    // A winning declaration needs no search: `bestmove win`, or the try move itself.
    if root.can_declare_win(config.entering_king_rule) {
        let best = match root.try_move().filter(|_| config.entering_king_rule == EnteringKingRule::TryRule) {
            Some(m) => BestMove::Move { mv: m, ponder: None },
            None => BestMove::Win,
        };
        reporter.message(&format!("entering-king win under {}", config.entering_king_rule));
        let best = answer_without_search(&control, &limits, reporter, best, Some(mate_in(1)));
        return SearchResult { best, score: Some(mate_in(1)), nodes: 0, depth: 0, threads };
    }
    let root_moves = root_move_list(&root, &tt);
    if root_moves.is_empty() {
        reporter.message("no legal moves");
        let best = answer_without_search(&control, &limits, reporter, BestMove::Resign, None);
        return SearchResult { best, score: None, nodes: 0, depth: 0, threads };
    }
    let mut game_keys = KeyMap::default();
    let hist = root.history();
    for (i, st) in hist.iter().enumerate() {
        game_keys.insert(st.board_key ^ st.hand_key, i);
    }
    let shared = Shared {
        tt: &tt,
        control: &control,
        nodes: (0..nthreads).map(|_| NodeCounter::default()).collect(),
        limits: limits.clone(),
        config: config.clone(),
        game_keys,
    };
    let plan = time::plan(&limits, root.side_to_move(), root.game_ply(), &config.time);
    let reductions = Arc::new(reduction_table());

    // Stopped before the first iteration ends, the answer is the first move (TT move first).
    control.publish(BestMove::Move { mv: root_moves[0].mv, ponder: None });

    let mut datas = threads.into_iter();
    let finished = AtomicBool::new(false);
    let main_data = datas.next().unwrap_or_default();
    let (main_result, helper_datas) = std::thread::scope(|s| {
        let mut handles = Vec::new();
        for (i, data) in datas.enumerate() {
            let mut w = Worker::new(i + 1, &shared, root.clone(), data, root_moves.clone(), reductions.clone());
            w.start = start;
            handles.push(
                std::thread::Builder::new()
                    .stack_size(SEARCH_STACK_BYTES)
                    .spawn_scoped(s, move || {
                        mark_cpu_bound();
                        w.iterative_deepening(None);
                        let top = w.root_moves.swap_remove(0);
                        (w.data, ThreadResult { top, completed_depth: w.completed_depth })
                    })
                    .expect("spawn search thread"),
            );
        }
        // A clock-limited search has a timekeeper (see there); fixed depths and nodes, and
        // `go infinite`, need none.
        let finished = &finished;
        let keeper = if !limits.infinite && (limits.uses_clock() || limits.movetime.is_some()) {
            let (control, limits, config, root) = (&*control, &limits, &config, &root);
            std::thread::Builder::new()
                .name("timekeeper".into())
                .spawn_scoped(s, move || timekeeper(control, limits, config, root, start, finished, reporter))
                .ok()
        } else {
            None
        };
        let mut main = Worker::new(0, &shared, root.clone(), main_data, root_moves.clone(), reductions.clone());
        main.start = start;
        main.plan = plan;
        main.iterative_deepening(Some(reporter));
        if let Some(solver) = main.mate_probe.take() {
            main.data.mate_probe = Some(solver);
        }
        // An infinite or pondering search that ended early (a mate found) holds its answer
        // until `stop` or `ponderhit`. This comes before stopping the helpers, whose stop
        // flag is the very one that releases the answer; they may search on meanwhile.
        wait_for_release(&control, &limits);
        let mut chosen = ThreadResult { top: main.root_moves[0].clone(), completed_depth: main.completed_depth };
        let mut helpers = Vec::new();
        let vote = smp_vote() != 0 && !handles.is_empty() && config.multipv == 1 && limits.depth.is_none();
        if vote {
            // The helpers' results count too: stop them first (they notice within a few nodes).
            shared.control.stop.store(true, Ordering::SeqCst);
            let mut results = vec![chosen];
            for h in handles.drain(..) {
                if let Ok((data, result)) = h.join() {
                    helpers.push(data);
                    // Helpers have no root mate probes: a move the main thread's probe found
                    // to allow a mate does not get their vote.
                    if !main.probed.iter().any(|(m, line)| *m == result.top.mv && line.is_some()) {
                        results.push(result);
                    }
                }
            }
            let i = best_thread(&results);
            if i != 0 && !control.is_answered() {
                // The line that goes with the bestmove (the main thread reported its own).
                let r = &results[i];
                reporter.info(&shared.info_line(start, r.completed_depth.max(1), 1, r.top.score, None, &r.top));
            }
            chosen = results.swap_remove(i);
        }
        let score = chosen.top.score;
        let best = answer_of(&chosen.top, &root, &tt, config.resign_value);
        let best = deliver(&control, reporter, best, Some(score));
        finished.store(true, Ordering::SeqCst);
        if let Some(k) = keeper {
            let _ = k.join();
        }
        // Then stop the helpers and collect them: the bestmove does not wait for them.
        shared.control.stop.store(true, Ordering::SeqCst);
        helpers.extend(handles.into_iter().map(|h| h.join().map(|(data, _)| data).unwrap_or_default()));
        ((best, score, chosen.completed_depth, main.data), helpers)
    });
    let (best, score, depth, main_data) = main_result;
    let mut threads = vec![main_data];
    threads.extend(helper_datas);
    let nodes = shared.total_nodes();
    #[cfg(feature = "tune")]
    if std::env::var_os("HAYATE_STATS").is_some() {
        super::stats::print();
    }
    SearchResult { best, score: Some(score), nodes, depth, threads }
}

/// What one thread's search found: its best root move and the depth it completed.
struct ThreadResult {
    top: RootMove,
    completed_depth: i32,
}

/// The thread whose move to play: each thread votes for its best move with weight (its score
/// above the lowest + a constant) x its completed depth, and the move with most votes wins
/// (among its voters, the best-weighted thread with a line longer than two moves). A proven
/// mate overrides the vote: the shortest win; a thread that sees itself mated plays the
/// longest resistance unless another thread sees no mate. A thread that never
/// scored a move (stopped at once) does not vote.
fn best_thread(results: &[ThreadResult]) -> usize {
    let scored: Vec<usize> = (0..results.len()).filter(|&i| results[i].top.score != -VALUE_INF).collect();
    let Some(&first) = scored.first() else { return 0 };
    let min_score = scored.iter().map(|&i| results[i].top.score).min().unwrap_or(0);
    let weight = |i: usize| (results[i].top.score - min_score + 14) as i64 * results[i].completed_depth.max(1) as i64;
    let votes = |m: Move| scored.iter().filter(|&&i| results[i].top.mv == m).map(|&i| weight(i)).sum::<i64>();
    let long_weight = |i: usize| if results[i].top.pv.len() > 2 { weight(i) } else { 0 };
    let is_win = |v: Value| v >= VALUE_MATE_IN_MAX_PLY;
    let is_loss = |v: Value| v <= -VALUE_MATE_IN_MAX_PLY;
    let mut best = first;
    for &i in &scored[1..] {
        let (b, n) = (results[best].top.score, results[i].top.score);
        // Against a proven win only a shorter one; against a proven loss anything longer
        // (or no mate at all).
        let better = if is_win(b) || is_loss(b) {
            n > b
        } else {
            is_win(n)
                || (!is_loss(n)
                    && (votes(results[i].top.mv) > votes(results[best].top.mv)
                        || (votes(results[i].top.mv) == votes(results[best].top.mv)
                            && long_weight(i) > long_weight(best))))
        };
        if better {
            best = i;
        }
    }
    best
}

/// How long after the planned time the timekeeper waits for the main thread, which stops at
/// the planned time itself, answers within microseconds when it has a CPU, and then reports
/// its last line and collects the helpers' votes, which the timekeeper cannot.
const KEEPER_GRACE_MS: u64 = 1;

/// Gives the answer when the main thread has not by the end of the planned time (plus a
/// millisecond and a quarter of the network delay), because it is waiting for a CPU: a thread
/// that slept until then gets one at once on a loaded machine, where a busy one may wait tens
/// of milliseconds.
/// The main thread normally answers first (with a partial iteration's result); then this
/// returns.
fn timekeeper(
    control: &Control,
    limits: &Limits,
    config: &SearchConfig,
    root: &Position,
    start: Instant,
    finished: &AtomicBool,
    reporter: &dyn Reporter,
) {
    let (us, ply) = (root.side_to_move(), root.game_ply());
    while !finished.load(Ordering::SeqCst) && !control.is_answered() {
        let (origin, plan) = if limits.ponder {
            // (A statement of its own: the guard must not live through the sleep below, or
            // `ponderhit` could wait for the lock.)
            let ponderhit = control.ponderhit_info.lock().clone();
            match ponderhit {
                Some((at, new)) => (at, time::plan(&limits.after_ponderhit(new.as_ref()), us, ply, &config.time)),
                None => {
                    // Still pondering (or stopped, which `finished` will tell soon).
                    std::thread::sleep(Duration::from_millis(2));
                    continue;
                }
            }
        } else {
            (start, time::plan(limits, us, ply, &config.time))
        };
        let Some(plan) = plan else { return };
        let deadline = origin + Duration::from_millis(plan.maximum + KEEPER_GRACE_MS + config.time.network_delay / 4);
        let now = Instant::now();
        if now >= deadline {
            if let Some(best) = control.stop_and_take_answer() {
                reporter.bestmove(&best, None);
            }
            return;
        }
        std::thread::sleep((deadline - now).min(Duration::from_millis(5)));
    }
}

/// While pondering or in `go infinite`, the bestmove waits for `stop` or `ponderhit`.
fn wait_for_release(control: &Control, limits: &Limits) {
    if !(limits.ponder || limits.infinite) {
        return;
    }
    while control.hold.load(Ordering::SeqCst) && !control.stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Tells the scheduler that a search thread is CPU-bound: a long time slice (Linux 6.12+
/// `sched_setattr` with `sched_runtime`, the EEVDF request size), so that with more search
/// threads than cores the protocol's threads, which keep the default slice, get a CPU as soon
/// as input comes (`stop`, `quit`) instead of waiting behind every search thread's turn. The
/// share of CPU time does not change. Older kernels refuse the call; nothing changes then.
fn mark_cpu_bound() {
    #[cfg(target_os = "linux")]
    {
        #[repr(C)]
        struct SchedAttr {
            size: u32,
            policy: u32,
            flags: u64,
            nice: i32,
            priority: u32,
            runtime: u64,
            deadline: u64,
            period: u64,
        }
        let attr = SchedAttr {
            size: std::mem::size_of::<SchedAttr>() as u32,
            policy: libc::SCHED_OTHER as u32,
            flags: 0,
            nice: 0,
            priority: 0,
            runtime: 100_000_000, // ns: the longest slice the kernel takes
            deadline: 0,
            period: 0,
        };
        // SAFETY: pid 0 is the calling thread; `attr` is a valid sched_attr (version 0, 48
        // bytes) that outlives the call.
        unsafe { libc::syscall(libc::SYS_sched_setattr, 0, &attr as *const SchedAttr, 0) };
    }
}

/// With `shared_correction`, every thread reads and files corrections in the main thread's
/// tables (a helper's own are dropped); without it, a thread that shared gets a copy of its own.
fn share_corrections(threads: &mut [ThreadData]) {
    let Some((main, helpers)) = threads.split_first_mut() else { return };
    for h in helpers {
        let same = Arc::ptr_eq(&h.correction, &main.correction);
        if shared_correction() != 0 && !same {
            h.correction = main.correction.clone();
        } else if shared_correction() == 0 && same {
            h.correction = Arc::new(main.correction.copy());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::Square;

    fn mv(from: &str, to: &str) -> Move {
        Move::normal(Square::parse(from).unwrap(), Square::parse(to).unwrap(), false)
    }

    fn result(m: Move, score: Value, depth: i32) -> ThreadResult {
        let pv = vec![m, mv("3c", "3d"), mv("2g", "2f")];
        let top = RootMove { mv: m, score, prev_score: score, bound: None, seldepth: depth, pv };
        ThreadResult { top, completed_depth: depth }
    }

    #[test]
    fn the_vote_weighs_score_and_depth() {
        let (a, b) = (mv("7g", "7f"), mv("2g", "2f"));
        // Two threads against one: the move of the two wins when the weights are close.
        assert_eq!(best_thread(&[result(a, 50, 10), result(b, 60, 10), result(b, 55, 10)]), 1);
        // One thread alone: its own move.
        assert_eq!(best_thread(&[result(a, 50, 10)]), 0);
        // Same move: the main thread stays.
        assert_eq!(best_thread(&[result(a, 50, 10), result(a, 50, 10)]), 0);
        // A helper that completed a deeper iteration with a better score outvotes the main.
        assert_eq!(best_thread(&[result(a, 40, 9), result(b, 80, 11)]), 1);
        // A helper with a lower score does not (its weight is the constant only).
        assert_eq!(best_thread(&[result(a, 80, 9), result(b, 40, 11)]), 0);
        // A helper stopped before it scored a move does not vote.
        assert_eq!(best_thread(&[result(a, 10, 9), result(b, -VALUE_INF, 0)]), 0);
    }

    #[test]
    fn proven_mates_override_the_vote() {
        let (a, b) = (mv("7g", "7f"), mv("2g", "2f"));
        // A proven win is played, the shortest one among several.
        assert_eq!(best_thread(&[result(a, 300, 12), result(b, mate_in(7), 5)]), 1);
        assert_eq!(best_thread(&[result(a, mate_in(9), 12), result(b, mate_in(5), 5)]), 1);
        assert_eq!(best_thread(&[result(a, mate_in(5), 12), result(b, mate_in(9), 5)]), 0);
        // A thread that sees itself mated does not outvote one that does not.
        assert_eq!(best_thread(&[result(a, -200, 9), result(b, mated_in(8), 14)]), 0);
        // When every thread is mated, the longest resistance.
        assert_eq!(best_thread(&[result(a, mated_in(4), 9), result(b, mated_in(8), 14)]), 1);
    }
}
