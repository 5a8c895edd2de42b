//! Iterative-deepening principal-variation search with a shared transposition table, run by
//! one or more threads (Lazy SMP). Search never reads or writes text: it reports through the
//! `Reporter` callbacks, and the protocol layer formats them.

pub mod correction;
pub mod movepick;
pub mod params;
pub mod see;
pub mod time;

use crate::eval::{self, Value};
use crate::shogi::movegen::{self, MoveList};
use crate::shogi::{EnteringKingRule, Move, Position, RepetitionKind};
use crate::tt::{Bound, TranspositionTable};
use movepick::{History, MovePicker, is_capture, is_tactical, kind_to_index, piece_to_index};
use params::*;
use see::see_ge;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
pub use time::{Limits, TimeOptions, TimePlan};

pub const MAX_PLY: usize = 240;
pub const VALUE_MATE: Value = 32000;
pub const VALUE_INF: Value = 32001;
pub const VALUE_NONE: Value = 32002;
pub const VALUE_MATE_IN_MAX_PLY: Value = VALUE_MATE - MAX_PLY as Value;
pub const VALUE_DRAW: Value = 0;

#[inline]
pub const fn mate_in(ply: usize) -> Value {
    VALUE_MATE - ply as Value
}

#[inline]
pub const fn mated_in(ply: usize) -> Value {
    -VALUE_MATE + ply as Value
}

#[inline]
fn value_to_tt(v: Value, ply: usize) -> Value {
    if v >= VALUE_MATE_IN_MAX_PLY {
        v + ply as Value
    } else if v <= -VALUE_MATE_IN_MAX_PLY {
        v - ply as Value
    } else {
        v
    }
}

#[inline]
fn value_from_tt(v: Value, ply: usize) -> Value {
    if v >= VALUE_MATE_IN_MAX_PLY {
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
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            threads: 1,
            multipv: 1,
            time: TimeOptions { network_delay: 0, minimum_thinking_time: 0 },
            draw_value: 0,
            resign_value: 99_999,
            entering_king_rule: EnteringKingRule::CSARule27,
            max_moves_to_draw: 0,
        }
    }
}

/// Flags shared between the protocol layer and the search threads.
#[derive(Default)]
pub struct Control {
    pub stop: AtomicBool,
    /// While set (pondering or `go infinite`), a finished search holds back its bestmove.
    pub hold: AtomicBool,
    /// Set by `ponderhit` (and cleared by the main thread when it takes notice).
    ponderhit: AtomicBool,
    /// When `ponderhit` came (the clock starts then) and the clock values it brought.
    ponderhit_info: parking_lot::Mutex<Option<(Instant, Option<Limits>)>>,
    /// The answer if the search were stopped now (the best move of the last completed
    /// iteration), for `stop_and_take_answer`. Frozen once the answer is given.
    answer: parking_lot::Mutex<Option<BestMove>>,
    /// The bestmove was given, by the search or by `stop_and_take_answer`: exactly once.
    answered: AtomicBool,
}

impl Control {
    pub fn new() -> Arc<Control> {
        Arc::new(Control::default())
    }

    /// Ends pondering: the search becomes a normal timed search from now on, optionally with
    /// new clock values (ShogiHome sends them with `ponderhit`).
    pub fn ponderhit(&self, limits: Option<Limits>) {
        *self.ponderhit_info.lock() = Some((Instant::now(), limits));
        self.ponderhit.store(true, Ordering::SeqCst);
        self.hold.store(false, Ordering::SeqCst);
    }

    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        self.hold.store(false, Ordering::SeqCst);
    }

    /// Stops the search and, when it has an answer ready that nobody gave yet, takes it: the
    /// caller gives it as the bestmove at once, without waiting for the search threads to
    /// notice the stop (on a loaded machine they may wait many milliseconds for a CPU). The
    /// search then gives no bestmove of its own.
    pub fn stop_and_take_answer(&self) -> Option<BestMove> {
        self.stop();
        let answer = self.answer.lock();
        let best = answer.clone()?;
        self.claim_answer().then_some(best)
    }

    /// Records the answer to give if stopped now (unless one was given already).
    pub fn publish(&self, best: BestMove) {
        let mut answer = self.answer.lock();
        if !self.answered.load(Ordering::SeqCst) {
            *answer = Some(best);
        }
    }

    /// True for the one caller that gives the bestmove.
    pub fn claim_answer(&self) -> bool {
        !self.answered.swap(true, Ordering::SeqCst)
    }

    pub fn is_answered(&self) -> bool {
        self.answered.load(Ordering::SeqCst)
    }

    /// The answer ready now (the one given, once given).
    pub fn answer(&self) -> Option<BestMove> {
        self.answer.lock().clone()
    }
}

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

/// The bestmove for a root move list sorted best first: resign when lost beyond the resign
/// value, else the first move with its ponder move.
fn answer_of(rm: &RootMove, root: &Position, tt: &TranspositionTable, resign_value: Value) -> BestMove {
    // A score of -INF means the move was never finished (stopped at once): play it.
    if rm.score != -VALUE_INF && rm.score <= -resign_value {
        BestMove::Resign
    } else {
        let ponder = rm.pv.get(1).copied().or_else(|| ponder_from_tt(root, rm.mv, tt));
        BestMove::Move { mv: rm.mv, ponder }
    }
}

