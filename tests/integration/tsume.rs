//! Tsume positions: the attacker (or either side) without a king. The rules core against
//! reference move lists and perft counts (tests/data/kingless_legal_moves.jsonl, made with
//! cshogi and confirmed by rsshogi; see tests/data/README.md), and the mate solver against
//! YaneuraOu's answers on the public kingless problems (tests/data/kingless_mates_public.jsonl).

use crate::common::{load_jsonl as load, parallel};
use hayate::mate::{MateAnswer, MateLimits, MateSolver, generate_checks, mate_in_one, verify_mate_line};
use hayate::shogi::movegen::{self, CAPTURES, EVASIONS, MoveList, QUIET_CHECKS, QUIETS};
use hayate::shogi::{Color, Move, Position, perft};
use serde_json::Value;
use std::collections::HashSet;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Mates the reference finds within this many plies must be found, no longer than its line.
const REQUIRED_PLIES: u64 = 13;
/// Node budget per problem. The costliest public problem with a mate within 13 plies needs
/// well under a tenth of it; a solved problem stops early anyway.
const PROBLEM_NODES: u64 = 3_000_000;
/// Node budget per problem the reference calls `nomate` (`timeout` is a right answer there;
/// `nomate` comes early for most of them).
const NULL_PROBLEM_NODES: u64 = 300_000;
/// Table size per solver thread (MiB).
const TEST_HASH_MIB: usize = 16;
/// Plies of the random walks from the kingless reference positions.
const WALK_PLIES: usize = 24;

fn legal_moves(pos: &Position) -> MoveList {
    let mut list = MoveList::new();
    movegen::generate_legal(pos, &mut list);
    list
}

fn sorted_names(list: &[Move]) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|m| m.to_string()).collect();
    v.sort();
    v
}

fn kingless_side(pos: &Position) -> Option<Color> {
    Color::ALL.into_iter().find(|&c| !pos.has_king(c))
}

/// Everything the rules core derives from one position, against itself: generated moves are
/// exactly the codes `is_legal` accepts, the search stages partition them, `gives_check` (both
/// forms) matches what `do_move` finds, `generate_checks` is the legal checks, `mate_in_one`
/// agrees with brute force, and the flipped position has as many moves.
fn check_position(pos: &mut Position) -> Result<(), String> {
    let sfen = pos.to_sfen();
    let err = |what: String| format!("{sfen}: {what}");
    if !pos.is_consistent() {
        return Err(err("inconsistent".into()));
    }
    let list = legal_moves(pos);
    let mut generated: Vec<u16> = list.iter().map(|m| m.raw()).collect();
    generated.sort();
    let accepted: Vec<u16> =
        (0..=u16::MAX).filter_map(Move::from_raw).filter(|&m| pos.is_legal(m)).map(|m| m.raw()).collect();
    if generated != accepted {
        return Err(err(format!("{} generated, {} accepted by is_legal", generated.len(), accepted.len())));
    }
    // Search stages: captures + quiets (or evasions) cover the moves once, less the
    // never-better non-promotions; quiet checks are the checking non-captures.
    let mut staged = MoveList::new();
    if pos.in_check() {
        movegen::generate::<EVASIONS>(pos, &mut staged);
    } else {
        movegen::generate::<CAPTURES>(pos, &mut staged);
        movegen::generate::<QUIETS>(pos, &mut staged);
    }
    let staged_set: HashSet<u16> = staged.iter().map(|m| m.raw()).collect();
    if staged_set.len() != staged.len() {
        return Err(err("a move generated twice by the stages".into()));
    }
    for m in &list {
        if !staged_set.contains(&m.raw())
            && (m.is_drop() || m.is_promotion() || !list.contains(&Move::normal(m.from(), m.to(), true)))
        {
            return Err(err(format!("{m} missing from the stages")));
        }
    }
    if staged.iter().any(|m| !list.contains(m)) {
        return Err(err("a staged move is not legal".into()));
    }
    let ci = pos.check_info();
    let mut want_checks = Vec::new();
    let mut mates = Vec::new();
    for &m in &list {
        let (gc, gcw) = (pos.gives_check(m), pos.gives_check_with(&ci, m));
        pos.do_move(m);
        let (checks, mated) = (pos.in_check(), pos.is_checkmate());
        pos.undo_move(m);
        if gc != checks || gcw != checks {
            return Err(err(format!("{m}: gives_check {gc}, with check info {gcw}, in check after it {checks}")));
        }
        if checks {
            want_checks.push(m.raw());
        }
        if mated {
            mates.push(m);
        }
    }
    if !pos.in_check() {
        let mut quiet_checks = MoveList::new();
        movegen::generate::<QUIET_CHECKS>(pos, &mut quiet_checks);
        if let Some(m) =
            quiet_checks.iter().find(|&&m| !want_checks.contains(&m.raw()) || !pos.piece_on(m.to()).is_empty())
        {
            return Err(err(format!("{m} is no quiet check")));
        }
    }
    let mut checks = MoveList::new();
    generate_checks(pos, &mut checks);
    let mut got_checks: Vec<u16> = checks.iter().map(|m| m.raw()).collect();
    got_checks.sort();
    want_checks.sort();
    if got_checks != want_checks {
        return Err(err(format!(
            "generate_checks gives {} moves, {} legal checks",
            got_checks.len(),
            want_checks.len()
        )));
    }
    match mate_in_one(pos) {
        None if mates.is_empty() => {}
        Some(m) if mates.contains(&m) => {}
        got => return Err(err(format!("mate_in_one {got:?}, mates {:?}", sorted_names(&mates)))),
    }
    let flipped = pos.flipped();
    if !flipped.is_consistent() || legal_moves(&flipped).len() != list.len() || flipped.flipped().to_sfen() != sfen {
        return Err(err("the flipped position differs".into()));
    }
    Ok(())
}

