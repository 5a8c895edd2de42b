//! The feature transformer's kernels: accumulator updates and the clipped conversion to the
//! first layer's 8-bit inputs, in a scalar, an AVX2 and (for the updates) an AVX-512 version.
//!
//! All compute the same integers: accumulators use wrapping 16-bit arithmetic (as the vector
//! instructions do), and the conversion clamps to 0..=127 either way.

use super::backend::Backend;

/// Outputs updated together: the vector kernels keep this many sums in registers (16 AVX2 or 8
/// AVX-512 registers) while they add every changed feature's row, then move to the next.
const TILE: usize = 256;
/// The narrowest tile, for the rest of a width that is not a multiple of `TILE`.
const SMALL_TILE: usize = 32;

/// `dst = src - rows[removed...] + rows[added...]`, where row `r` is the `src.len()` outputs at
/// `weights[r * src.len()..]`. Widths are multiples of 32.
#[inline]
pub(crate) fn update_accumulator(
    backend: Backend,
    src: &[i16],
    dst: &mut [i16],
    weights: &[i16],
    removed: &[u32],
    added: &[u32],
) {
    let half = src.len();
    assert!(dst.len() == half && half.is_multiple_of(SMALL_TILE));
    #[cfg(target_arch = "x86_64")]
    {
        // (No division: this runs at every node.)
        let in_range = |&r: &u32| (r as usize + 1) * half <= weights.len();
        assert!(removed.iter().all(in_range) && added.iter().all(in_range), "feature row out of range");
        if let Backend::Avx512Vnni(_) = backend {
            // SAFETY: an `Avx512VnniSupport` exists only when the CPU reported AVX-512 F and
            // BW; every row is inside `weights` (asserted above).
            return unsafe { avx512::update(src, dst, weights, removed, added) };
        }
        if backend.avx2_support().is_some() {
            // SAFETY: an `Avx2Support` exists only when the CPU reported AVX2; row indices as
            // above.
            return unsafe { avx2::update(src, dst, weights, removed, added) };
        }
    }
    scalar_update_accumulator(src, dst, weights, removed, added)
}

fn scalar_update_accumulator(src: &[i16], dst: &mut [i16], weights: &[i16], removed: &[u32], added: &[u32]) {
    let half = src.len();
    dst.copy_from_slice(src);
    for &r in removed {
        let row = &weights[r as usize * half..][..half];
        for (d, w) in dst.iter_mut().zip(row) {
            *d = d.wrapping_sub(*w);
        }
    }
    for &a in added {
        let row = &weights[a as usize * half..][..half];
        for (d, w) in dst.iter_mut().zip(row) {
            *d = d.wrapping_add(*w);
        }
    }
}

/// Converts the two accumulators (side to move's first) to the first layer's inputs, each
/// clamped to 0..=127 (`out` holds both halves).
#[inline]
pub(crate) fn transform(backend: Backend, us: &[i16], them: &[i16], out: &mut [u8]) {
    debug_assert!(us.len() == them.len() && out.len() == 2 * us.len());
    #[cfg(target_arch = "x86_64")]
    if backend.avx2_support().is_some() && us.len().is_multiple_of(32) {
        // SAFETY: an `Avx2Support` exists only when the CPU reported AVX2.
        return unsafe { avx2::transform(us, them, out) };
    }
    scalar_transform(us, them, out)
}

/// SFNN's conversion: each accumulator's first half times its second, each clamped to
/// 0..=254, `>> 9` (as the reference computes it: `(a << 7) * b >> 16`), the side to move's
/// products first (`out` holds one accumulator's width).
#[inline]
pub(crate) fn transform_pairwise(backend: Backend, us: &[i16], them: &[i16], out: &mut [u8]) {
    debug_assert!(us.len() == them.len() && out.len() == us.len());
    #[cfg(target_arch = "x86_64")]
    if backend.avx2_support().is_some() && us.len().is_multiple_of(64) {
        // SAFETY: an `Avx2Support` exists only when the CPU reported AVX2.
        return unsafe { avx2_pairwise::transform_pairwise(us, them, out) };
    }
    scalar_transform_pairwise(us, them, out)
}

