//! The engine facade: options, the transposition table, the current position and a
//! non-blocking `go` / `stop` / `ponderhit`. The protocol layer drives it and owns all I/O.

use crate::search::{self, Control, Limits, Reporter, SearchConfig, SearchJob, ThreadData, TimeOptions};
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
    thread_data: Arc<parking_lot::Mutex<Vec<ThreadData>>>,
    control: Arc<Control>,
    handle: Option<JoinHandle<()>>,
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
            thread_data: Arc::new(parking_lot::Mutex::new(Vec::new())),
            control: Control::new(),
            handle: None,
        }
    }

    /// Allocates the hash table if its size changed. On failure keeps the old table (or a
    /// small one) and reports the error.
    pub fn prepare(&mut self) -> Result<(), AllocError> {
        if self.tt.is_some() && self.tt_mib == self.options.hash_mib {
            return Ok(());
        }
        self.tt = None; // free the old table before allocating the new one
        match TranspositionTable::new(self.options.hash_mib) {
            Ok(tt) => {
                self.tt = Some(Arc::new(tt));
                self.tt_mib = self.options.hash_mib;
                Ok(())
            }
            Err(e) => {
                // Fall back to a small table; 1 MiB always fits.
                let (tt, mib) = match TranspositionTable::new(16) {
                    Ok(t) => (t, 16),
                    Err(_) => (TranspositionTable::new(1).expect("a 1 MiB table"), 1),
                };
                self.tt = Some(Arc::new(tt));
                self.tt_mib = mib;
                self.options.hash_mib = mib;
                Err(e)
            }
        }
    }

    /// Forgets what previous games taught the search (TT and histories).
    pub fn new_game(&mut self) {
        if let Some(tt) = &self.tt {
            tt.clear();
        }
        self.thread_data.lock().clear();
    }

    pub fn is_searching(&self) -> bool {
        self.handle.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// Starts a search and returns at once. `reporter` receives info lines and the bestmove;
    /// `on_done` runs on the search thread after the bestmove.
    pub fn go(
        &mut self,
        root: Position,
        limits: Limits,
        reporter: Arc<dyn Reporter>,
        on_done: Box<dyn FnOnce() + Send>,
    ) -> Result<(), AllocError> {
        self.wait();
        let alloc = self.prepare();
        let tt = self.tt.clone().expect("prepare always leaves a table");
        let control = Control::new();
        if limits.ponder || limits.infinite {
            control.hold.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        self.control = control.clone();
        let config = self.options.search_config();
        let data_slot = self.thread_data.clone();
        let threads = std::mem::take(&mut *data_slot.lock());
        let job = SearchJob { root, limits, config, tt, control, threads };
        let handle = std::thread::Builder::new()
            .name("search".into())
            .stack_size(16 << 20)
            .spawn(move || {
                let result = search::run(job, reporter.as_ref());
                *data_slot.lock() = result.threads;
                on_done();
            })
            .expect("spawn the search thread");
        self.handle = Some(handle);
        alloc
    }

    /// Asks the running search (if any) to stop; it reports its bestmove shortly.
    pub fn stop(&self) {
        self.control.stop();
    }

    pub fn ponderhit(&self, limits: Option<Limits>) {
        self.control.ponderhit(limits);
    }

    /// Waits for the running search to finish (after `stop`, within milliseconds).
    pub fn wait(&mut self) {
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }

    /// Current hash table, allocating it if needed.
    pub fn tt(&mut self) -> Option<Arc<TranspositionTable>> {
        let _ = self.prepare();
        self.tt.clone()
    }
}
