//! Move generation invariants along fuzzer-chosen walks. The first two bytes pick a start
//! position (the initial one or one of tests/data/random_positions_public.jsonl); then every
//! two bytes are a 16-bit move code: `is_legal` must accept it exactly when the generator
//! lists it; a legal code is played, any other picks a generated move by its value. After
//! every move the position must be consistent (incremental keys = recompute), and undoing
//! the walk must restore every SFEN and key.
#![no_main]

use hayate::shogi::{Move, MoveList, Position, generate_legal};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn corpus() -> &'static [String] {
    static SFENS: OnceLock<Vec<String>> = OnceLock::new();
    SFENS.get_or_init(|| {
        include_str!("../../tests/data/random_positions_public.jsonl")
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v["sfen"].as_str().map(String::from))
            .collect()
    })
}

/// Walks stay short so that a run of a million inputs takes minutes, not hours; the start
/// positions (ply 1 to 300 of real and random games) supply the variety of deep positions.
const MAX_PLIES: usize = 32;

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let pick = u16::from_le_bytes([data[0], data[1]]) as usize;
    let c = corpus();
    let mut pos = if pick % 8 == 0 { Position::startpos() } else { Position::from_sfen(&c[pick % c.len()]).unwrap() };
    let mut trail: Vec<(Move, String, u64)> = Vec::new();
    for pair in data[2..].chunks_exact(2).take(MAX_PLIES) {
        let code = u16::from_le_bytes([pair[0], pair[1]]);
        let mut list = MoveList::new();
        generate_legal(&pos, &mut list);
        let listed = |m: Move| list.iter().any(|&x| x == m);
        for &m in list.iter() {
            assert!(pos.is_legal(m), "generated {m} rejected in {}", pos.to_sfen());
        }
        let coded = Move::from_raw(code);
        if let Some(m) = coded {
            assert_eq!(pos.is_legal(m), listed(m), "{m} in {}", pos.to_sfen());
        }
        if list.is_empty() {
            break;
        }
        let m = match coded {
            Some(m) if listed(m) => m,
            _ => list[code as usize % list.len()],
        };
        let sfen = pos.to_sfen();
        let key = pos.key();
        let expect = pos.key_after(m);
        let check = pos.gives_check(m);
        pos.do_move(m);
        assert!(pos.is_consistent(), "after {m} from {sfen}");
        assert_eq!(pos.key(), expect);
        assert_eq!(pos.in_check(), check);
        trail.push((m, sfen, key));
    }
    while let Some((m, sfen, key)) = trail.pop() {
        pos.undo_move(m);
        assert_eq!(pos.to_sfen(), sfen);
        assert_eq!(pos.key(), key);
    }
});
