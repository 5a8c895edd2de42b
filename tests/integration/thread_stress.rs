//! Thread safety under stress: the shared transposition table hammered by many threads (a hit
//! never mixes two stores), and searches with 4 threads and a tiny table over many positions
//! while other threads flip the stop and ponderhit flags at random moments; every bestmove and
//! ponder move must be legal.

use hayate::engine::EngineOptions;
use hayate::search::{self, BestMove, Control, Limits, Reporter, SearchInfo, SearchJob};
use hayate::shogi::Position;
use hayate::tt::{Bound, TranspositionTable};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What each key stores: derived from the key, so a torn entry would show as a mismatch.
fn payload(key: u64) -> (i32, i32, i32) {
    let v = (key >> 20) as i16 as i32;
    let e = (key >> 40) as i16 as i32;
    let d = (key % 200) as i32;
    (v.clamp(-32000, 32000), e.clamp(-32000, 32000), d)
}

#[test]
fn transposition_table_under_contention() {
    let _cpu = crate::common::shared();
    // 1 MiB: 64K entries for 8 threads storing from a key space of 256K keys, so buckets are
    // shared, replaced and raced over all the time.
    let tt = Arc::new(TranspositionTable::new(1).unwrap());
    let hits = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let threads = 8;
    let mut handles = Vec::new();
    for t in 0..threads {
        let (tt, hits, stop) = (tt.clone(), hits.clone(), stop.clone());
        handles.push(std::thread::spawn(move || {
            let mut seed = t as u64 + 1;
            let mut ops = 0u64;
            while !stop.load(Ordering::Relaxed) || ops < 200_000 {
                let mut n = splitmix(&mut seed) % (1 << 18);
                let key = splitmix(&mut n);
                let (v, e, d) = payload(key);
                if splitmix(&mut seed).is_multiple_of(2) {
                    tt.store(key, None, v, e, d, Bound::Exact, key & 1 == 0);
                } else if let Some(h) = tt.probe(key) {
                    assert_eq!((h.value, h.eval, h.depth), (v, e, d), "torn entry for key {key:#x}");
                    assert_eq!(h.is_pv, key & 1 == 0);
                    hits.fetch_add(1, Ordering::Relaxed);
                }
                ops += 1;
                if ops >= 2_000_000 {
                    break;
                }
            }
        }));
    }
    // Meanwhile: new searches, hashfull, and clears.
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_millis(500) {
        tt.new_search();
        let _ = tt.hashfull();
        if t0.elapsed().as_millis().is_multiple_of(7) {
            tt.clear();
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    stop.store(true, Ordering::Relaxed);
    for h in handles {
        h.join().expect("no thread panicked");
    }
    assert!(hits.load(Ordering::Relaxed) > 1000, "the test must actually hit");
}

/// Every `step`-th of the public random positions.
fn public_positions(step: usize) -> Vec<Position> {
    let path = format!("{}/tests/data/random_positions_public.jsonl", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["sfen"].as_str().and_then(|s| Position::from_sfen(s).ok()))
        .step_by(step)
        .collect()
}

/// Keeps the bestmove.
#[derive(Default)]
struct Catch(Mutex<Vec<BestMove>>);

impl Reporter for Catch {
    fn info(&self, _: &SearchInfo) {}
    fn bestmove(&self, b: &BestMove, _: Option<i32>) {
        self.0.lock().unwrap().push(b.clone());
    }
    fn message(&self, _: &str) {}
}

fn assert_legal(pos: &Position, best: &BestMove) {
    match best {
        BestMove::Move { mv, ponder } => {
            assert!(pos.is_legal(*mv), "illegal bestmove {mv} in {}", pos.to_sfen());
            if let Some(p) = ponder {
                let mut after = pos.clone();
                after.do_move(*mv);
                assert!(after.is_legal(*p), "illegal ponder {p} after {mv} in {}", pos.to_sfen());
            }
        }
        BestMove::Resign => {}
        BestMove::Win => assert!(pos.can_declare_win(Default::default()), "bad declaration in {}", pos.to_sfen()),
    }
}

#[test]
fn four_threads_tiny_hash_with_racing_flags() {
    let _cpu = crate::common::shared();
    let positions = public_positions(20);
    assert!(positions.len() >= 100);
    // One table for all: entries of other positions are noise the search must survive.
    let tt = Arc::new(TranspositionTable::new(1).unwrap());
    let mut seed = 7u64;
    for (i, pos) in positions.iter().enumerate() {
        let r = splitmix(&mut seed);
        let limits = match i % 4 {
            0 => Limits { nodes: Some(5_000 + r % 20_000), ..Default::default() },
            1 => Limits { movetime: Some(5 + r % 30), ..Default::default() },
            2 => Limits { infinite: true, ..Default::default() },
            _ => Limits { ponder: true, byoyomi: [20, 20], time: [Some(0), Some(0)], ..Default::default() },
        };
        let control = Control::new();
        if limits.infinite || limits.ponder {
            control.hold.store(true, Ordering::SeqCst);
        }
        let job = SearchJob {
            root: pos.clone(),
            limits: limits.clone(),
            config: EngineOptions { threads: 4, ..Default::default() }.search_config(),
            tt: tt.clone(),
            control: control.clone(),
            threads: Vec::new(),
            start: Instant::now(),
        };
        // Another thread flips the flags at a random moment (for limited searches, possibly
        // after the search is over, which must be harmless too).
        let delay = Duration::from_micros(r % 40_000);
        let flipper = {
            let control = control.clone();
            std::thread::spawn(move || {
                std::thread::sleep(delay);
                match i % 4 {
                    3 => {
                        control.ponderhit(None);
                        std::thread::sleep(Duration::from_millis(1));
                        control.ponderhit(None);
                    }
                    _ => control.stop(),
                }
            })
        };
        let catch = Catch::default();
        search::run(job, &catch);
        flipper.join().unwrap();
        let got = catch.0.into_inner().unwrap();
        assert_eq!(got.len(), 1, "one bestmove per search");
        assert_legal(pos, &got[0]);
    }
}

/// The answer a search holds ready (what the timekeeper gives when the main thread waits for a
/// CPU at the end of its time) is the move the main thread plays when it stops itself: stopped
/// by a node limit in the middle of an iteration, where a move found better than the last
/// iteration's best is played, the two agree.
#[test]
fn the_answer_held_ready_is_the_move_played_when_stopped() {
    let _cpu = crate::common::shared();
    let positions: Vec<Position> = public_positions(11).into_iter().take(200).collect();
    assert!(positions.len() >= 150);
    let tt = Arc::new(TranspositionTable::new(4).unwrap());
    let mut seed = 11u64;
    let mut moves = 0;
    for pos in &positions {
        tt.clear();
        let control = Control::new();
        let job = SearchJob {
            root: pos.clone(),
            limits: Limits { nodes: Some(2_000 + splitmix(&mut seed) % 40_000), ..Default::default() },
            config: EngineOptions { threads: 1, ..Default::default() }.search_config(),
            tt: tt.clone(),
            control: control.clone(),
            threads: Vec::new(),
            start: Instant::now(),
        };
        let catch = Catch::default();
        search::run(job, &catch);
        let played = catch.0.into_inner().unwrap().remove(0);
        let held = control.answer().expect("an answer held ready");
        match (&played, &held) {
            (BestMove::Move { mv: a, .. }, BestMove::Move { mv: b, .. }) => {
                assert_eq!(a, b, "played {a}, held {b} in {}", pos.to_sfen());
                moves += 1;
            }
            _ => assert_eq!(played, held, "in {}", pos.to_sfen()),
        }
    }
    assert!(moves >= 100, "most searches end in a move");
}
