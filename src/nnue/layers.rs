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
use super::dims::AlignedVec;

/// Right shift of the affine outputs in the clipped ReLU.
pub const WEIGHT_SCALE_BITS: u32 = 6;

/// Inputs per 32-bit block: the vector kernels broadcast four inputs and multiply them with
/// the four matching weights of every output at once.
const BLOCK_INPUTS: usize = 4;

/// An affine layer of any width: `outputs` sums of `inputs` 8-bit inputs (the input buffer is
/// padded to a multiple of 32 with zeros; outputs are computed in a multiple of 8, the extra
/// ones with zero weights and biases).
pub(crate) struct DenseLayer {
    outputs: usize,
    /// `outputs` rounded up to a multiple of 8 (one AVX2 register of sums).
    out_padded: usize,
    /// Inputs rounded up to a multiple of 32, as the file stores each row.
    in_padded: usize,
    biases: AlignedVec<i32>,
    /// `in_padded / 4` blocks of `out_padded x 4` weights (`[block][output][input in block]`),
    /// re-arranged at load time from the file's row-per-output order.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    blocks: AlignedVec<i8>,
    /// The same weights by input (`columns[input][output]`), so that the portable path adds
    /// one contiguous column per non-zero input, which compilers vectorise.
    columns: AlignedVec<i8>,
}

impl DenseLayer {
    /// Builds the layer from the file's order: `weights[output * in_padded + input]`.
    pub(crate) fn from_file_order(outputs: usize, in_padded: usize, biases: &[i32], weights: &[u8]) -> Self {
        debug_assert!(in_padded.is_multiple_of(32) && biases.len() == outputs);
        debug_assert_eq!(weights.len(), in_padded * outputs);
        let out_padded = outputs.div_ceil(8) * 8;
        let mut b = AlignedVec::zeroed(out_padded);
        b.as_mut_slice()[..outputs].copy_from_slice(biases);
        let mut blocks = AlignedVec::<i8>::zeroed(in_padded * out_padded);
        let mut columns = AlignedVec::<i8>::zeroed(in_padded * out_padded);
        let (bl, co) = (blocks.as_mut_slice(), columns.as_mut_slice());
        for (output, row) in weights.chunks_exact(in_padded).enumerate() {
            for (input, &w) in row.iter().enumerate() {
                let block = input / BLOCK_INPUTS;
                bl[(block * out_padded + output) * BLOCK_INPUTS + input % BLOCK_INPUTS] = w as i8;
                co[input * out_padded + output] = w as i8;
            }
        }
        DenseLayer { outputs, out_padded, in_padded, biases: b, blocks, columns }
    }

    pub(crate) fn outputs(&self) -> usize {
        self.outputs
    }

    /// The biases, and the weights in the file's order (`rows[output][input]`, padded inputs).
    pub(crate) fn to_file_order(&self) -> (Vec<i32>, Vec<Vec<i8>>) {
        let co = self.columns.as_slice();
        let rows =
            (0..self.outputs).map(|o| (0..self.in_padded).map(|i| co[i * self.out_padded + o]).collect()).collect();
        (self.biases.as_slice()[..self.outputs].to_vec(), rows)
    }

    /// `out[..outputs] = biases + W * input`; `input` holds the padded inputs, `out` at least
    /// the padded outputs.
    #[inline]
    pub(crate) fn propagate(&self, backend: Backend, input: &[u8], out: &mut [i32]) {
        let input = &input[..self.in_padded];
        let out = &mut out[..self.out_padded];
        #[cfg(target_arch = "x86_64")]
        {
            let (biases, blocks) = (self.biases.as_slice(), self.blocks.as_slice());
            let op = self.out_padded;
            match backend {
                Backend::Avx512Vnni(_) if op.is_multiple_of(32) => {
                    // SAFETY: an `Avx512VnniSupport` exists only when the CPU reported AVX2,
                    // AVX-512 F, BW and VNNI.
                    return unsafe { avx512::affine(biases, blocks, input, out) };
                }
                // SAFETY: an `AvxVnniSupport` exists only when the CPU reported AVX2 and AVX-VNNI.
                Backend::AvxVnni(_) => return unsafe { vnni::affine(biases, blocks, input, out) },
                _ if backend.avx2_support().is_some() => {
                    // SAFETY: an `Avx2Support` exists only when the CPU reported AVX2.
                    return unsafe { avx2::affine(biases, blocks, input, out) };
                }
                _ => {}
            }
        }
        self.propagate_scalar(input, out)
    }

