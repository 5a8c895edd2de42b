//! Japanese move notation: writing moves the way the Japan Shogi Association writes them
//! (`▲７六歩`, `△同銀右`, `▲５二金打`, `▲２三銀不成`) and reading the move texts of KIF and KI2
//! game records back into moves of a position.
//!
//! Disambiguation follows the JSA rules: when several pieces of the same kind can reach the
//! destination, the motion (上 forward, 引 back, 寄 sideways) is given if it alone tells them
//! apart, else 直 (straight forward; not for dragons and horses), else 左/右 (the leftmost or
//! rightmost piece, seen from the mover), combined with the motion when needed (`右上`).
//! Reading applies the same filters in the same order, so whatever is written reads back.

use crate::shogi::{Color, Move, MoveList, PieceType, Position, Square, movegen};
use std::fmt;

const FILES_FULL: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];
const RANKS_KANJI: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// `▲` for Black (sente), `△` for White (gote).
pub fn color_mark(c: Color) -> char {
    match c {
        Color::Black => '▲',
        Color::White => '△',
    }
}

/// `７六` for 7f.
pub fn square_ja(sq: Square) -> String {
    let mut s = String::new();
    s.push(FILES_FULL[sq.file() as usize]);
    s.push(RANKS_KANJI[sq.rank() as usize]);
    s
}

/// The name records use for a piece kind (Kifu for Windows spelling: 龍, 成香).
pub fn piece_ja(pt: PieceType) -> &'static str {
    match pt {
        PieceType::Pawn => "歩",
        PieceType::Lance => "香",
        PieceType::Knight => "桂",
        PieceType::Silver => "銀",
        PieceType::Gold => "金",
        PieceType::Bishop => "角",
        PieceType::Rook => "飛",
        PieceType::King => "玉",
        PieceType::ProPawn => "と",
        PieceType::ProLance => "成香",
        PieceType::ProKnight => "成桂",
        PieceType::ProSilver => "成銀",
        PieceType::Horse => "馬",
        PieceType::Dragon => "龍",
    }
}

/// Piece names accepted when reading, longest first so that `成香` wins over `成`.
const PIECE_NAMES: [(&str, PieceType); 19] = [
    ("成香", PieceType::ProLance),
    ("成桂", PieceType::ProKnight),
    ("成銀", PieceType::ProSilver),
    ("歩", PieceType::Pawn),
    ("香", PieceType::Lance),
    ("桂", PieceType::Knight),
    ("銀", PieceType::Silver),
    ("金", PieceType::Gold),
    ("角", PieceType::Bishop),
    ("飛", PieceType::Rook),
    ("玉", PieceType::King),
    ("王", PieceType::King),
    ("と", PieceType::ProPawn),
    ("杏", PieceType::ProLance),
    ("圭", PieceType::ProKnight),
    ("全", PieceType::ProSilver),
    ("馬", PieceType::Horse),
    ("龍", PieceType::Dragon),
    ("竜", PieceType::Dragon),
];

/// Reads a one-character piece name (board diagrams use these).
pub fn piece_from_char(c: char) -> Option<PieceType> {
    let mut buf = [0u8; 4];
    let s: &str = c.encode_utf8(&mut buf);
    PIECE_NAMES.iter().find(|(n, _)| *n == s).map(|&(_, pt)| pt)
}

/// Position of a square seen from `c`: `fwd` grows toward the enemy camp, `left` toward the
/// mover's left hand (file 9 for Black, file 1 for White).
fn frame(sq: Square, c: Color) -> (i32, i32) {
    match c {
        Color::Black => (8 - sq.rank() as i32, sq.file() as i32),
        Color::White => (sq.rank() as i32, 8 - sq.file() as i32),
    }
}

/// Relative-position words of KI2 notation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Relative {
    Up,
    Back,
    Sideways,
    Straight,
    Left,
    Right,
}

impl Relative {
    fn text(self) -> char {
        match self {
            Relative::Up => '上',
            Relative::Back => '引',
            Relative::Sideways => '寄',
            Relative::Straight => '直',
            Relative::Left => '左',
            Relative::Right => '右',
        }
    }

