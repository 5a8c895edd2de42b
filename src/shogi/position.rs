//! The position: board, hands, side to move, incremental keys, checkers and pins, and
//! `do_move` / `undo_move`.
//!
//! A `Position` is only built through `Position::from_setup` (`setup.rs`), which validates it:
//! at most one king per side and at least one on the board, and the side not to move is not
//! in check. A side may have no king (the attacker of a mate problem): its king square is
//! `Square::NONE`, which every attack and line table maps to the empty board, so such a side
//! is never in check, has no pins and no king moves, and nothing can check it, with no test
//! for it in move generation, `do_move` or the legality and check tests.

use super::attacks::{
    aligned, between, bishop_attacks, gold_attacks, king_attacks, knight_attacks, lance_attacks, lance_pseudo_attacks,
    pawn_attacks, queen_lines, rook_attacks, silver_attacks,
};
use super::bitboard::Bitboard;
use super::types::{Color, Hand, Move, Piece, PieceType, Square};
use super::zobrist;

/// What `do_move` changes beyond the board, kept on a stack so `undo_move` restores it.
#[derive(Copy, Clone, Debug)]
pub struct StateInfo {
    pub board_key: u64,
    pub hand_key: u64,
    /// Enemy pieces giving check to the side to move.
    pub checkers: Bitboard,
    /// Per colour: pieces (of either colour) that alone stand between that colour's king and
    /// an enemy slider. Own pieces among them are pinned; enemy ones can give discovered check.
    pub blockers: [Bitboard; 2],
    /// Piece captured by the move that led here (empty if none).
    pub captured: Piece,
    /// The move that led here.
    pub last_move: Option<Move>,
    /// Number of consecutive checks given by each side up to here (for repetition rules).
    pub continuous_checks: [u16; 2],
}

/// Per-node data for fast check detection (see `Position::check_info`).
#[derive(Clone)]
pub struct CheckInfo {
    squares: [Bitboard; PieceType::NUM],
    /// Every square from which some kind would check (the union of `squares`): most quiet
    /// moves land elsewhere, and are told apart without reading the board.
    targets: Bitboard,
    discoverers: Bitboard,
    eksq: Square,
}

impl CheckInfo {
    /// Squares from which a piece of kind `pt` of the side to move would attack the enemy
    /// king.
    #[inline]
    pub fn squares(&self, pt: PieceType) -> Bitboard {
        self.squares[pt.index()]
    }
}

#[derive(Clone)]
pub struct Position {
    board: [Piece; 81],
    by_color: [Bitboard; 2],
    by_type: [Bitboard; PieceType::NUM],
    hands: [Hand; 2],
    side: Color,
    /// Move number as in SFEN (1 for a start position), increased by one per ply.
    game_ply: u32,
    king_sq: [Square; 2],
    st: StateInfo,
    history: Vec<StateInfo>,
}

impl Position {
    /// An empty shell for the SFEN parser to fill; not a valid position until `finish_setup`.
    pub(super) fn empty() -> Position {
        Position {
            board: [Piece::EMPTY; 81],
            by_color: [Bitboard::EMPTY; 2],
            by_type: [Bitboard::EMPTY; PieceType::NUM],
            hands: [Hand::EMPTY; 2],
            side: Color::Black,
            game_ply: 1,
            king_sq: [Square::NONE; 2],
            st: StateInfo {
                board_key: 0,
                hand_key: 0,
                checkers: Bitboard::EMPTY,
                blockers: [Bitboard::EMPTY; 2],
                captured: Piece::EMPTY,
                last_move: None,
                continuous_checks: [0; 2],
            },
            history: Vec::with_capacity(256),
        }
    }

    pub(super) fn setup_put(&mut self, sq: Square, pc: Piece) {
        self.put_piece(sq, pc);
        if pc.kind() == PieceType::King {
            self.king_sq[pc.color().index()] = sq;
        }
    }

    pub(super) fn setup_hand(&mut self, c: Color, hand: Hand) {
        self.hands[c.index()] = hand;
    }

