//! A game record as every format reads into it: the start position, the main line, the
//! players, the result, and how the game stood after each move.

use crate::shogi::{Declaration, EnteringKingRule, JudgeOptions, Move, Position, Referee, Verdict};
use std::fmt;

/// A game: a start position and the moves played from it (main line only).
#[derive(Clone)]
pub struct Game {
    pub start: Position,
    pub moves: Vec<Move>,
    pub black: Option<String>,
    pub white: Option<String>,
    /// How the record says the game ended (`投了`, `%TORYO`, `resign`, ...), if it says.
    pub result: Option<String>,
    /// The record says that the side to move after the last move declared a win by entering
    /// king (USI `win`, CSA `%KACHI`, JKF `KACHI`, KIF `入玉勝ち`).
    pub declaration: bool,
    /// Evaluation comments (CSA `'** <score> <pv>`, the floodgate form, Black's view):
    /// `scores[i]` is the score written just before move `i`, i.e. for the position after `i`
    /// moves. Empty where the format keeps none; None where a move has none.
    pub scores: Vec<Option<i32>>,
}

impl fmt::Debug for Game {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("Game")
            .field("start", &self.start.to_sfen())
            .field("moves", &self.moves)
            .field("black", &self.black)
            .field("white", &self.white)
            .field("result", &self.result)
            .field("declaration", &self.declaration)
            .finish()
    }
}

impl Game {
    pub fn new(start: Position) -> Game {
        Game {
            start,
            moves: Vec::new(),
            black: None,
            white: None,
            result: None,
            declaration: false,
            scores: Vec::new(),
        }
    }

    /// The positions the game goes through: the start, then one after each move (each with
    /// the moves before it as history).
    pub fn positions(&self) -> Vec<Position> {
        let mut p = self.start.clone();
        let mut out = Vec::with_capacity(self.moves.len() + 1);
        out.push(p.clone());
        for &m in &self.moves {
            p.do_move(m);
            out.push(p.clone());
        }
        out
    }

    /// Where the game had already ended, per position of `positions()`: the rules' referee
    /// (`Referee`, the one repetition count) replays the moves and reports a fourfold
    /// repetition (or perpetual check), a side without legal moves, or the try rule's try;
    /// and when the record says the game ended by a declaration, its final position is a
    /// declaration win (or draw) if the declaration holds under `rule`. An invalid one is
    /// left alone: the game may have been played under another rule.
    pub fn endings(&self, rule: EnteringKingRule) -> Vec<Option<Verdict>> {
        let mut pos = self.start.clone();
        let mut referee = Referee::new(&pos, JudgeOptions { rule, ..JudgeOptions::default() });
        let mut out = Vec::with_capacity(self.moves.len() + 1);
        out.push(Referee::without_moves(&pos));
        for &m in &self.moves {
            pos.do_move(m);
            out.push(referee.after_move(&pos));
        }
        if let Some(last @ None) = out.last_mut()
            && self.declaration
        {
            *last = match pos.declaration(rule) {
                Declaration::Win => Some(Verdict::WinDeclaration),
                Declaration::Draw => Some(Verdict::DrawDeclaration),
                Declaration::Invalid => None,
            };
        }
        out
    }

    /// The position after the last move, with the moves as its history.
    pub fn final_position(&self) -> Position {
        let mut p = self.start.clone();
        for &m in &self.moves {
            p.do_move(m);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::usi;

    #[test]
    fn endings_use_the_referee_and_the_declared_result() {
        let rule = EnteringKingRule::DEFAULT;
        let cycle = " 2h3h 8b7b 3h2h 7b8b";
        let g = usi::parse_game(&format!("startpos moves 7g7f 3c3d{}", cycle.repeat(3))).unwrap();
        let ends = g.endings(rule);
        assert_eq!(ends.len(), 15);
        assert!(ends[..14].iter().all(Option::is_none));
        assert_eq!(ends[14], Some(Verdict::DrawRepetition));
        let g = usi::parse_game("sfen 8k/9/7P1/9/9/9/9/9/K8 b GS 1 moves G*2b").unwrap();
        assert_eq!(g.endings(rule), [None, Some(Verdict::LossCheckmate)]);
        // Black's king and ten pieces in White's camp, 28 points with the hand: a valid
        // declaration under CSARule27 only when the record says it was made.
        let declared = "sfen +R+B+P+P+P+P+P+P1/4K4/+P+P7/9/9/9/9/9/k8 b RBGS 1 moves win";
        let g = usi::parse_game(declared).unwrap();
        assert_eq!(g.endings(rule), [Some(Verdict::WinDeclaration)]);
        assert_eq!(g.endings(EnteringKingRule::NoEnteringKing), [None]);
        let g = usi::parse_game(declared.trim_end_matches(" moves win")).unwrap();
        assert_eq!(g.endings(rule), [None]);
    }
}
