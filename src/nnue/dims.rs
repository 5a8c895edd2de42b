//! The dimensions of the standard network (halfkp_256x2-32-32: what hayate trains and builds
//! in) and the aligned storage the kernels load from.

/// Outputs of the standard feature transformer per perspective.
pub const HALF_DIMENSIONS: usize = 256;
/// Inputs of the standard first affine layer: both perspectives, side to move first.
pub const TRANSFORMED_DIMENSIONS: usize = 2 * HALF_DIMENSIONS;
/// Width of the standard network's two hidden layers.
pub const HIDDEN: usize = 32;

/// One cache line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u8; 64]);

/// Plain integers that any bytes are a valid value of.
///
/// # Safety
/// Implemented only for primitive integers: every bit pattern is a value, there is no padding,
/// and their alignment divides 64.
pub(crate) unsafe trait Plain: Copy {}
// SAFETY: primitive integers (see the trait).
unsafe impl Plain for i8 {}
// SAFETY: as above.
unsafe impl Plain for u8 {}
// SAFETY: as above.
unsafe impl Plain for i16 {}
// SAFETY: as above.
unsafe impl Plain for i32 {}

/// A run of integers starting on a cache line, of a length known at run time (a network's
/// widths come from its file), zeroed when made.
pub(crate) struct AlignedVec<T: Plain> {
    lines: Vec<Line>,
    len: usize,
    _of: std::marker::PhantomData<T>,
}

impl<T: Plain> AlignedVec<T> {
    /// `len` zeros. Large runs come from the system already zeroed, so only what is written
    /// is ever touched.
    pub(crate) fn zeroed(len: usize) -> AlignedVec<T> {
        let bytes = len.checked_mul(std::mem::size_of::<T>()).expect("size in range");
        let lines = bytes.div_ceil(64);
        let v = if lines == 0 {
            Vec::new()
        } else {
            let layout = std::alloc::Layout::array::<Line>(lines).expect("size in range");
            // SAFETY: the layout has a non-zero size (lines > 0).
            let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut Line;
            if ptr.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            // SAFETY: `ptr` was allocated by the global allocator with the layout of `lines`
            // `Line`s, all initialised (zero bytes are a `Line`), so a Vec may own it.
            unsafe { Vec::from_raw_parts(ptr, lines, lines) }
        };
        AlignedVec { lines: v, len, _of: std::marker::PhantomData }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn as_slice(&self) -> &[T] {
        // SAFETY: the lines hold at least `len * size_of::<T>()` initialised bytes, aligned to
        // 64 (a multiple of T's alignment), and any bytes are a valid T (`Plain`).
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast::<T>(), self.len) }
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast::<T>(), self.len) }
    }
}

impl<T: Plain> Clone for AlignedVec<T> {
    fn clone(&self) -> Self {
        AlignedVec { lines: self.lines.clone(), len: self.len, _of: std::marker::PhantomData }
    }
}

impl<T: Plain + PartialEq> PartialEq for AlignedVec<T> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Plain + PartialEq> Eq for AlignedVec<T> {}

impl<T: Plain + std::fmt::Debug> std::fmt::Debug for AlignedVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}
