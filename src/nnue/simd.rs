//! Choice of instruction set, and the feature transformer kernels (accumulator updates and
//! the clipped conversion to 8-bit inputs) in a scalar and an AVX2 version (the AVX-VNNI
//! backend differs only in the dense layers; AVX-512 VNNI also updates accumulators in 512-bit
//! vectors).
//!
//! Both versions compute the same integers: accumulators use wrapping 16-bit arithmetic (as the
//! vector instructions do), and the conversion clamps to 0..=127 either way.

use super::HALF_DIMENSIONS;
use super::network::FeatureRow;

/// Proof that the running CPU supports AVX2. Only `Backend::avx2` makes one, after asking the
/// CPU, which is what makes calling the AVX2 kernels sound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx2Support(());

/// Proof that the running CPU supports AVX2 and AVX-VNNI (made only by `Backend::avx_vnni`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AvxVnniSupport(());

/// Proof that the running CPU supports AVX2, AVX-512 (F, BW) and AVX-512 VNNI (made only by
/// `Backend::avx512_vnni`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx512VnniSupport(());

/// The instruction set the kernels use. All compute the same integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Plain Rust, any CPU.
    Scalar,
    /// x86-64 AVX2 (256-bit integer vectors).
    Avx2(Avx2Support),
    /// AVX2, with the dense layers' byte dot products in one AVX-VNNI instruction each.
    AvxVnni(AvxVnniSupport),
    /// AVX2, with the first dense layer in 512-bit vectors: one AVX-512 VNNI instruction adds
    /// four inputs to sixteen outputs.
    Avx512Vnni(Avx512VnniSupport),
}

impl Backend {
    /// The fastest backend this CPU supports (the CPU is asked once per process).
    pub fn detect() -> Backend {
        static DETECTED: std::sync::OnceLock<Backend> = std::sync::OnceLock::new();
        *DETECTED.get_or_init(|| {
            Backend::avx512_vnni().or_else(Backend::avx_vnni).or_else(Backend::avx2).unwrap_or(Backend::Scalar)
        })
    }

    /// The AVX2 backend, if the CPU has AVX2.
    pub fn avx2() -> Option<Backend> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Some(Backend::Avx2(Avx2Support(())));
        }
        None
    }

    /// The AVX-VNNI backend, if the CPU has AVX2 and AVX-VNNI.
    pub fn avx_vnni() -> Option<Backend> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("avxvnni") {
            return Some(Backend::AvxVnni(AvxVnniSupport(())));
        }
        None
    }

    /// The AVX-512 VNNI backend, if the CPU has AVX2, AVX-512 F and BW, and AVX-512 VNNI.
    pub fn avx512_vnni() -> Option<Backend> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vnni")
        {
            return Some(Backend::Avx512Vnni(Avx512VnniSupport(())));
        }
        None
    }

    /// Every backend this CPU supports, the portable one first.
    pub fn available() -> Vec<Backend> {
        [Some(Backend::Scalar), Backend::avx2(), Backend::avx_vnni(), Backend::avx512_vnni()]
            .into_iter()
            .flatten()
            .collect()
    }

    pub fn name(self) -> &'static str {
        match self {
            Backend::Scalar => "scalar",
            Backend::Avx2(_) => "avx2",
            Backend::AvxVnni(_) => "avx-vnni",
            Backend::Avx512Vnni(_) => "avx512-vnni",
        }
    }
}

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
    match backend {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: both proofs of support include AVX2.
        Backend::Avx2(_) | Backend::AvxVnni(_) => unsafe { avx2::update_accumulator(src, dst, rows, removed, added) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: an `Avx512VnniSupport` exists only when the CPU reported AVX-512 F and BW.
        Backend::Avx512Vnni(_) => unsafe { avx512::update_accumulator(src, dst, rows, removed, added) },
        _ => scalar_update_accumulator(src, dst, rows, removed, added),
    }
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
    match backend {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: every x86 proof of support includes AVX2.
        Backend::Avx2(_) | Backend::AvxVnni(_) | Backend::Avx512Vnni(_) => unsafe { avx2::transform(us, them, out) },
        _ => scalar_transform(us, them, out),
    }
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
            src: &[i16; super::super::HALF_DIMENSIONS],
            dst: &mut [i16; super::super::HALF_DIMENSIONS],
            rows: &[super::super::network::FeatureRow],
            removed: &[u32],
            added: &[u32],
        ) {
            let mut acc: [$vec; super::super::HALF_DIMENSIONS / $lanes] =
                [$zero(); super::super::HALF_DIMENSIONS / $lanes];
            // SAFETY (all blocks below): every pointer is into a [i16; 256] and offset by
            // k * lanes < 256 elements, so each vector access stays inside its array.
            for (k, a) in acc.iter_mut().enumerate() {
                *a = unsafe { $load(src.as_ptr().add(k * $lanes).cast()) };
            }
            for &r in removed {
                let row = &rows[r as usize].0;
                for (k, a) in acc.iter_mut().enumerate() {
                    *a = $sub(*a, unsafe { $load(row.as_ptr().add(k * $lanes).cast()) });
                }
            }
            for &r in added {
                let row = &rows[r as usize].0;
                for (k, a) in acc.iter_mut().enumerate() {
                    *a = $add(*a, unsafe { $load(row.as_ptr().add(k * $lanes).cast()) });
                }
            }
            for (k, a) in acc.iter().enumerate() {
                unsafe { $store(dst.as_mut_ptr().add(k * $lanes).cast(), *a) };
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::super::HALF_DIMENSIONS;
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
                // SAFETY: reads 32 i16 at j * 32 < 256 and writes 32 bytes at
                // half * 256 + j * 32 < 512, inside the arrays.
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
                unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(half * HALF_DIMENSIONS + j * 32).cast(), ordered) };
            }
        }
    }
}

/// The accumulator update in 512-bit vectors: 8 registers hold the 256 sums.
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
