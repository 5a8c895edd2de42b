//! The rules core against the reference corpora in tests/data (made with an independent
//! implementation, see tests/data/README.md): perft counts, exact legal move lists, and the
//! do/undo and key invariants along the way.

use crate::common::{load_jsonl as load, parallel};
use hayate::shogi::movegen::{self, MoveList, perft, perft_divide};
use hayate::shogi::{Move, Position};
use serde_json::Value;
use std::collections::BTreeSet;

fn legal_strings(pos: &Position) -> BTreeSet<String> {
    let mut list = MoveList::new();
    movegen::generate_legal(pos, &mut list);
    let set: BTreeSet<String> = list.iter().map(|m| m.to_string()).collect();
    assert_eq!(set.len(), list.len(), "duplicate moves in {}", pos.to_sfen());
    set
}

/// Plays every legal move and checks the invariants: legality accepted, incremental keys and
/// bitboards equal a recompute, undo restores the SFEN and key exactly.
fn check_do_undo(pos: &mut Position) -> Vec<String> {
    let mut errs = Vec::new();
    let sfen = pos.to_sfen();
    let key = pos.key();
    let mut list = MoveList::new();
    movegen::generate_legal(pos, &mut list);
    for &m in &list {
        if !pos.is_legal(m) {
            errs.push(format!("{sfen}: generated {m} but is_legal rejects it"));
        }
        let expect_key = pos.key_after(m);
        let gives_check = pos.gives_check(m);
        if pos.gives_check_with(&pos.check_info(), m) != gives_check {
            errs.push(format!("{sfen}: gives_check_with({m}) differs from gives_check"));
        }
        pos.do_move(m);
        if !pos.is_consistent() {
            errs.push(format!("{sfen}: inconsistent after {m}"));
        }
        if pos.key() != expect_key {
            errs.push(format!("{sfen}: key_after({m}) differs from the key after do_move"));
        }
        if pos.in_check() != gives_check {
            errs.push(format!("{sfen}: gives_check({m}) = {gives_check} but in_check = {}", pos.in_check()));
        }
        pos.undo_move(m);
        if pos.to_sfen() != sfen || pos.key() != key {
            errs.push(format!("{sfen}: undo of {m} does not restore the position"));
        }
    }
    errs
}

