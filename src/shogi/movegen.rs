//! Legal move generation.
//!
//! Every generator produces only legal moves: pinned pieces keep to their pin line, king moves
//! are checked against the enemy's attacks, evasions are generated apart, and pawn drops that
//! would mate (uchifuzume) are removed. Nothing allocates: moves go into a fixed `MoveList`.
//!
//! Modes (const generic, so each specialises at compile time):
//! - `ALL`: every legal move, including non-promotions that are never better than the
//!   promotion (pawn, bishop, rook, lance on its second-to-last rank). Perft and legal move
//!   lists use it.
//! - `CAPTURES`: captures and pawn promotions (not in check).
//! - `QUIETS`: everything else except non-promotions that are never better (not in check).
//! - `EVASIONS`: moves out of check, without the never-better non-promotions.
//! - `QUIET_CHECKS`: the `QUIETS` moves that give check (not in check), in the same order;
//!   for the search once late quiet moves are pruned.
//!
//! `CAPTURES` + `QUIETS` = all moves out of `ALL` but the never-better non-promotions, each once.

use super::attacks::{
    between, bishop_attacks, gold_attacks, king_attacks, knight_attacks, lance_attacks, line, pawn_attacks,
    rook_attacks, silver_attacks,
};
use super::bitboard::{Bitboard, RANKS, ZONE};
use super::position::Position;
use super::types::{Color, Move, PieceType, Square};
use arrayvec::ArrayVec;
use std::sync::atomic::{AtomicBool, Ordering};

/// Room for every move of any position the SFEN parser accepts. A game position has at most
/// 593 legal moves, but the parser also takes problem positions with more than a set per kind
/// (up to the hand fields' capacity: three rooks, three bishops, seven golds, ...), and those
/// can pass 600. Bound: with at most 79 empty squares, drops are at most 7 x 79 = 553; each
/// board piece takes one square from the drops and adds at most twice its reach (promotion
/// and not): only rooks and bishops (2 x 16, at most two of each with one left in hand),
/// lances (2 x 8) and silvers (2 x 5) add more than 7, and the king 8, so at most
/// 553 + 4 x 25 + 6 x 9 + 6 x 3 + 8 = 733 moves.
pub const MAX_MOVES: usize = 1024;

pub type MoveList = ArrayVec<Move, MAX_MOVES>;

pub const ALL: u8 = 0;
pub const CAPTURES: u8 = 1;
pub const QUIETS: u8 = 2;
pub const EVASIONS: u8 = 3;
pub const QUIET_CHECKS: u8 = 4;

/// Every legal move (including all non-promotions).
pub fn generate_legal(pos: &Position, list: &mut MoveList) {
    generate::<ALL>(pos, list);
}

/// The moves a search tries: every legal move but the never-better non-promotions (as the
/// search's stages generate them below the root).
pub fn generate_searched(pos: &Position, list: &mut MoveList) {
    if pos.in_check() {
        generate::<EVASIONS>(pos, list);
    } else {
        generate::<CAPTURES>(pos, list);
        generate::<QUIETS>(pos, list);
    }
}

/// Number of legal moves (for perft leaves).
pub fn count_legal(pos: &Position) -> usize {
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    list.len()
}

