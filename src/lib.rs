//! hayate: a USI shogi engine.
//!
//! Layers, each using only those below it:
//!
//! 1. `shogi`: the rules (setups, positions, move generation, endings); depends on nothing
//!    else. `memory`: the size limits and allocation error of the big tables.
//! 2. `records`: game records and position lists (CSA, KIF, KI2, USI, SFEN lists); `book`:
//!    opening books in YaneuraOu's format.
//! 3. `eval`: the linear static evaluation; `nnue`: standard NNUE networks
//!    (halfkp_256x2-32-32): loading, features, incremental accumulators, SIMD inference.
//! 4. `tt` (the shared transposition table), `mate` (the df-pn mate solver and the
//!    mate-in-one probe).
//! 5. `search`: iterative deepening, Lazy SMP threads, time management; never parses text.
//! 6. `engine`: the facade: options declared once, the tables and their policy, and every
//!    job (search, mate search, perft, bench, getting ready) on a thread of its own.
//! 7. `usi` (the protocol loop), `analyze` (`hayate analyze`), `learn` (self-play data and
//!    fitting: `learn::linear` for the linear evaluation, `learn::nnue` for networks). All
//!    text I/O lives here and in `cli`.
//! 8. `cli`: the subcommands, over everything else.

pub mod analyze;
pub mod book;
pub mod cli;
pub mod engine;
pub mod eval;
pub mod learn;
pub mod mate;
pub mod memory;
pub mod nnue;
pub mod records;
pub mod search;
pub mod shogi;
pub mod tt;
pub mod usi;
