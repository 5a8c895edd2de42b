//! Input features in the numbering of YaneuraOu's NNUE formats: HalfKP(Friend), and the feature
//! sets built from the same BonaPieces (K+P, HalfKP_vm, HalfKPE9, SFNN's HalfKA_hm2, which
//! adds both kings on one plane after the BonaPieces; `FeatureSet`).
//!
//! A feature is a pair (square of the perspective's own king, BonaPiece), indexed
//! `king * FE_END + bona`. A BonaPiece numbers a non-king piece as seen from one side:
//! hand pieces first (one number per piece held, "the n-th pawn in hand"), then board pieces
//! by kind and square. The White perspective sees the board rotated by 180 degrees with the
//! colours swapped, so both perspectives share one weight table.
//!
//! The format counts 38 piece slots per side (every non-king piece of one set). A slot whose
//! piece is absent (handicap games, sparse problems) sits on BonaPiece 0, and the reference
//! still adds that feature's weights once per empty slot, so we do too.

use super::arch::FeatureSet;
use crate::shogi::{Color, Piece, PieceType, Position, Square};
use arrayvec::ArrayVec;

/// BonaPieces per king square (hand pieces 1..90, board pieces 90..1548).
pub const FE_END: usize = super::arch::FE_END;
/// Number of king squares.
pub const KING_SQUARES: usize = 81;
/// Features per perspective: 81 x 1548 = 125,388.
pub const INPUT_DIMENSIONS: usize = KING_SQUARES * FE_END;
/// Non-king piece slots of one set (18 pawns, 4 each of lance, knight, silver, gold, 2 bishops,
/// 2 rooks): the number of active features of either perspective.
pub const MAX_ACTIVE: usize = 38;

/// The BonaPiece that absent pieces occupy.
pub const BONA_ZERO: u16 = 0;

/// Most features of one perspective: every piece `can_evaluate` lets a position hold (a set's
/// 38, and one more per kind as far as the hand numbering counts them).
pub const MAX_FEATURES: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < PieceType::HAND.len() {
        n += hand_numbers(PieceType::HAND[i]) as usize;
        i += 1;
    }
    n
};

/// Active feature indices of one perspective (K+P adds the two kings).
pub type ActiveFeatures = ArrayVec<u32, { MAX_FEATURES + 2 }>;

/// First BonaPiece of a friendly (perspective's own) piece of this kind on the board; the
/// enemy's piece of the same kind follows 81 numbers later. Promoted minor pieces count as gold.
const fn friend_board_base(pt: PieceType) -> u16 {
    match pt {
        PieceType::Pawn => 90,
        PieceType::Lance => 252,
        PieceType::Knight => 414,
        PieceType::Silver => 576,
        PieceType::Gold | PieceType::ProPawn | PieceType::ProLance | PieceType::ProKnight | PieceType::ProSilver => 738,
        PieceType::Bishop => 900,
        PieceType::Horse => 1062,
        PieceType::Rook => 1224,
        PieceType::Dragon => 1386,
        // Kings are not features; callers never ask.
        PieceType::King => 0,
    }
}

/// First BonaPiece of the first piece of a kind in hand, (friend, enemy).
const fn hand_base(pt: PieceType) -> (u16, u16) {
    match pt {
        PieceType::Pawn => (1, 20),
        PieceType::Lance => (39, 44),
        PieceType::Knight => (49, 54),
        PieceType::Silver => (59, 64),
        PieceType::Gold => (69, 74),
        PieceType::Bishop => (79, 82),
        PieceType::Rook => (85, 88),
        _ => (0, 0),
    }
}

/// BonaPiece base per perspective and coloured piece (`Piece::index()`, 0..32).
const BOARD_BASE: [[u16; 32]; 2] = {
    let mut t = [[0u16; 32]; 2];
    let mut i = 1u8;
    while i < 15 {
        if let Some(pt) = PieceType::from_index(i) {
            let f = friend_board_base(pt);
            let e = f + 81;
            // Black pieces are friends of Black, White pieces (index + 16) friends of White.
            t[0][i as usize] = f;
            t[0][i as usize + 16] = e;
            t[1][i as usize] = e;
            t[1][i as usize + 16] = f;
        }
        i += 1;
    }
    t
};

/// The square as the perspective sees it (White looks at the rotated board).
#[inline]
pub fn relative_square(perspective: Color, sq: Square) -> usize {
    match perspective {
        Color::Black => sq.index(),
        Color::White => 80 - sq.index(),
    }
}

