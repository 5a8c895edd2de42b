//! YaneuraOu's training records: the 256-bit packed SFEN and the 40-byte `PackedSfenValue`
//! (packed position, score, move, game ply, game result), the format its learner,
//! nnue-pytorch's shogi branch and cshogi read.
//!
//! The packed position is a little-endian bit stream: the side to move (1 bit), each king's
//! square (7 bits, 81 for none), every other square in square order with a Huffman code of its
//! piece (empty `0`, pawn `01`, lance `0011`, knight `1011`, silver `0111`, gold `01111`, bishop
//! `011111`, rook `111111`, then a promotion bit except for golds, then the colour bit), the
//! pieces in hand per colour (in the order P L N S G B R, each the board code without its
//! first bit, a zero promotion bit except for golds, and the colour), and last the pieces
//! of one set that are nowhere (the "piece box": codes that read back as promoted hand pieces).
//! A full set always takes exactly 256 bits.

use crate::shogi::{Color, Hand, Move, Piece, PieceType, Position, Setup, Square};
use std::fmt;

/// Bytes of a packed position.
pub const PACKED_BYTES: usize = 32;
/// Bytes of a `PackedSfenValue` record.
pub const RECORD_BYTES: usize = 40;

/// (code, length) of a board piece's kind, indexed by the unpromoted `PieceType` (1..=7).
const BOARD_CODE: [(u32, u32); 8] =
    [(0x00, 1), (0x01, 2), (0x03, 4), (0x0b, 4), (0x07, 4), (0x1f, 6), (0x3f, 6), (0x0f, 5)];
/// (code, length) of a piece-box piece (a piece of the set that is nowhere).
const BOX_CODE: [(u32, u32); 8] =
    [(0x00, 1), (0x02, 2), (0x09, 4), (0x0d, 4), (0x0b, 4), (0x2f, 6), (0x3f, 6), (0x1b, 5)];
/// The square number of a missing king (read, never written: see `PackError::NoKing`).
const NO_KING: u32 = 81;

/// Why a position or record could not be packed or read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackError {
    /// More pieces of a kind than one set: they do not fit in 256 bits.
    MoreThanOneSet(PieceType),
    /// The bits do not describe a position (an impossible code, a stream past 256 bits).
    BadBits,
    /// A side without a king (a tsume problem) takes a bit more than 256.
    NoKing,
    /// Read, but not a position under the rules.
    Illegal(String),
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            PackError::MoreThanOneSet(pt) => write!(f, "more than one set of {pt:?}: cannot be packed"),
            PackError::BadBits => write!(f, "the packed bits do not describe a position"),
            PackError::NoKing => write!(f, "a position without both kings cannot be packed"),
            PackError::Illegal(e) => write!(f, "packed position: {e}"),
        }
    }
}

impl std::error::Error for PackError {}

struct BitWriter {
    data: [u8; PACKED_BYTES],
    cursor: usize,
}

impl BitWriter {
    fn write(&mut self, value: u32, bits: u32) -> Result<(), PackError> {
        for i in 0..bits {
            if self.cursor >= 8 * PACKED_BYTES {
                return Err(PackError::BadBits);
            }
            if value >> i & 1 != 0 {
                self.data[self.cursor / 8] |= 1 << (self.cursor % 8);
            }
            self.cursor += 1;
        }
        Ok(())
    }
}

struct BitReader<'a> {
    data: &'a [u8; PACKED_BYTES],
    cursor: usize,
}

impl BitReader<'_> {
    fn bit(&mut self) -> Result<u32, PackError> {
        if self.cursor >= 8 * PACKED_BYTES {
            return Err(PackError::BadBits);
        }
        let b = (self.data[self.cursor / 8] >> (self.cursor % 8)) & 1;
        self.cursor += 1;
        Ok(b as u32)
    }

    fn bits(&mut self, n: u32) -> Result<u32, PackError> {
        let mut v = 0;
        for i in 0..n {
            v |= self.bit()? << i;
        }
        Ok(v)
    }

    /// The kind whose code (from `table`, codes shortened by `drop` leading bits) comes next.
    fn kind(&mut self, table: &[(u32, u32); 8], drop: u32, first: usize) -> Result<usize, PackError> {
        let (mut code, mut len) = (0, 0);
        while len < 6 {
            code |= self.bit()? << len;
            len += 1;
            if let Some(k) = (first..8).find(|&k| table[k].0 >> drop == code && table[k].1 - drop == len) {
                return Ok(k);
            }
        }
        Err(PackError::BadBits)
    }
}

