//! Standard NNUE evaluation against the reference: a random network in the standard format
//! (tests/data/nnue/random_sparse_nn.bin.gz) and the evaluations YaneuraOu 9.70 printed for 500
//! positions with it (`reference_evals_public.jsonl`: the first 500 positions of
//! random_positions_public.jsonl with the integer its `e` command printed, FV_SCALE 16).
//!
//! Checked: every reference evaluation, computed from scratch and after one incremental step
//! from a reconstructed predecessor; incremental updates equal recomputation along 100,000
//! random plies (with undo and null moves); AVX2 equals scalar; bad files give distinct errors.

use crate::common::load_jsonl;
use hayate::nnue::{
    ARCHITECTURE_HASH, Accumulator, AccumulatorStack, Backend, DEFAULT_FV_SCALE, Network, NnueError, can_evaluate,
};
use hayate::shogi::attacks::attacks_of;
use hayate::shogi::movegen::{self, MoveList};
use hayate::shogi::{Color, Hand, Move, Piece, PieceType, Position, Square};
use std::io::Read;
use std::sync::OnceLock;

const NETWORK_GZ: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/nnue/random_sparse_nn.bin.gz");

/// The decompressed file and the network parsed from it, shared by all tests.
fn fixture() -> &'static (Vec<u8>, Network) {
    static FIXTURE: OnceLock<(Vec<u8>, Network)> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let gz = std::fs::read(NETWORK_GZ).expect("network fixture present");
        let mut raw = Vec::new();
        flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut raw).expect("fixture decompresses");
        let net = Network::from_bytes(&raw).expect("fixture network loads");
        (raw, net)
    })
}

fn net() -> &'static Network {
    &fixture().1
}

fn reference() -> Vec<(Position, i32)> {
    load_jsonl("nnue/reference_evals_public.jsonl")
        .iter()
        .map(|r| {
            let sfen = r["sfen"].as_str().expect("sfen");
            let pos = Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
            (pos, r["eval"].as_i64().expect("eval") as i32)
        })
        .collect()
}

pub(crate) fn backends() -> Vec<Backend> {
    let b = Backend::available();
    if b.len() == 1 {
        eprintln!("this CPU has no AVX2: only the scalar backend is tested");
    }
    b
}

/// Small deterministic generator (xorshift64*), so failures reproduce.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

#[test]
fn network_header_and_description() {
    let _cpu = crate::common::shared();
    let net = net();
    assert!(net.architecture().starts_with("Features=HalfKP(Friend)[125388->256x2],Network="));
    assert_eq!(net.file_size(), 64_217_077);
    let d = net.description();
    assert!(d.contains("64217077") && d.contains(&format!("{:08x}", net.checksum() >> 32)), "{d}");
    // The compressed file loads by path too, to the same parameters.
    let from_gz = Network::load(NETWORK_GZ).expect("gzip file loads");
    assert_eq!(from_gz.checksum(), net.checksum());
}

#[test]
fn writing_a_loaded_network_gives_back_its_file() {
    let (raw, net) = fixture();
    let params = net.parameters().expect("the standard shape");
    assert_eq!(params.architecture, hayate::nnue::ARCHITECTURE);
    assert!(params.to_bytes() == *raw, "the written file differs from the one read");
}

#[test]
fn reference_evaluations_from_scratch() {
    let _cpu = crate::common::shared();
    let refs = reference();
    assert_eq!(refs.len(), 500);
    for backend in backends() {
        let mut wrong = Vec::new();
        for (pos, expected) in &refs {
            let got = net().evaluate_with(backend, pos, DEFAULT_FV_SCALE);
            if got != Some(*expected) {
                wrong.push(format!("{}: {got:?}, reference {expected}", pos.to_sfen()));
            }
        }
        assert!(wrong.is_empty(), "{} of 500 differ ({}):\n{}", wrong.len(), backend.name(), wrong.join("\n"));
    }
}

// ----- predecessors: positions one legal move before a reference position -----

/// What kind of move leads from a predecessor to the reference position.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(crate) enum Step {
    Drop,
    Capture,
    Promotion,
    King,
    Plain,
}

