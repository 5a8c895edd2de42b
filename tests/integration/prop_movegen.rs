//! Property tests of the rules core along random legal-move walks (from the start position and
//! from the positions of tests/data/random_positions_public.jsonl): do/undo restores
//! everything, the incremental key equals a recompute, the attackers of both colours on each
//! square equal the two one-colour lookups, the quiet checks are the quiet moves that give
//! check, every generated move passes `is_legal`, and `is_legal` accepts no other move code,
//! among random 16- and 32-bit codes and, every few plies, among all 65536.

use hayate::shogi::{Color, Move, MoveList, Position, Square, generate_legal, movegen};
use proptest::prelude::*;
use std::collections::HashSet;
use std::sync::OnceLock;

fn corpus() -> &'static [String] {
    static SFENS: OnceLock<Vec<String>> = OnceLock::new();
    SFENS.get_or_init(|| {
        let path = format!("{}/tests/data/random_positions_public.jsonl", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        text.lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v["sfen"].as_str().map(String::from))
            .collect()
    })
}

fn start(index: usize) -> Position {
    let c = corpus();
    // One walk in four starts from the initial position.
    if index.is_multiple_of(4) { Position::startpos() } else { Position::from_sfen(&c[index % c.len()]).unwrap() }
}

/// A 32-bit code names a move only when it fits in 16 bits.
fn move_of_u32(code: u32) -> Option<Move> {
    u16::try_from(code).ok().and_then(Move::from_raw)
}

fn check_codes(
    pos: &Position,
    legal: &HashSet<u16>,
    codes: impl Iterator<Item = Option<Move>>,
) -> Result<(), TestCaseError> {
    for m in codes.flatten() {
        prop_assert_eq!(pos.is_legal(m), legal.contains(&m.raw()), "{} in {}", m, pos.to_sfen());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_walks_keep_the_invariants(
        origin in any::<usize>(),
        choices in prop::collection::vec(any::<u16>(), 1..160),
        codes16 in prop::collection::vec(any::<u16>(), 64),
        codes32 in prop::collection::vec(any::<u32>(), 64),
    ) {
        let _cpu = crate::common::shared();
        let mut pos = start(origin);
        let mut trail: Vec<(Move, String, u64)> = Vec::new();
        for (ply, &choice) in choices.iter().enumerate() {
            prop_assert!(pos.is_consistent(), "{}", pos.to_sfen());
            let mut list = MoveList::new();
            generate_legal(&pos, &mut list);
            let legal: HashSet<u16> = list.iter().map(|m| m.raw()).collect();
            prop_assert_eq!(legal.len(), list.len(), "a move generated twice in {}", pos.to_sfen());
            for &m in list.iter() {
                prop_assert!(pos.is_legal(m), "generated {} rejected in {}", m, pos.to_sfen());
                prop_assert_eq!(Move::from_raw(m.raw()), Some(m));
            }
            // Random codes, and codes next to the legal ones (one bit away), which are the
            // likeliest to slip through a shape check.
            check_codes(&pos, &legal, codes16.iter().map(|&c| Move::from_raw(c ^ choice)))?;
            check_codes(&pos, &legal, codes32.iter().map(|&c| move_of_u32(c ^ u32::from(choice))))?;
            check_codes(&pos, &legal, list.iter().map(|m| Move::from_raw(m.raw() ^ (1 << (choice % 16)))))?;
            if ply % 16 == 0 {
                check_codes(&pos, &legal, (0..=u16::MAX).map(Move::from_raw))?;
            }
            if !pos.in_check() {
                // QUIET_CHECKS: exactly the QUIETS moves that give check, in their order.
                let (mut quiets, mut checks) = (MoveList::new(), MoveList::new());
                movegen::generate::<{ movegen::QUIETS }>(&pos, &mut quiets);
                movegen::generate::<{ movegen::QUIET_CHECKS }>(&pos, &mut checks);
                let want: Vec<Move> = quiets.iter().copied().filter(|&m| pos.gives_check(m)).collect();
                prop_assert_eq!(checks.as_slice(), want.as_slice(), "{}", pos.to_sfen());
            }
            if ply % 8 == 0 {
                // Both colours' attackers at once equal the two one-colour lookups.
                let occ = pos.occupied();
                for sq in (0..81).map(Square::new) {
                    let each = pos.attackers_to_with(Color::Black, sq, occ) | pos.attackers_to_with(Color::White, sq, occ);
                    prop_assert_eq!(pos.attackers_to_both(sq, occ), each, "{} in {}", sq, pos.to_sfen());
                }
                let f = pos.flipped();
                prop_assert!(f.is_consistent());
                prop_assert_eq!(f.flipped().to_sfen(), pos.to_sfen());
                let mut fl = MoveList::new();
                generate_legal(&f, &mut fl);
                prop_assert_eq!(fl.len(), list.len());
            }
            if list.is_empty() {
                break;
            }
            let m = list[choice as usize % list.len()];
            let sfen = pos.to_sfen();
            let key = pos.key();
            let expect_key = pos.key_after(m);
            let gives_check = pos.gives_check(m);
            pos.do_move(m);
            prop_assert!(pos.is_consistent(), "after {} from {}", m, sfen);
            prop_assert_eq!(pos.key(), expect_key, "key_after({}) in {}", m, sfen);
            prop_assert_eq!(pos.key(), pos.compute_board_key() ^ pos.compute_hand_key());
            prop_assert_eq!(pos.in_check(), gives_check, "gives_check({}) in {}", m, sfen);
            // A position reached by moves reads back from its SFEN with the same key.
            let again = Position::from_sfen(&pos.to_sfen()).unwrap();
            prop_assert_eq!(again.key(), pos.key());
            trail.push((m, sfen, key));
        }
        // Undo everything: each step restores the SFEN and the key exactly.
        while let Some((m, sfen, key)) = trail.pop() {
            pos.undo_move(m);
            prop_assert_eq!(pos.to_sfen(), sfen);
            prop_assert_eq!(pos.key(), key);
            prop_assert!(pos.is_consistent());
        }
    }
}
