//! The search through the engine facade: what it plays and reports at fixed depths.

use hayate::engine::{Engine, EngineOptions, SearchOutcome};
use hayate::eval::Value;
use hayate::mate::{MateSolver, verify_mate_line};
use hayate::search::params::MATE_PROBE_PLY;
use hayate::search::{BestMove, Limits, NullReporter, Reporter, Score, SearchInfo, VALUE_MATE, mate_in};
use hayate::shogi::Position;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// An engine with a small table that never resigns (the largest resign value).
fn engine() -> Engine {
    Engine::with_options(EngineOptions { hash_mib: 8, resign_value: 99_999, ..EngineOptions::default() })
}

fn search_with(sfen: &str, depth: i32, reporter: Arc<dyn Reporter>) -> SearchOutcome {
    let mut engine = engine();
    let limits = Limits { depth: Some(depth), ..Default::default() };
    engine.search(Position::from_sfen(sfen).unwrap(), limits, reporter)
}

fn search_depth(sfen: &str, depth: i32) -> SearchOutcome {
    search_with(sfen, depth, Arc::new(NullReporter))
}

#[test]
fn finds_mate_in_one() {
    let _cpu = crate::common::shared();
    // Gold drop on 5b mates the king on 5a (supported by the silver on 4c).
    let r = search_depth("4k4/9/3S5/9/9/9/9/9/4K4 b G 1", 3);
    assert_eq!(r.score, Some(mate_in(1)));
    match r.best {
        BestMove::Move { mv, .. } => assert_eq!(mv.to_string(), "G*5b"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn resigns_without_legal_moves() {
    let _cpu = crate::common::shared();
    let r = search_depth("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1", 3);
    assert_eq!(r.best, BestMove::Resign);
}

#[test]
fn does_not_walk_into_a_mate_beyond_its_depth() {
    let _cpu = crate::common::shared();
    // From a game against Fairy-Stockfish (White to move): the build without root mate
    // probes played 4f3g here at depth 4 (and in the game), after which Black mates in 9
    // (N*4d 3b4a S*3b ...), far beyond the horizon of a depth-4 search.
    let sfen = "l2g3nl/1+P4k2/p4p1pp/3p+B1ps1/Pp6P/3Ppg3/1P4P2/2GS1g1RK/LN4+n1L w RSNbs4p 112";
    let mut pos = Position::from_sfen(sfen).unwrap();
    let mut solver = MateSolver::new(4).unwrap();
    let blunder = pos.parse_usi_move("4f3g").unwrap();
    pos.do_move(blunder);
    assert!(solver.probe(&pos, 1_000_000, 31, &AtomicBool::new(false)).is_some());
    pos.undo_move(blunder);
    let r = search_depth(sfen, 4);
    let BestMove::Move { mv, .. } = r.best else { panic!("{:?}", r.best) };
    pos.do_move(mv);
    assert_eq!(solver.probe(&pos, 1_000_000, 31, &AtomicBool::new(false)), None, "{mv} allows a mate");
}

#[test]
fn a_move_that_allows_a_mate_shows_the_mating_line() {
    let _cpu = crate::common::shared();
    // From a game against Fairy-Stockfish (White to move), where every move allows a mate
    // (hayate's own build resigns here, with a resign value): the last line reported is the
    // answer and the mate after it.
    struct Lines(parking_lot::Mutex<Vec<SearchInfo>>);
    impl Reporter for Lines {
        fn info(&self, info: &SearchInfo) {
            self.0.lock().push(info.clone());
        }
        fn bestmove(&self, _: &BestMove, _: Option<Value>) {}
        fn message(&self, _: &str) {}
    }
    let sfen = "5sSnl/1G2g4/3p1kbpp/4+R4/2pG1ppP1/4R4/PPP+s1PP1P/1Sg2K3/L3L2NL w 2Pb2n3p 92";
    let lines = Arc::new(Lines(parking_lot::Mutex::new(Vec::new())));
    let r = search_with(sfen, 4, lines.clone());
    let last = lines.0.lock().last().cloned().expect("a line");
    assert_eq!(r.best, BestMove::Move { mv: last.pv[0], ponder: last.pv.get(1).copied() });
    let Score::Mate(plies) = last.score else { panic!("{:?}", last.score) };
    assert!(plies < 0);
    let mut pos = Position::from_sfen(sfen).unwrap();
    pos.do_move(last.pv[0]);
    assert!(verify_mate_line(&pos, &last.pv[1..]).is_ok(), "{:?}", last.pv);
    assert_eq!(last.pv.len() as i32, -plies);
}

#[test]
fn plays_a_mate_found_by_the_probe_at_once() {
    let _cpu = crate::common::shared();
    // The position after the blunder above: Black mates in 9. The probe finds a mate before
    // the first iteration, and the search answers with it without searching.
    let sfen = "l2g3nl/1+P4k2/p4p1pp/3p+B1ps1/Pp6P/3Pp4/1P4g2/2GS1g1RK/LN4+n1L b RSNbs5p 113";
    let r = search_depth(sfen, 30);
    assert_eq!(r.nodes, 0);
    let plies = VALUE_MATE - r.score.unwrap();
    assert!((9..=MATE_PROBE_PLY as i32).contains(&plies), "{:?}", r.score);
    let BestMove::Move { mv, .. } = r.best else { panic!("{:?}", r.best) };
    let mut pos = Position::from_sfen(sfen).unwrap();
    pos.do_move(mv);
    assert!(pos.in_check());
}

#[test]
fn takes_a_free_rook() {
    let _cpu = crate::common::shared();
    let r = search_depth("4k4/9/9/9/4r4/9/9/4R4/4K4 b - 1", 4);
    match r.best {
        BestMove::Move { mv, .. } => assert_eq!(mv.to_string(), "5h5e"),
        other => panic!("{other:?}"),
    }
}

/// The bench through the engine gives the same node count twice (fresh tables per position),
/// whatever the engine's own table size.
#[test]
fn bench_is_deterministic() {
    let _cpu = crate::common::shared();
    let run = |hash_mib| {
        let mut engine = Engine::with_options(EngineOptions { hash_mib, ..Default::default() });
        let slot = Arc::new(parking_lot::Mutex::new(None));
        let out = slot.clone();
        engine.bench(4, Box::new(move |r| *out.lock() = r)).unwrap();
        engine.wait();
        let r = slot.lock().take().expect("a result");
        r.nodes
    };
    assert_eq!(run(1), run(64));
}
