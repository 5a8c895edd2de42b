//! Mate search against the reference corpora in tests/data (see tests/data/README.md, section
//! 4): `mate_in_one` against brute force, and the df-pn solver on every public problem.

use crate::common::{load_jsonl as load, parallel};
use hayate::mate::{MateAnswer, MateLimits, MateSolver, generate_checks, mate_in_one, verify_mate_line};
use hayate::shogi::movegen::{self, MoveList};
use hayate::shogi::{Move, Position};
use serde_json::Value;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Node budget per problem with a mate: the hardest public one needs under a tenth of it (the
/// margin is for harder problems of the same kind; a solved problem stops early anyway).
const PROBLEM_NODES: u64 = 5_000_000;
/// Node budget per problem without a mate within 7 plies: `timeout` is a right answer there,
/// and a few need millions of nodes to prove `nomate`; this keeps the test short.
const NULL_PROBLEM_NODES: u64 = 600_000;
/// Table size per solver thread (MiB).
const TEST_HASH_MIB: usize = 32;
/// Random plies played from each corpus position to reach more mate-in-one test positions.
const RANDOM_WALK_PLIES: usize = 24;
/// Positions with a mate in one the random walks must reach at least.
const MIN_WALK_MATES: usize = 1000;

/// Every legal move after which the opponent is checkmated.
fn brute_force_mates(pos: &mut Position) -> Vec<Move> {
    let mut list = MoveList::new();
    movegen::generate_legal(pos, &mut list);
    let mut mates = Vec::new();
    for &m in &list {
        pos.do_move(m);
        if pos.is_checkmate() {
            mates.push(m);
        }
        pos.undo_move(m);
    }
    mates
}

/// `generate_checks` gives exactly the legal moves that check, each once.
fn check_checks(pos: &Position) -> Result<(), String> {
    let mut all = MoveList::new();
    movegen::generate_legal(pos, &mut all);
    let mut want: Vec<u16> = all.iter().filter(|&&m| pos.gives_check(m)).map(|m| m.raw()).collect();
    let mut checks = MoveList::new();
    generate_checks(pos, &mut checks);
    let mut got: Vec<u16> = checks.iter().map(|m| m.raw()).collect();
    want.sort();
    got.sort();
    if got == want {
        return Ok(());
    }
    let name = |v: &[u16]| v.iter().filter_map(|&r| Move::from_raw(r)).map(|m| m.to_string()).collect::<Vec<_>>();
    Err(format!("{}: generate_checks {:?}, legal checks {:?}", pos.to_sfen(), name(&got), name(&want)))
}

/// `mate_in_one` agrees with brute force on `pos`: it finds a mate exactly when one exists,
/// and the move it returns is one of them; `generate_checks` is checked on the way.
/// Ok(whether there is a mate).
fn check_mate_in_one(pos: &mut Position) -> Result<bool, String> {
    check_checks(pos)?;
    let mates = brute_force_mates(pos);
    match (mate_in_one(pos), mates.is_empty()) {
        (None, true) => Ok(false),
        (Some(m), false) if mates.contains(&m) => Ok(true),
        (got, _) => Err(format!(
            "{}: mate_in_one gave {:?}, mates are {:?}",
            pos.to_sfen(),
            got.map(|m| m.to_string()),
            mates.iter().map(|m| m.to_string()).collect::<Vec<_>>()
        )),
    }
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

/// Outcome of the random walks: positions checked, how many had a mate in one, disagreements.
#[derive(Default)]
struct WalkResult {
    positions: usize,
    with_mate: usize,
    errors: Vec<String>,
}

/// Checks `pos` and the positions of a random walk from it (checks and captures preferred, so
/// that the walk reaches positions with mates in one).
fn walk_and_check(sfen: &str, seed: u64) -> WalkResult {
    let mut r = WalkResult::default();
    let mut pos = Position::from_sfen(sfen).unwrap();
    let mut rng = XorShift(seed | 1);
    for _ in 0..RANDOM_WALK_PLIES {
        r.positions += 1;
        match check_mate_in_one(&mut pos) {
            Ok(mate) => r.with_mate += mate as usize,
            Err(e) => r.errors.push(e),
        }
        let mut list = MoveList::new();
        movegen::generate_legal(&pos, &mut list);
        if list.is_empty() {
            break;
        }
        let forcing: Vec<Move> =
            list.iter().copied().filter(|&m| pos.gives_check(m) || !pos.piece_on(m.to()).is_empty()).collect();
        let pool = if !forcing.is_empty() && !rng.next().is_multiple_of(3) { &forcing[..] } else { &list[..] };
        let m = pool[(rng.next() % pool.len() as u64) as usize];
        pos.do_move(m);
    }
    r
}

#[test]
fn mate_in_one_matches_brute_force_on_mate_problems() {
    let _cpu = crate::common::shared();
    let problems = load("mate_problems_public.jsonl");
    let mut found = 0;
    for p in &problems {
        let sfen = p["sfen"].as_str().unwrap();
        let mut pos = Position::from_sfen(sfen).unwrap();
        let has = check_mate_in_one(&mut pos).unwrap();
        assert_eq!(has, p["mate_length"].as_u64() == Some(1), "{sfen}");
        found += has as usize;
    }
    assert_eq!(found, problems.iter().filter(|p| p["mate_length"].as_u64() == Some(1)).count());
}

#[test]
fn mate_in_one_matches_brute_force_on_random_positions() {
    let _cpu = crate::common::shared();
    let mut sfens: Vec<String> = Vec::new();
    for p in load("random_positions_public.jsonl") {
        sfens.push(p["sfen"].as_str().unwrap().to_string());
    }
    for p in load("mate_problems_public.jsonl") {
        sfens.push(p["sfen"].as_str().unwrap().to_string());
    }
    let results = parallel(&sfens, |s| {
        let seed = s.bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3));
        walk_and_check(s, seed)
    });
    let positions: usize = results.iter().map(|r| r.positions).sum();
    let with_mate: usize = results.iter().map(|r| r.with_mate).sum();
    let errs: Vec<&String> = results.iter().flat_map(|r| &r.errors).collect();
    println!("checks and mate in one: {positions} positions, {with_mate} with a mate, {} disagreements", errs.len());
    assert!(errs.is_empty(), "{} disagreements, first: {:?}", errs.len(), &errs[..errs.len().min(5)]);
    // The walks must reach enough mates for the comparison to mean something.
    assert!(with_mate >= MIN_WALK_MATES, "only {with_mate} positions with a mate in one");
}

