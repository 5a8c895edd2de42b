//! An unchecked arrangement of pieces: what an SFEN or a record's diagram describes before the
//! rules have looked at it. It becomes a `Position` only through `Position::from_setup`, which
//! validates it (`SetupError` says why not); reading text is the readers' business
//! (`SfenError` and the record formats' own errors).

use super::bitboard::FILES;
use super::position::Position;
use super::types::{Color, Hand, Piece, PieceType, Square};
use std::fmt;

/// Pieces on the board and in hand, the side to move and the move number, unvalidated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// Pieces by `Square::index` (`Piece::EMPTY` for an empty square).
    pub board: [Piece; Square::NUM],
    /// Pieces in hand per colour and `PieceType::index` of the hand kinds (index 0 unused).
    /// The counts are not bounded here: too many pieces is one of the things validation
    /// reports.
    pub hands: [[u32; 8]; 2],
    pub side: Color,
    /// Move number as in SFEN (1 for a start position).
    pub move_number: u32,
}

impl Default for Setup {
    fn default() -> Setup {
        Setup { board: [Piece::EMPTY; Square::NUM], hands: [[0; 8]; 2], side: Color::Black, move_number: 1 }
    }
}

/// Why a setup is not a position under the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// More pieces of a kind (board plus hands) than hayate can represent. Positions with more
    /// than one set's worth (three bishops in a perft suite, many pawns in a problem) are
    /// accepted up to 31 pawns, 7 lances, knights, silvers or golds, and 3 bishops or rooks.
    TooManyPieces(PieceType),
    MissingKing(Color),
    TwoKings(Color),
    /// A piece that could never move again (pawn or lance on the last rank, knight on the
    /// last two ranks).
    DeadPiece(Square),
    /// Two unpromoted pawns of one side on a file (0 = file 1).
    Nifu {
        color: Color,
        file: u8,
    },
    /// The side that is not to move is in check.
    OpponentInCheck,
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            SetupError::TooManyPieces(pt) => write!(f, "too many pieces of kind {}", pt.letter()),
            SetupError::MissingKing(c) => write!(f, "{} has no king", c.name()),
            SetupError::TwoKings(c) => write!(f, "{} has more than one king", c.name()),
            SetupError::DeadPiece(sq) => write!(f, "piece on {sq} could never move"),
            SetupError::Nifu { color, file } => write!(f, "two {} pawns on file {}", color.name(), file + 1),
            SetupError::OpponentInCheck => write!(f, "the side not to move is in check"),
        }
    }
}

impl std::error::Error for SetupError {}

impl Setup {
    #[inline]
    pub fn piece_on(&self, sq: Square) -> Piece {
        self.board[sq.index()]
    }

    pub fn put(&mut self, sq: Square, pc: Piece) {
        self.board[sq.index()] = pc;
    }

    /// Pieces of `pt`'s unpromoted kind on the board (either colour, promoted or not) and in
    /// both hands.
    pub fn count_kind(&self, pt: PieceType) -> u32 {
        let base = pt.unpromote();
        let on_board = self.board.iter().filter(|pc| !pc.is_empty() && pc.kind().unpromote() == base).count() as u32;
        on_board + self.hands[0][base.index()] + self.hands[1][base.index()]
    }
}

impl Position {
    /// The setup of this position (board, hands, side to move, move number).
    pub fn to_setup(&self) -> Setup {
        let mut s = Setup { side: self.side_to_move(), move_number: self.game_ply(), ..Setup::default() };
        for sq in self.occupied() {
            s.board[sq.index()] = self.piece_on(sq);
        }
        for c in Color::ALL {
            for pt in PieceType::HAND {
                s.hands[c.index()][pt.index()] = self.hand(c).count(pt);
            }
        }
        s
    }

    /// Validates a setup: every piece representable, one king per side, no piece that could
    /// never move, no two pawns of a side on a file, the side not to move not in check.
    pub fn from_setup(s: &Setup) -> Result<Position, SetupError> {
        for pt in PieceType::HAND {
            if s.count_kind(pt) > Hand::capacity(pt) {
                return Err(SetupError::TooManyPieces(pt));
            }
        }
        let mut kings = [0; 2];
        let mut pos = Position::empty();
        for sq in Square::all() {
            let pc = s.piece_on(sq);
            if pc.is_empty() {
                continue;
            }
            if pc.kind() == PieceType::King {
                kings[pc.color().index()] += 1;
            }
            if pc.kind().is_dead_on(pc.color(), sq) {
                return Err(SetupError::DeadPiece(sq));
            }
            pos.setup_put(sq, pc);
        }
        for c in Color::ALL {
            match kings[c.index()] {
                0 => return Err(SetupError::MissingKing(c)),
                1 => {}
                _ => return Err(SetupError::TwoKings(c)),
            }
        }
        for c in Color::ALL {
            let mut hand = Hand::EMPTY;
            for pt in PieceType::HAND {
                hand.set(pt, s.hands[c.index()][pt.index()]);
            }
            pos.setup_hand(c, hand);
            let pawns = pos.pieces(c, PieceType::Pawn);
            for (f, fm) in FILES.iter().enumerate() {
                if (pawns & *fm).more_than_one() {
                    return Err(SetupError::Nifu { color: c, file: f as u8 });
                }
            }
        }
        pos.setup_side(s.side, s.move_number);
        pos.finish_setup();
        if pos.attackers_to(s.side, pos.king_square(!s.side)).is_nonempty() {
            return Err(SetupError::OpponentInCheck);
        }
        Ok(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_round_trips_through_its_setup() {
        for sfen in [
            super::super::STARTPOS,
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "9/9/9/3k5/9/5K3/9/9/9 b RB2G2S2N2L9Prb2g2s2n2l9p 7",
        ] {
            let p = Position::from_sfen(sfen).unwrap();
            let q = Position::from_setup(&p.to_setup()).unwrap();
            assert_eq!(q.to_sfen(), sfen);
            assert_eq!(q.key(), p.key());
        }
    }

    #[test]
    fn validation_names_the_fault() {
        let mut s = Position::startpos().to_setup();
        s.hands[0][PieceType::Bishop.index()] = 2;
        assert_eq!(Position::from_setup(&s).err(), Some(SetupError::TooManyPieces(PieceType::Bishop)));
        let mut s = Position::startpos().to_setup();
        s.put(Square::parse("5e").unwrap(), Piece::new(Color::White, PieceType::King));
        assert_eq!(Position::from_setup(&s).err(), Some(SetupError::TwoKings(Color::White)));
    }
}