    pub(super) fn setup_side(&mut self, c: Color, move_number: u32) {
        self.side = c;
        self.game_ply = move_number;
    }

    /// Computes keys, checkers and pins after the parser placed everything.
    pub(super) fn finish_setup(&mut self) {
        self.st.board_key = self.compute_board_key();
        self.st.hand_key = self.compute_hand_key();
        self.update_check_info();
    }

    /// The same position with the board rotated by 180 degrees and the colours swapped (the
    /// side to move swaps too). Evaluation and search must treat both alike.
    pub fn flipped(&self) -> Position {
        let mut p = Position::empty();
        for sq in self.occupied() {
            let pc = self.board[sq.index()];
            p.setup_put(sq.rotate(), Piece::new(!pc.color(), pc.kind()));
        }
        p.setup_hand(Color::Black, self.hands[1]);
        p.setup_hand(Color::White, self.hands[0]);
        p.setup_side(!self.side, self.game_ply);
        p.finish_setup();
        p
    }

    // ----- accessors -----

    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    #[inline]
    pub fn piece_on(&self, sq: Square) -> Piece {
        self.board[sq.index()]
    }

    /// Every square's piece, by `Square::index`.
    #[inline]
    pub fn board(&self) -> &[Piece; 81] {
        &self.board
    }

    #[inline]
    pub fn hand(&self, c: Color) -> Hand {
        self.hands[c.index()]
    }

    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    #[inline]
    pub fn pieces_of(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }

    /// Pieces of one kind, both colours.
    #[inline]
    pub fn pieces_kind(&self, pt: PieceType) -> Bitboard {
        self.by_type[pt.index()]
    }

    #[inline]
    pub fn pieces(&self, c: Color, pt: PieceType) -> Bitboard {
        self.by_type[pt.index()] & self.by_color[c.index()]
    }

    /// Gold and every piece that moves like a gold (promoted pawn, lance, knight, silver).
    #[inline]
    pub fn golds(&self) -> Bitboard {
        self.by_type[PieceType::Gold.index()]
            | self.by_type[PieceType::ProPawn.index()]
            | self.by_type[PieceType::ProLance.index()]
            | self.by_type[PieceType::ProKnight.index()]
            | self.by_type[PieceType::ProSilver.index()]
    }

    #[inline]
    pub fn bishops_horses(&self) -> Bitboard {
        self.by_type[PieceType::Bishop.index()] | self.by_type[PieceType::Horse.index()]
    }

    #[inline]
    pub fn rooks_dragons(&self) -> Bitboard {
        self.by_type[PieceType::Rook.index()] | self.by_type[PieceType::Dragon.index()]
    }

    /// Kings, horses and dragons: the pieces with a one-step move in all eight directions.
    #[inline]
    pub fn hdk(&self) -> Bitboard {
        self.by_type[PieceType::King.index()]
            | self.by_type[PieceType::Horse.index()]
            | self.by_type[PieceType::Dragon.index()]
    }

    /// The square of `c`'s king, or `Square::NONE` when `c` has none (see `Square::NONE` for
    /// what may be done with it). Callers that index per-square tables of their own use
    /// `king_square_opt`.
    #[inline]
    pub fn king_square(&self, c: Color) -> Square {
        self.king_sq[c.index()]
    }

    /// The square of `c`'s king, if `c` has one.
    #[inline]
    pub fn king_square_opt(&self, c: Color) -> Option<Square> {
        let sq = self.king_sq[c.index()];
        (sq != Square::NONE).then_some(sq)
    }

