//! Iterative-deepening principal-variation search with a shared transposition table, run by
//! one or more threads (Lazy SMP). Search never reads or writes text: it reports through the
//! `Reporter` callbacks, and the protocol layer formats them.
//!
//! - `types`: scores, reports, the bestmove, the `Reporter` and the search settings.
//! - `control`: the flags between the caller and the search threads.
//! - `root`: the root move list and the answer made of it.
//! - `shared`: what the threads of one search share, and what each keeps between searches.
//! - `worker`: a search thread's iterative deepening; `worker::alphabeta` its tree search.
//! - `threads`: one whole search (`run`): the threads around a main one, timekeeper, answer.
//! - `movepick`, `see`, `correction`, `params`, `time`: move ordering, exchange evaluation,
//!   correction history, the tunable constants, time planning.
//! - `bench`: the positions and depth of the node-count signature.

pub mod bench;
pub mod control;
pub mod correction;
pub mod movepick;
pub mod params;
mod root;
pub mod see;
mod shared;
#[cfg(feature = "tune")]
pub mod stats;
pub mod threads;
pub mod time;
pub mod types;
mod worker;

pub use control::{Control, StopSignal};
pub use shared::ThreadData;
pub use threads::{SEARCH_STACK_BYTES, SearchJob, SearchResult, answer_without_search, run};
pub use time::{Limits, TimeOptions, TimePlan};
pub use types::*;
