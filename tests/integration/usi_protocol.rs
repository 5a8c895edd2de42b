//! Scripted USI sessions against the release binary, with exact expectations.

use crate::common;

use common::{Engine, bestmove_of};
use hayate::shogi::Position;
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(20);

fn position_after(sfen: Option<&str>, moves: &[&str]) -> Position {
    let mut p = match sfen {
        Some(s) => Position::from_sfen(s).unwrap(),
        None => Position::startpos(),
    };
    for m in moves {
        let mv = p.parse_usi_move(m).unwrap();
        p.do_move(mv);
    }
    p
}

#[test]
fn handshake_lists_every_option() {
    let _cpu = common::exclusive();
    let start = Instant::now();
    let mut e = Engine::start();
    e.send("usi");
    let lines = e.until("usiok", Duration::from_secs(5));
    let usiok_after = start.elapsed();
    assert!(usiok_after < Duration::from_secs(1), "usiok took {usiok_after:?}");
    assert!(lines[0].starts_with("id name hayate "), "{lines:?}");
    assert!(lines[1].starts_with("id author "), "{lines:?}");
    let options: Vec<&String> = lines.iter().filter(|l| l.starts_with("option name ")).collect();
    let expected = [
        "option name USI_Hash type spin default 256 min 1 max 1048576",
        "option name USI_Ponder type check default false",
        "option name Threads type spin default 1 min 1 max 256",
        "option name MultiPV type spin default 1 min 1 max 600",
        "option name NetworkDelay type spin default 40 min 0 max 10000",
        "option name MinimumThinkingTime type spin default 20 min 0 max 60000",
        "option name ResignValue type spin default 10000 min 0 max 99999",
        "option name DrawValue type spin default 0 min -30000 max 30000",
        "option name EnteringKingRule type combo default CSARule27 var NoEnteringKing var CSARule24 var CSARule24H \
         var CSARule27 var CSARule27H var TryRule",
        "option name MaxMovesToDraw type spin default 0 min 0 max 100000",
        "option name NodesLimit type spin default 0 min 0 max 1000000000000",
    ];
    for want in expected {
        assert!(options.iter().any(|o| o.as_str() == want), "missing '{want}' in {options:?}");
    }
    assert_eq!(lines.last().unwrap(), "usiok");
    e.send("isready");
    assert_eq!(common::without_network_report(e.until("readyok", T)), vec!["readyok"]);
}

#[test]
fn hash_and_ponder_accepted_before_usi() {
    let _cpu = common::shared();
    let mut e = Engine::start();
    e.send("setoption name USI_Hash value 32");
    e.send("setoption name USI_Ponder value true");
    e.send("isready");
    // Nothing but readyok: no error for options sent before `usi`.
    assert_eq!(common::without_network_report(e.until("readyok", T)), vec!["readyok"]);
}

#[test]
fn go_depth_gives_a_legal_bestmove() {
    let _cpu = common::shared();
    let mut e = Engine::start();
    e.handshake();
    let moves = ["7g7f", "3c3d", "8h2b+", "3a2b"];
    e.send(&format!("position startpos moves {}", moves.join(" ")));
    e.send("go depth 6");
    let lines = e.until("bestmove", T);
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth")).collect();
    assert!(infos.iter().any(|l| l.starts_with("info depth 6 ")), "{lines:?}");
    for l in &infos {
        for field in [" seldepth ", " time ", " nodes ", " nps ", " hashfull ", " score ", " pv "] {
            assert!(l.contains(field), "'{field}' missing in {l}");
        }
    }
    let best = bestmove_of(lines.last().unwrap()).expect("a move");
    let pos = position_after(None, &moves);
    assert!(pos.parse_usi_move(&best).is_ok(), "illegal bestmove {best}");
    // The ponder move, when given, is legal after the best move.
    let parts: Vec<&str> = lines.last().unwrap().split_whitespace().collect();
    if parts.len() == 4 {
        assert_eq!(parts[2], "ponder");
        let mut p = pos.clone();
        p.do_move(p.parse_usi_move(&best).unwrap());
        assert!(p.parse_usi_move(parts[3]).is_ok(), "illegal ponder move {}", parts[3]);
    }
}

#[test]
fn infinite_then_stop_answers_within_100ms() {
    let _cpu = common::exclusive();
    let mut e = Engine::start();
    e.handshake();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(400));
    let t = Instant::now();
    e.send("stop");
    let lines = e.until("bestmove", Duration::from_secs(2));
    let took = t.elapsed();
    assert!(took < Duration::from_millis(100), "stop answered after {took:?}");
    assert!(bestmove_of(lines.last().unwrap()).is_some());
}

