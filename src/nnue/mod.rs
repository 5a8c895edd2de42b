//! Standard NNUE evaluation (YaneuraOu's file format, architecture halfkp_256x2-32-32),
//! integer for integer as the reference computes it.
//!
//! - `features`: HalfKP(Friend) feature numbering, and `can_evaluate`.
//! - `network`: reading and validating a network file (`Network`, `NnueError`), and writing one
//!   (`NetworkParameters`).
//! - `accumulator`: the feature transformer's two accumulators and the per-thread
//!   `AccumulatorStack` that updates them incrementally along the search.
//! - `refresh_cache`: per king square, the last sums computed there, for cheap king moves.
//! - `layers`: the affine layers and clipped ReLUs after the transformer.
//! - `packed`: the built-in network and the compact form it is stored in.
//! - `simd`: `Backend` (scalar, AVX2, AVX-VNNI or AVX-512 VNNI, detected at run time) and the transformer
//!   kernels.
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
pub mod features;
mod layers;
mod network;
pub mod packed;
mod refresh_cache;
mod simd;

pub use accumulator::{Accumulator, AccumulatorStack};
pub use features::can_evaluate;
pub use network::{
    ARCHITECTURE, ARCHITECTURE_HASH, FEATURE_TRANSFORMER_HASH, NETWORK_HASH, Network, NetworkParameters, NnueError,
    VERSION,
};
pub use simd::{Avx2Support, Avx512VnniSupport, AvxVnniSupport, Backend};

use crate::shogi::Position;

/// Outputs of the feature transformer per perspective.
pub const HALF_DIMENSIONS: usize = 256;
/// Inputs of the first affine layer: both perspectives, side to move first.
pub const TRANSFORMED_DIMENSIONS: usize = 2 * HALF_DIMENSIONS;
/// Width of the two hidden layers.
pub const HIDDEN: usize = 32;

/// The reference's default divisor of the network output.
pub const DEFAULT_FV_SCALE: i32 = 16;
/// Largest evaluation the reference returns (its VALUE_MAX_EVAL); larger ones are clamped.
pub const MAX_EVAL: i32 = 29_999;

/// Cache-line alignment for vector loads that never split a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub(crate) struct Aligned<T>(pub(crate) T);

/// Turns the raw network output into the evaluation the reference reports: divided by
/// `fv_scale` with truncation towards zero (C++ integer division), then clamped to
/// `-MAX_EVAL..=MAX_EVAL`. `fv_scale` below 1 counts as 1.
#[inline]
pub fn scale_output(raw: i32, fv_scale: i32) -> i32 {
    (raw / fv_scale.max(1)).clamp(-MAX_EVAL, MAX_EVAL)
}

impl Network {
    /// Raw network output (before `scale_output`) from the two accumulators.
    #[inline]
    pub(crate) fn propagate(
        &self,
        backend: Backend,
        us: &[i16; HALF_DIMENSIONS],
        them: &[i16; HALF_DIMENSIONS],
    ) -> i32 {
        let mut transformed = Aligned([0u8; TRANSFORMED_DIMENSIONS]);
        simd::transform(backend, us, them, &mut transformed.0);
        let mut l1_out = Aligned([0i32; HIDDEN]);
        self.l1.propagate(backend, &transformed, &mut l1_out);
        let mut l1_relu = Aligned([0u8; HIDDEN]);
        layers::clipped_relu(backend, &l1_out, &mut l1_relu);
        let mut l2_out = Aligned([0i32; HIDDEN]);
        self.l2.propagate(backend, &l1_relu, &mut l2_out);
        let mut l2_relu = Aligned([0u8; HIDDEN]);
        layers::clipped_relu(backend, &l2_out, &mut l2_relu);
        self.output.propagate(backend, &l2_relu)
    }

    /// Raw output of the network after the dense layers for an accumulator, from the side to
    /// move's point of view (for benchmarks and tests of the layers alone).
    pub fn propagate_accumulator(&self, backend: Backend, acc: &Accumulator, side_to_move: crate::shogi::Color) -> i32 {
        self.propagate(backend, acc.values(side_to_move), acc.values(!side_to_move))
    }

    /// Evaluation of `pos` from the side to move's point of view, computed from scratch (no
    /// accumulator stack), as the reference's `e` command prints it. `None` when
    /// `can_evaluate(pos)` fails.
    pub fn evaluate(&self, pos: &Position, fv_scale: i32) -> Option<i32> {
        self.evaluate_with(Backend::detect(), pos, fv_scale)
    }

    /// `evaluate` with a chosen backend.
    pub fn evaluate_with(&self, backend: Backend, pos: &Position, fv_scale: i32) -> Option<i32> {
        let acc = Accumulator::refreshed(backend, pos, self)?;
        Some(scale_output(self.propagate_accumulator(backend, &acc, pos.side_to_move()), fv_scale))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_division_truncates_towards_zero_and_clamps() {
        assert_eq!(scale_output(31, 16), 1);
        assert_eq!(scale_output(-31, 16), -1);
        assert_eq!(scale_output(-15, 16), 0);
        assert_eq!(scale_output(i32::MAX, 16), MAX_EVAL);
        assert_eq!(scale_output(i32::MIN, 16), -MAX_EVAL);
        assert_eq!(scale_output(100, 0), 100);
    }
}
