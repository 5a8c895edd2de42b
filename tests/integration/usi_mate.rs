//! `go mate` over USI against the release binary: the three standard answers, `stop`,
//! `isready` and `quit` during a mate search.

use crate::common;

use common::Engine;
use hayate::mate::verify_mate_line;
use hayate::shogi::Position;
use std::time::{Duration, Instant};

const T: Duration = Duration::from_secs(20);
/// Mate in 7 (public corpus, mate0441), solved in a few thousand nodes.
const MATE_IN_7: &str = "1k7/9/9/2G6/9/9/4K4/9/9 b B2G2rbg4s4n4l18p 1";
/// No mate (public corpus, mate0607), disproven in some tens of thousands of nodes.
const NO_MATE: &str = "1n2kg1G1/lr1s5/p1p2Bnp1/4spp2/1pP4nP/4LS1P1/PP1P1G2+b/4GR3/LN2KP3 b S4Plp 88";
/// No mate either, but the proof takes millions of nodes (seconds): a search still running.
const HARD: &str = "6k2/9/4+bs3/9/9/9/7K1/9/9 b 2RLb4g3s4n3l18p 1";

/// The mating line of a `checkmate` answer, checked against the rules.
fn checked_line(sfen: &str, answer: &str) -> Vec<String> {
    let moves: Vec<String> = answer.strip_prefix("checkmate ").expect(answer).split(' ').map(String::from).collect();
    let pos = Position::from_sfen(sfen).unwrap();
    let mut p = pos.clone();
    let mut line = Vec::new();
    for m in &moves {
        let mv = p.parse_usi_move(m).unwrap_or_else(|e| panic!("{answer}: {e}"));
        p.do_move(mv);
        line.push(mv);
    }
    verify_mate_line(&pos, &line).unwrap_or_else(|e| panic!("{answer}: {e}"));
    moves
}

#[test]
fn go_mate_with_time_answers_the_shortest_mate() {
    let _cpu = crate::common::shared();
    let mut e = Engine::start();
    e.handshake();
    e.send(&format!("position sfen {MATE_IN_7}"));
    e.send("go mate 1000");
    let lines = e.until("checkmate", T);
    let answer = lines.last().unwrap();
    assert_eq!(checked_line(MATE_IN_7, answer).len(), 7, "{answer}");
    // Info before the answer is allowed; nothing non-standard.
    assert!(lines[..lines.len() - 1].iter().all(|l| l.starts_with("info ")), "{lines:?}");
}

#[test]
fn go_mate_answers_nomate_when_proven() {
    let _cpu = crate::common::shared();
    let mut e = Engine::start();
    e.handshake();
    e.send(&format!("position sfen {NO_MATE}"));
    e.send("go mate 10000");
    assert_eq!(e.until("checkmate", T).last().unwrap(), "checkmate nomate");
    // The start position: not a single check.
    e.send("position startpos");
    e.send("go mate infinite");
    assert_eq!(e.until("checkmate", T).last().unwrap(), "checkmate nomate");
}

#[test]
fn go_mate_answers_timeout_when_time_runs_out() {
    let _cpu = crate::common::shared();
    let mut e = Engine::start();
    e.handshake();
    e.send(&format!("position sfen {HARD}"));
    let t = Instant::now();
    e.send("go mate 200");
    assert_eq!(e.until("checkmate", T).last().unwrap(), "checkmate timeout");
    assert!(t.elapsed() < Duration::from_secs(2), "took {:?}", t.elapsed());
    // The engine is still usable: a mate in one right after.
    e.send("position sfen 4k4/9/3S5/9/9/9/9/9/4K4 b G 1");
    e.send("go mate 1000");
    assert_eq!(e.until("checkmate", T).last().unwrap(), "checkmate G*5b");
}

