//! The choice of instruction set. A backend is a proof that the running CPU has what its
//! kernels need: only the constructors here make one, after asking the CPU, which is what makes
//! calling a kernel compiled for those instructions sound.

/// Proof that the running CPU supports AVX2 (made by `Backend::avx2`, and by
/// `Backend::avx2_support` from any backend that includes AVX2).
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
    /// AVX2, with the first dense layer and the accumulator updates in 512-bit vectors: one
    /// AVX-512 VNNI instruction adds four inputs to sixteen outputs.
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

    /// The AVX2 support that every vector backend includes (`None` for the scalar one): the
    /// kernels that need AVX2 alone ask this, so that a new backend is one edit here.
    #[inline]
    pub fn avx2_support(self) -> Option<Avx2Support> {
        match self {
            Backend::Scalar => None,
            Backend::Avx2(proof) => Some(proof),
            // Both were made only after the CPU reported AVX2 (see their constructors).
            Backend::AvxVnni(_) | Backend::Avx512Vnni(_) => Some(Avx2Support(())),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_vector_backend_includes_avx2_and_scalar_does_not() {
        for backend in Backend::available() {
            assert_eq!(backend.avx2_support().is_some(), backend != Backend::Scalar, "{}", backend.name());
        }
    }
}