#[test]
fn random_positions_legal_moves_and_perft() {
    let _cpu = crate::common::shared();
    let records = load("random_positions_public.jsonl");
    assert_eq!(records.len(), 2000);
    let failures = parallel(&records, |r| {
        let sfen = r["sfen"].as_str().unwrap();
        let mut errs = Vec::new();
        let mut pos = match Position::from_sfen(sfen) {
            Ok(p) => p,
            Err(e) => return vec![format!("{sfen}: parse error {e}")],
        };
        if pos.to_sfen() != sfen {
            errs.push(format!("{sfen}: SFEN round trip gives {}", pos.to_sfen()));
        }
        if pos.in_check() != r["in_check"].as_bool().unwrap() {
            errs.push(format!("{sfen}: in_check differs"));
        }
        let expected: BTreeSet<String> =
            r["legal_moves"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
        let got = legal_strings(&pos);
        if got != expected {
            let missing: Vec<_> = expected.difference(&got).collect();
            let extra: Vec<_> = got.difference(&expected).collect();
            errs.push(format!("{sfen}: legal moves differ: missing {missing:?}, extra {extra:?}"));
        }
        for (d, field) in [(2, "perft2"), (3, "perft3"), (4, "perft4")] {
            let Some(want) = r.get(field).and_then(Value::as_u64) else {
                continue;
            };
            if d == 4 && want > 2_000_000 {
                continue; // keep the suite short; the deep counts are covered by perft_known
            }
            let n = perft(&mut pos, d);
            if n != want {
                errs.push(format!("{sfen}: perft({d}) = {n}, expected {want}"));
            }
        }
        errs.extend(check_do_undo(&mut pos));
        errs
    });
    let failures = failures.concat();
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// Perft counts up to this many leaves run in `cargo test --release` (about 30 s each at the
/// measured speed; the whole set runs on every core).
const PERFT_LIMIT: u64 = 3_000_000_000;

#[test]
fn perft_known_counts() {
    let _cpu = crate::common::shared();
    let records = load("perft_known.jsonl");
    assert_eq!(records.len(), 60);
    // One job per (position, depth), biggest first so the cores finish together.
    let mut jobs: Vec<(String, String, u32, u64)> = Vec::new();
    for r in &records {
        let name = r["name"].as_str().unwrap().to_string();
        let sfen = r["sfen"].as_str().unwrap().to_string();
        for (d, v) in r["perft"].as_object().unwrap() {
            let want = v.as_u64().unwrap();
            if want <= PERFT_LIMIT {
                jobs.push((name.clone(), sfen.clone(), d.parse().unwrap(), want));
            }
        }
    }
    jobs.sort_by_key(|j| std::cmp::Reverse(j.3));
    let failures = parallel(&jobs, |(name, sfen, d, want)| {
        let mut pos = Position::from_sfen(sfen).unwrap();
        let n = perft(&mut pos, *d);
        if n == *want { vec![] } else { vec![format!("{name} ({sfen}): perft({d}) = {n}, expected {want}")] }
    });
    let failures = failures.concat();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn perft_known_divide_and_move_lists() {
    let _cpu = crate::common::shared();
    let records = load("perft_known.jsonl");
    let mut failures = Vec::new();
    for r in &records {
        let name = r["name"].as_str().unwrap();
        let sfen = r["sfen"].as_str().unwrap();
        let mut pos = Position::from_sfen(sfen).unwrap();
        assert_eq!(pos.in_check(), r["in_check"].as_bool().unwrap(), "{name}");
        let legal = legal_strings(&pos);
        if let Some(list) = r.get("legal_moves").and_then(Value::as_array) {
            let want: BTreeSet<String> = list.iter().map(|v| v.as_str().unwrap().to_string()).collect();
            if want != legal {
                failures.push(format!("{name} ({sfen}): legal move list differs"));
            }
        }
        for m in r.get("must_include").and_then(Value::as_array).into_iter().flatten() {
            if !legal.contains(m.as_str().unwrap()) {
                failures.push(format!("{name} ({sfen}): {m} must be legal"));
            }
        }
        for m in r.get("must_exclude").and_then(Value::as_array).into_iter().flatten() {
            let m = m.as_str().unwrap();
            if legal.contains(m) || pos.parse_usi_move(m).is_ok() {
                failures.push(format!("{name} ({sfen}): {m} must be illegal"));
            }
        }
        let (Some(depth), Some(divide)) =
            (r.get("divide_depth").and_then(Value::as_u64), r.get("divide").and_then(Value::as_object))
        else {
            continue;
        };
        let want_total: u64 = divide.values().map(|v| v.as_u64().unwrap()).sum();
        if want_total > 50_000_000 {
            continue;
        }
        let got: Vec<(Move, u64)> = perft_divide(&mut pos, depth as u32);
        let got: std::collections::BTreeMap<String, u64> = got.into_iter().map(|(m, n)| (m.to_string(), n)).collect();
        let want: std::collections::BTreeMap<String, u64> =
            divide.iter().map(|(k, v)| (k.clone(), v.as_u64().unwrap())).collect();
        if got != want {
            failures.push(format!("{name} ({sfen}): divide({depth}) differs"));
        }
        failures.extend(check_do_undo(&mut pos));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Random walks: after every move the incremental state equals a recompute, including long
/// games full of captures and drops.
#[test]
fn random_walks_keep_invariants() {
    let _cpu = crate::common::shared();
    let mut rng: u64 = 0x1234_5678_9abc_def1;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for game in 0..200 {
        let mut pos = Position::startpos();
        let mut played = Vec::new();
        for _ in 0..300 {
            let mut list = MoveList::new();
            movegen::generate_legal(&pos, &mut list);
            if list.is_empty() {
                break;
            }
            // Prefer captures and drops so hands fill up.
            let caps: Vec<Move> =
                list.iter().copied().filter(|m| m.is_drop() || !pos.piece_on(m.to()).is_empty()).collect();
            let m = if !caps.is_empty() && next() % 3 != 0 {
                caps[(next() % caps.len() as u64) as usize]
            } else {
                list[(next() % list.len() as u64) as usize]
            };
            pos.do_move(m);
            played.push(m);
            assert!(pos.is_consistent(), "game {game}: inconsistent after {played:?}");
            let reparsed = Position::from_sfen(&pos.to_sfen()).expect("own SFEN parses");
            assert_eq!(reparsed.key(), pos.key(), "game {game}: key differs from a fresh parse");
        }
        while let Some(m) = played.pop() {
            pos.undo_move(m);
        }
        assert_eq!(pos.to_sfen(), Position::startpos().to_sfen());
    }
}