fn unpromoted_kind(i: usize) -> PieceType {
    PieceType::from_index(i as u8).expect("1..=7 are piece kinds")
}

/// Packs a position (board, hands, side to move; the move number is not kept).
pub fn pack(pos: &Position) -> Result<[u8; PACKED_BYTES], PackError> {
    let setup = pos.to_setup();
    if let Some(pt) = PieceType::HAND.into_iter().find(|&pt| setup.count_kind(pt) > Hand::set_count(pt)) {
        return Err(PackError::MoreThanOneSet(pt));
    }
    let mut w = BitWriter { data: [0; PACKED_BYTES], cursor: 0 };
    w.write(pos.side_to_move().index() as u32, 1)?;
    for c in Color::ALL {
        let king = pos.king_square_opt(c).ok_or(PackError::NoKing)?;
        w.write(king.index() as u32, 7)?;
    }
    let mut left = [0i32; 8];
    for pt in PieceType::HAND {
        left[pt.index()] = Hand::set_count(pt) as i32;
    }
    for sq in Square::all() {
        let pc = pos.piece_on(sq);
        if pc.is_empty() {
            w.write(BOARD_CODE[0].0, BOARD_CODE[0].1)?;
            continue;
        }
        let kind = pc.kind();
        if kind == PieceType::King {
            continue;
        }
        let base = kind.unpromote();
        let (code, len) = BOARD_CODE[base.index()];
        w.write(code, len)?;
        if base != PieceType::Gold {
            w.write(kind.is_promoted() as u32, 1)?;
        }
        w.write(pc.color().index() as u32, 1)?;
        left[base.index()] -= 1;
    }
    for c in Color::ALL {
        let hand = pos.hand(c);
        for pt in PieceType::HAND {
            let (code, len) = BOARD_CODE[pt.index()];
            for _ in 0..hand.count(pt) {
                w.write(code >> 1, len - 1)?;
                if pt != PieceType::Gold {
                    w.write(0, 1)?;
                }
                w.write(c.index() as u32, 1)?;
            }
            left[pt.index()] -= hand.count(pt) as i32;
        }
    }
    for pt in PieceType::HAND {
        let (code, len) = BOX_CODE[pt.index()];
        for _ in 0..left[pt.index()] {
            w.write(code, len)?;
            if pt != PieceType::Gold {
                w.write(0, 1)?;
            }
        }
    }
    Ok(w.data)
}

/// Reads a packed position into a setup with move number `game_ply` (validate it with
/// `Position::from_setup`).
pub fn unpack(data: &[u8; PACKED_BYTES], game_ply: u32) -> Result<Setup, PackError> {
    let mut r = BitReader { data, cursor: 0 };
    let mut setup = Setup { move_number: game_ply.max(1), ..Setup::default() };
    setup.side = if r.bit()? == 0 { Color::Black } else { Color::White };
    for c in Color::ALL {
        let sq = r.bits(7)?;
        if sq < NO_KING {
            setup.put(Square::new(sq as u8), Piece::new(c, PieceType::King));
        } else if sq > NO_KING {
            return Err(PackError::BadBits);
        }
    }
    for sq in Square::all() {
        if !setup.piece_on(sq).is_empty() {
            continue; // a king
        }
        let k = r.kind(&BOARD_CODE, 0, 0)?;
        if k == 0 {
            continue;
        }
        let base = unpromoted_kind(k);
        let promoted = base != PieceType::Gold && r.bit()? == 1;
        let color = if r.bit()? == 0 { Color::Black } else { Color::White };
        setup.put(sq, Piece::new(color, if promoted { base.promote() } else { base }));
    }
    while r.cursor < 8 * PACKED_BYTES {
        let base = unpromoted_kind(r.kind(&BOARD_CODE, 1, 1)?);
        // A set promotion bit marks a piece-box piece (in no hand). The box's gold code reads
        // as a silver's with that bit set, so box golds are skipped here too.
        let in_box = base != PieceType::Gold && r.bit()? == 1;
        let color = r.bit()?;
        if !in_box {
            let c = if color == 0 { Color::Black } else { Color::White };
            setup.hands[c.index()][base.index()] += 1;
        }
    }
    Ok(setup)
}

