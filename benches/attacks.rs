//! Attack lookups: magic rook/bishop tables, and the lance computed from its file word
//! compared with the classic table lookup (a table built here only for the comparison).
//! `cargo bench --bench attacks`

use criterion::{Criterion, criterion_group, criterion_main};
use hayate::shogi::attacks::{bishop_attacks, lance_attacks, lance_attacks_slow, rook_attacks};
use hayate::shogi::bitboard::Bitboard;
use hayate::shogi::{Color, Square};
use std::hint::black_box;

/// Lance table indexed by the 7 inner squares of the file (ranks b..h).
struct LanceTable(Vec<Bitboard>);

impl LanceTable {
    fn new() -> Self {
        let mut v = vec![Bitboard::EMPTY; 2 * 81 * 128];
        for c in Color::ALL {
            for sq in Square::all() {
                for bits in 0..128usize {
                    let mut occ = Bitboard::EMPTY;
                    for r in 0..7u8 {
                        if bits >> r & 1 != 0 {
                            occ.set(Square::from_file_rank(sq.file(), r + 1));
                        }
                    }
                    v[(c.index() * 81 + sq.index()) * 128 + bits] = lance_attacks_slow(c, sq, occ);
                }
            }
        }
        LanceTable(v)
    }

    #[inline]
    fn get(&self, c: Color, sq: Square, occ: Bitboard) -> Bitboard {
        let f = sq.file() as usize;
        let (word, base) = if f < 7 { (occ.part(0), f * 9) } else { (occ.part(1), (f - 7) * 9) };
        let bits = ((word >> (base + 1)) & 0x7f) as usize;
        self.0[(c.index() * 81 + sq.index()) * 128 + bits]
    }
}

fn occupancies() -> Vec<Bitboard> {
    let mut x: u64 = 0x853c_49e6_748f_ea9b;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..1024).map(|_| Bitboard::from_parts(next() & next(), next() & next())).collect()
}

fn bench_attacks(c: &mut Criterion) {
    hayate::shogi::attacks::init();
    let occs = occupancies();
    let table = LanceTable::new();
    for sq in Square::all() {
        for &o in &occs[..16] {
            assert_eq!(table.get(Color::Black, sq, o), lance_attacks(Color::Black, sq, o));
        }
    }
    let mut g = c.benchmark_group("attacks_81x1024");
    g.bench_function("rook_magic", |b| {
        b.iter(|| {
            let mut acc = Bitboard::EMPTY;
            for &o in &occs {
                for sq in Square::all() {
                    acc ^= rook_attacks(sq, black_box(o));
                }
            }
            acc
        })
    });
    g.bench_function("bishop_magic", |b| {
        b.iter(|| {
            let mut acc = Bitboard::EMPTY;
            for &o in &occs {
                for sq in Square::all() {
                    acc ^= bishop_attacks(sq, black_box(o));
                }
            }
            acc
        })
    });
    g.bench_function("lance_computed", |b| {
        b.iter(|| {
            let mut acc = Bitboard::EMPTY;
            for &o in &occs {
                for sq in Square::all() {
                    acc ^= lance_attacks(Color::Black, sq, black_box(o));
                }
            }
            acc
        })
    });
    g.bench_function("lance_table", |b| {
        b.iter(|| {
            let mut acc = Bitboard::EMPTY;
            for &o in &occs {
                for sq in Square::all() {
                    acc ^= table.get(Color::Black, sq, black_box(o));
                }
            }
            acc
        })
    });
    g.finish();
}

criterion_group!(benches, bench_attacks);
criterion_main!(benches);