/// A small deterministic generator for the random walks.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn kingless_positions_match_the_reference_moves_and_perft() {
    let _cpu = crate::common::shared();
    let records = load("kingless_legal_moves.jsonl");
    assert!(records.len() >= 250);
    let (mut black, mut white, mut in_check, mut perft3) = (0, 0, 0, 0);
    for r in &records {
        let sfen = r["sfen"].as_str().unwrap();
        let mut pos = Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
        let kingless = kingless_side(&pos);
        let expected = if r["kingless"] == "black" { Color::Black } else { Color::White };
        assert_eq!(kingless, Some(expected), "{sfen}");
        assert!(pos.has_king(!expected) && pos.king_square_opt(expected).is_none(), "{sfen}");
        if kingless == Some(pos.side_to_move()) {
            assert!(!pos.in_check(), "{sfen}");
        }
        assert_eq!(pos.in_check(), r["in_check"].as_bool().unwrap(), "{sfen}");
        let want: Vec<String> =
            r["legal_moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().into()).collect();
        assert_eq!(sorted_names(&legal_moves(&pos)), want, "{sfen}");
        assert_eq!(perft(&mut pos, 2), r["perft2"].as_u64().unwrap(), "{sfen} perft 2");
        if let Some(n) = r["perft3"].as_u64() {
            assert_eq!(perft(&mut pos, 3), n, "{sfen} perft 3");
            perft3 += 1;
        }
        // The rules' other answers for a side without a king: no declaration, no try.
        for rule in hayate::shogi::EnteringKingRule::ALL {
            if kingless == Some(pos.side_to_move()) {
                assert!(!pos.can_declare_win(rule), "{sfen}");
                assert_eq!(pos.declaration(rule), hayate::shogi::Declaration::Invalid, "{sfen}");
            }
        }
        if kingless == Some(pos.side_to_move()) {
            assert_eq!(pos.try_move(), None, "{sfen}");
        }
        check_position(&mut pos).unwrap_or_else(|e| panic!("{e}"));
        black += (expected == Color::Black) as u32;
        white += (expected == Color::White) as u32;
        in_check += pos.in_check() as u32;
    }
    assert!(black > 50 && white > 50 && in_check > 50 && perft3 > 200, "{black} {white} {in_check} {perft3}");
}

