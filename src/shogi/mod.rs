//! The rules of shogi: types, bitboards, attack tables, positions, move generation and
//! notation. Nothing here depends on search, evaluation or the protocol.

pub mod attacks;
pub mod bitboard;
mod magics;
pub mod movegen;
pub mod position;
pub mod rules;
pub mod setup;
pub mod sfen;
pub mod types;
mod zobrist;

pub use movegen::{MoveList, generate_legal, perft};
pub use position::Position;
pub use rules::{Declaration, EnteringKingRule, JudgeOptions, Referee, RepetitionKind, Verdict};
pub use setup::{Setup, SetupError};
pub use sfen::{MoveError, STARTPOS, SfenError, parse_move_syntax};
pub use types::{Color, Hand, Move, Piece, PieceType, Square};
