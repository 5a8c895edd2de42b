//! The forward pass after the accumulators: the transformer's clipped outputs through the
//! dense layers to the network's output, and the evaluation the reference makes of it.

use super::arch::{Model, padded_inputs};
use super::backend::Backend;
use super::dims::AlignedVec;
use super::layers;
use super::network::Network;
use super::transformer;
use crate::shogi::{Color, Position};

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
        if self.transformed.len() < net.arch.transformed() || self.sums.len() < hidden {
            self.transformed = AlignedVec::zeroed(net.arch.transformed());
            self.sums = AlignedVec::zeroed(hidden);
            self.clipped = [AlignedVec::zeroed(hidden), AlignedVec::zeroed(hidden)];
        }
    }
}

/// An affine layer and its clipped ReLU: `out` gets the layer's outputs, then zeros up to the
/// next multiple of 32 (the padding the next layer's rows expect); `sums` is scratch.
#[inline]
fn clipped_layer(backend: Backend, layer: &layers::DenseLayer, input: &[u8], sums: &mut [i32], out: &mut [u8]) {
    layer.propagate(backend, input, sums);
    let n = layer.outputs();
    layers::clipped_relu(backend, sums, out, n);
    out[n..padded_inputs(n)].fill(0);
}

impl Network {
    /// The layer stack that evaluates `pos`: SFNN's by the kings' ranks, each counted from its
    /// owner's side (0: the opponent's back rank), in three groups of three: 3 x the side to
    /// move's group + the other king's. Classic networks have one.
    #[inline]
    pub(crate) fn layer_stack(&self, pos: &Position) -> usize {
        if self.arch.model == Model::Classic {
            return 0;
        }
        let group = |c: Color| {
            let rank = pos.king_square(c).index() % 9;
            (if c == Color::Black { rank } else { 8 - rank }) / 3
        };
        let us = pos.side_to_move();
        3 * group(us) + group(!us)
    }

    /// Raw network output (before `scale_output`) from the two accumulators' sums, the side
    /// to move's first, through layer stack `stack` (`layer_stack`).
    #[inline]
    pub(crate) fn propagate(
        &self,
        backend: Backend,
        us: &[i16],
        them: &[i16],
        stack: usize,
        buffers: &mut ForwardBuffers,
    ) -> i32 {
        buffers.fit(self);
        match self.arch.model {
            Model::Classic => self.propagate_classic(backend, us, them, buffers),
            Model::Sfnn => self.propagate_sfnn(backend, us, them, stack, buffers),
        }
    }

    #[inline]
    fn propagate_classic(&self, backend: Backend, us: &[i16], them: &[i16], buffers: &mut ForwardBuffers) -> i32 {
        let half = us.len();
        let ForwardBuffers { transformed, sums, clipped } = buffers;
        let transformed = &mut transformed.as_mut_slice()[..2 * half];
        transformer::transform(backend, us, them, transformed);
        let [a, b] = clipped;
        let (mut current, mut next) = (a.as_mut_slice(), b.as_mut_slice());
        let sums = sums.as_mut_slice();
        let mut first = true;
        let stack = &self.stacks[0];
        for layer in &stack.hidden {
            let input: &[u8] = if first { transformed } else { current };
            clipped_layer(backend, layer, input, sums, next);
            std::mem::swap(&mut current, &mut next);
            first = false;
        }
        stack.output.propagate(backend, if first { transformed } else { current })
    }

    /// SFNN: the pairwise products, the stack's first layer, whose outputs but the last go
    /// on squared (`min(127, h^2 >> 19)`) and clipped (`clamp(h >> 6, 0, 127)`) side by side,
    /// the second layer with a clipped ReLU, the output, plus the first layer's last output
    /// as it is.
    #[inline]
    fn propagate_sfnn(
        &self,
        backend: Backend,
        us: &[i16],
        them: &[i16],
        stack: usize,
        buffers: &mut ForwardBuffers,
    ) -> i32 {
        let ForwardBuffers { transformed, sums, clipped } = buffers;
        let transformed = &mut transformed.as_mut_slice()[..us.len()];
        transformer::transform_pairwise(backend, us, them, transformed);
        let stack = &self.stacks[stack];
        let [first, second] = &stack.hidden[..] else { unreachable!("SFNN stacks have two hidden layers") };
        let sums = sums.as_mut_slice();
        first.propagate(backend, transformed, sums);
        let activated = first.outputs() - 1;
        let shortcut = sums[activated];
        let [a, b] = clipped;
        let (input, output) = (a.as_mut_slice(), b.as_mut_slice());
        for (i, &h) in sums[..activated].iter().enumerate() {
            input[i] = ((h as i64 * h as i64) >> (2 * layers::WEIGHT_SCALE_BITS + 7)).min(127) as u8;
            input[activated + i] = (h >> layers::WEIGHT_SCALE_BITS).clamp(0, 127) as u8;
        }
        input[2 * activated..padded_inputs(2 * activated)].fill(0);
        clipped_layer(backend, second, input, sums, output);
        stack.output.propagate(backend, output).wrapping_add(shortcut)
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
