//! hayate: a USI shogi engine.
//!
//! - `shogi`: the rules (positions, move generation, notation); depends on nothing else.
//! - `eval`: static evaluation.
//! - `tt`: the shared transposition table.
//! - `search`: iterative deepening, Lazy SMP threads, time management.
//! - `tune`: self-play data and logistic-regression fitting of the evaluation weights.
//! - `mate`: the mate (tsume) solver for `go mate`, and the mate-in-one probe.
//! - `nnue`: standard NNUE networks (halfkp_256x2-32-32): loading and incremental evaluation.
//! - `engine`: the facade the protocol layer drives.
//! - `usi`: the protocol loop (all text I/O lives here and in the CLI).
//! - `analyze`: scripted analysis of game records and position lists (`hayate analyze`).

pub mod analyze;
pub mod engine;
pub mod eval;
pub mod mate;
pub mod nnue;
pub mod search;
pub mod shogi;
pub mod tt;
pub mod tune;
pub mod usi;
