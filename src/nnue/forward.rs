//! The forward pass after the accumulators: the transformer's clipped outputs through the
//! dense layers to the network's output, and the evaluation the reference makes of it.

use super::arch::{MAX_HALF, MAX_HIDDEN, padded_inputs};
use super::backend::Backend;
use super::dims::Aligned;
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
    pub(crate) fn propagate(&self, backend: Backend, us: &[i16], them: &[i16]) -> i32 {
        // Buffers on the stack only as large as the shape needs: they are zeroed on every
        // call, and zeroing the widest shape's would cost the standard one a tenth of its time.
        let narrow = self.arch.hidden.iter().all(|&w| w <= 64);
        match us.len() {
            ..=256 if narrow => self.propagate_in::<512, 64>(backend, us, them),
            ..=512 if narrow => self.propagate_in::<1024, 64>(backend, us, them),
            ..=1024 if narrow => self.propagate_in::<2048, 64>(backend, us, them),
            _ => self.propagate_in::<{ 2 * MAX_HALF }, { padded_inputs(MAX_HIDDEN) }>(backend, us, them),
        }
    }

    /// `propagate` with room for `T` transformer outputs and `H` outputs of a hidden layer.
    #[inline(always)]
    fn propagate_in<const T: usize, const H: usize>(&self, backend: Backend, us: &[i16], them: &[i16]) -> i32 {
        let half = us.len();
        let mut transformed = Aligned([0u8; T]);
        transformer::transform(backend, us, them, &mut transformed.0[..2 * half]);
        let mut sums = Aligned([0i32; H]);
        // Two buffers of inputs taking turns, each layer's outputs followed by zeros up to a
        // multiple of 32, the padding the next layer's rows expect.
        let (mut a, mut b) = (Aligned([0u8; H]), Aligned([0u8; H]));
        let (mut current, mut next) = (&mut a.0, &mut b.0);
        let mut first = true;
        for layer in &self.hidden {
            let input: &[u8] = if first { &transformed.0[..2 * half] } else { &current[..] };
            layer.propagate(backend, input, &mut sums.0);
            let n = layer.outputs();
            layers::clipped_relu(backend, &sums.0, next, n);
            next[n..padded_inputs(n)].fill(0);
            std::mem::swap(&mut current, &mut next);
            first = false;
        }
        self.output.propagate(backend, if first { &transformed.0[..2 * half] } else { &current[..] })
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
