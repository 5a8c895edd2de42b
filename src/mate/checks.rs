//! Legal checking moves, generated directly.
//!
//! The mate search needs every check (captures, non-promotions and drops included) at every
//! attacker node, and `mate_in_one` at every defender reply. Generating all legal moves and
//! filtering them costs most in the positions tsume is about: with a few pieces in hand, drops
//! on every empty square make up hundreds of moves, of which a handful check. Here drops go only
//! to the squares that check, and board moves only to checking squares unless the piece uncovers
//! a check by leaving. The result equals `generate_legal` filtered by `gives_check` (a test
//! compares them on many positions); in check the filter itself is used.

use crate::shogi::attacks::{
    aligned, bishop_attacks, gold_attacks, king_attacks, knight_attacks, lance_attacks, line, pawn_attacks,
    rook_attacks, silver_attacks,
};
use crate::shogi::bitboard::{Bitboard, FILES, RANKS};
use crate::shogi::{Color, Move, MoveList, PieceType, Position, Square, generate_legal};

/// Appends every legal move of the side to move that gives check.
pub fn generate_checks(pos: &Position, list: &mut MoveList) {
    if pos.in_check() {
        let mut all = MoveList::new();
        generate_legal(pos, &mut all);
        let ci = pos.check_info();
        list.extend(all.into_iter().filter(|&m| pos.gives_check_with(&ci, m)));
        return;
    }
    let us = pos.side_to_move();
    let them = !us;
    let eksq = pos.king_square(them);
    let occ = pos.occupied();
    let empty = !occ;
    let chk = CheckSquares::new(them, eksq, occ);
    let discoverers = pos.blockers(them) & pos.pieces_of(us);
    let pinned = pos.pinned();
    // `Square::NONE` for an attacker without a king: nothing pinned, nothing to uncover.
    let ksq = pos.king_square(us);
    let targets = !pos.pieces_of(us);

    for from in pos.pieces_of(us).and_not(pos.pieces_kind(PieceType::King)) {
        let pt = pos.piece_on(from).kind();
        let mut to_set = pos.attacks_from(from, occ) & targets;
        if pinned.contains(from) {
            to_set &= line(ksq, from);
        }
        let discovers = discoverers.contains(from);
        if !discovers {
            let mut reach = chk.of(pt);
            if pt.can_promote() {
                reach |= chk.of(pt.promote());
            }
            to_set &= reach;
        }
        for to in to_set {
            let uncovered = discovers && !aligned(eksq, from, to);
            push_board_move(list, us, pt, from, to, |k| uncovered || chk.of(k).contains(to));
        }
    }
    // The king checks only by uncovering a slider.
    if discoverers.contains(ksq) {
        for to in king_attacks(ksq) & targets {
            let m = Move::normal(ksq, to, false);
            if !aligned(eksq, ksq, to) && pos.is_legal_pseudo(m) {
                list.push(m);
            }
        }
    }

    let hand = pos.hand(us);
    if hand.is_empty() {
        return;
    }
    let (last, second) = match us {
        Color::Black => (RANKS[0], RANKS[1]),
        Color::White => (RANKS[8], RANKS[7]),
    };
    for pt in PieceType::HAND {
        if !hand.has(pt) {
            continue;
        }
        let mut squares = chk.of(pt) & empty;
        match pt {
            PieceType::Pawn => {
                let own_pawns = pos.pieces(us, PieceType::Pawn);
                squares = squares.and_not(last);
                if let Some(sq) = squares.into_iter().next() {
                    // The one pawn check square: nifu and pawn-drop mate rule it out.
                    let file = FILES[sq.file() as usize];
                    if (own_pawns & file).is_nonempty() || pos.is_pawn_drop_mate(sq) {
                        squares = Bitboard::EMPTY;
                    }
                }
            }
            PieceType::Lance => squares = squares.and_not(last),
            PieceType::Knight => squares = squares.and_not(last | second),
            _ => {}
        }
        for to in squares {
            list.push(Move::drop(pt, to));
        }
    }
}

/// Pushes the legal forms (promoted, unpromoted) of a board move that pass `checks(kind)`.
#[inline]
fn push_board_move(
    list: &mut MoveList,
    us: Color,
    pt: PieceType,
    from: Square,
    to: Square,
    checks: impl Fn(PieceType) -> bool,
) {
    let may_promote = pt.can_promote() && (from.in_zone(us) || to.in_zone(us));
    if may_promote && checks(pt.promote()) {
        list.push(Move::normal(from, to, true));
    }
    if !pt.is_dead_on(us, to) && checks(pt) {
        list.push(Move::normal(from, to, false));
    }
}

/// For each kind, the squares from which a piece of the side to move would attack the enemy
/// king (with the current occupancy).
struct CheckSquares {
    pawn: Bitboard,
    lance: Bitboard,
    knight: Bitboard,
    silver: Bitboard,
    gold: Bitboard,
    bishop: Bitboard,
    rook: Bitboard,
    king: Bitboard,
}

impl CheckSquares {
    /// `them`: the colour of the king; `eksq` its square.
    fn new(them: Color, eksq: Square, occ: Bitboard) -> CheckSquares {
        // Reverse attacks: squares a piece of ours attacks the king from are the squares a
        // piece of theirs on the king's square would attack.
        CheckSquares {
            pawn: pawn_attacks(them, eksq),
            lance: lance_attacks(them, eksq, occ),
            knight: knight_attacks(them, eksq),
            silver: silver_attacks(them, eksq),
            gold: gold_attacks(them, eksq),
            bishop: bishop_attacks(eksq, occ),
            rook: rook_attacks(eksq, occ),
            king: king_attacks(eksq),
        }
    }

    #[inline]
    fn of(&self, pt: PieceType) -> Bitboard {
        match pt {
            PieceType::Pawn => self.pawn,
            PieceType::Lance => self.lance,
            PieceType::Knight => self.knight,
            PieceType::Silver => self.silver,
            PieceType::Bishop => self.bishop,
            PieceType::Rook => self.rook,
            PieceType::Horse => self.bishop | self.king,
            PieceType::Dragon => self.rook | self.king,
            PieceType::King => Bitboard::EMPTY,
            PieceType::Gold
            | PieceType::ProPawn
            | PieceType::ProLance
            | PieceType::ProKnight
            | PieceType::ProSilver => self.gold,
        }
    }
}
