//! Move ordering: a staged picker (TT move, good captures, killers, counter move, quiets by
//! history, bad captures) and the history tables it reads.

use super::params::{
    HISTORY_MAX, LOW_PLY, PAWN_HISTORY_SIZE, capture_hist_div, cont_by_colour, cont_relative, cont_slot_weights,
    evasion_cont, good_capture_see_div, low_ply_history, pawn_history, quiet_check_bonus, quiet_main_weight,
};
use super::see::see_ge;
use crate::eval::{PIECE_VALUE, capture_value};
use crate::shogi::movegen::{self, MoveList};
use crate::shogi::position::CheckInfo;
use crate::shogi::{Color, Move, Piece, Position};

/// Index of a move's origin for history tables: the square, or 81 + kind for a drop.
#[inline]
fn from_index(m: Move) -> usize {
    if m.is_drop() { 80 + m.drop_kind().index() } else { m.from().index() }
}

/// Index of the piece that moves (after promotion) and its destination: 32 pieces x 81.
#[inline]
pub fn piece_to_index(pos: &Position, m: Move) -> usize {
    let pc = moved_piece(pos, m);
    pc.index() * 81 + m.to().index()
}

#[inline]
pub fn moved_piece(pos: &Position, m: Move) -> Piece {
    let us = pos.side_to_move();
    if m.is_drop() {
        Piece::new(us, m.drop_kind())
    } else {
        let pc = pos.piece_on(m.from());
        if m.is_promotion() { Piece::new(us, pc.kind().promote()) } else { pc }
    }
}

/// Index of the moving kind (after promotion) and destination, colour-blind: 15 x 81. The
/// colour is implied by whose turn it is, which keeps continuation tables small.
#[inline]
pub fn kind_to_index(pos: &Position, m: Move) -> usize {
    // With `cont_relative` the square is seen from the mover's side (turned half a circle for
    // White), so that both colours' moves of one shape share their entries.
    let to = if cont_relative() != 0 && pos.side_to_move() == Color::White { m.to().rotate() } else { m.to() };
    moved_piece(pos, m).kind().index() * 81 + to.index()
}

const KIND_TO: usize = 15 * 81;

/// The continuation row of an earlier move that does not exist (scores nothing).
static ZERO_ROW: [i16; KIND_TO] = [0; KIND_TO];

/// How many earlier moves' continuation histories score a quiet move.
pub const CONT_PLIES: usize = 5;

/// Kind-to indices of the earlier moves whose continuation histories score a quiet move: one,
/// two, four, three and six plies back (None where there is no such move, or it is not used).
pub type Conts = [Option<usize>; CONT_PLIES];

/// Stockfish's weights (1024ths) of a bonus in each continuation history, in `Conts`' order
/// (one, two, four, three and six plies back), used with `cont_slot_weights`.
const CONT_SLOT_WEIGHTS: [i32; CONT_PLIES] = [1108, 652, 572, 273, 449];

/// History tables of one search thread; they persist between searches of a game.
pub struct History {
    /// [colour][from or drop][to]
    butterfly: Vec<i16>,
    /// Counter move per previous piece-to.
    counter: Vec<Option<Move>>,
    /// Capture history: [moved piece-to][captured kind].
    capture: Vec<i16>,
    /// Continuation history: [colour to move][kind-to of an earlier move][kind-to of this
    /// move] (the colour only with `cont_by_colour`; else both colours share the first half).
    continuation: Vec<i16>,
    /// Low-ply history: [ply below LOW_PLY][from or drop][to], cleared for every search.
    low_ply: Vec<i16>,
    /// Pawn-structure history: [pawn structure][piece-to] (zeroed pages: untouched while
    /// `pawn_history` is off).
    pawn: Vec<i16>,
}

