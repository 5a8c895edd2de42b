//! The layers after the feature transformer: affine 512->32 and 32->32, each followed by a
//! clipped ReLU, and the affine 32->1 output, in a scalar, an AVX2, an AVX-VNNI and an
//! AVX-512 VNNI version.
//!
//! Arithmetic of the reference: 8-bit unsigned inputs (0..=127) times 8-bit signed weights,
//! summed with the 32-bit bias in wrapping 32-bit arithmetic; the clipped ReLU shifts right by
//! `WEIGHT_SCALE_BITS` and clamps to 0..=127. The AVX2 products of input pairs
//! (`maddubs`) saturate at 16 bits, but 2 x 127 x 128 = 32,512 never reaches that, and the
//! VNNI dot product does not saturate at all, so all versions agree exactly.

use super::backend::Backend;
use super::dims::{Aligned, HIDDEN};

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
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    blocks: Vec<WeightBlock>,
    /// The same weights by input (`columns[input][output]`), so that the portable path adds
    /// one contiguous column per non-zero input, which compilers vectorise.
    columns: Vec<Aligned<[i8; HIDDEN]>>,
}

impl<const IN: usize> DenseLayer<IN> {
    /// Builds the layer from the file's order: `weights[output * IN + input]`.
    pub(crate) fn from_file_order(biases: [i32; HIDDEN], weights: &[u8]) -> Self {
        debug_assert_eq!(weights.len(), IN * HIDDEN);
        let mut blocks = vec![Aligned([0i8; HIDDEN * BLOCK_INPUTS]); IN / BLOCK_INPUTS];
        let mut columns = vec![Aligned([0i8; HIDDEN]); IN];
        for (output, row) in weights.chunks_exact(IN).enumerate() {
            for (input, &w) in row.iter().enumerate() {
                blocks[input / BLOCK_INPUTS].0[output * BLOCK_INPUTS + input % BLOCK_INPUTS] = w as i8;
                columns[input].0[output] = w as i8;
            }
        }
        DenseLayer { biases: Aligned(biases), blocks, columns }
    }

    /// The biases, and the weights in the file's order (`weights[output][input]`).
    pub(crate) fn to_file_order(&self) -> ([i32; HIDDEN], Vec<[i8; IN]>) {
        let mut rows = vec![[0i8; IN]; HIDDEN];
        for (input, column) in self.columns.iter().enumerate() {
            for (row, &w) in rows.iter_mut().zip(&column.0) {
                row[input] = w;
            }
        }
        (self.biases.0, rows)
    }

    /// `out = biases + W * input`.
    #[inline]
    pub(crate) fn propagate(&self, backend: Backend, input: &Aligned<[u8; IN]>, out: &mut Aligned<[i32; HIDDEN]>) {
        #[cfg(target_arch = "x86_64")]
        {
            let (biases, blocks, input, out) = (&self.biases.0, &self.blocks, &input.0, &mut out.0);
            match backend {
                // SAFETY: an `AvxVnniSupport` exists only when the CPU reported AVX2 and AVX-VNNI.
                Backend::AvxVnni(_) => return unsafe { vnni::affine(biases, blocks, input, out) },
                // SAFETY: an `Avx512VnniSupport` exists only when the CPU reported AVX2,
                // AVX-512 F, BW and VNNI.
                Backend::Avx512Vnni(_) => return unsafe { avx512::affine(biases, blocks, input, out) },
                _ if backend.avx2_support().is_some() => {
                    // SAFETY: an `Avx2Support` exists only when the CPU reported AVX2.
                    return unsafe { avx2::affine(biases, blocks, input, out) };
                }
                _ => {}
            }
        }
        self.propagate_scalar(&input.0, &mut out.0)
    }