/// BonaPiece of a non-king piece `pc` on `sq`, seen from `perspective`.
#[inline]
pub fn board_bona(perspective: Color, pc: Piece, sq: Square) -> u16 {
    BOARD_BASE[perspective.index()][pc.index()] + relative_square(perspective, sq) as u16
}

/// BonaPiece of the `nth` (0-based) piece of kind `pt` in `owner`'s hand, seen from `perspective`.
#[inline]
pub fn hand_bona(perspective: Color, owner: Color, pt: PieceType, nth: u32) -> u16 {
    let (friend, enemy) = hand_base(pt);
    (if owner == perspective { friend } else { enemy }) + nth as u16
}

/// Feature index from the perspective's relative king square and a BonaPiece.
#[inline]
pub fn feature_index(king: usize, bona: u16) -> u32 {
    (king * FE_END) as u32 + bona as u32
}

/// The one king square of `c`, or `None` without exactly one king.
#[inline]
fn single_king(pos: &Position, c: Color) -> Option<Square> {
    let kings = pos.pieces(c, PieceType::King);
    (kings.count() == 1).then(|| kings.lsb())
}

/// Relative king square (feature bucket) of `perspective`'s own king, if it has exactly one.
#[inline]
pub fn king_bucket(pos: &Position, perspective: Color) -> Option<usize> {
    single_king(pos, perspective).map(|sq| relative_square(perspective, sq))
}

/// Whether HalfKP can evaluate the position: each side has exactly one king, and no kind has
/// more pieces (board, promoted or not, plus both hands) than either side's hand numbers can
/// count, so that every piece has a number of its own however the hands change below it.
/// The format numbers one hand piece more than a set holds per kind and side (19 pawns, 5 of
/// lance, knight, silver and gold, 3 bishops), except the enemy's rooks (2). Game positions
/// always pass, with exactly a set's 38 features (absent pieces on BonaPiece 0); a problem
/// position with a piece more (the 19 pawns of a bench position) adds its feature; problems
/// without a king, or with three rooks, fail and need the caller's fallback evaluation.
pub fn can_evaluate(pos: &Position) -> bool {
    if single_king(pos, Color::Black).is_none() || single_king(pos, Color::White).is_none() {
        return false;
    }
    for pt in PieceType::HAND {
        let mut n = pos.pieces_kind(pt).count() + pos.hand(Color::Black).count(pt) + pos.hand(Color::White).count(pt);
        if pt.can_promote() {
            n += pos.pieces_kind(pt.promote()).count();
        }
        if n > hand_numbers(pt) {
            return false;
        }
    }
    true
}

/// How many pieces of kind `pt` in hand both sides' BonaPiece ranges can number.
const fn hand_numbers(pt: PieceType) -> u32 {
    match pt {
        PieceType::Rook => 2,
        _ => crate::shogi::Hand::set_count(pt) + 1,
    }
}

/// Active HalfKP features of `perspective` (38 of them, absent pieces on BonaPiece 0, or one
/// per piece where there are more). `None` when `can_evaluate` fails.
pub fn active_features(pos: &Position, perspective: Color) -> Option<ActiveFeatures> {
    active_features_of(FeatureSet::HalfKp, pos, perspective)
}

/// A piece as the features see it, independent of the perspective: what a move takes away
/// or adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// A non-king piece on the board.
    Board(Piece, Square),
    /// The `nth` (0-based) piece of a kind in `owner`'s hand.
    Hand(Color, PieceType, u8),
    /// A king on its square (a feature of K+P and HalfKA_hm2 only).
    King(Color, Square),
}

impl Slot {
    /// The slot of a piece on the board.
    #[inline]
    pub(crate) fn on_board(pc: Piece, sq: Square) -> Slot {
        if pc.kind() == PieceType::King { Slot::King(pc.color(), sq) } else { Slot::Board(pc, sq) }
    }
}

/// What a perspective's features depend on besides the pieces: its own king's square (the
/// feature block of HalfKP and its kin) and whether the board is seen mirrored (HalfKP_vm).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct KingView {
    /// First feature of the king's block: bucket x the features per bucket.
    pub(crate) base: u32,
    /// HalfKP_vm or HalfKA_hm2 with the king on files 6-9: board squares are mirrored
    /// left-right.
    pub(crate) mirror: bool,
}

/// The square mirrored left-right (file f to 10 - f).
#[inline]
fn mirror_square(sq: usize) -> usize {
    (8 - sq / 9) * 9 + sq % 9
}

