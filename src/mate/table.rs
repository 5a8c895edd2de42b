//! The mate solver's own transposition table: fixed size, chosen in MiB, never grows.
//!
//! An entry keeps what is known about a position independently of the search bound it was met
//! under: the shortest proven mate (`proof_len` plies), the longest length proven to hold no
//! mate (`disproof_depth`), and the proof and disproof numbers of the latest unfinished search.
//! A search allowed `rem` plies reads the entry as proven when `proof_len <= rem`, as disproven
//! when `disproof_depth >= rem`, and otherwise as open with the stored numbers as estimates.
//! Only results that hold whatever path led to the position are stored (see `dfpn.rs`).
//!
//! Positions are filed by board (with the side to move) and the attacker's hand, so that all
//! hands of one board share a bucket and a lookup can use hand domination: with the same board,
//! an attacker holding at least the pieces of a proven position also mates (the defender then
//! holds at most the pieces it had there, so every defence is one it had), within the same
//! length; an attacker holding at most the pieces of a disproven position does not mate within
//! that length either.

use crate::memory::AllocError;
use crate::shogi::Hand;

/// `disproof_depth` of a position with no mate at any length.
pub const INFINITE_DEPTH: u16 = u16::MAX;
/// `proof_len` of a position without a known mate.
const NO_PROOF: u16 = u16::MAX;
/// Entries per bucket: a probe looks at these and a store replaces the least worked one.
/// Every hand of a board lands in the same bucket, hence more than a cache line's worth.
const BUCKET: usize = 8;

/// Where a position is filed: its board key (including the side to move) and the attacker's
/// hand, which together identify it (the defender holds the remaining pieces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableKey {
    pub board: u64,
    pub hand: Hand,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    board: u64,
    hand: Hand,
    pn: u32,
    dn: u32,
    /// Nodes spent below this position; the replacement scheme keeps costly entries.
    work: u32,
    proof_len: u16,
    disproof_depth: u16,
    /// Search generation that wrote the entry; 0 marks an empty slot.
    generation: u16,
}

/// What the table knows about a position, read for a search allowed `rem` plies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// A mate in `len` plies (`len <= rem`).
    Proven { len: u16 },
    /// No mate within `depth` plies (`depth >= rem`).
    Disproven { depth: u16 },
    /// Undecided at this bound; the numbers of the latest search.
    Open { pn: u32, dn: u32 },
}

pub struct MateTable {
    entries: Vec<Entry>,
    generation: u16,
}

impl MateTable {
    /// A table of `mib` MiB (at least one bucket). Fails cleanly when memory is short.
    pub fn new(mib: usize) -> Result<MateTable, AllocError> {
        let mib = crate::memory::checked_table_mib(mib)?;
        let buckets = ((mib << 20) / (std::mem::size_of::<Entry>() * BUCKET)).max(1);
        let mut entries: Vec<Entry> = Vec::new();
        entries.try_reserve_exact(buckets * BUCKET).map_err(|_| AllocError { mib, machine_mib: None })?;
        entries.resize(buckets * BUCKET, Entry::default());
        Ok(MateTable { entries, generation: 1 })
    }

    pub fn size_mib(&self) -> usize {
        (self.entries.len() * std::mem::size_of::<Entry>()) >> 20
    }

