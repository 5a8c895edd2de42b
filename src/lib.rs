//! hayate: a USI shogi engine.

pub mod shogi;
