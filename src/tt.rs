//! Transposition table shared by all search threads without locks.
//!
//! Each entry is two `AtomicU64`: the data word and `key ^ data`. A reader accepts an entry only
//! when `stored_key ^ data == key`, so an entry torn by two racing writers (words from two
//! different stores) fails the check and reads as a miss. The only `unsafe` is the allocation
//! of lazily zeroed memory (`ZeroedBuckets`) and the prefetch hint. Moves read back are hints
//! only: the search checks them with `Position::is_legal`.

use crate::eval::Value;
pub use crate::memory::AllocError;
use crate::memory::{MAX_TABLE_MIB, checked_table_mib};
use crate::shogi::Move;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// No search value, only the static evaluation (stored when a node is first evaluated, so
    /// that a later visit that is pruned before searching need not evaluate again).
    EvalOnly = 0,
    Upper = 1,
    Lower = 2,
    Exact = 3,
}

impl Bound {
    fn from_bits(b: u64) -> Bound {
        match b & 3 {
            0 => Bound::EvalOnly,
            1 => Bound::Upper,
            2 => Bound::Lower,
            _ => Bound::Exact,
        }
    }
}

/// What a probe returns.
#[derive(Copy, Clone, Debug)]
pub struct TtHit {
    pub mv: Option<Move>,
    pub value: Value,
    pub eval: Value,
    pub depth: i32,
    pub bound: Bound,
    pub is_pv: bool,
}

/// Packed data word: move 16 | value 16 | eval 16 | depth 8 | bound 2 | pv 1 | generation 5.
#[derive(Copy, Clone)]
struct Packed(u64);

impl Packed {
    fn new(
        mv: Option<Move>,
        value: Value,
        eval: Value,
        depth: i32,
        bound: Bound,
        is_pv: bool,
        generation: u8,
    ) -> Packed {
        let m = mv.map_or(0, |m| m.raw()) as u64;
        let v = (value.clamp(-32767, 32767) as i16 as u16) as u64;
        let e = (eval.clamp(-32767, 32767) as i16 as u16) as u64;
        let d = (depth.clamp(-1, 254) + 1) as u64; // 0 marks an empty slot
        let b = bound as u64;
        Packed(m | v << 16 | e << 32 | d << 48 | b << 56 | (is_pv as u64) << 58 | ((generation & 31) as u64) << 59)
    }
    fn mv(self) -> Option<Move> {
        Move::from_raw(self.0 as u16)
    }
    fn value(self) -> Value {
        (self.0 >> 16) as u16 as i16 as Value
    }
    fn eval(self) -> Value {
        (self.0 >> 32) as u16 as i16 as Value
    }
    fn depth_raw(self) -> i32 {
        ((self.0 >> 48) & 0xff) as i32
    }
    fn bound(self) -> Bound {
        Bound::from_bits((self.0 >> 56) & 3)
    }
    fn is_pv(self) -> bool {
        (self.0 >> 58) & 1 != 0
    }
    fn generation(self) -> u8 {
        ((self.0 >> 59) & 31) as u8
    }
}

#[derive(Default)]
struct Entry {
    check: AtomicU64, // key ^ data
    data: AtomicU64,
}

const BUCKET: usize = 4;

/// One cache line: four entries.
#[derive(Default)]
#[repr(align(64))]
struct Bucket {
    entries: [Entry; BUCKET],
}

pub struct TranspositionTable {
    buckets: ZeroedBuckets,
    generation: AtomicU8,
}

/// Cache-line-aligned buckets in memory that starts out zeroed.
///
/// Why not `Vec<Bucket>`: a `Vec` of 64-byte-aligned buckets must be written entry by entry
/// (the allocator zeroes over-aligned blocks with a memset), which for the default 256 MiB
/// took 150-900 ms here depending on load, delaying the first move of a game. Fresh memory
/// from the OS is zeroed lazily instead: the table is there in microseconds, and its pages
/// come in when first written (`TranspositionTable::prefault` does that at `isready`).
///
/// On Linux the block is an anonymous mapping advised to use transparent huge pages (2 MiB):
/// 512 times fewer page faults to bring it in (4 GiB: 2,048 instead of a million), fewer TLB
/// misses while searching, and a quick release at exit. Elsewhere it comes from the
/// allocator's `calloc` (16-byte alignment keeps it off the memset path), one bucket longer so
/// that a 64-byte-aligned run of `len` buckets fits in it.
struct ZeroedBuckets {
    base: std::ptr::NonNull<u8>,
    block: Block,
    first: std::ptr::NonNull<Bucket>,
    len: usize,
}

