//! Game records and position lists: KIF, KI2, CSA, JKF (JSON), a USI `position` line, and
//! lists of positions (one SFEN or `position` line per line), with the Japanese move notation
//! they use; YaneuraOu's PackedSfenValue training records.
//!
//! - `game`: `Game`, what every format reads into.
//! - `notation`: the Japanese move notation of KIF, KI2 and JKF.
//! - `csa`, `kif` (KIF and KI2), `jkf`, `usi` (a `position` line, a list of positions): the
//!   readers, one per format.
//! - `input`: any record: decoding (UTF-8 or Shift_JIS), detecting the format from the
//!   content unless the caller forces one, parsing. The analysis (`hayate analyze`) and the
//!   learners read records through it.
//! - `packed_sfen`: PackedSfenValue records.

pub mod csa;
mod game;
mod input;
pub mod jkf;
pub mod kif;
pub mod notation;
pub mod packed_sfen;
pub mod usi;

pub use game::Game;
pub use input::{Format, Input, InputError, decode, detect, parse};
