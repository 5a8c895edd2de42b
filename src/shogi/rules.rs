//! Game endings: repetition (sennichite, perpetual check), the impasse declaration under each
//! `EnteringKingRule`, the try rule, the move limit, no legal move; and a referee that replays
//! a game and says how (or whether) it ended. No search here.

use super::bitboard::{FILES, ZONE};
use super::movegen::{MoveList, generate_legal};
use super::position::Position;
use super::types::{Color, Move, PieceType, Square};
use std::fmt;
use std::str::FromStr;

/// Impasse rules (names as in YaneuraOu's option of the same name).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EnteringKingRule {
    NoEnteringKing,
    /// 31 points to win.
    CSARule24,
    /// 31+ points win, 24..=30 draw.
    CSARule24H,
    /// 28 (Black) / 27 (White) points to win: floodgate and the CSA tournaments.
    CSARule27,
    /// 28/27 points win, 24 up to the win threshold draw.
    CSARule27H,
    /// The king reaching the enemy king's start square (5a / 5i) unattacked wins.
    TryRule,
}

impl EnteringKingRule {
    /// The rule of floodgate and the CSA tournaments.
    pub const DEFAULT: EnteringKingRule = EnteringKingRule::CSARule27;

    pub const ALL: [EnteringKingRule; 6] = [
        EnteringKingRule::NoEnteringKing,
        EnteringKingRule::CSARule24,
        EnteringKingRule::CSARule24H,
        EnteringKingRule::CSARule27,
        EnteringKingRule::CSARule27H,
        EnteringKingRule::TryRule,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            EnteringKingRule::NoEnteringKing => "NoEnteringKing",
            EnteringKingRule::CSARule24 => "CSARule24",
            EnteringKingRule::CSARule24H => "CSARule24H",
            EnteringKingRule::CSARule27 => "CSARule27",
            EnteringKingRule::CSARule27H => "CSARule27H",
            EnteringKingRule::TryRule => "TryRule",
        }
    }
}

impl Default for EnteringKingRule {
    fn default() -> Self {
        EnteringKingRule::DEFAULT
    }
}

impl fmt::Display for EnteringKingRule {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EnteringKingRule {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        EnteringKingRule::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown entering-king rule '{s}'"))
    }
}

/// Outcome of a declaration by the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Declaration {
    Win,
    /// Only under the H variants: enough points for a draw, not for a win.
    Draw,
    Invalid,
}

/// What the impasse count sees for one side.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ImpasseCount {
    pub king_in_zone: bool,
    /// Own pieces other than the king in the enemy camp.
    pub pieces_in_zone: u32,
    /// Points of those pieces plus all pieces in hand (rook/bishop 5, others 1).
    pub points: u32,
}

#[inline]
fn piece_points(pt: PieceType) -> u32 {
    match pt.unpromote() {
        PieceType::Rook | PieceType::Bishop => 5,
        PieceType::King => 0,
        _ => 1,
    }
}

/// How a repetition of the current position ends the game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RepetitionKind {
    Draw,
    /// The side to move checked on every one of its moves in the cycle: it loses.
    LossForSideToMove,
    /// The opponent checked on every one of its moves: the side to move wins.
    WinForSideToMove,
}

impl Position {
    /// Whether the side to move has at least one legal move.
    pub fn has_legal_move(&self) -> bool {
        let mut list = MoveList::new();
        generate_legal(self, &mut list);
        !list.is_empty()
    }

    /// Whether the side to move is checkmated.
    pub fn is_checkmate(&self) -> bool {
        self.in_check() && !self.has_legal_move()
    }

    /// The impasse count for colour `c`.
    pub fn impasse_count(&self, c: Color) -> ImpasseCount {
        let zone = ZONE[(c).index()];
        let king_in_zone = zone.contains(self.king_square(c));
        let mut pieces_in_zone = 0;
        let mut points = 0;
        for sq in self.pieces_of(c) & zone {
            let pt = self.piece_on(sq).kind();
            if pt != PieceType::King {
                pieces_in_zone += 1;
                points += piece_points(pt);
            }
        }
        let hand = self.hand(c);
        for pt in PieceType::HAND {
            points += hand.count(pt) * piece_points(pt);
        }
        ImpasseCount { king_in_zone, pieces_in_zone, points }
    }

