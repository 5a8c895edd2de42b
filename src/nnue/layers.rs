//! The layers after the feature transformer: affine 512->32 and 32->32, each followed by a
//! clipped ReLU, and the affine 32->1 output, in a scalar and an AVX2 version.
//!
//! Arithmetic of the reference: 8-bit unsigned inputs (0..=127) times 8-bit signed weights,
//! summed with the 32-bit bias in wrapping 32-bit arithmetic; the clipped ReLU shifts right by
//! `WEIGHT_SCALE_BITS` and clamps to 0..=127. The AVX2 products of input pairs
//! (`maddubs`) saturate at 16 bits, but 2 x 127 x 128 = 32,512 never reaches that, so both
//! versions agree exactly.

use super::simd::Backend;
use super::{Aligned, HIDDEN};

/// Right shift of the affine outputs in the clipped ReLU.
pub const WEIGHT_SCALE_BITS: u32 = 6;

/// Inputs per 32-bit block: the AVX2 kernel broadcasts four inputs and multiplies them with
/// the four matching weights of every output at once.
const BLOCK_INPUTS: usize = 4;

/// Weights of one block of four inputs for all 32 outputs, stored `[output][input in block]`.
type WeightBlock = Aligned<[i8; HIDDEN * BLOCK_INPUTS]>;

/// An affine layer with 32 outputs and `IN` inputs (a multiple of 32).
pub(crate) struct DenseLayer<const IN: usize> {
    biases: Aligned<[i32; HIDDEN]>,
    /// `IN / 4` blocks (re-arranged at load time from the file's row-per-output order).
    blocks: Vec<WeightBlock>,
}

impl<const IN: usize> DenseLayer<IN> {
    /// Builds the layer from the file's order: `weights[output * IN + input]`.
    pub(crate) fn from_file_order(biases: [i32; HIDDEN], weights: &[u8]) -> Self {
        debug_assert_eq!(weights.len(), IN * HIDDEN);
        let mut blocks = vec![Aligned([0i8; HIDDEN * BLOCK_INPUTS]); IN / BLOCK_INPUTS];
        for (output, row) in weights.chunks_exact(IN).enumerate() {
            for (input, &w) in row.iter().enumerate() {
                blocks[input / BLOCK_INPUTS].0[output * BLOCK_INPUTS + input % BLOCK_INPUTS] = w as i8;
            }
        }
        DenseLayer { biases: Aligned(biases), blocks }
    }

    /// Weight of (output, input), for the scalar path and tests.
    #[inline]
    fn weight(&self, output: usize, input: usize) -> i8 {
        self.blocks[input / BLOCK_INPUTS].0[output * BLOCK_INPUTS + input % BLOCK_INPUTS]
    }

    /// `out = biases + W * input`.
    #[inline]
    pub(crate) fn propagate(&self, backend: Backend, input: &Aligned<[u8; IN]>, out: &mut Aligned<[i32; HIDDEN]>) {
        match backend {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: an `Avx2Support` exists only when the CPU reported AVX2.
            Backend::Avx2(_) => unsafe { avx2::affine(&self.biases.0, &self.blocks, &input.0, &mut out.0) },
            _ => self.propagate_scalar(&input.0, &mut out.0),
        }
    }

    fn propagate_scalar(&self, input: &[u8; IN], out: &mut [i32; HIDDEN]) {
        *out = self.biases.0;
        // Inputs are often zero (clipped); skip them as the sparse reference does.
        for (i, &x) in input.iter().enumerate() {
            if x == 0 {
                continue;
            }
            for (o, acc) in out.iter_mut().enumerate() {
                *acc = acc.wrapping_add(x as i32 * self.weight(o, i) as i32);
            }
        }
    }
}

/// The final affine layer: 32 inputs, one output.
pub(crate) struct OutputLayer<const IN: usize> {
    bias: i32,
    weights: Aligned<[i8; IN]>,
}