/// Deeper counts on small kingless positions of both colours (cshogi 1.1.0, confirmed by
/// rsshogi 1.7.0; computed when the data file was made).
#[test]
fn kingless_perft() {
    let _cpu = crate::common::shared();
    for (sfen, counts) in [
        ("4r4/9/9/9/4R4/9/9/9/4K4 w - 1", &[12u64, 217, 4049, 77_462][..]),
        ("8k/9/9/9/4r4/9/4B4/9/4L4 b - 1", &[15, 300, 5379, 130_076]),
        ("4R2sk/9/7G1/9/9/9/9/9/9 b P 1", &[106, 56, 5519, 63_833]),
        ("9/9/9/9/9/9/1g7/9/KS2r4 w p 1", &[106, 56, 5519, 63_833]),
        ("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1", &[81, 38_080, 271_077, 97_556_964]),
    ] {
        let mut pos = Position::from_sfen(sfen).unwrap();
        for (depth, &n) in counts.iter().enumerate() {
            assert_eq!(perft(&mut pos, depth as u32 + 1), n, "{sfen} depth {}", depth + 1);
        }
    }
}

/// Random walks from the kingless reference positions: every position on the way passes
/// `check_position`, do/undo restores SFEN and key, keys match a recompute.
#[test]
fn random_walks_from_kingless_positions_keep_the_invariants() {
    let _cpu = crate::common::shared();
    let sfens: Vec<String> =
        load("kingless_legal_moves.jsonl").iter().map(|r| r["sfen"].as_str().unwrap().to_string()).collect();
    let errors = parallel(&sfens, |sfen| {
        let mut pos = Position::from_sfen(sfen).unwrap();
        let seed = sfen.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
        let mut rng = XorShift(seed | 1);
        let mut trail = Vec::new();
        for _ in 0..WALK_PLIES {
            check_position(&mut pos)?;
            let list = legal_moves(&pos);
            if list.is_empty() {
                break;
            }
            let m = list[(rng.next() % list.len() as u64) as usize];
            let (before, key, key_after) = (pos.to_sfen(), pos.key(), pos.key_after(m));
            pos.do_move(m);
            if pos.key() != key_after || pos.key() != pos.compute_board_key() ^ pos.compute_hand_key() {
                return Err(format!("{before}: keys after {m}"));
            }
            let again = Position::from_sfen(&pos.to_sfen()).map_err(|e| format!("{before} {m}: {e}"))?;
            if again.key() != pos.key() {
                return Err(format!("{before} {m}: the SFEN reads back differently"));
            }
            trail.push((m, before, key));
        }
        while let Some((m, sfen, key)) = trail.pop() {
            pos.undo_move(m);
            if pos.to_sfen() != sfen || pos.key() != key || !pos.is_consistent() {
                return Err(format!("{sfen}: undo of {m}"));
            }
        }
        Ok(())
    });
    let errs: Vec<&String> = errors.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(errs.is_empty(), "{} failures: {errs:#?}", errs.len());
}

struct Solved {
    id: String,
    reference: Option<u64>,
    answer: MateAnswer,
    shortest: bool,
    nodes: u64,
    time: Duration,
    error: Option<String>,
}

