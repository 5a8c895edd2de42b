//! The engine facade: options, the transposition table, the current position and a
//! non-blocking `go` / `stop` / `ponderhit`. The protocol layer drives it and owns all I/O.

use crate::search::{self, BestMove, Control, Limits, Reporter, SearchConfig, SearchJob, ThreadData, TimeOptions};
use crate::shogi::{EnteringKingRule, Position};
use crate::tt::{AllocError, TranspositionTable};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Engine options (the USI layer maps `setoption` onto these).
#[derive(Clone, Debug, PartialEq)]
pub struct EngineOptions {
    pub hash_mib: usize,
    pub threads: usize,
    pub multipv: usize,
    pub ponder: bool,
    pub network_delay: u64,
    pub minimum_thinking_time: u64,
    pub resign_value: i32,
    pub draw_value: i32,
    pub entering_king_rule: EnteringKingRule,
    pub max_moves_to_draw: u32,
    /// When non-zero, searches under a clock search exactly this many nodes instead.
    pub nodes_limit: u64,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            hash_mib: 256,
            threads: 1,
            multipv: 1,
            ponder: false,
            network_delay: 40,
            minimum_thinking_time: 20,
            resign_value: 10_000,
            draw_value: 0,
            entering_king_rule: EnteringKingRule::CSARule27,
            max_moves_to_draw: 0,
            nodes_limit: 0,
        }
    }
}

impl EngineOptions {
    /// The search settings these options stand for (shared by USI mode and `analyze`).
    pub fn search_config(&self) -> SearchConfig {
        SearchConfig {
            threads: self.threads.max(1),
            multipv: self.multipv.max(1),
            time: TimeOptions { network_delay: self.network_delay, minimum_thinking_time: self.minimum_thinking_time },
            draw_value: self.draw_value,
            resign_value: self.resign_value,
            entering_king_rule: self.entering_king_rule,
            max_moves_to_draw: self.max_moves_to_draw,
        }
    }
}

pub struct Engine {
    pub options: EngineOptions,
    tt: Option<Arc<TranspositionTable>>,
    tt_mib: usize,
    /// Whether a search wrote into the table since it was allocated or cleared.
    tt_used: bool,
    /// A table being allocated in the background (size, worker).
    pending_tt: Option<(usize, JoinHandle<Result<TranspositionTable, AllocError>>)>,
    /// A table the search thread finished allocating, handed back to the engine.
    incoming_tt: Arc<parking_lot::Mutex<Option<SizedTable>>>,
    /// A size that could not be allocated: not tried again (the fallback table stays) until
    /// `USI_Hash` changes, so the search keeps its table and the error is reported once.
    failed_mib: Option<usize>,
    thread_data: Arc<parking_lot::Mutex<Vec<ThreadData>>>,
    /// The flags of the latest search, shared with `Stopper`s.
    control: Arc<parking_lot::Mutex<Arc<Control>>>,
    handle: Option<JoinHandle<()>>,
}

/// Stops the engine's latest search from any thread (see `Engine::stopper`).
#[derive(Clone)]
pub struct Stopper(Arc<parking_lot::Mutex<Arc<Control>>>);

impl Stopper {
    /// Stops the latest search; returns the bestmove for the caller to give at once, if the
    /// search had one ready (see `Control::stop_and_take_answer`).
    pub fn stop(&self) -> Option<BestMove> {
        self.0.lock().stop_and_take_answer()
    }
}

/// A table, its size in MiB, and the size asked for when that failed.
type SizedTable = (usize, Arc<TranspositionTable>, Option<usize>);

/// Where a search gets its table: already there, or still being allocated.
enum TableSource {
    Ready(Arc<TranspositionTable>),
    Pending((usize, JoinHandle<Result<TranspositionTable, AllocError>>)),
}