    /// Whether the side to move may declare under `rule`, and with what result. Under
    /// `TryRule` the "declaration" is the try itself: valid when the king can step onto the
    /// try square now (see `try_move`).
    pub fn declaration(&self, rule: EnteringKingRule) -> Declaration {
        let us = self.side_to_move();
        let (win_at, draw_at) = match rule {
            EnteringKingRule::NoEnteringKing => return Declaration::Invalid,
            EnteringKingRule::TryRule => {
                return if self.try_move().is_some() { Declaration::Win } else { Declaration::Invalid };
            }
            EnteringKingRule::CSARule24 => (31, None),
            EnteringKingRule::CSARule24H => (31, Some(24)),
            EnteringKingRule::CSARule27 => (if us == Color::Black { 28 } else { 27 }, None),
            EnteringKingRule::CSARule27H => (if us == Color::Black { 28 } else { 27 }, Some(24)),
        };
        if self.in_check() {
            return Declaration::Invalid;
        }
        let count = self.impasse_count(us);
        if !count.king_in_zone || count.pieces_in_zone < 10 {
            return Declaration::Invalid;
        }
        if count.points >= win_at {
            Declaration::Win
        } else if draw_at.is_some_and(|d| count.points >= d) {
            Declaration::Draw
        } else {
            Declaration::Invalid
        }
    }

    /// Fast test used by search at every node: can the side to move declare a win?
    #[inline]
    pub fn can_declare_win(&self, rule: EnteringKingRule) -> bool {
        let us = self.side_to_move();
        match rule {
            EnteringKingRule::NoEnteringKing => false,
            EnteringKingRule::TryRule => {
                // Cheap filter: the king must stand next to its try square.
                super::attacks::king_attacks(self.king_square(us)).contains(try_square(us)) && self.try_move().is_some()
            }
            _ => ZONE[us.index()].contains(self.king_square(us)) && self.declaration(rule) == Declaration::Win,
        }
    }

    /// Under the try rule: the legal king move onto the try square, if there is one.
    pub fn try_move(&self) -> Option<Move> {
        let us = self.side_to_move();
        let ksq = self.king_square(us);
        let target = try_square(us);
        if !super::attacks::king_attacks(ksq).contains(target) {
            return None;
        }
        let m = Move::normal(ksq, target, false);
        self.is_legal(m).then_some(m)
    }

    /// Classifies a repetition spanning `distance` plies (to an earlier occurrence of the
    /// current position) by the checks given in it.
    pub fn repetition_kind(&self, distance: usize) -> RepetitionKind {
        let st = self.state();
        let us = self.side_to_move();
        let moves_each = distance.div_ceil(2) as u16;
        if st.continuous_checks[us.index()] >= moves_each {
            RepetitionKind::LossForSideToMove
        } else if st.continuous_checks[(!us).index()] >= moves_each {
            RepetitionKind::WinForSideToMove
        } else {
            RepetitionKind::Draw
        }
    }

    /// Why `m` is illegal here, or None if it is legal. The reasons name the rule broken.
    pub fn illegal_reason(&self, m: Move) -> Option<&'static str> {
        if self.is_legal(m) {
            return None;
        }
        let us = self.side_to_move();
        let to = m.to();
        let target = self.piece_on(to);
        if m.is_drop() {
            let pt = m.drop_kind();
            return Some(if !self.hand(us).has(pt) {
                "piece not in hand"
            } else if !target.is_empty() {
                "drop on an occupied square"
            } else if pt.is_dead_on(us, to) {
                "dropped piece could never move"
            } else if pt == PieceType::Pawn
                && (self.pieces(us, PieceType::Pawn) & FILES[to.file() as usize]).is_nonempty()
            {
                "two pawns on a file (nifu)"
            } else if pt == PieceType::Pawn && self.is_pawn_drop_mate(to) {
                "pawn drop mate"
            } else {
                "leaves the king in check"
            });
        }
        let from = m.from();
        let pc = self.piece_on(from);
        Some(if pc.is_empty() || pc.color() != us {
            "no piece of the side to move on the origin square"
        } else if !target.is_empty() && target.color() == us {
            "destination occupied by an own piece"
        } else if !self.attacks_from(from, self.occupied()).contains(to) {
            "the piece cannot move there"
        } else if m.is_promotion() {
            "promotion not allowed"
        } else if pc.kind().is_dead_on(us, to) {
            "promotion is compulsory here"
        } else {
            "leaves the king in check"
        })
    }
}