/// Generates the moves of one mode. `CAPTURES`, `QUIETS` and `QUIET_CHECKS` need a side to
/// move that is not in check, `EVASIONS` one that is; `ALL` works in both.
pub fn generate<const MODE: u8>(pos: &Position, list: &mut MoveList) {
    let in_check = pos.in_check();
    if MODE == ALL || MODE == EVASIONS {
        if in_check {
            if MODE == ALL {
                evasions::<true>(pos, list);
            } else {
                evasions::<false>(pos, list);
            }
            return;
        }
        if MODE == EVASIONS {
            return;
        }
    }
    debug_assert!(!in_check);
    let us = pos.side_to_move();
    let them = !us;
    let empty = !pos.occupied();
    let enemy = pos.pieces_of(them);
    match MODE {
        ALL => {
            board_moves::<true, false>(pos, list, enemy | empty);
            king_moves(pos, list, enemy | empty, false);
            drops(pos, list, empty);
        }
        CAPTURES => {
            board_moves::<false, false>(pos, list, enemy);
            // Pawn promotions onto empty squares belong to this stage too.
            pawn_quiet_promotions(pos, list, empty);
            king_moves(pos, list, enemy, false);
        }
        QUIETS => {
            board_moves::<false, true>(pos, list, empty);
            king_moves(pos, list, empty, false);
            drops(pos, list, empty);
        }
        QUIET_CHECKS => {
            let ci = pos.check_info();
            let mut candidates = MoveList::new();
            board_moves::<false, true>(pos, &mut candidates, empty);
            king_moves(pos, &mut candidates, empty, false);
            // Drops only onto squares from which a kind in hand would attack the king.
            let mut drop_squares = Bitboard::EMPTY;
            for pt in PieceType::HAND {
                if pos.hand(us).has(pt) {
                    drop_squares |= ci.squares(pt);
                }
            }
            drops(pos, &mut candidates, empty & drop_squares);
            for m in candidates {
                if pos.gives_check_with(&ci, m) {
                    list.push(m);
                }
            }
        }
        _ => {}
    }
}

#[inline]
fn push_all(list: &mut MoveList, from: Square, targets: Bitboard, promote: bool) {
    for to in targets {
        list.push(Move::normal(from, to, promote));
    }
}

/// Adds the moves of a piece of kind `pt` from `from` to each square of `targets`, with the
/// promotion variants the mode allows.
#[inline]
fn push_piece_moves<const ALL_PROMOS: bool, const NO_PAWN_PROMO: bool>(
    list: &mut MoveList,
    us: Color,
    pt: PieceType,
    from: Square,
    targets: Bitboard,
) {
    if !pt.can_promote() {
        push_all(list, from, targets, false);
        return;
    }
    let zone = ZONE[us.index()];
    let promotable = if from.in_zone(us) { targets } else { targets & zone };
    push_all(list, from, targets.and_not(promotable), false);
    if promotable.is_empty() {
        return;
    }
    let last = RANKS[if us == Color::Black { 0 } else { 8 }];
    let second = RANKS[if us == Color::Black { 1 } else { 7 }];
    let (promo, plain) = match pt {
        PieceType::Pawn => (
            if NO_PAWN_PROMO { Bitboard::EMPTY } else { promotable },
            if ALL_PROMOS { promotable.and_not(last) } else { Bitboard::EMPTY },
        ),
        PieceType::Lance => (promotable, promotable.and_not(if ALL_PROMOS { last } else { last | second })),
        PieceType::Knight => (promotable, promotable.and_not(last | second)),
        PieceType::Silver => (promotable, promotable),
        _ => (promotable, if ALL_PROMOS { promotable } else { Bitboard::EMPTY }), // bishop, rook
    };
    push_all(list, from, promo, true);
    push_all(list, from, plain, false);
}