    fn from_char(c: char) -> Option<Relative> {
        Some(match c {
            '上' | '行' | '入' => Relative::Up,
            '引' => Relative::Back,
            '寄' => Relative::Sideways,
            '直' => Relative::Straight,
            '左' => Relative::Left,
            '右' => Relative::Right,
            _ => return None,
        })
    }

    fn is_motion(self) -> bool {
        matches!(self, Relative::Up | Relative::Back | Relative::Sideways)
    }
}

/// Keeps the origin squares that fit `rel` when moving to `to` for `c`.
fn filter(from: &[Square], to: Square, c: Color, rel: Relative) -> Vec<Square> {
    let (tf, tl) = frame(to, c);
    let motion = |sq: Square| {
        let (f, l) = frame(sq, c);
        (tf - f, tl - l)
    };
    match rel {
        Relative::Up => from.iter().copied().filter(|&s| motion(s).0 > 0).collect(),
        Relative::Back => from.iter().copied().filter(|&s| motion(s).0 < 0).collect(),
        Relative::Sideways => from.iter().copied().filter(|&s| motion(s).0 == 0).collect(),
        Relative::Straight => from.iter().copied().filter(|&s| motion(s).1 == 0 && motion(s).0 > 0).collect(),
        Relative::Left | Relative::Right => {
            let lefts = from.iter().map(|&s| frame(s, c).1);
            let target = if rel == Relative::Left { lefts.max() } else { lefts.min() };
            from.iter().copied().filter(|&s| Some(frame(s, c).1) == target).collect()
        }
    }
}

/// Applies relative words in the reading order: motion, then 直, then 左/右.
fn apply_relatives(from: &[Square], to: Square, c: Color, rels: &[Relative]) -> Vec<Square> {
    let mut left = from.to_vec();
    for pass in 0..3 {
        for &r in rels {
            let wanted = match pass {
                0 => r.is_motion(),
                1 => r == Relative::Straight,
                _ => matches!(r, Relative::Left | Relative::Right),
            };
            if wanted {
                left = filter(&left, to, c, r);
            }
        }
    }
    left
}

/// Origin squares of the pieces of kind `pt` that have a legal move to `to`.
fn board_origins(pos: &Position, pt: PieceType, to: Square) -> Vec<Square> {
    let mut list = MoveList::new();
    movegen::generate_legal(pos, &mut list);
    let mut from: Vec<Square> = list
        .iter()
        .filter(|m| !m.is_drop() && m.to() == to && pos.piece_on(m.from()).kind() == pt)
        .map(|m| m.from())
        .collect();
    from.sort();
    from.dedup();
    from
}

/// The words that single out `from` among `origins` (empty when it is alone).
fn disambiguation(origins: &[Square], from: Square, to: Square, c: Color, pt: PieceType) -> Vec<Relative> {
    if origins.len() <= 1 {
        return Vec::new();
    }
    let (tf, tl) = frame(to, c);
    let (f, l) = frame(from, c);
    let motion = match (tf - f).signum() {
        1 => Relative::Up,
        -1 => Relative::Back,
        _ => Relative::Sideways,
    };
    let unique = |rels: &[Relative]| apply_relatives(origins, to, c, rels) == [from];
    let ranged = matches!(pt, PieceType::Horse | PieceType::Dragon);
    let mut tries: Vec<Vec<Relative>> = vec![vec![motion]];
    if !ranged && tl == l && tf > f {
        tries.push(vec![Relative::Straight]);
    }
    for lateral in [Relative::Left, Relative::Right] {
        tries.push(vec![lateral]);
        tries.push(vec![lateral, motion]);
    }
    tries.into_iter().find(|t| unique(t)).unwrap_or_default()
}