impl KingView {
    /// The view of a perspective whose own king stands on `relative` (its relative square).
    #[inline]
    pub(crate) fn new(set: FeatureSet, relative: usize) -> KingView {
        match set {
            FeatureSet::HalfKp | FeatureSet::HalfKpE9 => KingView { base: (relative * FE_END) as u32, mirror: false },
            FeatureSet::HalfKpVm | FeatureSet::HalfKaHm2 => {
                let mirror = relative / 9 >= 5;
                let bucket = if mirror { mirror_square(relative) } else { relative };
                KingView { base: (bucket * set.plane()) as u32, mirror }
            }
            FeatureSet::Kp => KingView::default(),
        }
    }
}

/// The feature of `slot` for `perspective` with that view (`None`: not a feature of the set,
/// a king outside K+P). HalfKPE9's attack buckets are not included (bucket 0).
#[inline]
pub(crate) fn feature_of(set: FeatureSet, perspective: Color, view: KingView, slot: Slot) -> Option<u32> {
    let bona = match slot {
        Slot::Board(pc, sq) => {
            let rel = relative_square(perspective, sq);
            let rel = if view.mirror { mirror_square(rel) } else { rel };
            BOARD_BASE[perspective.index()][pc.index()] + rel as u16
        }
        Slot::Hand(owner, pt, nth) => hand_bona(perspective, owner, pt, nth as u32),
        Slot::King(c, sq) => {
            let rel = relative_square(perspective, sq);
            return match set {
                FeatureSet::Kp => {
                    let own = if c == perspective { 0 } else { 81 };
                    Some((FE_END + own + rel) as u32)
                }
                // Either king on the plane after the BonaPieces, mirrored with the board.
                FeatureSet::HalfKaHm2 => {
                    let rel = if view.mirror { mirror_square(rel) } else { rel };
                    Some(view.base + (FE_END + rel) as u32)
                }
                _ => None,
            };
        }
    };
    Some(view.base + bona as u32)
}

/// The view of `perspective`'s own king in `pos` (it must have one).
#[inline]
pub(crate) fn king_view(set: FeatureSet, pos: &Position, perspective: Color) -> Option<KingView> {
    king_bucket(pos, perspective).map(|k| KingView::new(set, k))
}

/// HalfKPE9's attack bucket of the square `sq` for `perspective`: 3 x min(2, attackers of the
/// perspective) + min(2, attackers of the other side).
#[inline]
fn attack_bucket(pos: &Position, perspective: Color, sq: Square) -> u32 {
    // (Colour by colour: the search's hot paths inline `attackers_to_both`, and the stack
    // counts attacks another way, `e9_features`, which this from-scratch path checks.)
    let ours = pos.attackers_to(perspective, sq).count().min(2);
    let theirs = pos.attackers_to(!perspective, sq).count().min(2);
    3 * ours + theirs
}

/// Active features of `perspective` in the numbering of feature set `set` (`None` when
/// `can_evaluate` fails).
pub fn active_features_of(set: FeatureSet, pos: &Position, perspective: Color) -> Option<ActiveFeatures> {
    if !can_evaluate(pos) {
        return None;
    }
    let view = king_view(set, pos, perspective)?;
    let rows = (KING_SQUARES * FE_END) as u32;
    let mut out = ActiveFeatures::new();
    let kings = pos.pieces_kind(PieceType::King);
    for sq in pos.occupied().and_not(kings) {
        let f = feature_of(set, perspective, view, Slot::Board(pos.piece_on(sq), sq))?;
        let bucket = if set == FeatureSet::HalfKpE9 { attack_bucket(pos, perspective, sq) } else { 0 };
        out.push(bucket * rows + f);
    }
    for owner in Color::ALL {
        let hand = pos.hand(owner);
        for pt in PieceType::HAND {
            for nth in 0..hand.count(pt) {
                out.push(feature_of(set, perspective, view, Slot::Hand(owner, pt, nth as u8))?);
            }
        }
    }
    while out.len() < MAX_ACTIVE {
        out.push(view.base + BONA_ZERO as u32);
    }
    if set.has_king_features() {
        for c in Color::ALL {
            out.push(feature_of(set, perspective, view, Slot::King(c, single_king(pos, c)?))?);
        }
    }
    Some(out)
}

/// HalfKPE9's active features of one perspective, kept by where they come from so that two
/// positions' features are compared square by square instead of by sorting.
#[derive(Clone, Debug)]
pub(crate) struct E9Features {
    /// The feature of the piece on each square (`NO_FEATURE` where no non-king piece stands).
    pub(crate) board: [u32; 81],
    /// The features of the pieces in hand and of the empty slots (attack bucket 0).
    pub(crate) rest: ArrayVec<u32, MAX_FEATURES>,
}

/// No feature on this square.
pub(crate) const NO_FEATURE: u32 = u32::MAX;