    fn propagate_scalar(&self, input: &[u8; IN], out: &mut [i32; HIDDEN]) {
        *out = self.biases.0;
        // Inputs are often zero (clipped); skip them as the sparse reference does.
        for (&x, column) in input.iter().zip(&self.columns) {
            if x == 0 {
                continue;
            }
            for (acc, &w) in out.iter_mut().zip(&column.0) {
                *acc = acc.wrapping_add(x as i32 * w as i32);
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

    pub(crate) fn to_file_order(&self) -> (i32, [i8; IN]) {
        (self.bias, self.weights.0)
    }

    #[inline]
    pub(crate) fn propagate(&self, backend: Backend, input: &Aligned<[u8; IN]>) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if IN == 32 {
            if let Backend::AvxVnni(_) = backend {
                // SAFETY: an `AvxVnniSupport` exists only when the CPU reported AVX2 and AVX-VNNI.
                return unsafe { vnni::output(self.bias, &self.weights.0, &input.0) };
            }
            if backend.avx2_support().is_some() {
                // SAFETY: an `Avx2Support` exists only when the CPU reported AVX2.
                return unsafe { avx2::output(self.bias, &self.weights.0, &input.0) };
            }
        }
        input.0.iter().zip(&self.weights.0).fold(self.bias, |acc, (&x, &w)| acc.wrapping_add(x as i32 * w as i32))
    }
}

/// Clipped ReLU: `clamp(x >> 6, 0, 127)` on 32 values.
#[inline]
pub(crate) fn clipped_relu(backend: Backend, input: &Aligned<[i32; HIDDEN]>, out: &mut Aligned<[u8; HIDDEN]>) {
    #[cfg(target_arch = "x86_64")]
    if backend.avx2_support().is_some() {
        // SAFETY: an `Avx2Support` exists only when the CPU reported AVX2.
        return unsafe { x86::clipped_relu(&input.0, &mut out.0) };
    }
    for (o, &x) in out.0.iter_mut().zip(&input.0) {
        *o = (x >> WEIGHT_SCALE_BITS).clamp(0, 127) as u8;
    }
}

/// Kernels shared by every x86 backend (AVX2 only).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{HIDDEN, WEIGHT_SCALE_BITS};
    use crate::nnue::dims::TRANSFORMED_DIMENSIONS;
    use std::arch::x86_64::*;

    /// Most input blocks of a layer (512 inputs / 4).
    pub(super) const MAX_BLOCKS: usize = TRANSFORMED_DIMENSIONS / super::BLOCK_INPUTS;

    /// For each 8-bit mask, the positions of its set bits, lowest first (padded with zeros).
    pub(super) static NNZ_OFFSETS: [[u16; 8]; 256] = {
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

    /// Writes the indices of the non-zero 4-byte blocks of `input` to `nnz` and returns their
    /// number, without a branch per block (so that only the caller's loop over the list
    /// mispredicts, once).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn nonzero_blocks<const IN: usize>(input: &[u8; IN], nnz: &mut [u16; MAX_BLOCKS]) -> usize {
        const { assert!(IN.is_multiple_of(32) && IN / super::BLOCK_INPUTS <= MAX_BLOCKS) };
        let zero = _mm256_setzero_si256();
        let mut count = 0;
        for g in 0..IN / 32 {
            // SAFETY: reads bytes g * 32 .. g * 32 + 32 <= IN of the input.
            let v = unsafe { _mm256_loadu_si256(input.as_ptr().add(g * 32).cast()) };
            // Inputs are at most 127, so a block is non-zero exactly when its i32 is positive.
            let mask = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(v, zero))) as usize;
            let indices = _mm_add_epi16(
                _mm_set1_epi16((g * 8) as i16),
                // SAFETY: one row of 8 u16 of the table.
                unsafe { _mm_loadu_si128(NNZ_OFFSETS[mask].as_ptr().cast()) },
            );
            // SAFETY: count <= g * 8, so the 8 entries written end at most at
            // g * 8 + 8 <= IN / 4 <= MAX_BLOCKS (checked at compile time above).
            unsafe { _mm_storeu_si128(nnz.as_mut_ptr().add(count).cast(), indices) };
            count += mask.count_ones() as usize;
        }
        count
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn clipped_relu(input: &[i32; HIDDEN], out: &mut [u8; HIDDEN]) {
        // SAFETY: four loads of 8 i32 at offsets 0, 8, 16 and 24 of [i32; 32].
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
        // SAFETY: one store of 32 bytes into [u8; 32].
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), ordered) };
    }
}

