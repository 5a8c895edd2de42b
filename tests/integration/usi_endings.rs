//! The engine and the ending rules over USI: declarations, perpetual check, repetition.

use crate::common;

use common::{Engine, bestmove_of};
use hayate::shogi::Position;
use hayate::shogi::rules::{JudgeOptions, Verdict, judge};
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

fn go(e: &mut Engine, position: &str, go: &str) -> String {
    e.send(position);
    e.send(go);
    e.until("bestmove", T).last().unwrap().clone()
}

#[test]
fn valid_declaration_answers_win_and_invalid_one_plays_on() {
    let _cpu = crate::common::shared();
    let mut e = Engine::start();
    e.handshake();
    // 28 points, 10 pieces in the zone, king on 5b: Black wins by declaring (CSA 27 rule).
    let win = "position sfen 3G1G3/3SKS3/+B+P+P1+P1+P1+R/9/9/9/9/9/4k4 b 10Prb2g2s4n4l4p 1";
    assert_eq!(go(&mut e, win, "go btime 1000 wtime 1000 byoyomi 1000"), "bestmove win");
    // The same for White.
    let white = "position sfen 4K4/9/9/9/9/9/r1+p1+p1+p+pb/3sks3/3g1g3 w RB2G2S4N4L5P9p 1";
    assert_eq!(go(&mut e, white, "go depth 3"), "bestmove win");
    // 27 points are one short for Black: the engine must play a move, not declare.
    let short = "position sfen 3G1G3/3SKS3/B+P+P1+P1+P1R/9/9/9/9/9/4k4 b 9Prb2g2s4n4l5p 1";
    let best = go(&mut e, short, "go depth 3");
    assert!(bestmove_of(&best).is_some(), "{best}");
    // Under the 24-point rule the first position is not enough either (28 < 31).
    e.send("setoption name EnteringKingRule value CSARule24");
    let best = go(&mut e, win, "go depth 3");
    assert!(bestmove_of(&best).is_some(), "{best}");
    // No declaration at all under NoEnteringKing.
    e.send("setoption name EnteringKingRule value NoEnteringKing");
    let best = go(&mut e, win, "go depth 3");
    assert!(bestmove_of(&best).is_some(), "{best}");
}

#[test]
fn try_rule_plays_the_try() {
    let _cpu = crate::common::shared();
    let mut e = Engine::start();
    e.handshake();
    e.send("setoption name EnteringKingRule value TryRule");
    let best = go(&mut e, "position sfen 9/4K4/9/9/9/9/9/9/k8 b - 1", "go depth 3");
    assert_eq!(best, "bestmove 5b5a");
}

#[test]
fn avoids_losing_by_perpetual_check() {
    let _cpu = crate::common::shared();
    // White king chased by a dragon; Black has checked on every move. Repeating the check
    // 8c9c now would make the position occur a fourth time: Black would lose.
    let start = "k8/9/+R8/9/9/9/9/9/8K w - 2";
    let cycle = ["9a8a", "9c8c", "8a9a", "8c9c", "9a8a", "9c8c", "8a9a", "8c9c", "9a8a", "9c8c", "8a9a"];
    let mut e = Engine::start();
    e.handshake();
    let best = go(&mut e, &format!("position sfen {start} moves {}", cycle.join(" ")), "go depth 8");
    let mv = bestmove_of(&best).expect("a move");
    assert_ne!(mv, "8c9c", "walked into a perpetual-check loss");
    let mut moves: Vec<String> = cycle.iter().map(|s| s.to_string()).collect();
    moves.push(mv);
    let v = judge(&Position::from_sfen(start).unwrap(), &moves, JudgeOptions::default()).unwrap();
    assert_ne!(v, Verdict::WinPerpetualCheck);
}

#[test]
fn takes_the_repetition_when_it_is_the_best_result() {
    let _cpu = crate::common::shared();
    // White is a rook and a bishop down. Both kings have shuffled so that White's 4b5a
    // repeats the start position for the fourth time: a draw, far better than playing on.
    let start = "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b RB 1";
    let shuffle = ["5i4h", "5a4b", "4h5i", "4b5a"];
    let mut moves: Vec<&str> = shuffle.iter().chain(shuffle.iter()).copied().collect();
    moves.extend(&shuffle[..3]);
    let mut e = Engine::start();
    e.handshake();
    let best = go(&mut e, &format!("position sfen {start} moves {}", moves.join(" ")), "go depth 6");
    assert_eq!(best.split_whitespace().nth(1), Some("4b5a"), "{best}");
    let mut all: Vec<String> = moves.iter().map(|s| s.to_string()).collect();
    all.push("4b5a".into());
    assert_eq!(
        judge(&Position::from_sfen(start).unwrap(), &all, JudgeOptions::default()).unwrap(),
        Verdict::DrawRepetition
    );
}

#[test]
fn winning_side_avoids_the_repetition() {
    let _cpu = crate::common::shared();
    // The mirror case: Black, a rook and a bishop up, could repeat the start position a fourth
    // time with 4h5i; it plays on instead.
    let start = "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w RB 1";
    let shuffle = ["5a4b", "5i4h", "4b5a", "4h5i"];
    let mut moves: Vec<&str> = shuffle.iter().chain(shuffle.iter()).copied().collect();
    moves.extend(&shuffle[..3]);
    let mut e = Engine::start();
    e.handshake();
    let best = go(&mut e, &format!("position sfen {start} moves {}", moves.join(" ")), "go depth 6");
    let mv = bestmove_of(&best).expect("a move");
    assert_ne!(mv, "4h5i", "{best}");
    let mut all: Vec<String> = moves.iter().map(|s| s.to_string()).collect();
    all.push(mv);
    assert_eq!(judge(&Position::from_sfen(start).unwrap(), &all, JudgeOptions::default()).unwrap(), Verdict::Ongoing);
}

#[test]
fn move_limit_is_a_draw_in_search() {
    let _cpu = crate::common::shared();
    // Down a rook and a bishop, White is glad to reach the move limit: with MaxMovesToDraw the
    // engine scores the position after its move as a draw (cp 0), not as the material deficit.
    let mut e = Engine::start();
    e.handshake();
    e.send("setoption name MaxMovesToDraw value 10");
    e.send("position sfen lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w RB 10");
    e.send("go depth 4");
    let lines = e.until("bestmove", T);
    let last_info = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    assert!(last_info.contains(" score cp 0 "), "{last_info}");
}