/// Moves of all pieces except the king onto `target`, respecting pins.
/// `NO_PAWN_PROMO` (quiet stage): pawn promotions are left to the capture stage.
fn board_moves<const ALL_PROMOS: bool, const NO_PAWN_PROMO: bool>(
    pos: &Position,
    list: &mut MoveList,
    target: Bitboard,
) {
    let us = pos.side_to_move();
    let occ = pos.occupied();
    let own = pos.pieces_of(us);
    let pinned = pos.pinned();
    let ksq = pos.king_square(us);
    let restrict = |from: Square, t: Bitboard| {
        if pinned.contains(from) { t & line(ksq, from) } else { t }
    };

    // Pawns: unpinned ones in bulk, pinned ones may only advance along their file.
    let pawns = pos.pieces(us, PieceType::Pawn);
    let free_pawns = pawns.and_not(pinned);
    let pawn_tos = free_pawns.shift_forward(us) & target;
    let zone = ZONE[us.index()];
    let last = RANKS[if us == Color::Black { 0 } else { 8 }];
    let back = |to: Square| pawn_origin(us, to);
    for to in pawn_tos.and_not(zone) {
        list.push(Move::normal(back(to), to, false));
    }
    for to in pawn_tos & zone {
        if !NO_PAWN_PROMO {
            list.push(Move::normal(back(to), to, true));
        }
        if ALL_PROMOS && !last.contains(to) {
            list.push(Move::normal(back(to), to, false));
        }
    }
    for from in pawns & pinned {
        let t = pawn_attacks(us, from) & target & line(ksq, from);
        push_piece_moves::<ALL_PROMOS, NO_PAWN_PROMO>(list, us, PieceType::Pawn, from, t);
    }

    for from in pos.pieces(us, PieceType::Lance) {
        let t = restrict(from, lance_attacks(us, from, occ) & target);
        push_piece_moves::<ALL_PROMOS, NO_PAWN_PROMO>(list, us, PieceType::Lance, from, t);
    }
    // A pinned knight never stays on its pin line.
    for from in pos.pieces(us, PieceType::Knight).and_not(pinned) {
        let t = knight_attacks(us, from) & target;
        push_piece_moves::<ALL_PROMOS, NO_PAWN_PROMO>(list, us, PieceType::Knight, from, t);
    }
    for from in pos.pieces(us, PieceType::Silver) {
        let t = restrict(from, silver_attacks(us, from) & target);
        push_piece_moves::<ALL_PROMOS, NO_PAWN_PROMO>(list, us, PieceType::Silver, from, t);
    }
    for from in pos.golds() & own {
        push_all(list, from, restrict(from, gold_attacks(us, from) & target), false);
    }
    for from in pos.pieces(us, PieceType::Bishop) {
        let t = restrict(from, bishop_attacks(from, occ) & target);
        push_piece_moves::<ALL_PROMOS, NO_PAWN_PROMO>(list, us, PieceType::Bishop, from, t);
    }
    for from in pos.pieces(us, PieceType::Rook) {
        let t = restrict(from, rook_attacks(from, occ) & target);
        push_piece_moves::<ALL_PROMOS, NO_PAWN_PROMO>(list, us, PieceType::Rook, from, t);
    }
    for from in pos.pieces(us, PieceType::Horse) {
        let t = restrict(from, (bishop_attacks(from, occ) | king_attacks(from)) & target);
        push_all(list, from, t, false);
    }
    for from in pos.pieces(us, PieceType::Dragon) {
        let t = restrict(from, (rook_attacks(from, occ) | king_attacks(from)) & target);
        push_all(list, from, t, false);
    }
}

/// The square a pawn of `us` moving to `to` comes from.
#[inline]
fn pawn_origin(us: Color, to: Square) -> Square {
    match us {
        Color::Black => Square::new(to.index() as u8 + 1),
        Color::White => Square::new(to.index() as u8 - 1),
    }
}

/// Non-capturing pawn promotions (unpinned or moving along the pin line).
fn pawn_quiet_promotions(pos: &Position, list: &mut MoveList, empty: Bitboard) {
    let us = pos.side_to_move();
    let zone = ZONE[us.index()];
    let pinned = pos.pinned();
    let ksq = pos.king_square(us);
    // All pawns at once; each destination has one origin, one square behind it, so the moves
    // come in the order of their pawns.
    for to in pos.pieces(us, PieceType::Pawn).shift_forward(us) & empty & zone {
        let from = pawn_origin(us, to);
        if !pinned.contains(from) || line(ksq, from).contains(to) {
            list.push(Move::normal(from, to, true));
        }
    }
}

/// King moves onto `target` that do not walk into attack.
fn king_moves(pos: &Position, list: &mut MoveList, target: Bitboard, in_check: bool) {
    let us = pos.side_to_move();
    let ksq = pos.king_square(us);
    let occ = if in_check { pos.occupied().and_not(Bitboard::from_square(ksq)) } else { pos.occupied() };
    for to in king_attacks(ksq) & target {
        if !pos.is_attacked_with(!us, to, occ) {
            list.push(Move::normal(ksq, to, false));
        }
    }
}