/// The try square of colour `c`: the enemy king's start square.
pub fn try_square(c: Color) -> Square {
    match c {
        Color::Black => Square::from_file_rank(4, 0), // 5a
        Color::White => Square::from_file_rank(4, 8), // 5i
    }
}

/// The referee's verdict, with the words `hayate judge` prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Ongoing,
    DrawRepetition,
    LossCheckmate,
    LossNoLegalMoves,
    LossPerpetualCheck,
    WinPerpetualCheck,
    WinDeclaration,
    /// Only under the H rules.
    DrawDeclaration,
    LossInvalidDeclaration,
    /// Under the try rule: the previous move put the enemy king on its try square.
    LossTry,
    IllegalMove {
        ply: usize,
        mv: String,
        reason: String,
    },
    DrawMaxMoves,
}

impl Verdict {
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Ongoing => "ongoing",
            Verdict::DrawRepetition => "draw_repetition",
            Verdict::LossCheckmate => "loss_checkmate_for_side_to_move",
            Verdict::LossNoLegalMoves => "loss_no_legal_moves_for_side_to_move",
            Verdict::LossPerpetualCheck => "loss_perpetual_check_for_side_to_move",
            Verdict::WinPerpetualCheck => "win_perpetual_check_for_side_to_move",
            Verdict::WinDeclaration => "win_declaration_for_side_to_move",
            Verdict::DrawDeclaration => "draw_declaration",
            Verdict::LossInvalidDeclaration => "loss_invalid_declaration_for_side_to_move",
            Verdict::LossTry => "loss_try_for_side_to_move",
            Verdict::IllegalMove { .. } => "illegal_move",
            Verdict::DrawMaxMoves => "draw_max_moves",
        }
    }
}

/// Referee settings.
#[derive(Clone, Copy, Debug, Default)]
pub struct JudgeOptions {
    pub rule: EnteringKingRule,
    /// 0 = no limit; otherwise a game that has reached this many plies (counting from move
    /// number 1 of the SFEN) is drawn.
    pub max_moves: u32,
    /// The side to move declares after the moves.
    pub declare: bool,
}

/// Why a move list could not even be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgeInputError(pub String);

/// Follows a game move by move and says when it has ended: the fourth occurrence of a position
/// (sennichite, or perpetual check), no legal move, the try rule, the move limit. The one
/// repetition count of the project (the referee, self-play and record analysis use it).
pub struct Referee {
    opts: JudgeOptions,
    /// Occurrences per position key, and the ply of the first occurrence.
    seen: std::collections::HashMap<u64, (u32, usize)>,
    ply: usize,
}

impl Referee {
    /// A referee for a game from `start` (whose history does not count).
    pub fn new(start: &Position, opts: JudgeOptions) -> Referee {
        let mut seen = std::collections::HashMap::new();
        seen.insert(start.key(), (1, 0));
        Referee { opts, seen, ply: 0 }
    }

    /// The ending of a position in which the side to move has no legal move (checked at the
    /// start of a game; `after_move` checks it after every move).
    pub fn without_moves(pos: &Position) -> Option<Verdict> {
        terminal_without_moves(pos)
    }

    /// The ending that the last move reached in `pos`, if any.
    pub fn after_move(&mut self, pos: &Position) -> Option<Verdict> {
        self.ply += 1;
        let entry = self.seen.entry(pos.key()).or_insert((0, self.ply));
        entry.0 += 1;
        if entry.0 >= 4 {
            return Some(match pos.repetition_kind(self.ply - entry.1) {
                RepetitionKind::Draw => Verdict::DrawRepetition,
                RepetitionKind::LossForSideToMove => Verdict::LossPerpetualCheck,
                RepetitionKind::WinForSideToMove => Verdict::WinPerpetualCheck,
            });
        }
        if let Some(v) = terminal_without_moves(pos) {
            return Some(v);
        }
        if self.opts.rule == EnteringKingRule::TryRule {
            let mover = !pos.side_to_move();
            if pos.king_square(mover) == try_square(mover) {
                return Some(Verdict::LossTry);
            }
        }
        if self.opts.max_moves > 0 && pos.game_ply().saturating_sub(1) >= self.opts.max_moves {
            return Some(Verdict::DrawMaxMoves);
        }
        None
    }
}

