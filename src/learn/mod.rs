//! Learning the evaluation from games, one room per thing learnt:
//!
//! - `rng`: the seeded random numbers of data generation and training.
//! - `game`: one self-play game, the loop both data generators play, and its helpers (the
//!   random near-best opening moves, `is_quiet`).
//! - `game_store`: self-play games stored whole and compactly (`*.games`, under data/), read
//!   back as training data with the filters applied then.
//! - `recorded`: games played elsewhere (match records) as training material.
//! - `linear`: the linear evaluation's weights (`crate::eval`): `hayate selfplay` writes its
//!   text records, `hayate tune` fits the weights by logistic regression.
//! - `nnue`: networks (`crate::nnue`): `hayate gensfen` writes PackedSfenValue records
//!   (`nnue::gensfen`), `hayate train` fits a halfkp_256x2-32-32 network on the CPU.
//!
//! Measured figures (data sizes, losses, matches) are in docs/training.md and
//! docs/evaluation.md, not here.

pub mod game;
pub mod game_store;
pub mod linear;
pub mod nnue;
pub mod recorded;
pub mod rng;
