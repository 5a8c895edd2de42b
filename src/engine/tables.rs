//! The engine's tables and what they keep between searches, with one policy for all of them:
//!
//! - The transposition table has the size of `USI_Hash`. `prepare` (`isready`) allocates it
//!   and writes every page, and empties it when it holds a finished game's entries, so that
//!   `readyok` means the first search runs at full speed. A search without `isready` before it
//!   allocates lazily zeroed memory instead (microseconds; the pages fault in as it searches).
//! - Entries are kept from move to move. A new game (`usinewgame`) forgets the histories, and
//!   empties a table that was searched in since it was last emptied; `gameover` marks the
//!   entries as a finished game's, for the next `isready` to empty.
//! - A size that cannot be allocated falls back to `TranspositionTable::FALLBACK_MIB` and is not
//!   tried again until `USI_Hash` changes, so the error is reported once.
//! - The histories, correction tables and root mate probe solver of each search thread
//!   (`ThreadData`) are kept between searches too.
//! - The mate search of `go mate` has its own table: a quarter of `USI_Hash`, at most
//!   `MATE_HASH_MIB_CAP`, allocated when first needed and kept while the size stays.
//! - The opening book is read at `prepare` when `BookFile` names another file than the one
//!   read before (a book that cannot be read leaves none).
//! - The NNUE network (`EvalDir`'s file, or the built-in one under `BuiltInNetwork`) is read at `prepare`
//!   unless that one is loaded; a file that cannot be used leaves the evaluation as it was
//!   (the previous network, or none).

use super::options::NetworkSource;
use crate::book::{Book, BookError};
use crate::mate::{DEFAULT_MATE_HASH_MIB, MateSolver};
use crate::nnue::{Network, NnueError};
use crate::search::ThreadData;
use crate::tt::{AllocError, TranspositionTable};
use std::sync::Arc;

/// The mate table takes this fraction of `USI_Hash` (it comes on top of the main table)...
const MATE_HASH_DIVISOR: usize = 4;
/// ...and never more than this (MiB).
const MATE_HASH_MIB_CAP: usize = 1024;

#[derive(Default)]
pub struct Tables {
    tt: Option<Arc<TranspositionTable>>,
    /// A size that could not be allocated (see the module doc).
    failed_mib: Option<usize>,
    /// Searched in since it was last emptied.
    used: bool,
    /// Holds a finished game's entries.
    stale: bool,
    pub threads: Vec<ThreadData>,
    mate: Option<MateSolver>,
    /// The book and the path it was read from.
    book: Option<(String, Arc<Book>)>,
    /// The network and where it was read from.
    network: Option<(NetworkSource, Arc<Network>)>,
}

impl Tables {
    /// The size in MiB that a request for `want` gets: `want`, or the fallback after `want`
    /// failed.
    fn target_mib(&self, want: usize) -> usize {
        if self.failed_mib == Some(want) { TranspositionTable::FALLBACK_MIB.min(want) } else { want }
    }

    fn has_size(&self, mib: usize) -> bool {
        self.tt.as_ref().is_some_and(|t| t.size_mib() == mib)
    }

    /// Allocates a table of `want` MiB unless one of that size is there (the old one is freed
    /// first). On failure, the fallback size; returns the error to report.
    fn allocate(&mut self, want: usize) -> Option<AllocError> {
        let target = self.target_mib(want);
        if self.has_size(target) {
            return None;
        }
        self.tt = None;
        self.used = false;
        self.stale = false;
        match TranspositionTable::new(target) {
            Ok(t) => {
                self.tt = Some(Arc::new(t));
                None
            }
            Err(e) => {
                self.failed_mib = Some(want);
                // 1 MiB always fits; without it the process could not go on anyway.
                let fallback = TranspositionTable::new(TranspositionTable::FALLBACK_MIB.min(want))
                    .or_else(|_| TranspositionTable::new(1))
                    .expect("a 1 MiB table");
                self.tt = Some(Arc::new(fallback));
                Some(e)
            }
        }
    }

    /// Before `readyok`: the table of `want` MiB allocated and its pages brought in, a finished
    /// game's entries gone. `threads` threads share the writing. Returns an allocation error to
    /// report (the fallback table is ready then).
    pub fn prepare(&mut self, want: usize, threads: usize) -> Option<AllocError> {
        let fresh = !self.has_size(self.target_mib(want));
        let err = self.allocate(want);
        if let Some(t) = &self.tt {
            if fresh {
                t.prefault(threads);
            } else if self.stale {
                t.clear_with_threads(threads);
                self.used = false;
                self.stale = false;
            }
        }
        err
    }

