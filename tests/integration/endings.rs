//! Game endings against the reference corpus (tests/data/endings_public.jsonl), through the
//! same `judge` function as `hayate judge`, plus the CLI itself and the other impasse rules.

use hayate::shogi::Position;
use hayate::shogi::rules::{Declaration, EnteringKingRule, JudgeOptions, Verdict, judge};
use serde_json::Value;
use std::process::Command;

fn records() -> Vec<Value> {
    let path = format!("{}/tests/data/endings_public.jsonl", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn moves_of(r: &Value) -> Vec<String> {
    r["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect()
}

/// The record's position after its moves.
fn final_position(r: &Value) -> Position {
    let mut p = Position::from_sfen(r["start_sfen"].as_str().unwrap()).unwrap();
    for m in moves_of(r) {
        let mv = p.parse_usi_move(&m).unwrap();
        p.do_move(mv);
    }
    p
}

fn verdict(r: &Value, rule: EnteringKingRule) -> Verdict {
    let start = Position::from_sfen(r["start_sfen"].as_str().unwrap()).unwrap();
    let declare = r["category"] == "declaration";
    judge(&start, &moves_of(r), JudgeOptions { rule, max_moves: 0, declare }).unwrap()
}

#[test]
fn every_public_ending_gets_the_expected_word() {
    let _cpu = crate::common::shared();
    let recs = records();
    assert_eq!(recs.len(), 112);
    let mut failures = Vec::new();
    for r in &recs {
        let v = verdict(r, EnteringKingRule::CSARule27);
        let want = r["expected"].as_str().unwrap();
        if v.word() != want {
            failures.push(format!("{} ({}): got {} want {want}", r["id"], r["name"], v.word()));
        }
        if let (Verdict::IllegalMove { ply, .. }, Some(idx)) = (&v, r.get("illegal_index").and_then(Value::as_u64))
            && *ply as u64 != idx
        {
            failures.push(format!("{}: illegal at ply {ply}, expected {idx}", r["id"]));
        }
        // The final position agrees with the reference.
        if let Some(fs) = r.get("final_sfen").and_then(Value::as_str) {
            let p = final_position(r);
            let board = |s: &str| s.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
            if board(&p.to_sfen()) != board(fs) {
                failures.push(format!("{}: final position {} differs from {fs}", r["id"], p.to_sfen()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn declaration_counts_match_the_reference() {
    let _cpu = crate::common::shared();
    for r in records().iter().filter(|r| r["category"] == "declaration") {
        let p = final_position(r);
        let c = p.impasse_count(p.side_to_move());
        assert_eq!(c.king_in_zone, r["king_in_zone"].as_bool().unwrap(), "{}", r["id"]);
        assert_eq!(c.pieces_in_zone as u64, r["pieces_in_zone"].as_u64().unwrap(), "{}", r["id"]);
        assert_eq!(c.points as u64, r["declaration_points"].as_u64().unwrap(), "{}", r["id"]);
    }
}

/// The 24-point rules against the reference's `law24_result` (win >= 31, draw 24..30).
#[test]
fn twenty_four_point_rules() {
    let _cpu = crate::common::shared();
    let mut checked = 0;
    for r in records().iter().filter(|r| r["category"] == "declaration") {
        let p = final_position(r);
        let law24 = r["law24_result"].as_str().unwrap();
        let (plain, h) = match law24 {
            "win" => (Declaration::Win, Declaration::Win),
            "draw" => (Declaration::Invalid, Declaration::Draw),
            _ => (Declaration::Invalid, Declaration::Invalid),
        };
        assert_eq!(p.declaration(EnteringKingRule::CSARule24), plain, "{} CSARule24", r["id"]);
        assert_eq!(p.declaration(EnteringKingRule::CSARule24H), h, "{} CSARule24H", r["id"]);
        assert_eq!(p.declaration(EnteringKingRule::NoEnteringKing), Declaration::Invalid);
        checked += 1;
    }
    assert_eq!(checked, 16);
}

#[test]
fn twenty_seven_h_draws_below_the_win_threshold() {
    let _cpu = crate::common::shared();
    // Black: king on 5b, 10 pieces in the zone, 27 points (one short of a win).
    let sfen = "3G1G3/3SKS3/B+P+P1+P1+P1R/9/9/9/9/9/4k4 b 9Prb2g2s4n4l5p 1";
    let p = Position::from_sfen(sfen).unwrap();
    assert_eq!(p.impasse_count(p.side_to_move()).points, 27);
    assert_eq!(p.declaration(EnteringKingRule::CSARule27), Declaration::Invalid);
    assert_eq!(p.declaration(EnteringKingRule::CSARule27H), Declaration::Draw);
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hayate")).arg("judge").args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn judge_cli_words_and_errors() {
    let _cpu = crate::common::shared();
    let (rc, out, _) = cli(&["--sfen", "7lk/9/8S/9/9/9/9/7L1/8K b P 1", "--moves", "P*1b"]);
    assert_eq!(rc, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines, ["ply 0: P*1b: pawn drop mate", "illegal_move"]);

    let shuffle = "2h3h 8b7b 3h2h 7b8b ".repeat(3);
    let mut args = vec!["--startpos", "--moves"];
    args.extend(shuffle.split_whitespace());
    let (rc, out, _) = cli(&args);
    assert_eq!((rc, out.lines().last()), (0, Some("draw_repetition")));

    let (rc, out, _) = cli(&["--moves", "2h3h", "8b7b", "3h2h", "--max-moves", "3"]);
    assert_eq!((rc, out.lines().last()), (0, Some("draw_max_moves")));

    let (rc, out, _) = cli(&["--sfen", "9/4K4/9/9/9/9/9/9/k8 b - 1", "--declare", "--rule", "TryRule"]);
    assert_eq!((rc, out.lines().last()), (0, Some("win_declaration_for_side_to_move")));

    let (rc, out, _) = cli(&["--declare"]);
    assert_eq!((rc, out.lines().last()), (0, Some("loss_invalid_declaration_for_side_to_move")));

    for bad in [
        vec!["--sfen", "not an sfen"],
        vec!["--moves", "7g7f", "zz"],
        vec!["--rule", "CSARule99"],
        vec!["--max-moves", "-1"],
    ] {
        let (rc, out, err) = cli(&bad);
        assert_eq!(rc, 2, "{bad:?}: {out} {err}");
        assert!(!err.is_empty(), "{bad:?}");
        assert!(!err.contains("panicked"), "{bad:?}: {err}");
    }
}
