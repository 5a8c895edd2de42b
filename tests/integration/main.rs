//! Every integration test in one crate: one release build with link-time optimisation instead
//! of one per file, which kept `cargo test --release` within minutes on two cores. Each module
//! is one area (its own doc says what it checks); `common` drives the release binary over USI.

mod analyze;
mod architecture;
mod book;
mod common;
mod endings;
mod gensfen;
mod mate;
mod nnue;
mod nnue_arch;
mod nnue_usi;
mod prop_movegen;
mod prop_parsers;
mod random_net;
mod rules_corpus;
mod search;
mod thread_stress;
mod train;
mod tsshogi_records;
mod tsume;
mod usi_abuse;
mod usi_endings;
mod usi_mate;
mod usi_protocol;
mod usi_scripts;
mod weights;