/// Waits for a background allocation; on failure falls back to a small table (1 MiB always
/// fits). Returns the table, its size and the error if the wanted size failed.
fn finish_allocation(
    mib: usize,
    handle: JoinHandle<Result<TranspositionTable, AllocError>>,
) -> (TranspositionTable, usize, Option<AllocError>) {
    match handle.join().unwrap_or(Err(AllocError { mib, machine_mib: None })) {
        Ok(tt) => (tt, mib, None),
        Err(e) => match TranspositionTable::new(16) {
            Ok(t) => (t, 16, Some(e)),
            // Without even 1 MiB the process cannot go on; the search thread's panic guard
            // still answers the GUI.
            Err(_) => (TranspositionTable::new(1).expect("a 1 MiB table"), 1, Some(e)),
        },
    }
}

/// The answer when the search failed or has not started yet: the first legal move, or
/// `resign` without one.
fn emergency_move(root: &Position) -> BestMove {
    let mut list = crate::shogi::MoveList::new();
    crate::shogi::movegen::generate_legal(root, &mut list);
    list.first().map_or(BestMove::Resign, |&mv| BestMove::Move { mv, ponder: None })
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    pub fn new() -> Engine {
        Engine {
            options: EngineOptions::default(),
            tt: None,
            tt_mib: 0,
            tt_used: false,
            pending_tt: None,
            incoming_tt: Arc::new(parking_lot::Mutex::new(None)),
            failed_mib: None,
            thread_data: Arc::new(parking_lot::Mutex::new(Vec::new())),
            control: Arc::new(parking_lot::Mutex::new(Control::new())),
            handle: None,
        }
    }

    /// Starts allocating the hash table of the configured size in the background, if it is
    /// not already there or on its way. Zeroing hundreds of MiB takes a noticeable time;
    /// `isready` need not wait for it (the first search does).
    pub fn prepare_async(&mut self) {
        self.take_incoming();
        let want = self.options.hash_mib;
        if self.tt.is_some() && (self.tt_mib == want || self.failed_mib == Some(want)) {
            return;
        }
        if let Some((mib, _)) = &self.pending_tt
            && *mib == want
        {
            return;
        }
        if let Some((_, h)) = self.pending_tt.take() {
            let _ = h.join(); // an outdated size: let it finish and drop it
        }
        self.tt = None; // free the old table before allocating the new one
        self.tt_mib = 0;
        let handle = std::thread::spawn(move || TranspositionTable::new(want));
        self.pending_tt = Some((want, handle));
    }

    /// Picks up a table that the search thread finished allocating.
    fn take_incoming(&mut self) {
        if let Some((mib, tt, failed)) = self.incoming_tt.lock().take() {
            self.tt = Some(tt);
            self.tt_mib = mib;
            self.tt_used = true;
            self.failed_mib = failed;
        }
    }

    /// Makes sure the hash table exists (waiting for a background allocation). On failure
    /// falls back to a small table and reports the error.
    pub fn prepare(&mut self) -> Result<(), AllocError> {
        self.prepare_async();
        let Some((mib, handle)) = self.pending_tt.take() else {
            return Ok(());
        };
        let (tt, got, err) = finish_allocation(mib, handle);
        self.tt = Some(Arc::new(tt));
        self.tt_mib = got;
        self.tt_used = false;
        self.failed_mib = err.as_ref().map(|_| mib);
        err.map_or(Ok(()), Err)
    }

    /// Forgets what previous games taught the search (TT and histories). A used table is
    /// replaced by a fresh one from the allocator (zeroed lazily by the OS, see `tt.rs`) rather
    /// than cleared in place: writing a table of many GiB would hold up the protocol loop for
    /// seconds, and `quit` with it.
    ///
    /// The new table is allocated here rather than in the background: from lazily zeroed
    /// memory that takes microseconds, while a background thread may wait for a CPU on a
    /// loaded machine, and the first search of the game with it.
    pub fn new_game(&mut self) {
        self.take_incoming();
        if self.tt_used && self.tt.take().is_some() {
            let want = self.tt_mib;
            self.tt_mib = 0;
            match TranspositionTable::new(want) {
                Ok(tt) => {
                    self.tt = Some(Arc::new(tt));
                    self.tt_mib = want;
                }
                // Let the usual path try again and report at the next search.
                Err(_) => self.prepare_async(),
            }
        }
        self.tt_used = false;
        self.thread_data.lock().clear();
    }

    pub fn is_searching(&self) -> bool {
        self.handle.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// Starts a search and returns at once. `reporter` receives info lines and the bestmove;
    /// `on_done` runs on the search thread after the bestmove. The clock runs from `start`
    /// (when `go` arrived). Fails only when no thread can be started.
    ///
    /// A panic inside the search (a bug) is caught on the search thread: it is reported as
    /// `error: ...` and the first legal move is played (`resign` without one), so the GUI still
    /// gets its bestmove and the engine its next command.
    pub fn go(
        &mut self,
        root: Position,
        limits: Limits,
        reporter: Arc<dyn Reporter>,
        on_done: Box<dyn FnOnce() + Send>,
        start: std::time::Instant,
    ) -> std::io::Result<()> {
        self.wait();
        // A table still being allocated is waited for on the search thread, so the protocol
        // loop stays free, and that wait counts as thinking time.
        self.prepare_async();
        let source = match (self.pending_tt.take(), self.tt.clone()) {
            (Some(pending), _) => TableSource::Pending(pending),
            (None, Some(tt)) => TableSource::Ready(tt),
            // prepare_async leaves a table or a pending one; should that ever change, allocate.
            (None, None) => {
                let want = self.options.hash_mib;
                TableSource::Pending((want, std::thread::spawn(move || TranspositionTable::new(want))))
            }
        };
        self.tt_used = true;
        let incoming = self.incoming_tt.clone();
        let control = Control::new();
        if limits.ponder || limits.infinite {
            control.hold.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        // An answer for a `stop` that comes before the search thread gets going (on a loaded
        // machine that can take a while): any legal move beats none. The search replaces it
        // with better ones as it goes.
        control.publish(emergency_move(&root));
        *self.control.lock() = control.clone();
        let guard_control = control.clone();
        let config = self.options.search_config();
        let data_slot = self.thread_data.clone();
        let threads = std::mem::take(&mut *data_slot.lock());
        let spawned = std::thread::Builder::new().name("search".into()).stack_size(16 << 20).spawn(move || {
            let fallback_root = root.clone();
            let guarded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let tt = match source {
                    TableSource::Ready(tt) => tt,
                    TableSource::Pending((mib, handle)) => {
                        let (tt, got, err) = finish_allocation(mib, handle);
                        if let Some(e) = &err {
                            reporter.message(&format!("error: {e}; using {got} MiB"));
                        }
                        let tt = Arc::new(tt);
                        *incoming.lock() = Some((got, tt.clone(), err.map(|_| mib)));
                        tt
                    }
                };
                let job = SearchJob { root, limits, config, tt, control, threads, start };
                search::run(job, reporter.as_ref())
            }));
            match guarded {
                Ok(result) => *data_slot.lock() = result.threads,
                Err(panic) => {
                    let what = panic
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_default();
                    if guard_control.claim_answer() {
                        reporter
                            .message(&format!("error: internal error in the search ({what}); playing a legal move"));
                        let best = guard_control.answer().unwrap_or_else(|| emergency_move(&fallback_root));
                        reporter.bestmove(&best, None);
                    }
                }
            }
            on_done();
        })?;
        self.handle = Some(spawned);
        Ok(())
    }

    /// A handle that stops the latest search from another thread (the USI input thread uses
    /// it to act on `stop` without waiting for the protocol loop).
    pub fn stopper(&self) -> Stopper {
        Stopper(self.control.clone())
    }

    /// Whether the latest search gave its bestmove (it may still be finishing).
    pub fn is_answered(&self) -> bool {
        self.control.lock().is_answered()
    }

    /// Asks the running search (if any) to stop; it reports its bestmove shortly.
    pub fn stop(&self) {
        self.control.lock().stop();
    }

    pub fn ponderhit(&self, limits: Option<Limits>) {
        self.control.lock().ponderhit(limits);
    }

    /// Waits for the running search to finish (after `stop`, within milliseconds).
    pub fn wait(&mut self) {
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }

    /// Current hash table, allocating it if needed (waits for a pending allocation).
    pub fn tt(&mut self) -> Option<Arc<TranspositionTable>> {
        let _ = self.prepare();
        self.tt.clone()
    }
}