#[test]
fn go_mate_infinite_stops_on_stop_and_answers_isready_after() {
    let _cpu = crate::common::shared();
    let mut e = Engine::start();
    e.handshake();
    e.send(&format!("position sfen {HARD}"));
    e.send("go mate infinite");
    std::thread::sleep(Duration::from_millis(300));
    // isready during the search is answered after the answer, not before.
    e.send("isready");
    assert_eq!(e.line(Duration::from_millis(200)), None, "no reply before stop");
    let t = Instant::now();
    e.send("stop");
    let lines = e.until("readyok", T);
    assert!(t.elapsed() < Duration::from_millis(500), "stop took {:?}", t.elapsed());
    let answers: Vec<&String> = lines.iter().filter(|l| l.starts_with("checkmate")).collect();
    assert_eq!(answers, ["checkmate timeout"], "{lines:?}");
    assert!(lines.iter().position(|l| l.starts_with("checkmate")) < lines.iter().position(|l| l == "readyok"));
    // And a new search works as before.
    e.send(&format!("position sfen {MATE_IN_7}"));
    e.send("go mate infinite");
    let answer = e.until("checkmate", T).pop().unwrap();
    assert_eq!(checked_line(MATE_IN_7, &answer).len(), 7, "{answer}");
}

#[test]
fn a_new_position_stops_a_running_mate_search() {
    let _cpu = crate::common::shared();
    let mut e = Engine::start();
    e.handshake();
    e.send(&format!("position sfen {HARD}"));
    e.send("go mate infinite");
    std::thread::sleep(Duration::from_millis(100));
    e.send(&format!("position sfen {MATE_IN_7}"));
    e.send("go mate 5000");
    let first = e.until("checkmate", T).pop().unwrap();
    assert_eq!(first, "checkmate timeout");
    let second = e.until("checkmate", T).pop().unwrap();
    assert_eq!(checked_line(MATE_IN_7, &second).len(), 7, "{second}");
    e.send("isready");
    assert_eq!(e.until("readyok", T).last().unwrap(), "readyok");
}

#[test]
fn quit_during_mate_search_exits_quickly() {
    let _cpu = crate::common::shared();
    let mut e = Engine::start();
    e.handshake();
    e.send(&format!("position sfen {HARD}"));
    e.send("go mate infinite");
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    e.send("quit");
    assert!(e.wait_exit(Duration::from_millis(100)), "quit took longer than 100 ms");
    assert!(t.elapsed() < Duration::from_millis(150));
}

/// Runs `hayate ARGS`; returns (exit status, stdout, stderr).
fn cli(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hayate")).args(args).output().expect("run hayate");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn cli_prints_the_same_answers() {
    let _cpu = crate::common::shared();
    let (code, out, _) = cli(&["mate", "--sfen", MATE_IN_7, "--time-ms", "5000"]);
    assert_eq!(code, 0);
    assert_eq!(checked_line(MATE_IN_7, out.trim()).len(), 7, "{out}");
    let (code, out, _) = cli(&["mate", "--sfen", NO_MATE]);
    assert_eq!((code, out.trim()), (0, "checkmate nomate"));
    let (code, out, _) = cli(&["mate", "--sfen", HARD, "--time-ms", "100"]);
    assert_eq!((code, out.trim()), (0, "checkmate timeout"));
    // --moves: from the start of mate0441, after its first two moves a mate in five is left.
    let (code, out, _) = cli(&["mate", "--sfen", MATE_IN_7, "--moves", "B*7b", "8a7a"]);
    assert_eq!(code, 0);
    let after = {
        let mut p = Position::from_sfen(MATE_IN_7).unwrap();
        for m in ["B*7b", "8a7a"] {
            let mv = p.parse_usi_move(m).unwrap();
            p.do_move(mv);
        }
        p.to_sfen()
    };
    assert_eq!(checked_line(&after, out.trim()).len(), 5, "{out}");
}

