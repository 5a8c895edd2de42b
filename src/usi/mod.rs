//! The USI protocol loop.
//!
//! A reader thread turns input lines into messages on a channel; the controller (the calling
//! thread) handles them one at a time and never waits on a running search: `go` starts it,
//! `stop`/`ponderhit` flip atomics, and `isready` during a search is answered when the search
//! ends. Search results arrive through `UsiReporter`, which formats and writes them.
//!
//! Bad input never stops the loop. Every problem is reported as one `info string error: ...`
//! (or `info string warning: ...`) line, with control characters of the echoed input escaped,
//! and the loop goes on:
//!
//! - A `position` command that fails (bad SFEN, illegal move, a line that cannot be parsed,
//!   is too long or damaged) is never half-applied: the engine drops its position, says why,
//!   and answers a `go` before the next valid `position` with `bestmove resign` (searching a
//!   stale position could answer with a move that is illegal in the GUI's game).
//! - A `go` that cannot be parsed (a bad number, an unknown word) is refused the same way:
//!   the error, then `bestmove resign` (`checkmate timeout` for `go mate`), so a GUI
//!   waiting for an answer always gets one.
//! - Commands without arguments (`usi`, `isready`, `usinewgame`, `stop`, ...) and `ponderhit`
//!   with unreadable clock values are still carried out, after the error: a GUI that waits
//!   for `readyok` or a `bestmove` is never left hanging.
//! - Input that is not UTF-8 is read with the bad bytes replaced (U+FFFD) and parsed; a line
//!   longer than `input::MAX_LINE_BYTES` is skipped whole (a skipped `position` or `go` counts
//!   as a failed one, as above).
//! - Numbers out of range are clamped with a warning (`go` times, depths, option values);
//!   a hash table that cannot be allocated falls back to a small one with an error message.
//!
//! `go perft`, `bench` and `go mate` (the mate solver, which answers `checkmate ...`) run on
//! their own thread like a search, so `stop` and `quit` are answered during them too.

pub mod command;
pub mod input;
pub mod options;

use crate::engine::Engine;
use crate::mate::{DEFAULT_MATE_HASH_MIB, MateLimits, MateSolver, SOLVER_STACK_BYTES};
use crate::search::{BestMove, Limits, Reporter, Score, SearchInfo, StopSignal};
use crate::shogi::{MoveList, Position, movegen};
use crate::tt::Bound;
use command::{Command, GoKind, UsiError};
use crossbeam_channel::{Receiver, Sender, select, unbounded};
use input::{InputLine, LineReader};
use parking_lot::Mutex;
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The mate table takes this fraction of `USI_Hash` (it comes on top of the main table)...
const MATE_HASH_DIVISOR: usize = 4;
/// ...and never more than this (MiB).
const MATE_HASH_MIB_CAP: usize = 1024;
/// Stack of the `go perft` and `bench` threads.
const DIAGNOSTIC_STACK_BYTES: usize = 16 << 20;

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

/// Messages from the input thread.
enum Msg {
    /// A line and when it was read (a `go`'s clock starts then).
    Line(InputLine, Instant),
    Eof,
}

/// What the controller carries out, in input order.
enum Action {
    Run(Command),
    /// A `position` line that cannot be used (unparsable or skipped): the position is dropped.
    RejectPosition(String),
    /// A `go` line that cannot be parsed: refused, with the answer a GUI waits for.
    RefuseGo {
        why: String,
        mate: bool,
        perft: bool,
    },
}

impl Action {
    /// Acts on the running search at once instead of waiting for it.
    fn is_urgent(&self) -> bool {
        matches!(self, Action::Run(Command::Stop | Command::PonderHit(_) | Command::Quit | Command::GameOver(_)))
    }

    /// Starts a search or a diagnostic.
    fn starts_work(&self) -> bool {
        matches!(self, Action::Run(Command::Go { .. } | Command::Bench { .. }))
    }
}

/// What still happens for a line that failed to parse (see the module doc), or `None` when
/// the error message is all.
fn recover(line: &str, why: &str) -> Option<Action> {
    let mut tokens = line.split_whitespace();
    let head = tokens.next()?;
    Some(match head {
        "position" => Action::RejectPosition(why.to_string()),
        "go" => {
            let rest: Vec<&str> = tokens.collect();
            Action::RefuseGo { why: why.to_string(), mate: rest.contains(&"mate"), perft: rest.contains(&"perft") }
        }
        "usi" => Action::Run(Command::Usi),
        "isready" => Action::Run(Command::IsReady),
        "usinewgame" => Action::Run(Command::UsiNewGame),
        "stop" => Action::Run(Command::Stop),
        "ponderhit" => Action::Run(Command::PonderHit(None)),
        "d" => Action::Run(Command::Display),
        "moves" => Action::Run(Command::Moves),
        _ => return None,
    })
}

