//! SFEN text to and from `Setup`, positions from SFEN (validated), and USI move notation.

use super::position::Position;
use super::setup::{Setup, SetupError};
use super::types::{Color, Move, Piece, PieceType, Square};
use std::fmt;

pub const STARTPOS: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

/// Why an SFEN string was rejected: either it cannot be read, or it reads as a setup that
/// is not a position under the rules (`Illegal`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SfenError {
    /// Fewer than three fields (board, side, hands); the move number may be omitted.
    MissingFields,
    /// More than four fields.
    TrailingFields(String),
    BadRankCount(usize),
    /// A rank (1-based, a = 1) that does not describe exactly nine squares.
    BadRankLength {
        rank: usize,
        squares: usize,
    },
    UnknownPiece(char),
    /// `+` before a kind that cannot promote, or at the end of a rank.
    BadPromotion(String),
    BadSide(String),
    BadHand(String),
    BadMoveNumber(String),
    /// Read, but not a position the rules allow.
    Illegal(SetupError),
}

impl fmt::Display for SfenError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            SfenError::MissingFields => write!(f, "SFEN needs board, side to move and hands"),
            SfenError::TrailingFields(s) => {
                write!(f, "unexpected text after the move number: '{s}'")
            }
            SfenError::BadRankCount(n) => write!(f, "board has {n} ranks, expected 9"),
            SfenError::BadRankLength { rank, squares } => {
                write!(f, "rank {} describes {squares} squares, expected 9", (b'a' + *rank as u8 - 1) as char)
            }
            SfenError::UnknownPiece(c) => write!(f, "unknown piece letter '{c}'"),
            SfenError::BadPromotion(s) => write!(f, "bad promotion marker in '{s}'"),
            SfenError::BadSide(s) => write!(f, "side to move must be 'b' or 'w', got '{s}'"),
            SfenError::BadHand(s) => write!(f, "bad hand field '{s}'"),
            SfenError::BadMoveNumber(s) => write!(f, "bad move number '{s}'"),
            SfenError::Illegal(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SfenError {}

/// Why a USI move string was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// Not USI move syntax.
    Syntax(String),
    /// Well formed, but not a legal move in this position.
    Illegal(String),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            MoveError::Syntax(s) => write!(f, "'{s}' is not a USI move"),
            MoveError::Illegal(s) => write!(f, "illegal move '{s}'"),
        }
    }
}

impl std::error::Error for MoveError {}

/// Reads the move syntax only (`7g7f`, `8h2b+`, `P*5e`), without looking at a position.
pub fn parse_move_syntax(s: &str) -> Result<Move, MoveError> {
    let err = || MoveError::Syntax(s.to_string());
    let b = s.as_bytes();
    if b.len() == 4 && b[1] == b'*' {
        let pt = PieceType::from_letter(b[0] as char).filter(|&pt| pt != PieceType::King && b[0].is_ascii_uppercase());
        let to = Square::parse(&s[2..4]);
        return match (pt, to) {
            (Some(pt), Some(to)) => Ok(Move::drop(pt, to)),
            _ => Err(err()),
        };
    }
    if !s.is_ascii() {
        return Err(err());
    }
    let promote = match b.len() {
        4 => false,
        5 if b[4] == b'+' => true,
        _ => return Err(err()),
    };
    let from = Square::parse(&s[0..2]).ok_or_else(err)?;
    let to = Square::parse(&s[2..4]).ok_or_else(err)?;
    if from == to {
        return Err(err());
    }
    Ok(Move::normal(from, to, promote))
}