#[test]
fn multipv_three_prints_three_distinct_lines() {
    let _cpu = common::shared();
    let mut e = Engine::start();
    e.handshake();
    e.send("setoption name MultiPV value 3");
    e.send("position startpos moves 2g2f 8c8d");
    e.send("go depth 5");
    let lines = e.until("bestmove", T);
    let last_depth: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth 5 ")).collect();
    assert_eq!(last_depth.len(), 3, "{lines:?}");
    let mut firsts = Vec::new();
    for (k, l) in last_depth.iter().enumerate() {
        assert!(l.contains(&format!(" multipv {} ", k + 1)), "{l}");
        let pv = l.split(" pv ").nth(1).unwrap();
        firsts.push(pv.split_whitespace().next().unwrap().to_string());
    }
    firsts.sort();
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "{last_depth:?}");
}

#[test]
fn finds_mate_in_one_with_mate_score() {
    let _cpu = common::shared();
    let mut e = Engine::start();
    e.handshake();
    // Black: gold in hand; G*5b mates the king on 5a, guarded by the silver on 6c.
    e.send("position sfen 4k4/9/3S5/9/9/9/9/9/4K4 b G 1");
    e.send("go depth 4");
    let lines = e.until("bestmove", T);
    assert_eq!(lines.last().unwrap(), "bestmove G*5b");
    assert!(lines.iter().any(|l| l.contains("score mate 1 ")), "{lines:?}");
}

#[test]
fn bad_input_gets_info_string_and_engine_keeps_working() {
    let _cpu = common::shared();
    let mut e = Engine::start();
    e.handshake();
    let bad = [
        ("wibble", "unknown command 'wibble'"),
        ("go depth x", "go: bad number 'x'"),
        ("setoption name NoSuchOption value 1", "unknown option 'NoSuchOption'"),
        ("setoption name Threads value many", "option Threads: 'many' is not a number"),
        ("position sfen 9/9/9 b - 1", "bad SFEN"),
        ("position startpos moves 7g7f 7g7f", "move 2 (7g7f): illegal move '7g7f'"),
    ];
    for (cmd, want) in bad {
        e.send(cmd);
        let l = e.line(T).expect("a reply");
        assert!(l.starts_with("info string error: ") && l.contains(want), "'{cmd}' gave '{l}'");
        if cmd.starts_with("go ") {
            // A refused `go` is still answered, so that a GUI never waits for nothing.
            assert_eq!(e.line(T).as_deref(), Some("bestmove resign"), "'{cmd}'");
        }
    }
    // The failed position is not half-applied: go refuses until a valid position arrives.
    e.send("go depth 2");
    let lines = e.until("bestmove", T);
    assert!(lines[0].starts_with("info string error: cannot search"), "{lines:?}");
    assert_eq!(lines.last().unwrap(), "bestmove resign");
    e.send("position startpos moves 7g7f");
    e.send("go depth 3");
    let lines = e.until("bestmove", T);
    let best = bestmove_of(lines.last().unwrap()).unwrap();
    assert!(position_after(None, &["7g7f"]).parse_usi_move(&best).is_ok());
    e.send("setoption name Threads value 100000");
    let l = e.line(T).unwrap();
    assert_eq!(l, "info string warning: option Threads value 100000 clamped to 256");
    e.send("isready");
    assert_eq!(common::without_network_report(e.until("readyok", T)), vec!["readyok"]);
}

#[test]
fn isready_during_search_waits_for_the_bestmove() {
    let _cpu = common::shared();
    let mut e = Engine::start();
    e.handshake();
    e.send("position startpos");
    e.send("go movetime 300");
    e.send("isready");
    let lines = e.until("readyok", T);
    let best_at = lines.iter().position(|l| l.starts_with("bestmove")).expect("bestmove before readyok");
    assert_eq!(best_at, lines.len() - 2, "{lines:?}");
}

