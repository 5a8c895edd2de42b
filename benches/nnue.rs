//! Standard NNUE evaluation costs on every backend this CPU has, with the test network
//! (tests/data/nnue/random_sparse_nn.bin.gz) on the reference positions:
//! - `refresh`: both accumulators from scratch (38 features each);
//! - `update`: one move's incremental update of both accumulators (push, bring up to date);
//! - `update+evaluate`: the same followed by the layers, as a search node pays;
//! - `layers`: the layers after the transformer alone (clipped 512 -> 32 -> 32 -> 1);
//! - `tree`: search-like use, every node of random trees (20 roots, 3 moves per node, depth 5)
//!   evaluated through one stack: pushes, pops, lazy updates, king moves through the refresh
//!   cache (throughput in nodes per second).
//!
//! `cargo bench --bench nnue`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
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

/// One step of a depth-first walk: play the move from position `parent` giving position
/// `child` (indices into the tree's positions), or take the last one back.
enum Step {
    Push { parent: usize, m: Move, child: usize },
    Pop,
}

/// Random trees below some reference positions: `(positions, roots, steps per root)`.
fn trees(cases: &[(Position, Move)]) -> (Vec<Position>, Vec<usize>, Vec<Vec<Step>>) {
    fn grow(at: usize, depth: u32, positions: &mut Vec<Position>, steps: &mut Vec<Step>, rng: &mut u64) {
        let mut list = MoveList::new();
        movegen::generate_legal(&positions[at], &mut list);
        if depth == 0 || list.is_empty() {
            return;
        }
        for _ in 0..3 {
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            let m = list[(*rng % list.len() as u64) as usize];
            let mut child = positions[at].clone();
            child.do_move(m);
            positions.push(child);
            let child = positions.len() - 1;
            steps.push(Step::Push { parent: at, m, child });
            grow(child, depth - 1, positions, steps, rng);
            steps.push(Step::Pop);
        }
    }
    let mut rng = 0x1234_5678_9ABC_DEF0u64;
    let (mut positions, mut roots, mut steps) = (Vec::new(), Vec::new(), Vec::new());
    for (root, _) in cases.iter().step_by(cases.len() / 20) {
        positions.push(root.clone());
        roots.push(positions.len() - 1);
        let mut s = Vec::new();
        grow(positions.len() - 1, 5, &mut positions, &mut s, &mut rng);
        steps.push(s);
    }
    (positions, roots, steps)
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
        let (positions, roots, steps) = trees(&cases);
        let nodes = steps.iter().flatten().filter(|s| matches!(s, Step::Push { .. })).count();
        let mut group = c.benchmark_group("nnue tree");
        group.throughput(Throughput::Elements(nodes as u64));
        let mut stack = AccumulatorStack::with_backend(backend);
        group.bench_function(name, |b| {
            b.iter(|| {
                for (&root, steps) in roots.iter().zip(&steps) {
                    stack.reset(&positions[root]);
                    black_box(stack.evaluate(&positions[root], &net));
                    for step in steps {
                        match *step {
                            Step::Push { parent, m, child } => {
                                stack.push(&positions[parent], m);
                                black_box(stack.evaluate(&positions[child], &net));
                            }
                            Step::Pop => stack.pop(),
                        }
                    }
                }
            })
        });
        group.finish();

        let mut i = 0;
        c.bench_function(&format!("nnue layers ({name})"), |b| {
            b.iter(|| {
                i = (i + 1) % cases.len();
                black_box(net.propagate_accumulator(backend, &accumulators[i], cases[i].0.side_to_move(), 0))
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