impl Setup {
    /// Reads an SFEN (the move number is optional and defaults to 1) without judging the
    /// position: `Position::from_setup` does that.
    pub fn from_sfen(sfen: &str) -> Result<Setup, SfenError> {
        let fields: Vec<&str> = sfen.split_whitespace().collect();
        if fields.len() < 3 {
            return Err(SfenError::MissingFields);
        }
        if fields.len() > 4 {
            return Err(SfenError::TrailingFields(fields[4..].join(" ")));
        }
        let mut setup = Setup::default();
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 9 {
            return Err(SfenError::BadRankCount(ranks.len()));
        }
        for (r, rank) in ranks.iter().enumerate() {
            let mut file: usize = 9; // squares still to fill, counting down from file 9
            let mut promoted = false;
            for ch in rank.chars() {
                if promoted && !ch.is_ascii_alphabetic() {
                    return Err(SfenError::BadPromotion(rank.to_string()));
                }
                if let Some(d) = ch.to_digit(10) {
                    if d == 0 || d as usize > file {
                        return Err(SfenError::BadRankLength { rank: r + 1, squares: 9 - file + d as usize });
                    }
                    file -= d as usize;
                } else if ch == '+' {
                    promoted = true;
                } else {
                    PieceType::from_letter(ch).ok_or(SfenError::UnknownPiece(ch))?;
                    let pc = Piece::from_sfen(promoted, ch).ok_or_else(|| SfenError::BadPromotion(rank.to_string()))?;
                    promoted = false;
                    if file == 0 {
                        return Err(SfenError::BadRankLength { rank: r + 1, squares: 10 });
                    }
                    file -= 1;
                    setup.put(Square::from_file_rank(file as u8, r as u8), pc);
                }
            }
            if promoted {
                return Err(SfenError::BadPromotion(rank.to_string()));
            }
            if file != 0 {
                return Err(SfenError::BadRankLength { rank: r + 1, squares: 9 - file });
            }
        }
        setup.side = match fields[1] {
            "b" => Color::Black,
            "w" => Color::White,
            s => return Err(SfenError::BadSide(s.to_string())),
        };
        if fields[2] != "-" {
            let bad = || SfenError::BadHand(fields[2].to_string());
            let mut n: Option<u32> = None;
            for ch in fields[2].chars() {
                if let Some(d) = ch.to_digit(10) {
                    let v = n.unwrap_or(0) * 10 + d;
                    if (n.is_none() && d == 0) || v > 31 {
                        return Err(bad());
                    }
                    n = Some(v);
                } else {
                    let pt = PieceType::from_letter(ch).filter(|pt| PieceType::HAND.contains(pt)).ok_or_else(bad)?;
                    let c = if ch.is_ascii_uppercase() { Color::Black } else { Color::White };
                    // Bounded so that no sum of counts can overflow; validation says "too many".
                    let count = &mut setup.hands[c.index()][pt.index()];
                    *count = (*count + n.take().unwrap_or(1)).min(1000);
                }
            }
            if n.is_some() {
                return Err(bad());
            }
        }
        setup.move_number = match fields.get(3) {
            None => 1,
            Some(s) => match s.parse::<u32>() {
                Ok(n) if (1..=1_000_000).contains(&n) => n,
                _ => return Err(SfenError::BadMoveNumber(s.to_string())),
            },
        };
        Ok(setup)
    }