/// The pawn-structure history's index of `pos` (both sides' pawns, hashed).
#[inline]
pub fn pawn_index(pos: &Position) -> usize {
    let b = pos.pieces(Color::Black, crate::shogi::PieceType::Pawn).to_u128();
    let w = pos.pieces(Color::White, crate::shogi::PieceType::Pawn).to_u128();
    let h = ((b as u64) ^ ((b >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)).wrapping_mul(0xbf58_476d_1ce4_e5b9)
        ^ ((w as u64) ^ ((w >> 64) as u64).wrapping_mul(0x94d0_49bb_1331_11eb)).wrapping_mul(0x2545_f491_4f6c_dd1d);
    (h >> 40) as usize % PAWN_HISTORY_SIZE
}

impl Default for History {
    fn default() -> Self {
        History {
            butterfly: vec![0; 2 * 88 * 81],
            counter: vec![None; 32 * 81],
            capture: vec![0; 32 * 81 * 16],
            continuation: vec![0; 2 * KIND_TO * KIND_TO],
            low_ply: vec![0; LOW_PLY * 88 * 81],
            pawn: vec![0; PAWN_HISTORY_SIZE * 32 * 81],
        }
    }
}

#[inline]
fn gravity(entry: &mut i16, bonus: i32) {
    let e = *entry as i32;
    let b = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    *entry = (e + b - e * b.abs() / HISTORY_MAX) as i16;
}

impl History {
    pub fn clear(&mut self) {
        self.butterfly.fill(0);
        self.counter.fill(None);
        self.capture.fill(0);
        self.continuation.fill(0);
        self.low_ply.fill(0);
        if pawn_history() != 0 {
            self.pawn.fill(0);
        }
    }

    /// The pawn-structure history's term for quiet move `m` (`pawn`: the node's
    /// `pawn_index`; None while `pawn_history` is off).
    #[inline]
    pub fn pawn_score(&self, pawn: Option<usize>, pos: &Position, m: Move) -> i32 {
        Self::pawn_score_in(self.pawn_row(pawn), pos, m)
    }

    /// The pawn-structure row of `pawn` (empty while `pawn_history` is off).
    #[inline]
    fn pawn_row(&self, pawn: Option<usize>) -> &[i16] {
        match pawn {
            Some(p) if pawn_history() != 0 => &self.pawn[p * 32 * 81..(p + 1) * 32 * 81],
            _ => &[],
        }
    }

    /// `pawn_score` of `m` with the node's `pawn_row`.
    #[inline]
    fn pawn_score_in(row: &[i16], pos: &Position, m: Move) -> i32 {
        if row.is_empty() { 0 } else { row[piece_to_index(pos, m)] as i32 * pawn_history() }
    }

    /// Forgets the low-ply history (it belongs to one search: the root changes every move).
    pub fn clear_low_ply(&mut self) {
        if low_ply_history() != 0 {
            self.low_ply.fill(0);
        }
    }

    #[inline]
    fn low_ply_index(ply: usize, m: Move) -> usize {
        (ply * 88 + from_index(m)) * 81 + m.to().index()
    }

    /// The low-ply history's ordering term for quiet move `m` at `ply` (0 from LOW_PLY on).
    #[inline]
    pub fn low_ply_score(&self, ply: usize, m: Move) -> i32 {
        if ply >= LOW_PLY || low_ply_history() == 0 {
            return 0;
        }
        self.low_ply[Self::low_ply_index(ply, m)] as i32 * low_ply_history() / 100 / (1 + ply as i32)
    }

    /// Rewards (or punishes) quiet move `m` at `ply` in the low-ply history.
    pub fn update_low_ply(&mut self, ply: usize, m: Move, bonus: i32) {
        if ply < LOW_PLY && low_ply_history() != 0 {
            gravity(&mut self.low_ply[Self::low_ply_index(ply, m)], bonus);
        }
    }

    /// Quiet-move score: butterfly history plus the continuation histories of the earlier
    /// moves in `conts` (their kind-to indices).
    #[inline]
    pub fn quiet_score(&self, pos: &Position, m: Move, conts: &Conts) -> i32 {
        let us = pos.side_to_move();
        self.quiet_score_in(us, m, kind_to_index(pos, m), &self.cont_rows(us, conts))
    }

    /// The continuation rows of the earlier moves `conts` for `us` to move, found once for
    /// all of a node's quiet moves: a missing earlier move reads a row of zeros, so each move
    /// adds its five entries without a test.
    #[inline]
    fn cont_rows(&self, us: Color, conts: &Conts) -> [&[i16]; CONT_PLIES] {
        std::array::from_fn(|slot| match conts[slot] {
            Some(c) => {
                let start = Self::cont_index(us, slot, c, 0);
                &self.continuation[start..start + KIND_TO]
            }
            None => &ZERO_ROW,
        })
    }

    /// `quiet_score` of `m` (kind-to index `kt`) with the node's `cont_rows`.
    #[inline]
    fn quiet_score_in(&self, us: Color, m: Move, kt: usize, rows: &[&[i16]; CONT_PLIES]) -> i32 {
        rows.iter().fold(self.quiet(us, m) * quiet_main_weight(), |s, row| s + row[kt] as i32)
    }

    #[inline]
    fn cont_index(us: Color, slot: usize, earlier: usize, kt: usize) -> usize {
        // `cont_relative`: one half for the opponent's last move (slot 0), one for the side to
        // move's own earlier moves, which otherwise share entries with the same kind-to.
        let side = if cont_relative() != 0 {
            (slot != 0) as usize
        } else if cont_by_colour() != 0 {
            us.index()
        } else {
            0
        };
        (side * KIND_TO + earlier) * KIND_TO + kt
    }

    /// Rewards (or, with a negative bonus, punishes) a quiet move in every quiet table.
    pub fn update_quiet_all(&mut self, pos: &Position, m: Move, conts: &Conts, bonus: i32) {
        self.update_quiet_played(pos.side_to_move(), m, kind_to_index(pos, m), conts, bonus);
        if pawn_history() != 0 {
            let i = pawn_index(pos) * 32 * 81 + piece_to_index(pos, m);
            gravity(&mut self.pawn[i], bonus);
        }
    }

    /// `update_quiet_all` for a move `us` already played (its kind-to index `kt`, as noted
    /// before it was made).
    pub fn update_quiet_played(&mut self, us: Color, m: Move, kt: usize, conts: &Conts, bonus: i32) {
        self.update_quiet(us, m, bonus);
        self.update_cont_played(us, kt, conts, bonus);
    }

    /// Rewards a move `us` played (its kind-to index `kt`) in the continuation histories of
    /// the earlier moves `conts` only.
    pub fn update_cont_played(&mut self, us: Color, kt: usize, conts: &Conts, bonus: i32) {
        for (slot, c) in conts.iter().enumerate() {
            if let Some(c) = c {
                let b = if cont_slot_weights() != 0 { bonus * CONT_SLOT_WEIGHTS[slot] / 1024 } else { bonus };
                gravity(&mut self.continuation[Self::cont_index(us, slot, *c, kt)], b);
            }
        }
    }

    /// Rewards a move already played (its piece-to index `piece_to`) in the pawn-structure
    /// history of the position after it (the move did not change the pawns).
    pub fn update_pawn_played(&mut self, pos: &Position, piece_to: usize, bonus: i32) {
        if pawn_history() != 0 {
            gravity(&mut self.pawn[pawn_index(pos) * 32 * 81 + piece_to], bonus);
        }
    }

    #[inline]
    fn bf_index(c: Color, m: Move) -> usize {
        (c.index() * 88 + from_index(m)) * 81 + m.to().index()
    }

    #[inline]
    pub fn quiet(&self, c: Color, m: Move) -> i32 {
        self.butterfly[Self::bf_index(c, m)] as i32
    }

    pub fn update_quiet(&mut self, c: Color, m: Move, bonus: i32) {
        gravity(&mut self.butterfly[Self::bf_index(c, m)], bonus);
    }

    #[inline]
    fn cap_index(pos: &Position, m: Move) -> usize {
        piece_to_index(pos, m) * 16 + pos.piece_on(m.to()).kind().index()
    }

    #[inline]
    pub fn capture(&self, pos: &Position, m: Move) -> i32 {
        self.capture[Self::cap_index(pos, m)] as i32
    }

    pub fn update_capture(&mut self, pos: &Position, m: Move, bonus: i32) {
        gravity(&mut self.capture[Self::cap_index(pos, m)], bonus);
    }

    pub fn counter_move(&self, prev_piece_to: Option<usize>) -> Option<Move> {
        prev_piece_to.and_then(|i| self.counter[i])
    }

    pub fn set_counter_move(&mut self, prev_piece_to: Option<usize>, m: Move) {
        if let Some(i) = prev_piece_to {
            self.counter[i] = Some(m);
        }
    }
}

/// The index of the first of the highest scores in `scores` (not empty): the move a selection
/// sort picks next. Two passes (the maximum, then where it first is) instead of one that
/// carries the best index: the first pass has no dependency between elements and runs on
/// vector registers, which made the quiet moves' scan a third of what it cost. The second
/// tests eight scores at a time without a branch (also on vector registers), and looks for
/// the one only in the eight that hold it.
#[inline]
fn first_max(scores: &[i32]) -> usize {
    let best = scores.iter().copied().max().unwrap_or(i32::MIN);
    let mut chunks = scores.chunks_exact(8);
    let mut base = 0;
    for c in &mut chunks {
        if c.iter().fold(false, |hit, &s| hit | (s == best)) {
            return base + c.iter().position(|&s| s == best).unwrap_or(0);
        }
        base += 8;
    }
    base + chunks.remainder().iter().position(|&s| s == best).unwrap_or(0)
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Stage {
    TtMove,
    GenCaptures,
    GoodCaptures,
    Killers,
    GenQuiets,
    Quiets,
    BadCaptures,
    GenEvasions,
    Evasions,
    Done,
}

/// Whether a move captures something.
#[inline]
pub fn is_capture(pos: &Position, m: Move) -> bool {
    !m.is_drop() && !pos.piece_on(m.to()).is_empty()
}

/// Captures and promotions: the moves quiescence search looks at.
#[inline]
pub fn is_tactical(pos: &Position, m: Move) -> bool {
    is_capture(pos, m) || (m.is_promotion() && pos.piece_on(m.from()).kind() == crate::shogi::PieceType::Pawn)
}

pub struct MovePicker {
    stage: Stage,
    tt_move: Option<Move>,
    killers: [Option<Move>; 3],
    killer_idx: usize,
    moves: MoveList,
    /// Scores parallel to `moves`, filled by the scoring step (no up-front initialisation).
    scores: arrayvec::ArrayVec<i32, { movegen::MAX_MOVES }>,
    cur: usize,
    bad: MoveList,
    bad_cur: usize,
    /// Quiescence: captures only, no killers, no quiets.
    captures_only: bool,
    /// Kind-to indices of earlier moves (continuation history).
    conts: Conts,
    /// History score of the last move returned, when it came from the quiet list.
    last_quiet_score: Option<i32>,
    /// Set by `skip_quiets` (with the node's check info): quiet moves that do not give check
    /// are no longer returned.
    quiet_checks_only: Option<CheckInfo>,
    /// Quiet moves scoring above this are sorted before the rest (which keep their
    /// generation order).
    quiet_sort_limit: i32,
    /// Quiet moves are picked best first, one at a time (a sort limit below zero).
    select_quiets: bool,
    /// The node's check info, where quiet checks are ordered first (`quiet_check_bonus`).
    check_info: Option<CheckInfo>,
    /// The node's distance from the root (for the low-ply history).
    ply: usize,
    /// The node's pawn-structure index (`pawn_history`), None while that is off.
    pawn: Option<usize>,
}

impl MovePicker {
    /// Picker for the main search. `tt_move` must be legal here (the search checks the
    /// table's move before it decides anything with it); `killers` holds the two killers and
    /// the counter move.
    pub fn new(pos: &Position, tt_move: Option<Move>, killers: [Option<Move>; 3], conts: Conts) -> MovePicker {
        let pawn = if pawn_history() != 0 { Some(pawn_index(pos)) } else { None };
        Self::with_pawn(pos, tt_move, killers, conts, pawn)
    }

    fn with_pawn(
        pos: &Position,
        tt_move: Option<Move>,
        killers: [Option<Move>; 3],
        conts: Conts,
        pawn: Option<usize>,
    ) -> MovePicker {
        let stage = if pos.in_check() { Stage::GenEvasions } else { Stage::TtMove };
        MovePicker {
            stage,
            tt_move,
            killers,
            killer_idx: 0,
            moves: MoveList::new(),
            scores: arrayvec::ArrayVec::new(),
            cur: 0,
            bad: MoveList::new(),
            bad_cur: 0,
            captures_only: false,
            conts,
            last_quiet_score: None,
            quiet_checks_only: None,
            quiet_sort_limit: 0,
            select_quiets: false,
            check_info: None,
            ply: LOW_PLY,
            pawn,
        }
    }

    /// Orders quiet moves also by the low-ply history of `ply` (`low_ply_history`).
    pub fn with_ply(mut self, ply: usize) -> MovePicker {
        self.ply = ply;
        self
    }

    /// Orders quiet checks that do not lose material before the other quiet moves, by
    /// `quiet_check_bonus` (the node's check info tells which quiet moves check).
    pub fn with_check_bonus(mut self, ci: &CheckInfo) -> MovePicker {
        if quiet_check_bonus() != 0 {
            self.check_info = Some(ci.clone());
        }
        self
    }

    /// The ordering bonus of the quiet move `m`: a check that loses little by SEE.
    #[inline]
    fn check_bonus(&self, pos: &Position, m: Move) -> i32 {
        if quiet_check_bonus() == 0 {
            return 0; // a constant in a normal build: no test per move
        }
        match &self.check_info {
            Some(ci) if pos.gives_check_with(ci, m) && see_ge(pos, m, -75) => quiet_check_bonus(),
            _ => 0,
        }
    }

    /// Sorts the quiet moves scoring above `limit` (default 0) before the others.
    pub fn with_quiet_sort_limit(mut self, limit: i32) -> MovePicker {
        self.quiet_sort_limit = limit;
        self
    }

    /// From now on, returns no quiet move that does not give check (the search prunes them
    /// all: late move pruning). Quiet moves not generated yet are not generated, only the
    /// quiet checks.
    pub fn skip_quiets(&mut self, ci: &CheckInfo) {
        if self.quiet_checks_only.is_none() {
            self.quiet_checks_only = Some(ci.clone());
        }
    }

    /// Picker for quiescence search: captures and pawn promotions (all evasions in check).
    pub fn new_qsearch(pos: &Position, tt_move: Option<Move>) -> MovePicker {
        let tt_move = tt_move.filter(|&m| pos.is_legal(m));
        // Quiescence scores no quiet move: no pawn-structure index.
        let mut mp = MovePicker::with_pawn(pos, tt_move, [None; 3], [None; CONT_PLIES], None);
        mp.captures_only = true;
        mp.tt_move = mp.tt_move.filter(|&m| pos.in_check() || is_tactical(pos, m));
        mp
    }

    fn score_captures(&mut self, pos: &Position, hist: &History) {
        self.scores.clear();
        for &m in self.moves.iter() {
            let victim = pos.piece_on(m.to());
            let gain = if victim.is_empty() { 0 } else { capture_value(victim.kind()) };
            let promo = if m.is_promotion() {
                let k = pos.piece_on(m.from()).kind();
                PIECE_VALUE[k.promote().index()] - PIECE_VALUE[k.index()]
            } else {
                0
            };
            self.scores.push((gain + promo) * 8 + hist.capture(pos, m) / capture_hist_div());
        }
    }

    /// `History::quiet_score` plus the ordering's extras for every generated quiet move, with
    /// the node's rows found once.
    fn score_quiets(&mut self, pos: &Position, hist: &History) {
        self.scores.clear();
        let us = pos.side_to_move();
        let rows = hist.cont_rows(us, &self.conts);
        let pawn_row = hist.pawn_row(self.pawn);
        for &m in self.moves.iter() {
            let s = hist.quiet_score_in(us, m, kind_to_index(pos, m), &rows) + History::pawn_score_in(pawn_row, pos, m);
            self.scores.push(s + self.check_bonus(pos, m) + hist.low_ply_score(self.ply, m));
        }
    }

    fn score_evasions(&mut self, pos: &Position, hist: &History) {
        let us = pos.side_to_move();
        self.scores.clear();
        for &m in self.moves.iter() {
            self.scores.push(if is_capture(pos, m) {
                1_000_000 + capture_value(pos.piece_on(m.to()).kind()) * 8
                    - PIECE_VALUE[pos.piece_on(m.from()).kind().index()] / 8
            } else if evasion_cont() != 0
                && let Some(c) = self.conts[0]
            {
                hist.quiet(us, m) + hist.continuation[History::cont_index(us, 0, c, kind_to_index(pos, m))] as i32
            } else {
                hist.quiet(us, m)
            });
        }
    }

    /// Puts the moves scoring above `limit` first, sorted best first; the rest keep their
    /// generation order. Quiet lists are long and mostly unrewarded: sorting all of them would
    /// cost more than the search gains from it.
    fn partial_sort(&mut self, limit: i32) {
        let n = self.moves.len();
        let mut sorted_end = 0;
        for i in 0..n {
            let s = self.scores[i];
            if s <= limit {
                continue;
            }
            let m = self.moves[i];
            // Move the element at `sorted_end` out of the way, then insert (m, s) in order.
            self.moves[i] = self.moves[sorted_end];
            self.scores[i] = self.scores[sorted_end];
            let mut j = sorted_end;
            while j > 0 && self.scores[j - 1] < s {
                self.moves[j] = self.moves[j - 1];
                self.scores[j] = self.scores[j - 1];
                j -= 1;
            }
            self.moves[j] = m;
            self.scores[j] = s;
            sorted_end += 1;
        }
    }

    /// Removes and returns the best-scored remaining move (selection sort step).
    fn pick_best(&mut self) -> Option<Move> {
        if self.cur >= self.moves.len() {
            return None;
        }
        let best = self.cur + first_max(&self.scores[self.cur..]);
        self.moves.swap(self.cur, best);
        self.scores.swap(self.cur, best);
        let m = self.moves[self.cur];
        self.cur += 1;
        Some(m)
    }

    /// The node's pawn-structure index (None while `pawn_history` is off).
    pub fn pawn_index(&self) -> Option<usize> {
        self.pawn
    }

    /// The history score (`History::quiet_score`) of the move `next` returned last, when it
    /// scored it (a quiet move from the quiet list).
    pub fn last_quiet_score(&self) -> Option<i32> {
        self.last_quiet_score
    }

    /// The next move to try, or None when all are done.
    pub fn next(&mut self, pos: &Position, hist: &History) -> Option<Move> {
        self.last_quiet_score = None;
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::GenCaptures;
                    if let Some(m) = self.tt_move {
                        return Some(m);
                    }
                }
                Stage::GenCaptures => {
                    self.moves.clear();
                    movegen::generate::<{ movegen::CAPTURES }>(pos, &mut self.moves);
                    self.score_captures(pos, hist);
                    self.cur = 0;
                    self.stage = Stage::GoodCaptures;
                }
                Stage::GoodCaptures => {
                    while let Some(m) = self.pick_best() {
                        if Some(m) == self.tt_move {
                            continue;
                        }
                        // The score of the move just picked (pick_best left it at cur - 1).
                        let threshold = if good_capture_see_div() > 0 {
                            -self.scores[self.cur - 1] / good_capture_see_div()
                        } else {
                            0
                        };
                        if self.captures_only || see_ge(pos, m, threshold) {
                            return Some(m);
                        }
                        self.bad.push(m);
                    }
                    if self.captures_only {
                        self.stage = Stage::Done;
                        continue;
                    }
                    self.stage = Stage::Killers;
                }
                Stage::Killers => {
                    while self.killer_idx < 3 {
                        let k = self.killers[self.killer_idx];
                        self.killer_idx += 1;
                        if let Some(m) = k
                            && Some(m) != self.tt_move
                            && !self.killers[..self.killer_idx - 1].contains(&Some(m))
                            && !is_tactical(pos, m)
                            && pos.is_legal(m)
                            && self.quiet_checks_only.as_ref().is_none_or(|ci| pos.gives_check_with(ci, m))
                        {
                            return Some(m);
                        }
                    }
                    self.stage = Stage::GenQuiets;
                }
                Stage::GenQuiets => {
                    self.moves.clear();
                    if self.quiet_checks_only.is_some() {
                        movegen::generate::<{ movegen::QUIET_CHECKS }>(pos, &mut self.moves);
                    } else {
                        movegen::generate::<{ movegen::QUIETS }>(pos, &mut self.moves);
                    }
                    self.score_quiets(pos, hist);
                    self.cur = 0;
                    // Below zero (`quiet_sort_per_depth`), most quiet moves would be sorted:
                    // they are picked best first one at a time instead, since most nodes use
                    // only a few of them.
                    self.select_quiets = self.quiet_sort_limit < 0;
                    if !self.select_quiets {
                        self.partial_sort(self.quiet_sort_limit);
                    }
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets => {
                    while self.cur < self.moves.len() {
                        if self.select_quiets && self.quiet_checks_only.is_none() {
                            // Best first while any is above the limit; the rest as they come.
                            let best = self.cur + first_max(&self.scores[self.cur..]);
                            if self.scores[best] <= self.quiet_sort_limit {
                                self.select_quiets = false;
                            } else {
                                self.moves.swap(self.cur, best);
                                self.scores.swap(self.cur, best);
                            }
                        }
                        let m = self.moves[self.cur];
                        self.cur += 1;
                        if Some(m) == self.tt_move
                            || self.killers.contains(&Some(m))
                            || self.quiet_checks_only.as_ref().is_some_and(|ci| !pos.gives_check_with(ci, m))
                        {
                            continue;
                        }
                        // The reductions read the history alone, without the ordering's extras.
                        let extras = self.check_bonus(pos, m) + hist.low_ply_score(self.ply, m);
                        self.last_quiet_score = Some(self.scores[self.cur - 1] - extras);
                        return Some(m);
                    }
                    self.stage = Stage::BadCaptures;
                }
                Stage::BadCaptures => {
                    if self.bad_cur < self.bad.len() {
                        self.bad_cur += 1;
                        return Some(self.bad[self.bad_cur - 1]);
                    }
                    self.stage = Stage::Done;
                }
                Stage::GenEvasions => {
                    self.moves.clear();
                    movegen::generate::<{ movegen::EVASIONS }>(pos, &mut self.moves);
                    self.score_evasions(pos, hist);
                    self.cur = 0;
                    self.stage = Stage::Evasions;
                    if let Some(m) = self.tt_move {
                        return Some(m);
                    }
                }
                Stage::Evasions => {
                    while let Some(m) = self.pick_best() {
                        if Some(m) == self.tt_move {
                            continue;
                        }
                        return Some(m);
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::first_max;

    /// The index a selection sort's one-pass scan picks: the first of the highest.
    fn first_max_by_scan(scores: &[i32]) -> usize {
        let mut best = 0;
        for i in 1..scores.len() {
            if scores[i] > scores[best] {
                best = i;
            }
        }
        best
    }

    #[test]
    fn first_max_picks_the_first_of_the_highest_scores() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for len in 1..200 {
            // Few distinct values, so that ties (which the order depends on) are common.
            let scores: Vec<i32> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x % 7) as i32 * 1000 - 3000 + if x.is_multiple_of(11) { i32::MIN / 2 } else { 0 }
                })
                .collect();
            assert_eq!(first_max(&scores), first_max_by_scan(&scores), "{scores:?}");
        }
        assert_eq!(first_max(&[i32::MIN, i32::MIN]), 0);
    }
}
