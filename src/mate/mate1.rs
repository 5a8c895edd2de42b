//! Mate in one without touching the position.
//!
//! `mate_in_one` takes `&Position`, so it cannot play moves. For each checking move it builds a
//! `Sketch` of the position after the move (a few bitboards copied on the stack: no heap, no
//! history) and asks whether the defender has any legal reply there: a king step to an
//! unattacked square, a capture of the single checker, or an interposition by a move or a drop.
//! Drops follow the full rules (nifu, dead squares, and a defender's pawn drop that would itself
//! mate the attacker's king is illegal, so it is no defence).

use super::checks::generate_checks;
use crate::shogi::attacks::{
    aligned, between, bishop_attacks, gold_attacks, king_attacks, knight_attacks, lance_attacks, lance_pseudo_attacks,
    pawn_attacks, rook_attacks, silver_attacks,
};
use crate::shogi::bitboard::{Bitboard, RANKS};
use crate::shogi::{Color, Hand, Move, MoveList, PieceType, Position, Square};

/// The pieces of a position grouped by how they attack, enough to decide mate.
#[derive(Clone, Copy)]
struct Sketch {
    color: [Bitboard; 2],
    pawns: Bitboard,
    lances: Bitboard,
    knights: Bitboard,
    silvers: Bitboard,
    /// Gold and the promoted small pieces.
    golds: Bitboard,
    /// Bishops and horses (diagonal sliders).
    diagonal: Bitboard,
    /// Rooks and dragons (orthogonal sliders).
    orthogonal: Bitboard,
    /// King, horse and dragon: one step in every direction.
    one_step: Bitboard,
    /// `Square::NONE` for a side without a king (see `Position::king_square`).
    king: [Square; 2],
    hands: [Hand; 2],
}

impl Sketch {
    fn of(pos: &Position) -> Sketch {
        Sketch {
            color: [pos.pieces_of(Color::Black), pos.pieces_of(Color::White)],
            pawns: pos.pieces_kind(PieceType::Pawn),
            lances: pos.pieces_kind(PieceType::Lance),
            knights: pos.pieces_kind(PieceType::Knight),
            silvers: pos.pieces_kind(PieceType::Silver),
            golds: pos.golds(),
            diagonal: pos.bishops_horses(),
            orthogonal: pos.rooks_dragons(),
            one_step: pos.hdk(),
            king: [pos.king_square(Color::Black), pos.king_square(Color::White)],
            hands: [pos.hand(Color::Black), pos.hand(Color::White)],
        }
    }

    #[inline]
    fn occupied(&self) -> Bitboard {
        self.color[0] | self.color[1]
    }

    #[inline]
    fn clear(&mut self, sq: Square) {
        let b = Bitboard::from_square(sq);
        for bb in self.color.iter_mut() {
            *bb = bb.and_not(b);
        }
        for bb in [
            &mut self.pawns,
            &mut self.lances,
            &mut self.knights,
            &mut self.silvers,
            &mut self.golds,
            &mut self.diagonal,
            &mut self.orthogonal,
            &mut self.one_step,
        ] {
            *bb = bb.and_not(b);
        }
    }

    #[inline]
    fn put(&mut self, c: Color, pt: PieceType, sq: Square) {
        self.color[c.index()].set(sq);
        match pt {
            PieceType::Pawn => self.pawns.set(sq),
            PieceType::Lance => self.lances.set(sq),
            PieceType::Knight => self.knights.set(sq),
            PieceType::Silver => self.silvers.set(sq),
            PieceType::Bishop => self.diagonal.set(sq),
            PieceType::Rook => self.orthogonal.set(sq),
            PieceType::Horse => {
                self.diagonal.set(sq);
                self.one_step.set(sq);
            }
            PieceType::Dragon => {
                self.orthogonal.set(sq);
                self.one_step.set(sq);
            }
            PieceType::King => {
                self.one_step.set(sq);
                self.king[c.index()] = sq;
            }
            PieceType::Gold
            | PieceType::ProPawn
            | PieceType::ProLance
            | PieceType::ProKnight
            | PieceType::ProSilver => self.golds.set(sq),
        }
    }

    /// Pieces of colour `c` that attack `sq` with occupancy `occ`. A piece never attacks its own
    /// square, so a piece standing on `sq` (about to be captured there) is left out by itself.
    #[inline]
    fn attackers_to(&self, c: Color, sq: Square, occ: Bitboard) -> Bitboard {
        let them = !c; // reverse attacks: look from `sq` as a piece of the other colour
        let step = (pawn_attacks(them, sq) & self.pawns)
            | (knight_attacks(them, sq) & self.knights)
            | (silver_attacks(them, sq) & self.silvers)
            | (gold_attacks(them, sq) & self.golds)
            | (king_attacks(sq) & self.one_step);
        let own = self.color[c.index()];
        let mut att = step & own;
        if (self.lances & own).is_nonempty() {
            att |= lance_attacks(them, sq, occ) & self.lances & own;
        }
        if (self.diagonal & own).is_nonempty() {
            att |= bishop_attacks(sq, occ) & self.diagonal & own;
        }
        if (self.orthogonal & own).is_nonempty() {
            att |= rook_attacks(sq, occ) & self.orthogonal & own;
        }
        att
    }