/// A stop request for long work made of several searches (`bench`) or of none (`perft`),
/// sent from another thread. The flag ends the work; the search under way, if any, is stopped
/// through its `Control`.
#[derive(Default)]
pub struct StopSignal {
    flag: AtomicBool,
    current: parking_lot::Mutex<Option<Arc<Control>>>,
}

impl StopSignal {
    pub fn stop(&self) {
        self.flag.store(true, Ordering::SeqCst);
        if let Some(c) = &*self.current.lock() {
            c.stop();
        }
    }

    pub fn is_stopped(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// The flag itself, for loops that poll it.
    pub fn flag(&self) -> &AtomicBool {
        &self.flag
    }

    /// Makes `control` the one a later `stop` reaches; false if stopped already. (The flag is
    /// read after the control is installed, so a `stop` in between is never lost.)
    fn attach(&self, control: &Arc<Control>) -> bool {
        *self.current.lock() = Some(control.clone());
        !self.is_stopped()
    }
}

/// Data a search thread keeps from one search to the next.
#[derive(Default)]
pub struct ThreadData {
    pub history: Box<History>,
    pub correction: Box<correction::Correction>,
}

#[derive(Clone, Debug)]
struct RootMove {
    mv: Move,
    score: Value,
    prev_score: Value,
    bound: Option<Bound>,
    seldepth: i32,
    pv: Vec<Move>,
}

#[derive(Clone, Copy, Default)]
struct Frame {
    killers: [Option<Move>; 2],
    static_eval: Value,
    current: Option<Move>,
    /// Piece-to index of `current`, for counter moves.
    current_piece_to: Option<usize>,
    /// Kind-to index of `current`, for continuation history.
    current_kind_to: Option<usize>,
    excluded: Option<Move>,
    null_moved: bool,
    /// `eval::piece_sum` of this node's position, VALUE_NONE until known: carried from the
    /// parent's when only a non-king piece moved, so children evaluate incrementally.
    piece_sum: Value,
}

/// What every thread of one search shares.
struct Shared<'a> {
    tt: &'a TranspositionTable,
    control: &'a Control,
    nodes: Vec<AtomicU64>,
    limits: Limits,
    config: SearchConfig,
    /// Keys of positions played before the root, mapped to their latest index in the history.
    game_keys: KeyMap,
}

impl Shared<'_> {
    fn total_nodes(&self) -> u64 {
        self.nodes.iter().map(|n| n.load(Ordering::Relaxed)).sum()
    }
}

struct Worker<'a> {
    id: usize,
    shared: &'a Shared<'a>,
    pos: Position,
    data: ThreadData,
    stack: Vec<Frame>,
    pv: Vec<[Option<Move>; MAX_PLY + 1]>,
    pv_len: Vec<usize>,
    root_moves: Vec<RootMove>,
    root_depth: i32,
    pv_idx: usize,
    seldepth: i32,
    nodes: u64,
    completed_depth: i32,
    // Main thread only: timing.
    start: Instant,
    plan: Option<TimePlan>,
    /// The limits the clock decisions use (updated by `ponderhit`).
    clock: Limits,
    check_counter: u32,
    reductions: Arc<[[i32; 64]; 64]>,
    /// Main thread of a single-PV search: the root mate probes' solver, and the root moves
    /// probed so far with the opponent's mating line they allow (None: none found).
    mate_probe: Option<crate::mate::MateSolver>,
    probed: Vec<(Move, Option<Vec<Move>>)>,
}

