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
//! Every piece of work (`go`, `go mate`, `go perft`, `bench`, getting ready for `isready`,
//! emptying the tables for `usinewgame`) is an engine job on its own thread, so `stop` and
//! `quit` are answered during any of them; `readyok` comes when the job that `isready` started
//! has ended.

pub mod command;
pub mod input;
pub mod options;

use crate::engine::Engine;
use crate::mate::MateLimits;
use crate::search::{BestMove, Limits, Reporter, Score, SearchInfo};
use crate::shogi::{MoveList, Position, movegen};
use crate::tt::Bound;
use command::{Command, GoKind, UsiError};
use crossbeam_channel::{Receiver, Sender, select, unbounded};
use input::{InputLine, LineReader};
use parking_lot::Mutex;
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

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

    /// Starts an engine job.
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
        "eval" => Action::Run(Command::Eval),
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

/// The kinds of engine job, for deciding how commands that come meanwhile are treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Job {
    Search,
    /// `go mate`, `go perft`, `bench`.
    Diagnostic,
    /// Getting ready for `isready`, or a new game.
    Housekeeping,
}

struct Controller {
    engine: Engine,
    position: Option<Position>,
    /// Why the last `position` failed; while set, `go` is refused. With neither a position
    /// nor an error (no `position` yet), the start position is used.
    position_error: Option<String>,
    out: Output,
    /// Engine jobs report their end here, tagged with the job's number.
    done_tx: Sender<u64>,
    /// Number of the latest job; a done signal of an older one is ignored.
    job_id: u64,
    /// The engine job under way.
    job: Option<Job>,
    /// The running search waits for `stop`/`ponderhit` (infinite or ponder).
    search_holds: bool,
    /// An `isready` waits for its answer: `readyok` comes when the engine has got ready after
    /// the job under way.
    pending_isready: bool,
    /// Commands received during a job, run when it ends.
    deferred: std::collections::VecDeque<(Action, ClockStart)>,
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
            if let InputLine::Ok(text) = &l {
                match text.trim() {
                    "stop" => {
                        if let Some(best) = stopper.stop() {
                            reader_out.line(&format_bestmove(&best));
                        }
                    }
                    // The search threads start winding down at once, so that the process has
                    // little left to tear down when the protocol loop gets to `quit`.
                    "quit" => {
                        let _ = stopper.stop();
                    }
                    _ => {}
                }
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
        job_id: 0,
        job: None,
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
                        while self.job.is_some() {
                            if self.search_holds {
                                self.engine.stop();
                            }
                            self.engine.wait();
                            self.job_done();
                        }
                        return;
                    }
                },
                recv(done_rx) -> id => {
                    if id.ok() == Some(self.job_id) && self.job.is_some() {
                        self.job_done();
                    }
                }
            }
        }
    }

    /// `quit`: stop the job and return at once; the process ends when `run` returns, so the
    /// job's thread is not waited for (its answer is not wanted any more).
    fn shutdown(&mut self) {
        self.engine.stop();
    }

    /// Starts an engine job through `start`, which gets the closure that the job must call
    /// when it ends. False (after an error message) when it could not be started.
    fn start_job(
        &mut self,
        kind: Job,
        holds: bool,
        start: impl FnOnce(&mut Engine, Box<dyn FnOnce() + Send>) -> std::io::Result<()>,
    ) -> bool {
        self.job_id += 1;
        let (id, done) = (self.job_id, self.done_tx.clone());
        let done = Box::new(move || {
            let _ = done.send(id);
        });
        match start(&mut self.engine, done) {
            Ok(()) => {
                self.job = Some(kind);
                self.search_holds = holds;
                true
            }
            Err(e) => {
                self.error(&format!("cannot start a thread: {e}"));
                false
            }
        }
    }

    fn job_done(&mut self) {
        self.engine.wait();
        let finished = self.job.take();
        self.search_holds = false;
        if self.pending_isready {
            if finished == Some(Job::Housekeeping) {
                self.pending_isready = false;
                self.say("readyok");
            } else if self.get_ready() {
                // `readyok` when that job ends; the queued commands wait for it.
                return;
            }
        }
        // Commands that arrived during the job run now, in order, until one starts a new
        // search with a limit; `stop`/`ponderhit`/`gameover` queued right behind it act on it
        // at once. A pondering or infinite search started from the queue does not hold up the
        // commands behind it: they act on it as if they came while it ran (a second `go` stops
        // it, and it answers).
        // (`quit` is never deferred, so `execute` cannot ask to end here.)
        while let Some((front, _)) = self.deferred.front() {
            if self.job.is_some() && !self.search_holds && !front.is_urgent() {
                break;
            }
            if let Some((action, clock)) = self.deferred.pop_front() {
                self.execute(action, clock);
            }
        }
    }

    /// Starts the job that gets the engine ready for `isready`; false (with `readyok` given
    /// at once, since the GUI must not hang) when it could not be started.
    fn get_ready(&mut self) -> bool {
        self.pending_isready = true;
        let reporter = self.reporter();
        if self.start_job(Job::Housekeeping, false, |e, done| e.prepare(reporter, done)) {
            return true;
        }
        self.pending_isready = false;
        self.say("readyok");
        false
    }

    fn reporter(&self) -> Arc<UsiReporter> {
        Arc::new(UsiReporter { out: self.out.clone() })
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

    /// Stops a running job and waits for its answer (for commands that need the engine idle;
    /// a well-behaved GUI has already sent `stop`). An `isready` that waited for the job is
    /// answered once the engine is ready.
    fn stop_and_wait(&mut self) {
        if self.job.is_some() {
            self.engine.stop();
            self.engine.wait();
            let finished = self.job.take();
            self.search_holds = false;
            if self.pending_isready {
                if finished != Some(Job::Housekeeping) && self.get_ready() {
                    self.engine.wait();
                    self.job = None;
                }
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
        if let Some(job) = self.job
            && (!self.search_holds || !self.deferred.is_empty())
        {
            // While the engine gets ready, or a search that has given its bestmove is only
            // finishing, the GUI's clock for what comes now is already running.
            let clock = match job {
                Job::Housekeeping => ClockStart::Arrival(at),
                Job::Search if self.engine.is_answered() => ClockStart::Arrival(at),
                Job::Search | Job::Diagnostic => ClockStart::WhenRun,
            };
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
                if self.job.is_some() {
                    self.pending_isready = true;
                } else {
                    self.get_ready();
                }
            }
            Command::SetOption { name, value } => {
                self.stop_and_wait();
                match self.engine.options.set(&name, value.as_deref()) {
                    Ok(Some(warning)) => self.warning(&warning),
                    Ok(None) => {}
                    Err(e) => self.error(&e.to_string()),
                }
            }
            Command::UsiNewGame => {
                self.stop_and_wait();
                self.start_job(Job::Housekeeping, false, |e, done| e.new_game(done));
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
            Command::Stop => self.engine.stop(),
            Command::PonderHit(limits) => {
                self.search_holds = false;
                self.engine.ponderhit(limits);
            }
            Command::GameOver(_) => {
                if self.job.is_some() {
                    self.engine.stop();
                }
                self.engine.game_over();
            }
            Command::Display => self.display(),
            Command::Eval => {
                self.stop_and_wait();
                match self.current_position() {
                    Ok(p) => {
                        let v = self.engine.evaluate(&p);
                        self.say(&format!("info string eval {v}"));
                    }
                    Err(e) => self.error(&e),
                }
            }
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
                let depth = depth.unwrap_or(crate::search::bench::BENCH_DEPTH);
                let (out, threads) = (self.out.clone(), self.engine.options.threads);
                self.start_job(Job::Diagnostic, false, |e, done| {
                    e.bench(
                        depth,
                        Box::new(move |r| {
                            match r {
                                Some(r) => {
                                    let nps = r.nodes as f64 / r.elapsed.as_secs_f64().max(1e-9);
                                    out.line(&format!(
                                        "info string bench depth {depth} threads {threads} nodes {} time {} ms nps {nps:.0}",
                                        r.nodes,
                                        r.elapsed.as_millis(),
                                    ));
                                }
                                None => out.line("info string bench stopped"),
                            }
                            done()
                        }),
                    )
                });
            }
        }
        true
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
        let out = self.out.clone();
        match kind {
            GoKind::Perft(depth) => {
                // A failed start has been reported; `go perft` owes no other answer.
                self.start_job(Job::Diagnostic, false, |e, done| {
                    e.perft(
                        pos,
                        depth,
                        Box::new(move |r| {
                            match r {
                                Some(r) => {
                                    let mut total = 0;
                                    for (m, n) in r.divide {
                                        out.line(&format!("{m}: {n}"));
                                        total += n;
                                    }
                                    let secs = r.elapsed.as_secs_f64();
                                    let nps = total as f64 / secs.max(1e-9);
                                    out.line(&format!("info string perft time {secs:.3} s nps {nps:.0}"));
                                    out.line(&format!("Nodes searched: {total}"));
                                }
                                None => out.line("info string perft stopped"),
                            }
                            done()
                        }),
                    )
                });
            }
            GoKind::Mate(mate) => {
                let limits = MateLimits {
                    time: mate.time_ms.map(Duration::from_millis),
                    nodes: mate.nodes,
                    ..MateLimits::default()
                };
                let reporter = self.reporter();
                let started = self.start_job(Job::Diagnostic, mate.is_infinite(), |e, done| {
                    e.go_mate(
                        pos,
                        limits,
                        reporter,
                        Box::new(move |r| {
                            let ms = r.elapsed.as_millis() as u64;
                            let nps = r.nodes * 1000 / ms.max(1);
                            out.line(&format!("info time {ms} nodes {} nps {nps} hashfull {}", r.nodes, r.hashfull));
                            out.line(&r.answer.to_usi());
                            done()
                        }),
                    )
                });
                if !started {
                    // The GUI still waits for an answer.
                    self.say("checkmate timeout");
                }
            }
            GoKind::Search(mut limits) => {
                // NodesLimit turns clock searches into fixed-node ones: matches and tests that
                // must not depend on machine speed or load.
                let n = self.engine.options.nodes_limit;
                if n > 0 && limits.uses_clock() && limits.nodes.is_none() && limits.depth.is_none() {
                    limits = Limits { nodes: Some(n), ponder: limits.ponder, ..Default::default() };
                }
                let holds = limits.infinite || limits.ponder;
                let start = match clock {
                    ClockStart::Arrival(at) => at,
                    ClockStart::WhenRun => Instant::now(),
                };
                let reporter = self.reporter();
                if !self.start_job(Job::Search, holds, |e, done| e.go(pos, limits, reporter, done, start)) {
                    // No thread, no search: answer so that the GUI does not wait forever.
                    self.say("bestmove resign");
                }
            }
        }
    }
}