/// A move in JSA notation with the mover's mark, e.g. `▲７六歩`, `△同銀右`, `▲２二角成`.
/// `pos` is the position before the move; `同` is used when the move lands where the previous
/// move did.
pub fn move_ja(pos: &Position, m: Move) -> String {
    let c = pos.side_to_move();
    let mut s = String::new();
    s.push(color_mark(c));
    let to = m.to();
    if pos.last_move().is_some_and(|last| last.to() == to) {
        s.push('同');
    } else {
        s.push_str(&square_ja(to));
    }
    if m.is_drop() {
        let pt = m.drop_kind();
        s.push_str(piece_ja(pt));
        if !board_origins(pos, pt, to).is_empty() {
            s.push('打');
        }
        return s;
    }
    let from = m.from();
    let pt = pos.piece_on(from).kind();
    s.push_str(piece_ja(pt));
    for r in disambiguation(&board_origins(pos, pt, to), from, to, c, pt) {
        s.push(r.text());
    }
    if m.is_promotion() {
        s.push('成');
    } else if pt.can_promote() && (from.in_zone(c) || to.in_zone(c)) {
        s.push_str("不成");
    }
    s
}

/// Moves of a line (a PV) in JSA notation, each played on a copy of `pos`. Stops at the
/// first move that is not legal (a PV never has one; this keeps bad input harmless).
pub fn line_ja(pos: &Position, moves: &[Move]) -> Vec<String> {
    let mut p = pos.clone();
    let mut out = Vec::with_capacity(moves.len());
    for &m in moves {
        if !p.is_legal(m) {
            break;
        }
        out.push(move_ja(&p, m));
        p.do_move(m);
    }
    out
}

/// A move text as KIF (`７六歩(77)`, `同　銀(31)`, `４五角打`) and KI2 (`▲同銀右`) write it,
/// before it is matched against a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JaMove {
    /// `None` for `同` (the square of the previous move).
    pub to: Option<Square>,
    pub piece: PieceType,
    /// `Some(true)` for 成, `Some(false)` for 不成, `None` when neither is written.
    pub promote: Option<bool>,
    pub drop: bool,
    pub relatives: Vec<Relative>,
    /// The origin in KIF's `(77)`.
    pub from: Option<Square>,
}

/// Why a move text could not be read or matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationError {
    Syntax(String),
    /// `同` as the first move.
    NoPreviousMove,
    /// No legal move fits the text.
    Illegal(String),
    /// Several legal moves fit the text.
    Ambiguous(String),
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            NotationError::Syntax(s) => write!(f, "cannot read move '{s}'"),
            NotationError::NoPreviousMove => write!(f, "'同' with no previous move"),
            NotationError::Illegal(s) => write!(f, "no legal move fits '{s}'"),
            NotationError::Ambiguous(s) => write!(f, "several legal moves fit '{s}'"),
        }
    }
}

impl std::error::Error for NotationError {}

fn digit(c: char) -> Option<u8> {
    if let Some(i) = FILES_FULL.iter().position(|&f| f == c) {
        return Some(i as u8);
    }
    if ('1'..='9').contains(&c) {
        return Some(c as u8 - b'1');
    }
    RANKS_KANJI.iter().position(|&k| k == c).map(|i| i as u8)
}

/// Reads a move text. Returns the move and the unread rest of `text` (times, comments).
pub fn parse_ja(text: &str) -> Result<(JaMove, &str), NotationError> {
    let err = || NotationError::Syntax(text.trim().to_string());
    let mut rest = text.trim_start_matches(['▲', '△', '☗', '☖', '▽', '▼']);
    let to = if let Some(r) = rest.strip_prefix('同') {
        rest = r.trim_start_matches([' ', '\u{3000}']);
        None
    } else {
        let mut chars = rest.chars();
        let file = chars.next().and_then(digit).ok_or_else(err)?;
        let rank = chars.next().and_then(digit).ok_or_else(err)?;
        rest = chars.as_str();
        Some(Square::from_file_rank(file, rank))
    };
    let (name, piece) = PIECE_NAMES.iter().find(|(n, _)| rest.starts_with(n)).copied().ok_or_else(err)?;
    rest = &rest[name.len()..];
    let mut m = JaMove { to, piece, promote: None, drop: false, relatives: Vec::new(), from: None };
    loop {
        let mut chars = rest.chars();
        let Some(c) = chars.next() else { break };
        if let Some(r) = Relative::from_char(c) {
            m.relatives.push(r);
        } else if c == '打' {
            m.drop = true;
        } else if c == '成' {
            m.promote = Some(true);
        } else if c == '生' {
            m.promote = Some(false);
        } else if let Some(r) = rest.strip_prefix("不成") {
            m.promote = Some(false);
            rest = r;
            continue;
        } else {
            break;
        }
        rest = chars.as_str();
    }
    // KIF's origin square: `(77)`.
    if let Some(r) = rest.strip_prefix('(') {
        let b = r.as_bytes();
        if b.len() >= 3 && b[2] == b')' {
            let file = digit(b[0] as char).ok_or_else(err)?;
            let rank = digit(b[1] as char).ok_or_else(err)?;
            m.from = Some(Square::from_file_rank(file, rank));
            rest = &r[3..];
        }
    }
    Ok((m, rest))
}