/// The affine kernels, written once for both x86 backends; they differ only in the
/// instruction that adds four u8 x i8 products to each i32 lane (`$dot4`).
#[cfg(target_arch = "x86_64")]
macro_rules! affine_kernels {
    ($name:ident, $features:literal, $dot4:item) => {
        mod $name {
            use super::x86::{MAX_BLOCKS, nonzero_blocks};
            use super::{BLOCK_INPUTS, HIDDEN, WeightBlock};
            use std::arch::x86_64::*;

            /// 8 lanes of i32 per vector: 4 vectors hold the 32 outputs.
            const OUT_VECTORS: usize = HIDDEN / 8;

            $dot4

            #[target_feature(enable = $features)]
            pub(super) fn affine<const IN: usize>(
                biases: &[i32; HIDDEN],
                blocks: &[WeightBlock],
                input: &[u8; IN],
                out: &mut [i32; HIDDEN],
            ) {
                let mut acc = [_mm256_setzero_si256(); OUT_VECTORS];
                for (k, a) in acc.iter_mut().enumerate() {
                    // SAFETY: reads 8 i32 at k * 8 < 32, inside [i32; 32].
                    *a = unsafe { _mm256_loadu_si256(biases.as_ptr().add(k * 8).cast()) };
                }
                let blocks = &blocks[..IN / BLOCK_INPUTS];
                // Only blocks with a non-zero input contribute (the input is the clipped
                // transformer output, often sparse).
                let mut nnz = [0u16; MAX_BLOCKS];
                let count = nonzero_blocks(input, &mut nnz);
                // Two sets of sums, taking alternate blocks, so that consecutive additions to
                // one register do not wait for each other (a VNNI dot product has a latency
                // of several cycles).
                let mut odd = [_mm256_setzero_si256(); OUT_VECTORS];
                let block_input = |b: usize| {
                    // SAFETY: `b` is a block index below IN / 4 (from `nonzero_blocks`), so the
                    // four bytes at 4 * b end at most at IN.
                    let four = unsafe { input.as_ptr().add(b * BLOCK_INPUTS).cast::<i32>().read_unaligned() };
                    _mm256_set1_epi32(four)
                };
                let mut pairs = nnz[..count].chunks_exact(2);
                for pair in &mut pairs {
                    let (b0, b1) = (pair[0] as usize, pair[1] as usize);
                    let (x0, x1) = (block_input(b0), block_input(b1));
                    let (w0, w1) = (&blocks[b0].0, &blocks[b1].0);
                    for k in 0..OUT_VECTORS {
                        // SAFETY: reads 32 bytes at k * 32 < 128, inside the block's [i8; 128].
                        let wk0 = unsafe { _mm256_loadu_si256(w0.as_ptr().add(k * 32).cast()) };
                        // SAFETY: as above, in the other block.
                        let wk1 = unsafe { _mm256_loadu_si256(w1.as_ptr().add(k * 32).cast()) };
                        acc[k] = dot4(acc[k], x0, wk0);
                        odd[k] = dot4(odd[k], x1, wk1);
                    }
                }
                if let [b] = *pairs.remainder() {
                    let b = b as usize;
                    let x = block_input(b);
                    for (k, a) in acc.iter_mut().enumerate() {
                        // SAFETY: reads 32 bytes at k * 32 < 128, inside the block's [i8; 128].
                        let wk = unsafe { _mm256_loadu_si256(blocks[b].0.as_ptr().add(k * 32).cast()) };
                        *a = dot4(*a, x, wk);
                    }
                }
                for (a, o) in acc.iter_mut().zip(odd) {
                    *a = _mm256_add_epi32(*a, o);
                }
                for (k, a) in acc.iter().enumerate() {
                    // SAFETY: writes 8 i32 at k * 8 < 32, inside [i32; 32].
                    unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(k * 8).cast(), *a) };
                }
            }

            #[target_feature(enable = $features)]
            pub(super) fn output<const IN: usize>(bias: i32, weights: &[i8; IN], input: &[u8; IN]) -> i32 {
                const { assert!(IN == 32) };
                // SAFETY: one 32-byte load from each array of 32 bytes.
                let (x, w) = unsafe {
                    (_mm256_loadu_si256(input.as_ptr().cast()), _mm256_loadu_si256(weights.as_ptr().cast()))
                };
                let sum = dot4(_mm256_setzero_si256(), x, w);
                let s128 = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256::<1>(sum));
                let s64 = _mm_add_epi32(s128, _mm_shuffle_epi32::<0b01_00_11_10>(s128));
                let s32 = _mm_add_epi32(s64, _mm_shuffle_epi32::<0b10_11_00_01>(s64));
                _mm_cvtsi128_si32(s32).wrapping_add(bias)
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
affine_kernels!(
    avx2,
    "avx2",
    /// Adds `in4 . w4` to each of 8 lanes: `maddubs` multiplies the four unsigned inputs by
    /// the four signed weights and sums pairs to i16 (never saturating here), `madd` by one
    /// sums the pairs to i32.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn dot4(acc: __m256i, inputs: __m256i, weights: __m256i) -> __m256i {
        let pairs = _mm256_maddubs_epi16(inputs, weights);
        _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, _mm256_set1_epi16(1)))
    }
);