#[test]
fn ponder_then_ponderhit_with_clock() {
    let _cpu = common::exclusive();
    let mut e = Engine::start();
    e.handshake();
    e.send("setoption name USI_Ponder value true");
    e.send("position startpos moves 7g7f 3c3d");
    // ShogiHome's early ponder: go ponder without times, ponderhit with them.
    e.send("go ponder");
    std::thread::sleep(Duration::from_millis(200));
    // While pondering there is no bestmove.
    assert!(e.line(Duration::from_millis(50)).is_none_or(|l| l.starts_with("info")));
    let t = Instant::now();
    e.send("ponderhit btime 0 wtime 0 byoyomi 500");
    let lines = e.until("bestmove", Duration::from_secs(5));
    let took = t.elapsed();
    assert!(took >= Duration::from_millis(300) && took < Duration::from_millis(1500), "{took:?}");
    assert!(bestmove_of(lines.last().unwrap()).is_some());
    // Ponder miss: stop answers at once.
    e.send("position startpos moves 7g7f 3c3d 2g2f");
    e.send("go ponder btime 0 wtime 0 byoyomi 500");
    std::thread::sleep(Duration::from_millis(100));
    e.send("stop");
    let lines = e.until("bestmove", Duration::from_secs(1));
    assert!(bestmove_of(lines.last().unwrap()).is_some());
}

#[test]
fn byoyomi_uses_most_of_the_time() {
    let _cpu = common::exclusive();
    let mut e = Engine::start();
    e.handshake();
    e.send("setoption name NetworkDelay value 100");
    e.send("position startpos");
    let t = Instant::now();
    e.send("go btime 0 wtime 0 byoyomi 1000");
    e.until("bestmove", T);
    let took = t.elapsed();
    assert!(took >= Duration::from_millis(850) && took < Duration::from_millis(1000), "{took:?}");
}

#[test]
fn end_of_input_finishes_a_limited_go() {
    let _cpu = common::shared();
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go depth 5");
    e.close_input();
    let lines = e.until("bestmove", T);
    assert!(bestmove_of(lines.last().unwrap()).is_some());
    assert!(e.wait_exit(Duration::from_secs(5)));
}

#[test]
fn end_of_input_stops_an_infinite_go() {
    let _cpu = common::shared();
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    e.close_input();
    e.until("bestmove", Duration::from_secs(2));
    assert!(e.wait_exit(Duration::from_secs(2)));
}

#[test]
fn quit_during_search_exits_quickly() {
    let _cpu = common::exclusive();
    let mut e = Engine::start();
    e.handshake();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    e.send("quit");
    assert!(e.wait_exit(Duration::from_millis(100)), "quit took longer than 100 ms");
    assert!(t.elapsed() < Duration::from_millis(150));
}

#[test]
fn go_perft_and_diagnostics() {
    let _cpu = common::shared();
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go perft 3");
    let lines = e.until("Nodes searched", T);
    assert_eq!(lines.last().unwrap(), "Nodes searched: 25470");
    assert_eq!(lines.iter().filter(|l| l.contains(": ") && !l.starts_with("info")).count(), 31);
    e.send("d");
    let lines = e.until("checkers", T);
    assert!(lines.iter().any(|l| l == "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"));
    e.send("moves");
    let l = e.line(T).unwrap();
    assert!(l.starts_with("info string 30 legal moves: "), "{l}");
}

#[test]
fn no_legal_moves_resigns() {
    let _cpu = common::shared();
    let mut e = Engine::start();
    e.handshake();
    e.send("position sfen 4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1");
    e.send("go btime 1000 wtime 1000 byoyomi 100");
    let lines = e.until("bestmove", T);
    assert_eq!(lines.last().unwrap(), "bestmove resign");
}

#[test]
fn go_mate_is_answered_in_standard_form() {
    let _cpu = common::shared();
    let mut e = Engine::start();
    e.handshake();
    e.send("position sfen 4k4/9/3S5/9/9/9/9/9/4K4 b G 1");
    e.send("go mate 1000");
    let l = e.until("checkmate", T);
    let last = l.last().unwrap();
    assert_eq!(last, "checkmate G*5b");
}

