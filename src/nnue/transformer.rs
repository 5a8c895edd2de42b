//! The feature transformer's kernels: accumulator updates and the clipped conversion to the
//! first layer's 8-bit inputs, in a scalar, an AVX2 and (for the updates) an AVX-512 version.
//!
//! All compute the same integers: accumulators use wrapping 16-bit arithmetic (as the vector
//! instructions do), and the conversion clamps to 0..=127 either way.

use super::backend::Backend;
use super::dims::{FeatureRow, HALF_DIMENSIONS};

/// `dst = src - rows[removed...] + rows[added...]` over the 256 outputs.
#[inline]
pub(crate) fn update_accumulator(
    backend: Backend,
    src: &[i16; HALF_DIMENSIONS],
    dst: &mut [i16; HALF_DIMENSIONS],
    rows: &[FeatureRow],
    removed: &[u32],
    added: &[u32],
) {
    #[cfg(target_arch = "x86_64")]
    {
        if let Backend::Avx512Vnni(_) = backend {
            // SAFETY: an `Avx512VnniSupport` exists only when the CPU reported AVX-512 F and BW.
            return unsafe { avx512::update_accumulator(src, dst, rows, removed, added) };
        }
        if backend.avx2_support().is_some() {
            // SAFETY: an `Avx2Support` exists only when the CPU reported AVX2.
            return unsafe { avx2::update_accumulator(src, dst, rows, removed, added) };
        }
    }
    scalar_update_accumulator(src, dst, rows, removed, added)
}

fn scalar_update_accumulator(
    src: &[i16; HALF_DIMENSIONS],
    dst: &mut [i16; HALF_DIMENSIONS],
    rows: &[FeatureRow],
    removed: &[u32],
    added: &[u32],
) {
    *dst = *src;
    for &r in removed {
        let row = &rows[r as usize].0;
        for (d, w) in dst.iter_mut().zip(row) {
            *d = d.wrapping_sub(*w);
        }
    }
    for &a in added {
        let row = &rows[a as usize].0;
        for (d, w) in dst.iter_mut().zip(row) {
            *d = d.wrapping_add(*w);
        }
    }
}

/// Converts the two accumulators (side to move's first) to the 512 inputs of the first layer,
/// each clamped to 0..=127.
#[inline]
pub(crate) fn transform(
    backend: Backend,
    us: &[i16; HALF_DIMENSIONS],
    them: &[i16; HALF_DIMENSIONS],
    out: &mut [u8; 2 * HALF_DIMENSIONS],
) {
    #[cfg(target_arch = "x86_64")]
    if backend.avx2_support().is_some() {
        // SAFETY: an `Avx2Support` exists only when the CPU reported AVX2.
        return unsafe { avx2::transform(us, them, out) };
    }
    scalar_transform(us, them, out)
}

fn scalar_transform(us: &[i16; HALF_DIMENSIONS], them: &[i16; HALF_DIMENSIONS], out: &mut [u8; 2 * HALF_DIMENSIONS]) {
    let (first, second) = out.split_at_mut(HALF_DIMENSIONS);
    for (o, &v) in first.iter_mut().zip(us) {
        *o = v.clamp(0, 127) as u8;
    }
    for (o, &v) in second.iter_mut().zip(them) {
        *o = v.clamp(0, 127) as u8;
    }
}

/// `update_accumulator` for one vector width: `$lanes` i16 per vector, so 256 / `$lanes`
/// registers hold the accumulator (16 ymm or 8 zmm) and weight rows are read as memory
/// operands. Written once for the AVX2 and AVX-512 backends.
#[cfg(target_arch = "x86_64")]
macro_rules! update_kernel {
    ($features:literal, $vec:ty, $lanes:literal, $zero:ident, $load:ident, $store:ident, $add:ident, $sub:ident) => {
        #[target_feature(enable = $features)]
        pub(super) fn update_accumulator(
            src: &[i16; HALF_DIMENSIONS],
            dst: &mut [i16; HALF_DIMENSIONS],
            rows: &[FeatureRow],
            removed: &[u32],
            added: &[u32],
        ) {
            const VECTORS: usize = HALF_DIMENSIONS / $lanes;
            let mut acc: [$vec; VECTORS] = [$zero(); VECTORS];
            for (k, a) in acc.iter_mut().enumerate() {
                // SAFETY: reads `$lanes` i16 at k * `$lanes`, inside the 256 of `src`.
                *a = unsafe { $load(src.as_ptr().add(k * $lanes).cast()) };
            }
            for &r in removed {
                let row = &rows[r as usize].0;
                for (k, a) in acc.iter_mut().enumerate() {
                    // SAFETY: reads `$lanes` i16 at k * `$lanes`, inside the row's 256.
                    let w = unsafe { $load(row.as_ptr().add(k * $lanes).cast()) };
                    *a = $sub(*a, w);
                }
            }
            for &r in added {
                let row = &rows[r as usize].0;
                for (k, a) in acc.iter_mut().enumerate() {
                    // SAFETY: reads `$lanes` i16 at k * `$lanes`, inside the row's 256.
                    let w = unsafe { $load(row.as_ptr().add(k * $lanes).cast()) };
                    *a = $add(*a, w);
                }
            }
            for (k, a) in acc.iter().enumerate() {
                // SAFETY: writes `$lanes` i16 at k * `$lanes`, inside the 256 of `dst`.
                unsafe { $store(dst.as_mut_ptr().add(k * $lanes).cast(), *a) };
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{FeatureRow, HALF_DIMENSIONS};
    use std::arch::x86_64::*;

    update_kernel!(
        "avx2",
        __m256i,
        16,
        _mm256_setzero_si256,
        _mm256_loadu_si256,
        _mm256_storeu_si256,
        _mm256_add_epi16,
        _mm256_sub_epi16
    );

    #[target_feature(enable = "avx2")]
    pub(super) fn transform(
        us: &[i16; HALF_DIMENSIONS],
        them: &[i16; HALF_DIMENSIONS],
        out: &mut [u8; 2 * HALF_DIMENSIONS],
    ) {
        let zero = _mm256_setzero_si256();
        for (half, acc) in [us, them].into_iter().enumerate() {
            for j in 0..HALF_DIMENSIONS / 32 {
                // SAFETY: reads 32 i16 at j * 32 < 256, inside the accumulator.
                let (a, b) = unsafe {
                    (
                        _mm256_loadu_si256(acc.as_ptr().add(j * 32).cast()),
                        _mm256_loadu_si256(acc.as_ptr().add(j * 32 + 16).cast()),
                    )
                };
                // Saturate to i8, then cut negatives: the same as clamping to 0..=127.
                let packed = _mm256_max_epi8(_mm256_packs_epi16(a, b), zero);
                // packs works per 128-bit lane; put the four 8-byte groups back in order.
                let ordered = _mm256_permute4x64_epi64::<0b11_01_10_00>(packed);
                // SAFETY: writes 32 bytes at half * 256 + j * 32 < 512, inside `out`.
                unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(half * HALF_DIMENSIONS + j * 32).cast(), ordered) };
            }
        }
    }
}

/// The accumulator update in 512-bit vectors: 8 registers hold the 256 sums.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{FeatureRow, HALF_DIMENSIONS};
    use std::arch::x86_64::*;

    update_kernel!(
        "avx512f,avx512bw",
        __m512i,
        32,
        _mm512_setzero_si512,
        _mm512_loadu_si512,
        _mm512_storeu_si512,
        _mm512_add_epi16,
        _mm512_sub_epi16
    );
}