#[test]
fn cli_rejects_bad_input_with_status_2() {
    let _cpu = crate::common::shared();
    for args in [
        &["mate", "--sfen", "9/9/9 b - 1"][..],
        &["mate", "--sfen", MATE_IN_7, "--moves", "7g7f"],
        &["mate", "--sfen", MATE_IN_7, "--moves", "wibble"],
        &["mate", "--time-ms", "soon"],
    ] {
        let (code, out, err) = cli(args);
        assert_eq!(code, 2, "{args:?}: stdout {out}, stderr {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.contains("error"), "{args:?}: {err}");
    }
}

/// shogiarena's form: `go mate nodes N` is a node limit (it used to be refused as a bad number).
#[test]
fn go_mate_nodes_is_a_node_limit() {
    let _cpu = crate::common::shared();
    let mut e = Engine::start();
    e.handshake();
    e.send(&format!("position sfen {MATE_IN_7}"));
    e.send("go mate nodes 200000");
    let lines = e.until("checkmate", T);
    assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
    assert_eq!(checked_line(MATE_IN_7, lines.last().unwrap()).len(), 7, "{lines:?}");
    // A budget too small for the hard problem ends by itself with `timeout`, no `stop` needed.
    e.send(&format!("position sfen {HARD}"));
    e.send("go mate nodes 2000");
    let lines = e.until("checkmate", T);
    assert_eq!(lines.last().unwrap(), "checkmate timeout", "{lines:?}");
    let nodes: u64 = lines
        .iter()
        .find_map(|l| l.strip_prefix("info time ").and_then(|r| r.split_whitespace().nth(2)?.parse().ok()))
        .expect("an info line with nodes");
    assert!(nodes <= 2000 + 2000, "{nodes} nodes for a budget of 2000");
}

/// The last `score mate N` of a search's info lines with its PV, if the score is a mate for
/// the side to move.
fn last_mate(lines: &[String]) -> Option<(usize, Vec<String>)> {
    let line = lines.iter().rev().find(|l| l.contains(" score "))?;
    let words: Vec<&str> = line.split(' ').collect();
    let at = words.iter().position(|&w| w == "score")?;
    if words.get(at + 1) != Some(&"mate") {
        return None;
    }
    let n: i64 = words.get(at + 2)?.parse().ok()?;
    let pv = words.iter().position(|&w| w == "pv")?;
    (n > 0).then(|| (n as usize, words[pv + 1..].iter().map(|w| w.to_string()).collect()))
}

#[test]
fn go_on_a_tsume_position_reports_the_shortest_mate_as_go_mate_does() {
    let _cpu = crate::common::shared();
    // Every third mate problem of the public kingless corpus (YaneuraOu's mate lengths as
    // the independent bound), searched with `go` and with `go mate` by the same engine.
    let problems: Vec<serde_json::Value> = common::load_jsonl("kingless_mates_public.jsonl")
        .into_iter()
        .filter(|p| p["yo_answer"] == "mate")
        .step_by(3)
        .collect();
    assert!(problems.len() > 100, "{} problems", problems.len());
    let mut e = Engine::start();
    e.handshake();
    let mut reported = 0;
    for p in &problems {
        let sfen = p["sfen"].as_str().unwrap();
        e.send("usinewgame");
        e.send(&format!("position sfen {sfen}"));
        e.send("go nodes 100000");
        let lines = e.until("bestmove", T);
        e.send("go mate 10000");
        let answer = e.until("checkmate", T).pop().unwrap();
        let Some((n, pv)) = last_mate(&lines) else { continue };
        reported += 1;
        let shortest = checked_line(sfen, &answer).len();
        assert_eq!(n, shortest, "{sfen}: go reports mate {n}, go mate {answer}");
        assert_eq!(checked_line(sfen, &format!("checkmate {}", pv.join(" "))).len(), n, "{sfen}: pv {pv:?}");
        assert!(n as u64 <= p["yo_length"].as_u64().unwrap(), "{sfen}: mate {n}, YaneuraOu's {}", p["yo_length"]);
        assert_eq!(common::bestmove_of(lines.last().unwrap()).as_deref(), Some(pv[0].as_str()), "{sfen}");
    }
    // A few long problems may take more than the node budget; nearly all are found.
    assert!(reported * 100 >= problems.len() * 95, "{reported} of {} reported a mate", problems.len());
}
