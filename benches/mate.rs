//! Mate search benchmarks.
//!
//! First a one-shot pass over every public mate problem (tests/data/mate_problems_public.jsonl):
//! each is solved once, single-threaded, with a node budget, and the solve times are summarised
//! (median and worst, overall and per mate length). Then criterion measures `mate_in_one` and a
//! few whole solves. Run with `cargo bench --bench mate`; `cargo bench --bench mate -- corpus`
//! runs only the corpus pass.

use criterion::Criterion;
use hayate::mate::{MateAnswer, MateLimits, MateSolver, mate_in_one};
use hayate::shogi::Position;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Node budget per problem (as in tests/mate.rs).
const PROBLEM_NODES: u64 = 1_500_000;
/// Table size (MiB).
const HASH_MIB: usize = 64;

struct Problem {
    id: String,
    sfen: String,
    mate_length: Option<u64>,
}

fn problems() -> Vec<Problem> {
    let path = format!("{}/tests/data/mate_problems_public.jsonl", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("valid JSON line");
            Problem {
                id: v["id"].as_str().unwrap_or_default().to_string(),
                sfen: v["sfen"].as_str().unwrap_or_default().to_string(),
                mate_length: v["mate_length"].as_u64(),
            }
        })
        .collect()
}

fn median_and_worst(times: &mut [Duration]) -> (Duration, Duration) {
    times.sort();
    if times.is_empty() {
        return (Duration::ZERO, Duration::ZERO);
    }
    (times[times.len() / 2], times[times.len() - 1])
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// Solves every public problem once and prints the figures the README quotes.
fn corpus_pass() {
    let mut solver = MateSolver::new(HASH_MIB).expect("mate table");
    let limits = MateLimits { nodes: Some(PROBLEM_NODES), ..MateLimits::default() };
    let stop = AtomicBool::new(false);
    let mut by_length: BTreeMap<Option<u64>, Vec<Duration>> = BTreeMap::new();
    let mut all = Vec::new();
    let (mut solved, mut shortest, mut nomate, mut timeout, mut mates) = (0, 0, 0, 0, 0);
    let mut slowest = (Duration::ZERO, String::new());
    let mut nodes = 0;
    let mut mate_nodes = 0;
    for p in problems() {
        let Ok(pos) = Position::from_sfen(&p.sfen) else { continue };
        let r = solver.solve(&pos, &limits, &stop);
        match (&r.answer, p.mate_length) {
            (MateAnswer::Mate(l), Some(n)) if l.len() as u64 == n => solved += 1,
            (MateAnswer::NoMate, None) => nomate += 1,
            (MateAnswer::Timeout, None) => timeout += 1,
            _ => {}
        }
        mates += p.mate_length.is_some() as usize;
        shortest += (p.mate_length.is_some() && r.shortest) as usize;
        by_length.entry(p.mate_length).or_default().push(r.elapsed);
        all.push(r.elapsed);
        nodes += r.nodes;
        if p.mate_length.is_some() {
            mate_nodes += r.nodes;
        }
        if r.elapsed > slowest.0 {
            slowest = (r.elapsed, p.id.clone());
        }
    }
    let total: Duration = all.iter().sum();
    let mut mate_times: Vec<Duration> =
        by_length.iter().filter(|(k, _)| k.is_some()).flat_map(|(_, v)| v.iter().copied()).collect();
    let (med_all, worst_all) = median_and_worst(&mut all);
    let (med_mates, worst_mates) = median_and_worst(&mut mate_times);
    println!("mate corpus: {} problems, node budget {PROBLEM_NODES}, table {HASH_MIB} MiB", all.len());
    println!(
        "  mates: {solved}/{mates} solved with a line of exactly mate_length plies ({shortest} proven shortest); \
         median {}, worst {}, {mate_nodes} nodes",
        ms(med_mates),
        ms(worst_mates)
    );
    println!("  no mate within 7: {nomate} nomate, {timeout} timeout, {} other", all.len() - mates - nomate - timeout);
    println!(
        "  all: median {}, worst {} ({}), total {:.2} s, {nodes} nodes",
        ms(med_all),
        ms(worst_all),
        slowest.1,
        total.as_secs_f64()
    );
    for (len, times) in &mut by_length {
        let (med, worst) = median_and_worst(times);
        let name = len.map_or("none".to_string(), |n| n.to_string());
        println!("  mate_length {name:>4}: {:>3} problems, median {}, worst {}", times.len(), ms(med), ms(worst));
    }
}

fn criterion_benches(c: &mut Criterion) {
    let all = problems();
    let positions: Vec<Position> = all.iter().filter_map(|p| Position::from_sfen(&p.sfen).ok()).collect();
    c.bench_function("mate_in_one over the public problems (per position)", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % positions.len();
            black_box(mate_in_one(black_box(&positions[i])))
        })
    });
    let mut solver = MateSolver::new(16).expect("mate table");
    let stop = AtomicBool::new(false);
    let limits = MateLimits::default();
    for id in ["mate0441", "mate0573"] {
        let Some(p) = all.iter().find(|p| p.id == id) else { continue };
        let Ok(pos) = Position::from_sfen(&p.sfen) else { continue };
        c.bench_function(&format!("solve {id} (mate in {})", p.mate_length.unwrap_or(0)), |b| {
            b.iter(|| black_box(solver.solve(&pos, &limits, &stop)))
        });
    }
}

fn main() {
    let only_corpus = std::env::args().any(|a| a == "corpus");
    corpus_pass();
    if !only_corpus {
        let mut c = Criterion::default().configure_from_args().sample_size(20);
        criterion_benches(&mut c);
        c.final_summary();
    }
}