/// The move in the records' 16-bit form: destination (bits 0-6), origin or, for a drop, the
/// dropped kind (bits 7-13), drop flag (bit 14), promotion flag (bit 15).
pub fn move_to_psv(m: Move) -> u16 {
    let to = m.to().index() as u16;
    if m.is_drop() {
        to | (m.drop_kind().index() as u16) << 7 | 1 << 14
    } else {
        to | (m.from().index() as u16) << 7 | (m.is_promotion() as u16) << 15
    }
}

/// The move of a record's 16-bit form (`None` for codes that are no move).
pub fn move_from_psv(v: u16) -> Option<Move> {
    let to = Square::try_from_index((v & 127) as usize)?;
    let from = ((v >> 7) & 127) as usize;
    if v & (1 << 14) != 0 {
        let pt = PieceType::from_index(from as u8).filter(|pt| PieceType::HAND.contains(pt))?;
        return (v & (1 << 15) == 0).then(|| Move::drop(pt, to));
    }
    let from = Square::try_from_index(from).filter(|&f| f != to)?;
    Some(Move::normal(from, to, v & (1 << 15) != 0))
}

/// One training record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedSfenValue {
    pub sfen: [u8; PACKED_BYTES],
    /// The search's score, side to move's view.
    pub score: i16,
    /// The move played (or the best move), in `move_to_psv` form.
    pub mv: u16,
    /// Ply of the position in its game (the SFEN move number).
    pub game_ply: u16,
    /// 1 if the side to move went on to win, -1 if it lost, 0 for a draw.
    pub result: i8,
}

impl PackedSfenValue {
    pub fn to_bytes(&self) -> [u8; RECORD_BYTES] {
        let mut b = [0u8; RECORD_BYTES];
        b[..32].copy_from_slice(&self.sfen);
        b[32..34].copy_from_slice(&self.score.to_le_bytes());
        b[34..36].copy_from_slice(&self.mv.to_le_bytes());
        b[36..38].copy_from_slice(&self.game_ply.to_le_bytes());
        b[38] = self.result as u8;
        b
    }

    pub fn from_bytes(b: &[u8; RECORD_BYTES]) -> PackedSfenValue {
        let mut sfen = [0u8; PACKED_BYTES];
        sfen.copy_from_slice(&b[..32]);
        PackedSfenValue {
            sfen,
            score: i16::from_le_bytes([b[32], b[33]]),
            mv: u16::from_le_bytes([b[34], b[35]]),
            game_ply: u16::from_le_bytes([b[36], b[37]]),
            result: b[38] as i8,
        }
    }

    /// The record's position, validated.
    pub fn position(&self) -> Result<Position, PackError> {
        let setup = unpack(&self.sfen, self.game_ply as u32)?;
        Position::from_setup(&setup).map_err(|e| PackError::Illegal(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::movegen::{MoveList, generate_legal};

    #[test]
    fn positions_round_trip() {
        for sfen in [
            crate::shogi::STARTPOS,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn3p 124",
            "lnsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        ] {
            let pos = Position::from_sfen(sfen).unwrap();
            let packed = pack(&pos).unwrap();
            let back = Position::from_setup(&unpack(&packed, pos.game_ply()).expect(sfen)).expect(sfen);
            assert_eq!(back.to_sfen(), pos.to_sfen(), "{sfen}");
        }
        let three_bishops = Position::from_sfen("R8/2K1S1BSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1").unwrap();
        assert_eq!(pack(&three_bishops), Err(PackError::MoreThanOneSet(PieceType::Bishop)));
        let tsume = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1").unwrap();
        assert_eq!(pack(&tsume), Err(PackError::NoKing));
    }

    #[test]
    fn moves_round_trip() {
        let pos = Position::from_sfen("l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1").unwrap();
        let mut list = MoveList::new();
        generate_legal(&pos, &mut list);
        assert!(list.iter().any(|m| m.is_drop()) && list.iter().any(|m| m.is_promotion()));
        for &m in list.iter() {
            assert_eq!(move_from_psv(move_to_psv(m)), Some(m));
        }
        let rec = PackedSfenValue { sfen: pack(&pos).unwrap(), score: -1234, mv: 0xbeef, game_ply: 77, result: -1 };
        assert_eq!(PackedSfenValue::from_bytes(&rec.to_bytes()), rec);
    }
}
