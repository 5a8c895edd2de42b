//! Iterative-deepening principal-variation search with a shared transposition table, run by
//! one or more threads (Lazy SMP). Search never reads or writes text: it reports through the
//! `Reporter` callbacks, and the protocol layer formats them.
//!
//! - `types`: scores, reports, the bestmove, the `Reporter` and the search settings.
//! - `control`: the flags between the caller and the search threads.
//! - `threads`: one whole search (`run`): root moves, threads, timekeeper, answer.
//! - `worker`: a search thread's iterative deepening; `worker::alphabeta` its tree search.
//! - `movepick`, `see`, `correction`, `params`, `time`: move ordering, exchange evaluation,
//!   correction history, the tunable constants, time planning.
//! - `bench`: the positions and depth of the node-count signature.

pub mod bench;
pub mod control;
pub mod correction;
pub mod movepick;
pub mod params;
pub mod see;
pub mod threads;
pub mod time;
pub mod types;
mod worker;

pub use control::{Control, StopSignal};
pub use threads::{SEARCH_STACK_BYTES, SearchJob, SearchResult, ThreadData, answer_without_search, run};
pub use time::{Limits, TimeOptions, TimePlan};
pub use types::*;
