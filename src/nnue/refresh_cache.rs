//! Refresh cache (Stockfish's "Finny tables"): per perspective and own king square, the
//! accumulator of the last position refreshed there, with that position's pieces. When a king
//! moves, its perspective is rebuilt from the cached sums by the pieces that differ, usually a
//! handful, instead of from the biases by all 38 features. Same integers either way: the sums
//! wrap, and wrapping addition does not care about order.

use super::backend::Backend;
use super::dims::AlignedVec;
use super::features::{BONA_ZERO, KingView, MAX_ACTIVE, Slot, feature_of, king_bucket};
use super::network::Network;
use super::transformer;
use crate::shogi::{Color, Hand, Piece, PieceType, Position, Square};
use arrayvec::ArrayVec;

/// Features of one side's view: at most 81 board pieces, 2 x 65 hand pieces (the hand fields'
/// capacity) and the empty slots; more than any position has, so pushes cannot fail.
const MAX_CHANGES: usize = 256;

#[derive(Clone)]
struct Entry {
    acc: AlignedVec<i16>,
    /// The pieces of the cached position, kings included (features of HalfKA_hm2 only, but
    /// keeping them lets the board be compared sixteen squares at a time).
    board: [Piece; 81],
    hands: [Hand; 2],
    /// Empty piece slots (features on BonaPiece 0).
    empty_slots: u8,
    /// False until first used: the entry then stands for "no feature", the biases alone.
    valid: bool,
}

/// The cache, for the feature sets whose features are keyed by the own king's square and
/// change with it (HalfKP, HalfKP_vm, HalfKA_hm2); entries are kept per real king square, so that a
/// mirrored view (HalfKP_vm) is always that of the entry.
#[derive(Clone)]
pub(crate) struct RefreshCache {
    /// Index: perspective * 81 + relative king square.
    entries: Vec<Entry>,
    /// Id of the network the cached sums belong to.
    network_id: u64,
}

impl RefreshCache {
    pub(crate) fn new() -> RefreshCache {
        RefreshCache { entries: Vec::new(), network_id: 0 }
    }

    /// Writes perspective `p`'s sums for `pos` to `out`. False (and `out` untouched) when `p`
    /// has no single king.
    pub(crate) fn refresh(
        &mut self,
        backend: Backend,
        pos: &Position,
        p: Color,
        net: &Network,
        out: &mut [i16],
    ) -> bool {
        if self.network_id != net.id {
            let empty = Entry {
                acc: AlignedVec::zeroed(net.arch.half),
                board: [Piece::EMPTY; 81],
                hands: [Hand::EMPTY; 2],
                empty_slots: 0,
                valid: false,
            };
            self.entries = vec![empty; 2 * 81];
            self.network_id = net.id;
        }
        let set = net.arch.features;
        let Some(king) = king_bucket(pos, p) else { return false };
        let view = KingView::new(set, king);
        // Kings are features only of some sets (HalfKA_hm2): `None` for the others.
        let feature = |pc: Piece, sq| feature_of(set, p, view, Slot::on_board(pc, sq));
        let hand_feature = |slot| feature_of(set, p, view, slot).expect("a hand piece is a feature of every set");
        let entry = &mut self.entries[p.index() * 81 + king];
        if !entry.valid {
            entry.acc.as_mut_slice().copy_from_slice(net.ft_biases.as_slice());
            entry.board = [Piece::EMPTY; 81];
            entry.hands = [Hand::EMPTY; 2];
            entry.empty_slots = 0;
            entry.valid = true;
        }
        let mut removed = ArrayVec::<u32, MAX_CHANGES>::new();
        let mut added = ArrayVec::<u32, MAX_CHANGES>::new();
        let board = pos.board();
        // Sixteen squares at a time: most of the board is as cached.
        for start in (0..81).step_by(16) {
            let end = (start + 16).min(81);
            if Piece::as_bytes(&board[start..end]) == Piece::as_bytes(&entry.board[start..end]) {
                continue;
            }
            for (i, (&now, then)) in board.iter().zip(entry.board.iter_mut()).enumerate().take(end).skip(start) {
                if *then == now {
                    continue;
                }
                let sq = Square::new(i as u8);
                if !then.is_empty()
                    && let Some(f) = feature(*then, sq)
                {
                    removed.push(f);
                }
                if !now.is_empty()
                    && let Some(f) = feature(now, sq)
                {
                    added.push(f);
                }
                *then = now;
            }
        }
        let mut pieces = (pos.occupied().count() - pos.pieces_kind(PieceType::King).count()) as usize;
        for owner in Color::ALL {
            let (then, now) = (entry.hands[owner.index()], pos.hand(owner));
            pieces += now.total() as usize;
            if then == now {
                continue;
            }
            for pt in PieceType::HAND {
                let (a, b) = (then.count(pt), now.count(pt));
                for nth in b..a {
                    removed.push(hand_feature(Slot::Hand(owner, pt, nth as u8)));
                }
                for nth in a..b {
                    added.push(hand_feature(Slot::Hand(owner, pt, nth as u8)));
                }
            }
            entry.hands[owner.index()] = now;
        }
        let empty_slots = MAX_ACTIVE.saturating_sub(pieces) as u8;
        let zero = view.base + BONA_ZERO as u32;
        for _ in empty_slots..entry.empty_slots {
            removed.push(zero);
        }
        for _ in entry.empty_slots..empty_slots {
            added.push(zero);
        }
        entry.empty_slots = empty_slots;
        transformer::update_accumulator(
            backend,
            entry.acc.as_slice(),
            out,
            net.ft_weights.as_slice(),
            &removed,
            &added,
        );
        entry.acc.as_mut_slice().copy_from_slice(out);
        true
    }
}