    fn propagate_scalar(&self, input: &[u8], out: &mut [i32]) {
        out.copy_from_slice(self.biases.as_slice());
        // Inputs are often zero (clipped); skip them as the sparse reference does.
        for (&x, column) in input.iter().zip(self.columns.as_slice().chunks_exact(self.out_padded)) {
            if x == 0 {
                continue;
            }
            for (acc, &w) in out.iter_mut().zip(column) {
                *acc = acc.wrapping_add(x as i32 * w as i32);
            }
        }
    }
}

/// The final affine layer: one output from a padded run of inputs.
pub(crate) struct OutputLayer {
    bias: i32,
    weights: AlignedVec<i8>,
}

impl OutputLayer {
    /// From the file's row of `in_padded` weights (a multiple of 32).
    pub(crate) fn from_file_order(bias: i32, weights: &[u8]) -> Self {
        let mut w = AlignedVec::<i8>::zeroed(weights.len());
        for (d, &s) in w.as_mut_slice().iter_mut().zip(weights) {
            *d = s as i8;
        }
        OutputLayer { bias, weights: w }
    }

    pub(crate) fn to_file_order(&self) -> (i32, Vec<i8>) {
        (self.bias, self.weights.as_slice().to_vec())
    }

    #[inline]
    pub(crate) fn propagate(&self, backend: Backend, input: &[u8]) -> i32 {
        let weights = self.weights.as_slice();
        let input = &input[..weights.len()];
        #[cfg(target_arch = "x86_64")]
        {
            if let Backend::AvxVnni(_) = backend {
                // SAFETY: an `AvxVnniSupport` exists only when the CPU reported AVX2 and AVX-VNNI.
                return unsafe { vnni::output(self.bias, weights, input) };
            }
            if backend.avx2_support().is_some() {
                // SAFETY: an `Avx2Support` exists only when the CPU reported AVX2.
                return unsafe { avx2::output(self.bias, weights, input) };
            }
        }
        input.iter().zip(weights).fold(self.bias, |acc, (&x, &w)| acc.wrapping_add(x as i32 * w as i32))
    }
}

/// Clipped ReLU: `clamp(x >> 6, 0, 127)` on the first `n` values; `out` past `n` (the next
/// layer's padding) is left as it is.
#[inline]
pub(crate) fn clipped_relu(backend: Backend, input: &[i32], out: &mut [u8], n: usize) {
    #[cfg(target_arch = "x86_64")]
    if backend.avx2_support().is_some() && n.is_multiple_of(32) {
        for (i, o) in input[..n].chunks_exact(32).zip(out[..n].chunks_exact_mut(32)) {
            // SAFETY: an `Avx2Support` exists only when the CPU reported AVX2; both chunks
            // hold 32 values.
            unsafe { x86::clipped_relu(i.try_into().expect("32"), o.try_into().expect("32")) };
        }
        return;
    }
    for (o, &x) in out[..n].iter_mut().zip(&input[..n]) {
        *o = (x >> WEIGHT_SCALE_BITS).clamp(0, 127) as u8;
    }
}