fn scalar_transform_pairwise(us: &[i16], them: &[i16], out: &mut [u8]) {
    let half = us.len() / 2;
    for (acc, out) in [us, them].into_iter().zip(out.chunks_exact_mut(half)) {
        let (first, second) = acc.split_at(half);
        for ((o, &a), &b) in out.iter_mut().zip(first).zip(second) {
            let (a, b) = (a.clamp(0, 254) as i32, b.clamp(0, 254) as i32);
            *o = (((a << 7) * b) >> 16) as u8;
        }
    }
}

fn scalar_transform(us: &[i16], them: &[i16], out: &mut [u8]) {
    let (first, second) = out.split_at_mut(us.len());
    for (o, &v) in first.iter_mut().zip(us) {
        *o = v.clamp(0, 127) as u8;
    }
    for (o, &v) in second.iter_mut().zip(them) {
        *o = v.clamp(0, 127) as u8;
    }
}

/// The update for one vector width: `$lanes` i16 per vector; a tile of `N` outputs (at `start`
/// of each row of `half`) is held in `N / $lanes` registers while every changed row is added,
/// and weight rows are read as memory operands. Written once for the AVX2 and AVX-512 backends.
#[cfg(target_arch = "x86_64")]
macro_rules! update_kernel {
    ($features:literal, $vec:ty, $lanes:literal, $zero:ident, $load:ident, $store:ident, $add:ident, $sub:ident) => {
        /// The whole update, tile by tile (the standard width is one tile).
        ///
        /// # Safety
        /// The CPU has the kernel's features, `src` and `dst` hold the same multiple of 32
        /// values, and every row index is below `weights.len() / src.len()`.
        #[target_feature(enable = $features)]
        pub(super) unsafe fn update(src: &[i16], dst: &mut [i16], weights: &[i16], removed: &[u32], added: &[u32]) {
            let half = src.len();
            // Tiles as whole numbers of registers: `TILE_VECTORS` x `$lanes` = `TILE`.
            const TILE_VECTORS: usize = super::TILE / $lanes;
            const SMALL_VECTORS: usize = super::SMALL_TILE / $lanes;
            if half == super::TILE {
                // SAFETY: the caller's contract, with one tile of the whole width.
                return unsafe { update_tile::<TILE_VECTORS>(src, dst, weights, half, 0, removed, added) };
            }
            let mut start = 0;
            while start < half {
                let n = if half - start >= super::TILE { super::TILE } else { super::SMALL_TILE };
                let (s, d) = (&src[start..start + n], &mut dst[start..start + n]);
                // SAFETY: the caller's contract; `start + n <= half`.
                unsafe {
                    if n == super::TILE {
                        update_tile::<TILE_VECTORS>(s, d, weights, half, start, removed, added)
                    } else {
                        update_tile::<SMALL_VECTORS>(s, d, weights, half, start, removed, added)
                    }
                }
                start += n;
            }
        }

        /// One tile of `V` registers (`V x $lanes` outputs, `N` below), kept in an array of
        /// exactly that many so that it stays in registers.
        ///
        /// # Safety
        /// The CPU has the kernel's features, `src` and `dst` hold `N` values, and every row
        /// index `r` has `weights[r * half + start..][..N]` in bounds.
        #[inline]
        #[target_feature(enable = $features)]
        unsafe fn update_tile<const V: usize>(
            src: &[i16],
            dst: &mut [i16],
            weights: &[i16],
            half: usize,
            start: usize,
            removed: &[u32],
            added: &[u32],
        ) {
            let n = V * $lanes;
            let mut acc: [$vec; V] = [$zero(); V];
            assert!(src.len() == n && dst.len() == n);
            for (k, a) in acc.iter_mut().enumerate() {
                // SAFETY: reads `$lanes` i16 at k * `$lanes` < N, inside `src`.
                *a = unsafe { $load(src.as_ptr().add(k * $lanes).cast()) };
            }
            for &r in removed {
                let row = weights.as_ptr().wrapping_add(r as usize * half + start);
                for (k, a) in acc.iter_mut().enumerate() {
                    // SAFETY: the row's N values are in bounds (the caller's contract).
                    let w = unsafe { $load(row.add(k * $lanes).cast()) };
                    *a = $sub(*a, w);
                }
            }
            for &r in added {
                let row = weights.as_ptr().wrapping_add(r as usize * half + start);
                for (k, a) in acc.iter_mut().enumerate() {
                    // SAFETY: as above.
                    let w = unsafe { $load(row.add(k * $lanes).cast()) };
                    *a = $add(*a, w);
                }
            }
            for (k, a) in acc.iter().enumerate() {
                // SAFETY: writes `$lanes` i16 at k * `$lanes` < N, inside `dst`.
                unsafe { $store(dst.as_mut_ptr().add(k * $lanes).cast(), *a) };
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
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

    /// # Safety
    /// The CPU has AVX2; `us` and `them` hold a multiple of 32 values, `out` twice as many.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn transform(us: &[i16], them: &[i16], out: &mut [u8]) {
        let half = us.len();
        assert!(them.len() == half && out.len() == 2 * half && half.is_multiple_of(32));
        let zero = _mm256_setzero_si256();
        for (h, acc) in [us, them].into_iter().enumerate() {
            for j in 0..half / 32 {
                // SAFETY: reads 32 i16 at j * 32 < half, inside the accumulator.
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
                // SAFETY: writes 32 bytes at h * half + j * 32 < 2 * half, inside `out`.
                unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(h * half + j * 32).cast(), ordered) };
            }
        }
    }
}