    /// Pieces of colour `c` pinned against their own king.
    fn pinned(&self, c: Color) -> Bitboard {
        let ksq = self.king[c.index()];
        let snipers = ((rook_attacks(ksq, Bitboard::EMPTY) & self.orthogonal)
            | (bishop_attacks(ksq, Bitboard::EMPTY) & self.diagonal)
            | (lance_pseudo_attacks(c, ksq) & self.lances))
            & self.color[(!c).index()];
        let occ = self.occupied();
        let mut pinned = Bitboard::EMPTY;
        for s in snipers {
            let b = between(ksq, s) & occ;
            if b.is_nonempty() && !b.more_than_one() {
                pinned |= b;
            }
        }
        pinned & self.color[c.index()]
    }

    /// Whether `c`, in check from `checkers`, has a legal reply.
    fn has_evasion(&self, c: Color, checkers: Bitboard) -> bool {
        let them = !c;
        let ksq = self.king[c.index()];
        let occ = self.occupied();
        // King steps: look through the king, which would no longer shield the squares behind it.
        let occ_without_king = occ.and_not(Bitboard::from_square(ksq));
        for to in king_attacks(ksq).and_not(self.color[c.index()]) {
            if self.attackers_to(them, to, occ_without_king).is_empty() {
                return true;
            }
        }
        if checkers.more_than_one() {
            return false;
        }
        let checker = checkers.lsb();
        let pinned = self.pinned(c);
        let king_bb = Bitboard::from_square(ksq);
        // Any piece may step onto a square it attacks (captures included), and every such
        // move has a legal form: where a plain move would leave a dead piece, promotion is
        // possible because the last two ranks lie in the zone.
        let can_reach = |to: Square| {
            self.attackers_to(c, to, occ)
                .and_not(king_bb)
                .into_iter()
                .any(|d| !pinned.contains(d) || aligned(ksq, d, to))
        };
        if can_reach(checker) {
            return true;
        }
        let block = between(ksq, checker);
        if block.is_empty() {
            return false;
        }
        if block.into_iter().any(can_reach) {
            return true;
        }
        self.can_drop_between(c, block)
    }

    /// Whether `c` can drop a piece on one of the (empty) squares of `block`.
    fn can_drop_between(&self, c: Color, block: Bitboard) -> bool {
        let hand = self.hands[c.index()];
        if hand.is_empty() {
            return false;
        }
        if hand.has(PieceType::Silver)
            || hand.has(PieceType::Gold)
            || hand.has(PieceType::Bishop)
            || hand.has(PieceType::Rook)
        {
            return true;
        }
        let (last, second) = match c {
            Color::Black => (RANKS[0], RANKS[1]),
            Color::White => (RANKS[8], RANKS[7]),
        };
        if hand.has(PieceType::Lance) && block.and_not(last).is_nonempty() {
            return true;
        }
        if hand.has(PieceType::Knight) && block.and_not(last | second).is_nonempty() {
            return true;
        }
        if hand.has(PieceType::Pawn) {
            let own_pawns = self.pawns & self.color[c.index()];
            let squares = block.and_not(last | own_pawns.fill_files());
            return squares.into_iter().any(|sq| !self.pawn_drop_mates(c, sq));
        }
        false
    }

    /// Whether `c` dropping a pawn on `sq` would checkmate the other king (illegal drop).
    /// Never when the other side has no king (`Square::NONE`, which no pawn attacks).
    fn pawn_drop_mates(&self, c: Color, sq: Square) -> bool {
        let them = !c;
        if !pawn_attacks(c, sq).contains(self.king[them.index()]) {
            return false;
        }
        let mut after = *self;
        after.put(c, PieceType::Pawn, sq);
        // The pawn is the only checker and touches the king, so no drop can answer it and
        // this recursion ends after one level.
        !after.has_evasion(them, Bitboard::from_square(sq))
    }

    /// The sketch after `m` by the side `us` in `pos` (the position this sketch was made of).
    #[inline]
    fn after(&self, pos: &Position, us: Color, m: Move) -> Sketch {
        let mut s = *self;
        let to = m.to();
        if m.is_drop() {
            let pt = m.drop_kind();
            s.hands[us.index()].remove(pt);
            s.put(us, pt, to);
            return s;
        }
        let from = m.from();
        let kind = pos.piece_on(from).kind();
        let captured = pos.piece_on(to);
        s.clear(from);
        if !captured.is_empty() {
            s.clear(to);
            s.hands[us.index()].add(captured.kind().unpromote());
        }
        s.put(us, if m.is_promotion() { kind.promote() } else { kind }, to);
        s
    }
}

/// A legal checking move of the side to move after which the opponent has no legal move, if
/// one exists. Never a pawn drop (a pawn-drop mate is illegal); a pawn moved on the board may
/// mate. Works whether or not the side to move is in check. Allocation-free: moves live in an
/// on-stack `MoveList`, positions after a move in an on-stack `Sketch`.
pub fn mate_in_one(pos: &Position) -> Option<Move> {
    let us = pos.side_to_move();
    let them = !us;
    let mut list = MoveList::new();
    generate_checks(pos, &mut list);
    let base = Sketch::of(pos);
    list.into_iter().find(|&m| {
        let after = base.after(pos, us, m);
        let checkers = after.attackers_to(us, after.king[them.index()], after.occupied());
        debug_assert!(checkers.is_nonempty(), "{m} was said to give check");
        !after.has_evasion(them, checkers)
    })
}