/// Finds the legal move of `pos` that `m` describes.
pub fn resolve(pos: &Position, m: &JaMove, text: &str) -> Result<Move, NotationError> {
    let illegal = || NotationError::Illegal(text.trim().to_string());
    let to = match m.to {
        Some(sq) => sq,
        None => pos.last_move().map(|l| l.to()).ok_or(NotationError::NoPreviousMove)?,
    };
    let c = pos.side_to_move();
    if let Some(from) = m.from {
        let on = pos.piece_on(from);
        if on.is_empty() || on.color() != c || on.kind() != m.piece {
            return Err(illegal());
        }
        if from == to {
            return Err(illegal());
        }
        let mv = Move::normal(from, to, m.promote == Some(true));
        return if pos.is_legal(mv) { Ok(mv) } else { Err(illegal()) };
    }
    let origins = board_origins(pos, m.piece, to);
    if m.drop || origins.is_empty() {
        if m.piece.is_promoted() || m.piece == PieceType::King || m.promote == Some(true) {
            return Err(illegal());
        }
        let mv = Move::drop(m.piece, to);
        return if pos.is_legal(mv) { Ok(mv) } else { Err(illegal()) };
    }
    let from = match apply_relatives(&origins, to, c, &m.relatives)[..] {
        [one] => one,
        [] => return Err(illegal()),
        _ => return Err(NotationError::Ambiguous(text.trim().to_string())),
    };
    let mv = Move::normal(from, to, m.promote == Some(true));
    if pos.is_legal(mv) { Ok(mv) } else { Err(illegal()) }
}