/// Where the memory of `ZeroedBuckets` came from, to give it back the same way.
enum Block {
    Heap(std::alloc::Layout),
    #[cfg(target_os = "linux")]
    Mapped(usize),
}

/// Huge page size on x86_64 and aarch64 Linux with 4 KiB base pages.
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

// SAFETY: ZeroedBuckets owns its block exclusively (like a Box<[Bucket]>), and Bucket is made
// of atomics, which are Sync; sharing `&[Bucket]` across threads is what Vec<Bucket> allows.
unsafe impl Send for ZeroedBuckets {}
// SAFETY: see above; all access goes through `&[Bucket]`, whose entries are atomics.
unsafe impl Sync for ZeroedBuckets {}

impl ZeroedBuckets {
    fn new(len: usize) -> Option<ZeroedBuckets> {
        let bucket = std::mem::size_of::<Bucket>();
        let size = len.checked_add(1)?.checked_mul(bucket)?;
        #[cfg(target_os = "linux")]
        if size >= HUGE_PAGE
            && let Some(b) = Self::mapped(len, size)
        {
            return Some(b);
        }
        let layout = std::alloc::Layout::from_size_align(size, 16).ok()?;
        // SAFETY: `size` is at least one bucket, so the layout is not zero-sized.
        let base = std::ptr::NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })?;
        let offset = base.as_ptr().align_offset(std::mem::align_of::<Bucket>());
        if offset >= bucket {
            // SAFETY: `base` came from `alloc_zeroed` with this layout and is freed once.
            unsafe { std::alloc::dealloc(base.as_ptr(), layout) };
            return None;
        }
        // SAFETY: `offset < bucket`, so `offset + len * bucket <= size`: the aligned run lies
        // inside the block.
        let first = unsafe { base.add(offset) }.cast::<Bucket>();
        Some(ZeroedBuckets { base, block: Block::Heap(layout), first, len })
    }

    /// A private anonymous mapping (zero-filled by the kernel) one huge page longer than
    /// `size`, with the buckets starting on a huge page boundary, advised to use huge pages.
    #[cfg(target_os = "linux")]
    fn mapped(len: usize, size: usize) -> Option<ZeroedBuckets> {
        let total = size.checked_add(HUGE_PAGE)?;
        // SAFETY: a fresh anonymous mapping: no file, no address hint, nothing aliased.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                total,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return None;
        }
        let base = std::ptr::NonNull::new(ptr.cast::<u8>())?;
        let offset = base.as_ptr().align_offset(HUGE_PAGE);
        // SAFETY: `offset < HUGE_PAGE`, so the run of `size` bytes from there lies inside the
        // mapping of `size + HUGE_PAGE` bytes.
        let first = unsafe { base.add(offset) };
        // Only advice: without huge pages (disabled, or none free) the mapping works the same.
        // SAFETY: the range lies inside the mapping made above.
        unsafe { libc::madvise(first.as_ptr().cast(), size, libc::MADV_HUGEPAGE) };
        Some(ZeroedBuckets { base, block: Block::Mapped(total), first: first.cast::<Bucket>(), len })
    }
}

impl std::ops::Deref for ZeroedBuckets {
    type Target = [Bucket];
    fn deref(&self) -> &[Bucket] {
        // SAFETY: `first` is aligned for Bucket and `len` buckets lie inside the live block
        // (see `new`). The block is zero-initialised, and all-zero bytes are a valid Bucket
        // (it holds only AtomicU64s; zero is AtomicU64::new(0)). Nothing hands out `&mut`.
        unsafe { std::slice::from_raw_parts(self.first.as_ptr(), self.len) }
    }
}