/// SFNN's pairwise products in 256-bit vectors (see `transform_pairwise`).
#[cfg(target_arch = "x86_64")]
mod avx2_pairwise {
    use std::arch::x86_64::*;

    /// # Safety
    /// The CPU has AVX2; `us` and `them` hold a multiple of 64 values, `out` as many.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn transform_pairwise(us: &[i16], them: &[i16], out: &mut [u8]) {
        let width = us.len();
        let half = width / 2;
        assert!(them.len() == width && out.len() == width && half.is_multiple_of(32));
        let zero = _mm256_setzero_si256();
        let top = _mm256_set1_epi16(254);
        for (h, acc) in [us, them].into_iter().enumerate() {
            for j in (0..half).step_by(32) {
                // SAFETY: reads 32 i16 at j < half and at half + j, inside the accumulator.
                let [a0, a1, b0, b1] = [j, j + 16, half + j, half + j + 16]
                    .map(|at| unsafe { _mm256_loadu_si256(acc.as_ptr().add(at).cast()) });
                let clamp_shift = |a| _mm256_slli_epi16::<7>(_mm256_min_epi16(_mm256_max_epi16(a, zero), top));
                // A negative second factor makes a negative product, which the unsigned pack
                // turns into 0 as the clamp would.
                let p0 = _mm256_mulhi_epi16(clamp_shift(a0), _mm256_min_epi16(b0, top));
                let p1 = _mm256_mulhi_epi16(clamp_shift(a1), _mm256_min_epi16(b1, top));
                // packus works per 128-bit lane; put the four 8-byte groups back in order.
                let ordered = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(p0, p1));
                // SAFETY: writes 32 bytes at h * half + j < width, inside `out`.
                unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(h * half + j).cast(), ordered) };
            }
        }
    }
}

/// The accumulator update in 512-bit vectors: 8 registers hold a tile of 256 sums.
#[cfg(target_arch = "x86_64")]
mod avx512 {
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
