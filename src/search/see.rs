//! Static exchange evaluation: does a move win at least `threshold` once every piece that can
//! recapture on the destination square has had its turn (least valuable first)?

use crate::eval::{Value, capture_value};
use crate::shogi::attacks::{bishop_attacks, file_attacks, lance_attacks, rank_attacks};
use crate::shogi::bitboard::Bitboard;
use crate::shogi::{Color, Move, PieceType, Position, Square};

/// Attackers of both colours on `sq` with occupancy `occ`.
fn all_attackers(pos: &Position, sq: Square, occ: Bitboard) -> Bitboard {
    pos.attackers_to_both(sq, occ) & occ
}

/// Kinds in the order they are used to recapture (cheapest first).
const RECAPTURE_ORDER: [PieceType; 14] = [
    PieceType::Pawn,
    PieceType::Lance,
    PieceType::Knight,
    PieceType::ProPawn,
    PieceType::ProLance,
    PieceType::ProKnight,
    PieceType::Silver,
    PieceType::ProSilver,
    PieceType::Gold,
    PieceType::Bishop,
    PieceType::Rook,
    PieceType::Horse,
    PieceType::Dragon,
    PieceType::King,
];

/// The sliders that attack `to` along the line through `from` (a square next to `to` or
/// further along a file, rank or diagonal; nothing for a knight's jump) with occupancy `occ`:
/// those a piece leaving `from` uncovers, with the ones already seen on that line.
#[inline]
fn xray_behind(pos: &Position, to: Square, from: Square, occ: Bitboard) -> Bitboard {
    let df = from.file() as i32 - to.file() as i32;
    let dr = from.rank() as i32 - to.rank() as i32;
    if df == 0 {
        (file_attacks(to, occ) & pos.rooks_dragons())
            | (lance_attacks(Color::White, to, occ) & pos.pieces(Color::Black, PieceType::Lance))
            | (lance_attacks(Color::Black, to, occ) & pos.pieces(Color::White, PieceType::Lance))
    } else if dr == 0 {
        rank_attacks(to, occ) & pos.rooks_dragons()
    } else if df.abs() == dr.abs() {
        bishop_attacks(to, occ) & pos.bishops_horses()
    } else {
        Bitboard::EMPTY
    }
}

