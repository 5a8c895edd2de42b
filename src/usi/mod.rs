//! The USI protocol loop.
//!
//! A reader thread turns input lines into messages on a channel; the controller (the calling
//! thread) handles them one at a time and never waits on a running search: `go` starts it,
//! `stop`/`ponderhit` flip atomics, and `isready` during a search is answered when the search
//! ends. Search results arrive through `UsiReporter`, which formats and writes them. `go mate`
//! runs the mate solver on its own thread the same way and answers `checkmate ...` from there.
//!
//! A `position` command that fails (bad SFEN, illegal move) is never half-applied: the engine
//! drops its position, says why in `info string error: ...`, and answers a `go` before the next
//! valid `position` with `bestmove resign` (searching a stale position could answer with a move
//! that is illegal in the GUI's game).

pub mod command;

use crate::engine::Engine;
use crate::mate::{DEFAULT_MATE_HASH_MIB, MateLimits, MateSolver, SOLVER_STACK_BYTES};
use crate::search::{BestMove, Limits, Reporter, Score, SearchInfo};
use crate::shogi::{EnteringKingRule, MoveList, Position, movegen};
use crate::tt::Bound;
use command::{Command, GoKind, PositionBase, UsiError};
use crossbeam_channel::{Receiver, Sender, select, unbounded};
use parking_lot::Mutex;
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// The mate table takes this fraction of `USI_Hash` (it comes on top of the main table)...
const MATE_HASH_DIVISOR: usize = 4;
/// ...and never more than this (MiB).
const MATE_HASH_MIB_CAP: usize = 1024;

/// Shared, line-buffered output.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    pub fn new(w: Box<dyn Write + Send>) -> Output {
        Output(Arc::new(Mutex::new(w)))
    }

    pub fn stdout() -> Output {
        Output::new(Box::new(std::io::stdout()))
    }

    pub fn line(&self, s: &str) {
        let mut w = self.0.lock();
        // A closed output (GUI gone) is not worth a panic; the loop ends at end of input.
        let _ = writeln!(w, "{s}");
        let _ = w.flush();
    }
}

/// Formats search reports as USI lines.
pub struct UsiReporter {
    out: Output,
}

pub fn format_info(i: &SearchInfo) -> String {
    let mut s = format!("info depth {} seldepth {}", i.depth, i.seldepth);
    s += &format!(" time {} nodes {} nps {} hashfull {}", i.time_ms, i.nodes, i.nps, i.hashfull);
    match i.score {
        Score::Cp(v) => s += &format!(" score cp {v}"),
        Score::Mate(n) => s += &format!(" score mate {n}"),
    }
    match i.bound {
        Some(Bound::Lower) => s += " lowerbound",
        Some(Bound::Upper) => s += " upperbound",
        _ => {}
    }
    s += &format!(" multipv {}", i.multipv);
    if !i.pv.is_empty() {
        s += " pv";
        for m in &i.pv {
            s += &format!(" {m}");
        }
    }
    s
}

pub fn format_bestmove(b: &BestMove) -> String {
    match b {
        BestMove::Move { mv, ponder: Some(p) } => format!("bestmove {mv} ponder {p}"),
        BestMove::Move { mv, ponder: None } => format!("bestmove {mv}"),
        BestMove::Resign => "bestmove resign".to_string(),
        BestMove::Win => "bestmove win".to_string(),
    }
}

impl Reporter for UsiReporter {
    fn info(&self, info: &SearchInfo) {
        self.out.line(&format_info(info));
    }
    fn bestmove(&self, best: &BestMove, _score: Option<i32>) {
        self.out.line(&format_bestmove(best));
    }
    fn message(&self, text: &str) {
        self.out.line(&format!("info string {text}"));
    }
}