    /// Reads the book at `path` unless it is the one read before; `None` drops the book.
    /// Returns the book just read, or why it could not be (no book then).
    pub fn load_book(&mut self, path: Option<&str>) -> Option<Result<Arc<Book>, BookError>> {
        let Some(path) = path else {
            self.book = None;
            return None;
        };
        if self.book.as_ref().is_some_and(|(p, _)| p == path) {
            return None;
        }
        self.book = None;
        Some(Book::load(path).map(|b| {
            let book = Arc::new(b);
            self.book = Some((path.to_string(), book.clone()));
            book
        }))
    }

    /// Reads the network of `source` unless that one is loaded; `None` drops the network.
    /// Returns the network just read, or why it could not be (the previous one stays then).
    pub fn load_network(&mut self, source: Option<&NetworkSource>) -> Option<Result<Arc<Network>, NnueError>> {
        let Some(source) = source else {
            self.network = None;
            return None;
        };
        if self.network.as_ref().is_some_and(|(s, _)| s == source) {
            return None;
        }
        Some(source.load().inspect(|net| self.network = Some((source.clone(), net.clone()))))
    }

    pub fn network(&self) -> Option<&Arc<Network>> {
        self.network.as_ref().map(|(_, n)| n)
    }

    pub fn book(&self) -> Option<&Arc<Book>> {
        self.book.as_ref().map(|(_, b)| b)
    }

    /// The table for a search of `want` MiB (allocated now if needed, lazily zeroed), and the
    /// allocation error to report if there was one.
    pub fn for_search(&mut self, want: usize) -> (Arc<TranspositionTable>, Option<AllocError>) {
        let err = self.allocate(want);
        self.used = true;
        (self.tt.clone().expect("allocate leaves a table"), err)
    }

    /// A new game: the histories are forgotten, and a table searched in is emptied.
    pub fn new_game(&mut self, threads: usize) {
        self.threads.clear();
        if self.used
            && let Some(t) = &self.tt
        {
            t.clear_with_threads(threads);
        }
        self.used = false;
        self.stale = false;
    }

    /// The game is over: its entries are emptied at the next `prepare`.
    pub fn game_over(&mut self) {
        self.stale |= self.used;
    }

    /// The `go mate` solver for `USI_Hash` = `hash_mib` (allocated or resized now; the table
    /// of a size no longer wanted is freed before the new one is allocated). On failure, one of
    /// `DEFAULT_MATE_HASH_MIB` and the error to report.
    pub fn mate_solver(&mut self, hash_mib: usize) -> Result<(&mut MateSolver, Option<AllocError>), AllocError> {
        let mib = (hash_mib / MATE_HASH_DIVISOR).clamp(1, MATE_HASH_MIB_CAP);
        let mut err = None;
        if self.mate.as_ref().is_none_or(|s| s.hash_mib() != mib) {
            self.mate = None;
            let solver = match MateSolver::new(mib) {
                Ok(s) => s,
                Err(e) => {
                    err = Some(e);
                    MateSolver::new(DEFAULT_MATE_HASH_MIB)?
                }
            };
            self.mate = Some(solver);
        }
        Ok((self.mate.as_mut().expect("set above"), err))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prepare_allocates_clears_stale_entries_and_keeps_a_game_s() {
        let mut t = Tables::default();
        assert!(t.prepare(2, 2).is_none());
        let (tt, err) = t.for_search(2);
        assert!(err.is_none());
        tt.store(42, None, 7, 7, 3, crate::tt::Bound::Exact, false);
        // Between moves the entries stay, also through `isready`.
        assert!(t.prepare(2, 1).is_none());
        assert!(tt.probe(42).is_some());
        // A finished game's entries are gone at the next `isready`.
        t.game_over();
        assert!(t.prepare(2, 1).is_none());
        assert!(tt.probe(42).is_none());
        // A new game after a search empties the table too.
        let (tt, _) = t.for_search(2);
        tt.store(43, None, 7, 7, 3, crate::tt::Bound::Exact, false);
        t.new_game(1);
        assert!(tt.probe(43).is_none());
        // Another size replaces the table.
        assert!(t.prepare(3, 1).is_none());
        assert_eq!(t.for_search(3).0.size_mib(), 3);
    }

    #[test]
    fn an_impossible_size_falls_back_and_is_reported_once() {
        let mut t = Tables::default();
        let huge = TranspositionTable::MAX_MIB;
        assert!(t.prepare(huge, 1).is_some());
        let (tt, err) = t.for_search(huge);
        assert!(err.is_none(), "reported once");
        assert_eq!(tt.size_mib(), TranspositionTable::FALLBACK_MIB);
    }
}