/// Whether the exchange started by `m` gains at least `threshold` for the mover.
pub fn see_ge(pos: &Position, m: Move, threshold: Value) -> bool {
    let to = m.to();
    let us = pos.side_to_move();
    let (moving, mut occ) = if m.is_drop() {
        (m.drop_kind(), pos.occupied() | Bitboard::from_square(to))
    } else {
        let from = m.from();
        let k = pos.piece_on(from).kind();
        let k = if m.is_promotion() { k.promote() } else { k };
        (k, (pos.occupied() ^ Bitboard::from_square(from)) | Bitboard::from_square(to))
    };
    let captured = pos.piece_on(to);
    let mut swap = if captured.is_empty() { 0 } else { capture_value(captured.kind()) } - threshold;
    if swap < 0 {
        return false;
    }
    swap = capture_value(moving) - swap;
    if swap <= 0 {
        return true;
    }
    // Nothing of the opponent's can take back: the exchange ends here, won (the common case
    // for quiet moves, and cheaper to find than all the attackers of both sides).
    if !pos.is_attacked_with(!us, to, occ) {
        return true;
    }
    let mut attackers = all_attackers(pos, to, occ);
    let mut stm = us;
    let mut res = true;
    loop {
        stm = !stm;
        attackers &= occ;
        let stm_attackers = attackers & pos.pieces_of(stm);
        if stm_attackers.is_empty() {
            break;
        }
        res = !res;
        let mut found = None;
        for pt in RECAPTURE_ORDER {
            let bb = stm_attackers & pos.pieces_kind(pt);
            if bb.is_nonempty() {
                found = Some((pt, bb.lsb()));
                break;
            }
        }
        let Some((pt, sq)) = found else { break };
        if pt == PieceType::King {
            // The king may only take last: if the other side still attacks, it cannot.
            return if (attackers & pos.pieces_of(!stm) & occ).is_nonempty() { !res } else { res };
        }
        swap = capture_value(pt) - swap;
        if swap < res as Value {
            break;
        }
        occ ^= Bitboard::from_square(sq);
        // Sliders behind the piece that just took part: only on its line to the square (none
        // behind a knight), so one lookup of that line's kind instead of all four.
        attackers |= xray_behind(pos, to, sq, occ) & occ;
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::attacks::rook_attacks;
    use crate::shogi::movegen::{self, MoveList};

    /// The exchange as it was first written: after each capture, every slider kind's attacks on
    /// the square are looked up again, whatever line the capturer stood on.
    fn see_ge_all_lines(pos: &Position, m: Move, threshold: Value) -> bool {
        let to = m.to();
        let us = pos.side_to_move();
        let (moving, mut occ) = if m.is_drop() {
            (m.drop_kind(), pos.occupied() | Bitboard::from_square(to))
        } else {
            let k = pos.piece_on(m.from()).kind();
            let k = if m.is_promotion() { k.promote() } else { k };
            (k, (pos.occupied() ^ Bitboard::from_square(m.from())) | Bitboard::from_square(to))
        };
        let captured = pos.piece_on(to);
        let mut swap = if captured.is_empty() { 0 } else { capture_value(captured.kind()) } - threshold;
        if swap < 0 {
            return false;
        }
        swap = capture_value(moving) - swap;
        if swap <= 0 {
            return true;
        }
        let mut attackers = all_attackers(pos, to, occ);
        let (mut stm, mut res) = (us, true);
        loop {
            stm = !stm;
            attackers &= occ;
            let mine = attackers & pos.pieces_of(stm);
            let Some((pt, sq)) =
                RECAPTURE_ORDER.iter().find_map(|&pt| (mine & pos.pieces_kind(pt)).iter().next().map(|sq| (pt, sq)))
            else {
                break;
            };
            res = !res;
            if pt == PieceType::King {
                return if (attackers & pos.pieces_of(!stm) & occ).is_nonempty() { !res } else { res };
            }
            swap = capture_value(pt) - swap;
            if swap < res as Value {
                break;
            }
            occ ^= Bitboard::from_square(sq);
            attackers |= ((bishop_attacks(to, occ) & pos.bishops_horses())
                | (rook_attacks(to, occ) & pos.rooks_dragons())
                | (lance_attacks(Color::White, to, occ) & pos.pieces(Color::Black, PieceType::Lance))
                | (lance_attacks(Color::Black, to, occ) & pos.pieces(Color::White, PieceType::Lance)))
                & occ;
        }
        res
    }

    /// Looking up only the capturer's line changes no answer: every move of positions along
    /// random games (captures first, so that the boards get crowded exchanges), at thresholds
    /// from a rook's loss to a rook's gain.
    #[test]
    fn only_the_capturers_line_is_looked_up_again() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut rand = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut exchanges, mut checked) = (0, 0);
        for _game in 0..40 {
            let mut pos = Position::startpos();
            for _ply in 0..120 {
                let mut list = MoveList::new();
                movegen::generate_legal(&pos, &mut list);
                if list.is_empty() {
                    break;
                }
                for &m in list.iter() {
                    for t in [-1200, -500, -90, 0, 1, 90, 300, 500, 1200] {
                        assert_eq!(see_ge(&pos, m, t), see_ge_all_lines(&pos, m, t), "{} {m} {t}", pos.to_sfen());
                        checked += 1;
                    }
                    exchanges +=
                        (!m.is_drop() && pos.is_attacked_with(!pos.side_to_move(), m.to(), pos.occupied())) as u32;
                }
                let captures: Vec<Move> =
                    list.iter().copied().filter(|&m| !m.is_drop() && !pos.piece_on(m.to()).is_empty()).collect();
                let pick = if !captures.is_empty() && rand() % 3 != 0 {
                    captures[rand() as usize % captures.len()]
                } else {
                    list[rand() as usize % list.len()]
                };
                pos.do_move(pick);
            }
        }
        assert!(exchanges > 10_000 && checked > 1_000_000, "{exchanges} {checked}");
    }

    fn mv(pos: &Position, s: &str) -> Move {
        pos.parse_usi_move(s).unwrap()
    }

    #[test]
    fn simple_exchanges() {
        // Black rook takes an undefended pawn: wins a pawn.
        let pos = Position::from_sfen("4k4/9/9/4p4/9/9/9/9/4RK3 b - 1").unwrap();
        let m = mv(&pos, "5i5d");
        assert!(see_ge(&pos, m, 0));
        assert!(see_ge(&pos, m, capture_value(PieceType::Pawn)));
        // Same pawn defended by a gold: rook for pawn loses.
        let pos = Position::from_sfen("4k4/9/4g4/4p4/9/9/9/9/4RK3 b - 1").unwrap();
        let m = mv(&pos, "5i5d");
        assert!(!see_ge(&pos, m, 0));
        // Pawn takes pawn defended by a gold, with a rook behind: pawn for pawn is even.
        let pos = Position::from_sfen("4k4/9/4g4/4p4/4P4/9/9/9/4RK3 b - 1").unwrap();
        let m = mv(&pos, "5e5d");
        assert!(see_ge(&pos, m, 0));
    }
}