#[derive(Clone, Copy)]
enum OptKind {
    Spin { default: i64, min: i64, max: i64 },
    Check { default: bool },
    Combo { default: &'static str, vars: &'static [&'static str] },
}

const RULE_NAMES: [&str; 6] = ["NoEnteringKing", "CSARule24", "CSARule24H", "CSARule27", "CSARule27H", "TryRule"];

struct OptDef {
    name: &'static str,
    kind: OptKind,
}

const OPTIONS: &[OptDef] = &[
    OptDef { name: "USI_Hash", kind: OptKind::Spin { default: 256, min: 1, max: 1 << 20 } },
    OptDef { name: "USI_Ponder", kind: OptKind::Check { default: false } },
    OptDef { name: "Threads", kind: OptKind::Spin { default: 1, min: 1, max: 256 } },
    OptDef { name: "MultiPV", kind: OptKind::Spin { default: 1, min: 1, max: 600 } },
    OptDef { name: "NetworkDelay", kind: OptKind::Spin { default: 40, min: 0, max: 10_000 } },
    OptDef { name: "MinimumThinkingTime", kind: OptKind::Spin { default: 20, min: 0, max: 60_000 } },
    OptDef { name: "ResignValue", kind: OptKind::Spin { default: 10_000, min: 0, max: 99_999 } },
    OptDef { name: "DrawValue", kind: OptKind::Spin { default: 0, min: -30_000, max: 30_000 } },
    OptDef { name: "EnteringKingRule", kind: OptKind::Combo { default: "CSARule27", vars: &RULE_NAMES } },
    OptDef { name: "MaxMovesToDraw", kind: OptKind::Spin { default: 0, min: 0, max: 100_000 } },
    OptDef { name: "NodesLimit", kind: OptKind::Spin { default: 0, min: 0, max: 1_000_000_000_000 } },
];

enum Msg {
    Line(String),
    Eof,
}

/// A `go mate` in progress: its stop flag and the thread, which hands the solver (and its
/// table) back when it ends.
struct MateJob {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<MateSolver>,
}

struct Controller {
    engine: Engine,
    mate_job: Option<MateJob>,
    /// Kept between `go mate` commands so that the table is allocated once.
    mate_solver: Option<MateSolver>,
    position: Option<Position>,
    /// Why the last `position` failed; while set, `go` is refused. With neither a position
    /// nor an error (no `position` yet), the start position is used.
    position_error: Option<String>,
    out: Output,
    /// Carries the number of the search (or mate search) that ended.
    done_tx: Sender<u64>,
    /// Number of the latest search started; a late "done" of an earlier one is ignored.
    job: u64,
    searching: bool,
    /// The running search waits for `stop`/`ponderhit` (infinite or ponder).
    search_holds: bool,
    pending_isready: bool,
    /// Commands received during a limited search, run when it ends.
    deferred: std::collections::VecDeque<Command>,
}

/// Runs the protocol over `input` until `quit` or end of input.
pub fn run<R: BufRead + Send + 'static>(input: R, out: Output) {
    let (tx, rx) = unbounded();
    std::thread::Builder::new()
        .name("usi-reader".into())
        .spawn(move || {
            for line in input.lines() {
                match line {
                    Ok(l) => {
                        if tx.send(Msg::Line(l)).is_err() {
                            return;
                        }
                    }
                    Err(_) => break, // invalid UTF-8 or a read error ends input like EOF
                }
            }
            let _ = tx.send(Msg::Eof);
        })
        .expect("spawn the input thread");
    // Build the attack tables while the GUI is still reading the option list.
    std::thread::spawn(crate::shogi::attacks::init);
    let (done_tx, done_rx) = unbounded();
    let mut c = Controller {
        engine: Engine::new(),
        mate_job: None,
        mate_solver: None,
        position: None,
        position_error: None,
        out,
        done_tx,
        job: 0,
        searching: false,
        search_holds: false,
        pending_isready: false,
        deferred: std::collections::VecDeque::new(),
    };
    c.main_loop(rx, done_rx);
}

impl Controller {
    fn main_loop(&mut self, rx: Receiver<Msg>, done_rx: Receiver<u64>) {
        loop {
            select! {
                recv(rx) -> msg => match msg {
                    Ok(Msg::Line(l)) => {
                        if !self.handle_line(&l) {
                            self.shutdown();
                            return;
                        }
                    }
                    Ok(Msg::Eof) | Err(_) => {
                        // End of input: a limited search finishes and answers, and the
                        // commands queued behind it run; an infinite or pondering search is
                        // stopped first.
                        while self.searching {
                            if self.search_holds {
                                self.stop_searches();
                            }
                            self.engine.wait();
                            self.join_mate();
                            self.search_done();
                        }
                        return;
                    }
                },
                recv(done_rx) -> job => {
                    if job.is_ok_and(|j| j == self.job) && self.searching {
                        self.search_done();
                    }
                }
            }
        }
    }

    /// `quit`: stop the search and return at once; the process ends when `run` returns, so
    /// the search thread is not waited for (its bestmove is not wanted any more).
    fn shutdown(&mut self) {
        // Nothing waits for the search or mate threads: `quit` ends the process at once.
        self.stop_searches();
    }