fn sfen_of(board: &[Piece; 81], hands: [Hand; 2], side: Color) -> String {
    let mut s = String::new();
    for r in 0..9u8 {
        let mut empty = 0;
        for f in (0..9u8).rev() {
            let pc = board[Square::from_file_rank(f, r).index()];
            if pc.is_empty() {
                empty += 1;
                continue;
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
                empty = 0;
            }
            s.push_str(&pc.to_string());
        }
        if empty > 0 {
            s.push_str(&empty.to_string());
        }
        if r < 8 {
            s.push('/');
        }
    }
    s.push_str(if side == Color::Black { " b " } else { " w " });
    let mut h = String::new();
    for c in Color::ALL {
        for pt in [
            PieceType::Rook,
            PieceType::Bishop,
            PieceType::Gold,
            PieceType::Silver,
            PieceType::Knight,
            PieceType::Lance,
            PieceType::Pawn,
        ] {
            let n = hands[c.index()].count(pt);
            if n > 1 {
                h.push_str(&n.to_string());
            }
            if n > 0 {
                let l = pt.letter();
                h.push(if c == Color::White { l.to_ascii_lowercase() } else { l });
            }
        }
    }
    s.push_str(if h.is_empty() { "-" } else { &h });
    s.push_str(" 1");
    s
}

/// Predecessors `(q, m, step)` of `target` with `q.do_move(m) == target`, at most one per kind
/// of step: found by taking back a drop, or a board move (with or without promotion, with or
/// without a capture) of the side that just moved, and kept only if the parser accepts `q`,
/// `m` is legal in `q`, and playing it gives `target`'s key.
pub(crate) fn predecessors(target: &Position) -> Vec<(Position, Move, Step)> {
    let them = target.side_to_move();
    let mover = !them;
    let mut board = [Piece::EMPTY; 81];
    for sq in Square::all() {
        board[sq.index()] = target.piece_on(sq);
    }
    let hands = [target.hand(Color::Black), target.hand(Color::White)];
    let mut found: Vec<(Position, Move, Step)> = Vec::new();
    let mut try_candidate = |board: &[Piece; 81], hands: [Hand; 2], m: Move, step: Step| {
        if found.iter().any(|f| f.2 == step) {
            return;
        }
        let Ok(mut q) = Position::from_sfen(&sfen_of(board, hands, mover)) else { return };
        if !q.is_legal(m) {
            return;
        }
        let before = q.clone();
        q.do_move(m);
        if q.key() == target.key() {
            found.push((before, m, step));
        }
    };
    for to in target.pieces_of(mover) {
        let pc = target.piece_on(to);
        let kind = pc.kind();
        // A drop of this piece.
        if !kind.is_promoted() && kind != PieceType::King {
            let mut b = board;
            b[to.index()] = Piece::EMPTY;
            let mut h = hands;
            if h[mover.index()].count(kind) < Hand::capacity(kind) {
                h[mover.index()].add(kind);
                try_candidate(&b, h, Move::drop(kind, to), Step::Drop);
            }
        }
        // A board move, from any square the piece (or its unpromoted form) could have come from.
        let mut origins = vec![(kind, false)];
        if kind.is_promoted() {
            origins.push((kind.unpromote(), true));
        }
        for (origin_kind, promote) in origins {
            let mut without = target.occupied();
            without.clear(to);
            let from_squares = attacks_of(them, origin_kind, to, without) & !target.occupied();
            for from in from_squares {
                let mut b = board;
                b[to.index()] = Piece::EMPTY;
                b[from.index()] = Piece::new(mover, origin_kind);
                let m = Move::normal(from, to, promote);
                let step = if kind == PieceType::King {
                    Step::King
                } else if promote {
                    Step::Promotion
                } else {
                    Step::Plain
                };
                try_candidate(&b, hands, m, step);
                // The same move capturing a piece now in the mover's hand.
                for captured_kind in PieceType::HAND {
                    if hands[mover.index()].count(captured_kind) == 0 {
                        continue;
                    }
                    let mut h = hands;
                    h[mover.index()].remove(captured_kind);
                    for captured in [captured_kind, captured_kind.promote()] {
                        let mut bc = b;
                        bc[to.index()] = Piece::new(them, captured);
                        let step = if step == Step::Plain { Step::Capture } else { step };
                        try_candidate(&bc, h, m, step);
                    }
                }
            }
        }
    }
    found
}