    /// Whether `c` has a king on the board.
    #[inline]
    pub fn has_king(&self, c: Color) -> bool {
        self.king_sq[c.index()] != Square::NONE
    }

    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.st.checkers
    }

    #[inline]
    pub fn in_check(&self) -> bool {
        self.st.checkers.is_nonempty()
    }

    /// Pieces of the side to move pinned against its own king.
    #[inline]
    pub fn pinned(&self) -> Bitboard {
        self.st.blockers[self.side.index()] & self.by_color[self.side.index()]
    }

    /// Blockers of `c`'s king (pieces of either colour).
    #[inline]
    pub fn blockers(&self, c: Color) -> Bitboard {
        self.st.blockers[c.index()]
    }

    /// Zobrist key of board, both hands and side to move.
    #[inline]
    pub fn key(&self) -> u64 {
        self.st.board_key ^ self.st.hand_key
    }

    #[inline]
    pub fn board_key(&self) -> u64 {
        self.st.board_key
    }

    #[inline]
    pub fn hand_key(&self) -> u64 {
        self.st.hand_key
    }

    /// Move number in SFEN terms (1 at the start of a game).
    #[inline]
    pub fn game_ply(&self) -> u32 {
        self.game_ply
    }

    /// Plies played since this position was set up.
    #[inline]
    pub fn plies_from_root(&self) -> usize {
        self.history.len()
    }

    #[inline]
    pub fn last_move(&self) -> Option<Move> {
        self.st.last_move
    }

    #[inline]
    pub fn captured_piece(&self) -> Piece {
        self.st.captured
    }

    #[inline]
    pub fn state(&self) -> &StateInfo {
        &self.st
    }

    /// States before the current one, oldest first (for repetition checks).
    #[inline]
    pub fn history(&self) -> &[StateInfo] {
        &self.history
    }

    /// Drops the stored history so this position becomes a new root (keeps the board).
    pub fn forget_history(&mut self) {
        self.history.clear();
    }

    // ----- attacks -----

    /// Pieces of colour `c` that attack `sq`, with occupancy `occ`.
    #[inline]
    pub fn attackers_to_with(&self, c: Color, sq: Square, occ: Bitboard) -> Bitboard {
        let them = !c; // reverse attacks: look from `sq` as a piece of the other colour
        let t = &self.by_type;
        let step = (pawn_attacks(them, sq) & t[PieceType::Pawn.index()])
            | (knight_attacks(them, sq) & t[PieceType::Knight.index()])
            | (silver_attacks(them, sq) & t[PieceType::Silver.index()])
            | (gold_attacks(them, sq) & self.golds())
            | (king_attacks(sq) & self.hdk());
        let sliders = (lance_attacks(them, sq, occ) & t[PieceType::Lance.index()])
            | (bishop_attacks(sq, occ) & self.bishops_horses())
            | (rook_attacks(sq, occ) & self.rooks_dragons());
        (step | sliders) & self.by_color[c.index()]
    }

    /// Pieces of both colours that attack `sq` with occupancy `occ` (one slider lookup per
    /// kind instead of one per colour and kind).
    #[inline]
    pub fn attackers_to_both(&self, sq: Square, occ: Bitboard) -> Bitboard {
        let t = &self.by_type;
        let (black, white) = (self.by_color[Color::Black.index()], self.by_color[Color::White.index()]);
        // A black piece attacks `sq` from where a white piece on `sq` would attack, and back.
        let by_black = (pawn_attacks(Color::White, sq) & t[PieceType::Pawn.index()])
            | (knight_attacks(Color::White, sq) & t[PieceType::Knight.index()])
            | (silver_attacks(Color::White, sq) & t[PieceType::Silver.index()])
            | (gold_attacks(Color::White, sq) & self.golds())
            | (lance_attacks(Color::White, sq, occ) & t[PieceType::Lance.index()]);
        let by_white = (pawn_attacks(Color::Black, sq) & t[PieceType::Pawn.index()])
            | (knight_attacks(Color::Black, sq) & t[PieceType::Knight.index()])
            | (silver_attacks(Color::Black, sq) & t[PieceType::Silver.index()])
            | (gold_attacks(Color::Black, sq) & self.golds())
            | (lance_attacks(Color::Black, sq, occ) & t[PieceType::Lance.index()]);
        let both = (king_attacks(sq) & self.hdk())
            | (bishop_attacks(sq, occ) & self.bishops_horses())
            | (rook_attacks(sq, occ) & self.rooks_dragons());
        (by_black & black) | (by_white & white) | (both & (black | white))
    }

    #[inline]
    pub fn attackers_to(&self, c: Color, sq: Square) -> Bitboard {
        self.attackers_to_with(c, sq, self.occupied())
    }

    /// Whether colour `c` attacks `sq` given occupancy `occ`. Cheaper than `attackers_to_with`:
    /// step attackers first, and slider lookups only for kinds the attacker has.
    #[inline]
    pub fn is_attacked_with(&self, c: Color, sq: Square, occ: Bitboard) -> bool {
        let them = !c;
        let t = &self.by_type;
        let own = self.by_color[c.index()];
        let step = (pawn_attacks(them, sq) & t[PieceType::Pawn.index()])
            | (knight_attacks(them, sq) & t[PieceType::Knight.index()])
            | (silver_attacks(them, sq) & t[PieceType::Silver.index()])
            | (gold_attacks(them, sq) & self.golds())
            | (king_attacks(sq) & self.hdk());
        if (step & own).is_nonempty() {
            return true;
        }
        let lances = t[PieceType::Lance.index()] & own;
        if lances.is_nonempty() && (lance_attacks(them, sq, occ) & lances).is_nonempty() {
            return true;
        }
        let diag = self.bishops_horses() & own;
        if diag.is_nonempty() && (bishop_attacks(sq, occ) & diag).is_nonempty() {
            return true;
        }
        let ortho = self.rooks_dragons() & own;
        ortho.is_nonempty() && (rook_attacks(sq, occ) & ortho).is_nonempty()
    }

    /// Attacks of the piece standing on `sq` (empty for an empty square).
    #[inline]
    pub fn attacks_from(&self, sq: Square, occ: Bitboard) -> Bitboard {
        let pc = self.board[sq.index()];
        if pc.is_empty() {
            return Bitboard::EMPTY;
        }
        super::attacks::attacks_of(pc.color(), pc.kind(), sq, occ)
    }

    /// Pieces that alone stand between `c`'s king and an enemy slider aimed at it.
    fn compute_blockers(&self, c: Color) -> Bitboard {
        let ksq = self.king_sq[c.index()];
        let enemy = self.by_color[(!c).index()];
        let snipers = ((rook_attacks(ksq, Bitboard::EMPTY) & self.rooks_dragons())
            | (bishop_attacks(ksq, Bitboard::EMPTY) & self.bishops_horses())
            | (lance_pseudo_attacks(c, ksq) & self.by_type[PieceType::Lance.index()]))
            & enemy;
        let occ = self.occupied();
        let mut blockers = Bitboard::EMPTY;
        for s in snipers {
            let b = between(ksq, s) & occ;
            if b.is_nonempty() && !b.more_than_one() {
                blockers |= b;
            }
        }
        blockers
    }

    fn update_check_info(&mut self) {
        let us = self.side;
        self.st.checkers = self.attackers_to(!us, self.king_sq[us.index()]);
        self.st.blockers = [self.compute_blockers(Color::Black), self.compute_blockers(Color::White)];
    }

    // ----- board edits -----

    #[inline]
    fn put_piece(&mut self, sq: Square, pc: Piece) {
        self.board[sq.index()] = pc;
        self.by_color[pc.color().index()].set(sq);
        self.by_type[pc.kind().index()].set(sq);
    }

    #[inline]
    fn remove_piece(&mut self, sq: Square) -> Piece {
        let pc = self.board[sq.index()];
        self.board[sq.index()] = Piece::EMPTY;
        self.by_color[pc.color().index()].clear(sq);
        self.by_type[pc.kind().index()].clear(sq);
        pc
    }

    /// Plays `m`, which must be legal (`is_legal` for moves from outside).
    pub fn do_move(&mut self, m: Move) {
        let us = self.side;
        self.history.push(self.st);
        let mut board_key = self.st.board_key ^ zobrist::SIDE;
        let mut hand_key = self.st.hand_key;
        let mut captured = Piece::EMPTY;
        let to = m.to();
        let them = !us;
        let eksq = self.king_sq[them.index()];
        let mut checkers = Bitboard::EMPTY;
        let moved_kind;
        if m.is_drop() {
            let pt = m.drop_kind();
            let pc = Piece::new(us, pt);
            self.hands[us.index()].remove(pt);
            hand_key = hand_key.wrapping_sub(zobrist::HAND[us.index()][pt.index()]);
            self.put_piece(to, pc);
            board_key ^= zobrist::BOARD[pc.index()][to.index()];
            moved_kind = pt;
        } else {
            let from = m.from();
            let pc = self.remove_piece(from);
            board_key ^= zobrist::BOARD[pc.index()][from.index()];
            if !self.board[to.index()].is_empty() {
                captured = self.remove_piece(to);
                board_key ^= zobrist::BOARD[captured.index()][to.index()];
                let hpt = captured.kind().unpromote();
                self.hands[us.index()].add(hpt);
                hand_key = hand_key.wrapping_add(zobrist::HAND[us.index()][hpt.index()]);
            }
            let moved = if m.is_promotion() { Piece::new(us, pc.kind().promote()) } else { pc };
            self.put_piece(to, moved);
            board_key ^= zobrist::BOARD[moved.index()][to.index()];
            moved_kind = moved.kind();
            if moved_kind == PieceType::King {
                self.king_sq[us.index()] = to;
            }
            // Discovered check: the piece left a line between one of our sliders and their king.
            if self.st.blockers[them.index()].contains(from) && !aligned(eksq, from, to) {
                let occ = self.occupied();
                let own = self.by_color[us.index()];
                checkers |= ((rook_attacks(eksq, occ) & self.rooks_dragons())
                    | (bishop_attacks(eksq, occ) & self.bishops_horses())
                    | (lance_attacks(them, eksq, occ) & self.by_type[PieceType::Lance.index()]))
                    & own;
            }
        }
        if super::attacks::attacks_of(us, moved_kind, to, self.occupied()).contains(eksq) {
            checkers.set(to);
        }
        self.side = them;
        self.game_ply += 1;
        self.st.board_key = board_key;
        self.st.hand_key = hand_key;
        self.st.captured = captured;
        self.st.last_move = Some(m);
        self.st.checkers = checkers;
        // A king's blockers change only when that king moves or a square on one of its eight
        // lines changes (the origin, the destination); most moves touch neither.
        let changed = if m.is_drop() {
            Bitboard::from_square(to)
        } else {
            Bitboard::from_square(to) | Bitboard::from_square(m.from())
        };
        for c in Color::ALL {
            let ksq = self.king_sq[c.index()];
            if (c == us && moved_kind == PieceType::King) || (queen_lines(ksq) & changed).is_nonempty() {
                self.st.blockers[c.index()] = self.compute_blockers(c);
            }
        }
        debug_assert_eq!(self.st.blockers, [self.compute_blockers(Color::Black), self.compute_blockers(Color::White)]);
        debug_assert_eq!(checkers, self.attackers_to(us, eksq));
        let cc = &mut self.st.continuous_checks;
        cc[us.index()] = if checkers.is_nonempty() { cc[us.index()].saturating_add(1) } else { 0 };
    }

    /// Takes back `m`, which must be the last move played.
    pub fn undo_move(&mut self, m: Move) {
        let captured = self.st.captured;
        self.side = !self.side;
        self.game_ply -= 1;
        let us = self.side;
        let to = m.to();
        if m.is_drop() {
            let pt = m.drop_kind();
            self.remove_piece(to);
            self.hands[us.index()].add(pt);
        } else {
            let from = m.from();
            let moved = self.remove_piece(to);
            let orig = if m.is_promotion() { Piece::new(us, moved.kind().unpromote()) } else { moved };
            self.put_piece(from, orig);
            if orig.kind() == PieceType::King {
                self.king_sq[us.index()] = from;
            }
            if !captured.is_empty() {
                self.put_piece(to, captured);
                self.hands[us.index()].remove(captured.kind().unpromote());
            }
        }
        self.st = self.history.pop().expect("undo_move without a matching do_move");
    }

    /// Passes the turn (null move) for search; undo with `undo_null_move`.
    pub fn do_null_move(&mut self) {
        debug_assert!(!self.in_check());
        self.history.push(self.st);
        self.st.board_key ^= zobrist::SIDE;
        self.st.captured = Piece::EMPTY;
        self.st.last_move = None;
        self.side = !self.side;
        self.game_ply += 1;
        self.st.checkers = Bitboard::EMPTY;
        self.st.continuous_checks[(!self.side).index()] = 0;
    }

    pub fn undo_null_move(&mut self) {
        self.side = !self.side;
        self.game_ply -= 1;
        self.st = self.history.pop().expect("undo_null_move without a matching do_null_move");
    }

    // ----- keys -----

    pub fn compute_board_key(&self) -> u64 {
        let mut k = if self.side == Color::White { zobrist::SIDE } else { 0 };
        for sq in self.occupied() {
            k ^= zobrist::BOARD[self.board[sq.index()].index()][sq.index()];
        }
        k
    }

    pub fn compute_hand_key(&self) -> u64 {
        let mut k = 0u64;
        for c in Color::ALL {
            for pt in PieceType::HAND {
                let n = self.hands[c.index()].count(pt) as u64;
                k = k.wrapping_add(zobrist::HAND[c.index()][pt.index()].wrapping_mul(n));
            }
        }
        k
    }

    /// Key of the position after `m`, without playing it (for TT prefetch and repetition).
    pub fn key_after(&self, m: Move) -> u64 {
        let (board_key, hand_key) = self.keys_after(m);
        board_key ^ hand_key
    }

    /// Board key and hand key of the position after `m`, without playing it (the mate table
    /// files positions by board and compares hands).
    pub fn keys_after(&self, m: Move) -> (u64, u64) {
        let us = self.side;
        let mut board_key = self.st.board_key ^ zobrist::SIDE;
        let mut hand_key = self.st.hand_key;
        let to = m.to();
        if m.is_drop() {
            let pt = m.drop_kind();
            hand_key = hand_key.wrapping_sub(zobrist::HAND[us.index()][pt.index()]);
            board_key ^= zobrist::BOARD[Piece::new(us, pt).index()][to.index()];
        } else {
            let from = m.from();
            let pc = self.board[from.index()];
            board_key ^= zobrist::BOARD[pc.index()][from.index()];
            let cap = self.board[to.index()];
            if !cap.is_empty() {
                board_key ^= zobrist::BOARD[cap.index()][to.index()];
                let hpt = cap.kind().unpromote();
                hand_key = hand_key.wrapping_add(zobrist::HAND[us.index()][hpt.index()]);
            }
            let moved = if m.is_promotion() { Piece::new(us, pc.kind().promote()) } else { pc };
            board_key ^= zobrist::BOARD[moved.index()][to.index()];
        }
        (board_key, hand_key)
    }

    // ----- legality -----

    /// Whether `m` is a legal move here. Accepts any move code, so it is safe for moves from
    /// the GUI, the transposition table or a fuzzer.
    pub fn is_legal(&self, m: Move) -> bool {
        self.is_pseudo_legal(m) && self.is_legal_pseudo(m)
    }

    /// Shape checks: the piece exists, moves that way, promotion and drop rules hold. King
    /// safety, evasion and pawn-drop mate are left to `is_legal_pseudo`.
    pub fn is_pseudo_legal(&self, m: Move) -> bool {
        let us = self.side;
        let to = m.to();
        let target = self.board[to.index()];
        if m.is_drop() {
            let pt = m.drop_kind();
            if !target.is_empty() || !self.hands[us.index()].has(pt) || pt.is_dead_on(us, to) {
                return false;
            }
            if pt == PieceType::Pawn {
                let own_pawns = self.pieces(us, PieceType::Pawn);
                if (own_pawns & super::bitboard::FILES[to.file() as usize]).is_nonempty() {
                    return false;
                }
            }
            return true;
        }
        let from = m.from();
        let pc = self.board[from.index()];
        if pc.is_empty() || pc.color() != us {
            return false;
        }
        if !target.is_empty() && target.color() == us {
            return false;
        }
        if !self.attacks_from(from, self.occupied()).contains(to) {
            return false;
        }
        let pt = pc.kind();
        if m.is_promotion() { pt.can_promote() && (from.in_zone(us) || to.in_zone(us)) } else { !pt.is_dead_on(us, to) }
    }

    /// Full legality of a pseudo-legal move.
    pub fn is_legal_pseudo(&self, m: Move) -> bool {
        let us = self.side;
        let ksq = self.king_sq[us.index()];
        let to = m.to();
        let checkers = self.st.checkers;
        if m.is_drop() {
            if checkers.is_nonempty() && (checkers.more_than_one() || !between(ksq, checkers.lsb()).contains(to)) {
                return false;
            }
            if m.drop_kind() == PieceType::Pawn
                && pawn_attacks(us, to).contains(self.king_sq[(!us).index()])
                && self.is_pawn_drop_mate(to)
            {
                return false;
            }
            return true;
        }
        let from = m.from();
        if from == ksq {
            let occ = self.occupied().and_not(Bitboard::from_square(from));
            return !self.is_attacked_with(!us, to, occ);
        }
        if checkers.is_nonempty() {
            if checkers.more_than_one() {
                return false;
            }
            let c = checkers.lsb();
            if to != c && !between(ksq, c).contains(to) {
                return false;
            }
        }
        !self.pinned().contains(from) || aligned(ksq, from, to)
    }

    /// Whether dropping a pawn of the side to move on `sq` (which checks the enemy king)
    /// would be mate: the illegal pawn-drop mate (uchifuzume). Never against a side without a
    /// king.
    pub fn is_pawn_drop_mate(&self, sq: Square) -> bool {
        let us = self.side;
        let them = !us;
        let ksq = self.king_sq[them.index()];
        if ksq == Square::NONE {
            return false;
        }
        let occ = self.occupied() | Bitboard::from_square(sq);
        // A defender other than the king that can take the pawn legally. Pins are those of the
        // position before the drop: the only line the pawn can cut is the king's file, and a
        // capture onto that file keeps the capturer on its pin line anyway.
        let defenders = self.attackers_to_with(them, sq, occ).and_not(Bitboard::from_square(ksq));
        let pinned = self.st.blockers[them.index()] & self.by_color[them.index()];
        for d in defenders {
            if !pinned.contains(d) || aligned(ksq, d, sq) {
                return false;
            }
        }
        // The king takes the pawn or steps away.
        let occ_no_king = occ.and_not(Bitboard::from_square(ksq));
        let escapes = king_attacks(ksq).and_not(self.by_color[them.index()]);
        for e in escapes {
            if !self.is_attacked_with(us, e, occ_no_king) {
                return false;
            }
        }
        true
    }

    /// Squares from which each kind of the side to move would check the enemy king, and the
    /// pieces whose departure would discover a check. Computed once per node, it makes
    /// `gives_check_with` a couple of bit tests per move.
    pub fn check_info(&self) -> CheckInfo {
        let us = self.side;
        let them = !us;
        let eksq = self.king_sq[them.index()];
        let occ = self.occupied();
        let mut squares = [Bitboard::EMPTY; PieceType::NUM];
        let gold = gold_attacks(them, eksq);
        let king = king_attacks(eksq);
        let bishop = bishop_attacks(eksq, occ);
        let rook = rook_attacks(eksq, occ);
        squares[PieceType::Pawn.index()] = pawn_attacks(them, eksq);
        squares[PieceType::Lance.index()] = lance_attacks(them, eksq, occ);
        squares[PieceType::Knight.index()] = knight_attacks(them, eksq);
        squares[PieceType::Silver.index()] = silver_attacks(them, eksq);
        squares[PieceType::Bishop.index()] = bishop;
        squares[PieceType::Rook.index()] = rook;
        squares[PieceType::Horse.index()] = bishop | king;
        squares[PieceType::Dragon.index()] = rook | king;
        for pt in [PieceType::Gold, PieceType::ProPawn, PieceType::ProLance, PieceType::ProKnight, PieceType::ProSilver]
        {
            squares[pt.index()] = gold;
        }
        // Pawn, silver and gold checks lie within the king's, the lance's within the rook's.
        let targets = rook | bishop | king | squares[PieceType::Knight.index()];
        CheckInfo { squares, targets, discoverers: self.st.blockers[them.index()] & self.by_color[us.index()], eksq }
    }

    /// `gives_check` with the node's `CheckInfo`. Always inlined: the move picker calls it
    /// for every remaining quiet move once late move pruning keeps only checks.
    #[inline(always)]
    pub fn gives_check_with(&self, ci: &CheckInfo, m: Move) -> bool {
        let to = m.to();
        if m.is_drop() {
            return ci.squares[m.drop_kind().index()].contains(to);
        }
        let from = m.from();
        if ci.discoverers.contains(from) && !aligned(ci.eksq, from, to) {
            return true;
        }
        if !ci.targets.contains(to) {
            return false;
        }
        let k = self.board[from.index()].kind();
        let k = if m.is_promotion() { k.promote() } else { k };
        ci.squares[k.index()].contains(to)
    }

    /// Whether `m` (pseudo-legal) gives check.
    pub fn gives_check(&self, m: Move) -> bool {
        let us = self.side;
        let them = !us;
        let eksq = self.king_sq[them.index()];
        let to = m.to();
        let pt = if m.is_drop() {
            m.drop_kind()
        } else {
            let k = self.board[m.from().index()].kind();
            if m.is_promotion() { k.promote() } else { k }
        };
        let mut occ = self.occupied() | Bitboard::from_square(to);
        if !m.is_drop() {
            occ = occ.and_not(Bitboard::from_square(m.from()));
        }
        if super::attacks::attacks_of(us, pt, to, occ).contains(eksq) {
            return true;
        }
        if m.is_drop() {
            return false;
        }
        // Discovered check: the moved piece was a blocker of the enemy king and leaves the line.
        let from = m.from();
        (self.st.blockers[them.index()] & self.by_color[us.index()]).contains(from) && !aligned(eksq, from, to)
    }

    /// Material-free sanity check used by tests: everything derived agrees with the board.
    pub fn is_consistent(&self) -> bool {
        let mut by_color = [Bitboard::EMPTY; 2];
        let mut by_type = [Bitboard::EMPTY; PieceType::NUM];
        for sq in Square::all() {
            let pc = self.board[sq.index()];
            if !pc.is_empty() {
                by_color[pc.color().index()].set(sq);
                by_type[pc.kind().index()].set(sq);
            }
        }
        by_color == self.by_color
            && by_type == self.by_type
            && self.st.board_key == self.compute_board_key()
            && self.st.hand_key == self.compute_hand_key()
            && self.st.checkers == self.attackers_to(!self.side, self.king_sq[self.side.index()])
            && self.st.blockers == [self.compute_blockers(Color::Black), self.compute_blockers(Color::White)]
            && Color::ALL.iter().all(|&c| {
                let kings = self.pieces(c, PieceType::King);
                match self.king_square_opt(c) {
                    Some(ksq) => kings == Bitboard::from_square(ksq),
                    None => kings.is_empty(),
                }
            })
    }
}

impl std::fmt::Display for Position {
    /// A board diagram (Black at the bottom), hands and the side to move.
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        writeln!(f, "   9  8  7  6  5  4  3  2  1")?;
        for r in 0..9u8 {
            write!(f, " ")?;
            for file in (0..9u8).rev() {
                let pc = self.piece_on(Square::from_file_rank(file, r));
                let s = pc.to_string();
                write!(f, "{s:>3}")?;
            }
            writeln!(f, "  {}", (b'a' + r) as char)?;
        }
        writeln!(f, "Black hand: {:?}", self.hands[0])?;
        writeln!(f, "White hand: {:?}", self.hands[1])?;
        write!(f, "Side to move: {}", if self.side == Color::Black { "black" } else { "white" })
    }
}
