//! The flags that start, hold, release and stop a search, shared between the protocol layer
//! (or any caller) and the search threads.

use super::{BestMove, Limits};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Flags shared between the protocol layer and the search threads.
#[derive(Default)]
pub struct Control {
    pub stop: AtomicBool,
    /// While set (pondering or `go infinite`), a finished search holds back its bestmove.
    pub hold: AtomicBool,
    /// Set by `ponderhit` (and cleared by the main thread when it takes notice).
    pub(super) ponderhit: AtomicBool,
    /// When `ponderhit` came (the clock starts then) and the clock values it brought.
    pub(super) ponderhit_info: parking_lot::Mutex<Option<(Instant, Option<Limits>)>>,
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

/// The stop handle of one piece of work run for a caller (a search, several searches as in
/// `bench`, or none as in `perft` and the mate search), shared with other threads. The flag
/// ends the work; the search under way, if any, is reached through its `Control`.
#[derive(Default)]
pub struct StopSignal {
    flag: AtomicBool,
    current: parking_lot::Mutex<Option<Arc<Control>>>,
    /// The search's bestmove is the caller's answer (a `go`), so `stop_and_take_answer` may
    /// give it; the searches of `bench` answer nobody.
    answers: bool,
}

impl StopSignal {
    /// The signal of one search whose bestmove answers the caller.
    pub fn for_search(control: &Arc<Control>) -> StopSignal {
        StopSignal {
            flag: AtomicBool::new(false),
            current: parking_lot::Mutex::new(Some(control.clone())),
            answers: true,
        }
    }

    pub fn stop(&self) {
        self.flag.store(true, Ordering::SeqCst);
        if let Some(c) = &*self.current.lock() {
            c.stop();
        }
    }

    /// Stops the work; when a search under way has an answer ready that nobody gave yet,
    /// returns it for the caller to give at once (see `Control::stop_and_take_answer`).
    pub fn stop_and_take_answer(&self) -> Option<BestMove> {
        if !self.answers {
            self.stop();
            return None;
        }
        self.flag.store(true, Ordering::SeqCst);
        let current = self.current.lock().clone();
        current.and_then(|c| c.stop_and_take_answer())
    }

    /// `ponderhit` for the search under way.
    pub fn ponderhit(&self, limits: Option<Limits>) {
        if let Some(c) = &*self.current.lock() {
            c.ponderhit(limits);
        }
    }

    /// Whether the search under way gave the caller its bestmove (it may still be finishing).
    pub fn is_answered(&self) -> bool {
        self.answers && self.current.lock().as_ref().is_some_and(|c| c.is_answered())
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
    pub fn attach(&self, control: &Arc<Control>) -> bool {
        *self.current.lock() = Some(control.clone());
        if self.is_stopped() {
            control.stop();
            return false;
        }
        true
    }
}