/// Drops onto the empty squares in `target`.
fn drops(pos: &Position, list: &mut MoveList, target: Bitboard) {
    let us = pos.side_to_move();
    let hand = pos.hand(us);
    if hand.is_empty() {
        return;
    }
    let last = RANKS[if us == Color::Black { 0 } else { 8 } as usize];
    let second = RANKS[if us == Color::Black { 1 } else { 7 } as usize];
    if hand.has(PieceType::Pawn) {
        let own_pawns = pos.pieces(us, PieceType::Pawn);
        let mut t = target.and_not(last | own_pawns.fill_files());
        // The one square where a pawn drop checks: in front of the enemy king.
        let eksq = pos.king_square(!us);
        let check_sq = pawn_attacks(!us, eksq);
        if (t & check_sq).is_nonempty() {
            let sq = check_sq.lsb();
            if pos.is_pawn_drop_mate(sq) {
                t = t.and_not(check_sq);
            }
        }
        for to in t {
            list.push(Move::drop(PieceType::Pawn, to));
        }
    }
    if hand.has(PieceType::Lance) {
        for to in target.and_not(last) {
            list.push(Move::drop(PieceType::Lance, to));
        }
    }
    if hand.has(PieceType::Knight) {
        for to in target.and_not(last | second) {
            list.push(Move::drop(PieceType::Knight, to));
        }
    }
    // Remaining kinds can go anywhere; emit them square by square.
    let mut kinds = ArrayVec::<PieceType, 4>::new();
    for pt in [PieceType::Silver, PieceType::Gold, PieceType::Bishop, PieceType::Rook] {
        if hand.has(pt) {
            kinds.push(pt);
        }
    }
    if kinds.is_empty() {
        return;
    }
    for to in target {
        for &pt in &kinds {
            list.push(Move::drop(pt, to));
        }
    }
}

/// Moves out of check. `ALL_PROMOS` adds the never-better non-promotions.
fn evasions<const ALL_PROMOS: bool>(pos: &Position, list: &mut MoveList) {
    let us = pos.side_to_move();
    let ksq = pos.king_square(us);
    let checkers = pos.checkers();
    king_moves(pos, list, !pos.pieces_of(us), true);
    if checkers.more_than_one() {
        return;
    }
    let csq = checkers.lsb();
    let block = between(ksq, csq);
    board_moves::<ALL_PROMOS, false>(pos, list, block | Bitboard::from_square(csq));
    if block.is_nonempty() {
        drops(pos, list, block);
    }
}

/// Perft: the number of legal move sequences of length `depth` (leaves counted in bulk).
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    if depth == 1 {
        return list.len() as u64;
    }
    let mut n = 0;
    for &m in &list {
        pos.do_move(m);
        n += perft(pos, depth - 1);
        pos.undo_move(m);
    }
    n
}

/// Perft per root move, in generation order.
pub fn perft_divide(pos: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    let mut out = Vec::with_capacity(list.len());
    for &m in &list {
        pos.do_move(m);
        let n = if depth <= 1 { 1 } else { perft(pos, depth - 1) };
        pos.undo_move(m);
        out.push((m, n));
    }
    out
}