impl Drop for ZeroedBuckets {
    fn drop(&mut self) {
        match self.block {
            // SAFETY: allocated in `new` with exactly this layout; dropped once.
            Block::Heap(layout) => unsafe { std::alloc::dealloc(self.base.as_ptr(), layout) },
            // SAFETY: mapped in `mapped` with exactly this length; unmapped once.
            #[cfg(target_os = "linux")]
            Block::Mapped(total) => unsafe {
                libc::munmap(self.base.as_ptr().cast(), total);
            },
        }
    }
}

impl TranspositionTable {
    /// Largest size accepted (MiB); bigger requests are refused before trying.
    pub const MAX_MIB: usize = MAX_TABLE_MIB;
    /// The size used when the one asked for cannot be had (MiB).
    pub const FALLBACK_MIB: usize = 16;

    /// A table of `mib` MiB (at least one bucket). Fails cleanly when memory is short, and
    /// refuses a size beyond the memory of the machine up front: with memory overcommit the
    /// allocation itself could succeed and the process be killed later, as the search fills
    /// the pages.
    pub fn new(mib: usize) -> Result<TranspositionTable, AllocError> {
        let mib = checked_table_mib(mib)?;
        let n = (mib << 20) / std::mem::size_of::<Bucket>();
        let buckets = ZeroedBuckets::new(n).ok_or(AllocError { mib, machine_mib: None })?;
        Ok(TranspositionTable { buckets, generation: AtomicU8::new(0) })
    }

    pub fn size_mib(&self) -> usize {
        (self.buckets.len() * std::mem::size_of::<Bucket>()) >> 20
    }

    pub fn clear(&self) {
        self.clear_with_threads(1);
    }