fn solve_problem(p: &Value) -> Solved {
    let id = p["id"].as_str().unwrap().to_string();
    let sfen = p["sfen"].as_str().unwrap();
    let reference = match p["yo_answer"].as_str() {
        Some("mate") => Some(p["yo_length"].as_u64().unwrap()),
        Some("nomate") => None,
        other => panic!("{id}: reference answer {other:?}"),
    };
    let pos = Position::from_sfen(sfen).unwrap();
    assert!(!pos.has_king(pos.side_to_move()), "{id}: the attacker has a king");
    let mut solver = MateSolver::new(TEST_HASH_MIB).unwrap();
    let nodes = if reference.is_some() { PROBLEM_NODES } else { NULL_PROBLEM_NODES };
    let limits = MateLimits { nodes: Some(nodes), ..MateLimits::default() };
    let start = Instant::now();
    let r = solver.solve(&pos, &limits, &AtomicBool::new(false));
    let time = start.elapsed();
    let usi = r.answer.to_usi();
    let standard = usi == "checkmate nomate"
        || usi == "checkmate timeout"
        || (matches!(r.answer, MateAnswer::Mate(_)) && usi.starts_with("checkmate ") && !usi.contains("none"));
    let error = match (&r.answer, reference) {
        _ if !standard => Some("not a standard reply".to_string()),
        (MateAnswer::Mate(line), Some(n)) => verify_mate_line(&pos, line).err().or_else(|| {
            (r.shortest && line.len() as u64 > n)
                .then(|| format!("a \"shortest\" line of {} plies, the reference mates in {n}", line.len()))
                .or_else(|| {
                    (n <= REQUIRED_PLIES && line.len() as u64 > n)
                        .then(|| format!("line of {} plies, the reference mates in {n}", line.len()))
                })
        }),
        (MateAnswer::Mate(line), None) => Some(format!("mate in {} where the reference finds none", line.len())),
        (MateAnswer::NoMate, Some(n)) => Some(format!("nomate, but the reference mates in {n}")),
        (MateAnswer::Timeout, Some(n)) if n <= REQUIRED_PLIES => Some("not solved within the node budget".to_string()),
        _ => None,
    };
    let error = error.map(|e| format!("{id} ({sfen}): {e}; answer {usi}"));
    Solved { id, reference, answer: r.answer, shortest: r.shortest, nodes: r.nodes, time, error }
}

#[test]
fn solves_the_kingless_mate_problems() {
    let _cpu = crate::common::shared();
    let problems = load("kingless_mates_public.jsonl");
    assert_eq!(problems.len(), 477);
    let start = Instant::now();
    let results = parallel(&problems, solve_problem);
    let wall = start.elapsed();
    let required = |r: &&Solved| r.reference.is_some_and(|n| n <= REQUIRED_PLIES);
    let within = results.iter().filter(required).count();
    let solved = results.iter().filter(required).filter(|r| r.error.is_none()).count();
    let shorter = results
        .iter()
        .filter(|r| matches!(&r.answer, MateAnswer::Mate(l) if r.reference.is_some_and(|n| (l.len() as u64) < n)))
        .count();
    let longer: Vec<&Solved> = results.iter().filter(|r| r.reference.is_some_and(|n| n > REQUIRED_PLIES)).collect();
    let longer_solved = longer.iter().filter(|r| matches!(r.answer, MateAnswer::Mate(_))).count();
    let nulls = results.iter().filter(|r| r.reference.is_none()).count();
    let nomate = results.iter().filter(|r| r.reference.is_none() && r.answer == MateAnswer::NoMate).count();
    let max = results.iter().max_by_key(|r| r.nodes).unwrap();
    println!(
        "kingless problems: {solved}/{within} mates within {REQUIRED_PLIES} plies solved, {shorter} lines shorter than \
         the reference's, {} proven shortest; longer mates: {longer_solved}/{} solved; reference nomate: {nomate}/{nulls} \
         nomate, the rest timeout; wall {wall:?}; most nodes {} ({}, {:?})",
        results.iter().filter(|r| r.shortest).count(),
        longer.len(),
        max.nodes,
        max.id,
        max.time
    );
    // HAYATE_MATE_VERBOSE=1 lists the 20 costliest problems.
    if std::env::var("HAYATE_MATE_VERBOSE").is_ok() {
        let mut v: Vec<&Solved> = results.iter().collect();
        v.sort_by_key(|r| std::cmp::Reverse(r.nodes));
        for r in v.iter().take(20) {
            let (id, reference, nodes, time, shortest) = (&r.id, r.reference, r.nodes, r.time, r.shortest);
            println!(
                "{id} reference {reference:?} nodes {nodes} time {time:?} shortest {shortest} {}",
                r.answer.to_usi()
            );
        }
    }
    let errs: Vec<&String> = results.iter().filter_map(|r| r.error.as_ref()).collect();
    assert!(errs.is_empty(), "{} failures: {errs:#?}", errs.len());
    assert_eq!(solved, within);
}
