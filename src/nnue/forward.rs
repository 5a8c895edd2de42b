//! The forward pass after the accumulators: the transformer's clipped outputs through the
//! dense layers to the network's output, and the evaluation the reference makes of it.

use super::backend::Backend;
use super::dims::{Aligned, HALF_DIMENSIONS, HIDDEN, TRANSFORMED_DIMENSIONS};
use super::layers;
use super::network::Network;
use super::transformer;

/// The reference's default divisor of the network output.
pub const DEFAULT_FV_SCALE: i32 = 16;
/// Largest evaluation the reference returns (its VALUE_MAX_EVAL); larger ones are clamped.
pub const MAX_EVAL: i32 = 29_999;

/// Turns the raw network output into the evaluation the reference reports: divided by
/// `fv_scale` with truncation towards zero (C++ integer division), then clamped to
/// `-MAX_EVAL..=MAX_EVAL`. `fv_scale` below 1 counts as 1.
#[inline]
pub fn scale_output(raw: i32, fv_scale: i32) -> i32 {
    (raw / fv_scale.max(1)).clamp(-MAX_EVAL, MAX_EVAL)
}

impl Network {
    /// Raw network output (before `scale_output`) from the two accumulators' sums, the side
    /// to move's first.
    #[inline]
    pub(crate) fn propagate(
        &self,
        backend: Backend,
        us: &[i16; HALF_DIMENSIONS],
        them: &[i16; HALF_DIMENSIONS],
    ) -> i32 {
        let mut transformed = Aligned([0u8; TRANSFORMED_DIMENSIONS]);
        transformer::transform(backend, us, them, &mut transformed.0);
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
