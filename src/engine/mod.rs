//! The engine facade: the options, the tables (`tables.rs`, one policy for all of them) and
//! every piece of work that the protocol layer and the command-line tools ask for: searches
//! (`go`, and `search` which waits for the answer), mate searches, `perft`, `bench`, and getting
//! ready (`prepare`) or starting a new game.
//!
//! Work runs on a job thread of its own, one job at a time, and never blocks the caller: reports
//! come through callbacks (`Reporter`, and a closure called when the job ends), and `stop`,
//! `ponderhit` and `Stopper` reach the job under way from any thread. All text I/O belongs to
//! the callers.

pub mod options;
mod tables;

use crate::book::BookPolicy;
use crate::eval::Value;
use crate::mate::{MateLimits, MateReport, SOLVER_STACK_BYTES};
use crate::search::bench::BENCH_POSITIONS;
use crate::search::{
    self, BestMove, Control, Evaluator, Limits, NullReporter, Reporter, SEARCH_STACK_BYTES, Score, SearchConfig,
    SearchInfo, SearchJob, StopSignal,
};
use crate::shogi::{Move, MoveList, Position, movegen};
pub use options::{EngineOptions, OptionError};
use parking_lot::Mutex;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tables::Tables;

/// Called on the job thread when a job has ended (after its last report).
pub type Done = Box<dyn FnOnce() + Send>;

/// Table size of `bench` (MiB): fixed, so that its node count does not depend on `USI_Hash`.
pub const BENCH_HASH_MIB: usize = 16;

/// What a search found (for callers that wait for it).
#[derive(Clone, Debug)]
pub struct SearchOutcome {
    pub best: BestMove,
    /// The best move's score, side to move's view (`None` without a search).
    pub score: Option<Value>,
    pub nodes: u64,
    pub depth: i32,
}

/// Result of `bench`: total nodes (the search signature) and the time it took.
#[derive(Clone, Copy, Debug)]
pub struct BenchResult {
    pub nodes: u64,
    pub elapsed: Duration,
}

/// Result of `perft`: the count below each root move, and the time it took.
#[derive(Clone, Debug)]
pub struct PerftResult {
    pub divide: Vec<(Move, u64)>,
    pub elapsed: Duration,
}

pub struct Engine {
    pub options: EngineOptions,
    tables: Arc<Mutex<Tables>>,
    /// A `gameover` came since the tables were last prepared.
    game_over: bool,
    job: Option<JoinHandle<()>>,
    /// The stop handle of the latest job, shared with `Stopper`s.
    signal: Arc<Mutex<Arc<StopSignal>>>,
}

/// Stops the engine's latest job from any thread (see `Engine::stopper`).
#[derive(Clone)]
pub struct Stopper(Arc<Mutex<Arc<StopSignal>>>);

impl Stopper {
    /// Stops the latest job; returns the bestmove for the caller to give at once, if a search
    /// had one ready (see `Control::stop_and_take_answer`).
    pub fn stop(&self) -> Option<BestMove> {
        let signal = self.0.lock().clone();
        signal.stop_and_take_answer()
    }
}

/// The answer when the search failed or has not started yet: the first legal move, or
/// `resign` without one.
fn emergency_move(root: &Position) -> BestMove {
    let mut list = MoveList::new();
    movegen::generate_legal(root, &mut list);
    list.first().map_or(BestMove::Resign, |&mv| BestMove::Move { mv, ponder: None })
}