impl Default for E9Features {
    fn default() -> Self {
        E9Features { board: [NO_FEATURE; 81], rest: ArrayVec::new() }
    }
}

impl E9Features {
    /// Every feature, as `active_features_of` lists them.
    pub(crate) fn all(&self) -> impl Iterator<Item = u32> + '_ {
        self.board.iter().copied().filter(|&f| f != NO_FEATURE).chain(self.rest.iter().copied())
    }
}

/// HalfKPE9's features of both perspectives (`None` when `can_evaluate` fails). Each piece's
/// attacks are generated once and counted per square in two bitboards (attacked at least
/// once, at least twice) per colour.
pub(crate) fn e9_features(pos: &Position, out: &mut [E9Features; 2]) -> Option<()> {
    if !can_evaluate(pos) {
        return None;
    }
    let occ = pos.occupied();
    let (mut once, mut twice) =
        ([crate::shogi::bitboard::Bitboard::EMPTY; 2], [crate::shogi::bitboard::Bitboard::EMPTY; 2]);
    for sq in occ {
        let c = pos.piece_on(sq).color().index();
        let attacks = pos.attacks_from(sq, occ);
        twice[c] |= once[c] & attacks;
        once[c] |= attacks;
    }
    let count = |c: Color, sq: Square| once[c.index()].contains(sq) as u32 + twice[c.index()].contains(sq) as u32;
    let rows = (KING_SQUARES * FE_END) as u32;
    let kings = pos.pieces_kind(PieceType::King);
    for p in Color::ALL {
        let view = king_view(FeatureSet::HalfKpE9, pos, p)?;
        let e = &mut out[p.index()];
        e.board = [NO_FEATURE; 81];
        e.rest.clear();
        let mut pieces = 0;
        for sq in occ.and_not(kings) {
            let f = feature_of(FeatureSet::HalfKpE9, p, view, Slot::Board(pos.piece_on(sq), sq))?;
            e.board[sq.index()] = (3 * count(p, sq) + count(!p, sq)) * rows + f;
            pieces += 1;
        }
        for owner in Color::ALL {
            let hand = pos.hand(owner);
            for pt in PieceType::HAND {
                for nth in 0..hand.count(pt) {
                    e.rest.push(feature_of(FeatureSet::HalfKpE9, p, view, Slot::Hand(owner, pt, nth as u8))?);
                    pieces += 1;
                }
            }
        }
        for _ in pieces..MAX_ACTIVE {
            e.rest.push(view.base + BONA_ZERO as u32);
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bona_pieces_cover_the_reference_range_once() {
        let mut seen = vec![false; FE_END];
        // The kinds with BonaPieces of their own (the promoted minor pieces move as gold).
        let distinct = PieceType::HAND.into_iter().chain([PieceType::Horse, PieceType::Dragon]);
        for c in Color::ALL {
            for pt in distinct.clone() {
                for sq in Square::all() {
                    let b = board_bona(Color::Black, Piece::new(c, pt), sq) as usize;
                    assert!(!seen[b], "{c:?} {pt:?} {sq} numbered twice");
                    seen[b] = true;
                }
            }
        }
        // Board numbers fill 90..1548 exactly.
        assert!(seen[90..].iter().all(|&s| s));
        assert!(seen[..90].iter().all(|&s| !s));
    }

    #[test]
    fn white_sees_the_rotated_board_with_colours_swapped() {
        for pt in [PieceType::Pawn, PieceType::Dragon, PieceType::ProSilver] {
            for sq in Square::all() {
                let b = board_bona(Color::Black, Piece::new(Color::Black, pt), sq);
                assert_eq!(board_bona(Color::White, Piece::new(Color::White, pt), sq.rotate()), b);
            }
        }
        assert_eq!(hand_bona(Color::White, Color::White, PieceType::Rook, 1), 86);
        assert_eq!(hand_bona(Color::Black, Color::White, PieceType::Rook, 1), 89);
    }

    #[test]
    fn start_position_has_38_features_and_no_empty_slot() {
        let pos = Position::startpos();
        for c in Color::ALL {
            let f = active_features(&pos, c).unwrap();
            assert_eq!(f.len(), MAX_ACTIVE);
            assert!(f.iter().all(|&i| i as usize % FE_END >= 90));
        }
    }

    #[test]
    fn handicap_slots_sit_on_bona_zero() {
        let pos = Position::from_sfen("lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1").unwrap();
        let f = active_features(&pos, Color::Black).unwrap();
        let king = relative_square(Color::Black, pos.king_square(Color::Black));
        assert_eq!(f.iter().filter(|&&i| i == feature_index(king, 0)).count(), 2);
    }
}