#[test]
fn reference_evaluations_after_an_incremental_step() {
    let _cpu = crate::common::shared();
    let refs = reference();
    for backend in backends() {
        let mut wrong = Vec::new();
        let mut steps = std::collections::BTreeMap::new();
        let mut covered = 0;
        let mut stack = AccumulatorStack::with_backend(backend);
        for (target, expected) in &refs {
            let preds = predecessors(target);
            covered += usize::from(!preds.is_empty());
            for (mut q, m, step) in preds {
                stack.reset(&q);
                // The root from scratch, then the child through the recorded changes only.
                assert!(stack.evaluate(&q, net()).is_some());
                stack.push(&q, m);
                q.do_move(m);
                *steps.entry(format!("{step:?}")).or_insert(0) += 1;
                let got = stack.evaluate(&q, net());
                if got != Some(*expected) {
                    wrong.push(format!("{} after {m} ({step:?}): {got:?}, reference {expected}", target.to_sfen()));
                }
            }
        }
        assert!(wrong.is_empty(), "{} steps differ ({}):\n{}", wrong.len(), backend.name(), wrong.join("\n"));
        assert!(covered >= 490, "only {covered} of 500 reference positions got a predecessor");
        for step in ["Drop", "Capture", "Promotion", "King", "Plain"] {
            let n = steps.get(step).copied().unwrap_or(0);
            assert!(n >= 50, "only {n} {step} steps: {steps:?}");
        }
    }
}

// ----- incremental updates against recomputation -----

pub(crate) fn start_positions() -> Vec<Position> {
    let mut v: Vec<Position> = load_jsonl("random_positions_public.jsonl")
        .iter()
        .filter_map(|r| Position::from_sfen(r["sfen"].as_str()?).ok())
        .collect();
    v.push(Position::startpos());
    for handicap in [
        "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        // More than a set, within the hand numbers: 19 pawns (a bench position), 3 bishops.
        "lnsgk1snl/6gb1/p1pppp2p/6pR1/9/1rP6/P2PPPP1P/1BG6/LNS1KGSNL w 3P2p 16",
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b B 1",
    ] {
        v.push(Position::from_sfen(handicap).unwrap());
    }
    v
}

#[derive(Default, Debug)]
pub(crate) struct Counts {
    pub(crate) plies: usize,
    pub(crate) drops: usize,
    pub(crate) captures: usize,
    pub(crate) promotions: usize,
    pub(crate) king_moves: usize,
    pub(crate) nulls: usize,
    pub(crate) undos: usize,
    pub(crate) lazy_checks: usize,
}

/// Random walk: random legal moves, some undone, some null moves; one stack evaluates at every
/// node, a second only at random nodes (so its updates span several plies). Both are compared
/// with a recomputation from scratch wherever they evaluate.
pub(crate) fn walk(net: &Network, backend: Backend, plies: usize, seed: u64) -> Counts {
    let starts = start_positions();
    let mut rng = Rng(seed);
    let mut counts = Counts::default();
    let mut every = AccumulatorStack::with_backend(backend);
    let mut lazy = AccumulatorStack::with_backend(backend);
    let mut list = MoveList::new();
    while counts.plies < plies {
        let mut pos = starts[rng.below(starts.len())].clone();
        every.reset(&pos);
        lazy.reset(&pos);
        // None = null move.
        let mut path: Vec<Option<Move>> = Vec::new();
        for _ in 0..200 {
            let check = |pos: &Position, stack: &mut AccumulatorStack, what: &str| {
                let fresh = Accumulator::refreshed(backend, pos, net).expect("evaluable");
                let acc = stack.accumulator(pos, net).expect("evaluable").clone();
                assert!(acc == fresh, "{what} accumulator differs from recomputation at {}", pos.to_sfen());
                assert_eq!(
                    stack.evaluate(pos, net),
                    net.evaluate_with(backend, pos, DEFAULT_FV_SCALE),
                    "{what} evaluation at {}",
                    pos.to_sfen()
                );
            };
            check(&pos, &mut every, "per-node");
            if rng.chance(30) {
                check(&pos, &mut lazy, "lazy");
                counts.lazy_checks += 1;
            }
            if !path.is_empty() && rng.chance(15) {
                match path.pop().unwrap() {
                    Some(m) => pos.undo_move(m),
                    None => pos.undo_null_move(),
                }
                every.pop();
                lazy.pop();
                counts.undos += 1;
                continue;
            }
            if !pos.in_check() && rng.chance(5) {
                every.push_null();
                lazy.push_null();
                pos.do_null_move();
                path.push(None);
                counts.nulls += 1;
                counts.plies += 1;
                continue;
            }
            list.clear();
            movegen::generate_legal(&pos, &mut list);
            if list.is_empty() {
                break;
            }
            // Favour captures, drops and promotions a little so that hands change often.
            let mut m = list[rng.below(list.len())];
            for _ in 0..2 {
                if m.is_drop() || m.is_promotion() || !pos.piece_on(m.to()).is_empty() {
                    break;
                }
                m = list[rng.below(list.len())];
            }
            if m.is_drop() {
                counts.drops += 1;
            } else {
                if !pos.piece_on(m.to()).is_empty() {
                    counts.captures += 1;
                }
                if m.is_promotion() {
                    counts.promotions += 1;
                }
                if pos.piece_on(m.from()).kind() == PieceType::King {
                    counts.king_moves += 1;
                }
            }
            every.push(&pos, m);
            lazy.push(&pos, m);
            pos.do_move(m);
            path.push(Some(m));
            counts.plies += 1;
        }
    }
    counts
}