    /// Empties the table, `threads` threads writing one part each. Writing every page also
    /// brings fresh, lazily zeroed memory in, so that the first search does not pay for it.
    pub fn clear_with_threads(&self, threads: usize) {
        let chunk = self.buckets.len().div_ceil(threads.max(1)).max(1);
        std::thread::scope(|s| {
            for part in self.buckets.chunks(chunk) {
                s.spawn(move || {
                    for b in part {
                        for e in &b.entries {
                            e.check.store(0, Ordering::Relaxed);
                            e.data.store(0, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Brings the pages of a fresh (all-zero) table in, `threads` threads sharing the work, by
    /// writing a zero into one entry of every 4 KiB: the first search then does not pay for
    /// page faults. Writes nothing a table does not already hold only while it is all zero.
    pub fn prefault(&self, threads: usize) {
        let per_page = (4096 / std::mem::size_of::<Bucket>()).max(1);
        let chunk = self.buckets.len().div_ceil(threads.max(1)).max(per_page);
        std::thread::scope(|s| {
            for part in self.buckets.chunks(chunk) {
                s.spawn(move || {
                    for b in part.iter().step_by(per_page) {
                        b.entries[0].check.store(0, Ordering::Relaxed);
                    }
                });
            }
        });
    }

    /// Called once per `go`: older entries become preferred victims.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    fn generation(&self) -> u8 {
        self.generation.load(Ordering::Relaxed) & 31
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        // Multiply-shift maps the key onto the table without a modulo.
        let idx = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[idx]
    }

    /// Asks the CPU to fetch the bucket of `key` into the cache, so that a probe shortly after
    /// (the search prefetches before it plays a move) does not wait for main memory.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let ptr = self.bucket(key) as *const Bucket as *const i8;
            // SAFETY: a prefetch is only a hint: it reads nothing into the program and cannot
            // fault, and SSE, which it needs, is part of every x86_64 target. Measured: bench
            // 5% more nodes/s (three alternating runs, 750-826k without, 788-873k with; the
            // probes fell from 13% to 5% of the profile), more with the bigger tables of games.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(ptr) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    pub fn probe(&self, key: u64) -> Option<TtHit> {
        for e in &self.bucket(key).entries {
            let data = e.data.load(Ordering::Relaxed);
            let check = e.check.load(Ordering::Relaxed);
            if data != 0 && check ^ data == key {
                let p = Packed(data);
                let bound = p.bound();
                return Some(TtHit {
                    mv: p.mv(),
                    value: p.value(),
                    eval: p.eval(),
                    depth: p.depth_raw() - 1,
                    bound,
                    is_pv: p.is_pv(),
                });
            }
        }
        None
    }

    #[allow(clippy::too_many_arguments)]
    pub fn store(&self, key: u64, mv: Option<Move>, value: Value, eval: Value, depth: i32, bound: Bound, is_pv: bool) {
        let bucket = self.bucket(key);
        let generation = self.generation();
        // Same key: overwrite (keeping the old move when the new store has none). Otherwise
        // replace the entry of least worth: shallow and from old searches.
        let mut victim = &bucket.entries[0];
        let mut victim_worth = i32::MAX;
        for e in &bucket.entries {
            let data = e.data.load(Ordering::Relaxed);
            let check = e.check.load(Ordering::Relaxed);
            if data == 0 || check ^ data == key {
                let old = Packed(data);
                if data != 0
                    && bound != Bound::Exact
                    && depth + 2 < old.depth_raw() - 1
                    && old.generation() == generation
                {
                    return; // keep a much deeper entry of this search
                }
                let mv = mv.or(if data != 0 { old.mv() } else { None });
                let p = Packed::new(mv, value, eval, depth, bound, is_pv, generation);
                e.data.store(p.0, Ordering::Relaxed);
                e.check.store(key ^ p.0, Ordering::Relaxed);
                return;
            }
            let old = Packed(data);
            let age = (generation.wrapping_sub(old.generation()) & 31) as i32;
            let worth = old.depth_raw() - 8 * age;
            if worth < victim_worth {
                victim_worth = worth;
                victim = e;
            }
        }
        let p = Packed::new(mv, value, eval, depth, bound, is_pv, generation);
        victim.data.store(p.0, Ordering::Relaxed);
        victim.check.store(key ^ p.0, Ordering::Relaxed);
    }

    /// Per-mille of sampled entries written during the current search.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation();
        let sample = self.buckets.len().min(250);
        let mut used = 0;
        for b in &self.buckets[..sample] {
            for e in &b.entries {
                let d = e.data.load(Ordering::Relaxed);
                if d != 0 && Packed(d).generation() == generation {
                    used += 1;
                }
            }
        }
        if sample == 0 { 0 } else { (used * 1000 / (sample * BUCKET)) as u32 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::Square;

    #[test]
    fn store_and_probe() {
        let tt = TranspositionTable::new(1).unwrap();
        let m = Move::normal(Square::parse("7g").unwrap(), Square::parse("7f").unwrap(), false);
        tt.store(0xdead_beef_1234_5678, Some(m), -123, 45, 7, Bound::Lower, true);
        let h = tt.probe(0xdead_beef_1234_5678).expect("hit");
        assert_eq!((h.mv, h.value, h.eval, h.depth, h.bound, h.is_pv), (Some(m), -123, 45, 7, Bound::Lower, true));
        assert!(tt.probe(0xdead_beef_1234_5679).is_none());
        // An evaluation-only entry: no move, no value, the evaluation, the lowest depth.
        tt.store(0x1234, None, crate::search::VALUE_NONE, -77, -1, Bound::EvalOnly, false);
        let h = tt.probe(0x1234).expect("hit");
        assert_eq!(
            (h.mv, h.value, h.eval, h.depth, h.bound),
            (None, crate::search::VALUE_NONE, -77, -1, Bound::EvalOnly)
        );
        tt.clear();
        assert!(tt.probe(0xdead_beef_1234_5678).is_none());
    }

    #[test]
    fn refuses_absurd_sizes() {
        assert!(TranspositionTable::new(TranspositionTable::MAX_MIB + 1).is_err());
        if let Some(limit) = crate::memory::memory_limit_mib() {
            let e = TranspositionTable::new(limit + 1).err().expect("beyond memory is refused");
            assert_eq!(e.machine_mib, Some(limit));
        }
    }
}
