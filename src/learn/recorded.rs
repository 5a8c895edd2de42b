//! Games played elsewhere (match records, CSA files such as `data/games-vs-fsf/*.csa`) as
//! training material: who won, and whose recorded search scores to trust.

use crate::records::Game;
use crate::shogi::Color;

/// Whose recorded search scores train by default: the engine's own (its name in match
/// records starts with this).
pub const SCORER: &str = "hayate";

/// Opening plies of recorded games left out by default. match.py starts every game from an
/// opening line of 19-26 plies played with both colours, so these early positions say little
/// about who wins; the few book plies after the 16th that stay in are seen from both sides.
pub const SKIP_PLIES: usize = 16;

/// How a recorded game ended: `Some(winner)` (`None` inside for a draw), or `None` when the
/// ending says nothing about the result (interrupted, no ending).
pub fn outcome(game: &Game) -> Option<Option<Color>> {
    let mut to_move = game.start.side_to_move();
    if game.moves.len() % 2 == 1 {
        to_move = !to_move;
    }
    match game.result.as_deref()? {
        "%TORYO" | "%TSUMI" | "%TIME_UP" | "%ILLEGAL_MOVE" => Some(Some(!to_move)),
        "%KACHI" => Some(Some(to_move)),
        "%SENNICHITE" | "%JISHOGI" | "%HIKIWAKE" | "%MAX_MOVES" => Some(None),
        _ => None,
    }
}

/// The colour of the player whose name starts with `prefix` (Black's first; None for an
/// empty prefix or no such player).
pub fn player_named(game: &Game, prefix: &str) -> Option<Color> {
    let named = |name: &Option<String>| !prefix.is_empty() && name.as_deref().is_some_and(|n| n.starts_with(prefix));
    if named(&game.black) {
        Some(Color::Black)
    } else if named(&game.white) {
        Some(Color::White)
    } else {
        None
    }
}
