//! The forward pass after the accumulators: the transformer's clipped outputs through the
//! dense layers to the network's output, and the evaluation the reference makes of it.

use super::arch::padded_inputs;
use super::backend::Backend;
use super::dims::AlignedVec;
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

/// The buffers of a forward pass, kept from call to call (each search thread's accumulator
/// stack holds one), so that no evaluation zeroes or allocates memory.
#[derive(Clone)]
pub(crate) struct ForwardBuffers {
    transformed: AlignedVec<u8>,
    sums: AlignedVec<i32>,
    /// Two buffers of layer inputs taking turns; past each layer's outputs they hold zeros up
    /// to a multiple of 32, the padding the next layer's rows expect.
    clipped: [AlignedVec<u8>; 2],
}

impl ForwardBuffers {
    pub(crate) fn new() -> ForwardBuffers {
        ForwardBuffers {
            transformed: AlignedVec::zeroed(0),
            sums: AlignedVec::zeroed(0),
            clipped: [AlignedVec::zeroed(0), AlignedVec::zeroed(0)],
        }
    }

    /// Makes the buffers large enough for `net`.
    #[inline]
    fn fit(&mut self, net: &Network) {
        let hidden = padded_inputs(net.arch.hidden.iter().copied().max().unwrap_or(0));
        if self.transformed.len() < 2 * net.arch.half || self.sums.len() < hidden {
            self.transformed = AlignedVec::zeroed(2 * net.arch.half);
            self.sums = AlignedVec::zeroed(hidden);
            self.clipped = [AlignedVec::zeroed(hidden), AlignedVec::zeroed(hidden)];
        }
    }
}

impl Network {
    /// Raw network output (before `scale_output`) from the two accumulators' sums, the side
    /// to move's first.
    #[inline]
    pub(crate) fn propagate(&self, backend: Backend, us: &[i16], them: &[i16], buffers: &mut ForwardBuffers) -> i32 {
        buffers.fit(self);
        let half = us.len();
        let ForwardBuffers { transformed, sums, clipped } = buffers;
        let transformed = &mut transformed.as_mut_slice()[..2 * half];
        transformer::transform(backend, us, them, transformed);
        let [a, b] = clipped;
        let (mut current, mut next) = (a.as_mut_slice(), b.as_mut_slice());
        let sums = sums.as_mut_slice();
        let mut first = true;
        for layer in &self.hidden {
            let input: &[u8] = if first { transformed } else { current };
            layer.propagate(backend, input, sums);
            let n = layer.outputs();
            layers::clipped_relu(backend, sums, next, n);
            next[n..padded_inputs(n)].fill(0);
            std::mem::swap(&mut current, &mut next);
            first = false;
        }
        self.output.propagate(backend, if first { transformed } else { current })
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