/// Reads and resolves a move text in one step (for KI2 tokens).
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, NotationError> {
    let (m, rest) = parse_ja(text)?;
    if !rest.trim_matches([' ', '\u{3000}']).is_empty() {
        return Err(NotationError::Syntax(text.trim().to_string()));
    }
    resolve(pos, &m, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(sfen: &str) -> Position {
        Position::from_sfen(sfen).unwrap()
    }

    fn ja(p: &Position, usi: &str) -> String {
        move_ja(p, p.parse_usi_move(usi).unwrap())
    }

    /// Every legal move's notation reads back as the same move.
    fn round_trips(p: &Position) {
        let mut list = MoveList::new();
        movegen::generate_legal(p, &mut list);
        for &m in list.iter() {
            let text = move_ja(p, m);
            assert_eq!(parse_move(p, &text), Ok(m), "{text} in {}", p.to_sfen());
        }
    }

    #[test]
    fn plain_moves_and_same_square() {
        let mut p = Position::startpos();
        assert_eq!(ja(&p, "7g7f"), "▲７六歩");
        p.do_move(p.parse_usi_move("7g7f").unwrap());
        assert_eq!(ja(&p, "3c3d"), "△３四歩");
        p.do_move(p.parse_usi_move("3c3d").unwrap());
        assert_eq!(ja(&p, "8h2b+"), "▲２二角成");
        p.do_move(p.parse_usi_move("8h2b+").unwrap());
        assert_eq!(ja(&p, "3a2b"), "△同銀");
        p.do_move(p.parse_usi_move("3a2b").unwrap());
        assert_eq!(ja(&p, "B*4e"), "▲４五角");
    }

    #[test]
    fn start_position_golds_use_relative_words() {
        // 6i and 4i golds both reach 5h: 左/右. The 6i gold to 7h vs 7i silver: different kinds.
        let p = Position::startpos();
        assert_eq!(ja(&p, "6i5h"), "▲５八金左");
        assert_eq!(ja(&p, "4i5h"), "▲５八金右");
        assert_eq!(ja(&p, "3i3h"), "▲３八銀");
        let mut w = p.clone();
        w.do_move(w.parse_usi_move("7g7f").unwrap());
        // For White, left is toward file 1: the 4a gold is White's left.
        assert_eq!(ja(&w, "4a5b"), "△５二金左");
        assert_eq!(ja(&w, "6a5b"), "△５二金右");
        round_trips(&p);
        round_trips(&w);
    }

    #[test]
    fn straight_up_and_combined_words() {
        // Black golds on 7i and 6i, both reaching 7h: the one behind goes 直.
        let p = pos("4k4/9/9/9/9/9/9/9/2GG1K3 b - 1");
        assert_eq!(ja(&p, "7i7h"), "▲７八金直");
        assert_eq!(ja(&p, "6i7h"), "▲７八金右");
        // Golds on 8i, 6i and 6h: 寄 alone, 左 alone, and 右上 (右 alone would fit 6i and 6h).
        let q = pos("4k4/9/9/9/9/9/9/3G5/1G1G1K3 b - 1");
        assert_eq!(ja(&q, "6h7h"), "▲７八金寄");
        assert_eq!(ja(&q, "8i7h"), "▲７八金左");
        assert_eq!(ja(&q, "6i7h"), "▲７八金右上");
        round_trips(&p);
        round_trips(&q);
    }

    #[test]
    fn drops_promotions_and_dragons() {
        // Gold on 5c can reach 5b; a gold in hand too: the drop says 打.
        let p = pos("4k4/9/4G4/9/9/9/9/9/4K4 b G 1");
        assert_eq!(ja(&p, "5c5b"), "▲５二金");
        assert_eq!(ja(&p, "G*5b"), "▲５二金打");
        // Silver on 5d entering the zone: 成 or 不成.
        let s = pos("k8/9/9/4S4/9/9/9/9/4K4 b - 1");
        assert_eq!(ja(&s, "5d5c+"), "▲５三銀成");
        assert_eq!(ja(&s, "5d5c"), "▲５三銀不成");
        // Two dragons on one rank, both sliding to 5b.
        let d = pos("9/+R7+R/9/9/4k4/9/9/9/4K4 b - 1");
        assert_eq!(ja(&d, "9b5b"), "▲５二龍左");
        assert_eq!(ja(&d, "1b5b"), "▲５二龍右");
        for p in [p, s, d] {
            round_trips(&p);
        }
    }

    #[test]
    fn reads_kif_texts() {
        let p = Position::startpos();
        let (m, rest) = parse_ja("７六歩(77)   ( 0:01/00:00:01)").unwrap();
        assert_eq!(m.from, Some(Square::parse("7g").unwrap()));
        assert_eq!(rest.trim(), "( 0:01/00:00:01)");
        assert_eq!(resolve(&p, &m, "").map(|m| m.to_string()), Ok("7g7f".into()));
        let (m, _) = parse_ja("同　銀(31)").unwrap();
        assert_eq!(m.to, None);
        assert_eq!(m.piece, PieceType::Silver);
        let (m, _) = parse_ja("２三銀不成(34)").unwrap();
        assert_eq!(m.promote, Some(false));
        let (m, _) = parse_ja("４五角打").unwrap();
        assert!(m.drop);
        assert!(parse_ja("投了").is_err());
        assert_eq!(parse_move(&p, "▲７六金"), Err(NotationError::Illegal("▲７六金".into())));
        assert_eq!(parse_move(&p, "▲５八金"), Err(NotationError::Ambiguous("▲５八金".into())));
        assert_eq!(parse_move(&p, "▲同歩"), Err(NotationError::NoPreviousMove));
    }
}