    /// Asks the running search and mate search (if any) to stop; they answer shortly.
    fn stop_searches(&self) {
        self.engine.stop();
        if let Some(j) = &self.mate_job {
            j.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Waits for the mate thread (after it answered) and keeps its solver for the next time.
    fn join_mate(&mut self) {
        if let Some(j) = self.mate_job.take()
            && let Ok(solver) = j.handle.join()
        {
            self.mate_solver = Some(solver);
        }
    }

    fn search_done(&mut self) {
        self.engine.wait();
        self.join_mate();
        self.searching = false;
        self.search_holds = false;
        if self.pending_isready {
            self.pending_isready = false;
            self.out.line("readyok");
        }
        // Commands that arrived during the search run now, in order, until one starts a
        // new search.
        // (`quit` is never deferred, so `execute` cannot ask to end here.)
        while !self.searching
            && let Some(cmd) = self.deferred.pop_front()
        {
            self.execute(cmd);
        }
    }

    fn say(&self, s: &str) {
        self.out.line(s);
    }

    fn error(&self, s: &str) {
        self.out.line(&format!("info string error: {s}"));
    }

    /// Stops a running search and waits for its bestmove (for commands that need the engine
    /// idle; a well-behaved GUI has already sent `stop`).
    fn stop_and_wait(&mut self) {
        if self.searching {
            self.stop_searches();
            self.engine.wait();
            self.join_mate();
            self.searching = false;
            self.search_holds = false;
            if self.pending_isready {
                self.pending_isready = false;
                self.say("readyok");
            }
        }
    }

    /// Handles one line; returns false on `quit`.
    fn handle_line(&mut self, line: &str) -> bool {
        let cmd = match command::parse(line) {
            Ok(c) => c,
            Err(UsiError::Empty) => return true,
            Err(e) => {
                self.error(&e.to_string());
                return true;
            }
        };
        // While a search with a limit runs, commands that need the engine idle wait for it
        // (a script of `position`/`go` pairs then runs every search to its limit). During an
        // infinite or pondering search they stop it instead: the GUI has moved on.
        let urgent = matches!(cmd, Command::Stop | Command::PonderHit(_) | Command::Quit | Command::GameOver(_));
        if !urgent && self.searching && (!self.search_holds || !self.deferred.is_empty()) {
            self.deferred.push_back(cmd);
            return true;
        }
        self.execute(cmd)
    }

    /// Carries out one command; returns false on `quit`.
    fn execute(&mut self, cmd: Command) -> bool {
        match cmd {
            Command::Quit => return false,
            Command::Usi => self.usi(),
            Command::IsReady => {
                if self.searching {
                    self.pending_isready = true;
                } else {
                    // The table is allocated in the background; the first search waits for it
                    // and reports a failure then.
                    self.engine.prepare_async();
                    self.say("readyok");
                }
            }
            Command::SetOption { name, value } => {
                self.stop_and_wait();
                self.set_option(&name, value.as_deref());
            }
            Command::UsiNewGame => {
                self.stop_and_wait();
                if let Err(e) = self.engine.prepare() {
                    self.error(&format!("{e}; using {} MiB", self.engine.options.hash_mib));
                }
                self.engine.new_game();
            }
            Command::Position { base, moves } => {
                self.stop_and_wait();
                self.set_position(base, &moves);
            }
            Command::Go { kind, warnings } => {
                for w in warnings {
                    self.say(&format!("info string warning: {w}"));
                }
                self.stop_and_wait();
                self.go(kind);
            }
            Command::Stop => self.stop_searches(),
            Command::PonderHit(limits) => {
                self.search_holds = false;
                self.engine.ponderhit(limits);
            }
            Command::GameOver(_) => {
                if self.searching {
                    self.stop_searches();
                }
            }
            Command::Display => self.display(),
            Command::Moves => match self.current_position() {
                Ok(p) => {
                    let mut list = MoveList::new();
                    movegen::generate_legal(&p, &mut list);
                    let v: Vec<String> = list.iter().map(|m| m.to_string()).collect();
                    self.say(&format!("info string {} legal moves: {}", v.len(), v.join(" ")));
                }
                Err(e) => self.error(&e),
            },
            Command::Bench { depth } => {
                self.stop_and_wait();
                let depth = depth.unwrap_or(crate::search::BENCH_DEPTH);
                let r = crate::search::bench(depth, self.engine.options.threads, 16);
                let nps = r.nodes as f64 / r.elapsed.as_secs_f64().max(1e-9);
                self.say(&format!(
                    "info string bench depth {depth} threads {} nodes {} time {} ms nps {:.0}",
                    self.engine.options.threads,
                    r.nodes,
                    r.elapsed.as_millis(),
                    nps
                ));
            }
        }
        true
    }

    fn usi(&self) {
        self.say(&format!("id name hayate {}", env!("CARGO_PKG_VERSION")));
        self.say("id author the hayate developers");
        for o in OPTIONS {
            match o.kind {
                OptKind::Spin { default, min, max } => {
                    self.say(&format!("option name {} type spin default {default} min {min} max {max}", o.name))
                }
                OptKind::Check { default } => self.say(&format!("option name {} type check default {default}", o.name)),
                OptKind::Combo { default, vars } => {
                    let vars: String = vars.iter().map(|v| format!(" var {v}")).collect();
                    self.say(&format!("option name {} type combo default {default}{vars}", o.name))
                }
            }
        }
        self.say("usiok");
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let Some(def) = OPTIONS.iter().find(|o| o.name.eq_ignore_ascii_case(name)) else {
            self.error(&format!("unknown option '{name}'"));
            return;
        };
        match def.kind {
            OptKind::Spin { min, max, .. } => {
                let Some(v) = value.and_then(|v| v.trim().parse::<i128>().ok()) else {
                    self.error(&format!("option {}: '{}' is not a number", def.name, value.unwrap_or("")));
                    return;
                };
                let clamped = v.clamp(min as i128, max as i128) as i64;
                if clamped as i128 != v {
                    self.say(&format!("info string warning: option {} value {v} clamped to {clamped}", def.name));
                }
                let o = &mut self.engine.options;
                match def.name {
                    "USI_Hash" => o.hash_mib = clamped as usize,
                    "Threads" => o.threads = clamped as usize,
                    "MultiPV" => o.multipv = clamped as usize,
                    "NetworkDelay" => o.network_delay = clamped as u64,
                    "MinimumThinkingTime" => o.minimum_thinking_time = clamped as u64,
                    "ResignValue" => o.resign_value = clamped as i32,
                    "DrawValue" => o.draw_value = clamped as i32,
                    "MaxMovesToDraw" => o.max_moves_to_draw = clamped as u32,
                    "NodesLimit" => o.nodes_limit = clamped as u64,
                    _ => {}
                }
            }
            OptKind::Check { .. } => {
                let v = match value.map(|v| v.trim().to_ascii_lowercase()) {
                    Some(v) if v == "true" => true,
                    Some(v) if v == "false" => false,
                    other => {
                        self.error(&format!("option {}: '{}' is not true/false", def.name, other.unwrap_or_default()));
                        return;
                    }
                };
                if def.name == "USI_Ponder" {
                    self.engine.options.ponder = v;
                }
            }
            OptKind::Combo { .. } => match value.unwrap_or("").trim().parse::<EnteringKingRule>() {
                Ok(rule) => self.engine.options.entering_king_rule = rule,
                Err(e) => self.error(&format!("option {}: {e}", def.name)),
            },
        }
    }

    fn set_position(&mut self, base: PositionBase, moves: &[String]) {
        let built = (|| -> Result<Position, String> {
            let mut pos = match &base {
                PositionBase::Startpos => Position::startpos(),
                PositionBase::Sfen(s) => Position::from_sfen(s).map_err(|e| format!("bad SFEN '{s}': {e}"))?,
            };
            for (i, m) in moves.iter().enumerate() {
                let mv = pos.parse_usi_move(m).map_err(|e| format!("move {} ({m}): {e}", i + 1))?;
                pos.do_move(mv);
            }
            Ok(pos)
        })();
        match built {
            Ok(p) => {
                self.position = Some(p);
                self.position_error = None;
            }
            Err(e) => {
                self.error(&format!("{e}; position cleared, send a valid 'position' before 'go'"));
                self.position = None;
                self.position_error = Some(e);
            }
        }
    }

    /// The position to work on: the last valid one, or the start position before any.
    fn current_position(&self) -> Result<Position, String> {
        match (&self.position, &self.position_error) {
            (Some(p), _) => Ok(p.clone()),
            (None, Some(e)) => Err(format!("no valid position: {e}")),
            (None, None) => Ok(Position::startpos()),
        }
    }

    fn display(&self) {
        match self.current_position() {
            Ok(p) => {
                for l in p.to_string().lines() {
                    self.say(l);
                }
                self.say(&format!("sfen {}", p.to_sfen()));
                self.say(&format!("key {:016x}", p.key()));
                let checkers: Vec<String> = p.checkers().iter().map(|s| s.to_string()).collect();
                self.say(&format!("checkers {}", if checkers.is_empty() { "-".into() } else { checkers.join(" ") }));
            }
            Err(e) => self.error(&e),
        }
    }

    fn go(&mut self, kind: GoKind) {
        let pos = match self.current_position() {
            Ok(p) => p,
            Err(why) => {
                self.error(&format!("cannot search: {why}"));
                match kind {
                    GoKind::Mate(_) => self.say("checkmate timeout"),
                    GoKind::Perft(_) => {}
                    GoKind::Search(_) => self.say("bestmove resign"),
                }
                return;
            }
        };
        match kind {
            GoKind::Perft(depth) => {
                let mut p = pos;
                let start = std::time::Instant::now();
                let mut total = 0;
                for (m, n) in movegen::perft_divide(&mut p, depth) {
                    self.say(&format!("{m}: {n}"));
                    total += n;
                }
                let secs = start.elapsed().as_secs_f64();
                self.say(&format!("info string perft time {:.3} s nps {:.0}", secs, total as f64 / secs.max(1e-9)));
                self.say(&format!("Nodes searched: {total}"));
            }
            GoKind::Mate(time_ms) => self.start_mate(pos, time_ms),
            GoKind::Search(mut limits) => {
                // NodesLimit turns clock searches into fixed-node ones: matches and tests that
                // must not depend on machine speed or load.
                let n = self.engine.options.nodes_limit;
                if n > 0 && limits.uses_clock() && limits.nodes.is_none() && limits.depth.is_none() {
                    limits = crate::search::Limits { nodes: Some(n), ponder: limits.ponder, ..Default::default() };
                }
                self.start_search(pos, limits)
            }
        }
    }

    fn start_search(&mut self, pos: Position, limits: Limits) {
        let holds = limits.infinite || limits.ponder;
        let reporter = Arc::new(UsiReporter { out: self.out.clone() });
        self.job += 1;
        let job = self.job;
        let done = self.done_tx.clone();
        let on_done = Box::new(move || {
            let _ = done.send(job);
        });
        self.engine.go(pos, limits, reporter, on_done);
        self.searching = true;
        self.search_holds = holds;
    }

    /// Starts the mate solver on its own thread; it prints `checkmate ...` when it ends.
    /// `time_ms`: None for `go mate infinite` (until `stop`).
    fn start_mate(&mut self, pos: Position, time_ms: Option<u64>) {
        let mib = (self.engine.options.hash_mib / MATE_HASH_DIVISOR).clamp(1, MATE_HASH_MIB_CAP);
        // A table of another size is freed (by the filter) before the new one is allocated.
        let solver = match self.mate_solver.take().filter(|s| s.hash_mib() == mib) {
            Some(s) => Ok(s),
            None => MateSolver::new(mib).or_else(|e| {
                self.error(&format!("{e}; using {DEFAULT_MATE_HASH_MIB} MiB for the mate search"));
                MateSolver::new(DEFAULT_MATE_HASH_MIB)
            }),
        };
        let mut solver = match solver {
            Ok(s) => s,
            Err(e) => {
                self.error(&format!("mate search: {e}"));
                self.say("checkmate timeout");
                return;
            }
        };
        self.job += 1;
        let job = self.job;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let out = self.out.clone();
        let done = self.done_tx.clone();
        let limits = MateLimits { time: time_ms.map(Duration::from_millis), ..MateLimits::default() };
        let spawned = std::thread::Builder::new().name("mate".into()).stack_size(SOLVER_STACK_BYTES).spawn(move || {
            let r = solver.solve(&pos, &limits, &flag);
            let ms = r.elapsed.as_millis() as u64;
            let nps = r.nodes * 1000 / ms.max(1);
            out.line(&format!("info time {ms} nodes {} nps {nps} hashfull {}", r.nodes, r.hashfull));
            out.line(&r.answer.to_usi());
            let _ = done.send(job);
            solver
        });
        match spawned {
            Ok(handle) => {
                self.mate_job = Some(MateJob { stop, handle });
                self.searching = true;
                self.search_holds = time_ms.is_none();
            }
            Err(e) => {
                self.error(&format!("mate search: cannot start a thread: {e}"));
                self.say("checkmate timeout");
            }
        }
    }
}
