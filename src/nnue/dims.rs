//! The dimensions of halfkp_256x2-32-32 and the aligned storage the kernels load from.

/// Outputs of the feature transformer per perspective.
pub const HALF_DIMENSIONS: usize = 256;
/// Inputs of the first affine layer: both perspectives, side to move first.
pub const TRANSFORMED_DIMENSIONS: usize = 2 * HALF_DIMENSIONS;
/// Width of the two hidden layers.
pub const HIDDEN: usize = 32;

/// Cache-line alignment for vector loads that never split a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub(crate) struct Aligned<T>(pub(crate) T);

/// One row of feature transformer weights (the 256 outputs of one feature).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct FeatureRow(pub(crate) [i16; HALF_DIMENSIONS]);