    /// Forgets every entry (in O(1): entries of older generations read as empty).
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Wrapped: old generation numbers would come back to life, so really clear.
            self.entries.fill(Entry::default());
            self.generation = 1;
        }
    }

    #[inline]
    fn bucket_start(&self, board: u64) -> usize {
        // Multiply-shift maps the key onto the buckets without a modulo.
        let buckets = self.entries.len() / BUCKET;
        ((board as u128 * buckets as u128) >> 64) as usize * BUCKET
    }

    #[inline]
    fn bucket(&self, board: u64) -> &[Entry] {
        let start = self.bucket_start(board);
        &self.entries[start..start + BUCKET]
    }

    #[inline]
    fn find(&self, key: TableKey) -> Option<&Entry> {
        self.bucket(key.board)
            .iter()
            .find(|e| e.board == key.board && e.hand == key.hand && e.generation == self.generation)
    }

    /// The slot for `key`: its own entry, else an empty or stale one, else the least worked.
    fn slot(&mut self, key: TableKey) -> &mut Entry {
        let start = self.bucket_start(key.board);
        let generation = self.generation;
        let bucket = &self.entries[start..start + BUCKET];
        let index = match bucket
            .iter()
            .position(|e| e.board == key.board && e.hand == key.hand && e.generation == generation)
        {
            Some(i) => i,
            None => {
                let victim = bucket
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, e)| if e.generation != generation { 0 } else { e.work as u64 + 1 })
                    .map_or(0, |(i, _)| i);
                self.entries[start + victim] = Entry {
                    board: key.board,
                    hand: key.hand,
                    pn: 1,
                    dn: 1,
                    work: 0,
                    proof_len: NO_PROOF,
                    disproof_depth: 0,
                    generation,
                };
                victim
            }
        };
        &mut self.entries[start + index]
    }

    /// What is known about `key` for a search allowed `rem` plies, from its own entry or, for
    /// a settled result, from an entry of the same board with a dominated or dominating hand.
    #[inline]
    pub fn lookup(&self, key: TableKey, rem: u16) -> Option<Known> {
        let mut own = None;
        for e in self.bucket(key.board) {
            if e.board != key.board || e.generation != self.generation {
                continue;
            }
            if e.hand == key.hand {
                own = Some(e);
            }
            if e.proof_len <= rem && key.hand.dominates(e.hand) {
                return Some(Known::Proven { len: e.proof_len });
            }
            if e.disproof_depth >= rem && e.hand.dominates(key.hand) {
                return Some(Known::Disproven { depth: e.disproof_depth });
            }
        }
        own.map(|e| Known::Open { pn: e.pn, dn: e.dn })
    }

    /// Longest length known to hold no mate from `key` itself (0 when nothing is known).
    pub fn disproof_depth(&self, key: TableKey) -> u16 {
        self.find(key).map_or(0, |e| e.disproof_depth)
    }

    pub fn store_open(&mut self, key: TableKey, pn: u32, dn: u32, work: u64) {
        let e = self.slot(key);
        // Zero is reserved for settled results, which live in proof_len / disproof_depth.
        e.pn = pn.max(1);
        e.dn = dn.max(1);
        e.work = e.work.max(work.min(u32::MAX as u64) as u32);
    }

    pub fn store_proof(&mut self, key: TableKey, len: u16, work: u64) {
        let e = self.slot(key);
        e.proof_len = e.proof_len.min(len);
        // A proof of `len` plies contradicts "no mate within len"; only a key collision could
        // cause that, and the proof (checked move by move when used) wins.
        e.disproof_depth = e.disproof_depth.min(len.saturating_sub(1));
        e.work = e.work.max(work.min(u32::MAX as u64) as u32);
    }

    pub fn store_disproof(&mut self, key: TableKey, depth: u16, work: u64) {
        let e = self.slot(key);
        if e.proof_len != NO_PROOF && depth >= e.proof_len {
            return; // contradicts a stored proof (key collision): keep the proof
        }
        e.disproof_depth = e.disproof_depth.max(depth);
        e.work = e.work.max(work.min(u32::MAX as u64) as u32);
    }

    /// Permille of sampled slots holding an entry of this search (for `info hashfull`).
    pub fn hashfull(&self) -> usize {
        let sample = self.entries.len().min(1000);
        self.entries[..sample].iter().filter(|e| e.generation == self.generation).count() * 1000 / sample.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::shogi::PieceType;

    fn key(board: u64, pawns: u32) -> TableKey {
        let mut hand = Hand::EMPTY;
        hand.set(PieceType::Pawn, pawns);
        TableKey { board, hand }
    }

    #[test]
    fn bounds_are_read_against_the_search_bound() {
        let mut t = MateTable::new(1).unwrap();
        let k = key(42, 0);
        t.store_open(k, 3, 5, 10);
        assert_eq!(t.lookup(k, 9), Some(Known::Open { pn: 3, dn: 5 }));
        t.store_disproof(k, 6, 10);
        assert_eq!(t.lookup(k, 5), Some(Known::Disproven { depth: 6 }));
        assert_eq!(t.lookup(k, 7), Some(Known::Open { pn: 3, dn: 5 }));
        t.store_proof(k, 9, 10);
        assert_eq!(t.lookup(k, 7), Some(Known::Open { pn: 3, dn: 5 }));
        assert_eq!(t.lookup(k, 9), Some(Known::Proven { len: 9 }));
        assert_eq!(t.lookup(k, 11), Some(Known::Proven { len: 9 }));
        t.new_search();
        assert_eq!(t.lookup(k, 9), None);
    }

    #[test]
    fn hands_dominate() {
        let mut t = MateTable::new(1).unwrap();
        t.store_proof(key(7, 2), 5, 1);
        t.store_disproof(key(7, 1), 9, 1);
        // More pawns than a proven hand: proven; fewer than a disproven one: disproven.
        assert_eq!(t.lookup(key(7, 3), 5), Some(Known::Proven { len: 5 }));
        assert_eq!(t.lookup(key(7, 0), 9), Some(Known::Disproven { depth: 9 }));
        // Neither: unknown, and nothing carries over to another board.
        assert_eq!(t.lookup(key(7, 3), 3), None);
        assert_eq!(t.lookup(key(8, 3), 5), None);
    }
}