/// Longest message echoed to the GUI (characters); longer ones are cut with `...`.
const MAX_MESSAGE_CHARS: usize = 300;

/// Input echoed in a message: control characters escaped (the GUI must see exactly one line,
/// and no terminal escapes), and cut to `MAX_MESSAGE_CHARS`.
fn printable(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(MAX_MESSAGE_CHARS + 8));
    for (n, c) in s.chars().enumerate() {
        if n == MAX_MESSAGE_CHARS {
            out.push_str("...");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A job (`go perft`, `bench`, `go mate`) running on its own thread.
struct Diagnostic {
    stop: Arc<StopSignal>,
    handle: std::thread::JoinHandle<()>,
}

struct Controller {
    engine: Engine,
    position: Option<Position>,
    /// Why the last `position` failed; while set, `go` is refused. With neither a position
    /// nor an error (no `position` yet), the start position is used.
    position_error: Option<String>,
    out: Output,
    /// Search and diagnostic threads report their end here, tagged with the job's number.
    done_tx: Sender<u64>,
    /// Number of the latest search or diagnostic; a done signal of an older one is ignored.
    search_id: u64,
    /// A search or a diagnostic is running.
    searching: bool,
    /// The running search waits for `stop`/`ponderhit` (infinite or ponder).
    search_holds: bool,
    pending_isready: bool,
    /// Commands received during a limited search, run when it ends.
    deferred: std::collections::VecDeque<(Action, ClockStart)>,
    diagnostic: Option<Diagnostic>,
    /// Kept between `go mate` commands so that its table is allocated once; a running mate
    /// search has taken it out and puts it back when it ends.
    mate_solver: Arc<Mutex<Option<MateSolver>>>,
}

/// Where the clock of a `go` starts.
#[derive(Clone, Copy, Debug)]
enum ClockStart {
    /// When the line was read: a GUI's clock runs from when it sent the command, and the
    /// engine may read it late (or finish the search before only then).
    Arrival(Instant),
    /// When it runs: a `go` that arrived while the search before it had not answered yet
    /// (a script of `go`s) gets its full time after that search.
    WhenRun,
}

/// Runs the protocol over `input` until `quit` or end of input.
pub fn run<R: BufRead + Send + 'static>(input: R, out: Output) {
    let (tx, rx) = unbounded();
    let engine = Engine::new();
    let stopper = engine.stopper();
    let reader_out = out.clone();
    let reader = std::thread::Builder::new().name("usi-reader".into()).spawn(move || {
        let mut lines = LineReader::new(input);
        // A read error (other than an interruption) ends input like end of file.
        while let Ok(Some(l)) = lines.next_line() {
            // `stop` is answered from here at once with the best move found so far: no
            // waiting for the protocol loop or for the search threads, each of which may wait
            // for a CPU on a loaded machine. The protocol loop then handles the `stop` as
            // usual (stopping twice is harmless; the search gives no second bestmove).
            if let InputLine::Ok(text) = &l
                && text.trim() == "stop"
                && let Some(best) = stopper.stop()
            {
                reader_out.line(&format_bestmove(&best));
            }
            if tx.send(Msg::Line(l, Instant::now())).is_err() {
                return;
            }
        }
        let _ = tx.send(Msg::Eof);
    });
    if let Err(e) = reader {
        out.line(&format!("info string error: cannot start the input thread: {e}"));
        return;
    }
    // Build the attack tables while the GUI is still reading the option list (they are also
    // built on first use, so a failed spawn costs nothing).
    let _ = std::thread::Builder::new().name("init".into()).spawn(crate::shogi::attacks::init);
    let (done_tx, done_rx) = unbounded();
    let mut c = Controller {
        engine,
        position: None,
        position_error: None,
        out,
        done_tx,
        search_id: 0,
        searching: false,
        search_holds: false,
        pending_isready: false,
        deferred: std::collections::VecDeque::new(),
        diagnostic: None,
        mate_solver: Arc::new(Mutex::new(None)),
    };
    c.main_loop(rx, done_rx);
}

impl Controller {
    fn main_loop(&mut self, rx: Receiver<Msg>, done_rx: Receiver<u64>) {
        loop {
            select! {
                recv(rx) -> msg => match msg {
                    Ok(Msg::Line(l, at)) => {
                        if !self.handle_input(l, at) {
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
                                self.stop_search();
                            }
                            self.wait_search();
                            self.search_done();
                        }
                        return;
                    }
                },
                recv(done_rx) -> id => {
                    if id.ok() == Some(self.search_id) && self.searching {
                        self.search_done();
                    }
                }
            }
        }
    }

    /// `quit`: stop the search and return at once; the process ends when `run` returns, so
    /// the search thread is not waited for (its bestmove is not wanted any more).
    fn shutdown(&mut self) {
        self.stop_search();
    }

    /// Asks the running search or diagnostic to stop (it answers shortly).
    fn stop_search(&self) {
        self.engine.stop();
        if let Some(d) = &self.diagnostic {
            d.stop.stop();
        }
    }

    /// Waits for the running search or diagnostic to end.
    fn wait_search(&mut self) {
        self.engine.wait();
        if let Some(d) = self.diagnostic.take() {
            let _ = d.handle.join();
        }
    }

    fn search_done(&mut self) {
        self.wait_search();
        self.searching = false;
        self.search_holds = false;
        if self.pending_isready {
            self.pending_isready = false;
            self.out.line("readyok");
        }
        // Commands that arrived during the search run now, in order, until one starts a
        // new search with a limit; `stop`/`ponderhit`/`gameover` queued right behind it act on
        // it at once. A pondering or infinite search started from the queue does not hold up
        // the commands behind it: they act on it as if they came while it ran (a second `go`
        // stops it, and it answers).
        // (`quit` is never deferred, so `execute` cannot ask to end here.)
        while let Some((front, _)) = self.deferred.front() {
            if self.searching && !self.search_holds && !front.is_urgent() {
                break;
            }
            if let Some((action, clock)) = self.deferred.pop_front() {
                self.execute(action, clock);
            }
        }
    }

    fn say(&self, s: &str) {
        self.out.line(s);
    }

    fn error(&self, s: &str) {
        self.out.line(&format!("info string error: {}", printable(s)));
    }

    fn warning(&self, s: &str) {
        self.out.line(&format!("info string warning: {}", printable(s)));
    }

    /// Stops a running search and waits for its bestmove (for commands that need the engine
    /// idle; a well-behaved GUI has already sent `stop`).
    fn stop_and_wait(&mut self) {
        if self.searching {
            self.stop_search();
            self.wait_search();
            self.searching = false;
            self.search_holds = false;
            if self.pending_isready {
                self.pending_isready = false;
                self.say("readyok");
            }
        }
    }

    /// Handles one input line; returns false on `quit`.
    fn handle_input(&mut self, line: InputLine, at: Instant) -> bool {
        match line {
            InputLine::Ok(l) => self.handle_line(&l, at),
            InputLine::Lossy(l, e) => {
                self.error(&e.to_string());
                self.handle_line(&l, at)
            }
            InputLine::Skipped { head, error } => self.handle_bad_line(&head, error.to_string(), at),
        }
    }

    /// Handles one text line; returns false on `quit`.
    fn handle_line(&mut self, line: &str, at: Instant) -> bool {
        match command::parse(line) {
            Ok(c) => self.dispatch(Action::Run(c), at),
            Err(UsiError::Empty) => true,
            Err(e) => self.handle_bad_line(line, e.to_string(), at),
        }
    }

    /// A line that could not be parsed or read: report it, and do what still has to happen.
    fn handle_bad_line(&mut self, line: &str, why: String, at: Instant) -> bool {
        match recover(line, &why) {
            // These report when they run, in order with the search output.
            Some(a @ (Action::RejectPosition(_) | Action::RefuseGo { .. })) => self.dispatch(a, at),
            Some(a) => {
                self.error(&why);
                self.dispatch(a, at)
            }
            None => {
                self.error(&why);
                true
            }
        }
    }

    /// Runs an action now or, during a limited search, queues it; returns false on `quit`.
    fn dispatch(&mut self, action: Action, at: Instant) -> bool {
        // While a search with a limit runs, commands that need the engine idle wait for it
        // (a script of `position`/`go` pairs then runs every search to its limit). During an
        // infinite or pondering search they stop it instead: the GUI has moved on.
        //
        // `stop`, `ponderhit` and `gameover` act at once on the running search. When a `go`
        // is queued, they are meant for that newer search too (the GUI may have seen the
        // running one answer already): a copy is queued right behind the last queued `go`,
        // so it acts as soon as that search starts.
        if action.is_urgent() {
            if let Action::Run(cmd) = &action
                && !matches!(cmd, Command::Quit)
                && let Some(i) = self.deferred.iter().rposition(|(a, _)| a.starts_work())
            {
                self.deferred.insert(i + 1, (Action::Run(cmd.clone()), ClockStart::Arrival(at)));
            }
            return self.execute(action, ClockStart::Arrival(at));
        }
        if self.searching && (!self.search_holds || !self.deferred.is_empty()) {
            // A search that has given its bestmove is only finishing: the GUI's clock for
            // what comes now is already running.
            let answered = self.diagnostic.is_none() && self.engine.is_answered();
            let clock = if answered { ClockStart::Arrival(at) } else { ClockStart::WhenRun };
            self.deferred.push_back((action, clock));
            return true;
        }
        self.execute(action, ClockStart::Arrival(at))
    }

    /// Carries out one action; returns false on `quit`.
    fn execute(&mut self, action: Action, clock: ClockStart) -> bool {
        match action {
            Action::Run(cmd) => return self.run_command(cmd, clock),
            Action::RejectPosition(why) => {
                self.stop_and_wait();
                self.drop_position(why);
            }
            Action::RefuseGo { why, mate, perft } => {
                self.stop_and_wait();
                self.error(&format!("{why}; go refused"));
                if mate {
                    self.say("checkmate timeout");
                } else if !perft {
                    self.say("bestmove resign");
                }
            }
        }
        true
    }

    /// Carries out one command; returns false on `quit`.
    fn run_command(&mut self, cmd: Command, clock: ClockStart) -> bool {
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
                match options::parse_option(&name, value.as_deref()) {
                    Ok(p) => {
                        if let Some(w) = p.warning {
                            self.warning(&w);
                        }
                        p.setting.apply(&mut self.engine.options);
                    }
                    Err(e) => self.error(&e.to_string()),
                }
            }
            Command::UsiNewGame => {
                self.stop_and_wait();
                self.engine.new_game();
            }
            Command::Position { base, moves } => {
                self.stop_and_wait();
                match command::build_position(&base, &moves) {
                    Ok(p) => {
                        self.position = Some(p);
                        self.position_error = None;
                    }
                    Err(e) => self.drop_position(e.to_string()),
                }
            }
            Command::Go { kind, warnings } => {
                for w in warnings {
                    self.warning(&w);
                }
                self.stop_and_wait();
                self.go(kind, clock);
            }
            Command::Stop => self.stop_search(),
            Command::PonderHit(limits) => {
                self.search_holds = false;
                self.engine.ponderhit(limits);
            }
            Command::GameOver(_) => {
                if self.searching {
                    self.stop_search();
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
                let threads = self.engine.options.threads;
                self.start_diagnostic(DIAGNOSTIC_STACK_BYTES, false, move |stop, out| {
                    let Some(r) = crate::search::bench_until(depth, threads, 16, stop) else {
                        out.line("info string bench stopped");
                        return;
                    };
                    let nps = r.nodes as f64 / r.elapsed.as_secs_f64().max(1e-9);
                    out.line(&format!(
                        "info string bench depth {depth} threads {threads} nodes {} time {} ms nps {nps:.0}",
                        r.nodes,
                        r.elapsed.as_millis(),
                    ));
                });
            }
        }
        true
    }

    /// Runs `work` on its own thread as if it were a search: later commands wait for it (or,
    /// when it `holds` until `stop`, stop it), and `stop`/`quit` set its stop signal. False
    /// (after an error message) when the thread could not be started.
    fn start_diagnostic(
        &mut self,
        stack_bytes: usize,
        holds: bool,
        work: impl FnOnce(&StopSignal, &Output) + Send + 'static,
    ) -> bool {
        let stop = Arc::new(StopSignal::default());
        self.search_id += 1;
        let id = self.search_id;
        let done = self.done_tx.clone();
        let out = self.out.clone();
        let signal = stop.clone();
        let spawned = std::thread::Builder::new().name("diagnostic".into()).stack_size(stack_bytes).spawn(move || {
            work(&signal, &out);
            let _ = done.send(id);
        });
        match spawned {
            Ok(handle) => {
                self.diagnostic = Some(Diagnostic { stop, handle });
                self.searching = true;
                self.search_holds = holds;
                true
            }
            Err(e) => {
                self.error(&format!("cannot start a thread: {e}"));
                false
            }
        }
    }

    fn usi(&self) {
        self.say(&format!("id name hayate {}", env!("CARGO_PKG_VERSION")));
        self.say("id author the hayate developers");
        for l in options::usi_lines() {
            self.say(&l);
        }
        self.say("usiok");
    }

    /// A failed `position`: forget the position so that `go` is refused until a valid one.
    fn drop_position(&mut self, why: String) {
        self.error(&format!("{why}; position cleared, send a valid 'position' before 'go'"));
        self.position = None;
        self.position_error = Some(why);
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

    fn go(&mut self, kind: GoKind, clock: ClockStart) {
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
                // A failed start has been reported; `go perft` owes no other answer.
                let _ = self.start_diagnostic(DIAGNOSTIC_STACK_BYTES, false, move |stop, out| {
                    let mut p = pos;
                    let start = std::time::Instant::now();
                    let Some(counts) = movegen::perft_divide_until(&mut p, depth, stop.flag()) else {
                        out.line("info string perft stopped");
                        return;
                    };
                    let mut total = 0;
                    for (m, n) in counts {
                        out.line(&format!("{m}: {n}"));
                        total += n;
                    }
                    let secs = start.elapsed().as_secs_f64();
                    out.line(&format!("info string perft time {:.3} s nps {:.0}", secs, total as f64 / secs.max(1e-9)));
                    out.line(&format!("Nodes searched: {total}"));
                });
            }
            GoKind::Mate(time_ms) => self.start_mate(pos, time_ms),
            GoKind::Search(mut limits) => {
                // NodesLimit turns clock searches into fixed-node ones: matches and tests that
                // must not depend on machine speed or load.
                let n = self.engine.options.nodes_limit;
                if n > 0 && limits.uses_clock() && limits.nodes.is_none() && limits.depth.is_none() {
                    limits = Limits { nodes: Some(n), ponder: limits.ponder, ..Default::default() };
                }
                self.start_search(pos, limits, clock)
            }
        }
    }

    /// Starts the mate solver on its own thread; it prints `checkmate ...` when it ends.
    /// `time_ms`: None for `go mate infinite` (until `stop`).
    fn start_mate(&mut self, pos: Position, time_ms: Option<u64>) {
        let mib = (self.engine.options.hash_mib / MATE_HASH_DIVISOR).clamp(1, MATE_HASH_MIB_CAP);
        // A table of another size is freed (by the filter) before the new one is allocated.
        let kept = self.mate_solver.lock().take().filter(|s| s.hash_mib() == mib);
        let solver = match kept {
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
        let slot = self.mate_solver.clone();
        let limits = MateLimits { time: time_ms.map(Duration::from_millis), ..MateLimits::default() };
        let started = self.start_diagnostic(SOLVER_STACK_BYTES, time_ms.is_none(), move |stop, out| {
            let r = solver.solve(&pos, &limits, stop.flag());
            let ms = r.elapsed.as_millis() as u64;
            let nps = r.nodes * 1000 / ms.max(1);
            out.line(&format!("info time {ms} nodes {} nps {nps} hashfull {}", r.nodes, r.hashfull));
            out.line(&r.answer.to_usi());
            *slot.lock() = Some(solver);
        });
        if !started {
            // The GUI still waits for an answer.
            self.say("checkmate timeout");
        }
    }

    fn start_search(&mut self, pos: Position, limits: Limits, clock: ClockStart) {
        let holds = limits.infinite || limits.ponder;
        let reporter = Arc::new(UsiReporter { out: self.out.clone() });
        let done = self.done_tx.clone();
        self.search_id += 1;
        let id = self.search_id;
        let on_done = Box::new(move || {
            let _ = done.send(id);
        });
        let start = match clock {
            ClockStart::Arrival(at) => at,
            ClockStart::WhenRun => Instant::now(),
        };
        match self.engine.go(pos, limits, reporter, on_done, start) {
            Ok(()) => {
                self.searching = true;
                self.search_holds = holds;
            }
            Err(e) => {
                // No thread, no search: answer so that the GUI does not wait forever.
                self.error(&format!("cannot start the search: {e}"));
                self.say("bestmove resign");
            }
        }
    }
}