fn reduction_table() -> [[i32; 64]; 64] {
    let mut t = [[0; 64]; 64];
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = (LMR_BASE + (d as f64).ln() * (m as f64).ln() / LMR_DIV) as i32;
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

/// Runs a whole search on the calling thread (spawning helpers for Lazy SMP), reports through
/// `reporter`, and returns when the bestmove has been reported.
pub fn run(job: SearchJob, reporter: &dyn Reporter) -> SearchResult {
    let SearchJob { root, limits, config, tt, control, mut threads, start } = job;
    let nthreads = config.threads.max(1);
    threads.resize_with(nthreads, ThreadData::default);
    tt.new_search();

    // A winning declaration needs no search: `bestmove win`, or the try move itself.
    if root.can_declare_win(config.entering_king_rule) {
        let best = match root.try_move().filter(|_| config.entering_king_rule == EnteringKingRule::TryRule) {
            Some(m) => BestMove::Move { mv: m, ponder: None },
            None => BestMove::Win,
        };
        reporter.message(&format!("entering-king win under {}", config.entering_king_rule));
        control.publish(best.clone());
        wait_for_release(&control, &limits);
        let best = deliver(&control, reporter, best, Some(mate_in(1)));
        return SearchResult { best, score: Some(mate_in(1)), nodes: 0, depth: 0, threads };
    }
    let root_moves = root_move_list(&root, &tt);
    if root_moves.is_empty() {
        reporter.message("no legal moves");
        control.publish(BestMove::Resign);
        wait_for_release(&control, &limits);
        let best = deliver(&control, reporter, BestMove::Resign, None);
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
        nodes: (0..nthreads).map(|_| AtomicU64::new(0)).collect(),
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
                    .stack_size(16 << 20)
                    .spawn_scoped(s, move || {
                        w.iterative_deepening(None);
                        w.data
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
        // An infinite or pondering search that ended early (a mate found) holds its answer
        // until `stop` or `ponderhit`. This comes before stopping the helpers, whose stop
        // flag is the very one that releases the answer; they may search on meanwhile.
        wait_for_release(&control, &limits);
        let score = main.root_moves[0].score;
        let best = answer_of(&main.root_moves[0], &root, &tt, config.resign_value);
        let best = deliver(&control, reporter, best, Some(score));
        finished.store(true, Ordering::SeqCst);
        if let Some(k) = keeper {
            let _ = k.join();
        }
        // Then stop the helpers and collect them: the bestmove does not wait for them.
        shared.control.stop.store(true, Ordering::SeqCst);
        let helpers: Vec<ThreadData> = handles.into_iter().map(|h| h.join().unwrap_or_default()).collect();
        ((best, score, main.completed_depth, main.data), helpers)
    });
    let (best, score, depth, main_data) = main_result;
    let mut threads = vec![main_data];
    threads.extend(helper_datas);
    let nodes = shared.total_nodes();
    SearchResult { best, score: Some(score), nodes, depth, threads }
}

/// The limits of a pondering search once `ponderhit` came: new clock values replace the old.
fn limits_after_ponderhit(base: &Limits, new: Option<&Limits>) -> Limits {
    let mut limits = base.clone();
    if let Some(l) = new {
        limits.time = l.time;
        limits.inc = l.inc;
        limits.byoyomi = l.byoyomi;
    }
    limits.ponder = false;
    limits
}

/// Gives the answer when the main thread has not by the end of the planned time (plus a
/// quarter of the network delay), because it is waiting for a CPU: a thread that slept until
/// then gets one at once on a loaded machine, where a busy one may wait tens of milliseconds.
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
                Some((at, new)) => {
                    (at, time::plan(&limits_after_ponderhit(limits, new.as_ref()), us, ply, &config.time))
                }
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
        let deadline = origin + Duration::from_millis(plan.maximum + config.time.network_delay / 4);
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

fn ponder_from_tt(root: &Position, best: Move, tt: &TranspositionTable) -> Option<Move> {
    let mut pos = root.clone();
    pos.do_move(best);
    tt.probe(pos.key()).and_then(|h| h.mv).filter(|&m| pos.is_legal(m))
}

fn root_move_list(root: &Position, tt: &TranspositionTable) -> Vec<RootMove> {
    let mut list = MoveList::new();
    movegen::generate_legal(root, &mut list);
    let tt_move = tt.probe(root.key()).and_then(|h| h.mv);
    let mut rms: Vec<RootMove> = list
        .iter()
        .map(|&m| RootMove { mv: m, score: -VALUE_INF, prev_score: -VALUE_INF, bound: None, seldepth: 0, pv: vec![m] })
        .collect();
    // Promotions before their non-promotion twins, so that ties prefer the promotion.
    rms.sort_by_key(|rm| !rm.mv.is_promotion());
    if let Some(t) = tt_move
        && let Some(i) = rms.iter().position(|rm| rm.mv == t)
    {
        rms.swap(0, i);
    }
    rms
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

/// Hasher for keys that are already uniformly random (Zobrist keys).
#[derive(Default, Clone, Copy)]
struct KeyHasher(u64);

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

type KeyMap = HashMap<u64, usize, std::hash::BuildHasherDefault<KeyHasher>>;

impl<'a> Worker<'a> {
    fn new(
        id: usize,
        shared: &'a Shared<'a>,
        pos: Position,
        data: ThreadData,
        root_moves: Vec<RootMove>,
        reductions: Arc<[[i32; 64]; 64]>,
    ) -> Worker<'a> {
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
            let limits = limits_after_ponderhit(&self.shared.limits, new.as_ref());
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
        self.shared.nodes[self.id].store(self.nodes, Ordering::Relaxed);
        if self.is_main() {
            self.check_limits();
        }
    }

    fn iterative_deepening(&mut self, reporter: Option<&dyn Reporter>) {
        let limits = self.shared.limits.clone();
        let max_depth = limits.depth.unwrap_or(MAX_PLY as i32 - 10).clamp(1, MAX_PLY as i32 - 10);
        let multipv = self.shared.config.multipv.clamp(1, self.root_moves.len());
        let single_reply = self.root_moves.len() == 1;
        let mut last_best: Option<Move> = None;
        let mut best_changes = 0.0f64;
        let mut prev_best_score = VALUE_NONE;

        if self.is_main() && multipv == 1 {
            self.mate_probe = crate::mate::MateSolver::new(MATE_PROBE_MIB).ok();
            if self.play_own_mate(reporter) {
                return;
            }
        }

        let mut depth = 0;
        while depth < max_depth {
            depth += 1;
            // Helpers skip some depths so the threads spread over different iterations.
            if self.id > 0 && ((depth + self.id as i32) % 4 == 0) && depth > 2 && depth < max_depth {
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
                let mut delta = ASPIRATION_DELTA;
                let (mut alpha, mut beta) = if depth >= ASPIRATION_MIN_DEPTH && prev.abs() < VALUE_MATE_IN_MAX_PLY {
                    ((prev - delta).max(-VALUE_INF), (prev + delta).min(VALUE_INF))
                } else {
                    (-VALUE_INF, VALUE_INF)
                };
                loop {
                    let v = self.search::<true>(alpha, beta, depth, 0, false);
                    // Stable sort keeps the order of equal (unsearched) moves.
                    self.root_moves[pv_idx..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
                    if self.stopped() {
                        break;
                    }
                    if v <= alpha {
                        beta = (alpha + beta) / 2;
                        alpha = (v - delta).max(-VALUE_INF);
                        if let Some(r) = reporter
                            && self.elapsed_ms() > 2000
                        {
                            self.report(r, depth, pv_idx, pv_idx + 1);
                        }
                    } else if v >= beta {
                        beta = (v + delta).min(VALUE_INF);
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
            let control = self.shared.control;
            control.publish(answer_of(&self.root_moves[0], &self.pos, self.shared.tt, self.shared.config.resign_value));
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
    /// moves with its line; true when there is one (the search is then over).
    fn play_own_mate(&mut self, reporter: Option<&dyn Reporter>) -> bool {
        let Some(solver) = self.mate_probe.as_mut() else { return false };
        let stop = &self.shared.control.stop;
        let Some(line) = solver.probe(&self.pos, OWN_MATE_NODES, MATE_PROBE_PLY, stop) else { return false };
        let Some(i) = self.root_moves.iter().position(|rm| rm.mv == line[0]) else { return false };
        self.root_moves[..=i].rotate_right(1);
        let len = line.len();
        let rm = &mut self.root_moves[0];
        rm.score = mate_in(len);
        rm.prev_score = rm.score;
        rm.bound = None;
        rm.seldepth = len as i32;
        rm.pv = line;
        self.completed_depth = len as i32;
        if let Some(r) = reporter {
            self.report(r, len as i32, 0, 1);
        }
        let control = self.shared.control;
        control.publish(answer_of(&self.root_moves[0], &self.pos, self.shared.tt, self.shared.config.resign_value));
        true
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

    fn report(&self, r: &dyn Reporter, depth: i32, from: usize, to: usize) {
        // Nothing after the bestmove (given early by `stop_and_take_answer`).
        if self.shared.control.is_answered() {
            return;
        }
        let elapsed = self.elapsed_ms();
        let nodes = self.shared.total_nodes();
        let nps = nodes * 1000 / elapsed.max(1);
        let hashfull = self.shared.tt.hashfull();
        for (i, rm) in self.root_moves.iter().enumerate().take(to).skip(from) {
            let searched = rm.score != -VALUE_INF;
            let (d, v) = if searched { (depth, rm.score) } else { ((depth - 1).max(1), rm.prev_score) };
            if v == -VALUE_INF {
                continue;
            }
            r.info(&SearchInfo {
                depth: d,
                seldepth: rm.seldepth.max(d),
                multipv: i + 1,
                score: Score::from_value(v),
                bound: if i == self.pv_idx { rm.bound } else { None },
                nodes,
                nps,
                time_ms: elapsed,
                hashfull,
                pv: rm.pv.clone(),
            });
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
    /// null move) leads here; unknown otherwise (`static_eval` computes it when needed).
    #[inline]
    fn carry_piece_sum(&mut self, ply: usize) {
        let parent = if ply > 0 { self.stack[ply - 1].piece_sum } else { VALUE_NONE };
        self.stack[ply].piece_sum = if parent == VALUE_NONE {
            VALUE_NONE
        } else {
            eval::piece_sum_after(&self.pos, parent).unwrap_or(VALUE_NONE)
        };
    }

    /// Piece-to index of the move that led to the node at `ply` (None at the root and after a
    /// null move).
    #[inline]
    fn prev_piece_to(&self, ply: usize) -> Option<usize> {
        if ply > 0 { self.stack[ply - 1].current_piece_to } else { None }
    }

    /// The static evaluation of the node at `ply` (side to move's view), from its piece sum.
    #[inline]
    fn static_eval(&mut self, ply: usize) -> Value {
        let mut sum = self.stack[ply].piece_sum;
        if sum == VALUE_NONE {
            sum = eval::piece_sum(&self.pos);
            self.stack[ply].piece_sum = sum;
        }
        eval::evaluate_with(&self.pos, sum)
    }

    fn search<const PV: bool>(
        &mut self,
        mut alpha: Value,
        mut beta: Value,
        depth: i32,
        ply: usize,
        cut_node: bool,
    ) -> Value {
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
        if !root {
            if self.stopped() {
                return 0;
            }
            if let Some(v) = self.game_end_value(ply, in_check) {
                return v;
            }
            if ply >= MAX_PLY - 4 {
                return if in_check { 0 } else { eval::evaluate(&self.pos) };
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
        let tt_pv = PV || tt_hit.is_some_and(|h| h.is_pv);
        if !PV
            && excluded.is_none()
            && let Some(h) = tt_hit
            && h.depth >= depth
            && tt_value != VALUE_NONE
            && match h.bound {
                Bound::Exact => true,
                Bound::Lower => tt_value >= beta,
                Bound::Upper => tt_value <= alpha,
            }
        {
            return tt_value;
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
            self.data.correction.corrected(&self.pos, self.prev_piece_to(ply), raw_eval)
        };
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
        self.stack[ply].static_eval = static_eval;
        let improving = !in_check
            && ply >= 2
            && self.stack[ply - 2].static_eval != VALUE_NONE
            && static_eval > self.stack[ply - 2].static_eval;
        self.stack[ply + 1].killers = [None; 2];
        self.stack[ply + 2].killers = [None; 2];

        if !PV && !in_check && excluded.is_none() {
            // Reverse futility pruning.
            if depth < RFP_DEPTH
                && eval_est - RFP_MARGIN * (depth - improving as i32) >= beta
                && eval_est < VALUE_MATE_IN_MAX_PLY
            {
                return eval_est;
            }
            // Null move pruning.
            if depth >= NMP_MIN_DEPTH
                && eval_est >= beta
                && static_eval >= beta
                && !self.stack[ply].null_moved
                && beta > -VALUE_MATE_IN_MAX_PLY
            {
                let r = NMP_BASE_R + depth / NMP_DEPTH_DIV + ((eval_est - beta) / NMP_EVAL_DIV).min(3);
                self.stack[ply].current = None;
                self.stack[ply].current_piece_to = None;
                self.stack[ply].current_kind_to = None;
                self.stack[ply + 1].null_moved = true;
                self.pos.do_null_move();
                let v = -self.search::<false>(-beta, -beta + 1, depth - r, ply + 1, !cut_node);
                self.pos.undo_null_move();
                self.stack[ply + 1].null_moved = false;
                if self.stopped() {
                    return 0;
                }
                if v >= beta {
                    return if v >= VALUE_MATE_IN_MAX_PLY { beta } else { v };
                }
            }
        }

        // Internal iterative reduction: no TT move means this node was not searched before.
        let mut depth = depth;
        if !root && tt_move.is_none() && depth >= IIR_DEPTH && (PV || cut_node) {
            depth -= 1;
        }

        let prev_piece_to = if ply > 0 { self.stack[ply - 1].current_piece_to } else { None };
        let killers = self.stack[ply].killers;
        let counter = self.data.history.counter_move(prev_piece_to);
        let conts = [
            if ply >= 1 { self.stack[ply - 1].current_kind_to } else { None },
            if ply >= 2 { self.stack[ply - 2].current_kind_to } else { None },
        ];
        let mut picker = MovePicker::new(&self.pos, tt_move, [killers[0], killers[1], counter], conts);

        let mut best_value = -VALUE_INF;
        let mut best_move: Option<Move> = None;
        let mut move_count = 0;
        let check_info = self.pos.check_info();
        let mut quiets_tried: arrayvec::ArrayVec<Move, 64> = arrayvec::ArrayVec::new();
        let mut captures_tried: arrayvec::ArrayVec<Move, 32> = arrayvec::ArrayVec::new();
        let orig_alpha = alpha;

        loop {
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
            let capture = is_capture(&self.pos, m);
            let tactical = is_tactical(&self.pos, m);
            let gives_check = self.pos.gives_check_with(&check_info, m);
            let hist_score = if tactical {
                0
            } else if let Some(s) = picker.last_quiet_score().filter(|_| !root) {
                s
            } else {
                self.data.history.quiet_score(&self.pos, m, &conts)
            };

            // ----- shallow pruning -----
            if !root && best_value > -VALUE_MATE_IN_MAX_PLY {
                if !tactical && !gives_check {
                    let lmp_limit = (LMP_BASE + depth * depth * LMP_SCALE) * if improving { 2 } else { 1 } / 2 + 1;
                    if depth < LMP_DEPTH && move_count as i32 > lmp_limit {
                        continue;
                    }
                    if !in_check
                        && depth < FUTILITY_DEPTH
                        && static_eval + FUTILITY_BASE + FUTILITY_PER_DEPTH * depth <= alpha
                        && hist_score < 4000
                    {
                        continue;
                    }
                    if depth < SEE_PRUNE_DEPTH && !see_ge(&self.pos, m, SEE_QUIET_MARGIN * depth) {
                        continue;
                    }
                } else if depth < SEE_PRUNE_DEPTH && !in_check && !see_ge(&self.pos, m, SEE_CAPTURE_MARGIN * depth) {
                    continue;
                }
            }

            // ----- extensions -----
            let mut extension = 0;
            if !root
                && depth >= SINGULAR_DEPTH
                && Some(m) == tt_move
                && excluded.is_none()
                && let Some(h) = tt_hit
                && h.bound != Bound::Upper
                && h.depth >= depth - 3
                && tt_value.abs() < VALUE_MATE_IN_MAX_PLY
            {
                let singular_beta = tt_value - SINGULAR_MARGIN * depth;
                self.stack[ply].excluded = Some(m);
                let v = self.search::<false>(singular_beta - 1, singular_beta, (depth - 1) / 2, ply, cut_node);
                self.stack[ply].excluded = None;
                if v < singular_beta {
                    extension = 1;
                } else if singular_beta >= beta {
                    // Multi-cut: another move also beats beta.
                    return singular_beta;
                }
            } else if gives_check && depth < 12 && see_ge(&self.pos, m, 0) {
                extension = 1;
            }

            self.stack[ply].current = Some(m);
            self.stack[ply].current_piece_to = Some(piece_to_index(&self.pos, m));
            self.stack[ply].current_kind_to = Some(kind_to_index(&self.pos, m));
            self.shared.tt.prefetch(self.pos.key_after(m));
            self.pos.do_move(m);
            let new_depth = depth - 1 + extension;
            let mut value;
            if move_count == 1 {
                value = -self.search::<PV>(-beta, -alpha, new_depth, ply + 1, false);
            } else {
                // Zero-window searches leave the child's line alone; without a full re-search
                // below (a fail high), the line must not come from an earlier sibling.
                if PV {
                    self.pv_len[ply + 1] = 0;
                }
                // Late move reductions.
                let mut r = 0;
                if depth >= 3 && move_count > 1 + root as usize && (!tactical || cut_node) {
                    r = self.reductions[(depth as usize).min(63)][move_count.min(63)];
                    if cut_node {
                        r += 1;
                    }
                    if tt_pv {
                        r -= 1;
                    }
                    if !improving {
                        r += 1;
                    }
                    if gives_check || in_check {
                        r -= 1;
                    }
                    r -= hist_score / LMR_HISTORY_DIV;
                    r = r.min(new_depth - 1).max(0);
                }
                value = -self.search::<false>(-alpha - 1, -alpha, new_depth - r, ply + 1, true);
                if value > alpha && r > 0 {
                    value = -self.search::<false>(-alpha - 1, -alpha, new_depth, ply + 1, !cut_node);
                }
                if PV && value > alpha && (root || value < beta) {
                    value = -self.search::<true>(-beta, -alpha, new_depth, ply + 1, false);
                }
            }
            self.pos.undo_move(m);

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
            }

            if value > best_value {
                best_value = value;
                if value > alpha {
                    best_move = Some(m);
                    if PV && !root {
                        self.update_pv(ply, m);
                    }
                    if value >= beta {
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
            && best_value >= beta
        {
            let bonus = (HISTORY_BONUS_MUL * depth * depth).min(HISTORY_BONUS_MAX);
            let hist = &mut self.data.history;
            if !is_tactical(&self.pos, bm) {
                let fr = &mut self.stack[ply];
                if fr.killers[0] != Some(bm) {
                    fr.killers[1] = fr.killers[0];
                    fr.killers[0] = Some(bm);
                }
                hist.update_quiet_all(&self.pos, bm, &conts, bonus);
                hist.set_counter_move(prev_piece_to, bm);
                for &q in &quiets_tried {
                    hist.update_quiet_all(&self.pos, q, &conts, -bonus);
                }
            } else if is_capture(&self.pos, bm) {
                hist.update_capture(&self.pos, bm, bonus);
            }
            for &c in &captures_tried {
                hist.update_capture(&self.pos, c, -bonus);
            }
        }

        // What the search found against the static evaluation, where the bound says which way
        // it errs and no capture or promotion explains the difference.
        if !in_check
            && excluded.is_none()
            && best_value.abs() < VALUE_MATE_IN_MAX_PLY
            && best_move.is_none_or(|m| !is_tactical(&self.pos, m))
            && ((best_value < static_eval && best_value < beta) || (best_value > static_eval && best_move.is_some()))
        {
            self.data.correction.update(&self.pos, self.prev_piece_to(ply), static_eval, best_value, depth);
        }

        if excluded.is_none() && !(root && self.pv_idx > 0) {
            let bound = if best_value >= beta {
                Bound::Lower
            } else if PV && best_value > orig_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            self.shared.tt.store(
                key,
                best_move,
                value_to_tt(best_value, ply),
                if raw_eval == VALUE_NONE { 0 } else { raw_eval },
                depth,
                bound,
                tt_pv,
            );
        }
        best_value
    }

    fn qsearch<const PV: bool>(&mut self, mut alpha: Value, beta: Value, ply: usize, qdepth: i32) -> Value {
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
        if let Some(v) = self.game_end_value(ply, in_check) {
            return v;
        }
        if ply >= MAX_PLY - 4 {
            return if in_check { 0 } else { eval::evaluate(&self.pos) };
        }
        self.carry_piece_sum(ply);
        let key = self.pos.key();
        let tt_hit = self.shared.tt.probe(key);
        let tt_value = tt_hit.map_or(VALUE_NONE, |h| value_from_tt(h.value, ply));
        if !PV
            && let Some(h) = tt_hit
            && tt_value != VALUE_NONE
            && match h.bound {
                Bound::Exact => true,
                Bound::Lower => tt_value >= beta,
                Bound::Upper => tt_value <= alpha,
            }
        {
            return tt_value;
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
            static_eval = self.data.correction.corrected(&self.pos, self.prev_piece_to(ply), raw_eval);
            best_value = static_eval;
            if best_value >= beta {
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
            if !in_check {
                // Delta pruning and losing captures.
                let victim = self.pos.piece_on(m.to());
                let gain = if victim.is_empty() { 0 } else { eval::capture_value(victim.kind()) };
                if !m.is_promotion() && static_eval + gain + QS_DELTA_MARGIN <= alpha {
                    continue;
                }
                if !see_ge(&self.pos, m, 0) {
                    continue;
                }
                // Deep in quiescence, only recaptures.
                if qdepth <= -6
                    && let Some(last) = self.pos.last_move()
                    && last.to() != m.to()
                {
                    continue;
                }
            }
            self.shared.tt.prefetch(self.pos.key_after(m));
            self.pos.do_move(m);
            let v = -self.qsearch::<PV>(-beta, -alpha, ply + 1, qdepth - 1);
            self.pos.undo_move(m);
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
        let bound = if best_value >= beta {
            Bound::Lower
        } else if PV && best_value > orig_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.shared.tt.store(
            key,
            best_move,
            value_to_tt(best_value, ply),
            if raw_eval == VALUE_NONE { 0 } else { raw_eval },
            0,
            bound,
            PV,
        );
        best_value
    }
}

/// Positions and depth of the deterministic `bench` (one thread, fresh tables per position).
pub const BENCH_POSITIONS: [&str; 8] = [
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
    "ln1g1gsnl/1r1s2k2/p1pppp1pp/6p2/1p7/2P4P1/PPSPPPP1P/2G2S1R1/LN2KG1NL b Bb 15",
    "lnsgk1snl/6gb1/p1pppp2p/6pR1/9/1rP6/P2PPPP1P/1BG6/LNS1KGSNL w 3P2p 16",
    "ln1gk2nl/1r1s1sgb1/p1pppp1pp/6p2/1p7/2PP5/PPBSPPPPP/2G1R4/LN2KGSNL b - 21",
    "l2g3nl/2s2kg2/p1npp1sp1/2p2pp1p/1p7/2PBP1P1P/PPS2PN2/2GK1S3/LN1G4L b RBr2p 55",
    "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
    "l7l/3s5/prnp2kp1/2p1Gppnp/1P7/PnPP1P3/3BP2PP/1S1G5/LN1K1G1+rL b SBG3ps 91",
];
pub const BENCH_DEPTH: i32 = 11;

/// Silent reporter for bench and tests.
pub struct NullReporter;

impl Reporter for NullReporter {
    fn info(&self, _: &SearchInfo) {}
    fn bestmove(&self, _: &BestMove, _: Option<Value>) {}
    fn message(&self, _: &str) {}
}

/// Result of `bench`: total nodes (the search signature) and the elapsed time.
pub struct BenchResult {
    pub nodes: u64,
    pub elapsed: Duration,
}

/// Searches every bench position to `depth` with `threads` threads and `hash_mib` of table.
pub fn bench(depth: i32, threads: usize, hash_mib: usize) -> BenchResult {
    let never = StopSignal::default();
    bench_until(depth, threads, hash_mib, &never).expect("a bench nobody stops runs to the end")
}

/// `bench` that gives up (`None`) soon after `stop` is signalled.
pub fn bench_until(depth: i32, threads: usize, hash_mib: usize, stop: &StopSignal) -> Option<BenchResult> {
    let tt = Arc::new(
        TranspositionTable::new(hash_mib)
            .unwrap_or_else(|_| TranspositionTable::new(16).expect("a 16 MiB table fits in memory")),
    );
    let mut nodes = 0;
    let start = Instant::now();
    for sfen in BENCH_POSITIONS {
        let root = Position::from_sfen(sfen).expect("bench positions are valid");
        tt.clear();
        let control = Control::new();
        if !stop.attach(&control) {
            return None;
        }
        let job = SearchJob {
            root,
            limits: Limits { depth: Some(depth), ..Default::default() },
            config: SearchConfig { threads, ..Default::default() },
            tt: tt.clone(),
            control,
            threads: Vec::new(),
            start: Instant::now(),
        };
        nodes += run(job, &NullReporter).nodes;
    }
    if stop.is_stopped() {
        return None;
    }
    Some(BenchResult { nodes, elapsed: start.elapsed() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search_depth(sfen: &str, depth: i32) -> SearchResult {
        let job = SearchJob {
            root: Position::from_sfen(sfen).unwrap(),
            limits: Limits { depth: Some(depth), ..Default::default() },
            config: SearchConfig::default(),
            tt: Arc::new(TranspositionTable::new(8).unwrap()),
            control: Control::new(),
            threads: Vec::new(),
            start: Instant::now(),
        };
        run(job, &NullReporter)
    }

    #[test]
    fn finds_mate_in_one() {
        // Gold drop on 5b mates the king on 5a (supported by the pawn... by the silver on 4c).
        let r = search_depth("4k4/9/3S5/9/9/9/9/9/4K4 b G 1", 3);
        assert_eq!(r.score, Some(mate_in(1)));
        match r.best {
            BestMove::Move { mv, .. } => assert_eq!(mv.to_string(), "G*5b"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn resigns_without_legal_moves() {
        let r = search_depth("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1", 3);
        assert_eq!(r.best, BestMove::Resign);
    }

    #[test]
    fn does_not_walk_into_a_mate_beyond_its_depth() {
        // From a game against Fairy-Stockfish (White to move): the build without root mate
        // probes played 4f3g here at depth 4 (and in the game), after which Black mates in 9
        // (N*4d 3b4a S*3b ...), far beyond the horizon of a depth-4 search.
        let sfen = "l2g3nl/1+P4k2/p4p1pp/3p+B1ps1/Pp6P/3Ppg3/1P4P2/2GS1g1RK/LN4+n1L w RSNbs4p 112";
        let mut pos = Position::from_sfen(sfen).unwrap();
        let mut solver = crate::mate::MateSolver::new(4).unwrap();
        let blunder = pos.parse_usi_move("4f3g").unwrap();
        pos.do_move(blunder);
        assert!(solver.probe(&pos, 1_000_000, 31, &AtomicBool::new(false)).is_some());
        pos.undo_move(blunder);
        let r = search_depth(sfen, 4);
        let BestMove::Move { mv, .. } = r.best else { panic!("{:?}", r.best) };
        pos.do_move(mv);
        assert_eq!(solver.probe(&pos, 1_000_000, 31, &AtomicBool::new(false)), None, "{mv} allows a mate");
    }

    #[test]
    fn a_move_that_allows_a_mate_shows_the_mating_line() {
        // From a game against Fairy-Stockfish (White to move), where every move allows a mate
        // (hayate's own build resigns here, with a resign value): the last line reported is the
        // answer and the mate after it.
        struct Lines(parking_lot::Mutex<Vec<SearchInfo>>);
        impl Reporter for Lines {
            fn info(&self, info: &SearchInfo) {
                self.0.lock().push(info.clone());
            }
            fn bestmove(&self, _: &BestMove, _: Option<Value>) {}
            fn message(&self, _: &str) {}
        }
        let sfen = "5sSnl/1G2g4/3p1kbpp/4+R4/2pG1ppP1/4R4/PPP+s1PP1P/1Sg2K3/L3L2NL w 2Pb2n3p 92";
        let job = SearchJob {
            root: Position::from_sfen(sfen).unwrap(),
            limits: Limits { depth: Some(4), ..Default::default() },
            config: SearchConfig::default(),
            tt: Arc::new(TranspositionTable::new(8).unwrap()),
            control: Control::new(),
            threads: Vec::new(),
            start: Instant::now(),
        };
        let lines = Lines(parking_lot::Mutex::new(Vec::new()));
        let r = run(job, &lines);
        let last = lines.0.lock().last().cloned().expect("a line");
        assert_eq!(r.best, BestMove::Move { mv: last.pv[0], ponder: last.pv.get(1).copied() });
        let Score::Mate(plies) = last.score else { panic!("{:?}", last.score) };
        assert!(plies < 0);
        let mut pos = Position::from_sfen(sfen).unwrap();
        pos.do_move(last.pv[0]);
        assert!(crate::mate::verify_mate_line(&pos, &last.pv[1..]).is_ok(), "{:?}", last.pv);
        assert_eq!(last.pv.len() as i32, -plies);
    }

    #[test]
    fn plays_a_mate_found_by_the_probe_at_once() {
        // The position after the blunder above: Black mates in 9. The probe finds a mate before
        // the first iteration, and the search answers with it without searching.
        let sfen = "l2g3nl/1+P4k2/p4p1pp/3p+B1ps1/Pp6P/3Pp4/1P4g2/2GS1g1RK/LN4+n1L b RSNbs5p 113";
        let r = search_depth(sfen, 30);
        assert_eq!(r.nodes, 0);
        let plies = VALUE_MATE - r.score.unwrap();
        assert!((9..=MATE_PROBE_PLY as i32).contains(&plies), "{:?}", r.score);
        let BestMove::Move { mv, .. } = r.best else { panic!("{:?}", r.best) };
        let mut pos = Position::from_sfen(sfen).unwrap();
        pos.do_move(mv);
        assert!(pos.in_check());
    }

    #[test]
    fn takes_a_free_rook() {
        let r = search_depth("4k4/9/9/9/4r4/9/9/4R4/4K4 b - 1", 4);
        match r.best {
            BestMove::Move { mv, .. } => assert_eq!(mv.to_string(), "5h5e"),
            other => panic!("{other:?}"),
        }
    }
}
