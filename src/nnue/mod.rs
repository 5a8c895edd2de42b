//! NNUE evaluation of YaneuraOu's network files of every classic shape (halfkp_256x2-32-32,
//! the standard, and the other widths, depths and feature sets `arch` reads), integer for
//! integer as the reference computes it.
//!
//! The files, each using only those above it:
//! - `arch`: a network's shape (`Architecture`: feature set, widths), parsed from its file.
//! - `dims`: the standard shape's dimensions, and the aligned storage the kernels load from.
//! - `backend`: `Backend` (scalar, AVX2, AVX-VNNI or AVX-512 VNNI, detected at run time), the
//!   proof that the CPU has the instructions a kernel uses.
//! - `features`: the feature numbering of each feature set, and `can_evaluate`.
//! - `transformer`: the feature transformer's kernels (accumulator updates, the clipped
//!   conversion to 8-bit inputs).
//! - `layers`: the affine layers and clipped ReLUs after the transformer.
//! - `network`: reading and validating a network file (`Network`, `NnueError`), and writing
//!   one (`NetworkParameters`).
//! - `forward`: the accumulators' sums through the layers to the evaluation (`scale_output`).
//! - `refresh_cache`: per king square, the last sums computed there, for cheap king moves.
//! - `accumulator`: the two accumulators, the per-thread `AccumulatorStack` that updates them
//!   incrementally along the search, and evaluation from scratch (`Network::evaluate`).
//! - `packed`: the built-in network and the compact form it is stored in.
//!
//! Use in a search thread:
//! ```ignore
//! let mut stack = AccumulatorStack::new();
//! stack.reset(&root);                      // at the root of every search
//! // at a node:
//! stack.push(&pos, m); pos.do_move(m);     // ... search the child ...
//! pos.undo_move(m); stack.pop();
//! stack.push_null(); pos.do_null_move();   // ... pos.undo_null_move(); stack.pop();
//! let eval = stack.evaluate(&pos, &network); // None: HalfKP cannot evaluate this position
//! ```

mod accumulator;
pub mod arch;
mod backend;
mod dims;
pub mod features;
mod forward;
mod layers;
mod network;
pub mod packed;
mod refresh_cache;
mod transformer;

pub use accumulator::{Accumulator, AccumulatorStack};
pub use arch::{Architecture, FeatureSet};
pub use backend::{Avx2Support, Avx512VnniSupport, AvxVnniSupport, Backend};
pub use dims::{HALF_DIMENSIONS, HIDDEN, TRANSFORMED_DIMENSIONS};
pub use features::can_evaluate;
pub use forward::{DEFAULT_FV_SCALE, MAX_EVAL, scale_output};
pub use network::{
    ARCHITECTURE, ARCHITECTURE_HASH, FEATURE_TRANSFORMER_HASH, NETWORK_HASH, Network, NetworkParameters, NnueError,
    VERSION,
};