/// Every option of the `usi` answer round-trips through `setoption`: its default, minimum and
/// maximum (spin), both values (check) and every choice (combo) are taken without a message;
/// one past either end of a spin is clamped with a warning naming the option; a misspelt name
/// is an error naming it, never another option.
#[test]
fn every_option_round_trips() {
    let _cpu = common::shared();
    let mut e = Engine::start();
    e.send("usi");
    let lines = e.until("usiok", T);
    // Messages of what was sent since the last sync; USI_Hash goes back to 16 MiB before each
    // `isready`, so that its maximum is never allocated.
    let sync = |e: &mut Engine| {
        e.send("setoption name USI_Hash value 16");
        e.send("isready");
        let mut r = common::without_network_report(e.until("readyok", T));
        r.pop();
        r
    };
    let mut checked = 0;
    for l in lines.iter().filter(|l| l.starts_with("option name ")) {
        let words: Vec<&str> = l.split_whitespace().collect();
        let name = words[2];
        let field = |key: &str| words.iter().position(|w| *w == key).map(|i| words[i + 1]);
        match field("type") {
            Some("spin") => {
                let (default, min, max) = (field("default").unwrap(), field("min").unwrap(), field("max").unwrap());
                for v in [default, min, max] {
                    e.send(&format!("setoption name {name} value {v}"));
                    assert_eq!(sync(&mut e), Vec::<String>::new(), "{name} {v}");
                }
                let over = max.parse::<i128>().unwrap() + 1;
                e.send(&format!("setoption name {name} value {over}"));
                let want = format!("info string warning: option {name} value {over} clamped to {max}");
                assert_eq!(sync(&mut e), vec![want]);
                let under = min.parse::<i128>().unwrap() - 1;
                e.send(&format!("setoption name {name} value {under}"));
                let want = format!("info string warning: option {name} value {under} clamped to {min}");
                assert_eq!(sync(&mut e), vec![want]);
                e.send(&format!("setoption name {name} value {default}"));
            }
            Some("check") => {
                for v in ["true", "false", field("default").unwrap()] {
                    e.send(&format!("setoption name {name} value {v}"));
                }
                assert_eq!(sync(&mut e), Vec::<String>::new(), "{name}");
            }
            Some("combo") => {
                let vars: Vec<&str> =
                    words.iter().enumerate().filter(|(_, w)| **w == "var").map(|(i, _)| words[i + 1]).collect();
                assert!(vars.len() >= 2, "{l}");
                for v in vars.iter().chain([&field("default").unwrap()]) {
                    e.send(&format!("setoption name {name} value {v}"));
                }
                assert_eq!(sync(&mut e), Vec::<String>::new(), "{name}");
            }
            Some("string" | "filename") => {
                for v in ["some text", "/a dir/a file.bin", "<empty>", field("default").unwrap()] {
                    e.send(&format!("setoption name {name} value {v}"));
                }
                e.send(&format!("setoption name {name}"));
                e.send(&format!("setoption name {name} value {}", field("default").unwrap()));
                assert_eq!(sync(&mut e), Vec::<String>::new(), "{name}");
            }
            other => panic!("unexpected type {other:?} in {l}"),
        }
        let misspelt = format!("{}_", &name[..name.len() - 1]);
        e.send(&format!("setoption name {misspelt} value 1"));
        assert_eq!(sync(&mut e), vec![format!("info string error: unknown option '{misspelt}'")]);
        checked += 1;
    }
    assert!(checked >= 11, "{checked} options");
}

/// `readyok` means ready: with a 4 GiB table, the first `go` after `readyok` answers within its
/// byoyomi like every later one (the table is allocated and its pages brought in before
/// `readyok`; before, the first search paid for the page faults).
#[test]
fn first_go_after_readyok_with_a_4_gib_table_answers_within_the_byoyomi() {
    let _cpu = common::exclusive();
    if hayate::memory::memory_limit_mib().is_some_and(|m| m < 8192) {
        eprintln!("skipped: less than 8 GiB of memory here");
        return;
    }
    let mut e = Engine::start();
    e.send("usi");
    e.until("usiok", T);
    e.send("setoption name USI_Hash value 4096");
    e.send("isready");
    assert_eq!(common::without_network_report(e.until("readyok", Duration::from_secs(120))), vec!["readyok"]);
    e.send("usinewgame");
    e.send("position startpos moves 7g7f");
    let t = Instant::now();
    e.send("go btime 0 wtime 0 byoyomi 100");
    let lines = e.until("bestmove", T);
    let took = t.elapsed();
    assert!(took < Duration::from_millis(100), "bestmove after {took:?}: {lines:?}");
    assert!(bestmove_of(lines.last().unwrap()).is_some(), "{lines:?}");
    // And the next one too.
    e.send("position startpos moves 7g7f 3c3d");
    let t = Instant::now();
    e.send("go btime 0 wtime 0 byoyomi 100");
    e.until("bestmove", T);
    assert!(t.elapsed() < Duration::from_millis(100), "{:?}", t.elapsed());
}