#[test]
fn incremental_updates_equal_recomputation() {
    let _cpu = crate::common::shared();
    let backend = Backend::detect();
    let c = walk(net(), backend, 100_000, 0x9E37_79B9_7F4A_7C15);
    eprintln!("{} walk: {c:?}", backend.name());
    for (what, n) in [
        ("drops", c.drops),
        ("captures", c.captures),
        ("promotions", c.promotions),
        ("king moves", c.king_moves),
        ("null moves", c.nulls),
        ("undos", c.undos),
        ("lazy checks", c.lazy_checks),
    ] {
        assert!(n >= 1000, "only {n} {what}: {c:?}");
    }
}

#[test]
fn other_backends_walk_agrees_too() {
    let _cpu = crate::common::shared();
    // Shorter walks on the other paths (the long one runs on the detected backend).
    for backend in backends().into_iter().filter(|&b| b != Backend::detect()) {
        let c = walk(net(), backend, 10_000, 12345);
        assert!(c.captures > 100 && c.drops > 100 && c.king_moves > 100, "{}: {c:?}", backend.name());
    }
}

#[test]
fn vector_backends_equal_scalar() {
    let _cpu = crate::common::shared();
    let vector: Vec<Backend> = backends().into_iter().filter(|&b| b != Backend::Scalar).collect();
    if vector.is_empty() {
        eprintln!("this CPU has no AVX2: nothing to compare");
        return;
    }
    let net = net();
    let mut rng = Rng(7);
    let mut positions = start_positions();
    // Children of the corpus positions too, for more varied accumulators.
    let mut list = MoveList::new();
    for i in 0..positions.len() {
        let mut p = positions[i].clone();
        list.clear();
        movegen::generate_legal(&p, &mut list);
        if let Some(&m) = list.get(rng.below(list.len().max(1))) {
            p.do_move(m);
            positions.push(p);
        }
    }
    let mut compared = 0;
    for pos in &positions {
        let scalar = Accumulator::refreshed(Backend::Scalar, pos, net).unwrap();
        for &backend in &vector {
            let acc = Accumulator::refreshed(backend, pos, net).unwrap();
            assert!(scalar == acc, "{} accumulators differ at {}", backend.name(), pos.to_sfen());
            for stm in Color::ALL {
                assert_eq!(
                    net.propagate_accumulator(Backend::Scalar, &scalar, stm, 0),
                    net.propagate_accumulator(backend, &scalar, stm, 0),
                    "{} layers differ at {}",
                    backend.name(),
                    pos.to_sfen()
                );
            }
        }
        compared += 1;
    }
    assert!(compared > 3000);
}

#[test]
fn fv_scale_divides_like_the_reference() {
    let _cpu = crate::common::shared();
    let (pos, _) = &reference()[0];
    let mut stack = AccumulatorStack::new();
    stack.reset(pos);
    let raw = stack.evaluate_raw(pos, net()).unwrap();
    for scale in [1, 16, 24, 128] {
        stack.set_fv_scale(scale);
        let expected = (raw / scale).clamp(-hayate::nnue::MAX_EVAL, hayate::nnue::MAX_EVAL);
        assert_eq!(stack.evaluate(pos, net()), Some(expected));
    }
}