impl Verdict {
    /// Who won, for a game that ended with `side_to_move` to move: `Some(None)` for a draw,
    /// `None` while the game goes on.
    pub fn winner(&self, side_to_move: Color) -> Option<Option<Color>> {
        Some(match self {
            Verdict::Ongoing => return None,
            Verdict::DrawRepetition | Verdict::DrawDeclaration | Verdict::DrawMaxMoves => None,
            Verdict::WinPerpetualCheck | Verdict::WinDeclaration => Some(side_to_move),
            Verdict::LossCheckmate
            | Verdict::LossNoLegalMoves
            | Verdict::LossPerpetualCheck
            | Verdict::LossInvalidDeclaration
            | Verdict::LossTry => Some(!side_to_move),
            // The illegal move was the side to move's (judge reports it before playing it).
            Verdict::IllegalMove { .. } => Some(!side_to_move),
        })
    }
}

/// Replays `moves` from `start` and returns the first ending reached (later moves are not
/// looked at), or the state after the last move. Unparsable move text is an input error;
/// a well-formed move that breaks a rule is `IllegalMove`.
pub fn judge(start: &Position, moves: &[String], opts: JudgeOptions) -> Result<Verdict, JudgeInputError> {
    let mut pos = start.clone();
    pos.forget_history();
    let mut referee = Referee::new(&pos, opts);
    if let Some(v) = terminal_without_moves(&pos) {
        return Ok(v);
    }
    for (i, text) in moves.iter().enumerate() {
        let m = super::sfen::parse_move_syntax(text).map_err(|e| JudgeInputError(format!("move {}: {e}", i + 1)))?;
        if let Some(reason) = pos.illegal_reason(m) {
            return Ok(Verdict::IllegalMove { ply: i, mv: text.clone(), reason: reason.to_string() });
        }
        pos.do_move(m);
        if let Some(v) = referee.after_move(&pos) {
            return Ok(v);
        }
    }
    if opts.declare {
        return Ok(match pos.declaration(opts.rule) {
            Declaration::Win => Verdict::WinDeclaration,
            Declaration::Draw => Verdict::DrawDeclaration,
            Declaration::Invalid => Verdict::LossInvalidDeclaration,
        });
    }
    Ok(Verdict::Ongoing)
}

