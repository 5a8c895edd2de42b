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
    /// Neither side has a king. One side may lack it (a mate problem gives the attacker
    /// none), not both.
    NoKing,
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
            SetupError::NoKing => write!(f, "no king on the board"),
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

    /// Gives `c` every piece of one set that is neither on the board nor in a hand (the
    /// defender's hand of a tsume problem: CSA's `00AL`, KIF's `残りの駒全部`).
    pub fn give_rest_to(&mut self, c: Color) {
        for pt in PieceType::HAND {
            let rest = Hand::set_count(pt).saturating_sub(self.count_kind(pt));
            self.hands[c.index()][pt.index()] += rest;
        }
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

    /// Validates a setup: every piece representable, at most one king per side and at least
    /// one on the board, no piece that could never move, no two pawns of a side on a file, the
    /// side not to move not in check (a side without a king never is). Pieces may be missing
    /// from the board and the hands alike, as in mate problems.
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
            if kings[c.index()] > 1 {
                return Err(SetupError::TwoKings(c));
            }
        }
        if kings == [0, 0] {
            return Err(SetupError::NoKing);
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
        // Nothing attacks the `Square::NONE` of a side without a king.
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

    fn err_of(sfen: &str) -> Option<SetupError> {
        match Position::from_sfen(sfen) {
            Ok(_) => None,
            Err(crate::shogi::SfenError::Illegal(e)) => Some(e),
            Err(e) => panic!("{sfen}: not a setup error: {e}"),
        }
    }

    #[test]
    fn one_side_may_have_no_king() {
        for (sfen, kingless) in [
            ("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1", Color::Black),
            ("4k4/9/4P4/9/9/9/9/9/9 w G 1", Color::Black),
            ("9/9/9/9/9/9/4p4/9/4K4 w 2R2B3G4S4N4L17Pg 1", Color::White),
            ("9/9/9/9/9/9/4p4/9/4K4 b g 1", Color::White),
            // The side to move is in check from the kingless side.
            ("9/9/9/9/9/9/9/4p4/4K4 b - 1", Color::White),
            // Nothing attacks a side without a king.
            ("k8/9/9/9/9/9/9/4p4/4R4 w - 1", Color::Black),
        ] {
            let p = Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
            assert!(!p.has_king(kingless) && p.has_king(!kingless), "{sfen}");
            assert_eq!(p.king_square(kingless), Square::NONE);
            assert_eq!(p.king_square_opt(kingless), None);
            assert_eq!(p.king_square_opt(!kingless), Some(p.king_square(!kingless)));
            assert!(p.is_consistent());
            assert_eq!(p.to_sfen(), sfen);
            let f = p.flipped();
            assert!(f.is_consistent() && !f.has_king(!kingless) && f.has_king(kingless), "{sfen}");
            assert_eq!(f.flipped().to_sfen(), sfen);
        }
    }

    #[test]
    fn kingless_setups_keep_every_other_rule() {
        assert_eq!(err_of("9/9/9/9/9/9/9/9/9 b - 1"), Some(SetupError::NoKing));
        assert_eq!(err_of("9/9/9/9/4P4/9/9/9/9 b 2g 1"), Some(SetupError::NoKing));
        assert_eq!(err_of("4k4/9/9/9/9/9/9/9/3kk4 b - 1"), Some(SetupError::TwoKings(Color::White)));
        assert_eq!(err_of("9/9/9/9/9/9/9/9/3KK4 w - 1"), Some(SetupError::TwoKings(Color::Black)));
        // The side not to move, with its king, in check: from a pawn, from a rook.
        assert_eq!(err_of("4k4/4P4/9/9/9/9/9/9/9 b - 1"), Some(SetupError::OpponentInCheck));
        assert_eq!(err_of("9/9/9/9/9/9/9/4p4/4K4 w - 1"), Some(SetupError::OpponentInCheck));
        assert_eq!(err_of("4k4/9/9/9/4R4/9/9/9/9 b - 1"), Some(SetupError::OpponentInCheck));
        assert_eq!(err_of("4k4/9/4P4/4P4/9/9/9/9/9 b - 1"), Some(SetupError::Nifu { color: Color::Black, file: 4 }));
        assert_eq!(err_of("P3k4/9/9/9/9/9/9/9/9 b - 1"), Some(SetupError::DeadPiece(Square::parse("9a").unwrap())));
        assert_eq!(err_of("4k4/9/9/9/9/9/9/9/9 b 4B 1"), Some(SetupError::TooManyPieces(PieceType::Bishop)));
    }
}
