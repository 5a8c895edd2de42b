//! Standard NNUE evaluation costs on every backend this CPU has, with the test network
//! (tests/data/nnue/random_sparse_nn.bin.gz) on the reference positions:
//! - `refresh`: both accumulators from scratch (38 features each);
//! - `update`: one move's incremental update of both accumulators (push, bring up to date);
//! - `update+evaluate`: the same followed by the layers, as a search node pays;
//! - `layers`: the layers after the transformer alone (clipped 512 -> 32 -> 32 -> 1).
//!
//! `cargo bench --bench nnue`

use criterion::{Criterion, criterion_group, criterion_main};
use hayate::nnue::{Accumulator, AccumulatorStack, Backend, Network};
use hayate::shogi::movegen::{self, MoveList};
use hayate::shogi::{Move, Position};
use std::hint::black_box;

fn network() -> Network {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/nnue/random_sparse_nn.bin.gz");
    Network::load(path).expect("test network loads")
}

/// Reference positions, each with one legal move (the first that is not a king move, so that
/// the update is incremental for both perspectives).
fn positions() -> Vec<(Position, Move)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/nnue/reference_evals_public.jsonl");
    let text = std::fs::read_to_string(path).expect("reference positions");
    let mut list = MoveList::new();
    text.lines()
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            let pos = Position::from_sfen(v["sfen"].as_str()?).ok()?;
            list.clear();
            movegen::generate_legal(&pos, &mut list);
            let m = list
                .iter()
                .copied()
                .find(|m| m.is_drop() || pos.piece_on(m.from()).kind() != hayate::shogi::PieceType::King)?;
            Some((pos, m))
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let net = network();
    let cases = positions();
    for backend in Backend::available() {
        let name = backend.name();
        let mut i = 0;
        c.bench_function(&format!("nnue refresh ({name})"), |b| {
            b.iter(|| {
                i = (i + 1) % cases.len();
                black_box(Accumulator::refreshed(backend, &cases[i].0, &net))
            })
        });

        // One stack per position, its root computed, so every iteration is push + update + pop.
        let mut stacks: Vec<AccumulatorStack> = cases
            .iter()
            .map(|(pos, _)| {
                let mut s = AccumulatorStack::with_backend(backend);
                s.reset(pos);
                s.evaluate(pos, &net);
                s
            })
            .collect();
        let children: Vec<Position> = cases
            .iter()
            .map(|(pos, m)| {
                let mut p = pos.clone();
                p.do_move(*m);
                p
            })
            .collect();
        let mut i = 0;
        c.bench_function(&format!("nnue update ({name})"), |b| {
            b.iter(|| {
                i = (i + 1) % cases.len();
                let s = &mut stacks[i];
                s.push(&cases[i].0, cases[i].1);
                black_box(s.accumulator(&children[i], &net).is_some());
                s.pop();
            })
        });
        let mut i = 0;
        c.bench_function(&format!("nnue update+evaluate ({name})"), |b| {
            b.iter(|| {
                i = (i + 1) % cases.len();
                let s = &mut stacks[i];
                s.push(&cases[i].0, cases[i].1);
                let v = black_box(s.evaluate(&children[i], &net));
                s.pop();
                v
            })
        });

        let accumulators: Vec<Accumulator> =
            cases.iter().map(|(pos, _)| Accumulator::refreshed(backend, pos, &net).unwrap()).collect();
        let mut i = 0;
        c.bench_function(&format!("nnue layers ({name})"), |b| {
            b.iter(|| {
                i = (i + 1) % cases.len();
                black_box(net.propagate_accumulator(backend, &accumulators[i], cases[i].0.side_to_move()))
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