fn terminal_without_moves(pos: &Position) -> Option<Verdict> {
    let mut list = MoveList::new();
    generate_legal(pos, &mut list);
    if !list.is_empty() {
        return None;
    }
    Some(if pos.in_check() { Verdict::LossCheckmate } else { Verdict::LossNoLegalMoves })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn fourfold_repetition_is_a_draw_and_threefold_is_not() {
        let start = Position::startpos();
        let cycle = "2h3h 8b7b 3h2h 7b8b ";
        let three = moves(&cycle.repeat(2));
        let four = moves(&cycle.repeat(3));
        let o = JudgeOptions::default();
        assert_eq!(judge(&start, &three, o).unwrap(), Verdict::Ongoing);
        assert_eq!(judge(&start, &four, o).unwrap(), Verdict::DrawRepetition);
    }

    #[test]
    fn move_limit() {
        let start = Position::startpos();
        let o = JudgeOptions { max_moves: 4, ..Default::default() };
        assert_eq!(judge(&start, &moves("2h3h 8b7b 3h2h"), o).unwrap(), Verdict::Ongoing);
        assert_eq!(judge(&start, &moves("2h3h 8b7b 3h2h 7b8b"), o).unwrap(), Verdict::DrawMaxMoves);
        // A move number in the SFEN counts: move 10 with a limit of 10 ends after one ply.
        let late = Position::from_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 10").unwrap();
        let o = JudgeOptions { max_moves: 10, ..Default::default() };
        assert_eq!(judge(&late, &moves("2h3h"), o).unwrap(), Verdict::DrawMaxMoves);
    }

    #[test]
    fn try_rule() {
        // Black king on 5b next to the empty try square 5a; White king far away.
        let pos = Position::from_sfen("9/4K4/9/9/9/9/9/9/k8 b - 1").unwrap();
        assert_eq!(pos.try_move().map(|m| m.to_string()), Some("5b5a".into()));
        assert_eq!(pos.declaration(EnteringKingRule::TryRule), Declaration::Win);
        let o = JudgeOptions { rule: EnteringKingRule::TryRule, ..Default::default() };
        assert_eq!(judge(&pos, &moves("5b5a"), o).unwrap(), Verdict::LossTry);
        // Guarded try square: no try.
        let guarded = Position::from_sfen("9/4K4/9/9/9/9/9/9/k3r4 b - 1").unwrap();
        assert_eq!(guarded.try_move(), None);
        assert_eq!(guarded.declaration(EnteringKingRule::TryRule), Declaration::Invalid);
    }

    #[test]
    fn kingless_problems_keep_the_drop_rules() {
        let m = |s: &str| super::super::sfen::parse_move_syntax(s).unwrap();
        // Pawn-drop mate against the defender is illegal without an attacker king too (the
        // silver on 2a, the only capturer, is pinned by the rook).
        let p = Position::from_sfen("4R2sk/9/7G1/9/9/9/9/9/9 b P 1").unwrap();
        assert!(p.is_pawn_drop_mate(Square::parse("1b").unwrap()));
        assert_eq!(p.illegal_reason(m("P*1b")), Some("pawn drop mate"));
        // Without the rook the silver takes: a legal check.
        let p = Position::from_sfen("7sk/9/7G1/9/9/9/9/9/9 b P 1").unwrap();
        assert_eq!(p.illegal_reason(m("P*1b")), None);
        // Nifu, and a pawn drop facing a side without a king (no king to mate).
        let p = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b P 1").unwrap();
        assert_eq!(p.illegal_reason(m("P*5e")), Some("two pawns on a file (nifu)"));
        assert_eq!(p.illegal_reason(m("P*5a")), Some("drop on an occupied square"));
        assert_eq!(p.illegal_reason(m("P*4b")), None);
        let p = Position::from_sfen("k8/9/9/9/9/9/9/9/8R w p 1").unwrap();
        assert!(!p.is_pawn_drop_mate(Square::parse("1h").unwrap()));
        assert_eq!(p.illegal_reason(m("P*1h")), None);
        // A kingless side moves as the piece rules allow: the bishop may leave the rook's file.
        let p = Position::from_sfen("8k/9/9/9/4r4/9/4B4/9/4L4 b - 1").unwrap();
        assert_eq!(p.illegal_reason(m("5g4f")), None);
        assert_eq!(p.illegal_reason(m("5g5f")), Some("the piece cannot move there"));
    }

    #[test]
    fn judging_kingless_games() {
        let o = JudgeOptions::default();
        // Mate of the defender.
        let p = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1").unwrap();
        assert_eq!(judge(&p, &moves("G*5b"), o).unwrap(), Verdict::LossCheckmate);
        assert_eq!(judge(&p, &moves("G*4b"), o).unwrap(), Verdict::Ongoing);
        assert!(matches!(judge(&p, &moves("K*5b"), o), Err(JudgeInputError(_))));
        // A side without a king and without a legal move loses.
        let bare = Position::from_sfen("4k4/9/9/9/9/9/9/9/9 b - 1").unwrap();
        assert_eq!(judge(&bare, &[], o).unwrap(), Verdict::LossNoLegalMoves);
        // It can never declare, under any rule.
        let full = Position::from_sfen("4k4/PPPP1PPPP/1+R+B1G1GS1/9/9/9/9/9/9 b RB2G3S4N4L9P 1").unwrap();
        for rule in EnteringKingRule::ALL {
            assert!(!full.can_declare_win(rule), "{rule}");
            assert_eq!(full.declaration(rule), Declaration::Invalid, "{rule}");
            let o = JudgeOptions { rule, declare: true, ..Default::default() };
            assert_eq!(judge(&full, &[], o).unwrap(), Verdict::LossInvalidDeclaration, "{rule}");
        }
        assert_eq!(full.try_move(), None);
        assert!(!full.impasse_count(Color::Black).king_in_zone);
        // Perpetual check by the kingless side: the rook checks on every move, and the fourth
        // occurrence of the position after 9i9a wins for the defender.
        let p = Position::from_sfen("4k4/9/9/9/9/9/9/9/R8 b - 1").unwrap();
        let cycle = "9a9b 5b5a 9b9a 5a5b ";
        let three = format!("9i9a 5a5b {}", cycle.repeat(2).trim_end());
        assert_eq!(judge(&p, &moves(&three), o).unwrap(), Verdict::Ongoing);
        let four = format!("9i9a 5a5b {}9a9b 5b5a 9b9a", cycle.repeat(2));
        assert_eq!(judge(&p, &moves(&four), o).unwrap(), Verdict::WinPerpetualCheck);
    }

    #[test]
    fn rule_names_parse() {
        for r in EnteringKingRule::ALL {
            assert_eq!(r.name().parse::<EnteringKingRule>(), Ok(r));
        }
        assert!("CSARule99".parse::<EnteringKingRule>().is_err());
    }
}