#[test]
fn positions_halfkp_cannot_evaluate() {
    let _cpu = crate::common::shared();
    // Three rooks: no feature numbering for the third.
    let three_rooks = Position::from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 3R 1").unwrap();
    assert!(!can_evaluate(&three_rooks));
    assert_eq!(net().evaluate(&three_rooks, DEFAULT_FV_SCALE), None);
    let mut stack = AccumulatorStack::new();
    stack.reset(&three_rooks);
    assert!(!stack.is_evaluable());
    assert_eq!(stack.evaluate(&three_rooks, net()), None);
    assert!(can_evaluate(&Position::startpos()));
    // Nineteen pawns: one feature per piece, no empty slot, for both perspectives.
    let pawns19 = Position::from_sfen("lnsgk1snl/6gb1/p1pppp2p/6pR1/9/1rP6/P2PPPP1P/1BG6/LNS1KGSNL w 3P2p 16").unwrap();
    assert!(can_evaluate(&pawns19));
    for c in [Color::Black, Color::White] {
        let f = hayate::nnue::features::active_features(&pawns19, c).unwrap();
        assert_eq!(f.len(), 39);
        assert!(f.iter().all(|&i| !(i as usize).is_multiple_of(hayate::nnue::features::FE_END)), "no empty slot");
    }

    // A tsume problem without the attacker's king, where the parser takes one: refused, and a
    // stack rooted there answers None along moves too, without failing.
    if let Ok(mut kingless) = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1") {
        assert!(!can_evaluate(&kingless));
        assert_eq!(net().evaluate(&kingless, DEFAULT_FV_SCALE), None);
        stack.reset(&kingless);
        let mut list = MoveList::new();
        movegen::generate_legal(&kingless, &mut list);
        for &m in list.iter().take(5) {
            stack.push(&kingless, m);
            kingless.do_move(m);
            assert_eq!(stack.evaluate(&kingless, net()), None);
            kingless.undo_move(m);
            stack.pop();
        }
    }
}

// ----- bad files -----

#[test]
fn bad_files_are_distinct_errors() {
    let _cpu = crate::common::shared();
    let raw = &fixture().0;
    let dir = std::env::temp_dir().join(format!("hayate-nnue-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    let missing = dir.join("no-such-nn.bin");
    assert_eq!(Network::load(&missing).unwrap_err(), NnueError::FileNotFound(missing.clone()));
    assert!(matches!(Network::load(&dir).unwrap_err(), NnueError::Unreadable { .. }));
    let empty = dir.join("empty.bin");
    std::fs::write(&empty, b"").unwrap();
    assert_eq!(Network::load(&empty).unwrap_err(), NnueError::Empty);
    assert_eq!(Network::from_bytes(&[]).unwrap_err(), NnueError::Empty);

    let mut bytes = raw[..64].to_vec();
    bytes[0] ^= 1;
    assert!(matches!(Network::from_bytes(&bytes), Err(NnueError::WrongVersion { found }) if found == 0x7AF3_2F17));
    let mut bytes = raw[..1000].to_vec();
    bytes[4] ^= 0x80;
    match Network::from_bytes(&bytes) {
        Err(NnueError::WrongArchitectureHash { found, expected, architecture }) => {
            assert_eq!((found ^ 0x80, expected), (ARCHITECTURE_HASH, ARCHITECTURE_HASH));
            assert!(architecture.starts_with("Features=HalfKP"));
        }
        other => panic!("{other:?}"),
    }

    let header = 12 + 189;
    for cut in [1, 3, 4, 11, 12, 100, header, header + 4, header + 1000, raw.len() / 2, raw.len() - 33, raw.len() - 1] {
        match Network::from_bytes(&raw[..cut]) {
            Err(NnueError::Truncated { expected, actual }) => {
                assert_eq!(actual, cut);
                assert!(expected > cut);
            }
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
    let mut longer = raw.clone();
    longer.push(0);
    assert_eq!(
        Network::from_bytes(&longer).unwrap_err(),
        NnueError::Oversized { expected: raw.len(), actual: raw.len() + 1 }
    );

    let mut bytes = raw.clone();
    bytes[header] ^= 1;
    assert!(matches!(Network::from_bytes(&bytes), Err(NnueError::WrongFeatureTransformerHash { .. })));
    bytes[header] ^= 1;
    let net_hash_at = header + 4 + 2 * 256 + 2 * 256 * 125_388;
    bytes[net_hash_at] ^= 1;
    assert!(matches!(Network::from_bytes(&bytes), Err(NnueError::WrongNetworkHash { .. })));

    let gz = dir.join("broken.bin.gz");
    std::fs::write(&gz, [0x1f, 0x8b, 8, 0, 0, 0]).unwrap();
    assert!(matches!(Network::load(&gz), Err(NnueError::Decompress(_))));
    // Random headers: an error every time, never a panic.
    let mut rng = Rng(99);
    for _ in 0..5000 {
        let len = rng.below(400);
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        if len >= 12 && rng.chance(50) {
            bytes[..8].copy_from_slice(&raw[..8]);
            if rng.chance(50) {
                // A plausible string length, so that parsing gets past the header.
                bytes[8..12].copy_from_slice(&(rng.below(len) as u32).to_le_bytes());
            }
        }
        assert!(Network::from_bytes(&bytes).is_err());
    }
    // Each error explains itself in one line.
    assert!(NnueError::Empty.to_string().contains("empty"));
    std::fs::remove_dir_all(&dir).unwrap();
}