#[cfg(target_arch = "x86_64")]
affine_kernels!(
    vnni,
    "avx2,avxvnni",
    /// Adds `in4 . w4` to each of 8 lanes in one instruction, without intermediate saturation.
    #[inline]
    #[target_feature(enable = "avx2,avxvnni")]
    fn dot4(acc: __m256i, inputs: __m256i, weights: __m256i) -> __m256i {
        _mm256_dpbusd_avx_epi32(acc, inputs, weights)
    }
);

/// The affine kernel in 512-bit vectors: the 32 outputs of a block are two registers, and one
/// VNNI instruction adds a broadcast group of four inputs to sixteen of them (the AVX2 kernels
/// need four registers and, without VNNI, three instructions per group).
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::x86::{MAX_BLOCKS, nonzero_blocks};
    use super::{BLOCK_INPUTS, HIDDEN, WeightBlock};
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
    pub(super) fn affine<const IN: usize>(
        biases: &[i32; HIDDEN],
        blocks: &[WeightBlock],
        input: &[u8; IN],
        out: &mut [i32; HIDDEN],
    ) {
        const { assert!(HIDDEN == 32 && HIDDEN * BLOCK_INPUTS == 128) };
        let blocks = &blocks[..IN / BLOCK_INPUTS];
        let mut nnz = [0u16; MAX_BLOCKS];
        let count = nonzero_blocks(input, &mut nnz);
        // SAFETY: reads 16 i32 at offsets 0 and 16 of [i32; 32].
        let biases =
            unsafe { [_mm512_loadu_si512(biases.as_ptr().cast()), _mm512_loadu_si512(biases.as_ptr().add(16).cast())] };
        // Four pairs of sums, each taking every fourth block: a dot product waits for the
        // previous one into the same register (several cycles), so four run side by side.
        let mut sums = [[_mm512_setzero_si512(); 2]; 4];
        sums[0] = biases;
        let block_input = |b: usize| {
            // SAFETY: `b` is a block index below IN / 4 (from `nonzero_blocks`), so the four
            // bytes at 4 * b end at most at IN.
            let four = unsafe { input.as_ptr().add(b * BLOCK_INPUTS).cast::<i32>().read_unaligned() };
            _mm512_set1_epi32(four)
        };
        let add_block = |sum: &mut [__m512i; 2], b: usize| {
            let w = blocks[b].0.as_ptr();
            let x = block_input(b);
            // SAFETY: reads 64 bytes at offsets 0 and 64 of the block's [i8; 128].
            let (w_lo, w_hi) = unsafe { (_mm512_loadu_si512(w.cast()), _mm512_loadu_si512(w.add(64).cast())) };
            sum[0] = _mm512_dpbusd_epi32(sum[0], x, w_lo);
            sum[1] = _mm512_dpbusd_epi32(sum[1], x, w_hi);
        };
        let mut quads = nnz[..count].chunks_exact(4);
        for quad in &mut quads {
            for (sum, &b) in sums.iter_mut().zip(quad) {
                add_block(sum, b as usize);
            }
        }
        for (sum, &b) in sums.iter_mut().zip(quads.remainder()) {
            add_block(sum, b as usize);
        }
        let lo = _mm512_add_epi32(_mm512_add_epi32(sums[0][0], sums[1][0]), _mm512_add_epi32(sums[2][0], sums[3][0]));
        let hi = _mm512_add_epi32(_mm512_add_epi32(sums[0][1], sums[1][1]), _mm512_add_epi32(sums[2][1], sums[3][1]));
        // SAFETY: writes 16 i32 at offsets 0 and 16 of [i32; 32].
        unsafe {
            _mm512_storeu_si512(out.as_mut_ptr().cast(), lo);
            _mm512_storeu_si512(out.as_mut_ptr().add(16).cast(), hi);
        }
    }
}