impl<const IN: usize> OutputLayer<IN> {
    pub(crate) fn from_file_order(bias: i32, weights: &[u8]) -> Self {
        let mut w = Aligned([0i8; IN]);
        for (d, &s) in w.0.iter_mut().zip(weights) {
            *d = s as i8;
        }
        OutputLayer { bias, weights: w }
    }

    #[inline]
    pub(crate) fn propagate(&self, backend: Backend, input: &Aligned<[u8; IN]>) -> i32 {
        match backend {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: an `Avx2Support` exists only when the CPU reported AVX2; IN is 32.
            Backend::Avx2(_) if IN == 32 => unsafe { avx2::output(self.bias, &self.weights.0, &input.0) },
            _ => input
                .0
                .iter()
                .zip(&self.weights.0)
                .fold(self.bias, |acc, (&x, &w)| acc.wrapping_add(x as i32 * w as i32)),
        }
    }
}

/// Clipped ReLU: `clamp(x >> 6, 0, 127)` on 32 values.
#[inline]
pub(crate) fn clipped_relu(backend: Backend, input: &Aligned<[i32; HIDDEN]>, out: &mut Aligned<[u8; HIDDEN]>) {
    match backend {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: an `Avx2Support` exists only when the CPU reported AVX2.
        Backend::Avx2(_) => unsafe { avx2::clipped_relu(&input.0, &mut out.0) },
        _ => {
            for (o, &x) in out.0.iter_mut().zip(&input.0) {
                *o = (x >> WEIGHT_SCALE_BITS).clamp(0, 127) as u8;
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{BLOCK_INPUTS, HIDDEN, WEIGHT_SCALE_BITS, WeightBlock};
    use std::arch::x86_64::*;

    /// 8 lanes of i32 per vector: 4 vectors hold the 32 outputs.
    const OUT_VECTORS: usize = HIDDEN / 8;

    /// Most input blocks of a layer (512 inputs / 4).
    const MAX_BLOCKS: usize = super::super::TRANSFORMED_DIMENSIONS / BLOCK_INPUTS;

    /// For each 8-bit mask, the positions of its set bits, lowest first (padded with zeros).
    static NNZ_OFFSETS: [[u16; 8]; 256] = {
        let mut t = [[0u16; 8]; 256];
        let mut mask = 0;
        while mask < 256 {
            let (mut bit, mut n) = (0, 0);
            while bit < 8 {
                if mask >> bit & 1 != 0 {
                    t[mask][n] = bit as u16;
                    n += 1;
                }
                bit += 1;
            }
            mask += 1;
        }
        t
    };

    /// Adds `in4 . w4` for each of 8 outputs: `maddubs` multiplies the four unsigned inputs by
    /// the four signed weights and sums pairs to i16, `madd` by one sums the pairs to i32.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn dot4(acc: __m256i, inputs: __m256i, weights: __m256i, ones: __m256i) -> __m256i {
        _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(inputs, weights), ones))
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn affine<const IN: usize>(
        biases: &[i32; HIDDEN],
        blocks: &[WeightBlock],
        input: &[u8; IN],
        out: &mut [i32; HIDDEN],
    ) {
        // The index list and the 32-byte input loads rely on this.
        const { assert!(IN.is_multiple_of(32) && IN / BLOCK_INPUTS <= MAX_BLOCKS) };
        let ones = _mm256_set1_epi16(1);
        let zero = _mm256_setzero_si256();
        let mut acc = [zero; OUT_VECTORS];
        // SAFETY (loads and stores below): offsets k * 8 < 32 into [i32; 32]; block loads at
        // k * 32 < 128 into [i8; 128]; input reads at g * 32 + 32 <= IN and 4 * b + 4 <= IN;
        // table rows of 8 u16.
        for (k, a) in acc.iter_mut().enumerate() {
            *a = unsafe { _mm256_loadu_si256(biases.as_ptr().add(k * 8).cast()) };
        }
        let blocks = &blocks[..IN / BLOCK_INPUTS];
        // Visit only the 4-input blocks with a non-zero input (the input is the clipped
        // transformer output, often sparse). The list of those blocks is built without a
        // branch per block, so the multiply loop below is the only one that mispredicts.
        let mut nnz = [0u16; MAX_BLOCKS];
        let mut count = 0;
        for g in 0..IN / 32 {
            let v = unsafe { _mm256_loadu_si256(input.as_ptr().add(g * 32).cast()) };
            // Inputs are at most 127, so a block is non-zero exactly when its i32 is positive.
            let mask = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(v, zero))) as usize;
            let base = _mm_set1_epi16((g * 8) as i16);
            let offsets = unsafe { _mm_loadu_si128(NNZ_OFFSETS[mask].as_ptr().cast()) };
            // SAFETY: count + 8 <= g * 8 + 8 <= IN / 4 <= MAX_BLOCKS.
            unsafe { _mm_storeu_si128(nnz.as_mut_ptr().add(count).cast(), _mm_add_epi16(base, offsets)) };
            count += mask.count_ones() as usize;
        }
        for &b in &nnz[..count] {
            let b = b as usize;
            let four = unsafe { input.as_ptr().add(b * BLOCK_INPUTS).cast::<i32>().read_unaligned() };
            let x = _mm256_set1_epi32(four);
            let w = &blocks[b].0;
            for (k, a) in acc.iter_mut().enumerate() {
                let wk = unsafe { _mm256_loadu_si256(w.as_ptr().add(k * 32).cast()) };
                *a = dot4(*a, x, wk, ones);
            }
        }
        for (k, a) in acc.iter().enumerate() {
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(k * 8).cast(), *a) };
        }
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn clipped_relu(input: &[i32; HIDDEN], out: &mut [u8; HIDDEN]) {
        // SAFETY: four loads of 8 i32 inside [i32; 32], one store of 32 bytes into [u8; 32].
        let (a, b, c, d) = unsafe {
            let p = input.as_ptr();
            (
                _mm256_loadu_si256(p.cast()),
                _mm256_loadu_si256(p.add(8).cast()),
                _mm256_loadu_si256(p.add(16).cast()),
                _mm256_loadu_si256(p.add(24).cast()),
            )
        };
        // Saturating to i16 before the shift and to i8 after it gives the same as clamping
        // the shifted i32 (anything saturated is far outside 0..=127 either way).
        let words0 = _mm256_srai_epi16::<{ WEIGHT_SCALE_BITS as i32 }>(_mm256_packs_epi32(a, b));
        let words1 = _mm256_srai_epi16::<{ WEIGHT_SCALE_BITS as i32 }>(_mm256_packs_epi32(c, d));
        let bytes = _mm256_max_epi8(_mm256_packs_epi16(words0, words1), _mm256_setzero_si256());
        // The packs interleave per 128-bit lane; restore the order of the 4-byte groups.
        let ordered = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), ordered) };
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn output<const IN: usize>(bias: i32, weights: &[i8; IN], input: &[u8; IN]) -> i32 {
        debug_assert_eq!(IN, 32);
        // SAFETY: one 32-byte load from each array of 32 bytes (the caller checks IN == 32).
        let (x, w) =
            unsafe { (_mm256_loadu_si256(input.as_ptr().cast()), _mm256_loadu_si256(weights.as_ptr().cast())) };
        let sum = dot4(_mm256_setzero_si256(), x, w, _mm256_set1_epi16(1));
        let s128 = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256::<1>(sum));
        let s64 = _mm_add_epi32(s128, _mm_shuffle_epi32::<0b01_00_11_10>(s128));
        let s32 = _mm_add_epi32(s64, _mm_shuffle_epi32::<0b10_11_00_01>(s64));
        _mm_cvtsi128_si32(s32).wrapping_add(bias)
    }
}