    /// The SFEN of this setup (the one SFEN writer: positions and records use it).
    pub fn to_sfen(&self) -> String {
        let mut s = String::with_capacity(96);
        for r in 0..9u8 {
            let mut empty = 0;
            for f in (0..9u8).rev() {
                let pc = self.piece_on(Square::from_file_rank(f, r));
                if pc.is_empty() {
                    empty += 1;
                } else {
                    if empty > 0 {
                        s.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    s.push_str(&pc.to_string());
                }
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
            if r < 8 {
                s.push('/');
            }
        }
        s.push_str(if self.side == Color::Black { " b " } else { " w " });
        let mut hand = String::new();
        for c in Color::ALL {
            // SFEN writes the hand from rook down to pawn.
            for pt in PieceType::HAND.into_iter().rev() {
                let n = self.hands[c.index()][pt.index()];
                if n > 0 {
                    if n > 1 {
                        hand.push_str(&n.to_string());
                    }
                    let l = pt.letter();
                    hand.push(if c == Color::Black { l } else { l.to_ascii_lowercase() });
                }
            }
        }
        s.push_str(if hand.is_empty() { "-" } else { &hand });
        s.push(' ');
        s.push_str(&self.move_number.to_string());
        s
    }
}

impl Position {
    pub fn startpos() -> Position {
        Position::from_sfen(STARTPOS).expect("the start position is valid")
    }

    /// Parses and validates an SFEN (the move number is optional and defaults to 1).
    pub fn from_sfen(sfen: &str) -> Result<Position, SfenError> {
        Position::from_setup(&Setup::from_sfen(sfen)?).map_err(SfenError::Illegal)
    }

    /// The SFEN of this position, with its move number.
    pub fn to_sfen(&self) -> String {
        self.to_setup().to_sfen()
    }

    /// Parses a USI move and checks that it is legal here.
    pub fn parse_usi_move(&self, s: &str) -> Result<Move, MoveError> {
        let m = parse_move_syntax(s)?;
        if self.is_legal(m) { Ok(m) } else { Err(MoveError::Illegal(s.to_string())) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startpos_round_trips() {
        let p = Position::startpos();
        assert_eq!(p.to_sfen(), STARTPOS);
    }

    #[test]
    fn hands_round_trip() {
        let s = "9/9/9/3k5/9/5K3/9/9/9 b RB2G2S2N2L9Prb2g2s2n2l9p 1";
        assert_eq!(Position::from_sfen(s).unwrap().to_sfen(), s);
        let s = "8k/9/9/9/9/9/9/9/K8 w 18p 5";
        assert_eq!(Position::from_sfen(s).unwrap().to_sfen(), s);
    }

    #[test]
    fn precise_errors() {
        use SfenError::*;
        let cases: &[(&str, SfenError)] = &[
            ("", MissingFields),
            ("lnsgkgsnl/1r5b1 b - 1", BadRankCount(2)),
            ("lnsgkgsnl/1r5b/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", BadRankLength { rank: 2, squares: 8 }),
            (
                "lnsgkgsnl/1r5b11/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
                BadRankLength { rank: 2, squares: 10 },
            ),
            ("lnsgkgsnx/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", UnknownPiece('x')),
            ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNS+GKGSNL b - 1", BadPromotion("LNS+GKGSNL".into())),
            ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x - 1", BadSide("x".into())),
            ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 2 1", BadHand("2".into())),
            (
                "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 14P 1",
                Illegal(SetupError::TooManyPieces(PieceType::Pawn)),
            ),
            (
                "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 2B 1",
                Illegal(SetupError::TooManyPieces(PieceType::Bishop)),
            ),
            ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 32p 1", BadHand("32p".into())),
            ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 1x 1", BadHand("1x".into())),
            ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 0", BadMoveNumber("0".into())),
            ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 x", TrailingFields("x".into())),
            ("lnsgggsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGGGSNL b - 1", Illegal(SetupError::NoKing)),
            ("k8/9/9/9/9/9/9/9/K3K4 b - 1", Illegal(SetupError::TwoKings(Color::Black))),
            ("P7k/9/9/9/9/9/9/9/K8 b - 1", Illegal(SetupError::DeadPiece(Square::parse("9a").unwrap()))),
            ("k8/9/9/9/9/9/9/8n/K8 b - 1", Illegal(SetupError::DeadPiece(Square::parse("1h").unwrap()))),
            ("k8/9/9/9/P8/P8/9/9/K8 b - 1", Illegal(SetupError::Nifu { color: Color::Black, file: 8 })),
            ("k8/9/9/9/9/9/9/9/K7r w - 1", Illegal(SetupError::OpponentInCheck)),
        ];
        for (s, e) in cases {
            assert_eq!(Position::from_sfen(s).err().as_ref(), Some(e), "{s}");
        }
    }

    #[test]
    fn tokin_does_not_count_for_nifu() {
        assert!(Position::from_sfen("k8/9/9/9/+P8/P8/9/9/K8 b - 1").is_ok());
    }

    #[test]
    fn usi_move_syntax() {
        assert!(parse_move_syntax("7g7f").is_ok());
        assert!(parse_move_syntax("8h2b+").is_ok());
        assert!(parse_move_syntax("P*5e").is_ok());
        for bad in ["", "7g7", "7g7f=", "K*5e", "p*5e", "7g7g", "0a1b", "P*5j", "７六歩"] {
            assert!(parse_move_syntax(bad).is_err(), "{bad}");
        }
        let p = Position::startpos();
        assert_eq!(p.parse_usi_move("7g7f").map(|m| m.to_string()), Ok("7g7f".to_string()));
        assert_eq!(p.parse_usi_move("7g7e"), Err(MoveError::Illegal("7g7e".into())));
        assert_eq!(p.parse_usi_move("P*5e"), Err(MoveError::Illegal("P*5e".into())));
    }
}