#[test]
fn mate_in_one_edge_cases() {
    let _cpu = crate::common::shared();
    let cases: &[(&str, Option<&str>)] = &[
        // Gold drop supported by the silver.
        ("4k4/9/3S5/9/9/9/9/9/4K4 b G 1", Some("G*5b")),
        // Pawn-drop mate is illegal: no mate in one although P*1b would mate.
        ("4R2sk/9/7G1/9/9/9/9/9/4K4 b P 1", None),
        // A pawn pushed on the board may mate.
        ("8k/9/7GP/9/9/9/9/9/4K4 b - 1", Some("1c1b+")),
        // Long-range mates that cshogi's helper misses (README, finding 2).
        ("k8/9/S2R5/9/9/9/9/9/2K6 b BL 1", Some("6c6a")),
        ("9/k8/9/9/9/9/9/9/K2b+r4 w n 1", Some("6i8g+")),
    ];
    for &(sfen, want) in cases {
        let mut pos = Position::from_sfen(sfen).unwrap();
        let has = check_mate_in_one(&mut pos).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(has, want.is_some(), "{sfen}: expected {want:?}");
    }
}

struct Solved {
    id: String,
    expected: Option<u64>,
    answer: MateAnswer,
    shortest: bool,
    nodes: u64,
    time: Duration,
    error: Option<String>,
}

fn solve_problem(p: &Value) -> Solved {
    let id = p["id"].as_str().unwrap().to_string();
    let sfen = p["sfen"].as_str().unwrap();
    let expected = p["mate_length"].as_u64();
    let pos = Position::from_sfen(sfen).unwrap();
    let mut solver = MateSolver::new(TEST_HASH_MIB).unwrap();
    let nodes = if expected.is_some() { PROBLEM_NODES } else { NULL_PROBLEM_NODES };
    let limits = MateLimits { nodes: Some(nodes), ..MateLimits::default() };
    let start = Instant::now();
    let r = solver.solve(&pos, &limits, &AtomicBool::new(false));
    let time = start.elapsed();
    let error = match (&r.answer, expected) {
        (MateAnswer::Mate(line), Some(n)) => verify_mate_line(&pos, line)
            .err()
            .or_else(|| (line.len() as u64 != n).then(|| format!("line of {} plies, shortest is {n}", line.len()))),
        (MateAnswer::Mate(line), None) => verify_mate_line(&pos, line)
            .err()
            .or_else(|| (line.len() <= 7).then(|| format!("mate in {} where none exists within 7", line.len()))),
        (MateAnswer::NoMate, Some(n)) => Some(format!("nomate, but a mate in {n} exists")),
        (MateAnswer::Timeout, Some(_)) => Some("not solved within the node budget".to_string()),
        (_, None) => None,
    };
    let error = error.map(|e| format!("{id} ({sfen}): {e}; answer {}", r.answer.to_usi()));
    Solved { id, expected, answer: r.answer, shortest: r.shortest, nodes: r.nodes, time, error }
}

#[test]
fn solves_every_public_mate_problem_with_a_shortest_line() {
    let _cpu = crate::common::shared();
    let problems = load("mate_problems_public.jsonl");
    let start = Instant::now();
    let results = parallel(&problems, solve_problem);
    let wall = start.elapsed();
    let mates = results.iter().filter(|r| r.expected.is_some()).count();
    let solved = results.iter().filter(|r| r.expected.is_some() && r.error.is_none() && r.shortest).count();
    let nomate = results.iter().filter(|r| r.expected.is_none() && r.answer == MateAnswer::NoMate).count();
    let longer = results.iter().filter(|r| r.expected.is_none() && matches!(r.answer, MateAnswer::Mate(_))).count();
    let max = results.iter().max_by_key(|r| r.nodes).unwrap();
    println!(
        "mate problems: {solved}/{mates} solved with a shortest line; null problems: {nomate} nomate, {longer} \
         longer mates, {} timeout; wall {wall:?}; most nodes {} ({}, {:?})",
        results.len() - mates - nomate - longer,
        max.nodes,
        max.id,
        max.time
    );
    // HAYATE_MATE_VERBOSE=1 lists the 40 costliest problems.
    if std::env::var("HAYATE_MATE_VERBOSE").is_ok() {
        let mut v: Vec<&Solved> = results.iter().collect();
        v.sort_by_key(|r| r.nodes);
        for r in v.iter().rev().take(40) {
            println!(
                "{} exp {:?} nodes {} time {:?} shortest {} {}",
                r.id,
                r.expected,
                r.nodes,
                r.time,
                r.shortest,
                r.answer.to_usi()
            );
        }
    }
    let errs: Vec<&String> = results.iter().filter_map(|r| r.error.as_ref()).collect();
    assert!(errs.is_empty(), "{} failures: {errs:#?}", errs.len());
    assert_eq!(solved, mates);
}