/// `perft_divide` that gives up (`None`) soon after `stop` is set: the flag is read at every
/// node three or more plies from the leaves, a few thousand leaves apart at most.
pub fn perft_divide_until(pos: &mut Position, depth: u32, stop: &AtomicBool) -> Option<Vec<(Move, u64)>> {
    fn count(pos: &mut Position, depth: u32, stop: &AtomicBool) -> Option<u64> {
        if depth <= 2 {
            return Some(perft(pos, depth));
        }
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let mut list = MoveList::new();
        generate_legal(pos, &mut list);
        let mut n = 0;
        for &m in &list {
            pos.do_move(m);
            let sub = count(pos, depth - 1, stop);
            pos.undo_move(m);
            n += sub?;
        }
        Some(n)
    }
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    let mut out = Vec::with_capacity(list.len());
    for &m in &list {
        pos.do_move(m);
        let n = if depth <= 1 { Some(1) } else { count(pos, depth - 1, stop) };
        pos.undo_move(m);
        out.push((m, n?));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves_of(sfen: &str) -> Vec<String> {
        let pos = Position::from_sfen(sfen).unwrap();
        let mut list = MoveList::new();
        generate_legal(&pos, &mut list);
        let mut v: Vec<String> = list.iter().map(|m| m.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn startpos_perft() {
        let mut pos = Position::startpos();
        assert_eq!(perft(&mut pos, 1), 30);
        assert_eq!(perft(&mut pos, 2), 900);
        assert_eq!(perft(&mut pos, 3), 25470);
    }

    #[test]
    fn pawn_drop_mate_is_excluded() {
        // Gold on 2c guards 1b; the silver on 2a, the only piece that could take, is pinned.
        let v = moves_of("4R2sk/9/7G1/9/9/9/9/9/4K4 b P 1");
        assert!(!v.contains(&"P*1b".to_string()));
        assert_eq!(v.len(), 108);
    }

    #[test]
    fn kingless_sides_move_by_the_piece_rules_alone() {
        // Without the attacker's king the pawn-drop mate is still excluded (cshogi: 106 moves,
        // two fewer than with a king on 5i, which has two moves).
        let v = moves_of("4R2sk/9/7G1/9/9/9/9/9/9 b P 1");
        assert!(!v.contains(&"P*1b".to_string()));
        assert_eq!(v.len(), 106);
        let v = moves_of("9/9/9/9/9/9/1g7/9/KS2r4 w p 1");
        assert!(!v.contains(&"P*9h".to_string()));
        assert_eq!(v.len(), 106);
        // Both colours, either to move.
        let mut pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1").unwrap();
        assert_eq!((perft(&mut pos, 1), perft(&mut pos, 2), perft(&mut pos, 3)), (81, 38_080, 271_077));
        let mut pos = Position::from_sfen("4r4/9/9/9/4R4/9/9/9/4K4 w - 1").unwrap();
        assert_eq!((perft(&mut pos, 1), perft(&mut pos, 2), perft(&mut pos, 3)), (12, 217, 4049));
        // Nothing at all: no legal move.
        assert!(moves_of("4k4/9/9/9/9/9/9/9/9 b - 1").is_empty());
    }

    #[test]
    fn positions_beyond_a_set_fit_the_move_list() {
        // The first is what the SFEN fuzzer found (three bishops): it has more than 600 moves,
        // which overflowed the list before. The second has two rooks, two bishops and two
        // silvers in the enemy camp, a third rook and bishop and one of every other kind in
        // hand: 604.
        for sfen in
            ["R8/2K1S1BSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1", "R7R/1S5S1/1B5B1/9/4k4/9/9/9/4K4 b RBGSNLP 1"]
        {
            let pos = Position::from_sfen(sfen).unwrap();
            let mut list = MoveList::new();
            generate_legal(&pos, &mut list);
            let mut generated: Vec<u16> = list.iter().map(|m| m.raw()).collect();
            // Every one of the 65536 codes that `is_legal` accepts, in code order.
            let expected: Vec<u16> =
                (0..=u16::MAX).filter_map(Move::from_raw).filter(|&m| pos.is_legal(m)).map(|m| m.raw()).collect();
            generated.sort();
            assert_eq!(generated, expected, "{sfen}");
            assert!(generated.len() > 600, "{sfen}: {} moves", generated.len());
        }
    }

    #[test]
    fn stages_partition_the_search_moves() {
        let sfen = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";
        let pos = Position::from_sfen(sfen).unwrap();
        let mut all = MoveList::new();
        generate_legal(&pos, &mut all);
        let mut staged = MoveList::new();
        generate::<CAPTURES>(&pos, &mut staged);
        generate::<QUIETS>(&pos, &mut staged);
        let mut s: Vec<_> = staged.iter().map(|m| m.raw()).collect();
        let before = s.len();
        s.sort();
        s.dedup();
        assert_eq!(before, s.len(), "a move generated twice");
        for m in &staged {
            assert!(all.contains(m));
        }
        // What the stages leave out is exactly the never-better non-promotions.
        for m in &all {
            if !staged.contains(m) {
                assert!(!m.is_drop() && !m.is_promotion(), "{m}");
                assert!(all.contains(&Move::normal(m.from(), m.to(), true)), "{m}");
            }
        }
    }
}
