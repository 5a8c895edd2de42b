//! Move generation speed: perft with bulk-counted leaves.
//! `cargo bench --bench perft` (nodes/s = leaves / reported time).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hayate::shogi::{Position, perft};
use std::hint::black_box;
use std::time::Duration;

fn bench_perft(c: &mut Criterion) {
    hayate::shogi::attacks::init();
    let cases = [
        ("startpos_d4", hayate::shogi::STARTPOS, 4, 719_731u64),
        ("startpos_d5", hayate::shogi::STARTPOS, 5, 19_861_490),
        ("max593_d2", "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1", 2, 105_677),
        ("max593_d3", "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1", 3, 53_393_368),
        ("matsuri_d3", "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1", 3, 4_809_015),
    ];
    let mut g = c.benchmark_group("perft");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    for (name, sfen, depth, leaves) in cases {
        let mut pos = Position::from_sfen(sfen).unwrap();
        assert_eq!(perft(&mut pos, depth), leaves);
        g.throughput(Throughput::Elements(leaves));
        g.bench_function(name, |b| b.iter(|| perft(black_box(&mut pos), depth)));
    }
    g.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
