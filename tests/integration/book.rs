//! The opening book through the protocol: a good book is played from at once (only its
//! candidates, only up to `BookMoves`), a malformed file is an error at `isready` and the engine
//! plays on without a book, an illegal book move is never played.

use crate::common;

use common::{Engine, bestmove_of};
use hayate::book::HEADER;
use hayate::shogi::Position;
use std::time::Duration;

const T: Duration = Duration::from_secs(20);
const START: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

fn write_book(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("hayate-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// Starts an engine with `BookFile` = `path` and returns it with the lines of its `isready`.
fn with_book(path: &str, extra: &[&str]) -> (Engine, Vec<String>) {
    let mut e = Engine::start();
    e.send("usi");
    e.until("usiok", T);
    e.send(&format!("setoption name BookFile value {path}"));
    for o in extra {
        e.send(o);
    }
    e.send("isready");
    let mut lines = e.until("readyok", T);
    lines.pop();
    (e, common::without_network_report(lines))
}

fn go(e: &mut Engine, position: &str) -> Vec<String> {
    e.send(position);
    e.send("go btime 0 wtime 0 byoyomi 2000");
    e.until("bestmove", T)
}

#[test]
fn plays_book_moves_at_once_within_the_eval_diff() {
    let _cpu = common::shared();
    // 7g7f and 2g2f are within 30 of the best; 5i5h is not. After 7g7f 3c3d the book goes on.
    let book = format!(
        "{HEADER}\nsfen {START}\n7g7f 3c3d 10 30 3\n2g2f 8c8d 0 30 2\n5i5h none -100 30 100\n\
         sfen lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3\n2g2f 8c8d 0 30 1\n"
    );
    let path = write_book("good.db", &book);
    let (mut e, ready) = with_book(&path, &[]);
    assert_eq!(ready, vec![format!("info string book {path}: 2 positions")]);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..12 {
        let lines = go(&mut e, "position startpos");
        assert!(lines.iter().any(|l| l.starts_with("info string book move ")), "{lines:?}");
        assert!(lines.iter().any(|l| l.starts_with("info depth 30 ") && l.contains(" nodes 0 ")), "{lines:?}");
        let mv = bestmove_of(lines.last().unwrap()).unwrap();
        assert!(mv == "7g7f" || mv == "2g2f", "{lines:?}");
        seen.insert(mv);
    }
    assert_eq!(seen.len(), 2, "both candidates come up in 12 tries");
    let lines = go(&mut e, "position startpos moves 7g7f 3c3d");
    assert_eq!(lines.last().unwrap(), "bestmove 2g2f ponder 8c8d");
    // Not in the book: searched.
    let lines = go(&mut e, "position startpos moves 2g2f 8c8d");
    assert!(!lines.iter().any(|l| l.contains("book move")), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("info depth ") && !l.contains(" nodes 0 ")), "{lines:?}");
}

#[test]
fn book_moves_and_ply_options_limit_the_book() {
    let _cpu = common::shared();
    // The book's line says ply 9; the position is the start position (move 1).
    let book = format!("{HEADER}\nsfen {}\n2g2f none 0 1 1\n", START.replace(" 1", " 9"));
    let path = write_book("ply.db", &book);
    let (mut e, _) = with_book(&path, &[]);
    let lines = go(&mut e, "position startpos");
    assert!(!lines.iter().any(|l| l.contains("book move")), "ply 9 is not ply 1: {lines:?}");
    let (mut e, _) = with_book(&path, &["setoption name IgnoreBookPly value true"]);
    assert_eq!(go(&mut e, "position startpos").last().unwrap(), "bestmove 2g2f");
    let (mut e, _) = with_book(&path, &["setoption name IgnoreBookPly value true", "setoption name BookMoves value 0"]);
    assert!(!go(&mut e, "position startpos").iter().any(|l| l.contains("book move")));
    let (mut e, _) =
        with_book(&path, &["setoption name IgnoreBookPly value true", "setoption name USI_OwnBook value false"]);
    assert!(!go(&mut e, "position startpos").iter().any(|l| l.contains("book move")));
}

#[test]
fn a_malformed_or_missing_book_is_an_error_at_isready_and_the_engine_plays_on() {
    let _cpu = common::shared();
    for (name, text) in [
        ("no_header.db", format!("sfen {START}\n7g7f none 0 0 1\n")),
        ("bad_number.db", format!("{HEADER}\nsfen {START}\n7g7f none ten 0 1\n")),
        ("bad_sfen.db", format!("{HEADER}\nsfen {START}x\n7g7f none 0 0 1\n")),
    ] {
        let path = write_book(name, &text);
        let (mut e, ready) = with_book(&path, &[]);
        assert_eq!(ready.len(), 1, "{ready:?}");
        assert!(ready[0].starts_with(&format!("info string error: BookFile {path}: line ")), "{ready:?}");
        assert!(ready[0].ends_with("playing without a book"), "{ready:?}");
        let lines = go(&mut e, "position startpos");
        assert!(!lines.iter().any(|l| l.contains("book move")));
        let mv = bestmove_of(lines.last().unwrap()).unwrap();
        assert!(Position::startpos().parse_usi_move(&mv).is_ok(), "{mv}");
    }
    let (mut e, ready) = with_book("/nonexistent/book.db", &[]);
    assert!(ready[0].starts_with("info string error: BookFile /nonexistent/book.db: cannot read"), "{ready:?}");
    assert!(bestmove_of(go(&mut e, "position startpos").last().unwrap()).is_some());
}

#[test]
fn an_illegal_book_move_is_never_played() {
    let _cpu = common::shared();
    // 7g7e is not a legal move at the start; the legal one has a far lower value.
    let book = format!("{HEADER}\nsfen {START}\n7g7e none 500 30 100\n1g1f 1c1d -500 30 1\n");
    let path = write_book("illegal.db", &book);
    let (mut e, ready) = with_book(&path, &["setoption name BookEvalDiff value 0"]);
    assert_eq!(ready, vec![format!("info string book {path}: 1 positions, 1 illegal moves left out")]);
    assert_eq!(go(&mut e, "position startpos").last().unwrap(), "bestmove 1g1f ponder 1c1d");
}