/// Kernels shared by every x86 backend (AVX2 only).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::WEIGHT_SCALE_BITS;
    use crate::nnue::arch::MAX_HALF;
    use std::arch::x86_64::*;

    /// Most input blocks of a layer (the widest transformer's two halves / 4).
    const MAX_BLOCKS: usize = 2 * MAX_HALF / super::BLOCK_INPUTS;
    /// Input blocks of the standard network's widest layer (512 inputs / 4): its list of
    /// non-zero blocks lives in an array this small, since the array is zeroed at every call.
    const STANDARD_BLOCKS: usize = 128;

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

    /// Writes the indices of the non-zero 4-byte blocks of `input` (a multiple of 32 bytes) to
    /// `nnz` (room for `input.len() / 4` of them) and returns their number, without a branch
    /// per block (so that only the caller's loop over the list mispredicts, once).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn nonzero_blocks(input: &[u8], nnz: &mut [u16]) -> usize {
        assert!(input.len().is_multiple_of(32) && input.len() / super::BLOCK_INPUTS <= nnz.len());
        let zero = _mm256_setzero_si256();
        let mut count = 0;
        for g in 0..input.len() / 32 {
            // SAFETY: reads bytes g * 32 .. g * 32 + 32 <= len of the input.
            let v = unsafe { _mm256_loadu_si256(input.as_ptr().add(g * 32).cast()) };
            // Inputs are at most 127, so a block is non-zero exactly when its i32 is positive.
            let mask = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(v, zero))) as usize;
            let indices = _mm_add_epi16(
                _mm_set1_epi16((g * 8) as i16),
                // SAFETY: one row of 8 u16 of the table.
                unsafe { _mm_loadu_si128(NNZ_OFFSETS[mask].as_ptr().cast()) },
            );
            // SAFETY: count <= g * 8, so the 8 entries written end at most at
            // g * 8 + 8 <= len / 4 <= nnz.len() (asserted above).
            unsafe { _mm_storeu_si128(nnz.as_mut_ptr().add(count).cast(), indices) };
            count += mask.count_ones() as usize;
        }
        count
    }

    /// Calls `f` with the indices of the non-zero 4-byte blocks of `input`, listed in an
    /// array no larger than the input needs (the array is zeroed at every call, so layers of
    /// up to 512 inputs, the standard network's, get a small one).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn with_nonzero_blocks<R>(input: &[u8], f: impl FnOnce(&[u16]) -> R) -> R {
        if input.len() / super::BLOCK_INPUTS <= STANDARD_BLOCKS {
            let mut nnz = [0u16; STANDARD_BLOCKS];
            let count = nonzero_blocks(input, &mut nnz);
            f(&nnz[..count])
        } else {
            let mut nnz = [0u16; MAX_BLOCKS];
            let count = nonzero_blocks(input, &mut nnz);
            f(&nnz[..count])
        }
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn clipped_relu(input: &[i32; 32], out: &mut [u8; 32]) {
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
            use super::BLOCK_INPUTS;
            use super::x86::with_nonzero_blocks;
            use std::arch::x86_64::*;

            $dot4

            /// `out = biases + W * input` for `biases.len()` outputs (a multiple of 8), with
            /// `blocks` as `DenseLayer` keeps them and `input` a multiple of 32 bytes.
            ///
            /// # Safety
            /// The CPU has the kernel's features.
            #[target_feature(enable = $features)]
            pub(super) unsafe fn affine(biases: &[i32], blocks: &[i8], input: &[u8], out: &mut [i32]) {
                let outputs = biases.len();
                assert!(outputs.is_multiple_of(8) && out.len() == outputs);
                assert!(blocks.len() == input.len() * outputs);
                // Only blocks with a non-zero input contribute (the input is the clipped
                // transformer output, often sparse).
                with_nonzero_blocks(input, |nnz| {
                let mut start = 0;
                while start < outputs {
                    let g = match outputs - start {
                        32.. => 4,
                        16.. => 2,
                        _ => 1,
                    };
                    // SAFETY: the CPU has the features (this function's contract);
                    // `start + 8 * g <= outputs`, and every block index is below
                    // `input.len() / 4` (from `nonzero_blocks`), so the weights read are inside
                    // `blocks` (size asserted above).
                    start += unsafe {
                        match g {
                            4 => group::<4>(biases, blocks, input, nnz, start, out),
                            2 => group::<2>(biases, blocks, input, nnz, start, out),
                            _ => group::<1>(biases, blocks, input, nnz, start, out),
                        }
                    };
                }
                })
            }

            /// Outputs `start .. start + 8 * G`; returns `8 * G`.
            ///
            /// # Safety
            /// As `affine`'s, with `start + 8 * G <= biases.len()` and the block indices below
            /// `input.len() / 4`.
            #[inline]
            #[target_feature(enable = $features)]
            unsafe fn group<const G: usize>(
                biases: &[i32],
                blocks: &[i8],
                input: &[u8],
                nnz: &[u16],
                start: usize,
                out: &mut [i32],
            ) -> usize {
                let outputs = biases.len();
                let mut acc = [_mm256_setzero_si256(); G];
                for (k, a) in acc.iter_mut().enumerate() {
                    // SAFETY: reads 8 i32 at start + k * 8 < outputs.
                    *a = unsafe { _mm256_loadu_si256(biases.as_ptr().add(start + k * 8).cast()) };
                }
                // Two sets of sums, taking alternate blocks, so that consecutive additions to
                // one register do not wait for each other (a VNNI dot product has a latency
                // of several cycles).
                let mut odd = [_mm256_setzero_si256(); G];
                let block_input = |b: usize| {
                    // SAFETY: `b` is a block index below len / 4, so the four bytes at 4 * b
                    // are inside the input.
                    let four = unsafe { input.as_ptr().add(b * BLOCK_INPUTS).cast::<i32>().read_unaligned() };
                    _mm256_set1_epi32(four)
                };
                let weights = |b: usize| blocks.as_ptr().wrapping_add((b * outputs + start) * BLOCK_INPUTS);
                let mut pairs = nnz.chunks_exact(2);
                for pair in &mut pairs {
                    let (b0, b1) = (pair[0] as usize, pair[1] as usize);
                    let (x0, x1) = (block_input(b0), block_input(b1));
                    let (w0, w1) = (weights(b0), weights(b1));
                    for k in 0..G {
                        // SAFETY: reads 32 bytes at k * 32 of the block's weights for these
                        // outputs (the caller's bounds).
                        let wk0 = unsafe { _mm256_loadu_si256(w0.add(k * 32).cast()) };
                        // SAFETY: as above, in the other block.
                        let wk1 = unsafe { _mm256_loadu_si256(w1.add(k * 32).cast()) };
                        acc[k] = dot4(acc[k], x0, wk0);
                        odd[k] = dot4(odd[k], x1, wk1);
                    }
                }
                if let [b] = *pairs.remainder() {
                    let b = b as usize;
                    let x = block_input(b);
                    let w = weights(b);
                    for (k, a) in acc.iter_mut().enumerate() {
                        // SAFETY: as above.
                        let wk = unsafe { _mm256_loadu_si256(w.add(k * 32).cast()) };
                        *a = dot4(*a, x, wk);
                    }
                }
                for (k, (a, o)) in acc.iter().zip(odd).enumerate() {
                    // SAFETY: writes 8 i32 at start + k * 8 < outputs = out.len().
                    unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(start + k * 8).cast(), _mm256_add_epi32(*a, o)) };
                }
                8 * G
            }

            /// `bias + weights . input` over a multiple of 32 bytes.
            ///
            /// # Safety
            /// The CPU has the kernel's features.
            #[target_feature(enable = $features)]
            pub(super) unsafe fn output(bias: i32, weights: &[i8], input: &[u8]) -> i32 {
                assert!(weights.len() == input.len() && input.len().is_multiple_of(32));
                let mut sum = _mm256_setzero_si256();
                for j in 0..input.len() / 32 {
                    // SAFETY: one 32-byte load from each slice at j * 32 < len.
                    let (x, w) = unsafe {
                        (
                            _mm256_loadu_si256(input.as_ptr().add(j * 32).cast()),
                            _mm256_loadu_si256(weights.as_ptr().add(j * 32).cast()),
                        )
                    };
                    sum = dot4(sum, x, w);
                }
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

/// The affine kernel in 512-bit vectors: 32 outputs of a block are two registers, and one
/// VNNI instruction adds a broadcast group of four inputs to sixteen of them (the AVX2 kernels
/// need four registers and, without VNNI, three instructions per group).
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::BLOCK_INPUTS;
    use super::x86::with_nonzero_blocks;
    use std::arch::x86_64::*;

    /// `out = biases + W * input` for a multiple of 32 outputs.
    ///
    /// # Safety
    /// The CPU has AVX2, AVX-512 F, BW and VNNI.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn affine(biases: &[i32], blocks: &[i8], input: &[u8], out: &mut [i32]) {
        let outputs = biases.len();
        assert!(outputs.is_multiple_of(32) && out.len() == outputs);
        assert!(blocks.len() == input.len() * outputs);
        with_nonzero_blocks(input, |nnz| {
            for start in (0..outputs).step_by(32) {
                // SAFETY: reads 16 i32 at start and start + 16 < outputs.
                let biases = unsafe {
                    [
                        _mm512_loadu_si512(biases.as_ptr().add(start).cast()),
                        _mm512_loadu_si512(biases.as_ptr().add(start + 16).cast()),
                    ]
                };
                // Four pairs of sums, each taking every fourth block: a dot product waits for the
                // previous one into the same register (several cycles), so four run side by side.
                let mut sums = [[_mm512_setzero_si512(); 2]; 4];
                sums[0] = biases;
                let add_block = |sum: &mut [__m512i; 2], b: usize| {
                    let w = blocks.as_ptr().wrapping_add((b * outputs + start) * BLOCK_INPUTS);
                    // SAFETY: `b` is a block index below len / 4 (from `nonzero_blocks`), so the
                    // four input bytes at 4 * b are inside the input, and the 128 weight bytes of
                    // these 32 outputs inside `blocks` (size asserted above).
                    let (x, w_lo, w_hi) = unsafe {
                        let four = input.as_ptr().add(b * BLOCK_INPUTS).cast::<i32>().read_unaligned();
                        (_mm512_set1_epi32(four), _mm512_loadu_si512(w.cast()), _mm512_loadu_si512(w.add(64).cast()))
                    };
                    sum[0] = _mm512_dpbusd_epi32(sum[0], x, w_lo);
                    sum[1] = _mm512_dpbusd_epi32(sum[1], x, w_hi);
                };
                let mut quads = nnz.chunks_exact(4);
                for quad in &mut quads {
                    for (sum, &b) in sums.iter_mut().zip(quad) {
                        add_block(sum, b as usize);
                    }
                }
                for (sum, &b) in sums.iter_mut().zip(quads.remainder()) {
                    add_block(sum, b as usize);
                }
                let lo = _mm512_add_epi32(
                    _mm512_add_epi32(sums[0][0], sums[1][0]),
                    _mm512_add_epi32(sums[2][0], sums[3][0]),
                );
                let hi = _mm512_add_epi32(
                    _mm512_add_epi32(sums[0][1], sums[1][1]),
                    _mm512_add_epi32(sums[2][1], sums[3][1]),
                );
                // SAFETY: writes 16 i32 at start and start + 16 < outputs = out.len().
                unsafe {
                    _mm512_storeu_si512(out.as_mut_ptr().add(start).cast(), lo);
                    _mm512_storeu_si512(out.as_mut_ptr().add(start + 16).cast(), hi);
                }
            }
        })
    }
}