/// The text of a caught panic.
fn panic_text(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// One search with the tables' table (of `hash_mib`) and thread data: the runner behind
/// every search the engine makes.
#[allow(clippy::too_many_arguments)]
fn run_search(
    tables: &mut Tables,
    hash_mib: usize,
    root: Position,
    limits: Limits,
    config: SearchConfig,
    control: Arc<Control>,
    start: Instant,
    reporter: &dyn Reporter,
) -> SearchOutcome {
    let (tt, err) = tables.for_search(hash_mib);
    if let Some(e) = err {
        reporter.message(&format!("error: {e}; using {} MiB", tt.size_mib()));
    }
    let threads = std::mem::take(&mut tables.threads);
    let result = search::run(SearchJob { root, limits, config, tt, control, threads, start }, reporter);
    tables.threads = result.threads;
    SearchOutcome { best: result.best, score: result.score, nodes: result.nodes, depth: result.depth }
}

/// What the search evaluates with: the tables' network with the divisor `fv_scale`, or the
/// linear evaluation without one.
fn evaluator(tables: &Tables, fv_scale: i32) -> Evaluator {
    match tables.network() {
        Some(network) => Evaluator::Nnue { network: network.clone(), fv_scale },
        None => Evaluator::Linear,
    }
}

/// Answers with a book move when the tables' book has one for `root` under `policy`.
fn play_from_book(
    tables: &Tables,
    policy: &BookPolicy,
    root: &Position,
    limits: &Limits,
    control: &Control,
    reporter: &dyn Reporter,
) -> Option<SearchOutcome> {
    let book = tables.book()?;
    // Any varying number does: the choice only has to differ from game to game.
    let random = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let (m, candidates) = book.choose(root, policy, random.wrapping_mul(0x9e37_79b9_7f4a_7c15))?;
    reporter.message(&format!(
        "book move {} (value {} depth {} count {}; {candidates} candidates)",
        m.mv, m.value, m.depth, m.count
    ));
    let pv: Vec<Move> = std::iter::once(m.mv).chain(m.ponder).collect();
    reporter.info(&SearchInfo {
        depth: m.depth.max(1),
        seldepth: m.depth.max(1),
        multipv: 1,
        score: Score::Cp(m.value),
        bound: None,
        nodes: 0,
        nps: 0,
        time_ms: 0,
        hashfull: 0,
        pv,
    });
    let best = BestMove::Move { mv: m.mv, ponder: m.ponder };
    let best = search::answer_without_search(control, limits, reporter, best, Some(m.value));
    Some(SearchOutcome { best, score: Some(m.value), nodes: 0, depth: 0 })
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    pub fn new() -> Engine {
        Engine::with_options(EngineOptions::default())
    }

    pub fn with_options(options: EngineOptions) -> Engine {
        Engine {
            options,
            tables: Arc::new(Mutex::new(Tables::default())),
            game_over: false,
            job: None,
            signal: Arc::new(Mutex::new(Arc::new(StopSignal::default()))),
        }
    }

    /// Runs `work` on a job thread with the tables, after the previous job ended. `finish` gets
    /// what it returned, or the text of its panic (a bug): the thread then still gives the
    /// caller its answer. Fails only when no thread can be started (nothing runs then).
    fn spawn<R: 'static>(
        &mut self,
        name: &str,
        stack_bytes: usize,
        signal: Arc<StopSignal>,
        work: impl FnOnce(&mut Tables, &StopSignal) -> R + Send + 'static,
        finish: impl FnOnce(Result<R, String>) + Send + 'static,
    ) -> std::io::Result<()> {
        self.wait();
        *self.signal.lock() = signal.clone();
        let tables = self.tables.clone();
        let handle = std::thread::Builder::new().name(name.into()).stack_size(stack_bytes).spawn(move || {
            let result = {
                let mut tables = tables.lock();
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&mut tables, &signal)))
            };
            finish(result.map_err(panic_text));
        })?;
        self.job = Some(handle);
        Ok(())
    }

    /// Gets ready (`isready`): the table of `USI_Hash` allocated and written, a finished game's
    /// entries gone, the book of `BookFile` read. Errors are reported as messages; `done`
    /// comes when all is ready.
    pub fn prepare(&mut self, reporter: Arc<dyn Reporter>, done: Done) -> std::io::Result<()> {
        let book_path = self.options.book_path().map(str::to_string);
        let network = options::NetworkSource::from_options(self.options.built_in_network, &self.options.eval_dir);
        // Writing memory is limited by the machine, not by the search's thread count.
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let want = self.options.hash_mib;
        let game_over = std::mem::take(&mut self.game_over);
        let rep = reporter.clone();
        self.spawn(
            "prepare",
            SEARCH_STACK_BYTES,
            Arc::default(),
            move |tables, _| {
                if game_over {
                    tables.game_over();
                }
                if let Some(e) = tables.prepare(want, threads) {
                    rep.message(&format!("error: {e}; using {} MiB", crate::tt::TranspositionTable::FALLBACK_MIB));
                }
                match (tables.load_network(network.as_ref()), &network) {
                    (Some(Ok(net)), Some(source)) => {
                        let kernels = crate::nnue::Backend::detect().name();
                        rep.message(&format!("NNUE {source}: {}, kernels {kernels}", net.description()))
                    }
                    (Some(Err(e)), _) => rep.message(&format!("error: EvalDir: {e}; the evaluation stays as it was")),
                    _ => {}
                }
                match (tables.load_book(book_path.as_deref()), &book_path) {
                    (Some(Ok(book)), Some(path)) => {
                        let skipped = match book.illegal_moves {
                            0 => String::new(),
                            n => format!(", {n} illegal moves left out"),
                        };
                        rep.message(&format!("book {path}: {} positions{skipped}", book.len()));
                    }
                    (Some(Err(e)), Some(path)) => {
                        rep.message(&format!("error: BookFile {path}: {e}; playing without a book"))
                    }
                    _ => {}
                }
            },
            move |r| {
                if let Err(what) = r {
                    reporter.message(&format!("error: internal error while getting ready ({what})"));
                }
                done();
            },
        )
    }

    /// `prepare` for callers that wait: returns its messages (errors start with `error: `).
    pub fn prepare_and_wait(&mut self) -> Vec<String> {
        struct Messages(Mutex<Vec<String>>);
        impl Reporter for Messages {
            fn info(&self, _: &SearchInfo) {}
            fn bestmove(&self, _: &BestMove, _: Option<Value>) {}
            fn message(&self, text: &str) {
                self.0.lock().push(text.to_string());
            }
        }
        let messages = Arc::new(Messages(Mutex::new(Vec::new())));
        if let Err(e) = self.prepare(messages.clone(), Box::new(|| {})) {
            return vec![format!("error: cannot start a thread: {e}")];
        }
        self.wait();
        std::mem::take(&mut *messages.0.lock())
    }

    /// A new game: what earlier games taught the search (histories, a table searched in) is
    /// forgotten. Runs as a job, since emptying a large table takes a while.
    pub fn new_game(&mut self, done: Done) -> std::io::Result<()> {
        self.game_over = false;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.spawn("new game", SEARCH_STACK_BYTES, Arc::default(), move |t, _| t.new_game(threads), move |_| done())
    }

    /// The game is over: its table entries are emptied at the next `prepare`.
    pub fn game_over(&mut self) {
        self.game_over = true;
    }

    /// Starts a search and returns at once. `reporter` receives info lines and the bestmove;
    /// `done` runs on the search thread after the bestmove. The clock runs from `start` (when
    /// `go` arrived).
    ///
    /// A position in the opening book (`USI_OwnBook`, `BookFile`, read at `prepare`) is
    /// answered with a book move at once, with an `info` line that says so.
    pub fn go(
        &mut self,
        root: Position,
        limits: Limits,
        reporter: Arc<dyn Reporter>,
        done: Done,
        start: Instant,
    ) -> std::io::Result<()> {
        let book = self.options.own_book.then_some(BookPolicy {
            last_ply: self.options.book_moves,
            eval_diff: self.options.book_eval_diff,
            ignore_ply: self.options.ignore_book_ply,
        });
        self.start_search(root, limits, reporter, start, book, Box::new(|_| done()))
    }

    /// A search that returns its outcome (analysis, self-play): `go`, then wait for it.
    pub fn search(&mut self, root: Position, limits: Limits, reporter: Arc<dyn Reporter>) -> SearchOutcome {
        let fallback = SearchOutcome { best: emergency_move(&root), score: None, nodes: 0, depth: 0 };
        let slot = Arc::new(Mutex::new(None));
        let out = slot.clone();
        let _ = self.start_search(root, limits, reporter, Instant::now(), None, Box::new(move |o| *out.lock() = o));
        self.wait();
        slot.lock().take().unwrap_or(fallback)
    }

    /// The search job behind `go` and `search`, looking in the book first when `book` says how;
    /// `done` gets its outcome (`None` after a panic).
    ///
    /// A panic inside the search (a bug) is caught on the search thread: it is reported as
    /// `error: ...` and the first legal move is played (`resign` without one), so the GUI still
    /// gets its bestmove and the engine its next command.
    fn start_search(
        &mut self,
        root: Position,
        limits: Limits,
        reporter: Arc<dyn Reporter>,
        start: Instant,
        book: Option<BookPolicy>,
        done: Box<dyn FnOnce(Option<SearchOutcome>) + Send>,
    ) -> std::io::Result<()> {
        let control = Control::new();
        if limits.ponder || limits.infinite {
            control.hold.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        // An answer for a `stop` that comes before the search thread gets going (on a loaded
        // machine that can take a while): any legal move beats none. The search replaces it
        // with better ones as it goes.
        control.publish(emergency_move(&root));
        let signal = Arc::new(StopSignal::for_search(&control));
        let (mut config, hash, fv_scale) = (self.options.search_config(), self.options.hash_mib, self.options.fv_scale);
        let (guard, fallback_root, rep) = (control.clone(), root.clone(), reporter.clone());
        self.spawn(
            "search",
            SEARCH_STACK_BYTES,
            signal,
            move |tables, _| {
                if let Some(policy) = book
                    && let Some(outcome) = play_from_book(tables, &policy, &root, &limits, &control, rep.as_ref())
                {
                    return outcome;
                }
                config.evaluator = evaluator(tables, fv_scale);
                run_search(tables, hash, root, limits, config, control, start, rep.as_ref())
            },
            move |r| match r {
                Ok(outcome) => done(Some(outcome)),
                Err(what) => {
                    if guard.claim_answer() {
                        reporter
                            .message(&format!("error: internal error in the search ({what}); playing a legal move"));
                        let best = guard.answer().unwrap_or_else(|| emergency_move(&fallback_root));
                        reporter.bestmove(&best, None);
                    }
                    done(None)
                }
            },
        )
    }

    /// Starts the mate search of `go mate` (its own table, see `tables.rs`); `done` gets its
    /// report (`Timeout` if it failed).
    pub fn go_mate(
        &mut self,
        pos: Position,
        limits: MateLimits,
        reporter: Arc<dyn Reporter>,
        done: Box<dyn FnOnce(MateReport) + Send>,
    ) -> std::io::Result<()> {
        let hash = self.options.hash_mib;
        let rep = reporter.clone();
        self.spawn(
            "mate",
            SOLVER_STACK_BYTES,
            Arc::default(),
            move |tables, stop| {
                let (solver, err) = match tables.mate_solver(hash) {
                    Ok(s) => s,
                    Err(e) => {
                        rep.message(&format!("error: mate search: {e}"));
                        return None;
                    }
                };
                if let Some(e) = err {
                    rep.message(&format!("error: {e}; using {} MiB for the mate search", solver.hash_mib()));
                }
                Some(solver.solve(&pos, &limits, stop.flag()))
            },
            move |r| {
                let report = match r {
                    Ok(Some(report)) => report,
                    Ok(None) => MateReport::timeout(),
                    Err(what) => {
                        reporter.message(&format!("error: internal error in the mate search ({what})"));
                        MateReport::timeout()
                    }
                };
                done(report)
            },
        )
    }

    /// Starts counting the legal move sequences of `depth` plies below each move of `pos`;
    /// `done` gets the counts (`None` when stopped).
    pub fn perft(
        &mut self,
        pos: Position,
        depth: u32,
        done: Box<dyn FnOnce(Option<PerftResult>) + Send>,
    ) -> std::io::Result<()> {
        self.spawn(
            "perft",
            SEARCH_STACK_BYTES,
            Arc::default(),
            move |_, stop| {
                let mut pos = pos;
                let start = Instant::now();
                let divide = movegen::perft_divide_until(&mut pos, depth, stop.flag())?;
                Some(PerftResult { divide, elapsed: start.elapsed() })
            },
            move |r| done(r.ok().flatten()),
        )
    }

    /// Starts `bench`: every bench position searched to `depth` with `Threads` threads, each with
    /// fresh tables of `BENCH_HASH_MIB` (not the engine's). `done` gets the result (`None` when
    /// stopped).
    pub fn bench(&mut self, depth: i32, done: Box<dyn FnOnce(Option<BenchResult>) + Send>) -> std::io::Result<()> {
        let mut config = self.options.search_config();
        config.multipv = 1;
        let fv_scale = self.options.fv_scale;
        self.spawn(
            "bench",
            SEARCH_STACK_BYTES,
            Arc::default(),
            move |tables, stop| {
                // The engine's evaluation (the network read at `prepare`, if any).
                config.evaluator = evaluator(tables, fv_scale);
                let start = Instant::now();
                let mut nodes = 0;
                for sfen in BENCH_POSITIONS {
                    let root = Position::from_sfen(sfen).expect("bench positions are valid");
                    let control = Control::new();
                    if !stop.attach(&control) {
                        return None;
                    }
                    let limits = Limits { depth: Some(depth), ..Limits::default() };
                    let mut fresh = Tables::default();
                    let o = run_search(
                        &mut fresh,
                        BENCH_HASH_MIB,
                        root,
                        limits,
                        config.clone(),
                        control,
                        Instant::now(),
                        &NullReporter,
                    );
                    nodes += o.nodes;
                }
                (!stop.is_stopped()).then(|| BenchResult { nodes, elapsed: start.elapsed() })
            },
            move |r| done(r.ok().flatten()),
        )
    }

    /// The static evaluation of `pos` from the side to move's view, as the search sees it: the
    /// network read at `prepare` divided by `FV_SCALE` (YaneuraOu's `e` command gives the same
    /// number), or the linear evaluation without one or where the network cannot evaluate.
    /// Waits for a running job.
    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        self.wait();
        let network = self.tables.lock().network().cloned();
        network.and_then(|n| n.evaluate(pos, self.options.fv_scale)).unwrap_or_else(|| crate::eval::evaluate(pos))
    }

    /// A handle that stops the latest job from another thread (the USI input thread uses it to
    /// act on `stop` without waiting for the protocol loop).
    pub fn stopper(&self) -> Stopper {
        Stopper(self.signal.clone())
    }

    /// Whether the latest search gave its bestmove (it may still be finishing).
    pub fn is_answered(&self) -> bool {
        self.signal.lock().is_answered()
    }

    /// Asks the running job (if any) to stop; a search reports its bestmove shortly.
    pub fn stop(&self) {
        self.signal.lock().stop();
    }

    pub fn ponderhit(&self, limits: Option<Limits>) {
        self.signal.lock().ponderhit(limits);
    }

    /// Waits for the running job to end (after `stop`, within milliseconds).
    pub fn wait(&mut self) {
        if let Some(h) = self.job.take() {
            let _ = h.join();
        }
    }
}
